# Ctrl-C as a terminal sends it: runs ARGS in a process group of their
# own, with SIGINT at its default, and after SECONDS sends SIGINT to the
# whole group (COUNT times, a second apart); exits with the command's
# status (128 + signal when a signal ended it).
# usage: python3 ctrlc.py SECONDS COUNT ARGS...
import os
import signal
import sys
import time

delay, count, argv = float(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]
signal.signal(signal.SIGINT, signal.SIG_DFL)
pid = os.fork()
if pid == 0:
    os.setpgid(0, 0)
    os.execvp(argv[0], argv)
os.setpgid(pid, pid)
signal.signal(signal.SIGINT, signal.SIG_IGN)
time.sleep(delay)
for i in range(count):
    if i:
        time.sleep(1)
    try:
        os.killpg(pid, signal.SIGINT)
    except ProcessLookupError:
        break
_, st = os.waitpid(pid, 0)
sys.exit(os.waitstatus_to_exitcode(st) if os.WIFEXITED(st) else 128 + os.WTERMSIG(st))

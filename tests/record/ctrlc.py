# Ctrl-C as a terminal sends it: runs ARGS in a process group of their
# own, with SIGINT at its default, and SECONDS after ARGS started a
# program of its own (ember's command ran), sends SIGINT to the whole
# group (COUNT times, a second apart); exits with the command's status
# (128 + signal when a signal ended it).
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


def started():
    """Whether a child of pid runs another program than pid."""
    try:
        exe = os.readlink("/proc/%d/exe" % pid)
        with open("/proc/%d/task/%d/children" % (pid, pid)) as f:
            kids = f.read().split()
        return any(os.readlink("/proc/%s/exe" % k) != exe for k in kids)
    except OSError:
        return False


end = time.time() + 60
while not started() and time.time() < end:
    time.sleep(0.02)
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

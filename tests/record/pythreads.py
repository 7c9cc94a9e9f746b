# Two Python threads in different functions (alpha, beta), for stacks
# told apart per thread.  Runs for argv[1] seconds (default 2).
import sys
import threading
import time

END = time.monotonic() + float(sys.argv[1] if len(sys.argv) > 1 else 2)


def spin():
    s = 0
    for i in range(200):
        s += i
    return s


def alpha():
    while time.monotonic() < END:
        spin()


def beta():
    while time.monotonic() < END:
        spin()


t = threading.Thread(target=beta)
t.start()
alpha()
t.join()

# The benchmark's Python target: calls baz -> bar -> foo in a loop for
# argv[1] seconds and prints the calls per second of its own CPU time
# (what sampling costs it, whatever else the machine runs).
import sys
import time


def foo(n):
    s = 0
    for i in range(n):
        s += i
    return s


def bar(n):
    return foo(n) + 1


def baz(n):
    return bar(n) + 1


end = time.monotonic() + float(sys.argv[1] if len(sys.argv) > 1 else 3)
calls = 0
t0 = time.process_time()
while time.monotonic() < end:
    baz(100)
    calls += 1
print("%.0f" % (calls / (time.process_time() - t0)))

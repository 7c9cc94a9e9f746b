# Deep Python recursion for the profiler's tests: <module> -> rec, 50
# levels deep (argv[2], default 50) -> leaf, hot, for argv[1] seconds
# (default 1).  Each level costs the native stack about 0.6 KiB.
import sys
import time


def leaf(n):
    s = 0
    for i in range(n):
        s += i
    return s


def rec(depth, n):
    if depth > 1:
        return rec(depth - 1, n) + 1
    return leaf(n)


end = time.monotonic() + float(sys.argv[1] if len(sys.argv) > 1 else 1)
depth = int(sys.argv[2]) if len(sys.argv) > 2 else 50
while time.monotonic() < end:
    rec(depth, 20000)

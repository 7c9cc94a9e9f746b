# A Python program whose stacks the unwinder tests and benchmark sample:
# <module> -> main -> baz -> bar -> foo, with foo hot.  Runs for argv[1]
# seconds (default 5).
import sys
import time


def foo(n):
    s = 0
    for i in range(n):
        s += i * i
    return s


def bar(n):
    return foo(n) + 1


def baz(n):
    return bar(n) + 1


def main():
    end = time.monotonic() + float(sys.argv[1] if len(sys.argv) > 1 else 5)
    while time.monotonic() < end:
        baz(2000)


main()

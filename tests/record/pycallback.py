# Python called back from C: sorted() calls key(), functools.reduce()
# calls add(); the stacks must read sorter -> [C] -> key and
# reducer -> [C] -> add.  Runs for argv[1] seconds (default 3).
import functools
import sys
import time


def key(x):
    s = 0
    for i in range(40):
        s += i
    return -x


def sorter():
    return sorted(range(500), key=key)


def add(a, b):
    s = 0
    for i in range(40):
        s += i
    return a + b


def reducer():
    return functools.reduce(add, range(500))


def main():
    end = time.monotonic() + float(sys.argv[1] if len(sys.argv) > 1 else 3)
    while time.monotonic() < end:
        sorter()
        reducer()


main()

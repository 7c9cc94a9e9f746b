# A Python program whose time goes to known lines: hot() spends most of
# it on the line marked HOT (line 10), warm() on the line marked WARM
# (line 16).  Runs for argv[1] seconds (default 2).
import sys
import time


def hot(n):
    s = 0
    for i in range(n): s += i * i  # HOT
    return s


def warm(n):
    s = 0
    for i in range(n): s += i  # WARM
    return s


def main():
    end = time.monotonic() + float(sys.argv[1] if len(sys.argv) > 1 else 2)
    while time.monotonic() < end:
        hot(30000)
        warm(5000)


main()

#!/usr/bin/env python3
# Writes input.pb, a hand-made profile.proto (field numbers from pprof's
# proto/profile.proto) holding what ember's pprof reader keeps: two sample
# types, the period, time_nanos and duration_nanos, a main program and a
# kernel mapping with build id, a location of two Lines (an inlined call),
# one without Lines, functions with files and start lines, labels pid, tid,
# thread and "thread id"/"thread name", timestamp_ns out of time order.
# Run from this folder: python3 make-input.py

def varint(v):
    out = b""
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out += bytes([b | 0x80])
        else:
            return out + bytes([b])

def f_int(n, v):
    return varint(n << 3) + varint(v)

def f_bytes(n, b):
    return varint(n << 3 | 2) + varint(len(b)) + b

strs = [""]
def s(x):
    if x not in strs:
        strs.append(x)
    return strs.index(x)

def value_type(t, u):
    return f_int(1, s(t)) + f_int(2, s(u))

def label_num(k, v):
    return f_bytes(3, f_int(1, s(k)) + f_int(3, v))

def label_str(k, v):
    return f_bytes(3, f_int(1, s(k)) + f_int(2, s(v)))

out = b""
out += f_bytes(1, value_type("samples", "count"))
out += f_bytes(1, value_type("cpu", "nanoseconds"))

def sample(locs, vals, labels):
    m = f_bytes(1, b"".join(varint(l) for l in locs))
    m += f_bytes(2, b"".join(varint(v) for v in vals))
    return f_bytes(2, m + b"".join(labels))

out += sample([2, 1], [1, 1000000], [label_num("pid", 100), label_num("tid", 101),
              label_str("thread", "worker"), label_num("timestamp_ns", 3000)])
out += sample([4, 1], [1, 1000000], [label_num("pid", 100), label_num("tid", 101),
              label_str("thread", "worker"), label_num("timestamp_ns", 1000)])
out += sample([3, 2, 1], [1, 2000000], [label_num("pid", 100), label_num("tid", 102),
              label_str("thread", "io"), label_num("timestamp_ns", 2000)])
out += sample([5, 1], [1, 1000000], [label_str("thread id", "103"),
              label_str("thread name", "other"), label_num("timestamp_ns", 4000)])

def mapping(i, start, limit, off, path, bid):
    m = f_int(1, i) + f_int(2, start) + f_int(3, limit) + f_int(4, off)
    m += f_int(5, s(path))
    if bid:
        m += f_int(6, s(bid))
    m += f_int(7, 1) + f_int(9, 1)
    return f_bytes(3, m)

out += mapping(1, 0x400000, 0x500000, 0, "/usr/bin/app", "abc123")
out += mapping(2, 0xffffffff81000000, 0xffffffff82000000, 0, "[kernel.kallsyms]", None)

def location(i, addr, mp, lines):
    m = f_int(1, i) + f_int(2, mp) + f_int(3, addr)
    for fn, ln in lines:
        m += f_bytes(4, f_int(1, fn) + f_int(2, ln))
    return f_bytes(4, m)

out += location(1, 0x401000, 1, [(1, 12)])
out += location(2, 0x402000, 1, [(3, 31), (2, 22)])  # helper inlined in parse
out += location(3, 0xffffffff81001000, 2, [(4, 0)])
out += location(4, 0x403000, 1, [(5, 41)])
out += location(5, 0x404000, 1, [])

def function(i, name, file, start):
    m = f_int(1, i) + f_int(2, s(name)) + f_int(3, s(name))
    if file:
        m += f_int(4, s(file))
    if start:
        m += f_int(5, start)
    return f_bytes(5, m)

out += function(1, "main", "/src/app.c", 10)
out += function(2, "parse", "/src/app.c", 20)
out += function(3, "helper", "/src/app.c", 30)
out += function(4, "do_syscall", None, 0)
out += function(5, "compute", "/src/app.c", 40)
out += f_int(9, 1700000000000000000)
out += f_int(10, 5000)
out += f_bytes(11, value_type("cpu", "nanoseconds"))
out += f_int(12, 1000000)
for x in list(strs):
    out += f_bytes(6, x.encode())
open("input.pb", "wb").write(out)

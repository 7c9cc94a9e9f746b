#!/bin/sh
# What the pprof and speedscope readers keep beyond folded stacks, seen
# through the writers of the sample-level profile: threads and their
# names, frames' files and lines, the sample type counted, several
# inputs (no profile: the folded stacks'), and Mappings of the wrong
# shape refused.  The inputs: the golden cases' (tests/golden/collapse/
# pprof-sample-level/input.pb, made by make-input.py there, and
# speedscope-sampled-times/input.speedscope.json).
. tests/cli/lib.sh
suite=sample-readers
PB=tests/golden/collapse/pprof-sample-level/input.pb
SS=tests/golden/collapse/speedscope-sampled-times/input.speedscope.json

# pprof in, speedscope out: a profile per thread, frames with their files
status 0 "pprof to speedscope" "$EMBER" collapse pprof "$PB" -o "$T/p.speedscope.json"
check "  a profile per thread, named as the labels say" sh -c "
	grep -q '\"name\":\"worker (tid 101)\"' '$T/p.speedscope.json' &&
	grep -q '\"name\":\"io (tid 102)\"' '$T/p.speedscope.json' &&
	grep -q '\"name\":\"other (tid 103)\"' '$T/p.speedscope.json'"
check "  a function's file and start line" has '{"name":"helper","file":"/src/app.c","line":30}' "$T/p.speedscope.json"
check "  weights in the counted type's unit" has '"unit":"nanoseconds"' "$T/p.speedscope.json"

# --sample-type: the type counted is the profile's default (the last) when written
# again, so that what reads it next counts the same
status 0 "pprof --sample-type samples to pprof" "$EMBER" collapse pprof --sample-type samples "$PB" -o "$T/s.pb.gz"
status 0 "  read back" "$EMBER" collapse pprof "$T/s.pb.gz"
check "  counting samples" sh -c "awk '{ s += \$NF } END { exit s != 4 }' '$T/out'"
status 0 "pprof to pprof" "$EMBER" collapse pprof "$PB" -o "$T/c.pb.gz"
status 0 "  read back" "$EMBER" collapse pprof "$T/c.pb.gz"
"$EMBER" collapse pprof "$PB" > "$T/want"
check "  the same folded stacks" cmp -s "$T/out" "$T/want"
status 0 "  to perf script text" "$EMBER" collapse pprof "$T/c.pb.gz" --format perf-script
check "  the same samples, times and threads" cmp -s "$T/out" tests/golden/collapse/pprof-sample-level/expected

# several inputs: no one profile, the folded stacks' (no times, no threads)
status 0 "two pprof inputs to perf script text" "$EMBER" collapse pprof "$PB" "$PB" --format perf-script
check "  the stacks of both, without the samples' threads" sh -c "! grep -q '^worker ' '$T/out' && grep -q '2000000' '$T/out'"
status 0 "two speedscope inputs to speedscope" "$EMBER" collapse speedscope "$SS" "$SS" -o "$T/two.speedscope.json"

# speedscope in, pprof out and back: the threads and their order
status 0 "speedscope to pprof" "$EMBER" collapse speedscope "$SS" -o "$T/ss.pb.gz"
status 0 "  back to perf script text" "$EMBER" collapse pprof "$T/ss.pb.gz" --format perf-script
check "  the samples in time order, on their threads" sh -c "
	grep -v '^	' '$T/out' | grep . | awk '{ print \$1, \$(NF-2) }' > '$T/order' &&
	printf 'app 0.005000:\napp 0.006000:\nio-thread 0.006000:\nio-thread 0.007000:\napp 0.008000:\napp 0.009500:\n' | cmp -s - '$T/order'"

# a Mapping whose fields are of the wrong type: refused where the profile
# reads the mappings (folded output does not need them)
printf '\062\000\032\003\052\001x' > "$T/badmap.pb"
status 1 "a Mapping's file name of the wrong type" "$EMBER" collapse pprof "$T/badmap.pb" --format perf-script
check "  saying so" has "field 5 of a Mapping is bytes" "$T/err"

finish

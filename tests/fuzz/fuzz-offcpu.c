/* libFuzzer target: any bytes as a run of perf records (samples with
 * sched_switch raw data, or the context-switches event's samples told by
 * their id, switch, lost and side-band records) through the off-CPU
 * accounting, then the tracepoint's format text from the same bytes.  Records
 * are cut where their headers say, at most the input. Must not crash, hang or
 * leak. */
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>

#include "perf/events.h"
#include "perf/offcpu.h"

static const char format[] =
    "\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
    "\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n";

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);
int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	struct ember_record_stats stats;
	struct rec_events ev;
	struct rec_offcpu *o;
	static uint64_t buf[8192];

	int cs = (size & 4) != 0;
	if (cs ? rec_offcpu_new_cs(&o, size & 1)
	       : rec_offcpu_new_from(&o, "372", format, size & 1 ? 1 : 0))
		abort();
	if (cs)
		rec_offcpu_add_id(o, 42);
	memset(&stats, 0, sizeof(stats));
	rec_events_init(&ev, &stats);
	ev.off = o;
	ev.system_wide = size & 2;
	ev.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			 PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
			 PERF_SAMPLE_CALLCHAIN |
			 (cs ? PERF_SAMPLE_IDENTIFIER : PERF_SAMPLE_RAW);
	for (size_t i = 0; i + 8 <= size;) {
		struct perf_event_header h;
		memcpy(&h, data + i, sizeof(h));
		size_t n = h.size & ~7u;
		if (n < 8 || n > size - i || n > sizeof(buf))
			break;
		memcpy(buf, data + i, n);
		rec_events_handle(&ev, buf, n);
		i += n;
	}
	rec_offcpu_finish(&ev, (uint64_t)size << 20);
	rec_events_release(&ev);

	/* the format text itself */
	char *text = malloc(size + 1);
	memcpy(text, data, size);
	text[size] = '\0';
	if (!rec_offcpu_new_from(&o, text, text, 0))
		rec_offcpu_free(o);
	free(text);
	return 0;
}

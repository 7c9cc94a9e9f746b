/*
 * The frames of the sampled stacks (frames.c), before they have names:
 * (kind, object, address) -> a dense id.
 */
#ifndef EMBER_PERF_FRAMES_H
#define EMBER_PERF_FRAMES_H

#include "internal.h"

enum rec_frame_kind {
	REC_FRAME_ROOT,	     /* obj: id in the session's roots */
	REC_FRAME_KERNEL,    /* addr: kernel address */
	REC_FRAME_DSO,	     /* obj: dso id, addr: file offset */
	REC_FRAME_JIT,	     /* obj: process instance id, addr */
	REC_FRAME_UNKNOWN,   /* not in any executable mapping */
	REC_FRAME_TRUNCATED, /* the unwinder stopped short of the root */
	REC_FRAME_INTERP,    /* obj: name id in the interpreter merge; addr:
				the line, the first line << 32 (0 unknown) */
};

struct rec_frame {
	uint64_t addr;
	/* JIT frames of a process with a jitdump: the time its code was
	 * loaded (or moved) there, 0 when the dump did not have it yet */
	uint64_t stamp;
	uint64_t seen; /* not in the key: the first sample's time */
	uint32_t obj;
	uint16_t kind;
	/* REC_CALL_RET: a frame-pointer walk's caller, addr is a return
	 * address (the call is before it); REC_CALL_AT: a DWARF walk's
	 * caller, keyed at the call (its return address - 1); 0: a leaf */
	uint16_t call;
};

enum { REC_CALL_RET = 1, REC_CALL_AT = 2 };

/* Unique frames: (kind, obj, addr) -> dense id. */
struct rec_frames {
	struct rec_frame *v;
	size_t n, alloc;
	uint32_t *slots; /* id + 1, 0 empty */
	size_t mask;
};
void rec_frames_init(struct rec_frames *f);
void rec_frames_release(struct rec_frames *f);
uint32_t rec_frames_id(struct rec_frames *f, uint32_t kind, uint32_t obj,
		       uint64_t addr);
/* The same with a JIT code's load time (stamp) as part of the key; seen
 * is kept from the first call for a frame. */
uint32_t rec_frames_id_at(struct rec_frames *f, uint32_t kind, uint32_t obj,
			  uint64_t addr, uint64_t stamp, uint64_t seen);

#endif

/*
 * perf_event_open plumbing (ring.c): event names, the ring buffers the
 * kernel writes records into, sysctls and the online CPUs.
 */
#ifndef EMBER_RECORD_RING_H
#define EMBER_RECORD_RING_H

#include "internal.h"
#include "perf/order.h"

struct rec_event_desc {
	const char *name, *alias;
	uint32_t type;
	uint64_t config;
	int clock; /* period in ns */
};
/* Looks an event name up (perf's names and aliases); NULL if unknown. */
const struct rec_event_desc *rec_event_lookup(const char *name);
/* The names, for messages. */
const char *rec_event_names(void);

struct rec_ring {
	int fd;
	int cpu;
	void *base;
	size_t size; /* mapping size: header page + data */
	uint64_t data_size;
	char *scratch; /* for records that wrap around */
	size_t ascratch;
};

/* Maps the ring of fd (1 + pages pages); 0 or an EMBER_E* code with errno
 * set. */
int rec_ring_map(struct rec_ring *r, int fd, int cpu, size_t pages) EMBER_WUR;
void rec_ring_unmap(struct rec_ring *r);
/* Calls fn for each record in the ring, then frees their space. Stops
 * and returns nonzero on a corrupt ring. */
int rec_ring_drain(struct rec_ring *r, rec_record_fn fn, void *ctx);

/* sysctl values; -1 if unreadable */
long rec_sysctl_long(const char *name);
/* The online CPUs into *cpus (malloc'd); returns how many, or 0. */
size_t rec_online_cpus(int **cpus);

#endif

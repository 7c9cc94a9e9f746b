/*
 * Java in a recording (java.c): HotSpot's switches for a command, its perf
 * map asked of a running JVM, and its method names as perf-map-agent
 * writes them.
 */
#ifndef EMBER_RECORD_JAVA_H
#define EMBER_RECORD_JAVA_H

#include <sys/types.h>

#include "internal.h"
#include "record/procmap.h"

/* JAVA_TOOL_OPTIONS for a command, for a given old value (NULL: unset):
 * keep frame pointers in compiled code, write the perf map at exit. */
char *rec_java_tool_options(const char *old);
/* Whether the environment or argv asks a JVM for a perf map already. */
int rec_java_asks_perfmap(char *const *argv);
/* Whether p runs a HotSpot JVM (maps libjvm.so). */
int rec_java_is_jvm(const struct rec_proc *p);
/* A name of the JVM's perf map, "RET pkg.Class.method(ARGS)", as
 * perf-map-agent writes it, "Lpkg/Class;::method", appended to out;
 * 0 (out unchanged) when s is not a method's name ("Interpreter", stubs). */
int rec_java_agent_name(struct ember_buf *out, const char *s, size_t n);
/* Whether the command line or environment of JVM pid keeps frame
 * pointers (-XX:+PreserveFramePointer); 1 when they cannot be read. */
int rec_java_keeps_fp(int pid);
/* Asks JVM pid to write /tmp/perf-PID.map (`jcmd PID Compiler.perfmap`,
 * run as the process's user); 0, or EMBER_ENOENT (it ended) or EMBER_EIO
 * with the reason in why. */
int rec_java_request_perfmap(int pid, struct ember_buf *why);

#endif

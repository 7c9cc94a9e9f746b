/*
 * Java in a recording (java.c): HotSpot's switches for a command, and its
 * perf map asked of a running JVM.
 */
#ifndef EMBER_RECORD_JAVA_H
#define EMBER_RECORD_JAVA_H

#include <sys/types.h>

#include "internal.h"

/* JAVA_TOOL_OPTIONS for a command, for a given old value (NULL: unset):
 * keep frame pointers in compiled code, write the perf map at exit. */
char *rec_java_tool_options(const char *old);
/* Whether the environment or argv asks a JVM for a perf map already. */
int rec_java_asks_perfmap(char *const *argv);
/* Whether the command line or environment of JVM pid keeps frame
 * pointers (-XX:+PreserveFramePointer); 1 when they cannot be read. */
int rec_java_keeps_fp(int pid);
/* Asks JVM pid to write /tmp/perf-PID.map (`jcmd PID Compiler.perfmap`,
 * run as the process's user); 0, or EMBER_ENOENT (it ended) or EMBER_EIO
 * with the reason in why. */
int rec_java_request_perfmap(int pid, struct ember_buf *why);

#endif

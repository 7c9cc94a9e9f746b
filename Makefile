# ember: one hand-written GNU Makefile.  `make` builds build/ember;
# `make help` lists the other targets.

CC      ?= cc
PREFIX  ?= /usr/local
BINDIR  ?= $(PREFIX)/bin
LIBEXEC ?= $(PREFIX)/libexec/ember
MANDIR  ?= $(PREFIX)/share/man
BUILD   ?= build
V       ?= 0

PKGS    := libelf libdw zlib yajl libzstd liblzma
CFLAGS  ?= -O2 -g
WARN    := -Wall -Wextra -Wshadow -Wformat=2 -Wmissing-prototypes \
           -Wno-unused-parameter -Wno-missing-field-initializers
ifeq ($(WERROR),1)
WARN    += -Werror
endif
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null || echo -lelf -ldw -lz -lyajl -lzstd -llzma)
ALL_CFLAGS  = -std=gnu11 $(WARN) $(CFLAGS) $(SANFLAGS) -Iinclude -Isrc/lib \
              $(PKG_CFLAGS) -D_GNU_SOURCE -MMD -MP
ALL_LDFLAGS = $(LDFLAGS) $(SANFLAGS)
LDLIBS     := $(PKG_LIBS) -lbz2 -liberty -lpthread -lm

LIB_SRC  := $(sort $(wildcard src/lib/*.c src/lib/*/*.c))
CLI_SRC  := $(sort $(wildcard src/cli/*.c))
UNIT_SRC := $(sort $(wildcard tests/unit/test-*.c))
TOOL_SRC := $(sort $(wildcard tests/tools/*.c))
ASSETS   := $(sort $(wildcard src/lib/render/assets/*.js src/lib/render/assets/*.css))

LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/%.o) $(BUILD)/gen/assets.o
CLI_OBJ  := $(CLI_SRC:%.c=$(BUILD)/%.o)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
TOOL_BIN := $(TOOL_SRC:tests/tools/%.c=$(BUILD)/tests/%)

# Names under which ember acts as the FlameGraph script of that name
# (installed with and without the extension).
LINKS := flamegraph.pl stackcollapse-perf.pl stackcollapse-stap.pl \
         stackcollapse.pl stackcollapse-recursive.pl difffolded.pl \
         stackcollapse-jstack.pl stackcollapse-gdb.pl \
         stackcollapse-elfutils.pl stackcollapse-bpftrace.pl \
         stackcollapse-go.pl stackcollapse-faulthandler.pl \
         stackcollapse-java-exceptions.pl stackcollapse-perf-sched.awk \
         stackcollapse-sample.awk stackcollapse-ibmjava.pl \
         stackcollapse-ljp.awk stackcollapse-wcp.pl stackcollapse-aix.pl \
         stackcollapse-pmc.pl stackcollapse-instruments.pl \
         stackcollapse-vtune.pl stackcollapse-vtune-mc.pl stackcollapse-vsprof.pl \
         stackcollapse-xdebug.php inferno-collapse-ghcprof \
         inferno-collapse-xctrace files.pl \
         pkgsplit-perf.pl range-perf.pl

ifeq ($(V),0)
Q = @
msg = @printf '  %-6s %s\n' $(1) $(2);
endif

.DELETE_ON_ERROR:
.PHONY: all deps test test-run check fuzz bench demo install uninstall fmt \
        fmt-check clean help

all: $(BUILD)/ember

help:
	@echo 'make            build $(BUILD)/ember'
	@echo 'make demo       render the bundled example profile to an SVG'
	@echo 'make test       unit, golden and end-to-end tests'
	@echo 'make check      the tests again under AddressSanitizer and UBSan'
	@echo 'make bench      speed and memory against the reference tools'
	@echo 'make install    PREFIX=$(PREFIX) DESTDIR=...'
	@echo 'make fmt        apply .clang-format'
	@echo 'make fmt-check  fail if a file is not formatted as .clang-format says'

deps:
	@sh tools/deps.sh build

$(BUILD)/ember: $(CLI_OBJ) $(BUILD)/libember.a
	$(call msg,LINK,$@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $(CLI_OBJ) $(BUILD)/libember.a $(LDLIBS)

$(BUILD)/libember.a: $(LIB_OBJ)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

$(BUILD)/%.o: %.c
	$(call msg,CC,$<)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_CFLAGS) -c -o $@ $<

# JavaScript and CSS of the SVG, embedded as C strings.
$(BUILD)/gen/assets.c: $(ASSETS) tools/embed.sh
	$(call msg,GEN,$@)
	@mkdir -p $(dir $@)
	$(Q)sh tools/embed.sh $(ASSETS) > $@

$(BUILD)/gen/assets.o: $(BUILD)/gen/assets.c
	$(call msg,CC,$<)
	$(Q)$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(BUILD)/tests/%: tests/unit/%.c tests/unit/harness.h $(BUILD)/libember.a
	$(call msg,CC,$<)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -Itests/unit -o $@ $< \
		$(BUILD)/libember.a $(LDLIBS)

# test tools are not under test: built without sanitizers
$(BUILD)/tests/%: tests/tools/%.c
	$(call msg,CC,$<)
	@mkdir -p $(dir $@)
	$(Q)$(CC) -std=gnu11 -O2 -g -D_GNU_SOURCE -Wall -o $@ $< $(LDLIBS)

# `make test` installs what it needs first, then runs everything.
test: deps
	@sh tools/deps.sh test
	@$(MAKE) --no-print-directory test-run

test-run: $(BUILD)/ember $(UNIT_BIN) $(TOOL_BIN)
	@BUILD=$(BUILD) CC='$(CC)' SANFLAGS='$(SANFLAGS)' sh tests/run.sh

# The same tests, built and run under AddressSanitizer and UBSan, then a
# short fuzzing run of every parser (run even when a suite failed, so that
# its findings are not hidden; the target fails if either did).
check: deps
	@$(MAKE) --no-print-directory build/ember build/gen/assets.c
	@rc=0; $(MAKE) --no-print-directory BUILD=build/san CFLAGS='-O1 -g' \
		SANFLAGS='-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all' \
		test-run || rc=1; \
	FUZZ_SECONDS=$${FUZZ_SECONDS:-10} $(MAKE) --no-print-directory fuzz || rc=1; \
	[ $$rc = 0 ] || echo 'make check: a test suite or the fuzzing run failed (see above)'; \
	exit $$rc

fuzz:
	@sh tests/fuzz/run.sh

bench: deps $(BUILD)/ember
	@BUILD=$(BUILD) sh bench/run.sh

demo: deps $(BUILD)/ember
	@BUILD=$(BUILD) sh tools/demo.sh

install: $(BUILD)/ember
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBEXEC)
	install -m 755 $(BUILD)/ember $(DESTDIR)$(BINDIR)/ember
	for l in $(LINKS); do \
		ln -sf ../../bin/ember $(DESTDIR)$(LIBEXEC)/$${l%.*}; \
		ln -sf ../../bin/ember $(DESTDIR)$(LIBEXEC)/$$l; \
	done

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/ember
	for l in $(LINKS); do \
		rm -f $(DESTDIR)$(LIBEXEC)/$${l%.*} $(DESTDIR)$(LIBEXEC)/$$l; \
	done
	-rmdir $(DESTDIR)$(LIBEXEC)

FMT_SRC := $(LIB_SRC) $(CLI_SRC) $(UNIT_SRC) $(TOOL_SRC) include/ember.h \
           $(wildcard src/lib/*.h src/lib/*/*.h src/cli/*.h examples/*.c)

fmt:
	@sh tools/deps.sh fmt
	clang-format -i $(FMT_SRC)

# Fails, naming the files, when one is not formatted as .clang-format says
# (CI runs it).
fmt-check:
	@sh tools/deps.sh fmt
	@clang-format --dry-run --Werror $(FMT_SRC) 2>/dev/null || { \
		echo 'not formatted as .clang-format says (run make fmt):'; \
		for f in $(FMT_SRC); do \
			clang-format --dry-run --Werror "$$f" >/dev/null 2>&1 || \
				echo "  $$f"; \
		done; exit 1; }

clean:
	rm -rf build

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)

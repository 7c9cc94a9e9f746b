# ember: one hand-written GNU Makefile.  `make` builds build/ember;
# `make help` lists the other targets.

CC      ?= cc
OBJCOPY ?= objcopy
PREFIX  ?= /usr/local
BINDIR  ?= $(PREFIX)/bin
LIBEXEC ?= $(PREFIX)/libexec/ember
MANDIR  ?= $(PREFIX)/share/man
LIBDIR  ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
DATADIR ?= $(PREFIX)/share
BASHCOMPDIR ?= $(DATADIR)/bash-completion/completions
ZSHCOMPDIR  ?= $(DATADIR)/zsh/vendor-completions
FISHCOMPDIR ?= $(DATADIR)/fish/vendor_completions.d
BUILD   ?= build
V       ?= 0

PKGS    := libelf libdw zlib yajl libzstd liblzma
CFLAGS  ?= -O2 -g
WARN    := -Wall -Wextra -Wshadow -Wformat=2 -Wmissing-prototypes \
           -Wno-unused-parameter -Wno-missing-field-initializers
ifeq ($(WERROR),1)
WARN    += -Werror
endif
# Interpreter frames by BPF: the program is compiled with clang against
# the running kernel's BTF (vmlinux.h, made in $(BUILD)/gen) and embedded
# as a libbpf skeleton; without clang, bpftool, libbpf or BTF, ember is
# built without it (and says so when recording an interpreter).
BPF_CLANG ?= clang
BPFTOOL   ?= $(firstword $(shell command -v bpftool 2>/dev/null) \
                         $(wildcard /usr/sbin/bpftool /sbin/bpftool))
VMLINUX_BTF ?= /sys/kernel/btf/vmlinux
ifeq ($(NO_BPF),)
ifneq ($(and $(BPFTOOL),$(shell command -v $(BPF_CLANG) 2>/dev/null),$(wildcard $(VMLINUX_BTF)),$(shell pkg-config --exists libbpf && echo y)),)
HAVE_BPF := 1
PKGS     += libbpf
endif
endif
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null || echo -lelf -ldw -lz -lyajl -lzstd -llzma)
ALL_CFLAGS  = -std=gnu11 $(WARN) $(CFLAGS) $(SANFLAGS) -Iinclude -Isrc/lib \
              $(PKG_CFLAGS) -D_GNU_SOURCE -MMD -MP \
              $(if $(HAVE_BPF),-DEMBER_BPF -I$(BUILD)/gen)
ALL_LDFLAGS = $(LDFLAGS) $(SANFLAGS)
# (libbpf is loaded when first needed: src/lib/record/libbpf-dl.c)
LDLIBS     := $(filter-out -lbpf,$(PKG_LIBS)) -lbz2 -liberty -lpthread -lm

LIB_SRC  := $(sort $(filter-out %.bpf.c,$(wildcard src/lib/*.c src/lib/*/*.c)))
BPF_SRC  := $(wildcard src/lib/*/*.bpf.c)
CLI_SRC  := $(sort $(wildcard src/cli/*.c))
UNIT_SRC := $(sort $(wildcard tests/unit/test-*.c))
TOOL_SRC := $(sort $(wildcard tests/tools/*.c))
ASSETS   := $(sort $(wildcard src/lib/render/assets/*.js src/lib/render/assets/*.css))

LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/%.o) $(BUILD)/gen/assets.o
CLI_OBJ  := $(CLI_SRC:%.c=$(BUILD)/%.o)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
TOOL_BIN := $(TOOL_SRC:tests/tools/%.c=$(BUILD)/tests/%)

# The installed library: libember.so.$(VERSION) (soname libember.so.$(SOVER))
# from position-independent objects, and libember.a as one object; both
# export only the ember_* names include/ember.h declares.
VERSION := $(shell sed -n 's/^\#define EMBER_VERSION "\(.*\)"/\1/p' include/ember.h)
SOVER   := 0
SONAME  := libember.so.$(SOVER)
PIC_OBJ := $(LIB_OBJ:$(BUILD)/%=$(BUILD)/pic/%)
LIB_OUT := $(BUILD)/lib/libember.so.$(VERSION) $(BUILD)/lib/libember.a \
           $(BUILD)/lib/ember.pc
# `make static`: the library's dlopen users, built without it
NODL_SRC := $(filter %/debuginfod.c %/libdeflate.c %/libbpf-dl.c,$(LIB_SRC))
STATIC_OBJ := $(filter-out $(NODL_SRC:%.c=$(BUILD)/%.o),$(LIB_OBJ)) \
              $(NODL_SRC:%.c=$(BUILD)/static/%.o)
STATIC_LIBS := $(shell pkg-config --static --libs $(PKGS) 2>/dev/null | \
                 sed 's/-lyajl\b/-lyajl_s/')

# The man pages, from each command's -h; the completions, from its options.
MAN_CMDS := record collapse flamegraph diff
MAN      := $(BUILD)/man/ember.1 $(MAN_CMDS:%=$(BUILD)/man/ember-%.1)
COMPL    := $(BUILD)/completions/ember.bash $(BUILD)/completions/_ember \
            $(BUILD)/completions/ember.fish

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
         pkgsplit-perf.pl range-perf.pl \
         inferno-flamegraph inferno-collapse-perf inferno-collapse-dtrace \
         inferno-collapse-sample inferno-collapse-vtune \
         inferno-collapse-vsprof inferno-collapse-guess \
         inferno-collapse-recursive inferno-diff-folded

ifeq ($(V),0)
Q = @
msg = @printf '  %-6s %s\n' $(1) $(2);
endif

.DELETE_ON_ERROR:
.PHONY: all deps test test-run check fuzz bench demo install uninstall fmt \
        fmt-check clean help lib man completions static

all: $(BUILD)/ember

help:
	@echo 'make            build $(BUILD)/ember'
	@echo 'make demo       render the bundled example profile to an SVG'
	@echo 'make test       unit, golden and end-to-end tests'
	@echo 'make check      the tests again under AddressSanitizer and UBSan'
	@echo 'make bench      speed and memory against the reference tools'
	@echo 'make install    PREFIX=$(PREFIX) DESTDIR=... (BINDIR LIBEXEC MANDIR LIBDIR ...)'
	@echo 'make uninstall  remove what make install installed'
	@echo 'make lib        $(BUILD)/lib: libember.so, libember.a, ember.pc'
	@echo 'make man        $(BUILD)/man: the man pages, from each command'"'"'s -h'
	@echo 'make completions  $(BUILD)/completions: bash, zsh and fish'
	@echo 'make static     $(BUILD)/ember-static, one static binary'
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

ifneq ($(HAVE_BPF),)
$(BUILD)/gen/vmlinux.h:
	$(call msg,GEN,$@)
	@mkdir -p $(dir $@)
	$(Q)$(BPFTOOL) btf dump file $(VMLINUX_BTF) format c > $@

$(BUILD)/gen/interp.bpf.o: src/lib/record/interp.bpf.c src/lib/interp/interp-abi.h $(BUILD)/gen/vmlinux.h
	$(call msg,BPF,$<)
	$(Q)$(BPF_CLANG) -g -O2 -target bpf -D__TARGET_ARCH_x86 -I$(BUILD)/gen \
		-Isrc/lib -c -o $@ $<

$(BUILD)/gen/interp.skel.h: $(BUILD)/gen/interp.bpf.o
	$(call msg,GEN,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name interp_bpf > $@

$(BUILD)/src/lib/record/interp.o: $(BUILD)/gen/interp.skel.h
endif

# JavaScript and CSS of the SVG, embedded as C strings.
$(BUILD)/gen/assets.c: $(ASSETS) tools/embed.sh
	$(call msg,GEN,$@)
	@mkdir -p $(dir $@)
	$(Q)sh tools/embed.sh $(ASSETS) > $@

$(BUILD)/gen/assets.o: $(BUILD)/gen/assets.c
	$(call msg,CC,$<)
	$(Q)$(CC) $(ALL_CFLAGS) -c -o $@ $<

# ---- the installed library ----
lib: $(LIB_OUT)

$(BUILD)/pic/%.o: %.c
	$(call msg,CC,$@)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_CFLAGS) -fPIC -c -o $@ $<

$(BUILD)/pic/gen/assets.o: $(BUILD)/gen/assets.c
	$(call msg,CC,$@)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_CFLAGS) -fPIC -c -o $@ $<

# What the library exports: the names ember.h declares that it defines.
$(BUILD)/lib/ember.sym: include/ember.h $(LIB_OBJ)
	$(call msg,GEN,$@)
	@mkdir -p $(dir $@)
	$(Q)nm -g --defined-only $(LIB_OBJ) | awk 'NF == 3 { print $$3 }' | \
		sort -u > $@.all
	$(Q)grep -o '\bember_[a-z0-9_]*' include/ember.h | sort -u | \
		comm -12 - $@.all > $@
	$(Q)rm -f $@.all

$(BUILD)/lib/ember.map: $(BUILD)/lib/ember.sym
	$(call msg,GEN,$@)
	$(Q){ echo '{'; echo 'global:'; sed 's/.*/	&;/' $<; \
		echo 'local:'; echo '	*;'; echo '};'; } > $@

$(BUILD)/lib/libember.so.$(VERSION): $(PIC_OBJ) $(BUILD)/lib/ember.map
	$(call msg,LINK,$@)
	$(Q)$(CC) -shared $(ALL_LDFLAGS) -Wl,-soname,$(SONAME) \
		-Wl,--version-script=$(BUILD)/lib/ember.map -Wl,-z,defs \
		-o $@ $(PIC_OBJ) $(LDLIBS)
	$(Q)ln -sf libember.so.$(VERSION) $(BUILD)/lib/$(SONAME)
	$(Q)ln -sf $(SONAME) $(BUILD)/lib/libember.so

# One relocatable object whose only global names are the exported ones, so
# that a program may define src_open or rec_init of its own.
$(BUILD)/lib/libember.a: $(LIB_OBJ) $(BUILD)/lib/ember.sym
	$(call msg,AR,$@)
	$(Q)$(LD) -r -o $(BUILD)/lib/ember.o $(LIB_OBJ)
	$(Q)$(OBJCOPY) --keep-global-symbols=$(BUILD)/lib/ember.sym \
		$(BUILD)/lib/ember.o
	$(Q)rm -f $@ && ar rcs $@ $(BUILD)/lib/ember.o

# rewritten every time: it holds PREFIX, LIBDIR and INCLUDEDIR
$(BUILD)/lib/ember.pc: FORCE
	$(call msg,GEN,$@)
	@mkdir -p $(dir $@)
	$(Q)printf '%s\n' 'prefix=$(PREFIX)' 'libdir=$(LIBDIR)' \
		'includedir=$(INCLUDEDIR)' '' 'Name: ember' \
		'Description: flame graphs: fold profiler output, draw, record' \
		'Version: $(VERSION)' 'Requires.private: $(filter-out libbpf,$(PKGS))' \
		'Libs: -L$${libdir} -lember' \
		'Libs.private: -liberty -lpthread -lm' \
		'Cflags: -I$${includedir}' > $@

# ---- man pages and completions ----
man: $(MAN)
completions: $(COMPL)

$(BUILD)/man/ember.1: $(BUILD)/ember tools/man.sh
	$(call msg,GEN,$@)
	@mkdir -p $(dir $@)
	$(Q)sh tools/man.sh $(BUILD)/ember > $@

$(BUILD)/man/ember-%.1: $(BUILD)/ember tools/man.sh
	$(call msg,GEN,$@)
	@mkdir -p $(dir $@)
	$(Q)sh tools/man.sh $(BUILD)/ember $* > $@

$(BUILD)/completions/ember.bash: $(BUILD)/ember tools/completions.sh
	$(call msg,GEN,$(BUILD)/completions)
	$(Q)sh tools/completions.sh $(BUILD)/ember $(BUILD)/completions
$(BUILD)/completions/_ember $(BUILD)/completions/ember.fish: \
	$(BUILD)/completions/ember.bash ;

# ---- one static binary ----
static: $(BUILD)/ember-static

$(BUILD)/static/%.o: %.c
	$(call msg,CC,$@)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_CFLAGS) -DEMBER_STATIC -c -o $@ $<

$(BUILD)/ember-static: $(CLI_OBJ) $(STATIC_OBJ)
	$(call msg,LINK,$@)
	$(Q)$(CC) -static $(ALL_LDFLAGS) -o $@ $(CLI_OBJ) $(STATIC_OBJ) \
		$(STATIC_LIBS) -liberty -lpthread -lm

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

# (no static binary under the sanitizers: they do not link statically)
test-run: $(BUILD)/ember $(UNIT_BIN) $(TOOL_BIN) $(if $(SANFLAGS),,$(BUILD)/ember-static)
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

bench: deps $(BUILD)/ember $(BUILD)/bench/gen-timeline
	@BUILD=$(BUILD) sh bench/run.sh

$(BUILD)/bench/gen-timeline: bench/gen-timeline.c $(BUILD)/libember.a
	$(call msg,CC,$<)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $< $(BUILD)/libember.a \
		$(LDLIBS)

demo: deps $(BUILD)/ember
	@BUILD=$(BUILD) sh tools/demo.sh

# The FlameGraph-named links point to the binary by a path relative to
# LIBEXEC, right for any BINDIR and LIBEXEC, and with DESTDIR.
install: $(BUILD)/ember lib man completions
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBEXEC) \
		$(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(INCLUDEDIR) \
		$(DESTDIR)$(LIBDIR) $(DESTDIR)$(PKGCONFIGDIR) \
		$(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(ZSHCOMPDIR) \
		$(DESTDIR)$(FISHCOMPDIR)
	install -m 755 $(BUILD)/ember $(DESTDIR)$(BINDIR)/ember
	rel=$$(realpath -ms --relative-to=$(LIBEXEC) $(BINDIR)/ember) && \
	for l in $(LINKS); do \
		ln -sfn "$$rel" $(DESTDIR)$(LIBEXEC)/$${l%.*}; \
		ln -sfn "$$rel" $(DESTDIR)$(LIBEXEC)/$$l; \
	done
	install -m 644 $(MAN) $(DESTDIR)$(MANDIR)/man1/
	install -m 644 $(BUILD)/completions/ember.bash $(DESTDIR)$(BASHCOMPDIR)/ember
	install -m 644 $(BUILD)/completions/_ember $(DESTDIR)$(ZSHCOMPDIR)/_ember
	install -m 644 $(BUILD)/completions/ember.fish $(DESTDIR)$(FISHCOMPDIR)/ember.fish
	install -m 644 include/ember.h $(DESTDIR)$(INCLUDEDIR)/ember.h
	install -m 755 $(BUILD)/lib/libember.so.$(VERSION) $(DESTDIR)$(LIBDIR)/
	ln -sfn libember.so.$(VERSION) $(DESTDIR)$(LIBDIR)/$(SONAME)
	ln -sfn $(SONAME) $(DESTDIR)$(LIBDIR)/libember.so
	install -m 644 $(BUILD)/lib/libember.a $(DESTDIR)$(LIBDIR)/libember.a
	install -m 644 $(BUILD)/lib/ember.pc $(DESTDIR)$(PKGCONFIGDIR)/ember.pc

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/ember
	for l in $(LINKS); do \
		rm -f $(DESTDIR)$(LIBEXEC)/$${l%.*} $(DESTDIR)$(LIBEXEC)/$$l; \
	done
	-rmdir $(DESTDIR)$(LIBEXEC)
	rm -f $(MAN:$(BUILD)/man/%=$(DESTDIR)$(MANDIR)/man1/%)
	rm -f $(DESTDIR)$(BASHCOMPDIR)/ember $(DESTDIR)$(ZSHCOMPDIR)/_ember \
		$(DESTDIR)$(FISHCOMPDIR)/ember.fish
	rm -f $(DESTDIR)$(INCLUDEDIR)/ember.h
	rm -f $(DESTDIR)$(LIBDIR)/libember.so.$(VERSION) \
		$(DESTDIR)$(LIBDIR)/$(SONAME) $(DESTDIR)$(LIBDIR)/libember.so \
		$(DESTDIR)$(LIBDIR)/libember.a $(DESTDIR)$(PKGCONFIGDIR)/ember.pc

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

FORCE:

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)

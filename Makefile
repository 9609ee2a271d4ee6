# SPDX-License-Identifier: MIT
# bootheap: `make run` boots the benchmark in QEMU, `make test` proves it.
# `make help` lists the main targets; docs/usage.md has every target.

# ---- user-tunable --------------------------------------------------------
CFLAGS   ?= -O2 -g
KCC      ?= gcc
HOSTCC   ?= gcc
FUZZCC   ?= clang
NASM     ?= nasm
LD       ?= ld
PYTHON   ?= /usr/bin/python3
# Kernel command line and memory for `make run`.
ARGS     ?=
MEM      ?= 8G
# vCPUs and NUMA nodes of the guest for `make run`: one vCPU per host core,
# one node (NODES splits memory and CPUs evenly into that many -numa nodes).
CPUS     ?= $(shell nproc)
NODES    ?= 1
# More options for the command a target runs: for run, bench, bench-host,
# bench-counts, bench-ablation, bench-qr, binaries, xen-src, xen-heap-test and
# linux-src, its harness subcommand's (e.g. OPTS="--sizes 4,8 --runs 5" for
# bench; python3 -m harness run --help lists them), and for mutants the
# mutants to try.
OPTS     ?=
# Accelerator for every target that boots, tests included: auto (chosen by
# measurement, see docs/usage.md), kvm or tcg.
ACCEL    ?= auto
# Seconds of serial silence after which a boot counts as stopped (0: never);
# empty keeps the harness's default.
STALL    ?=
FONT     ?= /usr/share/consolefonts/Lat15-VGA16.psf.gz
# V=1 prints every command in full; by default each step prints one line.
# For `make run`, V=1 also shows the kernel's JSON records and the QEMU
# command, which otherwise go to the results folder alone.
V        ?= 0

B := build

# ---- names of before, and values checked -------------------------------------
# Targets folded into others (make help): typed as before, each fails before
# anything runs, with one line that names its replacement.
MOVED_run-iso           := run BOOT=iso-bios
MOVED_run-uefi          := run BOOT=iso-uefi
MOVED_debug             := run GDB=1
MOVED_bench-quick       := bench QUICK=1
MOVED_bench-host-repeat := bench-host MODE=repeat
MOVED_bench-host-full   := bench-host MODE=full
MOVED_xen-fuzz          := xen-heap-test LONG=1
MOVED_test-fuzz         := fuzz QUICK=1
MOVED_peers             := binaries
moved = $(or $(MOVED_$(1)),$(if $(filter test-fuzz-%,$(1)),$(1:test-%=%) QUICK=1))
$(foreach g,$(MAKECMDGOALS),$(if $(call moved,$(g)),$(error make $(g) is now 'make $(call moved,$(g))')))

# The per-target options of before still reach their targets, beside OPTS;
# one given says so once.
OLD_OPTS := BENCH_ARGS MUTANTS_ARGS COUNTS_ARGS ABLATION_ARGS PEERS_ARGS XEN_SRC_ARGS XEN_HEAP_ARGS \
            LINUX_SRC_ARGS
ifeq ($(MAKELEVEL),0)
$(foreach v,$(OLD_OPTS),$(if $(filter command environment,$(firstword $(origin $(v)))),\
    $(info make: $(v) is now OPTS (the old name still works))))
endif

# $(call choose,VAR,values): as a recipe's first line, fails naming the
# values unless VAR holds exactly one of them.
space := $(subst ,, )
choose = $(if $(filter-out 1,$(words $($(1))))$(filter-out $(2),$($(1))),\
    $(error $(1)=$($(1)): give $(1)=$(subst $(space),|,$(strip $(2)))))

# ---- what the build prints -------------------------------------------------
# One short line a step, as Linux's Kbuild and Xen print them: the kind of
# step, then what it makes, a file under build/ named without the build/
# ("  CC      mm/heap.o"). Each command that make would echo is a pair of
# recipe lines: $(call say,KIND,what), then the command behind $(Q). V=1
# empties both, so make echoes every command exactly as it runs; `make -s`
# prints neither. What a command prints itself, its warnings and errors
# among it, shows in full either way.
ifeq ($(V),1)
Q :=
say :=
BOOT_V := --verbose
else ifneq ($(findstring s,$(firstword -$(MAKEFLAGS))),)
Q := @
say :=
else
Q := @
say = @printf '  %-7s %s\n' '$(1)' '$(patsubst $(B)/%,%,$(2))'
endif

# ---- forced kernel flags ---------------------------------------------------
# `override`: a KFLAGS=... on the make command line cannot drop them.
override KFLAGS := -std=gnu11 -ffreestanding -fno-pic -fno-pie -mno-red-zone \
          -mcmodel=kernel -mno-sse -mno-sse2 -mno-mmx -mno-80387 \
          -fno-omit-frame-pointer -fno-stack-protector \
          -fno-tree-loop-distribute-patterns -fno-asynchronous-unwind-tables \
          -Wall -Wextra -Werror -MMD -MP -I.
override KLDFLAGS := -nostdlib -static -no-pie -z max-page-size=0x1000 -z noexecstack \
            --build-id=none -L $(B)/gen -T linker.ld
# 128-bit division (__udivti3) and friends: freestanding code still needs libgcc.
LIBGCC = $(shell $(KCC) -print-libgcc-file-name)
override NASMFLAGS := -f elf64 -Werror -I $(B)/gen/

# The harness reads these from the environment, so tests see them too.
export BOOTHEAP_ACCEL := $(ACCEL)
ifneq ($(strip $(STALL)),)
export BOOTHEAP_STALL := $(STALL)
endif

# Everything in kernel/, mm/ and bench/ runs in the kernel; host C programs
# live in hosted/ and the host Python in harness/. mm/ holds bootheap's
# machine, with the Xen heap's strategies in mm/strategies/ and the peers
# (their contract, then one folder a model) in mm/peers/.
MM_SRC   := $(wildcard mm/*.c mm/strategies/*.c mm/peers/*.c mm/peers/*/*.c)
MM_HDRS  := $(wildcard mm/*.h mm/peers/*.h mm/peers/*/*.h)
KSRC_C   := $(wildcard kernel/*.c kernel/*/*.c) $(MM_SRC) $(wildcard bench/*.c)
KSRC_ASM := $(wildcard boot/*.asm kernel/*.asm)
KOBJ     := $(patsubst %.c,$(B)/%.o,$(KSRC_C)) $(patsubst %.asm,$(B)/%.o,$(KSRC_ASM)) \
            $(B)/gen/font.o

.PHONY: all help iso run test test-unit test-boot fuzz mutants mutants-build \
        bench bench-stores bench-qr hosted hosted-tsan bench-counts bench-host bench-ablation test-big binaries \
        xen-src xen-heap-test linux-src test-linux-src clean setup check-fresh compile_commands.json
.DEFAULT_GOAL := all

## all                                   build the kernel, build/bootheap.elf (what `make` alone does)
all: $(B)/bootheap.elf

# The main targets, each from its "## " line; docs/usage.md has them all.
help:
	@echo "make TARGET [VARIABLE=value ...], the main targets:"
	@sed -n 's/^## /  /p' $(firstword $(MAKEFILE_LIST))
	@echo "Boots take ACCEL=auto|kvm|tcg, MEM, CPUS and NODES; V=1 prints every command; OPTS passes"
	@echo "more options to the command a target runs. The other targets, and every variable: docs/usage.md."

# Objects depend on the Makefile, so a flag change rebuilds everything.
$(B)/%.o: %.c Makefile
	@mkdir -p $(@D)
	$(call say,CC,$@)
	$(Q)$(KCC) $(CFLAGS) $(KFLAGS) -c $< -o $@

$(B)/%.o: %.asm Makefile
	@mkdir -p $(@D)
	$(call say,AS,$@)
	$(Q)$(NASM) $(NASMFLAGS) -MD $(@:.o=.d) -MP $< -o $@

# The numbers boot/*.asm and linker.ld share with C, from the C headers: one
# source each. boot/consts.c is compiled to assembly only (never linked).
$(B)/gen/consts.s: boot/consts.c Makefile
	@mkdir -p $(@D)
	$(call say,CC,$@)
	$(Q)$(KCC) $(CFLAGS) $(KFLAGS) -S $< -o $@

$(B)/gen/consts.inc: $(B)/gen/consts.s
	$(call say,GEN,$@)
	$(Q)sed -n 's/.*"@@asm \([A-Z0-9_]*\) \$$\(-\{0,1\}[0-9]*\)@@".*/\1 equ \2/p' $< > $@

$(B)/gen/consts.ld: $(B)/gen/consts.s
	$(call say,GEN,$@)
	$(Q)sed -n 's/.*"@@ld \([A-Z0-9_]*\) \$$\(-\{0,1\}[0-9]*\)@@".*/\1 = \2;/p' $< > $@

$(patsubst %.asm,$(B)/%.o,$(KSRC_ASM)): $(B)/gen/consts.inc

$(B)/gen/font.c: tools/psf2c.py
	@mkdir -p $(@D)
	@test -r $(FONT) || { echo "missing console font $(FONT): run 'make setup' (Debian package $$(awk '$$1 == "$(FONT)" { print $$2 }' tools/host-files.txt))"; exit 1; }
	$(call say,GEN,$@)
	$(Q)$(PYTHON) tools/psf2c.py $(FONT) > $@

$(B)/gen/%.o: $(B)/gen/%.c Makefile
	$(call say,CC,$@)
	$(Q)$(KCC) $(CFLAGS) $(KFLAGS) -c $< -o $@

# Two links: the first has an empty symbol table, the second adds the table
# made from the first. The table sits after all code, so code addresses are
# the same in both, which the cmp below checks.
$(B)/gen/ksyms0.c: tools/ksyms.sh
	@mkdir -p $(@D)
	$(call say,GEN,$@)
	$(Q)printf '#include "kernel/ksyms.h"\nconst struct ksym ksyms[] __attribute__((section(".ksyms"))) = { { 0, 0 } };\nconst unsigned ksyms_count = 0;\n' > $@

$(B)/stage1.elf: $(KOBJ) $(B)/gen/ksyms0.o linker.ld $(B)/gen/consts.ld
	$(call say,LD,$@)
	$(Q)$(LD) $(KLDFLAGS) -o $@ $(KOBJ) $(B)/gen/ksyms0.o $(LIBGCC)

$(B)/gen/ksyms.c: $(B)/stage1.elf tools/ksyms.sh
	$(call say,GEN,$@)
	$(Q)sh tools/ksyms.sh $< > $@

$(B)/bootheap.elf: $(KOBJ) $(B)/gen/ksyms.o linker.ld $(B)/gen/consts.ld
	$(call say,LD,$@)
	$(Q)$(LD) $(KLDFLAGS) -Map=$(B)/bootheap.map -o $@ $(KOBJ) $(B)/gen/ksyms.o $(LIBGCC)
	@nm -n $(B)/stage1.elf | awk '$$2 ~ /^[tT]$$/' > $(B)/stage1.syms
	@nm -n $@ | awk '$$2 ~ /^[tT]$$/' > $(B)/bootheap.syms
	@cmp -s $(B)/stage1.syms $(B)/bootheap.syms || { echo "symbol table moved code: stage links differ"; exit 1; }
	$(call say,OBJDUMP,$(B)/bootheap.dis)
	$(Q)objdump -d -M intel --no-show-raw-insn $@ > $(B)/bootheap.dis
	$(call say,NM,$(B)/bootheap.sym)
	$(Q)nm -n $@ > $(B)/bootheap.sym

# ---- ISO ---------------------------------------------------------------------
iso: $(B)/bootheap.iso

$(B)/bootheap.iso: $(B)/bootheap.elf iso/grub.cfg
	@rm -rf $(B)/isodir
	@mkdir -p $(B)/isodir/boot/grub
	$(Q)cp $(B)/bootheap.elf $(B)/isodir/boot/bootheap.elf
	$(Q)cp iso/grub.cfg $(B)/isodir/boot/grub/grub.cfg
	$(call say,ISO,$@)
	$(Q)grub-mkrescue -o $@ $(B)/isodir 2> $(B)/grub-mkrescue.log || { cat $(B)/grub-mkrescue.log; exit 1; }

# ---- running -----------------------------------------------------------------
## setup                                 install the Debian packages that the build and the tests use
setup:
	@sh tools/setup.sh

# One boot (docs/usage.md, "Boot paths"): BOOT=pvh, QEMU's -kernel (the
# default); iso-bios, SeaBIOS and GRUB from the ISO, as real hardware
# would; iso-uefi, OVMF and GRUB. ARGS is the kernel command line (an ISO
# boot with ARGS builds an ISO of its own). GDB=1 has QEMU wait for gdb on
# :1234, with no time limit. Under TCG a pvh boot without GDB ends with the
# hosted runner's answer at the same size beside the emulated one. The
# build is one step of its own, one line for the whole of it (warnings and
# errors show in full, every command with V=1): the terminal is the boot's.
BOOT ?= pvh
GDB  ?= 0
run_gdb = $(filter 1,$(GDB))
run_beside = $(if $(run_gdb),,$(filter pvh,$(BOOT)))
run_builds = $(if $(filter pvh,$(BOOT)),all $(if $(run_beside),hosted),iso)
## run BOOT=pvh|iso-bios|iso-uefi GDB=1  boot once in QEMU, the kernel's command line in ARGS
run: setup
	$(call choose,BOOT,pvh iso-bios iso-uefi)$(call choose,GDB,0 1)
	$(call say,BUILD,$(patsubst all,bootheap.elf,$(patsubst hosted,bootheap-host,$(patsubst iso,bootheap.iso,$(run_builds)))))
	@$(MAKE) --no-print-directory $(if $(filter 1,$(V)),,-s) $(run_builds)
	$(if $(run_gdb),@echo "QEMU waits for gdb on :1234; in another terminal: gdb -x tools/gdbinit")
	$(call say,BOOT,$(BOOT)$(if $(run_gdb), for gdb) mem=$(MEM) cpus=$(CPUS) nodes=$(NODES) accel=$(ACCEL))
	$(Q)$(PYTHON) -m harness boot --mode $(BOOT) --accel $(ACCEL) --mem $(MEM) --append "$(ARGS)" \
		--cpus $(CPUS) --nodes $(NODES) $(if $(run_beside),--hosted-beside) \
		$(if $(run_gdb),--gdb --timeout 0) $(BOOT_V) $(OPTS)

# The run over memory sizes in QEMU; QUICK=1 for 1 and 4 GiB, 3 runs. It
# boots the ELF directly (pvh) or builds its own ISO per boot with the
# benchmark's kernel arguments, so `all` is the only build it needs.
QUICK ?= 0
## bench QUICK=1                         the run over memory sizes in QEMU, results in results/
bench: setup
	$(call choose,QUICK,0 1)
	@$(MAKE) --no-print-directory all
	$(call say,BENCH,$(if $(filter 1,$(QUICK)),quick )run over sizes accel=$(ACCEL))
	$(Q)$(PYTHON) -m harness run $(if $(filter 1,$(QUICK)),--quick )--accel $(ACCEL) $(BENCH_ARGS) $(OPTS)

# ---- tests -------------------------------------------------------------------
## test                                  every test stage but the slow ones, one summary line at the end
test: setup
	@$(MAKE) --no-print-directory all iso hosted hosted-tsan
	$(call say,TEST,tests/run_all.py)
	$(Q)$(PYTHON) tests/run_all.py

HOST_CFLAGS := -std=gnu11 -O1 -g -Wall -Wextra -Werror -DBOOTHEAP_HOST -I. \
               -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer -no-pie
HOST_SRC := kernel/lib/err.c kernel/lib/sort.c kernel/bootinfo/bootinfo.c kernel/bootinfo/mb2.c \
            kernel/bootinfo/pvh.c kernel/cmdline.c kernel/acpi/acpi.c kernel/console/qr.c \
            kernel/console/qr_words.c kernel/acpi/acpi_find.c kernel/acpi/topo.c
HOST_SRC += kernel/time/tsc_math.c kernel/time/window.c kernel/time/choose.c bench/stats.c
HOST_SRC += mm/e820.c mm/usable.c mm/bootmem.c mm/numa.c mm/frametable.c mm/heap.c mm/heap_reset.c mm/heap_free.c \
            mm/heap_alloc.c mm/xen_costs.c mm/audit.c mm/heap_par.c mm/pageset.c \
            $(wildcard mm/strategies/*.c) mm/peers/peer.c mm/peers/registry.c $(wildcard mm/peers/*/*.c) \
            tests/unit/host_support.c
# The clock drivers and the calibration run reach hardware through
# kernel/time/clkio.h; their tests link a simulated machine in its place.
CLOCK_SIM_SRC := kernel/time/pit.c kernel/time/hpet.c kernel/time/pmtimer.c kernel/time/leaves.c \
                 kernel/time/refclock.c kernel/time/calibrate.c kernel/time/measure.c \
                 tests/unit/sim_clock.c
UNIT_TESTS := $(patsubst tests/unit/%.c,$(B)/unit/%,$(wildcard tests/unit/test_*.c))
UNIT_HDRS := $(wildcard kernel/*.h kernel/*/*.h bench/*.h tests/unit/*.h) $(MM_HDRS)
# Each source is compiled once for every test that links it (a test binary
# used to compile all of them again: some 20 times the work). The cost
# model's tests count each modelled cost where it is paid, so they link
# their own copies built with XEN_COSTS_COUNT.
HOST_OBJ := $(patsubst %.c,$(B)/unit/obj/%.o,$(HOST_SRC))
HOST_OBJ_COUNT := $(patsubst %.c,$(B)/unit/obj-count/%.o,$(HOST_SRC))
CLOCK_SIM_OBJ := $(patsubst %.c,$(B)/unit/obj/%.o,$(CLOCK_SIM_SRC))

$(B)/unit/obj/%.o: %.c $(UNIT_HDRS) Makefile
	@mkdir -p $(@D)
	$(call say,HOSTCC,$@)
	$(Q)$(HOSTCC) $(HOST_CFLAGS) -c -o $@ $<

$(B)/unit/obj-count/%.o: %.c $(UNIT_HDRS) Makefile
	@mkdir -p $(@D)
	$(call say,HOSTCC,$@)
	$(Q)$(HOSTCC) $(HOST_CFLAGS) -DXEN_COSTS_COUNT -c -o $@ $<

# Each test's own object is kept too, so that a change to mm/ relinks the
# tests without compiling each of them again (make mutants does that often).
.SECONDARY: $(patsubst %,$(B)/unit/obj/tests/unit/%.o,$(notdir $(UNIT_TESTS))) \
            $(B)/unit/obj-count/tests/unit/test_xen_costs.o

$(B)/unit/%: $(B)/unit/obj/tests/unit/%.o $(HOST_OBJ) Makefile
	@mkdir -p $(@D)
	$(call say,LD,$@)
	$(Q)$(HOSTCC) $(HOST_CFLAGS) -o $@ $< $(HOST_OBJ) -lcmocka

$(B)/unit/test_xen_costs: $(B)/unit/obj-count/tests/unit/test_xen_costs.o $(HOST_OBJ_COUNT) Makefile
	@mkdir -p $(@D)
	$(call say,LD,$@)
	$(Q)$(HOSTCC) $(HOST_CFLAGS) -DXEN_COSTS_COUNT -o $@ $< $(HOST_OBJ_COUNT) -lcmocka

$(B)/unit/test_clocks: $(B)/unit/obj/tests/unit/test_clocks.o $(HOST_OBJ) $(CLOCK_SIM_OBJ) Makefile
	@mkdir -p $(@D)
	$(call say,LD,$@)
	$(Q)$(HOSTCC) $(HOST_CFLAGS) -o $@ $< $(HOST_OBJ) $(CLOCK_SIM_OBJ) -lcmocka

# The screen console on a text screen in memory: no font, no COM1.
$(B)/unit/test_console: tests/unit/test_console.c kernel/console/console.c $(UNIT_HDRS) Makefile
	@mkdir -p $(@D)
	$(call say,HOSTCC,$@)
	$(Q)$(HOSTCC) $(HOST_CFLAGS) -o $@ $< kernel/console/console.c -lcmocka

test-unit: $(UNIT_TESTS)
	@set -e; for t in $(UNIT_TESTS); do echo "== $$t"; $$t; done

# libFuzzer, one binary per target: the boot-info parsers, the memory-map
# sanitiser and the firmware tables (bootinfo), the command line with the
# kernel's own formatter (cmdline), and the hosted runner's map-file reader
# (mapfile). Work copies of the corpora and any crash artefacts stay under
# build/fuzz/; a crash fails the target. `make fuzz` runs each target
# FUZZ_SECONDS; QUICK=1, make test's stage, FUZZ_TEST_SECONDS.
FUZZ_SECONDS ?= 600
# Seconds for each target in `make test`: the fuzz stage stays under about 45 s.
FUZZ_TEST_SECONDS ?= 10
FUZZ_TARGETS := bootinfo cmdline mapfile
FUZZ_CFLAGS := -std=gnu11 -O1 -g -Wall -Wextra -Werror -DBOOTHEAP_HOST -I. -fsanitize=fuzzer,address,undefined \
               -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_SRC_bootinfo := kernel/lib/err.c kernel/lib/sort.c kernel/bootinfo/bootinfo.c \
                     kernel/bootinfo/mb2.c kernel/bootinfo/pvh.c kernel/acpi/acpi.c mm/e820.c \
                     mm/usable.c mm/bootmem.c kernel/acpi/acpi_find.c kernel/acpi/topo.c mm/numa.c \
                     tests/fuzz/topo.c tests/fuzz/oracle_map.c tests/fuzz/bootmem.c
FUZZ_CORPUS_bootinfo := tests/fuzz/corpus
FUZZ_MAXLEN_bootinfo := 16384
# The kernel's vsnprintf formats the parser's messages in the kernel, so it
# does here too, renamed so that it takes the C library's place.
FUZZ_SRC_cmdline := kernel/cmdline.c kernel/lib/err.c kernel/console/printk.c tests/fuzz/cmdline_ref.c
FUZZ_FLAGS_cmdline := -Dvsnprintf=kernel_vsnprintf -Dsnprintf=kernel_snprintf
FUZZ_CORPUS_cmdline := tests/fuzz/corpus-cmdline
FUZZ_MAXLEN_cmdline := 1024
FUZZ_SRC_mapfile := hosted/platform/mapfile.c kernel/lib/err.c kernel/lib/sort.c mm/e820.c tests/fuzz/mapfile_ref.c
FUZZ_CORPUS_mapfile := tests/fuzz/corpus-map
FUZZ_MAXLEN_mapfile := 16384
FUZZ_RUN_mapfile := -dict=tests/fuzz/mapfile.dict
FUZZ_BINS := $(patsubst %,$(B)/fuzz/fuzz_%,$(FUZZ_TARGETS))
# libFuzzer's options for target $(1) running $(2) seconds.
fuzz_args = -max_len=$(FUZZ_MAXLEN_$(1)) -timeout=10 -print_final_stats=1 \
            -artifact_prefix=$(B)/fuzz/crash-$(1)- $(FUZZ_RUN_$(1)) -max_total_time=$(2)

$(foreach t,$(FUZZ_TARGETS),$(eval $(B)/fuzz/fuzz_$(t): $(FUZZ_SRC_$(t))))
$(B)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(wildcard hosted/platform/*.h kernel/*.h kernel/*/*.h mm/*.h tests/fuzz/*.h) Makefile
	@mkdir -p $(@D)
	$(call say,FUZZCC,$@)
	$(Q)$(FUZZCC) $(FUZZ_CFLAGS) $(FUZZ_FLAGS_$*) -o $@ $< $(FUZZ_SRC_$*)

# The long run keeps its corpora between runs, seeded from the
# repository's; QUICK=1 starts from a fresh copy of the seeds each time, so
# `make test` is repeatable.
fuzz_quick = $(filter 1,$(QUICK))
fuzz_seconds = $(if $(fuzz_quick),$(FUZZ_TEST_SECONDS),$(FUZZ_SECONDS))
fuzz_corpus = $(B)/fuzz/$(if $(fuzz_quick),test-)corpus-$(1)
## fuzz QUICK=1                          libFuzzer on the parsers, 10 minutes a target (QUICK=1: 10 s)
fuzz: $(patsubst %,fuzz-%,$(FUZZ_TARGETS))
fuzz-%: $(B)/fuzz/fuzz_%
	$(call choose,QUICK,0 1)
	@$(if $(fuzz_quick),rm -rf $(call fuzz_corpus,$*) && )mkdir -p $(call fuzz_corpus,$*)
	@cp -n $(FUZZ_CORPUS_$*)/* $(call fuzz_corpus,$*)/
	$(call say,FUZZ,$* for $(fuzz_seconds) s)
	$(Q)$< $(call fuzz_args,$*,$(fuzz_seconds)) $(call fuzz_corpus,$*)

# The mutants of tests/mutants/, each a planted bug, against the fast stages
# of `make test` (python3 -m tools.mutants; docs/testing-mutants.md); e.g.
# OPTS="heap-partly-dirty-at-head" tries that one alone.
## mutants                               the planted bugs of tests/mutants/ against the fast tests
mutants: setup
	@$(MAKE) --no-print-directory mutants-build
	$(call say,TEST,tests/mutants)
	$(Q)$(PYTHON) -m tools.mutants $(MUTANTS_ARGS) $(OPTS)

# Everything the fast stages run, built before the tree is copied (below
# FUZZ_BINS: a rule's prerequisites are read where it stands).
mutants-build: all hosted hosted-tsan $(UNIT_TESTS) $(FUZZ_BINS)
	@:

test-boot: all iso
	$(call say,TEST,tests/boot)
	$(Q)$(PYTHON) -m pytest -q -n 2 tests/boot

# Guests of 90 GiB and 1 TiB (reserve=off): slow under TCG, so not in `make test`.
test-big: all
	$(call say,TEST,tests/big)
	$(Q)$(PYTHON) -m pytest -q tests/big

# ---- host C programs ------------------------------------------------------------
# Each hosted/NAME.c is one program, $(B)/NAME, from that one file; the
# hosted runner (below) is the one built from more.
HOSTED_CFLAGS := -std=gnu11 -O2 -g -Wall -Wextra -Werror
HOSTED_PROGS  := $(patsubst hosted/%.c,$(B)/%,$(filter-out hosted/bootheap-host.c,$(wildcard hosted/*.c)))

$(HOSTED_PROGS): $(B)/%: hosted/%.c Makefile
	@mkdir -p $(@D)
	$(call say,HOSTCC,$@)
	$(Q)$(HOSTCC) $(HOSTED_CFLAGS) -o $@ $<

# The hosted runner, build/bootheap-host (docs/usage-hosted.md, "The hosted runner"): mm/ and bench/
# (less paging, the kernel's self-tests and the accelerator probe, which only
# a guest has), with the kernel's printk, records, options, strings and CPU
# identity, compiled with the kernel's code-generation flags less
# -mcmodel=kernel (a user program lives in the low 2 GiB), linked with the
# user-space platform layer in hosted/platform/.
HOSTED_KSRC := $(filter-out mm/paging.c mm/mm_selftest.c mm/peers/peer_selftest.c,$(MM_SRC)) \
               $(filter-out bench/probe.c,$(wildcard bench/*.c)) \
               kernel/console/printk.c kernel/console/record.c kernel/lib/string.c \
               kernel/cmdline.c kernel/lib/err.c kernel/lib/sort.c kernel/cpu.c kernel/time/tsc_math.c \
               kernel/time/leaves.c kernel/time/choose.c kernel/bootinfo/bootrec.c
HOSTED_KOBJ := $(patsubst %.c,$(B)/hosted/k/%.o,$(HOSTED_KSRC))
HOSTED_KFLAGS := $(filter-out -mcmodel=kernel,$(KFLAGS)) -DBOOTHEAP_HOSTED
# The runner's own part, hosted/bootheap-host.c and the platform layer, is
# compiled to objects (build/hosted/p/) as the kernel's code is, so that
# tools/circles.py can read with nm which file uses which.
HOSTED_PLATFORM := hosted/bootheap-host.c $(wildcard hosted/platform/*.c)
HOSTED_POBJ := $(patsubst %.c,$(B)/hosted/p/%.o,$(HOSTED_PLATFORM))
HOSTED_FLAGS_bootheap-host := -DBOOTHEAP_HOSTED -I. -fno-pie -no-pie -pthread -Wl,-T,hosted/platform/hosted.ld
HOSTED_HDRS := $(wildcard hosted/platform/*.h kernel/*.h kernel/*/*.h bench/*.h) $(MM_HDRS)

$(B)/hosted/p/%.o: %.c $(HOSTED_HDRS) Makefile
	@mkdir -p $(@D)
	$(call say,HOSTCC,$@)
	$(Q)$(HOSTCC) $(HOSTED_CFLAGS) -DBOOTHEAP_HOSTED -I. -fno-pie -pthread -c $< -o $@

$(B)/bootheap-host: $(HOSTED_POBJ) $(HOSTED_KOBJ) $(B)/hosted/kimage.ld hosted/platform/hosted.ld Makefile
	$(call say,LD,$@)
	$(Q)$(HOSTCC) $(HOSTED_CFLAGS) $(HOSTED_FLAGS_bootheap-host) -o $@ $(HOSTED_POBJ) $(HOSTED_KOBJ) \
		$(B)/hosted/kimage.ld

$(B)/hosted/k/%.o: %.c Makefile
	@mkdir -p $(@D)
	$(call say,CC,$@)
	$(Q)$(KCC) $(CFLAGS) $(HOSTED_KFLAGS) -c $< -o $@

# The kernel image's physical range, read from the kernel: the runner keeps
# it out of the boot allocator as the kernel does.
$(B)/hosted/kimage.ld: $(B)/bootheap.elf
	@mkdir -p $(@D)
	$(call say,GEN,$@)
	$(Q)nm $< | awk '$$3 ~ /^__kernel_phys_(start|end)$$/ { print $$3 " = 0x" $$1 ";" }' > $@

$(B)/bootheap-host.dis: $(B)/bootheap-host
	$(call say,OBJDUMP,$@)
	$(Q)objdump -d -M intel --no-show-raw-insn $< > $@

hosted: $(B)/bootheap-host $(B)/bootheap-host.dis

# The same runner under ThreadSanitizer, every object instrumented and the
# tables where the sanitiser lets a program map them (mm/layout.h): `make
# test` runs its --cpus 2 build (tests/hosted/test_tsan.py), where real
# threads race if anything in the parallel init is unguarded.
TSAN_FLAGS := -fsanitize=thread -DBOOTHEAP_TSAN
HOSTED_TSAN_KOBJ := $(patsubst %.c,$(B)/hosted-tsan/k/%.o,$(HOSTED_KSRC))
$(B)/hosted-tsan/k/%.o: %.c Makefile
	@mkdir -p $(@D)
	$(call say,CC,$@)
	$(Q)$(KCC) $(CFLAGS) $(HOSTED_KFLAGS) $(TSAN_FLAGS) -c $< -o $@

$(B)/bootheap-host-tsan: $(HOSTED_PLATFORM) $(HOSTED_TSAN_KOBJ) $(B)/hosted/kimage.ld hosted/platform/hosted.ld \
                         $(HOSTED_HDRS) Makefile
	$(call say,HOSTCC,$@)
	$(Q)$(HOSTCC) $(HOSTED_CFLAGS) $(HOSTED_FLAGS_bootheap-host) $(TSAN_FLAGS) -o $@ $(HOSTED_PLATFORM) \
		$(HOSTED_TSAN_KOBJ) $(B)/hosted/kimage.ld

hosted-tsan: $(B)/bootheap-host-tsan

# Exact counts under callgrind (docs/results-hosted.md, "Exact counts"), e.g.
# COUNTS_SIZES=256M,8G,90G OPTS="--out results/<a bench-host folder>".
COUNTS_SIZES ?= 256M,8G
bench-counts: setup
	@$(MAKE) --no-print-directory all hosted
	$(call say,BENCH,counts sizes=$(COUNTS_SIZES))
	$(Q)$(PYTHON) -m harness counts --sizes $(COUNTS_SIZES) $(COUNTS_ARGS) $(OPTS)

# The page/chunk ratio under each model of Xen's per-call costs (docs/results-ablation.md),
# timed and counted on the hosted runner, e.g. OPTS="--sizes 8G --runs 9".
bench-ablation: setup
	@$(MAKE) --no-print-directory all hosted
	$(call say,BENCH,ablation)
	$(Q)$(PYTHON) -m harness ablation $(ABLATION_ARGS) $(OPTS)

# The hosted runner over 1 GiB to 1 TiB, 6 runs a size spread over six
# passes of the sizes (1 TiB in one boot of 3 runs), into a results folder
# as `make bench` writes one (docs/usage-hosted.md, "The hosted runner"); OPTS as
# for bench. MODE=repeat: the run over sizes twice, back to back, and every
# strategy-size's two headline figures with their difference
# (results/<date-time>/repeat.md; docs/results-hosted-repeat.md). MODE=full: every
# strategy's first touch timed in every run at every size, the end-to-end
# figures in full (by default it is shared among the eager strategies and
# sampled from 64 GiB up).
MODE ?=
## bench-host MODE=repeat|full           the run over sizes on the hosted runner, this CPU, 1 GiB to 1 TiB
bench-host: setup
	$(if $(MODE),$(call choose,MODE,repeat full))
	@$(MAKE) --no-print-directory all hosted
	$(call say,BENCH,hosted run over sizes$(if $(filter repeat,$(MODE)), twice)$(if $(filter full,$(MODE)), in full))
	$(Q)$(PYTHON) -m harness run --hosted $(if $(MODE),--$(MODE)) $(BENCH_ARGS) $(OPTS)

# The real Xen 4.14, Xen 4.17, Linux 6.1 and Linux 6.12 (Debian's packages,
# fetched into build/binaries) beside bootheap and its Linux models, in exact
# instruction counts under -icount at 1 to 16 GiB (docs/usage-real-kernels.md,
# "The real binaries"), e.g. OPTS="--sizes 1,32 --out results/<folder>".
## binaries                              Debian's Xen 4.14 and 4.17, Linux 6.1 and 6.12 beside bootheap
binaries: setup
	@$(MAKE) --no-print-directory all
	$(call say,BENCH,binaries)
	$(Q)$(PYTHON) -m harness binaries $(PEERS_ARGS) $(OPTS)

# Xen 4.17 and 4.20 built from Debian's source packages with patches/xen/
# (into build/xen-src, rebuilt only when a patch changes), every variant of
# init_heap_pages() under -icount at 1 to 64 GiB on one node and on two, one
# heap proven, bootheap's models beside them, dom0 to its init on the debug
# builds (docs/usage-real-kernels.md, "Xen from source"), e.g. OPTS="--sizes 1,4 --nodes 1".
## xen-src                               Xen 4.17 and 4.20 built with patches/xen/, each variant counted
xen-src: setup
	@$(MAKE) --no-print-directory all
	$(call say,BENCH,xen-src)
	$(Q)$(PYTHON) -m harness xen-src $(XEN_SRC_ARGS) $(OPTS)

# Xen's own init_heap_pages() of the patched 4.17 tree (or XEN_TREE=DIR) on
# the host: sweep and chunk-72b02bc against chunk over random call sequences
# at MAX_ORDER 20, 4 and 2, every page_info and free list in order compared
# (docs/testing-xen-heap.md): 3,000 sequences, as make test's hosted stage
# runs 2,400 of them; LONG=1, the long run, 102,000 from seed 1,000,000.
XEN_TREE ?=
LONG ?= 0
## xen-heap-test LONG=1                  Xen's own heap code on this host, its variants held equal
xen-heap-test: setup
	$(call choose,LONG,0 1)
	$(call say,TEST,xen-heap-test$(if $(filter 1,$(LONG)), long))
	$(Q)$(PYTHON) -m harness xen-src heap-test $(if $(filter 1,$(LONG)),--sequences 102000 --seed 1000000) \
		$(if $(XEN_TREE),--tree $(XEN_TREE)) $(XEN_HEAP_ARGS) $(OPTS)

# Linux 6.12 built from Debian's source package (into build/linux-src, cached
# under the source version, the patches, the .config and the toolchain):
# tinyconfig with every option of Debian's amd64 config that the memory-init
# path tests, its three phases under -icount on one node and on two beside
# Debian's binary of docs/results/binaries-linux (docs/usage-linux-src.md),
# e.g. OPTS="--sizes 1,4 --nodes 1".
## linux-src                             Linux 6.12 built with patches/linux/, its phases counted
linux-src: setup
	$(call say,BENCH,linux-src)
	$(Q)$(PYTHON) -m harness linux-src $(LINUX_SRC_ARGS) $(OPTS)

# The series' test on the real source build (tests/linux): 6.12 with
# patches/linux/6.12 built (cached; a fresh build and its download take
# about 10 minutes on 2 CPUs), booted at 1 GiB as init_pages=stock and as
# sweep: one dump, fewer instructions for sweep, an unknown value refused,
# both to busybox's /init. Not in `make test`; CI runs it.
test-linux-src: setup
	$(call say,TEST,tests/linux)
	$(Q)$(PYTHON) -m pytest -q -n 2 tests/linux

# Which stores write page_info fastest on this CPU: the sweep strategy's
# marking loop, measured in user space (the kernel only runs under TCG here).
STORES_GIB ?= 16
bench-stores: $(B)/stores
	$(call say,BENCH,stores over $(STORES_GIB) GiB)
	$(Q)$(B)/stores $(STORES_GIB) 9

# A minimal Debian 12 under build/fresh/, a clean clone of this commit, and
# the README's set-up, build and one TCG boot inside it (root; minutes).
check-fresh:
	$(call say,CHECK,fresh Debian 12)
	$(Q)sh tools/check-fresh.sh

# How long the QR code at the end of a run takes to encode and draw (target
# under 50 ms), from short boots on each screen path.
bench-qr: setup
	@$(MAKE) --no-print-directory iso
	$(call say,BENCH,qr accel=$(ACCEL))
	$(Q)$(PYTHON) -m harness.sizes.qrtime --accel $(ACCEL) $(BENCH_ARGS) $(OPTS)

# ---- tooling -----------------------------------------------------------------
compile_commands.json:
	$(call say,GEN,$@)
	$(Q)$(MAKE) clean
	$(Q)bear -- $(MAKE) all $(UNIT_TESTS)

clean:
	$(call say,CLEAN,$(B))
	$(Q)rm -rf --one-file-system $(B)

# Dependency files of the build, not of check-fresh's scratch Debian (its etc/ has rc2.d folders).
-include $(shell find $(B) -path $(B)/fresh -prune -o -type f -name '*.d' -print 2>/dev/null)

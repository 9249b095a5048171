# Torq bench: one non-recursive make. Each component adds its sources, libraries, tools and tests
# in its own module.mk; this file holds the flags, the generic rules and the top-level targets.
#
#   make                      build everything into build/ (tools in build/bin)
#   make run                  the main job
#   make check                every Check test binary
#   make check-skips          a missing test prerequisite fails under CI, is a counted skip without
#   make check SANITIZE=address,undefined
#   make valgrind             the tests under valgrind (CK_FORK=no)
#   make fuzz                 build and run the libFuzzer targets for FUZZ_SECONDS each
#   make bench                the benchmark scripts
#   make golden               rewrite the golden files of the compiler tests (review the diff!)
#   make tidy / make format   clang-tidy / clang-format
#   WERROR=1                  warnings are errors (CI)

.DEFAULT_GOAL := all
SHELL := /bin/bash

TOP := $(CURDIR)
SHARED ?= $(abspath $(TOP)/../shared)
TORQ_TESTDATA ?= $(SHARED)/testdata
export TORQ_TESTDATA

CC ?= cc
ifeq ($(CC),cc)
CC := gcc
endif

# Sanitized and plain objects never mix: each flavour has its own build folder.
ifneq ($(SANITIZE),)
BUILD ?= build/san-$(subst $(comma),-,$(SANITIZE))
else
BUILD ?= build/default
endif
comma := ,
BIN := $(BUILD)/bin

PKGS := yaml-0.1 libcurl libssh2 libprotobuf-c check xlsxwriter libcrypto

# Install what is missing (scripts/install-deps is idempotent and quiet when all is there), unless
# the goal needs no compiler.
NO_DEPS_GOALS := clean format help
ifeq ($(filter $(NO_DEPS_GOALS),$(MAKECMDGOALS)),)
ifneq ($(shell scripts/install-deps --check >/dev/null 2>&1 && echo ok),ok)
DEPS_RC := $(shell scripts/install-deps >&2; echo $$?)
ifneq ($(DEPS_RC),0)
$(error scripts/install-deps failed (exit $(DEPS_RC)); run it by hand to see why)
endif
endif
endif

pkg_cflags = $(shell pkg-config --cflags $(1))
pkg_libs = $(shell pkg-config --libs $(1))

WARNINGS := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wformat=2 -Wvla \
            -Wno-unused-parameter
ifneq ($(WERROR),)
WARNINGS += -Werror
endif
OPT ?= -O2
CFLAGS ?= $(OPT) -g
ALL_CFLAGS = -std=c11 -D_GNU_SOURCE $(WARNINGS) $(CFLAGS) -MMD -MP
LDFLAGS ?=
ifneq ($(SANITIZE),)
ALL_CFLAGS += -fsanitize=$(SANITIZE) -fno-omit-frame-pointer -fno-sanitize-recover=all
LDFLAGS += -fsanitize=$(SANITIZE)
endif

# Filled in by the module.mk files.
LIBS :=
TOOLS :=
TEST_BINS :=
FUZZ_BINS :=

# $(call objs,SOURCES): the object files of some sources in this flavour's build folder.
objs = $(patsubst %.c,$(BUILD)/obj/%.o,$(1))

include runtime/base/module.mk
include runtime/formats/module.mk
include sim/module.mk
include compiler/module.mk
include runtime/module.mk
-include harness/module.mk
-include harness/runner.mk

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(CPPFLAGS) -c $< -o $@

$(BUILD)/lib/%.a:
	@mkdir -p $(@D)
	rm -f $@
	ar rcs $@ $^

.PHONY: all run check check-skips valgrind fuzz bench golden tidy format clean help
all: $(LIBS) $(TOOLS) $(TEST_BINS)

# The main job: the smoke suite on the simulator (torq-test), ending with the summary and the
# Host Profile Overview; results in results/<run-id>/.
run: $(TOOLS)
	$(BIN)/torq-test suites/smoke.yaml

# Every test binary runs even when one fails; the target fails if any did. A test that lacks a
# prerequisite (a tool, the corpus) fails when CI is set and is skipped otherwise; the tests run
# in forked children, so each skip is a line of $(SKIP_LOG) and the target ends with their count
# and list (runtime/base/testing/tq_test.h).
SKIP_LOG := $(BUILD)/skipped.txt
TEST_ENV = TORQ_TOP=$(TOP) TORQ_BIN=$(TOP)/$(BIN) TORQ_SKIP_LOG=$(TOP)/$(SKIP_LOG)
print_skips = awk -F': ' '{ k = $$1 ": " $$2; if (!(k in seen)) { seen[k] = 1; n++ } \
    if (!($$0 in times)) line[++lines] = $$0; times[$$0]++ } \
  END { if (!NR) { print "== no test skipped"; exit } print "== " n " tests skipped:"; \
        for (i = 1; i <= lines; i++) print "  " line[i] (times[line[i]] > 1 ? " (" times[line[i]] " times)" : "") }' \
  $(SKIP_LOG)
check: $(TOOLS) $(TEST_BINS)
	@mkdir -p $(BUILD); : >$(SKIP_LOG); rc=0; for t in $(TEST_BINS); do \
	  echo "== $$t"; $(TEST_ENV) $$t || rc=1; \
	done; $(print_skips); exit $$rc

# The skip rule itself: the tests that need a tool or the corpus, run with it pointed at a missing
# path, fail under CI=true and are counted skips without CI (scripts/check-skips; ~15 s).
check-skips: $(TOOLS) $(TEST_BINS) $(TEST_MODULES)
	scripts/check-skips $(BUILD)

VALGRIND := valgrind --quiet --error-exitcode=99 --leak-check=full --show-leak-kinds=definite,indirect \
            --errors-for-leak-kinds=definite,indirect
valgrind: $(TOOLS) $(TEST_BINS)
	@mkdir -p $(BUILD); : >$(SKIP_LOG); rc=0; for t in $(TEST_BINS); do \
	  echo "== valgrind $$t"; CK_FORK=no TORQ_VALGRIND=1 $(TEST_ENV) $(VALGRIND) $$t || rc=1; \
	done; $(print_skips); exit $$rc

FUZZ_SECONDS ?= 60
FUZZ_CFLAGS := -std=c11 -D_GNU_SOURCE -O1 -g -fsanitize=fuzzer,address,undefined
fuzz: $(FUZZ_BINS)
	@set -o pipefail; rc=0; $(foreach f,$(FUZZ_BINS),\
	  echo "== fuzz $(f) ($(FUZZ_SECONDS) s)"; mkdir -p build/fuzz-corpus/$(notdir $(f)); \
	  $(f) -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 $(FUZZ_FLAGS_$(notdir $(f))) \
	      build/fuzz-corpus/$(notdir $(f)) $(FUZZ_SEEDS_$(notdir $(f))) 2>&1 | tail -n 12 || rc=1;) \
	exit $$rc

# Golden files change only through this target, so that a diff in review shows every change.
golden: $(BUILD)/tests/compiler-tests
	CK_RUN_SUITE=golden TORQ_UPDATE_GOLDEN=1 $(BUILD)/tests/compiler-tests

bench: $(TOOLS)
	@scripts/bench-parse $(BIN)/torq-compile
	@scripts/bench-compile $(BIN)
	@scripts/bench-sim $(BIN)

SOURCES := $(shell find runtime compiler sim harness -name '*.[ch]' 2>/dev/null)
tidy:
	clang-tidy --quiet $(filter %.c,$(SOURCES)) -- -std=c11 -D_GNU_SOURCE \
	  $(addprefix -I,$(shell find runtime compiler sim harness -type d -name include 2>/dev/null)) \
	  -Iruntime/base/testing \
	  $(call pkg_cflags,$(PKGS))

format:
	clang-format -i $(SOURCES)

clean:
	rm -rf build

help:
	@sed -n '1,/^$$/p' Makefile

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)

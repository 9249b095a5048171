# torq-test, the runner's command line (harness/tools/torq_test*.c over harness/src/runner/ and
# friends in libtorq-harness), and its end-to-end tests: a Check binary that runs the real
# $(BIN)/torq-test as a process ($TORQ_BIN/torq-test) and checks what it writes.
TORQ_TEST_LDLIBS := $(HARNESS_LDLIBS) $(call pkg_libs,yaml-0.1 libisal libcurl)

$(call objs,$(wildcard harness/src/transfer/*.c)): CPPFLAGS += $(call pkg_cflags,libcurl)
$(BIN)/torq-test: $(call objs,$(wildcard harness/tools/torq_test*.c)) $(HARNESS_LIBS)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $^ -o $@ $(LDFLAGS) $(TORQ_TEST_LDLIBS)
TOOLS += $(BIN)/torq-test

# torq-test-faults: the test-only build of torq-test (the same objects plus a fault hook,
# harness/e2e/fault_hook.c) that the end-to-end tests run where they need a worker to crash, hang
# or sleep (TORQ_TEST_FAULT); the shipped torq-test has no fault code. Like torq-test it finds
# the runtime it copies to boards beside itself, so a link to the build's one goes there.
E2E_FAULT_HOOK := harness/e2e/fault_hook.c
$(BUILD)/tests/torq-test-faults: $(call objs,$(wildcard harness/tools/torq_test*.c) \
                                 $(E2E_FAULT_HOOK)) $(HARNESS_LIBS) | $(BUILD)/tests/torq-run-module
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $^ -o $@ $(LDFLAGS) $(TORQ_TEST_LDLIBS)
$(BUILD)/tests/torq-run-module: | $(BIN)/torq-run-module
	@mkdir -p $(@D)
	ln -sfn ../bin/torq-run-module $@

# The end-to-end tests learn what they check from the files the real binary writes; one suite
# (internals) tests the runner's private parts (cache, worker protocol, progress) directly, so the
# binary links the harness library and may include harness/src.
E2E_ENOSPC_SHIM := harness/e2e/enospc_shim.c
E2E_SRCS := $(filter-out $(E2E_FAULT_HOOK) $(E2E_ENOSPC_SHIM),$(wildcard harness/e2e/*.c))
$(BUILD)/tests/torq-test-e2e: $(call objs,$(E2E_SRCS)) $(TEST_SUPPORT_OBJ) $(HARNESS_LIBS)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $^ -o $@ $(LDFLAGS) $(TORQ_TEST_LDLIBS) $(call pkg_libs,check)
$(call objs,$(E2E_SRCS) $(E2E_FAULT_HOOK)): CPPFLAGS += $(HARNESS_CPPFLAGS) -Iharness/src \
  $(TEST_SUPPORT_CPPFLAGS)
$(call objs,$(E2E_SRCS) $(E2E_FAULT_HOOK)): | $(FORMATS_GEN_H) $(HARNESS_GEN_H)
# torq-enospc.so: the LD_PRELOAD shim that makes a folder a small disk that fills up, for the
# full-disk test where no tmpfs can be mounted (test-only; never linked into a product). Built
# without the sanitizers: it is loaded before their runtime.
$(BUILD)/tests/torq-enospc.so: $(E2E_ENOSPC_SHIM)
	@mkdir -p $(@D)
	$(CC) -std=c11 -D_GNU_SOURCE $(WARNINGS) -O2 -g -fPIC -shared $< -o $@ -ldl
# The tests run the binaries, so they are built with them.
$(BUILD)/tests/torq-test-e2e: | $(BIN)/torq-test $(BUILD)/tests/torq-test-faults \
                                $(BUILD)/tests/torq-enospc.so
TEST_BINS += $(BUILD)/tests/torq-test-e2e

bench: bench-runner
bench-runner: $(BIN)/torq-test
	@scripts/bench-runner $(BIN)
.PHONY: bench-runner
bench: bench-upload
bench-upload: $(BIN)/torq-test
	@scripts/bench-upload $(BIN)
.PHONY: bench-upload
# The gates' false alarms and detection on recorded noise, and the history's speed (issue 13).
bench: bench-gates
bench-gates: $(BIN)/torq-test
	@scripts/bench-gates $(BIN)
.PHONY: bench-gates

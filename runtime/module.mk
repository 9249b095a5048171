# libtorq-runtime owns running modules: the loader, sessions on a device (the simulator), the
# runtime profile, npy and IREE-style inputs, and torq-run-module. Uses base, formats and sim;
# the harness uses it. base/ and formats/ below are the bottom layer, not part of it.
RUNTIME_SRCS := $(wildcard runtime/src/*.c)
RUNTIME_CPPFLAGS := -Iruntime/include $(SIM_CPPFLAGS)
LIB_RUNTIME := $(BUILD)/lib/libtorq-runtime.a
RUNTIME_LIBS := $(LIB_RUNTIME) $(LIB_SIM) $(LIB_FORMATS) $(LIB_BASE)
RUNTIME_LDLIBS := $(SIM_LDLIBS)

$(LIB_RUNTIME): $(call objs,$(RUNTIME_SRCS))
$(call objs,$(RUNTIME_SRCS)): CPPFLAGS += $(RUNTIME_CPPFLAGS) -Iruntime/src
$(call objs,$(RUNTIME_SRCS) $(wildcard runtime/tests/*.c runtime/tools/*.c)): | $(FORMATS_GEN_H)
LIBS += $(LIB_RUNTIME)

# torq-run-module is copied to boards whose image has none of our dependencies (DESIGN 6): it links
# everything but the C library (libc, libm, libdl, libpthread) statically, protobuf-c included.
# -Bstatic picks the .a of the libraries between it and -Bdynamic; what those need of the C
# library comes from their static pkg-config lists. Check with `ldd build/default/bin/torq-run-module`.
RUN_MODULE_STATIC_PKGS := libprotobuf-c libcrypto
RUN_MODULE_LDLIBS := -Wl,-Bstatic $(call pkg_libs,$(RUN_MODULE_STATIC_PKGS)) -Wl,-Bdynamic \
  $(filter-out $(call pkg_libs,$(RUN_MODULE_STATIC_PKGS)),\
    $(call pkg_static_libs,$(RUN_MODULE_STATIC_PKGS))) -lm
$(BIN)/torq-run-module: $(call objs,runtime/tools/torq_run_module.c) $(RUNTIME_LIBS)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $^ -o $@ $(LDFLAGS) $(RUN_MODULE_LDLIBS)
$(call objs,runtime/tools/torq_run_module.c): CPPFLAGS += $(RUNTIME_CPPFLAGS)
TOOLS += $(BIN)/torq-run-module

# Tests may include private headers (runtime/src) to test internals. The corpus test compiles
# models, so the test binary (only it: the library does not depend on the compiler) links the
# compiler library, which needs what RUNTIME_LIBS brings after it (sim, formats, base).
RUNTIME_TEST_SRCS := $(wildcard runtime/tests/*.c)
$(BUILD)/tests/runtime-tests: $(call objs,$(RUNTIME_TEST_SRCS)) $(TEST_SUPPORT_OBJ) $(LIB_COMPILER) $(RUNTIME_LIBS)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $^ -o $@ $(LDFLAGS) $(RUNTIME_LDLIBS) $(call pkg_libs,check)
$(call objs,$(RUNTIME_TEST_SRCS)): CPPFLAGS += $(RUNTIME_CPPFLAGS) -Iruntime/src -Icompiler/include \
  $(TEST_SUPPORT_CPPFLAGS)
TEST_BINS += $(BUILD)/tests/runtime-tests

# libFuzzer target for the module loader (clang only; built apart from the flavour's objects).
FUZZ_MODULE := build/fuzz/fuzz-module
$(FUZZ_MODULE): runtime/fuzz/fuzz_module.c $(RUNTIME_SRCS) $(SIM_SRCS) $(FORMATS_SRCS) $(BASE_SRCS) \
               $(FORMATS_GEN_C)
	@mkdir -p $(@D)
	clang $(FUZZ_CFLAGS) $(RUNTIME_CPPFLAGS) -Iruntime/src -Isim/src $(filter %.c,$^) -o $@ $(RUNTIME_LDLIBS)
FUZZ_BINS += $(FUZZ_MODULE)
# Our own models compiled with this tree's compiler, so that they follow the current format: the
# runtime tests read them ($TORQ_TEST_MODULES) and they seed the module fuzzer.
TEST_MODULES := $(BUILD)/test-modules
$(TEST_MODULES): $(BIN)/torq-compile $(wildcard suites/models/*.mlir)
	@mkdir -p $@
	@for m in suites/models/*.mlir; do \
	  $(BIN)/torq-compile "$$m" -o "$@/$$(basename "$$m" .mlir).vmfb" || exit 1; done
	@touch $@
check valgrind: $(TEST_MODULES)
export TORQ_TEST_MODULES := $(TOP)/$(TEST_MODULES)
fuzz: $(TEST_MODULES)
FUZZ_SEEDS_fuzz-module := $(TEST_MODULES)

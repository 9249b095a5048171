# libtorq-compiler owns MLIR to module: the front end (lexer, parser, IR, verifier, printer), the
# TOSA checks, the lowering to the NPU contract of libtorq-formats, the module writer, trace and
# debug info, and torq-compile. Uses base, formats and sim; the harness uses it.
COMPILER_SRCS := $(wildcard compiler/src/*.c)
COMPILER_CPPFLAGS := -Icompiler/include $(SIM_CPPFLAGS) $(FORMATS_CPPFLAGS)
LIB_COMPILER := $(BUILD)/lib/libtorq-compiler.a
COMPILER_LDLIBS := $(FORMATS_LDLIBS) $(BASE_LDLIBS) -lm

$(LIB_COMPILER): $(call objs,$(COMPILER_SRCS))
$(call objs,$(COMPILER_SRCS)): CPPFLAGS += $(COMPILER_CPPFLAGS) -Icompiler/src
$(call objs,$(COMPILER_SRCS) $(wildcard compiler/tests/*.c compiler/tools/*.c compiler/bench/*.c)): | $(FORMATS_GEN_H)
LIBS += $(LIB_COMPILER)

$(BIN)/torq-compile: $(call objs,compiler/tools/torq_compile.c) $(LIB_COMPILER) $(LIB_SIM) $(LIB_FORMATS) $(LIB_BASE)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $^ -o $@ $(LDFLAGS) $(COMPILER_LDLIBS)
$(call objs,compiler/tools/torq_compile.c): CPPFLAGS += $(COMPILER_CPPFLAGS)
TOOLS += $(BIN)/torq-compile

# Tests may include private headers (compiler/src) to test internals.
COMPILER_TEST_SRCS := $(wildcard compiler/tests/*.c)
$(BUILD)/tests/compiler-tests: $(call objs,$(COMPILER_TEST_SRCS)) $(TEST_SUPPORT_OBJ) $(LIB_COMPILER) $(LIB_SIM) $(LIB_FORMATS) $(LIB_BASE)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $^ -o $@ $(LDFLAGS) $(COMPILER_LDLIBS) $(call pkg_libs,check)
$(call objs,$(COMPILER_TEST_SRCS)): CPPFLAGS += $(COMPILER_CPPFLAGS) -Icompiler/src $(TEST_SUPPORT_CPPFLAGS)
TEST_BINS += $(BUILD)/tests/compiler-tests

# libFuzzer target for the parser (clang only; built apart from the flavour's objects).
FUZZ_PARSER := build/fuzz/fuzz-mlir-parser
$(FUZZ_PARSER): compiler/fuzz/fuzz_parser.c $(COMPILER_SRCS) $(SIM_SRCS) $(FORMATS_SRCS) $(BASE_SRCS) \
                $(FORMATS_GEN_C)
	@mkdir -p $(@D)
	clang $(FUZZ_CFLAGS) $(COMPILER_CPPFLAGS) -Icompiler/src -Isim/src $(filter %.c,$^) -o $@ $(FORMATS_LDLIBS) $(BASE_LDLIBS) -lm
FUZZ_BINS += $(FUZZ_PARSER)
FUZZ_SEEDS_fuzz-mlir-parser := $(TORQ_TESTDATA)/tosa_ops compiler/tests/models

# The compiler benches share their command line and clock (compiler/bench/bench_common.c).
BENCH_COMMON_OBJ := $(call objs,compiler/bench/bench_common.c)
$(BENCH_COMMON_OBJ): CPPFLAGS += $(COMPILER_CPPFLAGS)

# The one-process front-end timer behind scripts/bench-parse.
$(BIN)/torq-bench-parse: $(call objs,compiler/bench/bench_parse_main.c) $(BENCH_COMMON_OBJ) $(LIB_COMPILER) $(LIB_SIM) $(LIB_FORMATS) $(LIB_BASE)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $^ -o $@ $(LDFLAGS) $(COMPILER_LDLIBS)
$(call objs,compiler/bench/bench_parse_main.c): CPPFLAGS += $(COMPILER_CPPFLAGS)
TOOLS += $(BIN)/torq-bench-parse
FUZZ_FLAGS_fuzz-mlir-parser := -dict=compiler/fuzz/fuzz_parser.dict

# The one-process compiler timer behind scripts/bench-compile.
$(BIN)/torq-bench-compile: $(call objs,compiler/bench/bench_compile_main.c) $(BENCH_COMMON_OBJ) $(LIB_COMPILER) $(LIB_SIM) $(LIB_FORMATS) $(LIB_BASE)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $^ -o $@ $(LDFLAGS) $(COMPILER_LDLIBS)
$(call objs,compiler/bench/bench_compile_main.c): CPPFLAGS += $(COMPILER_CPPFLAGS)
TOOLS += $(BIN)/torq-bench-compile

# The simulator throughput bench behind scripts/bench-sim, and its plain-C -O2 baseline.
$(BIN)/torq-bench-sim: $(call objs,sim/bench/bench_sim_main.c) $(LIB_COMPILER) $(LIB_SIM) $(LIB_FORMATS) $(LIB_BASE)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $^ -o $@ $(LDFLAGS) $(COMPILER_LDLIBS)
$(call objs,sim/bench/bench_sim_main.c): CPPFLAGS += $(COMPILER_CPPFLAGS)
$(call objs,sim/bench/bench_sim_main.c): | $(FORMATS_GEN_H)
$(BIN)/torq-bench-loop: $(call objs,sim/bench/triple_loop.c)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $^ -o $@ $(LDFLAGS)
TOOLS += $(BIN)/torq-bench-sim $(BIN)/torq-bench-loop

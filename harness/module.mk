# The harness: libtorq-harness (annotation of runtime profiles with the compiler's debug info:
# annotated CSV, XLSX, Perfetto trace, Host Profile Overview; and the test runner's parts, whose
# tool and end-to-end tests are in harness/runner.mk), torq-annotate and harness-tests. Only the
# harness links libcurl, libssh2, libyaml and libsqlite3.
# The harness's components, one folder each under harness/src (see harness/src/*/README.md); a
# component's files include its private header by its bare name, from their own folder.
HARNESS_SRCS := $(wildcard harness/src/*/*.c)
HARNESS_PROTOS := $(wildcard harness/formats/*.proto)
HARNESS_GEN := $(BUILD)/gen/harness/formats
HARNESS_GEN_C := $(patsubst harness/formats/%.proto,$(HARNESS_GEN)/%.pb-c.c,$(HARNESS_PROTOS))
HARNESS_GEN_H := $(HARNESS_GEN_C:.c=.h)
HARNESS_GEN_OBJS := $(patsubst $(BUILD)/gen/%.c,$(BUILD)/obj/gen/%.o,$(HARNESS_GEN_C))
HARNESS_CPPFLAGS := -Iharness/include $(COMPILER_CPPFLAGS) $(RUNTIME_CPPFLAGS) -I$(HARNESS_GEN) \
                    $(call pkg_cflags,libisal libssh2 sqlite3)
LIB_HARNESS := $(BUILD)/lib/libtorq-harness.a
HARNESS_LIBS := $(LIB_HARNESS) $(LIB_COMPILER) $(RUNTIME_LIBS)
HARNESS_LDLIBS := $(RUNTIME_LDLIBS) $(COMPILER_LDLIBS) $(call pkg_libs,libisal yaml-0.1 libssh2 libcurl sqlite3)

# Our own minimal Perfetto schema, compiled with protoc-c into the build folder; the generic rule
# of runtime/formats/module.mk compiles the generated C.
$(HARNESS_GEN)/%.pb-c.c $(HARNESS_GEN)/%.pb-c.h: harness/formats/%.proto
	@mkdir -p $(@D)
	protoc-c --proto_path=harness/formats --c_out=$(HARNESS_GEN) $<
.SECONDARY: $(HARNESS_GEN_C) $(HARNESS_GEN_H)

$(LIB_HARNESS): $(call objs,$(HARNESS_SRCS)) $(HARNESS_GEN_OBJS)
HARNESS_ALL_SRCS := $(HARNESS_SRCS) $(wildcard harness/tools/*.c harness/tests/*.c)
$(call objs,$(HARNESS_ALL_SRCS)): CPPFLAGS += $(HARNESS_CPPFLAGS)
$(call objs,$(HARNESS_ALL_SRCS)): | $(FORMATS_GEN_H) $(HARNESS_GEN_H)
LIBS += $(LIB_HARNESS)
# make tidy: the generated Perfetto schema, and the private headers that tests include.
TIDY_CPPFLAGS += -I$(HARNESS_GEN) -Iharness/src
TIDY_DEPS += $(HARNESS_GEN_H)

$(BIN)/torq-annotate: $(call objs,harness/tools/torq_annotate.c) $(HARNESS_LIBS)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $^ -o $@ $(LDFLAGS) $(HARNESS_LDLIBS)
TOOLS += $(BIN)/torq-annotate

# Tests may include a component's private header ("results/results_internal.h") to test its
# internals.
HARNESS_TEST_SRCS := $(wildcard harness/tests/*.c)
$(BUILD)/tests/harness-tests: $(call objs,$(HARNESS_TEST_SRCS)) $(TEST_SUPPORT_OBJ) $(HARNESS_LIBS)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $^ -o $@ $(LDFLAGS) $(HARNESS_LDLIBS) $(call pkg_libs,check)
$(call objs,$(HARNESS_TEST_SRCS)): CPPFLAGS += -Iharness/src $(TEST_SUPPORT_CPPFLAGS)
TEST_BINS += $(BUILD)/tests/harness-tests

# The printed Host Profile Overview of a smoke model is a golden file too (`make golden`).
golden: golden-harness
golden-harness: $(BUILD)/tests/harness-tests
	CK_RUN_SUITE=overview_golden TORQ_UPDATE_GOLDEN=1 $(TEST_ENV) $(BUILD)/tests/harness-tests
.PHONY: golden-harness

# libFuzzer target for the runtime profile CSV reader (clang only; built apart from the flavour's
# objects). The reader needs the base library and the runtime's event names (profile.c, which
# takes the action kinds' names from the module format's).
FUZZ_PROFILE_CSV := build/fuzz/fuzz-profile-csv
$(FUZZ_PROFILE_CSV): harness/fuzz/fuzz_profile_csv.c harness/src/annotate/csv_reader.c \
                     harness/src/common/diag.c runtime/src/profile.c runtime/formats/src/module.c \
                     $(BASE_SRCS) $(FORMATS_GEN_H)
	@mkdir -p $(@D)
	clang $(FUZZ_CFLAGS) -Iharness/include $(BASE_CPPFLAGS) $(FORMATS_CPPFLAGS) -Iruntime/include \
	  $(filter %.c,$^) -o $@ $(BASE_LDLIBS)
FUZZ_BINS += $(FUZZ_PROFILE_CSV)
FUZZ_SEEDS_fuzz-profile-csv := harness/fuzz/seeds

bench: bench-annotate
bench-annotate: $(BIN)/torq-annotate
	@scripts/bench-annotate $(BIN)
.PHONY: bench-annotate
# libFuzzer target for the suite loader (add to harness/module.mk). Only the suite sources are
# instrumented; the runtime, sim, formats and base come from the flavour's libraries.
FUZZ_SUITE := build/fuzz/fuzz-suite
FUZZ_SUITE_SRCS := harness/fuzz/fuzz_suite.c $(addprefix harness/src/,suite/yaml_doc.c \
                   suite/suite_diag.c suite/suite_fields.c suite/suite_schema.c suite/config.c \
                   suite/suite_toolchain.c suite/suite.c select/select.c common/diag.c)
$(FUZZ_SUITE): $(FUZZ_SUITE_SRCS) $(BUILD)/lib/libtorq-runtime.a $(BUILD)/lib/libtorq-sim.a \
               $(BUILD)/lib/libtorq-formats.a $(BUILD)/lib/libtorq-base.a
	@mkdir -p $(@D)
	clang $(FUZZ_CFLAGS) $(HARNESS_CPPFLAGS) $(filter %.c %.a,$^) -o $@ \
	  $(call pkg_libs,yaml-0.1 libprotobuf-c libcrypto) -lm
FUZZ_BINS += $(FUZZ_SUITE)
FUZZ_SEEDS_fuzz-suite := harness/fuzz/suite_seeds
FUZZ_FLAGS_fuzz-suite := -dict=harness/fuzz/fuzz_suite.dict

# Boards: torq-test against a loopback board beside a script that spawns ssh/scp per step.
bench: bench-boards
bench-boards: $(BIN)/torq-test $(BIN)/torq-run-module
	@scripts/bench-boards $(BIN)
.PHONY: bench-boards

# The harness's component layout (README.md, "Harness components": private headers, no printing,
# no fault injection in the product, no file over 800 lines), checked whenever the tests run,
# with the self-test that shows each rule catches a breach.
check: check-harness-layout
check-harness-layout:
	@scripts/check-harness-layout && scripts/check-harness-layout --self-test
.PHONY: check-harness-layout

# libtorq-base: the bottom layer every library uses (the order is base -> formats -> sim ->
# compiler, runtime -> harness; it sits under runtime/ as IREE keeps its base under its runtime).
# It owns status, allocation, arena, strings and buffers, checked arithmetic, files, SHA-256, the
# bad-usage message and the version header the Makefile generates. It depends on nothing of ours.
BASE_SRCS := $(wildcard runtime/base/src/*.c)
# $(BUILD)/gen/include holds torq/base/version.h, which the Makefile writes (TQ_VERSION).
BASE_CPPFLAGS := -Iruntime/base/include -I$(BUILD)/gen/include
LIB_BASE := $(BUILD)/lib/libtorq-base.a
BASE_LDLIBS := $(call pkg_libs,libcrypto)

$(LIB_BASE): $(call objs,$(BASE_SRCS))
$(call objs,$(BASE_SRCS)): CPPFLAGS += $(BASE_CPPFLAGS) -Iruntime/base/src $(call pkg_cflags,libcrypto)
LIBS += $(LIB_BASE)

# Test support linked into every test binary, never into a library: the one way a test skips
# (runtime/base/testing/tq_test.h). Each test binary lists $(TEST_SUPPORT_OBJ) among its objects
# and compiles its tests with $(TEST_SUPPORT_CPPFLAGS).
TEST_SUPPORT_OBJ := $(call objs,runtime/base/testing/tq_test.c)
TEST_SUPPORT_CPPFLAGS := -Iruntime/base/testing $(call pkg_cflags,check)
$(TEST_SUPPORT_OBJ): CPPFLAGS += $(TEST_SUPPORT_CPPFLAGS)

BASE_TEST_SRCS := $(wildcard runtime/base/tests/*.c)
$(BUILD)/tests/base-tests: $(call objs,$(BASE_TEST_SRCS)) $(TEST_SUPPORT_OBJ) $(LIB_BASE)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $^ -o $@ $(LDFLAGS) $(BASE_LDLIBS) $(call pkg_libs,check)
$(call objs,$(BASE_TEST_SRCS)): CPPFLAGS += $(BASE_CPPFLAGS) $(TEST_SUPPORT_CPPFLAGS)
TEST_BINS += $(BUILD)/tests/base-tests

# libtorq-base: status, allocation, arena, strings and buffers, files, SHA-256.
BASE_SRCS := $(wildcard runtime/base/src/*.c)
BASE_CPPFLAGS := -Iruntime/base/include
LIB_BASE := $(BUILD)/lib/libtorq-base.a
BASE_LDLIBS := $(call pkg_libs,libcrypto)

$(LIB_BASE): $(call objs,$(BASE_SRCS))
$(call objs,$(BASE_SRCS)): CPPFLAGS += $(BASE_CPPFLAGS) -Iruntime/base/src $(call pkg_cflags,libcrypto)
LIBS += $(LIB_BASE)

BASE_TEST_SRCS := $(wildcard runtime/base/tests/*.c)
$(BUILD)/tests/base-tests: $(call objs,$(BASE_TEST_SRCS)) $(LIB_BASE)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $^ -o $@ $(LDFLAGS) $(BASE_LDLIBS) $(call pkg_libs,check)
$(call objs,$(BASE_TEST_SRCS)): CPPFLAGS += $(BASE_CPPFLAGS) $(call pkg_cflags,check)
TEST_BINS += $(BUILD)/tests/base-tests

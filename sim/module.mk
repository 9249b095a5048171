# libtorq-sim owns the NPU model: the hardware description and cost model, the NPU that executes
# NSS programs by the contract of libtorq-formats, tensors and the TOSA 1.0 reference interpreter.
# Uses base and formats; the compiler and the runtime use it.
SIM_SRCS := $(wildcard sim/src/*.c)
SIM_CPPFLAGS := -Isim/include $(BASE_CPPFLAGS) $(FORMATS_CPPFLAGS)
LIB_SIM := $(BUILD)/lib/libtorq-sim.a
SIM_LDLIBS := $(FORMATS_LDLIBS) $(BASE_LDLIBS) -lm

$(LIB_SIM): $(call objs,$(SIM_SRCS))
$(call objs,$(SIM_SRCS)): CPPFLAGS += $(SIM_CPPFLAGS) -Isim/src
$(call objs,$(SIM_SRCS) $(wildcard sim/tests/*.c)): | $(FORMATS_GEN_H)
LIBS += $(LIB_SIM)

SIM_TEST_SRCS := $(wildcard sim/tests/*.c)
$(BUILD)/tests/sim-tests: $(call objs,$(SIM_TEST_SRCS)) $(TEST_SUPPORT_OBJ) $(LIB_SIM) $(LIB_FORMATS) $(LIB_BASE)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $^ -o $@ $(LDFLAGS) $(SIM_LDLIBS) $(call pkg_libs,check)
$(call objs,$(SIM_TEST_SRCS)): CPPFLAGS += $(SIM_CPPFLAGS) $(TEST_SUPPORT_CPPFLAGS)
TEST_BINS += $(BUILD)/tests/sim-tests

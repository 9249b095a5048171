# libtorq-formats: with libtorq-base, the bottom layer that every library uses (the order is
# base -> formats -> sim -> compiler, runtime -> harness). It owns the NPU contract: the module
# schema (module.proto, compiled with protoc-c into the build folder; generated code is never
# committed), its magic and version, the element types, what each kernel and DMA transfer means,
# and the NSS task-timing rule (include/torq/formats/*.h, src/*.c). Nothing else defines them.
FORMATS_PROTOS := $(wildcard runtime/formats/*.proto)
FORMATS_SRCS := $(wildcard runtime/formats/src/*.c)
FORMATS_GEN := $(BUILD)/gen
FORMATS_GEN_C := $(patsubst %.proto,$(FORMATS_GEN)/%.pb-c.c,$(FORMATS_PROTOS))
FORMATS_GEN_H := $(FORMATS_GEN_C:.c=.h)
FORMATS_CPPFLAGS := -Iruntime/formats/include -I$(FORMATS_GEN)/runtime/formats \
                    $(call pkg_cflags,libprotobuf-c)
FORMATS_LDLIBS := $(call pkg_libs,libprotobuf-c)
LIB_FORMATS := $(BUILD)/lib/libtorq-formats.a

$(FORMATS_GEN)/runtime/formats/%.pb-c.c $(FORMATS_GEN)/runtime/formats/%.pb-c.h: runtime/formats/%.proto
	@mkdir -p $(@D)
	protoc-c --proto_path=runtime/formats --c_out=$(FORMATS_GEN)/runtime/formats $<

# Generated code is not ours to warn about beyond what protoc-c emits cleanly.
$(BUILD)/obj/gen/%.o: $(FORMATS_GEN)/%.c
	@mkdir -p $(@D)
	$(CC) $(filter-out -Wmissing-prototypes -Wshadow,$(ALL_CFLAGS)) $(FORMATS_CPPFLAGS) -c $< -o $@

FORMATS_OBJS := $(patsubst $(FORMATS_GEN)/%.c,$(BUILD)/obj/gen/%.o,$(FORMATS_GEN_C))
$(LIB_FORMATS): $(FORMATS_OBJS) $(call objs,$(FORMATS_SRCS))
$(call objs,$(FORMATS_SRCS)): CPPFLAGS += $(FORMATS_CPPFLAGS) $(BASE_CPPFLAGS)
$(call objs,$(FORMATS_SRCS) $(wildcard runtime/formats/tests/*.c)): | $(FORMATS_GEN_H)
LIBS += $(LIB_FORMATS)
.SECONDARY: $(FORMATS_GEN_C) $(FORMATS_GEN_H)

FORMATS_TEST_SRCS := $(wildcard runtime/formats/tests/*.c)
$(BUILD)/tests/formats-tests: $(call objs,$(FORMATS_TEST_SRCS)) $(TEST_SUPPORT_OBJ) $(LIB_FORMATS) \
                              $(LIB_BASE)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $^ -o $@ $(LDFLAGS) $(FORMATS_LDLIBS) $(BASE_LDLIBS) $(call pkg_libs,check)
$(call objs,$(FORMATS_TEST_SRCS)): CPPFLAGS += $(FORMATS_CPPFLAGS) $(BASE_CPPFLAGS) $(TEST_SUPPORT_CPPFLAGS)
TEST_BINS += $(BUILD)/tests/formats-tests

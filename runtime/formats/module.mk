# libtorq-formats: the protobuf schemas shared by the compiler, runtime and harness, compiled with
# protoc-c into the build folder (generated code is never committed).
FORMATS_PROTOS := $(wildcard runtime/formats/*.proto)
FORMATS_GEN := $(BUILD)/gen
FORMATS_GEN_C := $(patsubst %.proto,$(FORMATS_GEN)/%.pb-c.c,$(FORMATS_PROTOS))
FORMATS_GEN_H := $(FORMATS_GEN_C:.c=.h)
FORMATS_CPPFLAGS := -I$(FORMATS_GEN)/runtime/formats $(call pkg_cflags,libprotobuf-c)
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
$(LIB_FORMATS): $(FORMATS_OBJS)
LIBS += $(LIB_FORMATS)
.SECONDARY: $(FORMATS_GEN_C) $(FORMATS_GEN_H)

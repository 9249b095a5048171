"builtin.module"() ({
  "torq.dispatch"() ({
    "torq.buffer"() {id = 0 : i64, kind = "input", size = 2048 : i64, type = "1x16x16x8xi8"} : () -> () loc(unknown)
    "torq.buffer"() {id = 1 : i64, kind = "output", size = 4096 : i64, type = "1x16x16x16xi8"} : () -> () loc(unknown)
    "torq.buffer"() {id = 2 : i64, kind = "constant", size = 1216 : i64, type = "1216xi8"} : () -> () loc(unknown)
    "torq.action"() {"torq-action-id" = 0 : i64, kind = "ALLOC", buffer = 1 : i64} : () -> () loc("conv2d_3x3_16x16x8_i8.mlir":9:12)
    "torq.action"() {"torq-action-id" = 1 : i64, kind = "ALLOC", buffer = 2 : i64} : () -> () loc("conv2d_3x3_16x16x8_i8.mlir":9:12)
    "torq.action"() {"torq-action-id" = 2 : i64, kind = "NSS_START", "torq-job-id" = 0 : i64} : () -> () loc("conv2d_3x3_16x16x8_i8.mlir":9:12)
    "torq.action"() {"torq-action-id" = 3 : i64, kind = "NSS_WAIT", "torq-job-id" = 0 : i64} : () -> () loc("conv2d_3x3_16x16x8_i8.mlir":9:12)
    "torq.action"() {"torq-action-id" = 4 : i64, kind = "NSS_START", "torq-job-id" = 1 : i64} : () -> () loc("conv2d_3x3_16x16x8_i8.mlir":9:12)
    "torq.action"() {"torq-action-id" = 5 : i64, kind = "NSS_WAIT", "torq-job-id" = 1 : i64} : () -> () loc("conv2d_3x3_16x16x8_i8.mlir":9:12)
    "torq.action"() {"torq-action-id" = 6 : i64, kind = "NSS_START", "torq-job-id" = 2 : i64} : () -> () loc("conv2d_3x3_16x16x8_i8.mlir":9:12)
    "torq.action"() {"torq-action-id" = 7 : i64, kind = "NSS_WAIT", "torq-job-id" = 2 : i64} : () -> () loc("conv2d_3x3_16x16x8_i8.mlir":9:12)
    "torq.action"() {"torq-action-id" = 8 : i64, kind = "DEALLOC", buffer = 2 : i64} : () -> () loc("conv2d_3x3_16x16x8_i8.mlir":9:12)
    "torq.nss_program"() ({
      "torq.task"() ({
        "torq.unit"() {id = "DI0", unit = "DMA_IN", kernel = "DMA_IN", start = 0 : i64, end = 471 : i64, bytes = 1856 : i64} : () -> () loc("conv2d_3x3_16x16x8_i8.mlir":9:12)
      }) {index = 0 : i64, start = 0 : i64, end = 471 : i64} : () -> () loc(unknown)
    }) {"torq-job-id" = 0 : i64, "torq-action-id" = 2 : i64, cycles = 471 : i64, kernel = "", original_operators = ["tosa.conv2d@L9", "tosa.rescale@L14", "tosa.clamp@L15"], stage = "prologue", units = ["DMA_IN"]} : () -> () loc("conv2d_3x3_16x16x8_i8.mlir":9:12)
    "torq.nss_program"() ({
      "torq.task"() ({
        "torq.unit"() {id = "DI1", unit = "DMA_IN", kernel = "DMA_IN", start = 0 : i64, end = 202 : i64, bytes = 768 : i64} : () -> () loc("conv2d_3x3_16x16x8_i8.mlir":9:12)
        "torq.unit"() {id = "S0", unit = "SLICE0", kernel = "conv2d", start = 0 : i64, end = 208 : i64, macs = 36864 : i64} : () -> () loc("conv2d_3x3_16x16x8_i8.mlir":9:12)
        "torq.unit"() {id = "S1", unit = "SLICE1", kernel = "conv2d", start = 0 : i64, end = 208 : i64, macs = 36864 : i64} : () -> () loc("conv2d_3x3_16x16x8_i8.mlir":9:12)
      }) {index = 0 : i64, start = 0 : i64, end = 208 : i64} : () -> () loc(unknown)
      "torq.task"() ({
        "torq.unit"() {id = "DI2", unit = "DMA_IN", kernel = "DMA_IN", start = 224 : i64, end = 426 : i64, bytes = 768 : i64} : () -> () loc("conv2d_3x3_16x16x8_i8.mlir":9:12)
        "torq.unit"() {id = "DO0", unit = "DMA_OUT", kernel = "DMA_OUT", start = 224 : i64, end = 480 : i64, bytes = 1024 : i64} : () -> () loc("conv2d_3x3_16x16x8_i8.mlir":9:12)
        "torq.unit"() {id = "S2", unit = "SLICE0", kernel = "conv2d", start = 224 : i64, end = 432 : i64, macs = 36864 : i64} : () -> () loc("conv2d_3x3_16x16x8_i8.mlir":9:12)
        "torq.unit"() {id = "S3", unit = "SLICE1", kernel = "conv2d", start = 224 : i64, end = 432 : i64, macs = 36864 : i64} : () -> () loc("conv2d_3x3_16x16x8_i8.mlir":9:12)
      }) {index = 1 : i64, start = 224 : i64, end = 480 : i64} : () -> () loc(unknown)
      "torq.task"() ({
        "torq.unit"() {id = "DI3", unit = "DMA_IN", kernel = "DMA_IN", start = 496 : i64, end = 671 : i64, bytes = 640 : i64} : () -> () loc("conv2d_3x3_16x16x8_i8.mlir":9:12)
        "torq.unit"() {id = "DO1", unit = "DMA_OUT", kernel = "DMA_OUT", start = 496 : i64, end = 752 : i64, bytes = 1024 : i64} : () -> () loc("conv2d_3x3_16x16x8_i8.mlir":9:12)
        "torq.unit"() {id = "S4", unit = "SLICE0", kernel = "conv2d", start = 496 : i64, end = 704 : i64, macs = 36864 : i64} : () -> () loc("conv2d_3x3_16x16x8_i8.mlir":9:12)
        "torq.unit"() {id = "S5", unit = "SLICE1", kernel = "conv2d", start = 496 : i64, end = 704 : i64, macs = 36864 : i64} : () -> () loc("conv2d_3x3_16x16x8_i8.mlir":9:12)
      }) {index = 2 : i64, start = 496 : i64, end = 752 : i64} : () -> () loc(unknown)
      "torq.task"() ({
        "torq.unit"() {id = "DO2", unit = "DMA_OUT", kernel = "DMA_OUT", start = 768 : i64, end = 1024 : i64, bytes = 1024 : i64} : () -> () loc("conv2d_3x3_16x16x8_i8.mlir":9:12)
        "torq.unit"() {id = "S6", unit = "SLICE0", kernel = "conv2d", start = 768 : i64, end = 976 : i64, macs = 36864 : i64} : () -> () loc("conv2d_3x3_16x16x8_i8.mlir":9:12)
        "torq.unit"() {id = "S7", unit = "SLICE1", kernel = "conv2d", start = 768 : i64, end = 976 : i64, macs = 36864 : i64} : () -> () loc("conv2d_3x3_16x16x8_i8.mlir":9:12)
      }) {index = 3 : i64, start = 768 : i64, end = 1024 : i64} : () -> () loc(unknown)
    }) {"torq-job-id" = 1 : i64, "torq-action-id" = 4 : i64, cycles = 1024 : i64, kernel = "conv2d", original_operators = ["tosa.conv2d@L9", "tosa.rescale@L14", "tosa.clamp@L15"], stage = "steady state", units = ["DMA_IN", "DMA_OUT", "SLICE0", "SLICE1"]} : () -> () loc("conv2d_3x3_16x16x8_i8.mlir":9:12)
    "torq.nss_program"() ({
      "torq.task"() ({
        "torq.unit"() {id = "DO3", unit = "DMA_OUT", kernel = "DMA_OUT", start = 0 : i64, end = 256 : i64, bytes = 1024 : i64} : () -> () loc("conv2d_3x3_16x16x8_i8.mlir":9:12)
      }) {index = 0 : i64, start = 0 : i64, end = 256 : i64} : () -> () loc(unknown)
    }) {"torq-job-id" = 2 : i64, "torq-action-id" = 6 : i64, cycles = 256 : i64, kernel = "", original_operators = ["tosa.conv2d@L9", "tosa.rescale@L14", "tosa.clamp@L15"], stage = "epilogue", units = ["DMA_OUT"]} : () -> () loc("conv2d_3x3_16x16x8_i8.mlir":9:12)
  }) {name = "main_dispatch_0", function = "main"} : () -> () loc(unknown)
}) : () -> () loc(unknown)

"builtin.module"() ({
  "torq.dispatch"() ({
    "torq.buffer"() {id = 0 : i64, kind = "input", size = 16384 : i64, type = "1x32x32x16xi8"} : () -> () loc(unknown)
    "torq.buffer"() {id = 1 : i64, kind = "output", size = 4096 : i64, type = "1x16x16x16xi8"} : () -> () loc(unknown)
    "torq.action"() {"torq-action-id" = 0 : i64, kind = "ALLOC", buffer = 1 : i64} : () -> () loc("maxpool_2x2_s2_32x32x16_i8.mlir":4:10)
    "torq.action"() {"torq-action-id" = 1 : i64, kind = "NSS_START", "torq-job-id" = 0 : i64} : () -> () loc("maxpool_2x2_s2_32x32x16_i8.mlir":4:10)
    "torq.action"() {"torq-action-id" = 2 : i64, kind = "NSS_WAIT", "torq-job-id" = 0 : i64} : () -> () loc("maxpool_2x2_s2_32x32x16_i8.mlir":4:10)
    "torq.action"() {"torq-action-id" = 3 : i64, kind = "NSS_START", "torq-job-id" = 1 : i64} : () -> () loc("maxpool_2x2_s2_32x32x16_i8.mlir":4:10)
    "torq.action"() {"torq-action-id" = 4 : i64, kind = "NSS_WAIT", "torq-job-id" = 1 : i64} : () -> () loc("maxpool_2x2_s2_32x32x16_i8.mlir":4:10)
    "torq.action"() {"torq-action-id" = 5 : i64, kind = "NSS_START", "torq-job-id" = 2 : i64} : () -> () loc("maxpool_2x2_s2_32x32x16_i8.mlir":4:10)
    "torq.action"() {"torq-action-id" = 6 : i64, kind = "NSS_WAIT", "torq-job-id" = 2 : i64} : () -> () loc("maxpool_2x2_s2_32x32x16_i8.mlir":4:10)
    "torq.nss_program"() ({
      "torq.task"() ({
        "torq.unit"() {id = "DI0", unit = "DMA_IN", kernel = "DMA_IN", start = 0 : i64, end = 902 : i64, bytes = 4096 : i64} : () -> () loc("maxpool_2x2_s2_32x32x16_i8.mlir":4:10)
      }) {index = 0 : i64, start = 0 : i64, end = 902 : i64} : () -> () loc(unknown)
    }) {"torq-job-id" = 0 : i64, "torq-action-id" = 1 : i64, cycles = 902 : i64, kernel = "", original_operators = ["tosa.max_pool2d@L4"], stage = "prologue", units = ["DMA_IN"]} : () -> () loc("maxpool_2x2_s2_32x32x16_i8.mlir":4:10)
    "torq.nss_program"() ({
      "torq.task"() ({
        "torq.unit"() {id = "DI1", unit = "DMA_IN", kernel = "DMA_IN", start = 0 : i64, end = 902 : i64, bytes = 4096 : i64} : () -> () loc("maxpool_2x2_s2_32x32x16_i8.mlir":4:10)
        "torq.unit"() {id = "S0", unit = "SLICE0", kernel = "max_pool2d", start = 0 : i64, end = 96 : i64, macs = 2048 : i64} : () -> () loc("maxpool_2x2_s2_32x32x16_i8.mlir":4:10)
        "torq.unit"() {id = "S1", unit = "SLICE1", kernel = "max_pool2d", start = 0 : i64, end = 96 : i64, macs = 2048 : i64} : () -> () loc("maxpool_2x2_s2_32x32x16_i8.mlir":4:10)
      }) {index = 0 : i64, start = 0 : i64, end = 902 : i64} : () -> () loc(unknown)
      "torq.task"() ({
        "torq.unit"() {id = "DI2", unit = "DMA_IN", kernel = "DMA_IN", start = 918 : i64, end = 1820 : i64, bytes = 4096 : i64} : () -> () loc("maxpool_2x2_s2_32x32x16_i8.mlir":4:10)
        "torq.unit"() {id = "DO0", unit = "DMA_OUT", kernel = "DMA_OUT", start = 918 : i64, end = 1174 : i64, bytes = 1024 : i64} : () -> () loc("maxpool_2x2_s2_32x32x16_i8.mlir":4:10)
        "torq.unit"() {id = "S2", unit = "SLICE0", kernel = "max_pool2d", start = 918 : i64, end = 1014 : i64, macs = 2048 : i64} : () -> () loc("maxpool_2x2_s2_32x32x16_i8.mlir":4:10)
        "torq.unit"() {id = "S3", unit = "SLICE1", kernel = "max_pool2d", start = 918 : i64, end = 1014 : i64, macs = 2048 : i64} : () -> () loc("maxpool_2x2_s2_32x32x16_i8.mlir":4:10)
      }) {index = 1 : i64, start = 918 : i64, end = 1820 : i64} : () -> () loc(unknown)
      "torq.task"() ({
        "torq.unit"() {id = "DI3", unit = "DMA_IN", kernel = "DMA_IN", start = 1836 : i64, end = 2738 : i64, bytes = 4096 : i64} : () -> () loc("maxpool_2x2_s2_32x32x16_i8.mlir":4:10)
        "torq.unit"() {id = "DO1", unit = "DMA_OUT", kernel = "DMA_OUT", start = 1836 : i64, end = 2092 : i64, bytes = 1024 : i64} : () -> () loc("maxpool_2x2_s2_32x32x16_i8.mlir":4:10)
        "torq.unit"() {id = "S4", unit = "SLICE0", kernel = "max_pool2d", start = 1836 : i64, end = 1932 : i64, macs = 2048 : i64} : () -> () loc("maxpool_2x2_s2_32x32x16_i8.mlir":4:10)
        "torq.unit"() {id = "S5", unit = "SLICE1", kernel = "max_pool2d", start = 1836 : i64, end = 1932 : i64, macs = 2048 : i64} : () -> () loc("maxpool_2x2_s2_32x32x16_i8.mlir":4:10)
      }) {index = 2 : i64, start = 1836 : i64, end = 2738 : i64} : () -> () loc(unknown)
      "torq.task"() ({
        "torq.unit"() {id = "DO2", unit = "DMA_OUT", kernel = "DMA_OUT", start = 2754 : i64, end = 3010 : i64, bytes = 1024 : i64} : () -> () loc("maxpool_2x2_s2_32x32x16_i8.mlir":4:10)
        "torq.unit"() {id = "S6", unit = "SLICE0", kernel = "max_pool2d", start = 2754 : i64, end = 2850 : i64, macs = 2048 : i64} : () -> () loc("maxpool_2x2_s2_32x32x16_i8.mlir":4:10)
        "torq.unit"() {id = "S7", unit = "SLICE1", kernel = "max_pool2d", start = 2754 : i64, end = 2850 : i64, macs = 2048 : i64} : () -> () loc("maxpool_2x2_s2_32x32x16_i8.mlir":4:10)
      }) {index = 3 : i64, start = 2754 : i64, end = 3010 : i64} : () -> () loc(unknown)
    }) {"torq-job-id" = 1 : i64, "torq-action-id" = 3 : i64, cycles = 3010 : i64, kernel = "max_pool2d", original_operators = ["tosa.max_pool2d@L4"], stage = "steady state", units = ["DMA_IN", "DMA_OUT", "SLICE0", "SLICE1"]} : () -> () loc("maxpool_2x2_s2_32x32x16_i8.mlir":4:10)
    "torq.nss_program"() ({
      "torq.task"() ({
        "torq.unit"() {id = "DO3", unit = "DMA_OUT", kernel = "DMA_OUT", start = 0 : i64, end = 256 : i64, bytes = 1024 : i64} : () -> () loc("maxpool_2x2_s2_32x32x16_i8.mlir":4:10)
      }) {index = 0 : i64, start = 0 : i64, end = 256 : i64} : () -> () loc(unknown)
    }) {"torq-job-id" = 2 : i64, "torq-action-id" = 5 : i64, cycles = 256 : i64, kernel = "", original_operators = ["tosa.max_pool2d@L4"], stage = "epilogue", units = ["DMA_OUT"]} : () -> () loc("maxpool_2x2_s2_32x32x16_i8.mlir":4:10)
  }) {name = "main_dispatch_0", function = "main"} : () -> () loc(unknown)
}) : () -> () loc(unknown)

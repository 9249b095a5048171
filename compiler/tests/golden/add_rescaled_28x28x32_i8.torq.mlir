"builtin.module"() ({
  "torq.dispatch"() ({
    "torq.buffer"() {id = 0 : i64, kind = "input", size = 25088 : i64, type = "1x28x28x32xi8"} : () -> () loc(unknown)
    "torq.buffer"() {id = 1 : i64, kind = "input", size = 25088 : i64, type = "1x28x28x32xi8"} : () -> () loc(unknown)
    "torq.buffer"() {id = 2 : i64, kind = "buffer", size = 100352 : i64, type = "1x28x28x32xi32"} : () -> () loc(unknown)
    "torq.buffer"() {id = 3 : i64, kind = "buffer", size = 100352 : i64, type = "1x28x28x32xi32"} : () -> () loc(unknown)
    "torq.buffer"() {id = 4 : i64, kind = "buffer", size = 100352 : i64, type = "1x28x28x32xi32"} : () -> () loc(unknown)
    "torq.buffer"() {id = 5 : i64, kind = "output", size = 25088 : i64, type = "1x28x28x32xi8"} : () -> () loc(unknown)
    "torq.action"() {"torq-action-id" = 0 : i64, kind = "ALLOC", buffer = 2 : i64} : () -> () loc("add_rescaled_28x28x32_i8.mlir":10:10)
    "torq.action"() {"torq-action-id" = 1 : i64, kind = "NSS_START", "torq-job-id" = 0 : i64} : () -> () loc("add_rescaled_28x28x32_i8.mlir":10:10)
    "torq.action"() {"torq-action-id" = 2 : i64, kind = "NSS_WAIT", "torq-job-id" = 0 : i64} : () -> () loc("add_rescaled_28x28x32_i8.mlir":10:10)
    "torq.action"() {"torq-action-id" = 3 : i64, kind = "ALLOC", buffer = 3 : i64} : () -> () loc("add_rescaled_28x28x32_i8.mlir":11:10)
    "torq.action"() {"torq-action-id" = 4 : i64, kind = "NSS_START", "torq-job-id" = 1 : i64} : () -> () loc("add_rescaled_28x28x32_i8.mlir":11:10)
    "torq.action"() {"torq-action-id" = 5 : i64, kind = "NSS_WAIT", "torq-job-id" = 1 : i64} : () -> () loc("add_rescaled_28x28x32_i8.mlir":11:10)
    "torq.action"() {"torq-action-id" = 6 : i64, kind = "ALLOC", buffer = 4 : i64} : () -> () loc("add_rescaled_28x28x32_i8.mlir":12:12)
    "torq.action"() {"torq-action-id" = 7 : i64, kind = "NSS_START", "torq-job-id" = 2 : i64} : () -> () loc("add_rescaled_28x28x32_i8.mlir":12:12)
    "torq.action"() {"torq-action-id" = 8 : i64, kind = "NSS_WAIT", "torq-job-id" = 2 : i64} : () -> () loc("add_rescaled_28x28x32_i8.mlir":12:12)
    "torq.action"() {"torq-action-id" = 9 : i64, kind = "DEALLOC", buffer = 2 : i64} : () -> () loc("add_rescaled_28x28x32_i8.mlir":12:12)
    "torq.action"() {"torq-action-id" = 10 : i64, kind = "DEALLOC", buffer = 3 : i64} : () -> () loc("add_rescaled_28x28x32_i8.mlir":12:12)
    "torq.action"() {"torq-action-id" = 11 : i64, kind = "ALLOC", buffer = 5 : i64} : () -> () loc("add_rescaled_28x28x32_i8.mlir":16:10)
    "torq.action"() {"torq-action-id" = 12 : i64, kind = "NSS_START", "torq-job-id" = 3 : i64} : () -> () loc("add_rescaled_28x28x32_i8.mlir":16:10)
    "torq.action"() {"torq-action-id" = 13 : i64, kind = "NSS_WAIT", "torq-job-id" = 3 : i64} : () -> () loc("add_rescaled_28x28x32_i8.mlir":16:10)
    "torq.action"() {"torq-action-id" = 14 : i64, kind = "DEALLOC", buffer = 4 : i64} : () -> () loc("add_rescaled_28x28x32_i8.mlir":16:10)
    "torq.nss_program"() ({
      "torq.task"() ({
        "torq.unit"() {id = "DI0", unit = "DMA_IN", kernel = "DMA_IN", start = 0 : i64, end = 5277 : i64, bytes = 25088 : i64} : () -> () loc("add_rescaled_28x28x32_i8.mlir":10:10)
      }) {index = 0 : i64, start = 0 : i64, end = 5277 : i64} : () -> () loc(unknown)
      "torq.task"() ({
        "torq.unit"() {id = "S0", unit = "SLICE0", kernel = "rescale", start = 5293 : i64, end = 6141 : i64, macs = 12544 : i64} : () -> () loc("add_rescaled_28x28x32_i8.mlir":10:10)
        "torq.unit"() {id = "S1", unit = "SLICE1", kernel = "rescale", start = 5293 : i64, end = 6141 : i64, macs = 12544 : i64} : () -> () loc("add_rescaled_28x28x32_i8.mlir":10:10)
      }) {index = 1 : i64, start = 5293 : i64, end = 6141 : i64} : () -> () loc(unknown)
      "torq.task"() ({
        "torq.unit"() {id = "DO0", unit = "DMA_OUT", kernel = "DMA_OUT", start = 6157 : i64, end = 27265 : i64, bytes = 100352 : i64} : () -> () loc("add_rescaled_28x28x32_i8.mlir":10:10)
      }) {index = 2 : i64, start = 6157 : i64, end = 27265 : i64} : () -> () loc(unknown)
    }) {"torq-job-id" = 0 : i64, "torq-action-id" = 1 : i64, cycles = 27265 : i64, kernel = "rescale", original_operators = ["tosa.rescale@L10"], units = ["DMA_IN", "DMA_OUT", "SLICE0", "SLICE1"]} : () -> () loc("add_rescaled_28x28x32_i8.mlir":10:10)
    "torq.nss_program"() ({
      "torq.task"() ({
        "torq.unit"() {id = "DI1", unit = "DMA_IN", kernel = "DMA_IN", start = 0 : i64, end = 5277 : i64, bytes = 25088 : i64} : () -> () loc("add_rescaled_28x28x32_i8.mlir":11:10)
      }) {index = 0 : i64, start = 0 : i64, end = 5277 : i64} : () -> () loc(unknown)
      "torq.task"() ({
        "torq.unit"() {id = "S2", unit = "SLICE0", kernel = "rescale", start = 5293 : i64, end = 6141 : i64, macs = 12544 : i64} : () -> () loc("add_rescaled_28x28x32_i8.mlir":11:10)
        "torq.unit"() {id = "S3", unit = "SLICE1", kernel = "rescale", start = 5293 : i64, end = 6141 : i64, macs = 12544 : i64} : () -> () loc("add_rescaled_28x28x32_i8.mlir":11:10)
      }) {index = 1 : i64, start = 5293 : i64, end = 6141 : i64} : () -> () loc(unknown)
      "torq.task"() ({
        "torq.unit"() {id = "DO1", unit = "DMA_OUT", kernel = "DMA_OUT", start = 6157 : i64, end = 27265 : i64, bytes = 100352 : i64} : () -> () loc("add_rescaled_28x28x32_i8.mlir":11:10)
      }) {index = 2 : i64, start = 6157 : i64, end = 27265 : i64} : () -> () loc(unknown)
    }) {"torq-job-id" = 1 : i64, "torq-action-id" = 4 : i64, cycles = 27265 : i64, kernel = "rescale", original_operators = ["tosa.rescale@L11"], units = ["DMA_IN", "DMA_OUT", "SLICE0", "SLICE1"]} : () -> () loc("add_rescaled_28x28x32_i8.mlir":11:10)
    "torq.nss_program"() ({
      "torq.task"() ({
        "torq.unit"() {id = "DI2", unit = "DMA_IN", kernel = "DMA_IN", start = 0 : i64, end = 21108 : i64, bytes = 100352 : i64} : () -> () loc("add_rescaled_28x28x32_i8.mlir":12:12)
      }) {index = 0 : i64, start = 0 : i64, end = 21108 : i64} : () -> () loc(unknown)
      "torq.task"() ({
        "torq.unit"() {id = "DI3", unit = "DMA_IN", kernel = "DMA_IN", start = 21124 : i64, end = 42232 : i64, bytes = 100352 : i64} : () -> () loc("add_rescaled_28x28x32_i8.mlir":12:12)
        "torq.unit"() {id = "S4", unit = "SLICE0", kernel = "add", start = 21124 : i64, end = 21580 : i64, macs = 6272 : i64} : () -> () loc("add_rescaled_28x28x32_i8.mlir":12:12)
        "torq.unit"() {id = "S5", unit = "SLICE1", kernel = "add", start = 21124 : i64, end = 21580 : i64, macs = 6272 : i64} : () -> () loc("add_rescaled_28x28x32_i8.mlir":12:12)
      }) {index = 1 : i64, start = 21124 : i64, end = 42232 : i64} : () -> () loc(unknown)
      "torq.task"() ({
        "torq.unit"() {id = "DO2", unit = "DMA_OUT", kernel = "DMA_OUT", start = 42248 : i64, end = 52802 : i64, bytes = 50176 : i64} : () -> () loc("add_rescaled_28x28x32_i8.mlir":12:12)
        "torq.unit"() {id = "S6", unit = "SLICE0", kernel = "add", start = 42248 : i64, end = 42704 : i64, macs = 6272 : i64} : () -> () loc("add_rescaled_28x28x32_i8.mlir":12:12)
        "torq.unit"() {id = "S7", unit = "SLICE1", kernel = "add", start = 42248 : i64, end = 42704 : i64, macs = 6272 : i64} : () -> () loc("add_rescaled_28x28x32_i8.mlir":12:12)
      }) {index = 2 : i64, start = 42248 : i64, end = 52802 : i64} : () -> () loc(unknown)
      "torq.task"() ({
        "torq.unit"() {id = "DO3", unit = "DMA_OUT", kernel = "DMA_OUT", start = 52818 : i64, end = 63372 : i64, bytes = 50176 : i64} : () -> () loc("add_rescaled_28x28x32_i8.mlir":12:12)
      }) {index = 3 : i64, start = 52818 : i64, end = 63372 : i64} : () -> () loc(unknown)
    }) {"torq-job-id" = 2 : i64, "torq-action-id" = 7 : i64, cycles = 63372 : i64, kernel = "add", original_operators = ["tosa.add@L12"], units = ["DMA_IN", "DMA_OUT", "SLICE0", "SLICE1"]} : () -> () loc("add_rescaled_28x28x32_i8.mlir":12:12)
    "torq.nss_program"() ({
      "torq.task"() ({
        "torq.unit"() {id = "DI4", unit = "DMA_IN", kernel = "DMA_IN", start = 0 : i64, end = 21108 : i64, bytes = 100352 : i64} : () -> () loc("add_rescaled_28x28x32_i8.mlir":16:10)
      }) {index = 0 : i64, start = 0 : i64, end = 21108 : i64} : () -> () loc(unknown)
      "torq.task"() ({
        "torq.unit"() {id = "S8", unit = "SLICE0", kernel = "rescale", start = 21124 : i64, end = 21972 : i64, macs = 12544 : i64} : () -> () loc("add_rescaled_28x28x32_i8.mlir":16:10)
        "torq.unit"() {id = "S9", unit = "SLICE1", kernel = "rescale", start = 21124 : i64, end = 21972 : i64, macs = 12544 : i64} : () -> () loc("add_rescaled_28x28x32_i8.mlir":16:10)
      }) {index = 1 : i64, start = 21124 : i64, end = 21972 : i64} : () -> () loc(unknown)
      "torq.task"() ({
        "torq.unit"() {id = "DO4", unit = "DMA_OUT", kernel = "DMA_OUT", start = 21988 : i64, end = 27265 : i64, bytes = 25088 : i64} : () -> () loc("add_rescaled_28x28x32_i8.mlir":16:10)
      }) {index = 2 : i64, start = 21988 : i64, end = 27265 : i64} : () -> () loc(unknown)
    }) {"torq-job-id" = 3 : i64, "torq-action-id" = 12 : i64, cycles = 27265 : i64, kernel = "rescale", original_operators = ["tosa.rescale@L16"], units = ["DMA_IN", "DMA_OUT", "SLICE0", "SLICE1"]} : () -> () loc("add_rescaled_28x28x32_i8.mlir":16:10)
  }) {name = "main_dispatch_0", function = "main"} : () -> () loc(unknown)
}) : () -> () loc(unknown)

// Attribute spellings of older MLIR releases, which MLIR 22 rejects: enum attributes written as
// strings (rounding_mode = "DOUBLE_ROUND", nan_mode = "PROPAGATE", mode = "NEAREST_NEIGHBOR").
// They are normalised on read, so that the printed form is MLIR 22's and mlir-opt-22 accepts it.
module {
  func.func @main(%x: tensor<1x4x5x3xi32>, %y: tensor<1x4x5x3xf32>) -> (tensor<1x4x5x3xi8>, tensor<1x4x5x3xf32>, tensor<1x8x10x3xf32>) {
    %m = "tosa.const"() <{values = dense<1431655765> : tensor<1xi32>}> : () -> tensor<1xi32>
    %s = "tosa.const"() <{values = dense<40> : tensor<1xi8>}> : () -> tensor<1xi8>
    %izp = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
    %ozp = "tosa.const"() <{values = dense<-3> : tensor<1xi8>}> : () -> tensor<1xi8>
    %0 = tosa.rescale %x, %m, %s, %izp, %ozp {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = "DOUBLE_ROUND", scale32 = true} : (tensor<1x4x5x3xi32>, tensor<1xi32>, tensor<1xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x4x5x3xi8>
    %1 = tosa.clamp %y {max_val = 5.000000e-01 : f32, min_val = -2.500000e-01 : f32, nan_mode = "PROPAGATE"} : (tensor<1x4x5x3xf32>) -> tensor<1x4x5x3xf32>
    %scale = tosa.const_shape {values = dense<[2, 1, 2, 1]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %offset = tosa.const_shape {values = dense<0> : tensor<2xindex>} : () -> !tosa.shape<2>
    %border = tosa.const_shape {values = dense<[1, 1]> : tensor<2xindex>} : () -> !tosa.shape<2>
    %2 = tosa.resize %y, %scale, %offset, %border {mode = "NEAREST_NEIGHBOR"} : (tensor<1x4x5x3xf32>, !tosa.shape<4>, !tosa.shape<2>, !tosa.shape<2>) -> tensor<1x8x10x3xf32>
    return %0, %1, %2 : tensor<1x4x5x3xi8>, tensor<1x4x5x3xf32>, tensor<1x8x10x3xf32>
  }
}

#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d1)>
#map2 = affine_map<(d0, d1) -> (d0)>
// linalg.generic in its custom form beside TOSA: an elementwise body with a broadcast operand,
// a comparison and a select, a bf16 -> f32 extension, and a reduction over rows.
module {
  func.func @main(%x: tensor<4x9xbf16>, %g: tensor<9xf32>) -> (tensor<4x9xf32>, tensor<4xf32>) {
    %e = tensor.empty() : tensor<4x9xf32>
    %scaled = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%x, %g : tensor<4x9xbf16>, tensor<9xf32>) outs(%e : tensor<4x9xf32>) {
    ^bb0(%in: bf16, %gain: f32, %out: f32):
      %zero = arith.constant 0.000000e+00 : f32
      %wide = arith.extf %in : bf16 to f32
      %prod = arith.mulf %wide, %gain : f32
      %pos = arith.cmpf ogt, %prod, %zero : f32
      %relu = arith.select %pos, %prod, %zero : f32
      linalg.yield %relu : f32
    } -> tensor<4x9xf32>
    %r = tosa.abs %scaled : (tensor<4x9xf32>) -> tensor<4x9xf32>
    %zero = arith.constant 0.000000e+00 : f32
    %e2 = tensor.empty() : tensor<4xf32>
    %acc = linalg.fill ins(%zero : f32) outs(%e2 : tensor<4xf32>) -> tensor<4xf32>
    %sum = linalg.generic {indexing_maps = [#map, #map2], iterator_types = ["parallel", "reduction"]} ins(%r : tensor<4x9xf32>) outs(%acc : tensor<4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %s = arith.addf %in, %out : f32
      linalg.yield %s : f32
    } -> tensor<4xf32>
    return %r, %sum : tensor<4x9xf32>, tensor<4xf32>
  }
}

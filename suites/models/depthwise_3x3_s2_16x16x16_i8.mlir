// Smoke model (ours): 3x3 depthwise convolution, stride 2, per-channel requantization.
module {
  func.func @main(%arg0: tensor<1x16x16x16xi8>) -> tensor<1x8x8x16xi8> {
    %w = "tosa.const"() <{values = dense<"0x2496873B9EC3B0122F137EA6A6A7F5A840F4A617FAFDD45F7CC8E2EBA57D728F88412C2D1CD687A2E51EEAF1E9E0A49E35781D8C7150315AF700BBB002EADBCB29B284AB618FEDE0970B7A22DFEE381778B8D50925A844316C8A0A3FFFA31640178B26B3530F774F90889C9F048550D3ED229C746477FC4F03CF3D90052FB44D50D33FD60C0A753EE1FEA58C8DE828EF"> : tensor<3x3x16x1xi8>}> : () -> tensor<3x3x16x1xi8>
    %b = "tosa.const"() <{values = dense<[-201, -239, 35, 52, 269, -300, 178, -430, -44, -231, -290, 211, -304, -151, 397, -54]> : tensor<16xi32>}> : () -> tensor<16xi32>
    %zp = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
    %acc = tosa.depthwise_conv2d %arg0, %w, %b, %zp, %zp {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 1, 0, 1>, stride = array<i64: 2, 2>} : (tensor<1x16x16x16xi8>, tensor<3x3x16x1xi8>, tensor<16xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x8x8x16xi32>
    %m = "tosa.const"() <{values = dense<[1857107054, 1822483572, 1148704657, 1357319013, 1196596809, 1527245609, 1688004195, 1311111634, 1367929248, 1786720916, 1777522668, 1179868540, 1936978102, 1899294694, 1866793672, 1631923323]> : tensor<16xi32>}> : () -> tensor<16xi32>
    %s = "tosa.const"() <{values = dense<[40, 40, 38, 39, 40, 38, 39, 39, 41, 38, 39, 39, 42, 42, 41, 38]> : tensor<16xi8>}> : () -> tensor<16xi8>
    %zp32 = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
    %q = tosa.rescale %acc, %m, %s, %zp32, %zp {input_unsigned = false, output_unsigned = false, per_channel = true, rounding_mode = DOUBLE_ROUND, scale32 = true} : (tensor<1x8x8x16xi32>, tensor<16xi32>, tensor<16xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x8x8x16xi8>
    return %q : tensor<1x8x8x16xi8>
  }
}

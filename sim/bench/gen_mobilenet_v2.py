#!/usr/bin/python3
"""Writes an int8 MobileNetV2 (Sandler et al. 2018, width 1.0) as TOSA MLIR, for scripts/bench-sim.

usage: sim/bench/gen_mobilenet_v2.py [--size N] [--width W] OUT.mlir

The network of the paper's table 2 on an N x N x 3 input (224 by default: about 300 M MACs):
a 3x3 stride-2 convolution, the 17 inverted residual blocks (1x1 expansion, 3x3 depthwise, 1x1
projection; a residual add where the shape allows), a 1x1 convolution to 1280 channels, global
average pooling and a 1000-way fully connected layer (a 1x1 convolution). Quantized the way
TFLite models reach TOSA: int8 activations with zero point -128 after a ReLU6, int8 weights with
zero point 0, int32 bias, per-channel DOUBLE_ROUND rescale to int8, ReLU6 as a clamp, residual
adds through int32 rescales. Channel counts are multiplied by W (rounded to multiples of 8, as
the paper's code does) and the last convolution keeps 1280 channels.

Weights, biases and scales are seeded pseudo-random (the same file every time): the scales keep
the activations spread over the int8 range rather than saturated, so the simulator does the
work of a trained model, not of a constant one.
"""
import math
import random
import sys

# (expansion t, output channels c, repeats n, first stride s): table 2 of the paper.
BLOCKS = [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1),
          (6, 160, 3, 2), (6, 320, 1, 1)]


def make_divisible(v, divisor=8):
    new = max(divisor, int(v + divisor / 2) // divisor * divisor)
    return new + divisor if new < 0.9 * v else new


class Writer:
    def __init__(self, size, width):
        self.rng = random.Random(20181213)
        self.lines = []
        self.n = 0
        self.macs = 0
        self.size = size
        self.width = width

    def name(self, stem):
        self.n += 1
        return f'%{stem}{self.n}'

    def emit(self, line):
        self.lines.append('    ' + line)

    def const(self, stem, ty, values):
        v = self.name(stem)
        self.emit(f'{v} = "tosa.const"() <{{values = {values} : {ty}}}> : () -> {ty}')
        return v

    def scalar(self, value, ty):
        return self.const('c', f'tensor<1x{ty}>', f'dense<{value}>')

    def weights(self, dims):
        count = math.prod(dims)
        data = bytes(self.rng.randrange(256) for _ in range(count))
        ty = 'tensor<' + 'x'.join(map(str, dims)) + 'xi8>'
        return self.const('w', ty, f'dense<"0x{data.hex().upper()}">'), ty

    def rescale_params(self, channels, taps):
        """Per-channel multiplier and shift for an accumulator of `taps` products."""
        mults, shifts = [], []
        for _ in range(channels):
            # Inputs spread about +-70 around their zero point, weights about +-73: a sum of
            # `taps` products has a deviation near 5000 sqrt(taps); bring it to about 40.
            scale = 40.0 / (5000.0 * math.sqrt(taps)) * self.rng.uniform(0.7, 1.4)
            m, e = math.frexp(scale)
            mults.append(min(int(round(m * (1 << 31))), (1 << 31) - 1))
            shifts.append(31 - e)
        return mults, shifts

    def conv(self, x, shape, out_c, k, stride, depthwise=False, relu=True):
        _, h, w, c = shape
        pad = (k // 2, k // 2, k // 2, k // 2)
        if stride == 2:
            # TFLite SAME padding on an even input: nothing before, one after.
            pad = (0, 1, 0, 1) if h % 2 == 0 else (1, 1, 1, 1)
        oh = (h + pad[0] + pad[1] - k) // stride + 1
        ow = (w + pad[2] + pad[3] - k) // stride + 1
        if depthwise:
            wv, wty = self.weights([k, k, c, 1])
            out_c = c
            taps = k * k
        else:
            wv, wty = self.weights([out_c, k, k, c])
            taps = k * k * c
        self.macs += oh * ow * out_c * taps
        bias = [self.rng.randrange(-2000, 2001) for _ in range(out_c)]
        bv = self.const('b', f'tensor<{out_c}xi32>', f'dense<[{", ".join(map(str, bias))}]>')
        izp = self.scalar(-128, 'i8')
        wzp = self.scalar(0, 'i8')
        op = 'tosa.depthwise_conv2d' if depthwise else 'tosa.conv2d'
        in_ty = f'tensor<1x{h}x{w}x{c}xi8>'
        acc_ty = f'tensor<1x{oh}x{ow}x{out_c}xi32>'
        acc = self.name('acc')
        self.emit(f'{acc} = {op} {x}, {wv}, {bv}, {izp}, {wzp} {{acc_type = i32, dilation = '
                  f'array<i64: 1, 1>, pad = array<i64: {", ".join(map(str, pad))}>, stride = '
                  f'array<i64: {stride}, {stride}>}} : ({in_ty}, {wty}, tensor<{out_c}xi32>, '
                  f'tensor<1xi8>, tensor<1xi8>) -> {acc_ty}')
        mults, shifts = self.rescale_params(out_c, taps)
        mv = self.const('m', f'tensor<{out_c}xi32>', f'dense<[{", ".join(map(str, mults))}]>')
        sv = self.const('s', f'tensor<{out_c}xi8>', f'dense<[{", ".join(map(str, shifts))}]>')
        zp32 = self.scalar(0, 'i32')
        ozp = self.scalar(-128 if relu else self.rng.randrange(-8, 9), 'i8')
        out_ty = f'tensor<1x{oh}x{ow}x{out_c}xi8>'
        q = self.name('q')
        self.emit(f'{q} = tosa.rescale {acc}, {mv}, {sv}, {zp32}, {ozp} {{input_unsigned = false, '
                  f'output_unsigned = false, per_channel = true, rounding_mode = DOUBLE_ROUND, '
                  f'scale32 = true}} : ({acc_ty}, tensor<{out_c}xi32>, tensor<{out_c}xi8>, '
                  f'tensor<1xi32>, tensor<1xi8>) -> {out_ty}')
        if relu:
            r = self.name('r')
            # ReLU6 in the quantized domain: [zero point, zero point + 6 / scale].
            self.emit(f'{r} = tosa.clamp {q} {{max_val = 100 : i8, min_val = -128 : i8}} : '
                      f'({out_ty}) -> {out_ty}')
            q = r
        return q, (1, oh, ow, out_c)

    def add(self, a, b, shape):
        ty8 = 'tensor<' + 'x'.join(map(str, shape)) + 'xi8>'
        ty32 = 'tensor<' + 'x'.join(map(str, shape)) + 'xi32>'
        one = self.scalar(1 << 30, 'i32')
        s10 = self.scalar(10, 'i8')
        zp32 = self.scalar(0, 'i32')
        parts = []
        for v in (a, b):
            zp = self.scalar(self.rng.randrange(-8, 9), 'i8')
            w = self.name('a')
            self.emit(f'{w} = tosa.rescale {v}, {one}, {s10}, {zp}, {zp32} {{input_unsigned = '
                      f'false, output_unsigned = false, per_channel = false, rounding_mode = '
                      f'DOUBLE_ROUND, scale32 = true}} : ({ty8}, tensor<1xi32>, tensor<1xi8>, '
                      f'tensor<1xi8>, tensor<1xi32>) -> {ty32}')
            parts.append(w)
        s = self.name('sum')
        self.emit(f'{s} = tosa.add {parts[0]}, {parts[1]} : ({ty32}, {ty32}) -> {ty32}')
        m = self.scalar(1518500250, 'i32')
        sh = self.scalar(51, 'i8')
        ozp = self.scalar(self.rng.randrange(-8, 9), 'i8')
        q = self.name('q')
        self.emit(f'{q} = tosa.rescale {s}, {m}, {sh}, {zp32}, {ozp} {{input_unsigned = false, '
                  f'output_unsigned = false, per_channel = false, rounding_mode = SINGLE_ROUND, '
                  f'scale32 = true}} : ({ty32}, tensor<1xi32>, tensor<1xi8>, tensor<1xi32>, '
                  f'tensor<1xi8>) -> {ty8}')
        return q

    def network(self):
        shape = (1, self.size, self.size, 3)
        x, shape = self.conv('%arg0', shape, make_divisible(32 * self.width), 3, 2)
        for t, c, n, s in BLOCKS:
            out_c = make_divisible(c * self.width)
            for i in range(n):
                stride = s if i == 0 else 1
                inp, in_shape = x, shape
                if t != 1:
                    x, shape = self.conv(x, shape, in_shape[3] * t, 1, 1)
                x, shape = self.conv(x, shape, 0, 3, stride, depthwise=True)
                x, shape = self.conv(x, shape, out_c, 1, 1, relu=False)
                if stride == 1 and in_shape == shape:
                    x = self.add(inp, x, shape)
        last = make_divisible(1280 * max(1.0, self.width))
        x, shape = self.conv(x, shape, last, 1, 1)
        _, h, w, c = shape
        zp = self.scalar(-128, 'i8')
        p = self.name('pool')
        self.emit(f'{p} = tosa.avg_pool2d {x}, {zp}, {zp} {{acc_type = i32, kernel = array<i64: '
                  f'{h}, {w}>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>}} : '
                  f'(tensor<1x{h}x{w}x{c}xi8>, tensor<1xi8>, tensor<1xi8>) -> '
                  f'tensor<1x1x1x{c}xi8>')
        return self.conv(p, (1, 1, 1, c), 1000, 1, 1, relu=False)

    def text(self):
        y, shape = self.network()
        out_ty = 'tensor<' + 'x'.join(map(str, shape)) + 'xi8>'
        head = [f'// MobileNetV2 {self.width:g} at {self.size}x{self.size}, int8, seeded weights '
                f'({self.macs} MACs): written by sim/bench/gen_mobilenet_v2.py.',
                'module {',
                f'  func.func @main(%arg0: tensor<1x{self.size}x{self.size}x3xi8>) -> {out_ty} {{']
        return '\n'.join(head + self.lines + [f'    return {y} : {out_ty}', '  }', '}', ''])


def main(argv):
    size, width, args = 224, 1.0, argv[1:]
    try:
        while len(args) > 1 and args[0] in ('--size', '--width'):
            if args[0] == '--size':
                size = int(args[1])
            else:
                width = float(args[1])
            args = args[2:]
    except ValueError:
        args = []
    if len(args) != 1 or args[0].startswith('-') or size < 32 or size % 32 or width <= 0:
        sys.stderr.write(__doc__)
        return 2
    w = Writer(size, width)
    text = w.text()
    with open(args[0], 'w') as f:
        f.write(text)
    print(w.macs)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))

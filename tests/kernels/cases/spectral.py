"""Cases for dft (src/kernels/spectral.cpp): ONNX's DFT along `axis` of a
signal [..., n, 1] (real) or [..., n, 2] (complex), to [..., bins, 2].

The reference is numpy's FFT in float64 (np.fft.fft / np.fft.ifft with n
points: a longer signal truncated, a shorter one padded with zeros), the
first n // 2 + 1 frequencies when onesided. Lengths cover the FFT's radices:
powers of two (512), mixed (400 = 2^4 5^2, 12, 30), primes (7, 97) and 1;
perms hand the kernel a strided signal. The second output is the kernel's
workspace (8 n doubles), which it leaves zero.
"""
import numpy as np

from common import case

rng = np.random.default_rng(2017)


def signal(shape, dtype=np.float32):
    return rng.standard_normal(shape).astype(dtype)


def reference(x, axis, length=0, inverse=False, onesided=False):
    """numpy's transform of x ([..., n, c], c = 1 or 2) along axis, as [..., bins, 2] float64."""
    x = x.astype(np.float64)
    z = x[..., 0] + 1j * x[..., 1] if x.shape[-1] == 2 else x[..., 0].astype(np.complex128)
    n = length or z.shape[axis]
    y = np.fft.ifft(z, n=n, axis=axis) if inverse else np.fft.fft(z, n=n, axis=axis)
    if onesided:
        y = np.take(y, np.arange(n // 2 + 1), axis=axis)
    return np.stack([y.real, y.imag], axis=-1), n


def dft(name, x, axis, length=0, inverse=False, onesided=False, perm=None):
    seen = x if perm is None else x.transpose(perm)
    y, n = reference(seen, axis, length, inverse, onesided)
    scale = 1.0 if inverse else np.sqrt(n)
    tol = 1e-12 * scale if x.dtype == np.float64 else 2e-6 * scale
    return case(name, "dft", [x],
                {"axis": axis, "length": length, "inverse": inverse, "onesided": onesided},
                [y.astype(x.dtype), np.zeros(8 * n, np.float64)],
                perms=None if perm is None else [perm], atol=tol, rtol=1e-5)


def cases():
    out = [
        # ONNX's own layout: [batch, n, 1] real, along axis 1.
        dft("real_10", signal((1, 10, 1)), 1),
        dft("real_onesided_400", signal((2, 400, 1)), 1, onesided=True),
        dft("real_onesided_512", signal((3, 512, 1)), 1, onesided=True),
        dft("real_onesided_odd_97", signal((2, 97, 1)), 1, onesided=True),
        dft("real_prime_7", signal((4, 7, 1)), 1),
        dft("real_one_point", signal((3, 1, 1)), 1),
        # Complex input, inner dims after the axis, axis 0 and 2.
        dft("complex_axis1_30", signal((2, 30, 3, 2)), 1),
        dft("complex_axis0_12", signal((12, 5, 2)), 0),
        dft("complex_axis2", signal((2, 3, 16, 2)), 2),
        dft("inverse_complex_400", signal((2, 400, 2)), 1, inverse=True),
        dft("inverse_real_9", signal((1, 9, 1)), 1, inverse=True),
        # length: padding with zeros and truncating.
        dft("length_padded_10_to_16", signal((2, 10, 1)), 1, length=16),
        dft("length_truncated_20_to_12", signal((2, 20, 2)), 1, length=12, onesided=True),
        # A strided signal: frames stored [n, batch, 1] seen as [batch, n, 1].
        dft("strided_signal", signal((24, 3, 1)), 1, perm=[1, 0, 2]),
        dft("strided_components", signal((2, 2, 20)), 1, perm=[0, 2, 1]),
        # float64, to the last bits.
        dft("f64_complex_60", signal((2, 60, 2), np.float64), 1),
        dft("f64_onesided_400", signal((1, 400, 1), np.float64), 1, onesided=True),
        # Refused signals.
        case("three_components", "dft", [signal((1, 8, 3))], {"axis": 1}, [],
             error="expected a signal [..., n, 1] (real) or [..., n, 2] (complex)",
             out_specs=[("f32", [1, 8, 2]), ("f64", [64])]),
        case("axis_on_components", "dft", [signal((1, 8, 1))], {"axis": 2}, [],
             error="expected axis in [0, 1]", out_specs=[("f32", [1, 8, 2]), ("f64", [64])]),
        case("f16_signal", "dft", [signal((1, 8, 1), np.float16)], {"axis": 1}, [],
             error="expected an f32 or f64 signal", out_specs=[("f16", [1, 8, 2]), ("f64", [64])]),
    ]
    return out

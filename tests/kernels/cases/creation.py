"""Cases for arange and full: tensors made from attributes, whose dtype is
the output's.

References: arange's length is ceil((end - start) / step) (np.arange's), its
values start + i * step computed in float64 (exact for integer bounds) and
then converted; full is np.full with the value converted to the dtype.
"""
import numpy as np

from common import case, dtype as dtype_attr, dtype_tag as tag

ALL = [np.float32, np.float16, np.int64, np.int32, np.int8, np.uint8, np.bool_]
NUMERIC = [np.float32, np.float16, np.int64, np.int32, np.int8, np.uint8]


def arange_ref(start, end, step, dtype):
    if all(isinstance(v, int) for v in (start, end, step)):
        n = max(0, -((start - end) // step))  # exact ceil((end - start) / step)
        vals = [start + i * step for i in range(n)]
        return np.array(vals, dtype=np.int64).astype(dtype) if vals else np.zeros((0,), dtype)
    n = max(0, int(np.ceil((end - start) / step)))
    return (start + np.arange(n, dtype=np.float64) * step).astype(dtype)


def arange_case(name, dtype, start=None, end=None, step=None, atol=1e-5):
    attrs = {}
    for k, v in (("start", start), ("end", end), ("step", step)):
        if v is not None:
            attrs[k] = v
    attrs["dtype"] = dtype_attr(dtype)
    y = arange_ref(0 if start is None else start, end, 1 if step is None else step, dtype)
    if dtype == np.float16:
        atol = 1e-3
    return case(name, "arange", inputs=[], attrs=attrs, outputs=[y], atol=atol, rtol=1e-5)


def err(name, op, attrs, error, out_dtype="f32"):
    attrs = dict(attrs)
    attrs.setdefault("dtype", dtype_attr(out_dtype))
    return case(name, op, inputs=[], attrs=attrs, outputs=[], error=error, out_specs=[(out_dtype, [1])])


def full_case(name, attrs, expected):
    """The operator table's `dtype` attribute is the expected output's."""
    attrs = dict(attrs, dtype=dtype_attr(expected.dtype))
    return case(name, "full", inputs=[], attrs=attrs, outputs=[expected])


def cases():
    out = []
    for dt in NUMERIC:
        out.append(arange_case(f"arange_{tag(dt)}", dt, 0, 10, 1))
        out.append(arange_case(f"arange_{tag(dt)}_step3", dt, 2, 30, 3))
        out.append(arange_case(f"arange_{tag(dt)}_end_only", dt, end=7))
    for dt in (np.float32, np.float16, np.int64, np.int32, np.int8):
        out.append(arange_case(f"arange_{tag(dt)}_negative_step", dt, 5, -6, -2))
    out.append(arange_case("arange_f32_fractional", np.float32, 0.0, 1.0, 0.1))
    out.append(arange_case("arange_f32_float_bounds_mixed", np.float32, -1, 2.5, 0.5))
    out.append(arange_case("arange_f32_negative_fractional", np.float32, 1.0, -1.0, -0.3))
    out.append(arange_case("arange_f16_fractional", np.float16, 0.0, 2.0, 0.25))
    out.append(arange_case("arange_i64_float_bounds", np.int64, 0.0, 5.0, 1.0))
    out.append(arange_case("arange_i64_big", np.int64, 2**40, 2**40 + 5, 1))
    out.append(arange_case("arange_i64_near_max", np.int64, 2**63 - 10, 2**63 - 1, 4))
    out.append(arange_case("arange_i64_full_range", np.int64, -2**63, 2**63 - 1, 2**63 - 1))
    out.append(arange_case("arange_i64_full_range_down", np.int64, 2**63 - 1, -2**63, -2**62))
    out.append(arange_case("arange_empty", np.float32, 5, 5, 1))
    out.append(arange_case("arange_empty_wrong_direction", np.int32, 5, 10, -1))
    out.append(arange_case("arange_large", np.float32, 0, 50000, 1))
    out.append(err("arange_step_zero", "arange", {"start": 0, "end": 5, "step": 0}, "arange: step must be nonzero"))
    out.append(err("arange_step_zero_float", "arange", {"end": 5.0, "step": 0.0}, "arange: step must be nonzero"))
    out.append(err("arange_bool", "arange", {"end": 2}, "arange: expected a numeric output dtype, got bool", "bool"))
    out.append(err("arange_missing_end", "arange", {"start": 1}, "arange: missing required attribute 'end'"))
    out.append(err("arange_infinite", "arange", {"end": float("inf")}, "arange: expected finite start, end and step"))
    out.append(err("arange_too_long", "arange", {"end": 1000000}, "arange: output of shape [1000000]"))

    for dt in ALL:
        out.append(full_case(f"full_{tag(dt)}", {"shape": [2, 3], "value": 1.0}, np.full((2, 3), 1, dtype=dt)))
        out.append(full_case(f"full_{tag(dt)}_zero", {"shape": [4], "value": 0.0}, np.zeros((4,), dtype=dt)))
    out.append(full_case("full_f32_value", {"shape": [3, 1, 2], "value": -2.75}, np.full((3, 1, 2), -2.75, np.float32)))
    out.append(full_case("full_f16_value", {"shape": [5], "value": 0.1}, np.full((5,), 0.1, np.float16)))
    out.append(full_case("full_i64_int_value_exact", {"shape": [2], "value": 2**62 + 1}, np.full((2,), 2**62 + 1, np.int64)))
    out.append(full_case("full_i64_min", {"shape": [2], "value": -2**63}, np.full((2,), -2**63, np.int64)))
    out.append(full_case("full_i32_truncates", {"shape": [2], "value": -3.7}, np.full((2,), -3, np.int32)))
    out.append(full_case("full_i8_negative", {"shape": [3], "value": -5}, np.full((3,), -5, np.int8)))
    out.append(full_case("full_bool_nonzero", {"shape": [2], "value": 0.5}, np.ones((2,), np.bool_)))
    out.append(full_case("full_bool_attr", {"shape": [2], "value": True}, np.ones((2,), np.bool_)))
    out.append(full_case("full_f32_nan", {"shape": [2], "value": float("nan")}, np.full((2,), np.nan, np.float32)))
    out.append(full_case("full_f16_inf", {"shape": [1], "value": float("-inf")}, np.full((1,), -np.inf, np.float16)))
    out.append(full_case("full_scalar", {"shape": [], "value": 4.0}, np.array(4.0, np.float32)))
    out.append(full_case("full_default_value", {"shape": [3]}, np.zeros((3,), np.float32)))
    out.append(full_case("full_empty", {"shape": [2, 0, 3], "value": 1.0}, np.zeros((2, 0, 3), np.int32)))
    out.append(full_case("full_large", {"shape": [300, 400], "value": 3.0}, np.full((300, 400), 3.0, np.float32)))
    out.append(err("full_negative_shape", "full", {"shape": [2, -1], "value": 1.0},
                   "full: expected non-negative sizes, got [2, -1]"))
    out.append(err("full_missing_shape", "full", {"value": 1.0}, "full: missing required attribute 'shape'"))
    out.append(err("arange_dtype_disagrees", "arange", {"end": 3, "dtype": dtype_attr("i32")},
                   "arange: expected output dtype i32, got f32"))
    out.append(err("full_dtype_disagrees", "full", {"shape": [2], "dtype": dtype_attr("f16")},
                   "full: expected output dtype f16, got f32"))
    out.append(err("full_too_large", "full", {"shape": [1000, 1000], "value": 1.0}, "full: output of shape [1000, 1000]"))
    out += rand_like_cases()
    return out


def _splitmix64(z):
    z = (z + np.uint64(0x9E3779B97F4A7C15))
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def rand_like_cases():
    """rand_like: element i = top 24 bits of splitmix64(seed + i) / 2^24."""
    out = []
    with np.errstate(over="ignore"):
        for seed, shape in ((0, (2, 3)), (12345, (4,)), (7, (0, 5))):
            n = int(np.prod(shape))
            idx = np.arange(n, dtype=np.uint64) + np.uint64(seed)
            vals = ((_splitmix64(idx) >> np.uint64(40)).astype(np.float64) / 16777216.0).astype(np.float32)
            x = np.zeros(shape, np.float32)
            out.append(case(f"rand_like_seed{seed}_{n}", "rand_like", inputs=[x], attrs={"seed": seed},
                            outputs=[vals.reshape(shape)], atol=0, rtol=0))
    out.append(case("rand_like_int_input", "rand_like", inputs=[np.zeros(3, np.int64)], attrs={},
                    outputs=[], error="rand_like: expected a float input", out_specs=[("i64", [3])]))
    return out

"""What a kernel case module builds its cases with.

Each tests/kernels/cases/<family>.py defines `cases()` returning a list of
`case(...)`; gen_cases.py validates them and writes <family>.json/.npz, and
tests/kernels/kernel_cases_test.cpp runs each through find_kernel(op).

Expected values always come from numpy, never from edgec.
"""
import numpy as np

# Array dtypes a case may use, with edgec's name for each.
DTYPE_NAMES = {
    np.dtype(np.float32): "f32",
    np.dtype(np.float16): "f16",
    np.dtype(np.int64): "i64",
    np.dtype(np.int32): "i32",
    np.dtype(np.int8): "i8",
    np.dtype(np.uint8): "u8",
    np.dtype(np.bool_): "bool",
    np.dtype(np.float64): "f64",
    np.dtype(np.int16): "i16",
    np.dtype(np.uint16): "u16",
    np.dtype(np.uint32): "u32",
    np.dtype(np.uint64): "u64",
}
EDGEC_DTYPES = tuple(DTYPE_NAMES.values())
MAX_RANK = 8  # kernels/tensor.h kMaxRank
ERROR_CASE_CAPACITY = 1 << 20  # bytes of each output buffer in an error case, unless given


class CaseError(ValueError):
    """A case that cannot be run as written; the message names it."""


class DTypeAttr:
    """A DType-valued attribute, e.g. attrs={"dtype": dtype("f16")}."""

    def __init__(self, name):
        self.name = edgec_dtype_name(name, "dtype()")

    def __eq__(self, other):
        return isinstance(other, DTypeAttr) and other.name == self.name

    def __repr__(self):
        return "dtype(%r)" % self.name


def dtype(name):
    """An attribute of kind DType; `name` is an edgec name ("f32") or a numpy one."""
    return DTypeAttr(name)


def edgec_dtype_name(spec, where):
    """edgec's name for `spec`: "f32", "float32", np.float32 or np.dtype('float32')."""
    if isinstance(spec, str) and spec in EDGEC_DTYPES:
        return spec
    try:
        d = np.dtype(spec)
    except TypeError:
        d = None
    if d is None or d not in DTYPE_NAMES:
        raise CaseError("%s: unsupported dtype %r; expected one of %s" % (where, spec, ", ".join(EDGEC_DTYPES)))
    return DTYPE_NAMES[d]


class Case:
    """One kernel call and what it must produce (or the error it must give)."""

    def __init__(self, name, op, inputs, attrs, outputs, perms, error, out_specs, atol, rtol):
        self.name = name
        self.op = op
        self.inputs = inputs
        self.attrs = attrs
        self.outputs = outputs
        self.perms = perms
        self.error = error
        self.out_specs = out_specs
        self.atol = atol
        self.rtol = rtol

    def __repr__(self):
        return "case(%r, %r)" % (self.name, self.op)


def _as_array(value, where):
    if isinstance(value, np.generic):
        value = np.asarray(value)
    if not isinstance(value, np.ndarray):
        raise CaseError("%s: expected a numpy array, got %s (make one with np.array(..., dtype=...))"
                        % (where, type(value).__name__))
    if value.dtype not in DTYPE_NAMES:
        raise CaseError("%s: unsupported array dtype %s; expected one of float32, float16, int64, int32, "
                        "int8, uint8, bool" % (where, value.dtype))
    if value.ndim > MAX_RANK:
        raise CaseError("%s: rank %d exceeds the kernels' maximum rank %d" % (where, value.ndim, MAX_RANK))
    return value


def _check_perm(perm, ndim, where):
    if perm is None:
        return None
    perm = list(perm)
    if not all(isinstance(p, (int, np.integer)) and not isinstance(p, bool) for p in perm):
        raise CaseError("%s: a permutation holds ints, got %r" % (where, perm))
    perm = [int(p) for p in perm]
    if sorted(perm) != list(range(ndim)):
        raise CaseError("%s: %r is not a permutation of the input's %d dims" % (where, perm, ndim))
    return perm


def _int64(value, where):
    value = int(value)
    if not -2**63 <= value < 2**63:
        raise CaseError("%s: %d does not fit in int64" % (where, value))
    return value


def _attr(value, where):
    """Validates one attribute value; the kind follows from its Python type."""
    if isinstance(value, DTypeAttr):
        return value
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return _int64(value, where)
    if isinstance(value, (float, np.floating)):
        return float(value)
    if isinstance(value, str):
        return value
    if isinstance(value, (list, tuple, np.ndarray)):
        items = list(value.tolist() if isinstance(value, np.ndarray) else value)
        if any(isinstance(v, (bool, np.bool_)) for v in items):
            raise CaseError("%s: lists of bools are not an attribute kind" % where)
        if all(isinstance(v, (int, np.integer)) for v in items):
            return [_int64(v, where) for v in items]  # an empty list is Ints
        if all(isinstance(v, (float, np.floating)) for v in items):
            return [float(v) for v in items]
        raise CaseError("%s: a list must hold only ints or only floats (write floats as 1.0), got %r"
                        % (where, items))
    raise CaseError("%s: unsupported attribute value %r of type %s" % (where, value, type(value).__name__))


def case(name, op, inputs, attrs=None, outputs=None, perms=None, error=None, out_specs=None,
         atol=1e-5, rtol=1e-5):
    """One case: run `op` on `inputs` with `attrs` and compare with `outputs`.

    perms: None, or one entry per input, None or a permutation; the kernel sees
      inputs[i] (stored contiguous) as inputs[i].transpose(perm), a strided view.
      Expected outputs must be computed on the transposed arrays.
    error: a substring the kernel's error detail must contain; the kernel must
      fail. Then outputs=[] and out_specs lists (dtype, shape) of the outputs to
      hand it (default: one f32 output of shape []), each with a 1 MiB buffer;
      (dtype, shape, capacity) gives a buffer of `capacity` bytes instead, to
      test that a kernel refuses an output too small for its result.
    atol, rtol: float outputs match when |got - expected| <= atol + rtol * |expected|;
      NaN must meet NaN, infinities must be equal; ints and bools match exactly.
    """
    where = "case %r" % (name,)
    if not isinstance(name, str) or not name:
        raise CaseError("case name must be a non-empty string, got %r" % (name,))
    if any(c in name for c in "/\\") or not name.isprintable() or name != name.strip():
        raise CaseError("%s: names may not hold '/', '\\', control characters or outer spaces" % where)
    if not isinstance(op, str) or not op:
        raise CaseError("%s: op must be a non-empty string, got %r" % (where, op))
    inputs = [_as_array(x, "%s input %d" % (where, i)) for i, x in enumerate(inputs or [])]
    outputs = [_as_array(x, "%s output %d" % (where, i)) for i, x in enumerate(outputs or [])]
    attrs = dict(attrs or {})
    for key in attrs:
        if not isinstance(key, str) or not key:
            raise CaseError("%s: attribute names must be non-empty strings, got %r" % (where, key))
        attrs[key] = _attr(attrs[key], "%s attribute %r" % (where, key))

    if perms is not None:
        perms = list(perms)
        if len(perms) != len(inputs):
            raise CaseError("%s: perms has %d entries for %d inputs" % (where, len(perms), len(inputs)))
        perms = [_check_perm(p, inputs[i].ndim, "%s perms[%d]" % (where, i)) for i, p in enumerate(perms)]
    else:
        perms = [None] * len(inputs)

    if error is not None:
        if not isinstance(error, str) or not error:
            raise CaseError("%s: error must be a non-empty substring of the expected message" % where)
        if outputs:
            raise CaseError("%s: an error case has outputs=[] (give out_specs instead)" % where)
        if out_specs is None:
            out_specs = [("f32", [], ERROR_CASE_CAPACITY)]
        specs = []
        for i, spec in enumerate(out_specs):
            if not isinstance(spec, (list, tuple)) or len(spec) not in (2, 3):
                raise CaseError("%s out_specs[%d]: expected (dtype, shape) or (dtype, shape, capacity), got %r"
                                % (where, i, spec))
            d = edgec_dtype_name(spec[0], "%s out_specs[%d]" % (where, i))
            shape = [int(s) for s in spec[1]]
            if any(s < 0 for s in shape) or len(shape) > MAX_RANK:
                raise CaseError("%s out_specs[%d]: bad shape %r" % (where, i, spec[1]))
            capacity = int(spec[2]) if len(spec) == 3 else ERROR_CASE_CAPACITY
            if capacity < 0:
                raise CaseError("%s out_specs[%d]: negative capacity %r" % (where, i, spec[2]))
            specs.append((d, shape, capacity))
        out_specs = specs
    else:
        if out_specs is not None:
            raise CaseError("%s: out_specs is only for error cases" % where)
        if not outputs:
            raise CaseError("%s: expected at least one output (or error=...)" % where)
        out_specs = []

    for label, value in (("atol", atol), ("rtol", rtol)):
        if not isinstance(value, (int, float, np.floating)) or isinstance(value, bool) or not value >= 0:
            raise CaseError("%s: %s must be a non-negative number, got %r" % (where, label, value))
    return Case(name, op, inputs, attrs, outputs, perms, error, out_specs, float(atol), float(rtol))


# Helpers the families share.

def random_array(rng, shape, dtype):
    """Values of `dtype` drawn from `rng`: bools half true, integers in
    [-100, 100] (clipped to the type), floats standard normal."""
    if dtype == np.bool_:
        return rng.random(shape) < 0.5
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        return rng.integers(max(info.min, -100), min(info.max, 100), size=shape, endpoint=True).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


def dtype_tag(dtype):
    """numpy's name for `dtype`, for case names."""
    return np.dtype(dtype).name


def view(x, perm):
    """`x` as the kernel sees it when stored permuted by `perm` (case(perms=...))."""
    return x if perm is None else x.transpose(perm)


def lift(x):
    """[N, C, L] -> [N, C, 1, L] so one 2-D reference serves both."""
    return x[:, :, None, :] if x.ndim == 3 else x


def lifted_size(x, output_size):
    """The spatial rank of `x` and `output_size` as its lifted (2-D) form has it."""
    nd = x.ndim - 2
    return nd, [1] * (2 - nd) + list(output_size)


def lifted_f64(x, output_size):
    """For a 2-D reference of `x` in float64: the spatial rank of `x`, the
    lifted output size, lift(x) and a zeroed output [N, C, *size]."""
    nd, osz = lifted_size(x, output_size)
    x4 = lift(x).astype(np.float64)
    return nd, osz, x4, np.zeros(x4.shape[:2] + tuple(osz))


def unlift(out, nd):
    """A 2-D reference's result for an input of spatial rank `nd`."""
    return out[:, :, 0, :] if nd == 1 else out


def flat_pads(pads):
    """[(b0, e0), (b1, e1)] -> ONNX order [b0, b1, e0, e1]."""
    return [p[0] for p in pads] + [p[1] for p in pads]


def given(**attrs):
    """The attributes whose value is not None, in the order written."""
    return {name: value for name, value in attrs.items() if value is not None}

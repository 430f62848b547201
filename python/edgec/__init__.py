"""edgec: compile ONNX models ahead of time and run them from Python.

The same compiler and runtime as the ``edgec`` command line, in process::

    import numpy as np
    import edgec

    program = edgec.compile("models/fixtures/mlp.onnx")   # as `edgec compile`
    program.save("mlp.edgec")                              # the program file
    method = program.method()                              # one per thread
    x = np.zeros((1, 64), dtype=np.float32)
    outputs = method.run({"x": x})                         # {name: ndarray}

- :func:`compile` -> :class:`Program` (``edgec compile``), :func:`load`
  maps a program file (``edgec run``).
- :attr:`Program.inputs` / :attr:`Program.outputs`: :class:`TensorInfo`
  (name, numpy dtype, shape with :class:`Dim` for symbolic dims, type).
- :meth:`Program.inspect` is ``edgec inspect --json``;
  :meth:`Method.bench` is ``edgec bench --json``.
- :meth:`Method.run` reads C-contiguous inputs of the right dtype in place
  (no copy), returns copies of the outputs and releases the GIL while the
  program runs. Several threads may run at once, each with its own Method.
- Every error is an :class:`Error`: :class:`CompileError`,
  :class:`UsageError`, :class:`InvalidProgram`, :class:`InvalidInput`,
  :class:`ExecutionError`, with the messages the CLI prints.
"""

import os
from typing import Any, Dict, Mapping, Optional, Sequence, Tuple, Union

# OpenMP's idle threads spin about a quarter of a millisecond, then sleep,
# as in the edgec command (docs/architecture.md, "Threads under
# contention"). libgomp reads this when it loads: with the extension below,
# unless the process loaded it before (e.g. torch imported first), in which
# case set GOMP_SPINCOUNT=10000 in the environment that starts Python.
if "OMP_WAIT_POLICY" not in os.environ and "GOMP_SPINCOUNT" not in os.environ:
    os.environ["GOMP_SPINCOUNT"] = "10000"

from ._edgec import (
    CompileError,
    Error,
    ExecutionError,
    InvalidInput,
    InvalidProgram,
    Method,
    Program,
    UsageError,
    max_threads,
)
from ._edgec import _compile
from ._edgec import load as _load
from ._types import Dim, TensorInfo

__all__ = [
    "compile",
    "load",
    "max_threads",
    "Program",
    "Method",
    "TensorInfo",
    "Dim",
    "Error",
    "CompileError",
    "UsageError",
    "InvalidProgram",
    "InvalidInput",
    "ExecutionError",
]


def compile(
    model: Union[str, "os.PathLike[str]", bytes],
    *,
    backends: Optional[Union[str, Sequence[str]]] = None,
    dims: Optional[Mapping[str, int]] = None,
    max_dims: Optional[Mapping[str, int]] = None,
    shapes: Optional[Mapping[str, Sequence[int]]] = None,
    max_shapes: Optional[Mapping[str, Sequence[int]]] = None,
    fix_inputs: Optional[Union[Mapping[str, Any], str, "os.PathLike[str]"]] = None,
) -> Program:
    """Compiles a model as ``edgec compile`` does and returns the Program.

    ``model``: the path of an ONNX model (``.onnx``; a textual-IR program
    ``.ir`` too), or a serialized ONNX model as ``bytes`` (then without
    external data files).

    ``backends``: the delegates, in priority order, as ``--backends`` takes
    them (``"onednn"``, ``"none"``, ``"reference:add+mul"``, or a list of
    such entries); None: every production delegate built in.
    ``dims`` / ``max_dims``: ``{symbol: size}`` fixes or bounds a symbolic
    dimension (``--dim`` / ``--max-dim``). ``shapes`` / ``max_shapes``:
    ``{input: (d0, d1, ...)}`` sizes or bounds every dim of an input
    (``--shape`` / ``--max-shape``). ``fix_inputs``: ``{input: array}`` (or
    the path of an .npz) fixes graph inputs at compile time; they become
    constants and leave the signature (``--fix-inputs``).

    The compile runs with the GIL released. Raises :class:`CompileError`
    (the messages of ``edgec compile``) or :class:`UsageError`.
    """
    if isinstance(model, (bytearray, memoryview)):
        model = bytes(model)
    if not isinstance(model, bytes):
        model = os.fspath(model)
    if backends is None:
        backends = ""
    elif not isinstance(backends, str):
        backends = ",".join(backends)
    if fix_inputs is not None and not isinstance(fix_inputs, Mapping):
        fix_inputs = os.fspath(fix_inputs)
    elif fix_inputs is not None:
        fix_inputs = dict(fix_inputs)
    as_dict = lambda m: None if m is None else dict(m)  # noqa: E731
    return _compile(model, backends, as_dict(dims), as_dict(max_dims), as_dict(shapes), as_dict(max_shapes),
                    fix_inputs)


def load(path: Union[str, "os.PathLike[str]"]) -> Program:
    """Maps and validates a program file (``.edgec``), as ``edgec run`` does.

    The file stays mapped while the Program (or a Method of it) lives.
    Raises :class:`InvalidProgram` (``cannot load PATH: ...``).
    """
    return _load(os.fspath(path))

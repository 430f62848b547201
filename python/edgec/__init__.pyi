"""Type stubs of the edgec package (python/edgec/__init__.py, _edgec)."""

import os
from typing import Any, Dict, List, Mapping, NamedTuple, Optional, Sequence, Tuple, Union

import numpy

class Dim(NamedTuple):
    """A run-time dimension: its symbol (None: data-dependent) and bound (None: unbounded)."""

    name: Optional[str]
    max: Optional[int]

class TensorInfo(NamedTuple):
    """An input or output: name, numpy dtype, shape (int or Dim per dim), edgec's type string."""

    name: str
    dtype: numpy.dtype
    shape: Tuple[Union[int, Dim], ...]
    type: str

class Error(Exception):
    """Base class of every error edgec raises."""

    code: Optional[str]

class CompileError(Error): ...
class UsageError(Error, ValueError): ...
class InvalidProgram(Error): ...
class InvalidInput(Error, ValueError): ...
class ExecutionError(Error): ...

Feeds = Union[Mapping[str, Any], Sequence[Any]]

class Method:
    """One execution state of a Program; one per thread."""

    @property
    def threads(self) -> int: ...
    @property
    def program(self) -> "Program": ...
    def run(self, feeds: Feeds) -> Dict[str, numpy.ndarray]: ...
    def bench(self, feeds: Feeds, iters: int = 100, warmup: int = 10, profile: bool = False) -> Dict[str, Any]: ...
    def cancel(self) -> None: ...
    def _bound_input_address(self, name: str) -> int: ...

class Program:
    """A compiled program, loaded and validated; shared by its Methods."""

    @property
    def inputs(self) -> List[TensorInfo]: ...
    @property
    def outputs(self) -> List[TensorInfo]: ...
    @property
    def file(self) -> Optional[str]: ...
    @property
    def file_bytes(self) -> int: ...
    @property
    def load_ms(self) -> float: ...
    def save(self, path: Union[str, "os.PathLike[str]"]) -> None: ...
    def inspect(self) -> Dict[str, Any]: ...
    def method(self, threads: Optional[int] = None) -> Method: ...

def compile(
    model: Union[str, "os.PathLike[str]", bytes],
    *,
    backends: Optional[Union[str, Sequence[str]]] = None,
    dims: Optional[Mapping[str, int]] = None,
    max_dims: Optional[Mapping[str, int]] = None,
    shapes: Optional[Mapping[str, Sequence[int]]] = None,
    max_shapes: Optional[Mapping[str, Sequence[int]]] = None,
    fix_inputs: Optional[Union[Mapping[str, Any], str, "os.PathLike[str]"]] = None,
) -> Program: ...
def load(path: Union[str, "os.PathLike[str]"]) -> Program: ...
def max_threads() -> int: ...

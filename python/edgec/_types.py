"""The small value types of edgec's signatures (no native code)."""

from typing import NamedTuple, Optional, Tuple, Union

import numpy


class Dim(NamedTuple):
    """A dimension whose size is given at run time.

    ``name`` is the symbol (``"batch"``), or None for a data-dependent
    dimension (an output whose size depends on the values, e.g. NonZero's).
    ``max`` is its upper bound (the memory plan's), or None when unbounded.
    """

    name: Optional[str]
    max: Optional[int]

    def __repr__(self) -> str:
        name = self.name if self.name is not None else "?"
        return name if self.max is None else f"{name}<={self.max}"


class TensorInfo(NamedTuple):
    """An input or output of a Program.

    ``shape`` is a tuple whose items are an ``int`` for a static size and a
    :class:`Dim` (symbol name and bound) otherwise; ``type`` is edgec's
    spelling, as ``edgec inspect`` prints it (``"f32[batch<=8, 4]"``).
    """

    name: str
    dtype: numpy.dtype
    shape: Tuple[Union[int, Dim], ...]
    type: str

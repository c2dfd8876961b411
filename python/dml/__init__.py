"""dml — the DirectML-compatible operator runtime from Python.

    import numpy as np, dml
    x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
    y = dml.slice1(x, offsets=[0, 0, 0, 1], sizes=[1, 1, 4, 3], strides=[1, 1, -2, 2])

Any tensor that speaks DLPack (numpy, PyTorch, CuPy, JAX) is read in place
(no copy), the operator runs where the tensor lives (host tensors on the
"cpu" backend, CUDA tensors on "cuda", on the framework's current stream),
and the result is a tensor of the input's framework. Only the standard
library is needed at run time: ctypes over libdml.so.1, found through
$DML_LIBRARY, inside this package (dml/lib/, where `pip install` puts the
runtime it builds), next to it, in this Python's install prefix, or by the
dynamic loader. Failures raise dml.DmlError carrying the runtime's message,
as the subclass of its result (DmlInvalidArgumentError is a ValueError,
DmlOutOfMemoryError a MemoryError, DmlNotImplementedError and
DmlUnsupportedError NotImplementedErrors). dml.h's constants are enums here
(dml.OperatorType, dml.TensorDataType, dml.Result ...).
dml.version() says which runtime was loaded (its release and ABI version).
See docs/python.md in the project.
"""
from ._dlpack import DLDeviceType
from ._enums import (BindingType, CreateDeviceFlags, DepthSpaceOrder, ExecutionFlags, Feature, FeatureLevel,
                     GraphEdgeType, GraphNodeType, Limits, MessageSeverity, OperatorType, PaddingMode, Result,
                     TensorDataType, TensorFlags, TensorType)
from ._lib import (DmlDeviceRemovedError, DmlError, DmlInvalidArgumentError, DmlInvalidCallError,
                   DmlNotImplementedError, DmlOutOfMemoryError, DmlUnsupportedError, Version, version)
from ._ops import (AxisError, Tensor, arange, cast, concat, concatenate, depth_to_space, full,  # noqa: A004
                   gather_nd, identity, one_hot, pad, reverse_subsequences, scatter, scatter_nd, slice, slice1,
                   space_to_depth, split, take, take_along_axis, tile, where)
from .graph import CompiledGraph, Graph

# dml.slice (DirectML's SLICE) is an attribute but not in __all__: `from dml
# import *` must not shadow the builtin slice. Use dml.slice, or dml.slice1.
__all__ = ["AxisError", "BindingType", "CompiledGraph", "CreateDeviceFlags", "DLDeviceType", "DepthSpaceOrder",
           "DmlDeviceRemovedError", "DmlError", "DmlInvalidArgumentError", "DmlInvalidCallError",
           "DmlNotImplementedError", "DmlOutOfMemoryError", "DmlUnsupportedError", "ExecutionFlags", "Feature",
           "FeatureLevel", "Graph", "GraphEdgeType", "GraphNodeType", "Limits", "MessageSeverity", "OperatorType",
           "PaddingMode", "Result", "Tensor", "TensorDataType", "TensorFlags", "TensorType", "Version", "arange",
           "cast", "concat", "concatenate", "depth_to_space", "full", "gather_nd", "identity", "one_hot", "pad",
           "reverse_subsequences", "scatter", "scatter_nd", "slice1", "space_to_depth", "split", "take",
           "take_along_axis", "tile", "version", "where"]
__version__ = "1.0.0"

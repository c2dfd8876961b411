"""ctypes declarations of libdml.so's C ABI (include/dml/dml.h): the structs,
constants and functions the operators use, the library's discovery, and the
error model (a failing call raises DmlError carrying the runtime's message)."""
import collections
import ctypes
import os
import sys

from ._enums import BindingType, FeatureLevel, Limits, OperatorType, Result, TensorDataType, TensorType

# ---- Results and constants (dml.h: _enums.py holds them all) -----------------
S_OK = Result.S_OK
# DML_RESULT -> its name. Mirrors src/core/result.h (the CTest python_mirrors_c,
# tests/core/check_python_mirrors.py, compares the two).
RESULT_NAMES = {r.value: "DML_" + r.name for r in Result}
# The ABI these declarations follow (DML_ABI_VERSION_MAJOR/MINOR): the loaded
# runtime must have the same major and at least this minor.
ABI_VERSION = (1, 1)
MAX_RANK = Limits.TENSOR_DIMENSION_COUNT_MAX1
BUFFER_ALIGNMENT = Limits.MINIMUM_BUFFER_TENSOR_ALIGNMENT
FEATURE_LEVEL_5_0 = FeatureLevel.LEVEL_5_0
TENSOR_TYPE_BUFFER = TensorType.BUFFER
BINDING_TYPE_NONE, BINDING_TYPE_BUFFER = BindingType.NONE, BindingType.BUFFER
OPERATOR_SLICE, OPERATOR_REVERSE_SUBSEQUENCES, OPERATOR_SLICE1 = (OperatorType.SLICE, OperatorType.REVERSE_SUBSEQUENCES,
                                                                  OperatorType.SLICE1)
# DML_TENSOR_DATA_TYPE: name -> (value, bytes per element, signed, float).
# Mirrors src/core/data_type.h (compared by the CTest python_mirrors_c).
_T = TensorDataType
DATA_TYPES = {
    "FLOAT32": (_T.FLOAT32, 4, True, True),
    "FLOAT16": (_T.FLOAT16, 2, True, True),
    "UINT32": (_T.UINT32, 4, False, False),
    "UINT16": (_T.UINT16, 2, False, False),
    "UINT8": (_T.UINT8, 1, False, False),
    "INT32": (_T.INT32, 4, True, False),
    "INT16": (_T.INT16, 2, True, False),
    "INT8": (_T.INT8, 1, True, False),
    "FLOAT64": (_T.FLOAT64, 8, True, True),
    "UINT64": (_T.UINT64, 8, False, False),
    "INT64": (_T.INT64, 8, True, False),
}
# Unsigned DML data types by element size: the operators only move bytes, so
# any 1/2/4/8-byte element (bool, bfloat16, complex64 ...) travels as these.
UINT_TYPE_BY_SIZE = {size: value for value, size, signed, is_float in DATA_TYPES.values()
                     if not signed and not is_float}
# The float types by bits (16, 32, 64): ScaleBias computes on them.
FLOAT_TYPE_BY_BITS = {8 * size: value for value, size, signed, is_float in DATA_TYPES.values() if is_float}

UINT_P = ctypes.POINTER(ctypes.c_uint32)
INT_P = ctypes.POINTER(ctypes.c_int32)


class DmlError(RuntimeError):
    """A failing libdml call: .result is the DML_RESULT (a Result where known),
    .name its name, and the message is dmlGetLastErrorMessage() (call, field
    and rule). DmlError(result, message) is the subclass of that result, so
    that callers catch by Python's own kinds: DmlInvalidArgumentError is a
    ValueError, DmlOutOfMemoryError a MemoryError, DmlNotImplementedError and
    DmlUnsupportedError NotImplementedErrors."""

    def __new__(cls, result, message, *args):
        if cls is DmlError:
            cls = _ERROR_CLASSES.get(result, DmlError)
        return super().__new__(cls, result, message, *args)

    def __init__(self, result, message):
        self.result = Result(result) if result in RESULT_NAMES else result
        self.name = RESULT_NAMES.get(result, "DML_RESULT 0x%08X" % (result & 0xFFFFFFFF))
        super().__init__("%s: %s" % (self.name, message))


class DmlInvalidArgumentError(DmlError, ValueError):
    """DML_E_INVALIDARG: an argument breaks a rule the message names."""


class DmlOutOfMemoryError(DmlError, MemoryError):
    """DML_E_OUTOFMEMORY: a host or device allocation failed."""


class DmlNotImplementedError(DmlError, NotImplementedError):
    """DML_E_NOTIMPL: a valid DirectML operator this runtime does not implement."""


class DmlUnsupportedError(DmlError, NotImplementedError):
    """DML_E_UNSUPPORTED: no such backend or hardware, or a feature this runtime lacks."""


class DmlInvalidCallError(DmlError):
    """DML_E_INVALID_CALL: valid arguments in the wrong state (a RuntimeError)."""


class DmlDeviceRemovedError(DmlError):
    """DML_E_DEVICE_REMOVED: the device hit an unrecoverable error; make a new one."""


_ERROR_CLASSES = {Result.E_INVALIDARG: DmlInvalidArgumentError, Result.E_OUTOFMEMORY: DmlOutOfMemoryError,
                  Result.E_NOTIMPL: DmlNotImplementedError, Result.E_UNSUPPORTED: DmlUnsupportedError,
                  Result.E_INVALID_CALL: DmlInvalidCallError, Result.E_DEVICE_REMOVED: DmlDeviceRemovedError}


class BUFFER_TENSOR_DESC(ctypes.Structure):
    _fields_ = [("DataType", ctypes.c_int), ("Flags", ctypes.c_int), ("DimensionCount", ctypes.c_uint32),
                ("Sizes", UINT_P), ("Strides", UINT_P), ("TotalTensorSizeInBytes", ctypes.c_uint64),
                ("GuaranteedBaseOffsetAlignment", ctypes.c_uint32)]


class TENSOR_DESC(ctypes.Structure):
    _fields_ = [("Type", ctypes.c_int), ("Desc", ctypes.c_void_p)]


class OPERATOR_DESC(ctypes.Structure):
    _fields_ = [("Type", ctypes.c_int), ("Desc", ctypes.c_void_p)]


class SLICE1_OPERATOR_DESC(ctypes.Structure):
    _fields_ = [("InputTensor", ctypes.POINTER(TENSOR_DESC)), ("OutputTensor", ctypes.POINTER(TENSOR_DESC)),
                ("DimensionCount", ctypes.c_uint32), ("InputWindowOffsets", UINT_P),
                ("InputWindowSizes", UINT_P), ("InputWindowStrides", INT_P)]


class SLICE_OPERATOR_DESC(ctypes.Structure):
    _fields_ = [("InputTensor", ctypes.POINTER(TENSOR_DESC)), ("OutputTensor", ctypes.POINTER(TENSOR_DESC)),
                ("DimensionCount", ctypes.c_uint32), ("Offsets", UINT_P), ("Sizes", UINT_P), ("Strides", UINT_P)]


class REVERSE_SUBSEQUENCES_OPERATOR_DESC(ctypes.Structure):
    _fields_ = [("InputTensor", ctypes.POINTER(TENSOR_DESC)), ("SequenceLengthsTensor", ctypes.POINTER(TENSOR_DESC)),
                ("OutputTensor", ctypes.POINTER(TENSOR_DESC)), ("Axis", ctypes.c_uint32)]


class BINDING_PROPERTIES(ctypes.Structure):
    _fields_ = [("RequiredDescriptorCount", ctypes.c_uint32), ("TemporaryResourceSize", ctypes.c_uint64),
                ("PersistentResourceSize", ctypes.c_uint64)]


class BUFFER_BINDING(ctypes.Structure):
    _fields_ = [("Buffer", ctypes.c_void_p), ("Offset", ctypes.c_uint64), ("SizeInBytes", ctypes.c_uint64)]


class BINDING_DESC(ctypes.Structure):
    _fields_ = [("Type", ctypes.c_int), ("Desc", ctypes.c_void_p)]


class BINDING_TABLE_DESC(ctypes.Structure):
    _fields_ = [("Dispatchable", ctypes.c_void_p)]


class _Growable(ctypes.Structure):
    """A growable struct of dml.h: UINT Size first, set here to this
    declaration's size (the other fields are the constructor's arguments)."""

    def __init__(self, *args, **kwargs):
        super().__init__(ctypes.sizeof(self), *args, **kwargs)


class DEVICE_DESC(_Growable):
    _fields_ = [("Size", ctypes.c_uint32), ("Backend", ctypes.c_char_p), ("AdapterIndex", ctypes.c_uint32),
                ("Flags", ctypes.c_int), ("MinimumFeatureLevel", ctypes.c_int)]


class ADAPTER_INFO(_Growable):
    _fields_ = [("Size", ctypes.c_uint32), ("Backend", ctypes.c_char * 16), ("AdapterIndex", ctypes.c_uint32),
                ("Description", ctypes.c_char * 256), ("MemorySizeInBytes", ctypes.c_uint64),
                ("IsSoftware", ctypes.c_int32), ("MaxFeatureLevel", ctypes.c_int)]


class VERSION_INFO(_Growable):
    _fields_ = [("Size", ctypes.c_uint32), ("AbiMajor", ctypes.c_uint32), ("AbiMinor", ctypes.c_uint32),
                ("PluginAbiVersion", ctypes.c_uint32), ("RuntimeMajor", ctypes.c_uint32),
                ("RuntimeMinor", ctypes.c_uint32), ("RuntimePatch", ctypes.c_uint32), ("Runtime", ctypes.c_char * 32)]


def _candidates():
    """Where libdml.so.1 may be, in order: $DML_LIBRARY (a file); inside this
    package, as the wheel installs it (dml/lib/libdml.so.1, its plugins in
    dml/lib/dml/) or a copy next to it; the prefix this package was installed
    into (<prefix>/lib/pythonX.Y/site-packages/dml -> <prefix>/lib, and lib64);
    then the dynamic loader's own search (LD_LIBRARY_PATH, ld.so.cache)."""
    env = os.environ.get("DML_LIBRARY")
    if env:
        return [env]  # explicit: nothing else is tried, so a wrong value is reported
    here = os.path.dirname(os.path.abspath(__file__))
    found = [os.path.join(here, "lib", "libdml.so.1"), os.path.join(here, "libdml.so.1")]
    prefix = os.path.abspath(os.path.join(here, "..", "..", "..", ".."))
    found += [os.path.join(prefix, d, "libdml.so.1") for d in ("lib", "lib64")]
    found += [os.path.join(sys.prefix, d, "libdml.so.1") for d in ("lib", "lib64")]
    return [p for p in found if os.path.exists(p)] + ["libdml.so.1"]


def _load():
    tried = []
    for path in _candidates():
        try:
            return ctypes.CDLL(path)
        except OSError as e:
            tried.append("%s (%s)" % (path, e))
    raise ImportError("dml: libdml.so.1 not found; install the package with the runtime inside "
                      "(pip install ./python), set DML_LIBRARY to its path, or install the runtime "
                      "(cmake --install) into this Python's prefix. Tried: " + "; ".join(tried))


lib = _load()


def _check_abi():
    """Refuses, before anything else is declared, a library whose ABI these
    declarations do not match, naming both versions."""
    name = getattr(lib, "_name", "libdml.so.1")
    if not hasattr(lib, "dmlGetVersion"):
        raise ImportError("dml: %s has no dmlGetVersion: it is not a runtime of ABI %d.%d or a later %d.x, which "
                          "this package needs" % ((name,) + ABI_VERSION + ABI_VERSION[:1]))
    lib.dmlGetLastErrorMessage.argtypes, lib.dmlGetLastErrorMessage.restype = [], ctypes.c_char_p
    lib.dmlGetVersion.argtypes, lib.dmlGetVersion.restype = [ctypes.POINTER(VERSION_INFO)], ctypes.c_int32
    info = VERSION_INFO()
    if lib.dmlGetVersion(ctypes.byref(info)) < 0:
        message = (lib.dmlGetLastErrorMessage() or b"").decode("utf-8", "replace")
        raise ImportError("dml: dmlGetVersion failed in %s: %s" % (name, message))
    if info.AbiMajor != ABI_VERSION[0] or info.AbiMinor < ABI_VERSION[1]:
        raise ImportError("dml: %s has ABI %d.%d; this package needs %d.x with x >= %d"
                          % (name, info.AbiMajor, info.AbiMinor, ABI_VERSION[0], ABI_VERSION[1]))
    return info


_check_abi()
_RESULT_FUNCTIONS = {
    "dmlCreateDevice": [ctypes.POINTER(DEVICE_DESC), ctypes.POINTER(ctypes.c_void_p)],
    "dmlDeviceGetAdapterInfo": [ctypes.c_void_p, ctypes.POINTER(ADAPTER_INFO)],
    "dmlDeviceCreateOperator": [ctypes.c_void_p, ctypes.POINTER(OPERATOR_DESC), ctypes.POINTER(ctypes.c_void_p)],
    "dmlDeviceCompileOperator": [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int, ctypes.POINTER(ctypes.c_void_p)],
    "dmlDeviceCreateBindingTable": [ctypes.c_void_p, ctypes.POINTER(BINDING_TABLE_DESC),
                                    ctypes.POINTER(ctypes.c_void_p)],
    "dmlBindingTableBindInputs": [ctypes.c_void_p, ctypes.c_uint32, ctypes.POINTER(BINDING_DESC)],
    "dmlBindingTableBindOutputs": [ctypes.c_void_p, ctypes.c_uint32, ctypes.POINTER(BINDING_DESC)],
    "dmlBindingTableReset": [ctypes.c_void_p, ctypes.POINTER(BINDING_TABLE_DESC)],
    "dmlDeviceCreateCommandRecorder": [ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p)],
    "dmlDeviceCreateCommandQueue": [ctypes.c_void_p, ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p)],
    "dmlCommandRecorderRecordDispatch": [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p],
    "dmlCommandQueueSynchronize": [ctypes.c_void_p],
    "dmlDeviceCreateBuffer": [ctypes.c_void_p, ctypes.c_uint64, ctypes.POINTER(ctypes.c_void_p)],
    "dmlDeviceWrapBuffer": [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_uint64, ctypes.POINTER(ctypes.c_void_p)],
    "dmlCommandQueueWriteBuffer": [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_uint64, ctypes.c_void_p,
                                   ctypes.c_uint64],
    "dmlCommandQueueReadBuffer": [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_uint64, ctypes.c_void_p,
                                  ctypes.c_uint64],
}
for _name, _args in _RESULT_FUNCTIONS.items():
    _f = getattr(lib, _name)
    _f.argtypes, _f.restype = _args, ctypes.c_int32
lib.dmlRelease.argtypes, lib.dmlRelease.restype = [ctypes.c_void_p], ctypes.c_uint32
lib.dmlAddRef.argtypes, lib.dmlAddRef.restype = [ctypes.c_void_p], ctypes.c_uint32
lib.dmlBufferGetNativePointer.argtypes, lib.dmlBufferGetNativePointer.restype = [ctypes.c_void_p], ctypes.c_void_p
lib.dmlDispatchableGetBindingProperties.argtypes = [ctypes.c_void_p]
lib.dmlDispatchableGetBindingProperties.restype = BINDING_PROPERTIES
lib.DMLCalcBufferTensorSize.argtypes = [ctypes.c_int, ctypes.c_uint32, UINT_P, UINT_P]
lib.DMLCalcBufferTensorSize.restype = ctypes.c_uint64


Version = collections.namedtuple("Version", "runtime abi plugin_abi")
Version.__doc__ = """The loaded runtime's versions: runtime, its release ("1.0.0"); abi,
(major, minor) of its C ABI; plugin_abi, the plugin ABI version it loads."""


def version():
    """The versions of the libdml.so this package loaded (dmlGetVersion), e.g.
    Version(runtime='1.0.0', abi=(1, 1), plugin_abi=2)."""
    info = VERSION_INFO()
    check(lib.dmlGetVersion(ctypes.byref(info)))
    return Version(info.Runtime.decode(), (info.AbiMajor, info.AbiMinor), info.PluginAbiVersion)


def check(result):
    """Raises DmlError with the runtime's thread-local message when result failed.
    (ctypes calls do not switch threads, so the message is this call's.)"""
    if result < 0:
        raise DmlError(result, (lib.dmlGetLastErrorMessage() or b"").decode("utf-8", "replace"))


class Handle:
    """Owns one reference to a dml object; released when collected or closed."""
    __slots__ = ("value", "__weakref__")

    def __init__(self, value):
        self.value = value

    def close(self):
        value, self.value = self.value, None
        if value:
            lib.dmlRelease(value)

    def __del__(self):
        # At interpreter exit the module may be half torn down; the process
        # frees everything anyway.
        try:
            self.close()
        except Exception:
            pass


def create(function, *args):
    """Calls a dml*Create* function whose last parameter is the out-handle."""
    out = ctypes.c_void_p()
    check(function(*args, ctypes.byref(out)))
    return Handle(out.value)

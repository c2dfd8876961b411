"""DLPack (https://dmlc.github.io/dlpack/) with ctypes: the C struct layouts,
reading a producer's capsule (__dlpack__ / __dlpack_device__), and exporting
a runtime buffer as a capsule that any framework's from_dlpack takes."""
import ctypes
import enum


class DLDeviceType(enum.IntEnum):
    """DLPack's device types (dlpack.h), as __dlpack_device__ returns them."""
    CPU = 1
    CUDA = 2
    CUDA_HOST = 3
    OPENCL = 4
    VULKAN = 7
    METAL = 8
    VPI = 9
    ROCM = 10
    ROCM_HOST = 11
    EXT_DEV = 12
    CUDA_MANAGED = 13
    ONE_API = 14
    WEBGPU = 15
    HEXAGON = 16
    MAIA = 17


# The device types this package handles.
KDL_CPU, KDL_CUDA, KDL_CUDA_HOST, KDL_CUDA_MANAGED = (DLDeviceType.CPU, DLDeviceType.CUDA, DLDeviceType.CUDA_HOST,
                                                      DLDeviceType.CUDA_MANAGED)
# DLDataTypeCode values.
KDL_INT, KDL_UINT, KDL_FLOAT, KDL_BFLOAT, KDL_COMPLEX, KDL_BOOL = 0, 1, 2, 4, 5, 6


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


class DLManagedTensor(ctypes.Structure):
    pass


# Both kinds' deleters take the managed struct's address (a pointer either way).
_DELETER = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
DLManagedTensor._fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p), ("deleter", _DELETER)]


class DLPackVersion(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class DLManagedTensorVersioned(ctypes.Structure):
    """DLPack 1.x: the version first, then the tensor; flags say read-only."""
    _fields_ = [("version", DLPackVersion), ("manager_ctx", ctypes.c_void_p), ("deleter", _DELETER),
                ("flags", ctypes.c_uint64), ("dl_tensor", DLTensor)]


# The DLPack version this package exports (DLManagedTensorVersioned's layout
# is 1.0's; nothing of a later minor is used), and the flags it sets.
DLPACK_VERSION = (1, 0)
FLAG_READ_ONLY, FLAG_IS_COPIED = 1 << 0, 1 << 1


_CAPSULE_DESTRUCTOR = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
_api = ctypes.pythonapi
_api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
_api.PyCapsule_GetPointer.restype = ctypes.c_void_p
_api.PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, _CAPSULE_DESTRUCTOR]
_api.PyCapsule_New.restype = ctypes.py_object
_api.PyCapsule_IsValid.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
_api.PyCapsule_GetName.argtypes = [ctypes.py_object]
_api.PyCapsule_GetName.restype = ctypes.c_char_p
_api.PyCapsule_IsValid.restype = ctypes.c_int
# The same function taking the raw PyObject* a capsule destructor receives
# (a py_object argument would add a reference to an object being destroyed).
_capsule_pointer_raw = _api["PyCapsule_GetPointer"]
_capsule_pointer_raw.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
_capsule_pointer_raw.restype = ctypes.c_void_p


class View:
    """What the operators need of one consumed tensor: the address of element
    0 (data + byte_offset), shape and strides in elements, element size, the
    DLPack dtype and device. Holds the capsule, so the producer keeps the
    memory alive as long as this view lives."""

    def __init__(self, capsule):
        # Not renamed to "used_dltensor": the capsule stays the producer's, and
        # its destructor releases the tensor when this view lets go of it.
        self._capsule = capsule
        name = _api.PyCapsule_GetName(capsule)
        address = _api.PyCapsule_GetPointer(capsule, name)
        if name == b"dltensor_versioned":
            managed = DLManagedTensorVersioned.from_address(address)
            if managed.version.major != 1:
                raise BufferError("dml: DLPack %d.%d tensors are not supported (1.x)"
                                  % (managed.version.major, managed.version.minor))
            t = managed.dl_tensor
        elif name == b"dltensor":
            t = DLManagedTensor.from_address(address).dl_tensor
        else:
            raise BufferError("dml: __dlpack__ returned a capsule named %r" % name)
        self.ndim = t.ndim
        self.shape = tuple(t.shape[i] for i in range(t.ndim))
        if t.strides:
            self.strides = tuple(t.strides[i] for i in range(t.ndim))
        else:  # NULL strides: packed row-major
            strides, step = [], 1
            for n in reversed(self.shape):
                strides.append(step)
                step *= n
            self.strides = tuple(reversed(strides))
        self.dtype = (t.dtype.code, t.dtype.bits, t.dtype.lanes)
        self.device = (t.device.device_type, t.device.device_id)
        if t.dtype.lanes != 1 or t.dtype.bits % 8 or t.dtype.bits // 8 not in (1, 2, 4, 8):
            raise TypeError("dml: elements of %d bits x %d lanes are not supported (1, 2, 4 or 8 bytes, one lane)"
                            % (t.dtype.bits, t.dtype.lanes))
        self.element_size = t.dtype.bits // 8
        self.address = (t.data or 0) + t.byte_offset


def consume(x, stream=None):
    """x.__dlpack__(stream=...) as a View. stream is the consumer's CUDA stream
    (an integer, DLPack's convention: 1 the legacy default stream), None on the host."""
    if not hasattr(x, "__dlpack__"):
        raise TypeError("dml: %s does not speak DLPack (no __dlpack__)" % type(x).__name__)
    # DLPack 1.x first (it can export read-only arrays, which inputs may be),
    # then the unversioned protocol of older producers.
    try:
        return View(x.__dlpack__(stream=stream, max_version=(1, 0)))
    except TypeError:
        return View(x.__dlpack__(stream=stream))


# ---- Export ------------------------------------------------------------------
# Each exported DLManagedTensor lives here until its deleter runs; the entry
# also holds the runtime buffer (a _lib.Handle), released with it.
# No lock: one dict operation is atomic, and a lock could be taken again by a
# capsule destructor that the garbage collector runs while it is held.
_exports = {}


@_DELETER
def _deleter(address):
    entry = _exports.pop(address, None)
    if entry is not None:
        entry[-1].close()


@_CAPSULE_DESTRUCTOR
def _capsule_destructor(capsule):
    # A capsule never consumed still carries its name: the tensor is ours to
    # delete. A consumer renames it "used_dltensor(_versioned)" and calls the
    # deleter itself.
    for name in (b"dltensor", b"dltensor_versioned"):
        if _api.PyCapsule_IsValid(capsule, name):
            _deleter(_capsule_pointer_raw(capsule, name))


def export(pointer, shape, dtype, device, owner, versioned=False, flags=0):
    """A DLPack capsule over packed memory at pointer: "dltensor_versioned"
    (DLManagedTensorVersioned, DLPACK_VERSION, flags) when versioned, else
    the legacy "dltensor". owner (with a close()) is closed when the consumer
    deletes the tensor, or when the capsule dies unconsumed."""
    ndim = len(shape)
    managed = DLManagedTensorVersioned() if versioned else DLManagedTensor()
    if versioned:
        managed.version = DLPackVersion(*DLPACK_VERSION)
        managed.flags = flags
    shape_array = (ctypes.c_int64 * max(ndim, 1))(*shape)
    t = managed.dl_tensor
    t.data = pointer
    t.device = DLDevice(*device)
    t.ndim = ndim
    t.dtype = DLDataType(*dtype)
    t.shape = shape_array
    t.strides = None  # packed row-major
    t.byte_offset = 0
    managed.deleter = _deleter
    _exports[ctypes.addressof(managed)] = (managed, shape_array, owner)
    name = b"dltensor_versioned" if versioned else b"dltensor"
    return _api.PyCapsule_New(ctypes.addressof(managed), name, _capsule_destructor)

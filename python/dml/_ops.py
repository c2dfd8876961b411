"""The operators over DLPack tensors: each call consumes its tensors
zero-copy (dmlDeviceWrapBuffer over the producer's memory), runs one
operator on the device where they live, and returns a new tensor of the
input's framework (from_dlpack over a runtime buffer)."""
import ctypes
import operator
import sys
import threading

from . import _cache, _cuda, _dlpack, _lib
from ._enums import DepthSpaceOrder, OperatorType, PaddingMode, TensorDataType
from ._lib import check, create, lib

# ---- Devices and queues ------------------------------------------------------


class _Device:
    """One runtime device per (backend, adapter), created on first use. Queues
    are cached per native stream; a lock serialises recording, since one queue
    or recorder is used by one thread at a time."""

    def __init__(self, backend, adapter):
        desc = _lib.DEVICE_DESC(backend.encode(), adapter, 0, _lib.FEATURE_LEVEL_5_0)
        self.handle = create(lib.dmlCreateDevice, ctypes.byref(desc))
        info = _lib.ADAPTER_INFO()
        check(lib.dmlDeviceGetAdapterInfo(self.handle.value, ctypes.byref(info)))
        self.backend = info.Backend.decode()
        self.adapter = info.AdapterIndex
        self.recorder = create(lib.dmlDeviceCreateCommandRecorder, self.handle.value)
        self.queues = {}
        self.lock = threading.Lock()
        self.operators = _cache.LRU()  # compiled operators by desc (_cache.compiled)
        self.compilations = 0  # how many operators were compiled (the tests check the cache)

    def queue(self, stream):
        """The queue on a host stream (an integer cudaStream_t), or the
        runtime's own queue for None."""
        if stream not in self.queues:
            self.queues[stream] = create(lib.dmlDeviceCreateCommandQueue, self.handle.value,
                                         None if stream is None else ctypes.c_void_p(stream))
        return self.queues[stream]

    @property
    def dlpack_device(self):
        return (_dlpack.KDL_CUDA, self.adapter) if self.backend == "cuda" else (_dlpack.KDL_CPU, 0)


_devices = {}
_devices_lock = threading.Lock()


def _device(backend, adapter):
    with _devices_lock:
        key = (backend, adapter)
        if key not in _devices:
            _devices[key] = _Device(backend, adapter)
        return _devices[key]


# ---- Frameworks --------------------------------------------------------------


def _framework(x):
    return type(x).__module__.split(".")[0]


def _current_stream(x, device_id):
    """The framework's current CUDA stream for x, as DLPack's integer (1 is the
    legacy default stream): torch and cupy are asked; anything else gets the
    legacy default stream."""
    name = _framework(x)
    stream = None
    if name == "torch":
        stream = sys.modules["torch"].cuda.current_stream(device_id).cuda_stream
    elif name == "cupy":
        stream = sys.modules["cupy"].cuda.get_current_stream().ptr
    return stream or 1  # 0 means the legacy default stream; DLPack spells it 1


def _from_dlpack_of(x):
    """from_dlpack of x's framework, or None for a framework not known here."""
    name = _framework(x)
    module = sys.modules.get(name)
    if name in ("jax", "jaxlib"):
        module = getattr(sys.modules.get("jax"), "numpy", None)
    return getattr(module, "from_dlpack", None) if module else None


class Tensor:
    """A packed, row-major tensor in a runtime buffer, exported through DLPack
    (the Python array API's protocol): what operators return for inputs of a
    framework this package does not know, and fills on "cuda". Any number of
    consumers may take it (np.from_dlpack, torch.from_dlpack, cupy ...): each
    capsule holds its own reference to the buffer."""

    def __init__(self, device, buffer, shape, dtype, stream=None):
        self._device, self._buffer, self.shape, self._dtype = device, buffer, tuple(shape), dtype
        # The CUDA stream (DLPack's integer) whose recorded work writes this
        # tensor, or None when it is written already.
        self._stream = stream

    def __dlpack_device__(self):
        kind, index = self._device.dlpack_device
        return _dlpack.DLDeviceType(kind), index

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        """A DLPack capsule of this tensor (docs/python.md, "DLPack, both
        ways"). max_version (major, minor) >= (1, 0) gets a
        "dltensor_versioned" capsule (DLPack 1.0), None or 0.x the legacy
        "dltensor". dl_device None or this tensor's own: exported in place, or
        copied when copy is True; a CUDA tensor to (kDLCPU, 0): copied to host
        memory (copy False: ValueError); any other device: BufferError.
        stream, the consumer's: only None on a host device; on CUDA None (the
        legacy default stream), 1, 2 or a cudaStream_t, made to wait for the
        work that writes this tensor, or -1 for no ordering."""
        own = tuple(int(v) for v in self._device.dlpack_device)
        target = own if dl_device is None else _dlpack_device_pair(dl_device)
        copying = _needs_copy(own, target, copy)
        _check_consumer_stream(stream, target)
        if not copying:
            owner, pointer = self._shared(stream)
        elif target == own:
            owner, pointer = self._copied(stream)
        else:
            owner, pointer = self._on_host()
        versioned = max_version is not None and max_version[0] >= 1
        flags = _dlpack.FLAG_IS_COPIED if copying else 0
        return _dlpack.export(pointer, self.shape, self._dtype, target, owner, versioned, flags)

    def _shared(self, stream):
        """(owner, pointer) of this tensor's own memory, with a reference for the capsule."""
        self._order_before(stream)
        owner = _lib.Handle(self._buffer.value)
        lib.dmlAddRef(owner.value)
        return owner, lib.dmlBufferGetNativePointer(owner.value)

    def _copied(self, stream):
        """(owner, pointer) of a copy on this tensor's device. On CUDA the copy
        runs on the consumer's stream after the work writing this tensor
        (stream -1: on that work's own stream)."""
        if self._device.dlpack_device[0] != _dlpack.KDL_CUDA:
            copy_stream = None
        elif stream == -1:
            copy_stream = self._stream
        else:
            self._order_before(stream)
            copy_stream = 1 if stream is None else stream
        owner = _copy_buffer(self._device, self._buffer, self.shape, self._dtype, copy_stream)
        return owner, lib.dmlBufferGetNativePointer(owner.value)

    def _on_host(self):
        """(owner, pointer) of a copy in host memory, read on this tensor's own
        queue (ReadBuffer returns once the copy is complete)."""
        size = self._nbytes()
        host = (ctypes.c_uint8 * max(size, 1))()
        with self._device.lock:
            check(lib.dmlCommandQueueReadBuffer(self._device.queue(self._stream).value, self._buffer.value, 0, host,
                                                size))
        return _Keeper(host), ctypes.addressof(host)

    def _nbytes(self):
        count = 1
        for n in self.shape:
            count *= n
        return count * (self._dtype[1] // 8)

    def _order_before(self, stream):
        """Makes the consumer's stream (None: the legacy default stream, 1)
        wait for the work that writes this tensor: a CUDA event, or where the
        CUDA runtime cannot be loaded, the host waits for that work."""
        if self._stream is None or stream == -1:
            return
        consumer = 1 if stream is None else stream
        if consumer == self._stream:
            return
        cudart = _cuda.runtime()
        if cudart is not None:
            _cuda.make_wait(cudart, self._device.adapter, self._stream, consumer)
        else:
            with self._device.lock:
                check(lib.dmlCommandQueueSynchronize(self._device.queue(self._stream).value))


class _Keeper:
    """Holds host memory a capsule points at, until the consumer deletes it."""

    def __init__(self, memory):
        self.memory = memory

    def close(self):
        self.memory = None


def _needs_copy(own, target, copy):
    """Whether exporting a tensor on device own to device target copies it,
    by the array API's rules for __dlpack__'s dl_device and copy."""
    if copy not in (None, True, False):
        raise TypeError("dml.Tensor.__dlpack__: copy must be None, True or False, not %r" % (copy,))
    if target == own:
        return copy is True
    if own[0] == _dlpack.KDL_CUDA and target == (_dlpack.KDL_CPU, 0):
        if copy is False:
            raise ValueError("dml.Tensor.__dlpack__: dl_device %s needs a copy of this CUDA tensor, and copy is "
                             "False" % (target,))
        return True
    raise BufferError("dml.Tensor.__dlpack__: cannot export a tensor on DLPack device %s to %s" % (own, target))


def _dlpack_device_pair(dl_device):
    try:
        kind, index = dl_device
        return int(kind), operator.index(index)
    except (TypeError, ValueError):
        raise TypeError("dml.Tensor.__dlpack__: dl_device must be a (device type, device id) pair, not %r"
                        % (dl_device,)) from None


def _check_consumer_stream(stream, target):
    """The array API's rules for __dlpack__'s stream: None on devices without
    streams; on CUDA an integer >= -1, and not 0 (ambiguous)."""
    if stream is None:
        return
    if target[0] != _dlpack.KDL_CUDA:
        raise ValueError("dml.Tensor.__dlpack__: stream must be None for DLPack device %s (got %r)"
                         % (target, stream))
    if not isinstance(stream, int):
        raise TypeError("dml.Tensor.__dlpack__: stream must be an integer (a CUDA stream), not %s"
                        % type(stream).__name__)
    if stream == 0 or stream < -1:
        raise ValueError("dml.Tensor.__dlpack__: stream %d is not allowed on CUDA (None, -1, 1, 2 or a "
                         "cudaStream_t; 0 is ambiguous)" % stream)


def _copy_buffer(device, buffer, shape, dtype, stream):
    """A new runtime buffer with buffer's packed elements, copied by
    ELEMENT_WISE_IDENTITY on stream's queue (bits, as unsigned integers)."""
    sizes = list(shape) or [1]
    data_type = _lib.UINT_TYPE_BY_SIZE[dtype[1] // 8]
    source = _BufferOperand(buffer, data_type, sizes, _packed_strides(sizes))
    out = _Output(device, sizes, data_type)
    desc, keep = identity_desc(source, out, None, None)
    _dispatch(device, stream, OPERATOR_ELEMENT_WISE_IDENTITY, desc, [source], [out])
    return out.buffer


# ---- Tensors into the runtime ------------------------------------------------


def _placement(x, backend):
    """(device, stream, view) for input x: CUDA tensors on "cuda" (their GPU)
    and the framework's current stream, host tensors on "cpu"; backend forces one
    (e.g. "cudaemu", which runs on host memory)."""
    kind, device_id = x.__dlpack_device__() if hasattr(x, "__dlpack_device__") else (_dlpack.KDL_CPU, 0)
    if kind in (_dlpack.KDL_CUDA, _dlpack.KDL_CUDA_MANAGED):
        stream = _current_stream(x, device_id)
        return _device(backend or "cuda", device_id), stream, _dlpack.consume(x, stream)
    if kind in (_dlpack.KDL_CPU, _dlpack.KDL_CUDA_HOST):
        return _device(backend or "cpu", 0), None, _dlpack.consume(x)
    raise TypeError("dml: tensors on DLPack device type %d are not supported (host or CUDA only)" % kind)


def _u32_array(values):
    return (ctypes.c_uint32 * max(len(values), 1))(*values)


class _Operand:
    """One input as the runtime sees it: a wrapped buffer over the producer's
    memory and a buffer tensor desc. The runtime wants positive strides and a
    16-byte aligned base, so the description is normalised:
      - a dimension with a negative stride is described backwards (from its
        lowest address, stride negated) and listed in .flipped: an operator
        with signed window strides (SLICE1) walks it the other way;
      - a base that is not 16-byte aligned gets a leading dimension of
        misalignment + 1 elements with stride 1 (the wrap starts at the aligned
        address below); .lead is that dimension's offset, or None."""

    def __init__(self, device, view, type_override=None):
        if any(n < 1 for n in view.shape):
            raise ValueError("dml: empty tensors (a dimension of size 0) are not supported: shape %s"
                             % (view.shape,))
        e = view.element_size
        base, strides, self.flipped = view.address, list(view.strides), []
        for d, (n, s) in enumerate(zip(view.shape, strides)):
            if n == 1:  # any stride addresses the one element; frameworks leave arbitrary ones
                strides[d] = 0
            elif s < 0:
                base += (n - 1) * s * e
                strides[d] = -s
                self.flipped.append(d)
        if base % e:
            raise ValueError("dml: tensor data at %#x is not aligned to its %d-byte elements" % (base, e))
        misalignment = base % _lib.BUFFER_ALIGNMENT
        sizes, self.lead = list(view.shape), None
        if misalignment:
            self.lead = misalignment // e
            sizes, strides = [self.lead + 1] + sizes, [1] + strides
        if any(s > 0xFFFFFFFF for s in strides):
            raise ValueError("dml: a stride above 2^32-1 elements cannot be described: %s" % (view.strides,))
        self.type = type_override or _lib.UINT_TYPE_BY_SIZE[e]
        self.sizes, self.strides = _u32_array(sizes), _u32_array(strides)
        self.rank = len(sizes)
        total = lib.DMLCalcBufferTensorSize(self.type, self.rank, self.sizes, self.strides) if self.rank else 4
        self.desc = _lib.BUFFER_TENSOR_DESC(self.type, 0, self.rank, self.sizes, self.strides, total, 0)
        self.tensor = _lib.TENSOR_DESC(_lib.TENSOR_TYPE_BUFFER, ctypes.cast(ctypes.pointer(self.desc), ctypes.c_void_p))
        self.view = view  # keeps the producer's memory alive
        self.base = base - misalignment  # what the buffer wraps
        if total == 0:  # sizes or strides the helper rejects: the runtime will say which
            self.buffer, self.binding = None, _lib.BUFFER_BINDING(None, 0, 0)
        else:
            self.buffer = create(lib.dmlDeviceWrapBuffer, device.handle.value,
                                 ctypes.c_void_p(base - misalignment), total)
            self.binding = _lib.BUFFER_BINDING(self.buffer.value, 0, total)


class _Output:
    """A packed output in a fresh runtime buffer."""
    stream = None  # set by _dispatch: the stream whose work writes it

    def __init__(self, device, shape, data_type, lead=False):
        sizes = ([1] if lead else []) + list(shape)
        self.shape, self.rank, self.sizes = tuple(shape), len(sizes), _u32_array(sizes)
        total = lib.DMLCalcBufferTensorSize(data_type, self.rank, self.sizes, None) if self.rank else 4
        self.desc = _lib.BUFFER_TENSOR_DESC(data_type, 0, self.rank, self.sizes, None, total, 0)
        self.tensor = _lib.TENSOR_DESC(_lib.TENSOR_TYPE_BUFFER, ctypes.cast(ctypes.pointer(self.desc), ctypes.c_void_p))
        self.buffer = create(lib.dmlDeviceCreateBuffer, device.handle.value, max(total, 4))
        self.binding = _lib.BUFFER_BINDING(self.buffer.value, 0, max(total, 4))


def _bindings(bindings):
    array = (_lib.BINDING_DESC * max(len(bindings), 1))()
    for i, b in enumerate(bindings):
        array[i] = _lib.BINDING_DESC(_lib.BINDING_TYPE_BUFFER, ctypes.cast(ctypes.pointer(b), ctypes.c_void_p))
    return array


def _dispatch(device, stream, op_type, op_desc, inputs, outputs):
    """Runs the operator on the stream's queue: compiled once per device and
    desc (_cache.compiled), then bound and recorded."""
    entry = _cache.compiled(device, op_type, op_desc, len(inputs), len(outputs))
    with device.lock:
        queue = device.queue(stream)
        # On a GPU with the runtime's own queue: wait, so that the result is
        # ready for whoever reads it next, on whatever stream.
        entry.record(device.recorder.value, queue.value, [i.binding for i in inputs], [o.binding for o in outputs],
                     stream is None and device.backend != "cpu")
    for o in outputs:  # the stream whose work writes it, None when done (Tensor)
        o.stream = None if stream is None else stream
    _cache.note_dispatch(device, stream, entry, inputs, outputs)


def _result(x, device, output, dtype):
    tensor = Tensor(device, output.buffer, output.shape, dtype, output.stream)
    from_dlpack = _from_dlpack_of(x)
    return from_dlpack(tensor) if from_dlpack else tensor


# ---- SLICE1 / SLICE ----------------------------------------------------------


def _window_in_operand(operand, shape, offsets, sizes, strides, operator):
    """The window of x (offsets, sizes, signed strides) as a window of the
    operand's description (flipped dimensions mirrored, the lead added)."""
    offsets, strides = list(offsets), list(strides)
    for d in operand.flipped:
        # Mirroring needs the window inside x; say so in x's terms (the
        # runtime would name the mirrored values).
        if offsets[d] + sizes[d] > shape[d] or sizes[d] < 1:
            raise ValueError("%s: offsets[%d] + sizes[%d] = %d exceeds x.shape[%d] = %d (or sizes[%d] = 0)"
                             % (operator, d, d, offsets[d] + sizes[d], d, shape[d], d))
        # x's [o, o+w) is the description's [n-o-w, n-o), walked the other way.
        offsets[d] = shape[d] - offsets[d] - sizes[d]
        strides[d] = -strides[d]
    if operand.lead is not None:
        return [operand.lead] + offsets, [1] + list(sizes), [1] + strides
    return offsets, list(sizes), strides


def _slice1(x, offsets, sizes, strides, output_sizes, backend, operator):
    """SLICE1 in x's terms (SLICE too: operator "dml.slice", sizes are then the
    output's and strides >= 1), on the operand's normalised description."""
    device, stream, view = _placement(x, backend)
    rank = view.ndim
    if not (len(offsets) == len(sizes) == len(strides) == rank):
        raise ValueError("%s: offsets, sizes and strides need one value per dimension of the %d-dimensional input "
                         "(got %d, %d, %d)" % (operator, rank, len(offsets), len(sizes), len(strides)))
    operand = _Operand(device, view)
    out = _Output(device, output_sizes, operand.type, lead=operand.lead is not None)
    if operator == "dml.slice" and not operand.flipped:
        # DML_OPERATOR_SLICE itself, so that its own rules and messages apply.
        o, z, s = _window_in_operand(operand, view.shape, offsets, sizes, strides, operator)
        desc = _lib.SLICE_OPERATOR_DESC(ctypes.pointer(operand.tensor), ctypes.pointer(out.tensor), operand.rank,
                                        _u32_array(o), _u32_array(z), _u32_array(s))
        op_type = _lib.OPERATOR_SLICE
    else:
        if operator == "dml.slice":  # SLICE is SLICE1 with windows (sizes - 1) * strides + 1
            sizes = [(n - 1) * st + 1 for n, st in zip(sizes, strides)]
        o, w, s = _window_in_operand(operand, view.shape, offsets, sizes, strides, operator)
        desc = _lib.SLICE1_OPERATOR_DESC(ctypes.pointer(operand.tensor), ctypes.pointer(out.tensor), operand.rank,
                                         _u32_array(o), _u32_array(w), (ctypes.c_int32 * max(len(s), 1))(*s))
        op_type = _lib.OPERATOR_SLICE1
    _dispatch(device, stream, op_type, desc, [operand], [out])
    return _result(x, device, out, view.dtype)


def _check_ints(name, values, low, high):
    values = [int(v) for v in values]
    for i, v in enumerate(values):
        if not low <= v <= high:
            raise ValueError("%s[%d] = %d is outside [%d, %d]" % (name, i, v, low, high))
    return values


def slice1(x, offsets, sizes, strides, output_sizes=None, *, backend=None):
    """DML_OPERATOR_SLICE1: output[c] = x[start + strides * c], where start[i] =
    offsets[i], or offsets[i] + sizes[i] - 1 when strides[i] < 0. output_sizes
    defaults to every reachable element: 1 + (sizes[i] - 1) // |strides[i]|."""
    offsets = _check_ints("dml.slice1: offsets", offsets, 0, 0xFFFFFFFF)
    sizes = _check_ints("dml.slice1: sizes", sizes, 0, 0xFFFFFFFF)
    strides = _check_ints("dml.slice1: strides", strides, -0x80000000, 0x7FFFFFFF)
    if output_sizes is None:
        output_sizes = [1 + (w - 1) // abs(s) if w >= 1 and s else 1 for w, s in zip(sizes, strides)]
    output_sizes = _check_ints("dml.slice1: output_sizes", output_sizes, 0, 0xFFFFFFFF)
    return _slice1(x, offsets, sizes, strides, output_sizes, backend, "dml.slice1")


def slice(x, offsets, sizes, strides, *, backend=None):  # noqa: A001 (DirectML's name)
    """DML_OPERATOR_SLICE: output[c] = x[offsets + strides * c], output shape
    sizes, strides >= 1."""
    offsets = _check_ints("dml.slice: offsets", offsets, 0, 0xFFFFFFFF)
    sizes = _check_ints("dml.slice: sizes", sizes, 0, 0xFFFFFFFF)
    strides = _check_ints("dml.slice: strides", strides, 0, 0x7FFFFFFF)
    return _slice1(x, offsets, sizes, strides, sizes, backend, "dml.slice")


# ---- ELEMENT_WISE_IDENTITY ---------------------------------------------------


class _ScaleBias(ctypes.Structure):
    _fields_ = [("Scale", ctypes.c_float), ("Bias", ctypes.c_float)]


class _IdentityDesc(ctypes.Structure):
    _fields_ = [("InputTensor", ctypes.POINTER(_lib.TENSOR_DESC)), ("OutputTensor", ctypes.POINTER(_lib.TENSOR_DESC)),
                ("ScaleBias", ctypes.POINTER(_ScaleBias))]


def identity_desc(source, target, scale, bias):
    """(DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC, the objects it points to)."""
    scale_bias = None
    if scale is not None or bias is not None:
        scale_bias = _ScaleBias(1.0 if scale is None else float(scale), 0.0 if bias is None else float(bias))
    desc = _IdentityDesc(ctypes.pointer(source.tensor), ctypes.pointer(target.tensor),
                         ctypes.pointer(scale_bias) if scale_bias is not None else None)
    return desc, (source, target, scale_bias)


def data_type(dtype, scale, bias):
    """The DML data type for a DLPack dtype: its float type (FLOAT16/32/64) when
    ScaleBias computes on it, as the runtime must know the type, else unsigned
    bits (the runtime then rejects ScaleBias and says why)."""
    size_type = _lib.UINT_TYPE_BY_SIZE[dtype[1] // 8]
    if scale is None and bias is None or dtype[0] != _dlpack.KDL_FLOAT:
        return size_type
    return _lib.FLOAT_TYPE_BY_BITS.get(dtype[1], size_type)


def identity(x, scale=None, bias=None, *, backend=None):
    """DML_OPERATOR_ELEMENT_WISE_IDENTITY: a packed copy of x (any strides);
    with scale or bias, x * scale + bias (float16/32/64 only, computed in
    float32, float64 for float64; scale defaults to 1, bias to 0)."""
    device, stream, view = _placement(x, backend)
    dtype = data_type(view.dtype, scale, bias)
    data = _readable(device, stream, view, dtype)
    out = _Output(device, view.shape, dtype)
    desc, keep = identity_desc(data, out, scale, bias)
    _dispatch(device, stream, OPERATOR_ELEMENT_WISE_IDENTITY, desc, [data], [out])
    return _result(x, device, out, view.dtype)


OPERATOR_ELEMENT_WISE_IDENTITY = OperatorType.ELEMENT_WISE_IDENTITY


# ---- REVERSE_SUBSEQUENCES ----------------------------------------------------


class _Described:
    """An operand's memory under another description of its elements (the
    operand's own may have too many dimensions to be wrapped)."""

    def __init__(self, device, operand, sizes, strides):
        self.type, self.rank, self.view = operand.type, len(sizes), operand.view
        self.sizes, self.strides = _u32_array(sizes), _u32_array(strides)
        total = lib.DMLCalcBufferTensorSize(self.type, self.rank, self.sizes, self.strides)
        self.desc = _lib.BUFFER_TENSOR_DESC(self.type, 0, self.rank, self.sizes, self.strides, total, 0)
        self.tensor = _lib.TENSOR_DESC(_lib.TENSOR_TYPE_BUFFER, ctypes.cast(ctypes.pointer(self.desc), ctypes.c_void_p))
        self.buffer = create(lib.dmlDeviceWrapBuffer, device.handle.value, ctypes.c_void_p(operand.base), total)
        self.binding = _lib.BUFFER_BINDING(self.buffer.value, 0, total)


def _merged(sizes, strides, windows):
    """The same walk over one dimension fewer, or None: a size-1 dimension
    dropped, or two neighbours merged where the outer steps exactly over the
    inner and both are walked whole the same way. Index 0 (the lead) stays."""
    for d in range(1, len(sizes)):
        if sizes[d] == 1:
            return sizes[:d] + sizes[d + 1:], strides[:d] + strides[d + 1:], windows[:d] + windows[d + 1:]
    for d in range(1, len(sizes) - 1):
        (o1, w1, s1), (o2, w2, s2) = windows[d], windows[d + 1]
        if strides[d] == sizes[d + 1] * strides[d + 1] and o1 == o2 == 0 and s1 == s2 and abs(s1) == 1:
            n = sizes[d] * sizes[d + 1]
            return (sizes[:d] + [n] + sizes[d + 2:], strides[:d] + [strides[d + 1]] + strides[d + 2:],
                    windows[:d] + [(0, n, s1)] + windows[d + 2:])
    return None


def _stage(device, stream, operand, view):
    """A packed, aligned copy of a tensor the runtime cannot read in place for
    REVERSE_SUBSEQUENCES (negative strides, misaligned base), made by SLICE1.
    An 8-dimensional tensor with a lead has 9: it is walked over fewer, merged
    ones (the packed copy is the same bytes)."""
    shape = list(view.shape)
    o, w, s = _window_in_operand(operand, shape, [0] * len(shape), shape, [1] * len(shape), "dml")
    source, out = operand, _Output(device, shape, operand.type, lead=operand.lead is not None)
    if operand.rank > _lib.MAX_RANK:
        merged = _merged(list(operand.sizes), list(operand.strides), list(zip(o, w, s)))
        if merged is None:
            raise ValueError("dml: an 8-dimensional tensor not aligned to 16 bytes whose dimensions do not merge "
                             "cannot be described (shape %s, strides %s)" % (view.shape, view.strides))
        sizes, strides, windows = merged
        o, w, s = (list(t) for t in zip(*windows))
        source = _Described(device, operand, sizes, strides)
        out = _Output(device, w, operand.type)  # every window is whole with stride +-1: w elements each
    desc = _lib.SLICE1_OPERATOR_DESC(ctypes.pointer(source.tensor), ctypes.pointer(out.tensor), source.rank,
                                     _u32_array(o), _u32_array(w), (ctypes.c_int32 * max(len(s), 1))(*s))
    _dispatch(device, stream, _lib.OPERATOR_SLICE1, desc, [source], [out])
    packed = _Output.__new__(_Output)  # the copy, described without the lead
    packed.shape, packed.rank, packed.sizes = tuple(shape), len(shape), _u32_array(shape)
    packed.type = operand.type
    total = lib.DMLCalcBufferTensorSize(operand.type, packed.rank, packed.sizes, None)
    packed.desc = _lib.BUFFER_TENSOR_DESC(operand.type, 0, packed.rank, packed.sizes, None, total, 0)
    packed.tensor = _lib.TENSOR_DESC(_lib.TENSOR_TYPE_BUFFER, ctypes.cast(ctypes.pointer(packed.desc), ctypes.c_void_p))
    packed.buffer = out.buffer
    packed.binding = _lib.BUFFER_BINDING(out.buffer.value, 0, total)
    return packed


def _readable(device, stream, view, type_override=None):
    operand = _Operand(device, view, type_override)
    if operand.flipped or operand.lead is not None:
        return _stage(device, stream, operand, view)
    return operand


_LENGTH_TYPES = {(code, 8 * size): _lib.UINT_TYPE_BY_SIZE[size]   # UINT32, UINT64
                 for code in (_dlpack.KDL_UINT, _dlpack.KDL_INT) for size in (4, 8)}


class _HostLengths:
    """Python integers as a packed UINT64 tensor, written into a runtime buffer."""

    def __init__(self, device, stream, values, shape):
        count = 1
        for n in shape:
            count *= n
        if len(values) == 1:
            values = values * count
        if len(values) != count:
            raise ValueError("dml.reverse_subsequences: %d lengths given; the lengths tensor %s holds %d"
                             % (len(values), tuple(shape), count))
        data = (ctypes.c_uint64 * count)(*_check_ints("dml.reverse_subsequences: lengths", values, 0, 2**64 - 1))
        self.type, self.rank, self.sizes = TensorDataType.UINT64, len(shape), _u32_array(shape)
        total = lib.DMLCalcBufferTensorSize(self.type, self.rank, self.sizes, None)
        self.desc = _lib.BUFFER_TENSOR_DESC(self.type, 0, self.rank, self.sizes, None, total, 0)
        self.tensor = _lib.TENSOR_DESC(_lib.TENSOR_TYPE_BUFFER, ctypes.cast(ctypes.pointer(self.desc), ctypes.c_void_p))
        self.buffer = create(lib.dmlDeviceCreateBuffer, device.handle.value, total)
        self.binding = _lib.BUFFER_BINDING(self.buffer.value, 0, total)
        with device.lock:
            check(lib.dmlCommandQueueWriteBuffer(device.queue(stream).value, self.buffer.value, 0, data,
                                                 ctypes.sizeof(data)))


def reverse_subsequences(x, lengths, axis, *, backend=None):
    """DML_OPERATOR_REVERSE_SUBSEQUENCES: along axis, the first L elements of
    every sequence are reversed, L = min(length, x.shape[axis]).

    lengths: a tensor (uint32/int32/uint64/int64, on x's device) of x's shape
    with 1 on axis, or of a shape that broadcasts to it (numpy's rules: a
    (batch, 1) tensor for a (batch, time) input reversed along axis 1); or
    Python integers: one for every sequence (row-major), or a single one for
    all. Signed lengths are read as unsigned: a negative one reverses the
    whole axis, like a length above the axis size."""
    device, stream, view = _placement(x, backend)
    rank = view.ndim
    if not -rank <= axis < rank:
        raise IndexError("dml.reverse_subsequences: axis %d is out of range for a %d-dimensional tensor"
                         % (axis, rank))
    axis %= rank
    expected = list(view.shape)
    expected[axis] = 1
    data = _readable(device, stream, view)

    if hasattr(lengths, "__dlpack__"):
        lview = _dlpack.consume(lengths, stream)
        if lview.device[0] != view.device[0] or (view.device[0] != _dlpack.KDL_CPU and lview.device != view.device):
            raise ValueError("dml.reverse_subsequences: lengths live on DLPack device %s, x on %s"
                             % (lview.device, view.device))
        code_bits = (lview.dtype[0], lview.dtype[1])
        if code_bits not in _LENGTH_TYPES:
            raise TypeError("dml.reverse_subsequences: lengths must be 32- or 64-bit integers (DLPack type code %d, "
                            "%d bits)" % code_bits)
        if len(lview.shape) > rank:
            raise ValueError("dml.reverse_subsequences: lengths of shape %s do not broadcast to %s"
                             % (lview.shape, tuple(expected)))
        # numpy broadcasting: align right, a size-1 dimension repeats (stride 0).
        pad = rank - len(lview.shape)
        shape, strides = [1] * pad + list(lview.shape), [0] * pad + list(lview.strides)
        for d in range(rank):
            if shape[d] == expected[d]:
                continue
            if shape[d] != 1:
                raise ValueError("dml.reverse_subsequences: lengths of shape %s do not broadcast to %s"
                                 % (lview.shape, tuple(expected)))
            shape[d], strides[d] = expected[d], 0
        lview.shape, lview.strides, lview.ndim = tuple(shape), tuple(strides), rank
        lengths_operand = _readable(device, stream, lview, _LENGTH_TYPES[code_bits])
    else:
        values = [lengths] if isinstance(lengths, int) else list(lengths)
        lengths_operand = _HostLengths(device, stream, values, expected)

    out = _Output(device, view.shape, data.type)
    desc = _lib.REVERSE_SUBSEQUENCES_OPERATOR_DESC(ctypes.pointer(data.tensor), ctypes.pointer(lengths_operand.tensor),
                                                   ctypes.pointer(out.tensor), axis)
    _dispatch(device, stream, _lib.OPERATOR_REVERSE_SUBSEQUENCES, desc, [data, lengths_operand], [out])
    return _result(x, device, out, view.dtype)


# ---- TILE --------------------------------------------------------------------


class _TileDesc(ctypes.Structure):
    _fields_ = [("InputTensor", ctypes.POINTER(_lib.TENSOR_DESC)), ("OutputTensor", ctypes.POINTER(_lib.TENSOR_DESC)),
                ("RepeatsCount", ctypes.c_uint32), ("Repeats", ctypes.POINTER(ctypes.c_uint32))]


OPERATOR_TILE = OperatorType.TILE


def tile(x, reps, *, backend=None):
    """DML_OPERATOR_TILE with numpy.tile's convention: x repeated reps[i] times
    along each dimension. reps (an integer or a sequence) shorter than x.ndim
    is prepended with 1s; longer, x's shape is prepended with 1s. A repeat of
    0 (an empty result) is the runtime's to refuse (DmlError)."""
    reps = _check_ints("dml.tile: reps", list(reps) if hasattr(reps, "__iter__") else [reps], 0, 0xFFFFFFFF)
    device, stream, view = _placement(x, backend)
    rank = max(view.ndim, len(reps))
    if rank == 0:
        raise ValueError("dml.tile: a 0-dimensional result is not supported (give reps, or x, a dimension)")
    reps = [1] * (rank - len(reps)) + reps
    pad = rank - view.ndim
    view.shape, view.strides, view.ndim = (1,) * pad + tuple(view.shape), (0,) * pad + tuple(view.strides), rank
    shape = [n * r for n, r in zip(view.shape, reps)]
    for i, n in enumerate(shape):
        if n > 0xFFFFFFFF:
            raise ValueError("dml.tile: dimension %d would have %d * %d = %d elements, more than 2^32 - 1"
                             % (i, view.shape[i], reps[i], n))
    data = _readable(device, stream, view)  # TILE cannot walk backwards: negative strides get a packed copy
    out = _Output(device, shape, data.type)
    desc = _TileDesc(ctypes.pointer(data.tensor), ctypes.pointer(out.tensor), rank, _u32_array(reps))
    _dispatch(device, stream, OPERATOR_TILE, desc, [data], [out])
    return _result(x, device, out, view.dtype)


# ---- DEPTH_TO_SPACE1 / SPACE_TO_DEPTH1 ------------------------------------------


class _DepthSpaceDesc(ctypes.Structure):
    # DML_DEPTH_TO_SPACE1_OPERATOR_DESC; DML_SPACE_TO_DEPTH1_OPERATOR_DESC has the same layout
    _fields_ = [("InputTensor", ctypes.POINTER(_lib.TENSOR_DESC)), ("OutputTensor", ctypes.POINTER(_lib.TENSOR_DESC)),
                ("BlockSize", ctypes.c_uint32), ("Order", ctypes.c_int)]


OPERATOR_DEPTH_TO_SPACE1 = OperatorType.DEPTH_TO_SPACE1
OPERATOR_SPACE_TO_DEPTH1 = OperatorType.SPACE_TO_DEPTH1
DEPTH_SPACE_ORDER_DEPTH_COLUMN_ROW = DepthSpaceOrder.DEPTH_COLUMN_ROW
DEPTH_SPACE_ORDER_COLUMN_ROW_DEPTH = DepthSpaceOrder.COLUMN_ROW_DEPTH


def _depth_space(name, operator, x, block_size, order, backend):
    (block_size,) = _check_ints("dml.%s: block_size" % name, [block_size], 1, 0xFFFFFFFF)
    device, stream, view = _placement(x, backend)
    if view.ndim != 4:
        raise ValueError("dml.%s: x has %d dimensions; must be 4 (N, C, H, W)" % (name, view.ndim))
    n, c, h, w = view.shape
    b = block_size
    if operator == OPERATOR_DEPTH_TO_SPACE1:
        shape = [n, c // (b * b), h * b, w * b]
    else:
        shape = [n, c * b * b, h // b, w // b]
    for i, size in enumerate(shape):
        if size > 0xFFFFFFFF:
            raise ValueError("dml.%s: dimension %d would have %d elements, more than 2^32 - 1" % (name, i, size))
    # A size that does not divide is the runtime's to refuse (DmlError): the
    # output keeps at least one element so that the operator is created.
    shape = [max(size, 1) for size in shape]
    data = _readable(device, stream, view)  # the operator cannot walk backwards: negative strides get a packed copy
    out = _Output(device, shape, data.type)
    desc = _DepthSpaceDesc(ctypes.pointer(data.tensor), ctypes.pointer(out.tensor), block_size, order)
    _dispatch(device, stream, operator, desc, [data], [out])
    return _result(x, device, out, view.dtype)


def depth_to_space(x, block_size, mode="DCR", *, backend=None):
    """DML_OPERATOR_DEPTH_TO_SPACE1 with ONNX DepthToSpace's convention: x is
    4-D (N, C, H, W), the result (N, C / block_size^2, H * block_size,
    W * block_size). mode "DCR" (DML_DEPTH_SPACE_ORDER_DEPTH_COLUMN_ROW, the
    default) or "CRD" (COLUMN_ROW_DEPTH). C not a multiple of block_size^2 is
    the runtime's to refuse (DmlError)."""
    orders = {"DCR": DEPTH_SPACE_ORDER_DEPTH_COLUMN_ROW, "CRD": DEPTH_SPACE_ORDER_COLUMN_ROW_DEPTH}
    if mode not in orders:
        raise ValueError("dml.depth_to_space: mode %r; must be 'DCR' or 'CRD'" % (mode,))
    return _depth_space("depth_to_space", OPERATOR_DEPTH_TO_SPACE1, x, block_size, orders[mode], backend)


def space_to_depth(x, block_size, *, backend=None):
    """DML_OPERATOR_SPACE_TO_DEPTH1 with ONNX SpaceToDepth's convention (its
    only order, DEPTH_COLUMN_ROW): x is 4-D (N, C, H, W), the result
    (N, C * block_size^2, H / block_size, W / block_size), the inverse of
    depth_to_space(..., mode="DCR"). H or W not a multiple of block_size is the
    runtime's to refuse (DmlError)."""
    return _depth_space("space_to_depth", OPERATOR_SPACE_TO_DEPTH1, x, block_size,
                        DEPTH_SPACE_ORDER_DEPTH_COLUMN_ROW, backend)


# ---- PADDING1 ----------------------------------------------------------------


class _ScalarUnion(ctypes.Union):
    # DML_SCALAR_UNION: 8 bytes, aligned as its double and 64-bit members
    _fields_ = [("Bytes", ctypes.c_uint8 * 8), ("UInt64", ctypes.c_uint64), ("Float64", ctypes.c_double)]


class _Padding1Desc(ctypes.Structure):
    _fields_ = [("InputTensor", ctypes.POINTER(_lib.TENSOR_DESC)), ("OutputTensor", ctypes.POINTER(_lib.TENSOR_DESC)),
                ("PaddingMode", ctypes.c_int), ("PaddingValueDataType", ctypes.c_int),
                ("PaddingValue", _ScalarUnion), ("DimensionCount", ctypes.c_uint32),
                ("StartPadding", ctypes.POINTER(ctypes.c_uint32)), ("EndPadding", ctypes.POINTER(ctypes.c_uint32))]


OPERATOR_PADDING1 = OperatorType.PADDING1
PADDING_MODES = {"constant": PaddingMode.CONSTANT, "edge": PaddingMode.EDGE, "reflect": PaddingMode.REFLECTION,
                 "symmetric": PaddingMode.SYMMETRIC}


def _pad_widths(pad_width, ndim):
    """numpy.pad's pad_width: an integer, (before, after), ((before, after),)
    or one pair per dimension, each broadcast to every dimension."""
    def pairs(value):
        if not hasattr(value, "__iter__"):
            return [(value, value)]
        items = list(value)
        if items and not hasattr(items[0], "__iter__"):
            return [tuple(items) * (2 // len(items))] if len(items) in (1, 2) else None
        return [tuple(p) * (2 // len(p)) if len(p) in (1, 2) else None for p in (list(q) for q in items)]
    widths = pairs(pad_width)
    if widths is None or None in widths or len(widths) not in (1, ndim):
        raise ValueError("dml.pad: pad_width %r does not broadcast to %d dimensions (numpy.pad's forms)"
                         % (pad_width, ndim))
    widths = widths * ndim if len(widths) == 1 else widths
    flat = _check_ints("dml.pad: pad_width", [v for p in widths for v in p], 0, 0xFFFFFFFF)
    return flat[0::2], flat[1::2]


def _value_bytes(value, dtype):
    """constant_values in the array's own element bytes (numpy's cast of a
    scalar: floats truncate toward zero into integers, integers wrap)."""
    import struct
    code, bits = dtype[0], dtype[1]
    if code == _dlpack.KDL_FLOAT:
        return struct.pack({16: "<e", 32: "<f", 64: "<d"}[bits], float(value))
    if code == _dlpack.KDL_COMPLEX:
        c = complex(value)
        return struct.pack("<ff" if bits == 64 else "<dd", c.real, c.imag)
    if code == _dlpack.KDL_BOOL:
        return bytes([1 if value else 0])
    if code in (_dlpack.KDL_INT, _dlpack.KDL_UINT):
        return (int(value) & ((1 << bits) - 1)).to_bytes(bits // 8, "little")
    raise TypeError("dml.pad: constant_values for DLPack type code %d" % code)


def pad(x, pad_width, mode="constant", constant_values=0, *, backend=None):
    """DML_OPERATOR_PADDING1 with numpy.pad's convention: pad_width as numpy
    takes it (an integer, a (before, after) pair, or one pair per dimension),
    mode 'constant' (constant_values, a scalar, in x's type), 'edge',
    'reflect' (mirrored without repeating the edge) or 'symmetric' (repeating
    it). Pads larger than the input fold again, as numpy's do."""
    if mode not in PADDING_MODES:
        raise ValueError("dml.pad: mode %r; must be one of %s" % (mode, ", ".join(sorted(PADDING_MODES))))
    if hasattr(constant_values, "__iter__"):
        raise ValueError("dml.pad: constant_values must be a scalar (one value for every border)")
    device, stream, view = _placement(x, backend)
    if view.ndim == 0:
        raise ValueError("dml.pad: a 0-dimensional array has nothing to pad")
    before, after = _pad_widths(pad_width, view.ndim)
    shape = [n + b + a for n, b, a in zip(view.shape, before, after)]
    for i, n in enumerate(shape):
        if n > 0xFFFFFFFF:
            raise ValueError("dml.pad: dimension %d would have %d elements, more than 2^32 - 1" % (i, n))
    data = _readable(device, stream, view)  # PADDING cannot walk backwards: negative strides get a packed copy
    out = _Output(device, shape, data.type)
    value = _ScalarUnion()
    raw = _value_bytes(constant_values, view.dtype) if mode == "constant" else b""
    ctypes.memmove(value.Bytes, raw, len(raw))
    desc = _Padding1Desc(ctypes.pointer(data.tensor), ctypes.pointer(out.tensor), PADDING_MODES[mode], data.type,
                         value, view.ndim, _u32_array(before), _u32_array(after))
    _dispatch(device, stream, OPERATOR_PADDING1, desc, [data], [out])
    return _result(x, device, out, view.dtype)
# ---- JOIN / SPLIT ----------------------------------------------------------------


class _JoinDesc(ctypes.Structure):
    _fields_ = [("InputCount", ctypes.c_uint32), ("InputTensors", ctypes.POINTER(_lib.TENSOR_DESC)),
                ("OutputTensor", ctypes.POINTER(_lib.TENSOR_DESC)), ("Axis", ctypes.c_uint32)]


class _SplitDesc(ctypes.Structure):
    _fields_ = [("InputTensor", ctypes.POINTER(_lib.TENSOR_DESC)), ("OutputCount", ctypes.c_uint32),
                ("OutputTensors", ctypes.POINTER(_lib.TENSOR_DESC)), ("Axis", ctypes.c_uint32)]


OPERATOR_SPLIT = OperatorType.SPLIT
OPERATOR_JOIN = OperatorType.JOIN


class AxisError(ValueError, IndexError):
    """An axis out of range: a ValueError and an IndexError, as numpy's AxisError."""


def _axis(name, axis, rank):
    try:
        axis = operator.index(axis)
    except TypeError:
        raise TypeError("%s: axis must be an integer, not %s" % (name, type(axis).__name__)) from None
    if not -rank <= axis < rank:
        raise AxisError("%s: axis %d is out of bounds for array of dimension %d" % (name, axis, rank))
    return axis % rank


def _tensor_array(operands):
    return (_lib.TENSOR_DESC * len(operands))(*[o.tensor for o in operands])


def concat(arrays, axis=0, *, backend=None):
    """DML_OPERATOR_JOIN with numpy.concatenate's convention: the arrays (a
    sequence of tensors of one dtype, on one device) joined along axis
    (negative counts from the end); every other dimension must agree. Arrays
    with size 0 on axis add nothing; a result with no element is refused (as
    every operator here). No type promotion: mixed dtypes raise TypeError."""
    if hasattr(arrays, "__dlpack__"):
        raise TypeError("dml.concat: expects a sequence of tensors, not one tensor")
    arrays = list(arrays)
    if not arrays:
        raise ValueError("dml.concat: need at least one array to concatenate")
    placed = [_placement(x, backend) for x in arrays]
    device, stream, first = placed[0]
    if first.ndim == 0:
        raise ValueError("dml.concat: zero-dimensional arrays cannot be concatenated")
    axis = _axis("dml.concat", axis, first.ndim)
    for k, (d, _, view) in enumerate(placed[1:], 1):
        if d is not device or view.device != first.device:
            raise ValueError("dml.concat: arrays[%d] is on DLPack device %s, arrays[0] on %s"
                             % (k, view.device, first.device))
        if view.ndim != first.ndim:
            raise ValueError("dml.concat: all the input arrays must have same number of dimensions, but the array "
                             "at index 0 has %d dimension(s) and the array at index %d has %d dimension(s)"
                             % (first.ndim, k, view.ndim))
        for i in range(first.ndim):
            if i != axis and view.shape[i] != first.shape[i]:
                raise ValueError("dml.concat: all the input array dimensions except for the concatenation axis "
                                 "must match exactly, but along dimension %d, the array at index 0 has size %d "
                                 "and the array at index %d has size %d" % (i, first.shape[i], k, view.shape[i]))
        if view.dtype != first.dtype:
            raise TypeError("dml.concat: arrays[%d] has DLPack dtype %s, arrays[0] %s (no type promotion)"
                            % (k, view.dtype, first.dtype))
    shape = list(first.shape)
    shape[axis] = sum(view.shape[axis] for _, _, view in placed)
    if shape[axis] > 0xFFFFFFFF:
        raise ValueError("dml.concat: dimension %d would have %d elements, more than 2^32 - 1" % (axis, shape[axis]))
    # DirectML's parts have a non-zero size on the axis: empty ones are left out.
    views = [view for _, _, view in placed if view.shape[axis] or shape[axis] == 0]
    parts = [_readable(device, stream, view) for view in views]  # JOIN cannot walk backwards: packed copies
    out = _Output(device, shape, parts[0].type)
    desc = _JoinDesc(len(parts), _tensor_array(parts), ctypes.pointer(out.tensor), axis)
    _dispatch(device, stream, OPERATOR_JOIN, desc, parts, [out])
    return _result(arrays[0], device, out, first.dtype)


concatenate = concat


def _split_bounds(n, indices_or_sections):
    """[(start, stop)] of each part along an axis of n elements, numpy.split's
    way: a section count that must divide n, or split indices read as Python
    slice bounds (negative from the end, clamped to [0, n])."""
    try:
        len(indices_or_sections)
    except TypeError:
        sections = operator.index(indices_or_sections)
        if sections <= 0:
            raise ValueError("dml.split: number sections must be larger than 0")
        if n % sections:
            raise ValueError("dml.split: array split does not result in an equal division (%d elements into %d "
                             "sections)" % (n, sections))
        step = n // sections
        return [(k * step, (k + 1) * step) for k in range(sections)]
    def clamped(i):
        i = operator.index(i)
        return min(max(i + n if i < 0 else i, 0), n)

    points = [0] + [clamped(i) for i in indices_or_sections] + [n]
    for k in range(1, len(points) - 1):
        if points[k] < points[k - 1]:
            # numpy returns overlapping parts then; SPLIT partitions the axis.
            raise ValueError("dml.split: split index %d (position %d on the axis) is below the one before it (%d); "
                             "the indices must not decrease" % (k - 1, points[k], points[k - 1]))
    return list(zip(points[:-1], points[1:]))


def split(x, indices_or_sections, axis=0, *, backend=None):  # noqa: A001
    """DML_OPERATOR_SPLIT with numpy.split's convention: a list of tensors of
    x's framework. indices_or_sections: N, the number of equal parts (it must
    divide x.shape[axis]), or the indices where the parts start (sorted;
    negative counts from the end; an empty part comes back as an empty
    tensor). axis may be negative."""
    device, stream, view = _placement(x, backend)
    if view.ndim == 0:
        raise ValueError("dml.split: zero-dimensional arrays cannot be split")
    axis = _axis("dml.split", axis, view.ndim)
    bounds = _split_bounds(view.shape[axis], indices_or_sections)
    data = _readable(device, stream, view)  # SPLIT cannot walk backwards: negative strides get a packed copy
    outs = []
    for start, stop in bounds:
        shape = list(view.shape)
        shape[axis] = stop - start
        outs.append(_Output(device, shape, data.type))
    # DirectML's parts have a non-zero size on the axis: empty ones are made here, not by SPLIT.
    parts = [o for o in outs if o.shape[axis]]
    desc = _SplitDesc(ctypes.pointer(data.tensor), len(parts), _tensor_array(parts), axis)
    _dispatch(device, stream, OPERATOR_SPLIT, desc, [data], parts)
    return [_result(x, device, o, view.dtype) for o in outs]


# ---- FILL_VALUE_CONSTANT / FILL_VALUE_SEQUENCE --------------------------------

OPERATOR_FILL_VALUE_CONSTANT = OperatorType.FILL_VALUE_CONSTANT
OPERATOR_FILL_VALUE_SEQUENCE = OperatorType.FILL_VALUE_SEQUENCE


class _FillConstantDesc(ctypes.Structure):
    _fields_ = [("OutputTensor", ctypes.POINTER(_lib.TENSOR_DESC)), ("ValueDataType", ctypes.c_int),
                ("Value", _ScalarUnion)]


class _FillSequenceDesc(ctypes.Structure):
    _fields_ = [("OutputTensor", ctypes.POINTER(_lib.TENSOR_DESC)), ("ValueDataType", ctypes.c_int),
                ("ValueStart", _ScalarUnion), ("ValueDelta", _ScalarUnion)]


_DLPACK_CODE = {"f": _dlpack.KDL_FLOAT, "i": _dlpack.KDL_INT, "u": _dlpack.KDL_UINT, "b": _dlpack.KDL_BOOL}


def _fill_type(name, dtype):
    """(numpy dtype, DML data type, DLPack dtype) for a numpy-style dtype."""
    import numpy as np
    dtype = np.dtype(dtype)
    if dtype.kind not in _DLPACK_CODE or dtype.itemsize not in (1, 2, 4, 8):
        raise TypeError("%s: dtype %s is not supported (bool, integers, float16/32/64)" % (name, dtype))
    key = {"f": "FLOAT", "i": "INT", "u": "UINT", "b": "UINT"}[dtype.kind] + str(8 * dtype.itemsize)
    return dtype, _lib.DATA_TYPES[key][0], (_DLPACK_CODE[dtype.kind], 8 * dtype.itemsize, 1)


def _scalar(value, dtype):
    """value in dtype's bits (numpy's conversion), as DML_SCALAR_UNION."""
    import numpy as np
    union = _ScalarUnion()
    data = np.array(value, dtype=dtype).tobytes()
    ctypes.memmove(union.Bytes, data, len(data))
    return union


def _fill(name, shape, dtype, backend, make_desc):
    device = _device(backend or "cpu", 0)
    out = _Output(device, shape, dtype[1])
    desc = make_desc(ctypes.pointer(out.tensor))
    _dispatch(device, None, OPERATOR_FILL_VALUE_SEQUENCE if isinstance(desc, _FillSequenceDesc)
              else OPERATOR_FILL_VALUE_CONSTANT, desc, [], [out])
    tensor = Tensor(device, out.buffer, out.shape, dtype[2])
    if device.backend == "cuda":
        return tensor
    import numpy as np
    return np.from_dlpack(tensor)


def _fill_shape(name, shape):
    shape = [shape] if not hasattr(shape, "__iter__") else list(shape)
    shape = _check_ints("%s: shape" % name, shape, 0, 0xFFFFFFFF)
    if not shape:
        raise ValueError("%s: a 0-dimensional result is not supported (give shape a dimension)" % name)
    if 0 in shape:
        raise ValueError("%s: empty tensors (a dimension of size 0) are not supported: shape %s" % (name, shape))
    return shape


def full(shape, fill_value, dtype=None, *, backend=None):
    """DML_OPERATOR_FILL_VALUE_CONSTANT with numpy.full's convention: a new
    tensor of shape (an integer or a sequence) every element of which is
    fill_value converted to dtype (default: numpy.array(fill_value).dtype).
    No input: it runs on backend (default "cpu") and returns a numpy array
    on host backends, a dml.Tensor (DLPack: torch.from_dlpack, cupy) on
    "cuda"."""
    import numpy as np
    shape = _fill_shape("dml.full", shape)
    dtype = _fill_type("dml.full", np.array(fill_value).dtype if dtype is None else dtype)
    value = _scalar(fill_value, dtype[0])
    return _fill("dml.full", shape, dtype, backend, lambda out: _FillConstantDesc(out, dtype[1], value))


def arange(start, stop=None, step=1, dtype=None, *, backend=None):
    """DML_OPERATOR_FILL_VALUE_SEQUENCE with numpy.arange's convention:
    arange(stop), arange(start, stop[, step]); ceil((stop - start) / step)
    elements (exact for integers; in float64 otherwise, as numpy), element
    k = start + k * step computed in dtype (default: numpy's result type of
    start, stop and step). Integers wrap; floats round k * step and the sum
    once each (float16 in float32, rounded once). numpy derives its step
    from the first two values it stores, dtype(start + step) - dtype(start),
    so float results can differ from numpy.arange's in the last bits where
    start + step is not exact in dtype (docs/python.md). An empty result is
    refused (ValueError)."""
    import math
    import numpy as np
    if stop is None:
        start, stop = 0, start
    if step == 0:
        raise ValueError("dml.arange: step is 0")
    if dtype is None:
        dtype = np.result_type(np.asarray(start), np.asarray(stop), np.asarray(step))
    dtype = _fill_type("dml.arange", dtype)
    values = (start, stop, step)
    if all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in values):
        count = -((int(start) - int(stop)) // int(step))  # exact ceil((stop - start) / step)
    else:
        count = math.ceil((float(stop) - float(start)) / float(step))
    if count <= 0:
        raise ValueError("dml.arange: the result would be empty (start %r, stop %r, step %r)" % values)
    if count > 0xFFFFFFFF:
        raise ValueError("dml.arange: %d elements, more than 2^32 - 1" % count)
    first, delta = _scalar(start, dtype[0]), _scalar(step, dtype[0])
    return _fill("dml.arange", [count], dtype, backend, lambda out: _FillSequenceDesc(out, dtype[1], first, delta))


# ---- CAST ----------------------------------------------------------------------


class _CastDesc(ctypes.Structure):
    _fields_ = [("InputTensor", ctypes.POINTER(_lib.TENSOR_DESC)), ("OutputTensor", ctypes.POINTER(_lib.TENSOR_DESC))]


OPERATOR_CAST = OperatorType.CAST
# (DLPack type code, bits) -> DML data type name; bool travels as its 0/1 byte.
_CAST_TYPES = {(_dlpack.KDL_FLOAT, 16): "FLOAT16", (_dlpack.KDL_FLOAT, 32): "FLOAT32",
               (_dlpack.KDL_FLOAT, 64): "FLOAT64", (_dlpack.KDL_INT, 8): "INT8", (_dlpack.KDL_INT, 16): "INT16",
               (_dlpack.KDL_INT, 32): "INT32", (_dlpack.KDL_INT, 64): "INT64", (_dlpack.KDL_UINT, 8): "UINT8",
               (_dlpack.KDL_UINT, 16): "UINT16", (_dlpack.KDL_UINT, 32): "UINT32", (_dlpack.KDL_UINT, 64): "UINT64"}
_KIND_CODES = {"f": _dlpack.KDL_FLOAT, "i": _dlpack.KDL_INT, "u": _dlpack.KDL_UINT, "b": _dlpack.KDL_BOOL}
# Names understood without numpy (numpy's canonical names and short codes).
_DTYPE_NAMES = dict([("float16", "f2"), ("half", "f2"), ("float32", "f4"), ("single", "f4"), ("float64", "f8"),
                     ("double", "f8"), ("float", "f8"), ("int8", "i1"), ("int16", "i2"), ("int32", "i4"),
                     ("int64", "i8"), ("uint8", "u1"), ("uint16", "u2"), ("uint32", "u4"), ("uint64", "u8"),
                     ("bool", "b1")] + [(c, c) for c in ("f2", "f4", "f8", "i1", "i2", "i4", "i8", "u1", "u2", "u4",
                                                          "u8", "b1")])


def _cast_target(dtype):
    """(DLPack code, bits) of a target dtype given as numpy.astype takes it (a
    numpy dtype or scalar type, a string such as "float16" or "<f2"), or a
    torch dtype."""
    kind_size = None
    if hasattr(dtype, "kind") and hasattr(dtype, "itemsize"):  # a numpy dtype
        kind_size = dtype.kind + str(dtype.itemsize)
    elif "numpy" in sys.modules and not type(dtype).__module__.startswith("torch"):
        try:
            d = sys.modules["numpy"].dtype(dtype)
            kind_size = d.kind + str(d.itemsize)
        except TypeError:
            pass
    if kind_size is None:
        name = str(dtype).replace("torch.", "").lstrip("<=|")
        kind_size = _DTYPE_NAMES.get(name)
    if kind_size is None or kind_size[0] not in _KIND_CODES:
        raise TypeError("dml.cast: dtype %r is not a numeric type DirectML casts to" % (dtype,))
    code, bits = _KIND_CODES[kind_size[0]], 8 * int(kind_size[1:])
    if code == _dlpack.KDL_BOOL:
        raise TypeError("dml.cast: DirectML has no boolean type; compare instead (x != 0)")
    if (code, bits) not in _CAST_TYPES:
        raise TypeError("dml.cast: dtype %r is not one of DirectML's eleven types" % (dtype,))
    return code, bits


def cast(x, dtype, *, backend=None):
    """DML_OPERATOR_CAST with numpy's astype convention: x converted to dtype
    (a numpy dtype, scalar type or name, or a torch dtype), a new packed
    tensor. The rules are the runtime's (docs/operators.md), numpy's where
    numpy defines them: floats to integers truncate toward zero and saturate
    (NaN gives 0, where numpy's result is undefined); integers wrap into
    narrower integers; conversions into floats round once to nearest even.
    A bool x is read as 0/1 bytes (UINT8)."""
    code, bits = _cast_target(dtype)
    device, stream, view = _placement(x, backend)
    source = (_dlpack.KDL_UINT, 8) if view.dtype[:2] == (_dlpack.KDL_BOOL, 8) else view.dtype[:2]
    if source not in _CAST_TYPES:
        raise TypeError("dml.cast: x's DLPack type (code %d, %d bits) is not one of DirectML's eleven types"
                        % view.dtype[:2])
    in_type = _lib.DATA_TYPES[_CAST_TYPES[source]][0]
    out_type = _lib.DATA_TYPES[_CAST_TYPES[(code, bits)]][0]
    shape = tuple(view.shape)
    if view.ndim == 0:  # DirectML tensors have a dimension: the scalar as [1]
        view.shape, view.strides, view.ndim = (1,), (0,), 1
    data = _readable(device, stream, view, in_type)  # CAST cannot walk backwards: negative strides get a packed copy
    out = _Output(device, view.shape, out_type)
    desc = _CastDesc(ctypes.pointer(data.tensor), ctypes.pointer(out.tensor))
    _dispatch(device, stream, OPERATOR_CAST, desc, [data], [out])
    out.shape = shape
    return _result(x, device, out, (code, bits, 1))


# ---- GATHER / GATHER_ELEMENTS / GATHER_ND1 / SCATTER_ELEMENTS / SCATTER_ND / ONE_HOT / ELEMENT_WISE_IF ----
# Every tensor of one of these operators has one DimensionCount: lower-rank
# operands get leading 1s (stride 0), and broadcasting is done the same way.

_O = OperatorType
OPERATOR_GATHER, OPERATOR_ELEMENT_WISE_IF, OPERATOR_SCATTER_ELEMENTS, OPERATOR_ONE_HOT = (
    _O.GATHER, _O.ELEMENT_WISE_IF, _O.SCATTER_ELEMENTS, _O.ONE_HOT)
OPERATOR_GATHER_ELEMENTS, OPERATOR_SCATTER_ND, OPERATOR_GATHER_ND1 = _O.GATHER_ELEMENTS, _O.SCATTER_ND, _O.GATHER_ND1

_TENSOR_P = ctypes.POINTER(_lib.TENSOR_DESC)


class _GatherDesc(ctypes.Structure):
    _fields_ = [("InputTensor", _TENSOR_P), ("IndicesTensor", _TENSOR_P), ("OutputTensor", _TENSOR_P),
                ("Axis", ctypes.c_uint32), ("IndexDimensions", ctypes.c_uint32)]


class _GatherElementsDesc(ctypes.Structure):
    _fields_ = [("InputTensor", _TENSOR_P), ("IndicesTensor", _TENSOR_P), ("OutputTensor", _TENSOR_P),
                ("Axis", ctypes.c_uint32)]


class _GatherNd1Desc(ctypes.Structure):
    _fields_ = [("InputTensor", _TENSOR_P), ("IndicesTensor", _TENSOR_P), ("OutputTensor", _TENSOR_P),
                ("InputDimensionCount", ctypes.c_uint32), ("IndicesDimensionCount", ctypes.c_uint32),
                ("BatchDimensionCount", ctypes.c_uint32)]


class _ScatterDesc(ctypes.Structure):
    _fields_ = [("InputTensor", _TENSOR_P), ("IndicesTensor", _TENSOR_P), ("UpdatesTensor", _TENSOR_P),
                ("OutputTensor", _TENSOR_P), ("Axis", ctypes.c_uint32)]


class _ScatterNdDesc(ctypes.Structure):
    _fields_ = [("InputTensor", _TENSOR_P), ("IndicesTensor", _TENSOR_P), ("UpdatesTensor", _TENSOR_P),
                ("OutputTensor", _TENSOR_P), ("InputDimensionCount", ctypes.c_uint32),
                ("IndicesDimensionCount", ctypes.c_uint32)]


class _OneHotDesc(ctypes.Structure):
    _fields_ = [("IndicesTensor", _TENSOR_P), ("ValuesTensor", _TENSOR_P), ("OutputTensor", _TENSOR_P),
                ("Axis", ctypes.c_uint32)]


class _IfDesc(ctypes.Structure):
    _fields_ = [("ConditionTensor", _TENSOR_P), ("ATensor", _TENSOR_P), ("BTensor", _TENSOR_P),
                ("OutputTensor", _TENSOR_P)]


# (DLPack code, bits) of an index tensor -> its DML type: signedness matters
# (a negative INT64 counts from the end; the same bits as UINT64 are out of range).
_INDEX_TYPES = {(_dlpack.KDL_INT, 32): _lib.DATA_TYPES["INT32"][0], (_dlpack.KDL_INT, 64): _lib.DATA_TYPES["INT64"][0],
                (_dlpack.KDL_UINT, 32): _lib.DATA_TYPES["UINT32"][0],
                (_dlpack.KDL_UINT, 64): _lib.DATA_TYPES["UINT64"][0]}


def _p(operand):
    return ctypes.pointer(operand.tensor)


class _View:
    """A tensor's elements as an operand sees them (shape, strides in
    elements): a DLPack view reshaped by broadcasting, never copied."""

    def __init__(self, view, shape, strides):
        self.__dict__.update(view.__dict__)
        self.shape, self.strides, self.ndim = tuple(shape), tuple(strides), len(shape)


def _aligned(view, rank):
    """view with leading 1s up to rank."""
    pad = rank - view.ndim
    return _View(view, (1,) * pad + tuple(view.shape), (0,) * pad + tuple(view.strides))


def _broadcast_to(name, what, view, shape):
    """view broadcast to shape by numpy's rules (right-aligned, a 1 repeats
    through stride 0), or ValueError naming both shapes."""
    if view.ndim > len(shape):
        raise ValueError("%s: %s of shape %s cannot be broadcast to %s" % (name, what, view.shape, tuple(shape)))
    v = _aligned(view, len(shape))
    sizes, strides = list(v.shape), list(v.strides)
    for d, n in enumerate(shape):
        if sizes[d] != n:
            if sizes[d] != 1:
                raise ValueError("%s: %s of shape %s cannot be broadcast to %s" % (name, what, view.shape, tuple(shape)))
            sizes[d], strides[d] = n, 0
    return _View(view, sizes, strides)


def _broadcast_shape(name, shapes):
    """numpy.broadcast_shapes, with a message naming the operands."""
    rank = max(len(s) for _, s in shapes)
    out = [1] * rank
    for what, s in shapes:
        for d, n in enumerate((1,) * (rank - len(s)) + tuple(s)):
            if n != 1 and out[d] not in (1, n):
                raise ValueError("%s: shapes %s do not broadcast together (%s has %d on dimension %d, another %d)"
                                 % (name, ", ".join(str(tuple(t)) for _, t in shapes), what, n, d, out[d]))
            out[d] = max(out[d], n) if n != 1 else out[d]
    return out


def _check_rank(name, rank):
    if rank > _lib.MAX_RANK:
        raise ValueError("%s: the operator's tensors would need %d dimensions; DirectML has at most %d"
                         % (name, rank, _lib.MAX_RANK))
    return max(rank, 1)


class _HostTensor:
    """Host bytes (Python values) in a fresh runtime buffer, described with
    sizes and strides in elements (a stride of 0 broadcasts)."""

    def __init__(self, device, stream, raw, data_type, sizes, strides):
        self.type, self.rank, self.sizes = data_type, len(sizes), _u32_array(sizes)
        self.strides = _u32_array(strides)
        total = lib.DMLCalcBufferTensorSize(data_type, self.rank, self.sizes, self.strides)
        self.desc = _lib.BUFFER_TENSOR_DESC(data_type, 0, self.rank, self.sizes, self.strides, total, 0)
        self.tensor = _lib.TENSOR_DESC(_lib.TENSOR_TYPE_BUFFER, ctypes.cast(ctypes.pointer(self.desc), ctypes.c_void_p))
        self.buffer = create(lib.dmlDeviceCreateBuffer, device.handle.value, total)
        self.binding = _lib.BUFFER_BINDING(self.buffer.value, 0, total)
        data = ctypes.create_string_buffer(bytes(raw) + bytes(max(total - len(raw), 0)), total)
        with device.lock:
            check(lib.dmlCommandQueueWriteBuffer(device.queue(stream).value, self.buffer.value, 0, data, total))


def _packed_strides(shape):
    strides, step = [], 1
    for n in reversed(shape):
        strides.append(step)
        step *= n
    return strides[::-1]


def _nested(name, values):
    """(shape, flat list) of nested Python sequences of integers."""
    if not hasattr(values, "__iter__"):
        return (), [operator.index(values)]
    items = list(values)
    if not items:
        raise ValueError("%s: empty index sequences are not supported" % name)
    parts = [_nested(name, v) for v in items]
    shape = parts[0][0]
    if any(p[0] != shape for p in parts):
        raise ValueError("%s: indices are a ragged sequence (sub-sequences of different shapes)" % name)
    return (len(items),) + shape, [v for p in parts for v in p[1]]


class _Indices:
    """An index operand source: a DLPack tensor (INT32, INT64, UINT32 or
    UINT64) on the data's device, or nested Python integers (INT64, or
    UINT64 when a value needs it), written into a runtime buffer."""

    def __init__(self, name, indices, device, stream, device_of_data, view=None):
        self.name, self.host = name, None
        if view is not None or hasattr(indices, "__dlpack__"):
            view = view or _dlpack.consume(indices, stream)
            if view.device[0] != device_of_data[0] or (view.device[0] != _dlpack.KDL_CPU
                                                      and view.device != device_of_data):
                raise ValueError("%s: indices live on DLPack device %s, the data on %s"
                                 % (name, view.device, device_of_data))
            if view.dtype[:2] not in _INDEX_TYPES or view.dtype[2] != 1:
                raise TypeError("%s: indices must be int32, int64, uint32 or uint64 (DLPack type code %d, %d bits)"
                                % ((name,) + tuple(view.dtype[:2])))
            self.view, self.type = view, _INDEX_TYPES[view.dtype[:2]]
        else:
            shape, flat = _nested(name, indices)
            if all(-2**63 <= v < 2**63 for v in flat):
                fmt, self.type = "q", _lib.DATA_TYPES["INT64"][0]
            elif all(0 <= v < 2**64 for v in flat):
                fmt, self.type = "Q", _lib.DATA_TYPES["UINT64"][0]
            else:
                raise ValueError("%s: an index does not fit 64 bits" % name)
            import array
            self.host = array.array(fmt, flat).tobytes()
            self.view = None
            self.shape = shape
        if self.view is not None:
            self.shape = tuple(self.view.shape)
        self.ndim = len(self.shape)

    def insert_axis(self, axis):
        """A dimension of 1 before dimension axis (ONE_HOT's Axis)."""
        self.shape = self.shape[:axis] + (1,) + self.shape[axis:]
        self.ndim += 1
        if self.view is not None:
            v = self.view
            self.view = _View(v, self.shape, tuple(v.strides[:axis]) + (0,) + tuple(v.strides[axis:]))

    def operand(self, device, stream, shape):
        """The operand with the given (rank-aligned, maybe broadcast) shape:
        shape is the index shape with leading 1s and broadcast dimensions."""
        if self.view is not None:
            v = _broadcast_to(self.name, "indices", self.view, shape)
            return _readable(device, stream, v, self.type)
        aligned = (1,) * (len(shape) - self.ndim) + self.shape
        strides = [0] * (len(shape) - self.ndim) + _packed_strides(self.shape)
        strides = [0 if a != n else s for a, n, s in zip(aligned, shape, strides)]
        return _HostTensor(device, stream, self.host, self.type, list(shape), strides)


def _data(device, stream, view, rank, name="", shape=None):
    """A data operand aligned to rank (or broadcast to shape)."""
    v = _broadcast_to(name, "x", view, shape) if shape is not None else _aligned(view, rank)
    return _readable(device, stream, v)


def _finish(x, device, stream, op_type, desc, inputs, out, shape, dtype):
    _dispatch(device, stream, op_type, desc, inputs, [out])
    out.shape = tuple(shape)
    return _result(x, device, out, dtype)


class _BufferOperand:
    """An operand over a whole runtime buffer under a given description."""

    def __init__(self, buffer, data_type, sizes, strides):
        self.type, self.rank = data_type, len(sizes)
        self.sizes, self.strides = _u32_array(sizes), _u32_array(strides)
        total = lib.DMLCalcBufferTensorSize(data_type, self.rank, self.sizes, self.strides)
        self.desc = _lib.BUFFER_TENSOR_DESC(data_type, 0, self.rank, self.sizes, self.strides, total, 0)
        self.tensor = _lib.TENSOR_DESC(_lib.TENSOR_TYPE_BUFFER, ctypes.cast(ctypes.pointer(self.desc), ctypes.c_void_p))
        self.buffer = buffer  # keeps the copy alive
        self.binding = _lib.BUFFER_BINDING(buffer.value, 0, total)


def _flat(device, stream, view):
    """A function rank -> x flattened as an operand of that rank: x itself
    when it is row-major (size-1 dimensions aside), else a packed copy."""
    count = 1
    for n in view.shape:
        count *= n
    walk = [(n, s) for n, s in zip(view.shape, view.strides) if n != 1]
    if [s for _, s in walk] == _packed_strides([n for n, _ in walk]):
        return count, lambda rank: _readable(device, stream, _aligned(_View(view, (count,), (1,)), rank))
    whole = view if view.ndim else _View(view, (1,), (0,))
    packed = _stage(device, stream, _Operand(device, whole), whole)
    return count, lambda rank: _BufferOperand(packed.buffer, packed.type, [1] * (rank - 1) + [count],
                                              [0] * (rank - 1) + [1])


def take(x, indices, axis=None, *, backend=None):
    """DML_OPERATOR_GATHER with numpy.take's convention: the elements of x at
    indices along axis (None: of x flattened); the result's shape is
    x.shape[:axis] + indices.shape + x.shape[axis+1:]. indices: an int32,
    int64, uint32 or uint64 tensor on x's device, or (nested) Python
    integers. A negative signed index counts from the end once; an index
    still out of range is clamped to the nearest end (numpy's mode="clip"
    after the wrap), never raised: the indices live in device memory."""
    device, stream, view = _placement(x, backend)
    idx = _Indices("dml.take", indices, device, stream, view.device)
    if axis is None:
        count, make = _flat(device, stream, view)
        x_shape, axis = (count,), 0
    else:
        if view.ndim == 0:
            raise AxisError("dml.take: axis %r is out of bounds for array of dimension 0" % (axis,))
        axis = _axis("dml.take", axis, view.ndim)
        x_shape = tuple(view.shape)
        make = lambda rank: _data(device, stream, view, rank)  # noqa: E731
    out_shape = x_shape[:axis] + idx.shape + x_shape[axis + 1:]
    rank = _check_rank("dml.take", max(len(x_shape), idx.ndim, len(out_shape)))
    data = make(rank)
    idx_operand = idx.operand(device, stream, (1,) * (rank - idx.ndim) + idx.shape)
    out = _Output(device, (1,) * (rank - len(out_shape)) + out_shape, data.type)
    desc = _GatherDesc(_p(data), _p(idx_operand), _p(out), axis + rank - len(x_shape), idx.ndim)
    return _finish(x, device, stream, OPERATOR_GATHER, desc, [data, idx_operand], out, out_shape, view.dtype)


def take_along_axis(x, indices, axis, *, backend=None):
    """DML_OPERATOR_GATHER_ELEMENTS with numpy.take_along_axis's convention:
    out[c] = x[c with c[axis] = indices[c]]; indices has x's number of
    dimensions, and it and x broadcast against each other on every other
    dimension (numpy's rules). axis None: x flattened, 1-D indices. Indices
    as in dml.take: negative ones count from the end once, the others out of
    range are clamped (never raised)."""
    device, stream, view = _placement(x, backend)
    idx = _Indices("dml.take_along_axis", indices, device, stream, view.device)
    if axis is None:
        count, make = _flat(device, stream, view)
        x_shape, axis = (count,), 0
    else:
        if view.ndim == 0:
            raise AxisError("dml.take_along_axis: axis %r is out of bounds for array of dimension 0" % (axis,))
        axis = _axis("dml.take_along_axis", axis, view.ndim)
        x_shape, make = tuple(view.shape), None
    if idx.ndim != len(x_shape):
        raise ValueError("dml.take_along_axis: indices has %d dimension(s), x%s %d; they must be equal"
                         % (idx.ndim, " flattened" if make else "", len(x_shape)))
    shape = _broadcast_shape("dml.take_along_axis", [("x", x_shape[:axis] + (1,) + x_shape[axis + 1:]),
                                                     ("indices", idx.shape[:axis] + (1,) + idx.shape[axis + 1:])])
    x_full = tuple(shape[:axis]) + (x_shape[axis],) + tuple(shape[axis + 1:])
    out_shape = tuple(shape[:axis]) + (idx.shape[axis],) + tuple(shape[axis + 1:])
    rank = _check_rank("dml.take_along_axis", len(x_shape))
    data = make(rank) if make else _data(device, stream, view, rank, "dml.take_along_axis", x_full)
    idx_operand = idx.operand(device, stream, out_shape)
    out = _Output(device, out_shape, data.type)
    desc = _GatherElementsDesc(_p(data), _p(idx_operand), _p(out), axis)
    return _finish(x, device, stream, OPERATOR_GATHER_ELEMENTS, desc, [data, idx_operand], out, out_shape,
                   view.dtype)


def _tuple_shape(name, x_shape, idx, batch_dims):
    """GATHER_ND / SCATTER_ND's checks (ONNX's rules); K, the tuple's length."""
    if not x_shape:
        raise ValueError("%s: x must have at least one dimension" % name)
    if idx.ndim < 1:
        raise ValueError("%s: indices must have at least one dimension (its last holds the index tuples)" % name)
    if not 0 <= batch_dims < min(idx.ndim, len(x_shape) + 1) or batch_dims >= idx.ndim:
        raise ValueError("%s: batch_dims = %d; must be in [0, %d) (below indices.ndim %d and at most x.ndim %d)"
                         % (name, batch_dims, min(idx.ndim, len(x_shape) + 1), idx.ndim, len(x_shape)))
    k = idx.shape[-1]
    if k > len(x_shape) - batch_dims:
        raise ValueError("%s: indices.shape[-1] = %d (the index tuple's length); must be at most x.ndim %d - "
                         "batch_dims %d = %d" % (name, k, len(x_shape), batch_dims, len(x_shape) - batch_dims))
    for d in range(batch_dims):
        if idx.shape[d] != x_shape[d]:
            raise ValueError("%s: batch dimension %d: indices.shape[%d] = %d differs from x.shape[%d] = %d"
                             % (name, d, d, idx.shape[d], d, x_shape[d]))
    return k


def gather_nd(x, indices, batch_dims=0, *, backend=None):
    """DML_OPERATOR_GATHER_ND1 with ONNX's GatherND (and TensorFlow's
    gather_nd) convention: indices' last dimension holds tuples of K
    coordinates into x's dimensions after the first batch_dims (which x and
    indices share); the result's shape is indices.shape[:-1] +
    x.shape[batch_dims + K:]. Each coordinate follows dml.take's rule
    (negative from the end once, then clamped into its dimension)."""
    batch_dims = operator.index(batch_dims)
    device, stream, view = _placement(x, backend)
    idx = _Indices("dml.gather_nd", indices, device, stream, view.device)
    k = _tuple_shape("dml.gather_nd", tuple(view.shape), idx, batch_dims)
    out_shape = idx.shape[:-1] + tuple(view.shape[batch_dims + k:])
    rank = _check_rank("dml.gather_nd", max(view.ndim, idx.ndim, len(out_shape)))
    data = _data(device, stream, view, rank)
    idx_operand = idx.operand(device, stream, (1,) * (rank - idx.ndim) + idx.shape)
    out = _Output(device, (1,) * (rank - len(out_shape)) + out_shape, data.type)
    desc = _GatherNd1Desc(_p(data), _p(idx_operand), _p(out), view.ndim, idx.ndim, batch_dims)
    return _finish(x, device, stream, OPERATOR_GATHER_ND1, desc, [data, idx_operand], out, out_shape, view.dtype)


def _values(name, what, value, device, stream, view, data_type, shape):
    """An operand of x's dtype broadcast to shape: a tensor on x's device
    (same dtype: no type promotion) or a Python scalar."""
    if hasattr(value, "__dlpack__"):
        v = _dlpack.consume(value, stream)
        if v.device[0] != view.device[0] or (v.device[0] != _dlpack.KDL_CPU and v.device != view.device):
            raise ValueError("%s: %s live on DLPack device %s, x on %s" % (name, what, v.device, view.device))
        if v.dtype != view.dtype:
            raise TypeError("%s: %s have DLPack dtype %s, x %s (no type promotion)" % (name, what, v.dtype, view.dtype))
        return _readable(device, stream, _broadcast_to(name, what, v, shape), data_type)
    if hasattr(value, "__iter__"):
        raise TypeError("%s: %s must be a tensor (DLPack) or a scalar" % (name, what))
    return _HostTensor(device, stream, _value_bytes(value, view.dtype), data_type, list(shape), [0] * len(shape))


def scatter(x, indices, updates, axis, *, backend=None):
    """DML_OPERATOR_SCATTER_ELEMENTS with numpy.put_along_axis's convention,
    returning a new array: out = a copy of x, then out[c with c[axis] =
    indices[c]] = updates[c] for every coordinate c of indices. indices has
    x's number of dimensions and x's sizes but on axis (a 1 broadcasts);
    updates (a tensor of x's dtype, or a scalar) broadcasts to indices'
    shape. A negative signed index counts from the end once; an update whose
    index is still out of range is dropped (never raised). Where several
    updates hit one element, one of them wins (on "cpu" the last)."""
    device, stream, view = _placement(x, backend)
    if view.ndim == 0:
        raise ValueError("dml.scatter: x must have at least one dimension")
    axis = _axis("dml.scatter", axis, view.ndim)
    idx = _Indices("dml.scatter", indices, device, stream, view.device)
    if idx.ndim != view.ndim:
        raise ValueError("dml.scatter: indices has %d dimension(s), x %d; they must be equal" % (idx.ndim, view.ndim))
    for d in range(view.ndim):
        if d != axis and idx.shape[d] not in (1, view.shape[d]):
            raise ValueError("dml.scatter: indices.shape[%d] = %d differs from x.shape[%d] = %d (they must agree on "
                             "every dimension but axis %d, or be 1 there)" % (d, idx.shape[d], d, view.shape[d], axis))
    shape = tuple(view.shape[:axis]) + (idx.shape[axis],) + tuple(view.shape[axis + 1:])
    data = _data(device, stream, view, view.ndim)
    idx_operand = idx.operand(device, stream, shape)
    upd = _values("dml.scatter", "updates", updates, device, stream, view, data.type, shape)
    out = _Output(device, view.shape, data.type)
    desc = _ScatterDesc(_p(data), _p(idx_operand), _p(upd), _p(out), axis)
    return _finish(x, device, stream, OPERATOR_SCATTER_ELEMENTS, desc, [data, idx_operand, upd], out, view.shape,
                   view.dtype)


def scatter_nd(x, indices, updates, *, backend=None):
    """DML_OPERATOR_SCATTER_ND with ONNX's ScatterND convention (reduction
    none), returning a new array: out = a copy of x, then for every index
    tuple i (indices' last dimension holds K coordinates)
    out[indices[i]] = updates[i], where updates' shape is indices.shape[:-1]
    + x.shape[K:] (a tensor of x's dtype broadcast to it, or a scalar).
    Indices follow dml.scatter's rule: an out-of-range tuple is dropped."""
    device, stream, view = _placement(x, backend)
    idx = _Indices("dml.scatter_nd", indices, device, stream, view.device)
    k = _tuple_shape("dml.scatter_nd", tuple(view.shape), idx, 0)
    upd_shape = idx.shape[:-1] + tuple(view.shape[k:])
    rank = _check_rank("dml.scatter_nd", max(view.ndim, idx.ndim, len(upd_shape)))
    data = _data(device, stream, view, rank)
    idx_operand = idx.operand(device, stream, (1,) * (rank - idx.ndim) + idx.shape)
    upd = _values("dml.scatter_nd", "updates", updates, device, stream, view, data.type,
                  (1,) * (rank - len(upd_shape)) + upd_shape)
    out = _Output(device, (1,) * (rank - view.ndim) + tuple(view.shape), data.type)
    desc = _ScatterNdDesc(_p(data), _p(idx_operand), _p(upd), _p(out), view.ndim, idx.ndim)
    return _finish(x, device, stream, OPERATOR_SCATTER_ND, desc, [data, idx_operand, upd], out, view.shape,
                   view.dtype)


def one_hot(indices, depth, axis=-1, on_value=1, off_value=0, dtype="float32", *, backend=None):
    """DML_OPERATOR_ONE_HOT with TensorFlow's one_hot convention: a new
    dimension of depth elements inserted at axis (-1: last), on_value at
    the position each index names and off_value elsewhere, in dtype (a
    numpy dtype or name; default float32). indices: an int32, int64, uint32
    or uint64 tensor (the result is of its framework, on its device) or
    Python integers (the result is a numpy array, computed on backend,
    "cpu" by default). A negative signed index counts from the end once
    (-1 is depth - 1, as ONNX's OneHot); one still out of range gives an
    all-off row."""
    depth = operator.index(depth)
    if not 1 <= depth <= 0xFFFFFFFF:
        raise ValueError("dml.one_hot: depth = %d; must be in [1, 2^32 - 1]" % depth)
    np_dtype, data_type, dl_dtype = _fill_type("dml.one_hot", dtype)
    if hasattr(indices, "__dlpack__"):
        device, stream, view = _placement(indices, backend)
        idx = _Indices("dml.one_hot", indices, device, stream, view.device, view)
    else:
        device, stream = _device(backend or "cpu", 0), None
        idx = _Indices("dml.one_hot", indices, device, stream, None)
    ndim = idx.ndim
    try:
        axis = operator.index(axis)
    except TypeError:
        raise TypeError("dml.one_hot: axis must be an integer, not %s" % type(axis).__name__) from None
    if not -(ndim + 1) <= axis <= ndim:
        raise AxisError("dml.one_hot: axis %d is out of bounds for a result of dimension %d" % (axis, ndim + 1))
    axis %= ndim + 1
    out_shape = idx.shape[:axis] + (depth,) + idx.shape[axis:]
    rank = _check_rank("dml.one_hot", len(out_shape))
    idx.insert_axis(axis)
    idx_operand = idx.operand(device, stream, out_shape[:axis] + (1,) + out_shape[axis + 1:])
    raw = _scalar(off_value, np_dtype)
    raw_on = _scalar(on_value, np_dtype)
    size = np_dtype.itemsize
    values = _HostTensor(device, stream, bytes(raw.Bytes)[:size] + bytes(raw_on.Bytes)[:size], data_type,
                         [1] * (rank - 1) + [2], [0] * (rank - 1) + [1])
    out = _Output(device, out_shape, data_type)
    desc = _OneHotDesc(_p(idx_operand), _p(values), _p(out), axis)
    _dispatch(device, stream, OPERATOR_ONE_HOT, desc, [idx_operand, values], [out])
    if idx.view is not None:
        return _result(indices, device, out, dl_dtype)
    tensor = Tensor(device, out.buffer, out.shape, dl_dtype)
    if device.backend == "cuda":
        return tensor
    import numpy as np
    return np.from_dlpack(tensor)


def where(condition, a, b, *, backend=None):
    """DML_OPERATOR_ELEMENT_WISE_IF with numpy.where's three-argument
    convention: a where condition is true, else b, all three broadcast
    together (numpy's rules, through strides of 0; nothing is copied).
    condition: a bool (or uint8/int8: non-zero is true) tensor; a and b:
    tensors of one dtype on condition's device (no type promotion), or one
    of them a Python scalar (then of the other's dtype). The result is of
    a's framework (b's when a is a scalar)."""
    device, stream, cview = _placement(condition, backend)
    if cview.dtype[:2] not in ((_dlpack.KDL_BOOL, 8), (_dlpack.KDL_UINT, 8), (_dlpack.KDL_INT, 8)):
        raise TypeError("dml.where: condition must be a bool or uint8 tensor (DLPack type code %d, %d bits); "
                        "compare first (condition != 0)" % cview.dtype[:2])
    views = {}
    for what, value in (("a", a), ("b", b)):
        if hasattr(value, "__dlpack__"):
            v = _dlpack.consume(value, stream)
            if v.device[0] != cview.device[0] or (v.device[0] != _dlpack.KDL_CPU and v.device != cview.device):
                raise ValueError("dml.where: %s lives on DLPack device %s, condition on %s"
                                 % (what, v.device, cview.device))
            views[what] = v
        elif hasattr(value, "__iter__"):
            raise TypeError("dml.where: %s must be a tensor (DLPack) or a scalar" % what)
    if not views:
        raise TypeError("dml.where: a or b must be a tensor (its dtype is the result's)")
    first = views.get("a") or views["b"]
    if "a" in views and "b" in views and views["a"].dtype != views["b"].dtype:
        raise TypeError("dml.where: a has DLPack dtype %s, b %s (no type promotion)"
                        % (views["a"].dtype, views["b"].dtype))
    shape = _broadcast_shape("dml.where", [("condition", cview.shape)] + [(k, v.shape) for k, v in views.items()])
    rank = _check_rank("dml.where", len(shape))
    shape = [1] * (rank - len(shape)) + list(shape)
    cond = _readable(device, stream, _broadcast_to("dml.where", "condition", cview, shape),
                     _lib.DATA_TYPES["UINT8"][0])
    data_type = _lib.UINT_TYPE_BY_SIZE[first.element_size]
    operands = []
    for what, value in (("a", a), ("b", b)):
        if what in views:
            operands.append(_readable(device, stream, _broadcast_to("dml.where", what, views[what], shape)))
        else:
            operands.append(_HostTensor(device, stream, _value_bytes(value, first.dtype), data_type, shape,
                                        [0] * rank))
    out = _Output(device, shape, data_type)
    desc = _IfDesc(_p(cond), _p(operands[0]), _p(operands[1]), _p(out))
    result_shape = _broadcast_shape("dml.where", [("condition", cview.shape)] +
                                    [(k, v.shape) for k, v in views.items()])
    owner = a if "a" in views else b
    return _finish(owner, device, stream, OPERATOR_ELEMENT_WISE_IF, desc, [cond] + operands, out,
                   tuple(result_shape), first.dtype)


# Calls on numpy arrays that run one operator on the array's memory are
# replayed from the cache after the first (_cache.replayable): the
# functions below return exactly what they would, at a dispatch's cost.
slice1, slice, identity, tile, depth_to_space, space_to_depth, pad, cast = (  # noqa: A001
    _cache.replayable(f.__name__, f) for f in (slice1, slice, identity, tile, depth_to_space, space_to_depth, pad,
                                               cast))

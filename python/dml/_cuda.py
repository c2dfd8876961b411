"""Stream ordering between a producer's CUDA stream and a consumer's, for
DLPack's __dlpack__(stream=...): an event recorded on the producer's stream
and waited on by the consumer's, through the CUDA runtime (libcudart) loaded
with ctypes when one is present. The runtime's own API has no events; where
libcudart cannot be loaded the caller synchronises the producer's queue
instead (the host waits: correct, only slower).

Streams are DLPack's integers, which are also CUDA's handles: 1 is
cudaStreamLegacy, 2 cudaStreamPerThread, anything above a cudaStream_t."""
import ctypes
import threading

_EVENT_DISABLE_TIMING = 0x2
_lock = threading.Lock()
_runtime = None  # the loaded library, False when none could be loaded


def _load():
    for name in ("libcudart.so", "libcudart.so.13", "libcudart.so.12", "libcudart.so.11.0"):
        try:
            cudart = ctypes.CDLL(name)
        except OSError:
            continue
        p = ctypes.c_void_p
        for function, args in (("cudaGetDevice", [ctypes.POINTER(ctypes.c_int)]), ("cudaSetDevice", [ctypes.c_int]),
                               ("cudaEventCreateWithFlags", [ctypes.POINTER(p), ctypes.c_uint]),
                               ("cudaEventRecord", [p, p]), ("cudaStreamWaitEvent", [p, p, ctypes.c_uint]),
                               ("cudaEventDestroy", [p])):
            f = getattr(cudart, function)
            f.argtypes, f.restype = args, ctypes.c_int
        return cudart
    return False


def runtime():
    """The CUDA runtime library, or None when it cannot be loaded."""
    global _runtime
    with _lock:
        if _runtime is None:
            _runtime = _load()
    return _runtime or None


def make_wait(cudart, device, producer, consumer):
    """Makes stream consumer wait for the work recorded so far on stream
    producer (both on GPU device): cudaEventRecord then cudaStreamWaitEvent,
    with the device made current meanwhile. Raises RuntimeError naming the
    failing call."""
    def call(name, *args):
        code = getattr(cudart, name)(*args)
        if code:
            raise RuntimeError("dml: %s failed with CUDA error %d" % (name, code))

    previous = ctypes.c_int()
    call("cudaGetDevice", ctypes.byref(previous))
    event = ctypes.c_void_p()
    try:
        call("cudaSetDevice", device)
        call("cudaEventCreateWithFlags", ctypes.byref(event), _EVENT_DISABLE_TIMING)
        try:
            call("cudaEventRecord", event, ctypes.c_void_p(producer))
            call("cudaStreamWaitEvent", ctypes.c_void_p(consumer), event, 0)
        finally:
            cudart.cudaEventDestroy(event)  # released once the wait is satisfied
    finally:
        cudart.cudaSetDevice(previous.value)

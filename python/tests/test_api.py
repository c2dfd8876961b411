"""The package's own API: the operator cache (a repeated call is a dispatch,
not a compile, and never a stale result), DLPack both ways (versioned and
legacy capsules, dl_device, copy, the consumer's stream), dml.h's constants
as enums and the DmlError subclasses. Results are compared with numpy's own
indexing, never with the package's code. PyTorch's CPU build is used where it
is installed."""
import builtins
import ctypes
import importlib.util
import threading
import unittest

import numpy as np

import dml
from dml import _cache, _cuda, _dlpack, _ops
from test_dml import BACKENDS

HAVE_TORCH = importlib.util.find_spec("torch") is not None


def compilations(backend):
    return _ops._device(backend, 0).compilations


class Cache(unittest.TestCase):
    def test_repeated_calls_compile_once(self):
        for backend in BACKENDS:
            x = np.arange(32 * 32, dtype=np.float32).reshape(32, 32)
            dml.slice1(x, [0, 0], [32, 32], [-1, 1], backend=backend)
            before, replayed = compilations(backend), _cache._stats["replayed"]
            for k in range(20):
                x = np.random.default_rng(k).standard_normal((32, 32)).astype(np.float32)
                np.testing.assert_array_equal(dml.slice1(x, [0, 0], [32, 32], [-1, 1], backend=backend), x[::-1])
            self.assertEqual(compilations(backend), before, backend)
            self.assertGreaterEqual(_cache._stats["replayed"] - replayed, 20, backend)

    def test_alignment_and_layout_are_in_the_key(self):
        base = np.arange(4 + 8 * 9, dtype=np.float32)
        for backend in BACKENDS:
            for start in (0, 1, 2, 3, 4, 0, 1):  # every 16-byte misalignment, then again (replayed)
                x = base[start:start + 72].reshape(8, 9)
                np.testing.assert_array_equal(dml.slice1(x, [1, 0], [6, 9], [2, -3], backend=backend),
                                              x[1:7:2, ::-3])
                t = x.T  # same shape as another call's, other strides
                np.testing.assert_array_equal(dml.slice1(t, [0, 0], [9, 8], [1, 1], backend=backend), t)

    def test_every_argument_is_in_the_key(self):
        x = np.ones((3, 4), np.float32)
        for backend in BACKENDS:
            for value in (0.0, -0.0, 0.0, 0, 2.5, np.float32(-0.0)):
                y = dml.pad(x, 1, constant_values=value, backend=backend)
                expected = np.pad(x, 1, constant_values=value)
                np.testing.assert_array_equal(y, expected)
                self.assertEqual(np.signbit(y[0, 0]), np.signbit(expected[0, 0]), (backend, value))
            for dtype in (np.float16, "float64", np.int8, np.float16):
                np.testing.assert_array_equal(dml.cast(x, dtype, backend=backend), x.astype(dtype))
            for reps in ((2, 1), [1, 2], 3, (2, 1)):
                np.testing.assert_array_equal(dml.tile(x, reps, backend=backend), np.tile(x, reps))
            for scale in (None, 2.0, None):
                expected = x if scale is None else x * scale
                np.testing.assert_array_equal(dml.identity(x, scale, backend=backend), expected)

    def test_calls_that_are_not_replayed_still_use_compiled_operators(self):
        for backend in BACKENDS:
            x = np.arange(24, dtype=np.int32).reshape(4, 6)[:, ::-1]  # TILE needs a packed copy first
            dml.tile(x, (1, 2), backend=backend)
            before = compilations(backend)
            for _ in range(3):
                np.testing.assert_array_equal(dml.tile(x, (1, 2), backend=backend), np.tile(x, (1, 2)))
                y = dml.reverse_subsequences(np.arange(12.0).reshape(3, 4), [2, 4, 1], axis=1, backend=backend)
                self.assertEqual(y[0].tolist(), [1.0, 0.0, 2.0, 3.0])
            self.assertLessEqual(compilations(backend) - before, 1, backend)  # reverse_subsequences' first call

    def test_errors_are_not_cached(self):
        x = np.zeros((4, 4), np.float32)
        for _ in range(2):
            with self.assertRaisesRegex(dml.DmlInvalidArgumentError, "InputWindowOffsets"):
                dml.slice1(x, [0, 3], [4, 4], [1, 1])
        self.assertEqual(dml.slice1(x, [0, 0], [4, 4], [1, 1]).shape, (4, 4))

    def test_read_only_and_other_dtypes(self):
        for dtype in (np.bool_, np.uint8, np.int64, np.complex64, np.float16):
            x = (np.arange(30) % 3).astype(dtype).reshape(5, 6)
            x.flags.writeable = False
            for _ in range(2):
                y = dml.slice1(x, [0, 0], [5, 6], [1, -1])
                self.assertEqual(y.dtype, x.dtype)
                np.testing.assert_array_equal(y, x[:, ::-1])

    def test_threads(self):
        failures = []

        def work(seed):
            rng = np.random.default_rng(seed)
            for _ in range(100):
                x = rng.integers(0, 1000, (16, 16)).astype(np.int32)
                if not np.array_equal(dml.slice1(x, [0, 0], [16, 16], [-1, -1]), x[::-1, ::-1]):
                    failures.append(seed)

        threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(failures, [])

    def test_lru_is_bounded(self):
        lru = _cache.LRU(2)
        lru.put("a", 1)
        lru.put("b", 2)
        self.assertEqual(lru.get("a"), 1)  # "b" is now the least recently used
        lru.put("c", 3)
        self.assertIs(lru.get("b"), _cache._MISSING)
        self.assertEqual((lru.get("a"), lru.get("c"), len(lru)), (1, 3, 2))
        self.assertLessEqual(len(_ops._device("cpu", 0).operators), _cache.CAPACITY)

    def test_fingerprint_reads_every_desc(self):
        descs = [v for v in vars(_ops).values() if isinstance(v, type) and issubclass(v, ctypes.Structure)
                 and any(t is _cache._TENSOR_P for _, t in v._fields_)]
        descs += [dml._lib.SLICE1_OPERATOR_DESC, dml._lib.SLICE_OPERATOR_DESC,
                  dml._lib.REVERSE_SUBSEQUENCES_OPERATOR_DESC]
        self.assertGreater(len(descs), 10)
        for cls in descs:
            self.assertEqual(len(_cache._plan(cls)), len(cls._fields_), cls.__name__)

        class Unknown(ctypes.Structure):
            _fields_ = [("Callback", ctypes.c_void_p)]
        with self.assertRaises(TypeError):
            _cache._plan(Unknown)


class ConsumedTensor:
    """Speaks DLPack through another object, recording what it was asked and gave."""

    def __init__(self, array, accepts_max_version=True):
        self.array, self.accepts, self.calls, self.names = array, accepts_max_version, [], []

    def __dlpack_device__(self):
        return self.array.__dlpack_device__()

    def __dlpack__(self, stream=None, **kwargs):
        if kwargs and not self.accepts:
            raise TypeError("__dlpack__() got an unexpected keyword argument")
        self.calls.append(kwargs)
        capsule = self.array.__dlpack__(stream=stream, **kwargs)
        self.names.append(ctypes.pythonapi.PyCapsule_GetName(ctypes.py_object(capsule)))
        return capsule


ctypes.pythonapi.PyCapsule_GetName.argtypes = [ctypes.py_object]
ctypes.pythonapi.PyCapsule_GetName.restype = ctypes.c_char_p


def capsule_name(capsule):
    return ctypes.pythonapi.PyCapsule_GetName(capsule)


def managed(capsule):
    """The DLManagedTensorVersioned of an unconsumed versioned capsule."""
    address = _dlpack._api.PyCapsule_GetPointer(capsule, b"dltensor_versioned")
    return _dlpack.DLManagedTensorVersioned.from_address(address)


def runtime_tensor(backend, values):
    """A dml.Tensor holding values (packed), written through the runtime's queue."""
    device = _ops._device(backend, 0)
    buffer = dml._lib.create(dml._lib.lib.dmlDeviceCreateBuffer, device.handle.value, max(values.nbytes, 4))
    data = np.ascontiguousarray(values)
    dml._lib.check(dml._lib.lib.dmlCommandQueueWriteBuffer(device.queue(None).value, buffer.value, 0,
                                                           data.ctypes.data, data.nbytes))
    return _ops.Tensor(device, buffer, values.shape, (_dlpack.KDL_FLOAT, 32, 1))


class FakeCudaDevice:
    """A cudaemu device that calls itself CUDA: its buffers are host memory, so
    the CUDA-only paths of __dlpack__ (copy to kDLCPU, streams) can be checked
    here. Every stream maps to the device's own queue."""
    dlpack_device = (_dlpack.KDL_CUDA, 0)

    def __init__(self, real):
        self.real, self.adapter, self.backend = real, 0, real.backend
        self.handle, self.recorder, self.lock, self.operators = real.handle, real.recorder, real.lock, real.operators
        self.compilations = 0

    def queue(self, stream):
        return self.real.queue(None)


class DLPack(unittest.TestCase):
    def test_numpy_into_dml_versioned_and_legacy(self):
        x = np.arange(12, dtype=np.float32).reshape(3, 4)
        versioned, legacy = ConsumedTensor(x), ConsumedTensor(x, accepts_max_version=False)
        for source in (versioned, legacy):
            np.testing.assert_array_equal(np.from_dlpack(dml.slice1(source, [0, 0], [3, 4], [1, -1])), x[:, ::-1])
        self.assertEqual(versioned.calls[0].get("max_version"), (1, 0))
        self.assertEqual(versioned.names, [b"dltensor_versioned"])
        self.assertEqual(legacy.names, [b"dltensor"])
        x.flags.writeable = False  # only a versioned capsule can carry a read-only array
        np.testing.assert_array_equal(np.from_dlpack(dml.slice1(ConsumedTensor(x), [0, 0], [3, 4], [-1, 1])), x[::-1])

    def test_dml_into_numpy(self):
        values = np.arange(12, dtype=np.float32).reshape(3, 4)
        for backend in BACKENDS:
            t = runtime_tensor(backend, values)
            self.assertEqual(t.__dlpack_device__(), (dml.DLDeviceType.CPU, 0))
            self.assertIsInstance(t.__dlpack_device__()[0], dml.DLDeviceType)
            self.assertEqual(capsule_name(t.__dlpack__()), b"dltensor")
            self.assertEqual(capsule_name(t.__dlpack__(max_version=(0, 8))), b"dltensor")
            for version in ((1, 0), (1, 3), (2, 0)):
                capsule = t.__dlpack__(max_version=version)
                self.assertEqual(capsule_name(capsule), b"dltensor_versioned")
                m = managed(capsule)
                self.assertEqual((m.version.major, m.version.minor, m.flags), (1, 0, 0))
            shared = np.from_dlpack(t)
            again = np.from_dlpack(t, copy=False)
            copied = np.from_dlpack(t, copy=True)
            on_cpu = np.from_dlpack(t, device="cpu")
            for y in (shared, again, copied, on_cpu):
                np.testing.assert_array_equal(y, values)
            self.assertTrue(np.shares_memory(shared, again) and np.shares_memory(shared, on_cpu))
            self.assertFalse(np.shares_memory(shared, copied))
            capsule = t.__dlpack__(max_version=(1, 0), copy=True)  # kept: the struct lives as long as it
            m = managed(capsule)
            self.assertEqual(m.flags, _dlpack.FLAG_IS_COPIED)
            del t  # the arrays keep the buffer
            np.testing.assert_array_equal(shared + copied, 2 * values)

    def test_refusals(self):
        t = runtime_tensor("cpu", np.zeros(4, np.float32))
        for kwargs, error in ((dict(dl_device=(dml.DLDeviceType.CUDA, 0)), BufferError),
                              (dict(dl_device=(1, 1)), BufferError), (dict(dl_device=(7, 0), copy=True), BufferError),
                              (dict(stream=1), ValueError), (dict(stream=-1), ValueError),
                              (dict(copy="yes"), TypeError), (dict(dl_device="cpu"), TypeError)):
            with self.assertRaises(error, msg=kwargs):
                t.__dlpack__(**kwargs)
        with self.assertRaises(TypeError):
            t.__dlpack__(None)  # keyword-only, as the protocol declares

    def test_cuda_tensor_paths(self):
        if "cudaemu" not in BACKENDS:
            self.skipTest("the emulated CUDA backend is not among DML_PYTHON_TEST_BACKENDS")
        values = np.arange(6, dtype=np.float32).reshape(2, 3)
        t = runtime_tensor("cudaemu", values)
        t._device = FakeCudaDevice(t._device)
        self.assertEqual(t.__dlpack_device__(), (dml.DLDeviceType.CUDA, 0))
        with self.assertRaises(ValueError):  # to the host needs a copy
            t.__dlpack__(dl_device=(1, 0), copy=False)
        for stream in (0, -2):
            with self.assertRaises(ValueError):
                t.__dlpack__(stream=stream)
        with self.assertRaises(ValueError):  # kDLCPU takes no stream
            t.__dlpack__(dl_device=(1, 0), stream=5)
        capsule = t.__dlpack__(dl_device=(1, 0), max_version=(1, 0))
        m = managed(capsule)
        self.assertEqual((m.dl_tensor.device.device_type, m.flags), (1, _dlpack.FLAG_IS_COPIED))
        self.assertEqual(np.from_dlpack(t, device="cpu").tolist(), values.tolist())
        capsules = [t.__dlpack__(max_version=(1, 0), stream=-1), t.__dlpack__(max_version=(1, 0), copy=True, stream=-1)]
        in_place, copy = (managed(c) for c in capsules)
        self.assertEqual(in_place.dl_tensor.device.device_type, dml.DLDeviceType.CUDA)
        self.assertNotEqual(in_place.dl_tensor.data, copy.dl_tensor.data)
        self.assertEqual(ctypes.string_at(copy.dl_tensor.data, 24), values.tobytes())

    def test_consumer_stream_waits_for_the_producer(self):
        calls = []

        class FakeRuntime:
            def __getattr__(self, name):
                def call(*args):
                    calls.append((name, [a.value if isinstance(a, ctypes.c_void_p) else a for a in args]))
                    if name == "cudaEventCreateWithFlags":
                        ctypes.cast(args[0], ctypes.POINTER(ctypes.c_void_p))[0] = 0xE1
                    return 0
                return call

        t = runtime_tensor("cpu", np.zeros(2, np.float32))
        t._device = FakeCudaDevice(t._device)
        t._stream = 7  # its work was recorded on stream 7
        saved = _cuda.runtime
        _cuda.runtime = FakeRuntime
        try:
            for stream, waits in ((9, [(7, 9)]), (None, [(7, 1)]), (2, [(7, 2)]), (7, []), (-1, [])):
                del calls[:]
                t.__dlpack__(stream=stream)
                recorded = [args[1] for name, args in calls if name == "cudaEventRecord"]
                waited = [args[0] for name, args in calls if name == "cudaStreamWaitEvent"]
                self.assertEqual(list(zip(recorded, waited)), waits, stream)
                if waits:  # created, recorded, waited, destroyed, on the tensor's device
                    names = [name for name, _ in calls]
                    self.assertLess(names.index("cudaEventRecord"), names.index("cudaStreamWaitEvent"))
                    self.assertIn("cudaEventDestroy", names)
                    self.assertIn(("cudaSetDevice", [0]), calls)
            # Without libcudart the host waits for the producer's queue instead.
            _cuda.runtime = lambda: None
            del calls[:]
            self.assertEqual(capsule_name(t.__dlpack__(stream=9)), b"dltensor")
            self.assertEqual(calls, [])
        finally:
            _cuda.runtime = saved

    @unittest.skipUnless(HAVE_TORCH, "PyTorch is not installed (tests/run-python.sh says why)")
    def test_torch_both_ways(self):
        import torch
        x = torch.arange(24, dtype=torch.float32).reshape(4, 6)
        y = dml.slice1(x, [0, 0], [4, 6], [-1, 1])
        self.assertIsInstance(y, torch.Tensor)
        self.assertTrue(torch.equal(y, torch.flip(x, [0])))
        for backend in BACKENDS:
            t = runtime_tensor(backend, np.arange(6, dtype=np.float32).reshape(2, 3))
            self.assertEqual(torch.from_dlpack(t).tolist(), [[0, 1, 2], [3, 4, 5]])
            legacy = torch.utils.dlpack.from_dlpack(t.__dlpack__())
            self.assertEqual(legacy.tolist(), [[0, 1, 2], [3, 4, 5]])
            versioned = torch.from_dlpack(t.__dlpack__(max_version=(1, 0)))
            self.assertEqual(versioned.tolist(), [[0, 1, 2], [3, 4, 5]])
        z = dml.tile(torch.tensor([[1, 2]], dtype=torch.int64), (2, 1))
        self.assertEqual(z.tolist(), [[1, 2], [1, 2]])


class Constants(unittest.TestCase):
    def test_enums(self):
        self.assertEqual(dml.OperatorType.SLICE1, 111)
        self.assertEqual(dml.TensorDataType.FLOAT16, 2)
        self.assertEqual(dml.Result.E_INVALIDARG & 0xFFFFFFFF, 0x80070057)
        self.assertEqual(dml.PaddingMode.REFLECTION, 2)
        self.assertEqual(dml.FeatureLevel.LEVEL_5_0, 0x5000)
        self.assertEqual(dml.CreateDeviceFlags.DEBUG | dml.CreateDeviceFlags.NONE, 1)
        self.assertEqual(dml.Limits.TENSOR_DIMENSION_COUNT_MAX1, 8)

    def test_star_import_shadows_no_builtin(self):
        namespace = {}
        exec("from dml import *", namespace)
        shadowed = sorted(name for name in namespace if name != "__builtins__" and hasattr(builtins, name))
        self.assertEqual(shadowed, [])
        self.assertNotIn("slice", dml.__all__)
        self.assertIs(dml.slice.__wrapped__, _ops.slice.__wrapped__)  # still DirectML's SLICE as an attribute
        for name in dml.__all__:
            self.assertTrue(hasattr(dml, name), name)

    def test_errors_by_result(self):
        x = np.zeros((4, 4), np.float32)
        with self.assertRaises(ValueError) as caught:
            dml.slice1(x, [0, 3], [4, 4], [1, 1])
        error = caught.exception
        self.assertIsInstance(error, dml.DmlInvalidArgumentError)
        self.assertIsInstance(error, dml.DmlError)
        self.assertEqual((error.result, error.name), (dml.Result.E_INVALIDARG, "DML_E_INVALIDARG"))
        self.assertIn("InputWindowOffsets", str(error))
        with self.assertRaises(NotImplementedError) as caught:
            dml.slice1(x, [0, 0], [4, 4], [1, 1], backend="no-such-backend")
        self.assertIsInstance(caught.exception, dml.DmlUnsupportedError)
        for result, kinds in ((dml.Result.E_OUTOFMEMORY, (dml.DmlOutOfMemoryError, MemoryError)),
                              (dml.Result.E_NOTIMPL, (dml.DmlNotImplementedError, NotImplementedError)),
                              (dml.Result.E_INVALID_CALL, (dml.DmlInvalidCallError, RuntimeError)),
                              (dml.Result.E_DEVICE_REMOVED, (dml.DmlDeviceRemovedError, RuntimeError)),
                              (-5, (dml.DmlError,))):
            error = dml.DmlError(result, "message")
            for kind in kinds:
                self.assertIsInstance(error, kind)
            self.assertTrue(str(error).endswith(": message"))
        self.assertEqual(type(dml.DmlError(-5, "m")), dml.DmlError)
        self.assertEqual(dml.DmlError(-5, "m").name, "DML_RESULT 0xFFFFFFFB")


if __name__ == "__main__":
    unittest.main()

"""The Python package against references written from the operators'
definitions (docs/operators.md), element by element, never the package's own
code: random shapes and data types, non-contiguous views (negative, zero and
padded strides, misaligned bases), lengths given every accepted way, on the
"cpu" backend and the emulated CUDA backend "cudaemu"; PyTorch and CuPy
round trips where they are installed. DML_TEST_SEED picks the seed."""
import ctypes
import math
import os
import random
import unittest

import numpy as np

import dml

SEED = int(os.environ.get("DML_TEST_SEED", "1"))


def default_backends():
    """cpu, and the emulated CUDA backend where the runtime has it (a build
    tree does; the wheel and installed runtimes do not ship it)."""
    from dml import _lib
    device = ctypes.c_void_p()
    desc = _lib.DEVICE_DESC(b"cudaemu", 0, 0, _lib.FEATURE_LEVEL_5_0)
    if _lib.lib.dmlCreateDevice(ctypes.byref(desc), ctypes.byref(device)) < 0:
        return "cpu"
    _lib.lib.dmlRelease(device)
    return "cpu,cudaemu"


BACKENDS = [b for b in (os.environ.get("DML_PYTHON_TEST_BACKENDS") or default_backends()).split(",") if b]
DTYPES = [np.float32, np.float16, np.float64, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16,
          np.uint32, np.uint64, np.bool_, np.complex64]


# ---- References: one output element at a time -------------------------------


def ref_slice1(x, offsets, sizes, strides, out_sizes):
    start = [o + w - 1 if s < 0 else o for o, w, s in zip(offsets, sizes, strides)]
    y = np.empty(out_sizes, dtype=x.dtype)
    for c in np.ndindex(*out_sizes):
        y[c] = x[tuple(b + s * i for b, s, i in zip(start, strides, c))]
    return y


def ref_slice(x, offsets, sizes, strides):
    y = np.empty(sizes, dtype=x.dtype)
    for c in np.ndindex(*sizes):
        y[c] = x[tuple(o + s * i for o, s, i in zip(offsets, strides, c))]
    return y


def ref_reverse(x, lengths, axis):
    """lengths: an array of x's shape with 1 on axis (already broadcast)."""
    y = np.empty_like(x)
    for c in np.ndindex(*x.shape):
        lc = list(c)
        lc[axis] = 0
        length = min(int(lengths[tuple(lc)]), x.shape[axis])
        j = c[axis]
        src = list(c)
        src[axis] = length - 1 - j if j < length else j
        y[c] = x[tuple(src)]
    return y


# ---- Random inputs ---------------------------------------------------------------


def random_values(rng, shape, dtype):
    n = int(np.prod(shape))
    if dtype == np.bool_:
        return (rng.integers(0, 2, n) == 1).reshape(shape)
    if np.issubdtype(dtype, np.complexfloating):
        return (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(dtype).reshape(shape)
    if np.issubdtype(dtype, np.floating):
        return rng.standard_normal(n).astype(dtype).reshape(shape)
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True).reshape(shape)


def random_view(rng, shape, dtype, broadcast=True):
    """A view of shape over a larger random array: each dimension padded,
    stepped and possibly reversed; sometimes broadcast (stride 0) or shifted by
    one element off the 16-byte alignment."""
    steps = [int(rng.choice([1, 1, 2, 3])) * int(rng.choice([1, -1])) for _ in shape]
    base_shape = [n * abs(s) + int(rng.integers(0, 3)) for n, s in zip(shape, steps)]
    shift = int(rng.integers(0, 2))
    flat = random_values(rng, [int(np.prod(base_shape)) + shift], dtype)
    base = flat[shift:].reshape(base_shape)
    index = []
    for n, s, b in zip(shape, steps, base_shape):
        start = int(rng.integers(0, b - (n - 1) * abs(s)))
        if s < 0:
            start += (n - 1) * abs(s)
        stop = start + n * s
        index.append(slice(start, stop if stop >= 0 else None, s))
    view = base[tuple(index)]
    assert view.shape == tuple(shape), (view.shape, shape)
    if broadcast and len(shape) and rng.random() < 0.2:  # a broadcast dimension
        d = int(rng.integers(0, len(shape)))
        view = np.broadcast_to(np.take(view, [0], axis=d), view.shape)
    return view


def random_shape(rng, max_rank=5, max_elements=300):
    rank = int(rng.integers(1, max_rank + 1))
    shape = [int(rng.integers(1, 6)) for _ in range(rank)]
    while np.prod(shape) > max_elements:
        shape[int(np.argmax(shape))] -= 1
    return shape


def assert_same(test, got, want, what):
    test.assertIsInstance(got, np.ndarray, what)
    test.assertEqual(got.dtype, want.dtype, what)
    test.assertEqual(got.shape, want.shape, what)
    # Bytes, not values: the operators move data, NaNs and -0.0 included.
    test.assertEqual(np.ascontiguousarray(got).tobytes(), np.ascontiguousarray(want).tobytes(), what)


FILL_DTYPES = [np.float32, np.float16, np.float64, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16,
               np.uint32, np.uint64, np.bool_]


def closed_form(start, step, count, dtype):
    """docs/operators.md's FILL_VALUE_SEQUENCE in numpy, element by element:
    element 0 is start; then start + k * step, k and each operation rounded
    to dtype (float16: in float32, rounded once); integers wrap."""
    dtype = np.dtype(dtype)
    if dtype.kind in "iu":
        bits = 8 * dtype.itemsize
        s, d = int(np.array(start).astype(dtype)), int(np.array(step).astype(dtype))
        return np.array([(s + k * d) % (1 << bits) for k in range(count)], dtype=np.uint64).astype(dtype)
    work = np.float32 if dtype == np.float16 else dtype.type
    s, d = work(dtype.type(start)), work(dtype.type(step))
    out = np.empty(count, dtype=dtype)
    with np.errstate(all="ignore"):
        for k in range(count):
            out[k] = dtype.type(start) if k == 0 else dtype.type(s + work(k) * d)
    return out


class Fills(unittest.TestCase):
    def test_full_against_numpy(self):
        rng = np.random.default_rng(21)
        for dtype in FILL_DTYPES:
            for value in (0, 1, -3, 2.5, 127, True):
                if dtype == np.bool_ or np.dtype(dtype).kind == "u" and value < 0:
                    value = bool(value) if dtype == np.bool_ else abs(value)
                if np.dtype(dtype).kind in "iub" and value == 2.5:
                    continue
                shape = tuple(int(n) for n in rng.integers(1, 5, rng.integers(1, 6)))
                for backend in BACKENDS:
                    assert_same(self, dml.full(shape, value, dtype=dtype, backend=backend),
                                np.full(shape, value, dtype=dtype), "full %s %r %s" % (shape, value, backend))

    def test_full_keeps_bits(self):
        """NaN payloads and -0.0 stay as given; dtype defaults to numpy's for the value."""
        nan = np.frombuffer(np.uint32(0x7FC12345).tobytes(), np.float32)[0]
        for backend in BACKENDS:
            assert_same(self, dml.full(7, nan, backend=backend), np.full(7, nan), "NaN payload")
            assert_same(self, dml.full((3, 2), -0.0, backend=backend), np.full((3, 2), -0.0), "-0.0 float64")
            assert_same(self, dml.full(5, 3, backend=backend), np.full(5, 3), "int default dtype")
            assert_same(self, dml.full([2, 2], np.float16(-0.0), backend=backend), np.full([2, 2], np.float16(-0.0)),
                        "-0.0 float16")

    def test_arange_integers_equal_numpy(self):
        cases = [(5,), (3, 17), (17, 3, -4), (-10, 10, 3), (0, 1000, 7), (100, -100, -1)]
        for args in cases:
            for dtype in (None, np.int8, np.int16, np.int32, np.int64, np.float32, np.float64):
                want = np.arange(*args, dtype=dtype)
                if want.dtype.kind == "i" and (want.min() < np.iinfo(want.dtype).min or
                                               want.max() > np.iinfo(want.dtype).max):
                    continue
                for backend in BACKENDS:
                    assert_same(self, dml.arange(*args, dtype=dtype, backend=backend), want,
                                "arange%r %s %s" % (args, dtype, backend))

    def test_arange_floats(self):
        """Equal to the closed form exactly; to numpy.arange within a few
        ulps (numpy's step is dtype(start + step) - dtype(start))."""
        rng = np.random.default_rng(104)
        for dtype in (np.float16, np.float32, np.float64):
            for _ in range(6):
                start = float(rng.uniform(-50, 50))
                step = float(rng.choice([-1, 1]) * rng.uniform(0.01, 3))
                stop = start + step * int(rng.integers(1, 300))
                want = np.arange(start, stop, step, dtype=dtype)
                for backend in BACKENDS:
                    got = dml.arange(start, stop, step, dtype=dtype, backend=backend)
                    self.assertEqual(got.shape, want.shape)
                    assert_same(self, got, closed_form(start, step, len(want), dtype), "closed form")
                    # numpy's step is off by up to an ulp of start + step, k times over.
                    eps = float(np.finfo(dtype).eps)
                    atol = len(want) * eps * (abs(start) + abs(step)) + 4 * eps * float(np.abs(want).max())
                    np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=0, atol=atol)

    def test_arange_wraps_and_rounds_once(self):
        for backend in BACKENDS:
            got = dml.arange(250, 260, dtype=np.uint8, backend=backend)  # numpy refuses: the values overflow
            assert_same(self, got, closed_form(250, 1, 10, np.uint8), "uint8 wraps")
            self.assertEqual(list(got[4:8]), [254, 255, 0, 1])
            got = dml.arange(0, 3000, 1, dtype=np.float16, backend=backend)  # above 2048 float16 steps by 2
            assert_same(self, got, closed_form(0, 1, 3000, np.float16), "float16 rounding")

    def test_fill_errors(self):
        with self.assertRaisesRegex(ValueError, "empty"):
            dml.arange(5, 5)
        with self.assertRaisesRegex(ValueError, "step is 0"):
            dml.arange(0, 5, 0)
        with self.assertRaisesRegex(ValueError, "0-dimensional"):
            dml.full((), 1)
        with self.assertRaisesRegex(ValueError, "size 0"):
            dml.full((2, 0), 1)
        with self.assertRaisesRegex(TypeError, "not supported"):
            dml.full(3, 1, dtype=np.complex64)


class Operators(unittest.TestCase):
    def test_documented_examples(self):
        x = np.arange(1, 17, dtype=np.float32).reshape(1, 1, 4, 4)
        for backend in BACKENDS:
            y = dml.slice1(x, [0, 0, 0, 1], [1, 1, 4, 3], [1, 1, -2, 2], backend=backend)
            np.testing.assert_array_equal(y, [[[[14, 16], [6, 8]]]])
            y = dml.slice1(x, [0, 0, 0, 1], [1, 1, 4, 3], [1, 1, 2, 2], backend=backend)
            np.testing.assert_array_equal(y, [[[[2, 4], [10, 12]]]])
            s = np.arange(1, 13, dtype=np.float32).reshape(1, 1, 3, 4)
            y = dml.reverse_subsequences(s, [2, 4, 3], axis=3, backend=backend)
            np.testing.assert_array_equal(y, [[[[2, 1, 3, 4], [8, 7, 6, 5], [11, 10, 9, 12]]]])
            lengths = np.array([2, 3, 1, 0], dtype=np.uint32).reshape(1, 1, 1, 4)
            y = dml.reverse_subsequences(s, lengths, axis=2, backend=backend)
            np.testing.assert_array_equal(y, [[[[5, 10, 3, 4], [1, 6, 7, 8], [9, 2, 11, 12]]]])

    def test_slice1_random(self):
        rng = np.random.default_rng(SEED)
        for i in range(150):
            shape = random_shape(rng)
            dtype = DTYPES[i % len(DTYPES)]
            x = random_view(rng, shape, dtype)
            offsets, sizes, strides = [], [], []
            for n in shape:
                w = int(rng.integers(1, n + 1))
                offsets.append(int(rng.integers(0, n - w + 1)))
                sizes.append(w)
                strides.append(int(rng.choice([1, 2, 3, 7])) * int(rng.choice([1, -1])))
            out_sizes = [int(rng.integers(1, 1 + (w - 1) // abs(s) + 1)) for w, s in zip(sizes, strides)]
            want = ref_slice1(x, offsets, sizes, strides, out_sizes)
            for backend in BACKENDS:
                what = "case %d %s %s strides %s window %s/%s/%s on %s" % (i, x.dtype, x.shape, x.strides, offsets,
                                                                            sizes, strides, backend)
                got = dml.slice1(x, offsets, sizes, strides, out_sizes, backend=backend)
                assert_same(self, got, want, what)
            # Default output sizes: every reachable element, like Python slicing.
            got = dml.slice1(x, offsets, sizes, strides, backend=BACKENDS[0])
            index = tuple(slice(o, o + w, s) if s > 0 else slice(o + w - 1, o - 1 if o else None, s)
                          for o, w, s in zip(offsets, sizes, strides))
            assert_same(self, got, x[index], "slicing semantics, case %d" % i)

    def test_slice_random(self):
        rng = np.random.default_rng(SEED + 1)
        for i in range(100):
            shape = random_shape(rng)
            dtype = DTYPES[(i * 5) % len(DTYPES)]
            x = random_view(rng, shape, dtype)
            offsets, sizes, strides = [], [], []
            for n in shape:
                s = int(rng.choice([1, 2, 3]))
                o = int(rng.integers(0, n))
                z = int(rng.integers(1, (n - 1 - o) // s + 2))
                offsets.append(o)
                sizes.append(z)
                strides.append(s)
            want = ref_slice(x, offsets, sizes, strides)
            for backend in BACKENDS:
                got = dml.slice(x, offsets, sizes, strides, backend=backend)
                assert_same(self, got, want, "case %d %s %s %s on %s" % (i, x.shape, x.strides, offsets, backend))
                index = tuple(slice(o, o + (z - 1) * s + 1, s) for o, z, s in zip(offsets, sizes, strides))
                assert_same(self, got, x[index], "slicing semantics, case %d" % i)

    def test_reverse_random(self):
        rng = np.random.default_rng(SEED + 2)
        for i in range(150):
            shape = random_shape(rng)
            dtype = DTYPES[(i * 3) % len(DTYPES)]
            x = random_view(rng, shape, dtype)
            axis = int(rng.integers(0, len(shape)))
            lshape = list(shape)
            lshape[axis] = 1
            n = shape[axis]
            values = rng.choice([0, 1, n, n + 1, 2**32 - 1, 2**40], size=lshape) if i % 4 == 0 else \
                rng.integers(0, n + 2, size=lshape)
            form = i % 4
            ltype = [np.uint32, np.int64, np.uint64, np.int32][i % 4]
            if ltype in (np.uint32, np.int32):
                values = np.minimum(values, 2**31 - 1)
            lengths_full = values.astype(ltype)
            if form == 0:
                lengths = [int(v) for v in lengths_full.reshape(-1)]
            elif form == 1:
                lengths = random_view(rng, lshape, ltype, broadcast=False)
                lengths[...] = lengths_full
            else:  # a broadcasting shape: drop the leading ones, or keep a single length
                lengths = lengths_full.reshape(lshape[next((d for d, m in enumerate(lshape) if m != 1), 0):])
                if form == 3:
                    lengths = lengths_full.reshape(-1)[:1].reshape([1] * len(lshape))
                    lengths_full = np.broadcast_to(lengths, lshape)
            want = ref_reverse(x, np.broadcast_to(np.asarray(lengths_full).reshape(lshape), lshape), axis)
            for backend in BACKENDS:
                got = dml.reverse_subsequences(x, lengths, axis if i % 2 else axis - len(shape), backend=backend)
                assert_same(self, got, want, "case %d %s %s axis %d lengths %s on %s"
                            % (i, x.shape, x.strides, axis, lengths_full.reshape(-1), backend))

    def test_tile_documented_example(self):
        x = np.arange(1, 7, dtype=np.float32).reshape(1, 1, 2, 3)
        row = [1, 2, 3, 1, 2, 3, 1, 2, 3]
        want = [[row, [v + 3 for v in row]] * 3]
        for backend in BACKENDS:
            np.testing.assert_array_equal(dml.tile(x, [1, 1, 3, 3], backend=backend), [want])

    def test_tile_random(self):
        """Against numpy.tile: reps shorter than, as long as and longer than
        x.ndim (numpy's prepended 1s), given as lists, tuples, numpy arrays or
        a single integer; views with negative, broadcast, padded strides and
        misaligned bases."""
        rng = np.random.default_rng(SEED + 7)
        for i in range(150):
            shape = random_shape(rng, max_rank=4, max_elements=60)
            dtype = DTYPES[(i * 7) % len(DTYPES)]
            x = random_view(rng, shape, dtype)
            count = int(rng.integers(1, 5 + len(shape) - 1))  # 1 .. ndim + 3: at most 8 dimensions
            reps = [int(rng.choice([1, 1, 2, 3, 4])) for _ in range(count)]
            if i % 5 == 1:
                reps = tuple(reps)
            elif i % 5 == 2:
                reps = np.array(reps, dtype=np.int64)
            elif i % 5 == 3:
                reps = reps[0]
            want = np.tile(x, reps)
            for backend in BACKENDS:
                got = dml.tile(x, reps, backend=backend)
                assert_same(self, got, want, "case %d %s %s %s reps %s on %s"
                            % (i, x.dtype, x.shape, x.strides, reps, backend))

    def test_pad_documented_examples(self):
        # DirectML's four PADDING examples: {1,1,4,4} padded by {1,2} before and {3,4} after H, W.
        x = np.array([[[[1, 2, 3, 4], [5, 6, 7, 8], [1, 2, 3, 4], [5, 6, 7, 8]]]], np.float32)
        widths = ((0, 0), (0, 0), (1, 3), (2, 4))
        reflect_row0 = [7, 6, 5, 6, 7, 8, 7, 6, 5, 6]
        symmetric_row0 = [2, 1, 1, 2, 3, 4, 4, 3, 2, 1]
        for backend in BACKENDS:
            got = dml.pad(x, widths, constant_values=9, backend=backend)
            self.assertEqual(got.shape, (1, 1, 8, 10))
            self.assertEqual(got[0, 0, 0].tolist(), [9] * 10)
            self.assertEqual(got[0, 0, 1].tolist(), [9, 9, 1, 2, 3, 4, 9, 9, 9, 9])
            self.assertEqual(dml.pad(x, widths, "reflect", backend=backend)[0, 0, 0].tolist(), reflect_row0)
            self.assertEqual(dml.pad(x, widths, "symmetric", backend=backend)[0, 0, 0].tolist(), symmetric_row0)
            self.assertEqual(dml.pad(x, widths, "edge", backend=backend)[0, 0, 7].tolist(),
                             [5, 5, 5, 6, 7, 8, 8, 8, 8, 8])

    def test_pad_random(self):
        """Against numpy.pad in every mode: pad_width in numpy's forms, pads
        of 0, small and several times the input (numpy folds repeatedly too),
        size-1 dimensions, views with negative, broadcast, padded strides."""
        rng = np.random.default_rng(SEED + 11)
        modes = ["constant", "edge", "reflect", "symmetric"]
        for i in range(120):
            shape = random_shape(rng, max_rank=4, max_elements=60)
            dtype = DTYPES[(i * 5) % len(DTYPES)]
            x = random_view(rng, shape, dtype)
            mode = modes[i % 4]
            widths = [(int(rng.choice([0, 1, 2, 3 * n + 1])), int(rng.choice([0, 1, n, 2 * n + 3])))
                      for n in x.shape]
            if i % 6 == 1 and x.ndim:
                widths = widths[0]
            elif i % 6 == 2:
                widths = int(rng.integers(0, 4))
            kwargs = {}
            if mode == "constant" and i % 3:
                kwargs["constant_values"] = 7 if dtype in (np.bool_,) else np.array(5.0).astype(dtype).item()
            if x.ndim == 0:
                continue
            want = np.pad(x, widths, mode, **kwargs)
            for backend in BACKENDS:
                got = dml.pad(x, widths, mode, backend=backend, **kwargs)
                assert_same(self, got, want, "case %d %s %s %s %s %s on %s"
                            % (i, x.dtype, x.shape, x.strides, mode, widths, backend))

    def test_pad_arguments(self):
        x = np.arange(6, dtype=np.int16).reshape(2, 3)
        for bad in [((1, 2, 3),), [(1, 1)] * 3, -1]:
            with self.assertRaises(ValueError, msg=repr(bad)):
                dml.pad(x, bad)
        with self.assertRaises(ValueError):
            dml.pad(x, 1, "wrap")
        with self.assertRaises(ValueError):
            dml.pad(x, 1, constant_values=(1, 2))
        np.testing.assert_array_equal(dml.pad(x, 1, constant_values=-3, backend="cpu"),
                                      np.pad(x, 1, constant_values=-3))

    def test_tile_eight_dimensions(self):
        # 16 dimensions after splitting: the runtime runs several plans.
        big = np.arange(3**8, dtype=np.uint16).reshape([3] * 8)
        x = big[:2, ::2, ::-2, :2, :2, ::2, :2, ::-2]  # padded and reversed, its lowest address aligned
        self.assertEqual(x.shape, (2,) * 8)
        for backend in BACKENDS:
            assert_same(self, dml.tile(x, [2] * 8, backend=backend), np.tile(x, [2] * 8), "8-D tile on " + backend)

    def test_depth_space_documented_examples(self):
        # DirectML's DEPTH_TO_SPACE1 / SPACE_TO_DEPTH1 examples: channel k of the
        # depth tensor {1,8,2,3} holds 9k + 3h + w.
        depth = (9 * np.arange(8)[:, None, None] + 3 * np.arange(2)[:, None] + np.arange(3)).astype(np.uint32)
        depth = depth.reshape(1, 8, 2, 3)
        dcr = [[0, 18, 1, 19, 2, 20], [36, 54, 37, 55, 38, 56], [3, 21, 4, 22, 5, 23], [39, 57, 40, 58, 41, 59]]
        crd = [[0, 9, 1, 10, 2, 11], [18, 27, 19, 28, 20, 29], [3, 12, 4, 13, 5, 14], [21, 30, 22, 31, 23, 32]]
        want_dcr = np.array([[dcr, (np.array(dcr) + 9).tolist()]], np.uint32)
        want_crd = np.array([[crd, (np.array(crd) + 36).tolist()]], np.uint32)
        for backend in BACKENDS:
            np.testing.assert_array_equal(dml.depth_to_space(depth, 2, backend=backend), want_dcr)
            np.testing.assert_array_equal(dml.depth_to_space(depth, 2, "CRD", backend=backend), want_crd)
            np.testing.assert_array_equal(dml.space_to_depth(want_dcr, 2, backend=backend), depth)

    def test_depth_space_random(self):
        """Against ONNX's reshape/transpose formulation in numpy: both modes,
        blocks 1-3, every dtype, views with negative, broadcast, padded strides
        and misaligned bases; space_to_depth undoes depth_to_space (DCR)."""
        def numpy_depth_to_space(x, b, mode):
            n, c, h, w = x.shape
            if mode == "DCR":
                t = x.reshape(n, b, b, c // (b * b), h, w).transpose(0, 3, 4, 1, 5, 2)
            else:
                t = x.reshape(n, c // (b * b), b, b, h, w).transpose(0, 1, 4, 2, 5, 3)
            return t.reshape(n, c // (b * b), h * b, w * b)

        def numpy_space_to_depth(x, b):
            n, c, h, w = x.shape
            t = x.reshape(n, c, h // b, b, w // b, b).transpose(0, 3, 5, 1, 2, 4)
            return t.reshape(n, c * b * b, h // b, w // b)

        rng = np.random.default_rng(SEED + 11)
        for i in range(80):
            b = int(rng.integers(1, 4))
            n, cs, h, w = (int(v) for v in rng.integers(1, 4, size=4))
            dtype = DTYPES[(i * 5) % len(DTYPES)]
            mode = "CRD" if i % 2 else "DCR"
            depth = random_view(rng, (n, cs * b * b, h, w), dtype)
            space = random_view(rng, (n, cs, h * b, w * b), dtype)
            for backend in BACKENDS:
                what = "case %d %s b %d %s on %s" % (i, np.dtype(dtype).name, b, mode, backend)
                if mode == "DCR":
                    got = dml.depth_to_space(depth, b, backend=backend)
                else:
                    got = dml.depth_to_space(depth, b, mode=mode, backend=backend)
                assert_same(self, got, numpy_depth_to_space(depth, b, mode), "depth_to_space " + what)
                assert_same(self, dml.space_to_depth(space, b, backend=backend), numpy_space_to_depth(space, b),
                            "space_to_depth " + what)
                if mode == "DCR":
                    assert_same(self, dml.space_to_depth(got, b, backend=backend), np.ascontiguousarray(depth),
                                "round trip " + what)

    def test_full_reversal_is_flip(self):
        rng = np.random.default_rng(SEED + 3)
        for _ in range(20):
            shape = random_shape(rng)
            x = random_view(rng, shape, np.float32)
            axis = int(rng.integers(0, len(shape)))
            got = dml.reverse_subsequences(x, [2**64 - 1], axis)
            assert_same(self, got, np.flip(x, axis), "flip along %d of %s" % (axis, x.shape))

    def test_size_one_dimensions_with_any_stride(self):
        # DLPack producers may report any stride for a dimension of size 1
        # (PyTorch does): it must not matter, even beyond 32 bits.
        class Strided:
            def __init__(self, a, strides):
                self.a, self.strides = a, strides

            def __dlpack_device__(self):
                return self.a.__dlpack_device__()

            def __dlpack__(self, stream=None, **kwargs):
                capsule = self.a.__dlpack__()
                from dml import _dlpack
                import ctypes
                address = ctypes.pythonapi.PyCapsule_GetPointer(ctypes.py_object(capsule), b"dltensor")
                t = _dlpack.DLManagedTensor.from_address(address).dl_tensor
                self.keep = (ctypes.c_int64 * len(self.strides))(*self.strides)
                t.strides = self.keep
                return capsule

        import ctypes
        ctypes.pythonapi.PyCapsule_GetPointer.restype = ctypes.c_void_p
        ctypes.pythonapi.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
        x = np.arange(12, dtype=np.float32).reshape(3, 1, 4)
        y = dml.slice1(Strided(x, [4, 2**40, 1]), [0, 0, 0], [3, 1, 4], [-1, 1, 1])
        self.assertIsInstance(y, dml.Tensor)
        assert_same(self, np.from_dlpack(y), x[::-1], "size-1 dimension with a 2^40 stride")

    def test_rank_8(self):
        x = np.arange(2**8, dtype=np.int16).reshape([2] * 8)
        got = dml.slice1(x, [0] * 8, [2] * 8, [-1] * 8)
        assert_same(self, got, x[(slice(None, None, -1),) * 8], "rank 8, every dimension reversed")


class Errors(unittest.TestCase):
    def test_tile_repeats(self):
        x = np.zeros((2, 3), np.int32)
        with self.assertRaises(dml.DmlError) as e:
            dml.tile(x, [2, 0])
        self.assertIn("dmlDeviceCreateOperator(TILE): Repeats[1] = 0; must be >= 1", str(e.exception))
        with self.assertRaisesRegex(ValueError, r"reps\[0\] = -1"):
            dml.tile(x, [-1, 2])
        with self.assertRaisesRegex(ValueError, "more than 2\\^32 - 1"):
            dml.tile(np.broadcast_to(np.zeros(1, np.int8), (65536,)), 65537)

    def test_depth_space_rules(self):
        x = np.zeros((1, 6, 2, 2), np.float32)
        with self.assertRaises(dml.DmlError) as e:
            dml.depth_to_space(x, 2)
        self.assertIn("dmlDeviceCreateOperator(DEPTH_TO_SPACE1): InputTensor.Sizes[1] = 6 (channels); must be a "
                      "multiple of BlockSize * BlockSize = 4", str(e.exception))
        with self.assertRaises(dml.DmlError) as e:
            dml.space_to_depth(np.zeros((1, 1, 3, 4), np.int8), 2)
        self.assertIn("SPACE_TO_DEPTH1): InputTensor.Sizes[2] = 3 (height); must be a multiple of BlockSize = 2",
                      str(e.exception))
        with self.assertRaisesRegex(ValueError, "mode 'dcr'; must be 'DCR' or 'CRD'"):
            dml.depth_to_space(x, 2, "dcr")
        with self.assertRaisesRegex(ValueError, r"block_size\[0\] = 0"):
            dml.space_to_depth(x, 0)
        with self.assertRaisesRegex(ValueError, "must be 4"):
            dml.depth_to_space(np.zeros((4, 2, 2), np.float32), 2)

    def test_runtime_messages(self):
        x = np.zeros((1, 1, 4, 4), np.float32)
        with self.assertRaises(dml.DmlError) as e:
            dml.slice1(x, [0, 0, 0, 2], [1, 1, 4, 3], [1, 1, 1, 1])
        self.assertEqual(e.exception.name, "DML_E_INVALIDARG")
        self.assertIn("dmlDeviceCreateOperator(SLICE1): InputWindowOffsets[3] + InputWindowSizes[3] = 5 exceeds "
                      "InputTensor.Sizes[3] = 4", str(e.exception))
        with self.assertRaisesRegex(dml.DmlError, r"InputWindowStrides\[1\].*0"):
            dml.slice1(x, [0, 0, 0, 0], [1, 1, 4, 4], [1, 0, 1, 1])
        with self.assertRaisesRegex(dml.DmlError, r"dmlDeviceCreateOperator\(SLICE\).*Strides\[2\]"):
            dml.slice(x, [0, 0, 0, 0], [1, 1, 2, 2], [1, 1, 0, 1])
        with self.assertRaisesRegex(dml.DmlError, "DimensionCount"):
            dml.slice1(np.zeros([1] * 9, np.float32), [0] * 9, [1] * 9, [1] * 9)
        with self.assertRaisesRegex(dml.DmlError, "DML_E_UNSUPPORTED.*nosuch"):
            dml.slice1(x, [0] * 4, [1] * 4, [1] * 4, backend="nosuch")

    def test_python_side_errors(self):
        x = np.zeros((2, 3), np.float32)
        with self.assertRaisesRegex(ValueError, "one value per dimension"):
            dml.slice1(x, [0], [1], [1])
        with self.assertRaisesRegex(IndexError, "axis 2 is out of range"):
            dml.reverse_subsequences(x, [1, 1], 2)
        with self.assertRaisesRegex(ValueError, "3 lengths given"):
            dml.reverse_subsequences(x, [1, 1, 1], 1)
        with self.assertRaisesRegex(ValueError, "do not broadcast"):
            dml.reverse_subsequences(x, np.zeros((3, 1), np.uint32), 1)
        with self.assertRaisesRegex(TypeError, "32- or 64-bit integers"):
            dml.reverse_subsequences(x, np.zeros((2, 1), np.float32), 1)
        with self.assertRaisesRegex(ValueError, "empty tensors"):
            dml.slice1(np.zeros((0, 3), np.float32), [0, 0], [1, 1], [1, 1])
        with self.assertRaisesRegex(TypeError, "does not speak DLPack"):
            dml.slice1([[1.0]], [0, 0], [1, 1], [1, 1])
        with self.assertRaisesRegex(ValueError, r"offsets\[0\] \+ sizes\[0\] = 3 exceeds x.shape\[0\] = 2"):
            dml.slice1(x[::-1], [1, 0], [2, 3], [1, 1])

    def test_failed_call_leaves_inputs_alone(self):
        x = np.arange(12, dtype=np.int32).reshape(3, 4)
        before = x.copy()
        with self.assertRaises(dml.DmlError):
            dml.slice1(x, [0, 0], [4, 4], [1, 1])
        np.testing.assert_array_equal(x, before)


class JoinSplit(unittest.TestCase):
    """dml.concat / dml.split against numpy.concatenate / numpy.split."""

    def test_documented_examples(self):
        a = np.arange(1, 7, dtype=np.float32).reshape(1, 1, 2, 3)
        b = np.arange(7, 15, dtype=np.float32).reshape(1, 1, 2, 4)
        x = np.arange(1, 13, dtype=np.float32).reshape(1, 1, 6, 2)
        for backend in BACKENDS:
            # JOIN's example 1 and SPLIT's examples 1 and 2.
            np.testing.assert_array_equal(dml.concat([a, b], axis=3, backend=backend),
                                          [[[[1, 2, 3, 7, 8, 9, 10], [4, 5, 6, 11, 12, 13, 14]]]])
            parts = dml.split(x, [2, 3], axis=2, backend=backend)
            self.assertEqual([p.shape for p in parts], [(1, 1, 2, 2), (1, 1, 1, 2), (1, 1, 3, 2)])
            np.testing.assert_array_equal(np.concatenate([p.reshape(-1) for p in parts]), np.arange(1, 13))
            left, right = dml.split(x, 2, axis=-1, backend=backend)
            np.testing.assert_array_equal(left.reshape(-1), [1, 3, 5, 7, 9, 11])
            np.testing.assert_array_equal(right.reshape(-1), [2, 4, 6, 8, 10, 12])
            self.assertIs(dml.concatenate, dml.concat)

    def test_concat_random(self):
        """Every dtype, ranks 1-8, 1-5 arrays with their own size on the axis
        (some 0: they add nothing), views with negative, broadcast and padded
        strides and misaligned bases, negative axes."""
        rng = np.random.default_rng(SEED + 11)
        for i in range(120):
            shape = random_shape(rng, max_rank=1 + i % 8, max_elements=120)
            dtype = DTYPES[i % len(DTYPES)]
            axis = int(rng.integers(-len(shape), len(shape)))
            arrays = []
            for k in range(int(rng.integers(1, 6))):
                part = list(shape)
                part[axis] = int(rng.choice([0, 1, 2, 3])) if k else int(rng.integers(1, 4))
                arrays.append(random_view(rng, part, dtype) if part[axis] else np.zeros(part, dtype))
            want = np.concatenate(arrays, axis=axis)
            for backend in BACKENDS:
                got = dml.concat(arrays if i % 2 else tuple(arrays), axis=axis, backend=backend)
                assert_same(self, got, want, "case %d %s axis %d shapes %s strides %s on %s"
                            % (i, np.dtype(dtype), axis, [a.shape for a in arrays], [a.strides for a in arrays],
                               backend))

    def test_split_random(self):
        """Every dtype, ranks 1-8, a section count or split indices (negative,
        past the end, repeated: empty parts), non-contiguous views, negative axes."""
        rng = np.random.default_rng(SEED + 12)
        for i in range(120):
            shape = random_shape(rng, max_rank=1 + i % 8, max_elements=120)
            dtype = DTYPES[(i * 5) % len(DTYPES)]
            axis = int(rng.integers(-len(shape), len(shape)))
            x = random_view(rng, shape, dtype)
            n = shape[axis]
            if i % 3 == 0:
                sections = [d for d in range(1, n + 1) if n % d == 0]
                how = int(rng.choice(sections))
            else:
                # Positions 0..n, not decreasing, each written as numpy reads it:
                # as is, from the end (negative) or out of range (clamped).
                points = sorted(int(v) for v in rng.integers(0, n + 1, int(rng.integers(0, 4))))
                how = []
                for p in points:
                    form = int(rng.integers(0, 3))
                    if form == 1 and p < n:
                        p -= n
                    elif form == 2 and p in (0, n):
                        p = -n - 2 if p == 0 else n + 3
                    how.append(p)
                if i % 4 == 1:
                    how = np.array(how, dtype=np.int64)
            want = np.split(x, how, axis=axis)
            for backend in BACKENDS:
                got = dml.split(x, how, axis=axis, backend=backend)
                what = "case %d %s %s %s axis %d split %s on %s" % (i, x.dtype, x.shape, x.strides, axis, how, backend)
                self.assertEqual(len(got), len(want), what)
                for g, w in zip(got, want):
                    assert_same(self, g, w, what)

    def test_round_trip_rank_8(self):
        x = np.arange(3 * 2**7, dtype=np.int64).reshape([2, 2, 2, 3, 2, 2, 2, 2])[..., ::-1]
        for backend in BACKENDS:
            parts = dml.split(x, 3, axis=3, backend=backend)
            assert_same(self, dml.concat(parts, axis=3, backend=backend), x, "rank 8 round trip on " + backend)
        # 8-D and off the 16-byte alignment: 9 dimensions with the lead, so the
        # packed copy walks merged ones; when none merge, a clear refusal.
        y = np.arange(2**8 + 1, dtype=np.int8)[1:].reshape([2] * 8)
        z = np.zeros([4] * 8, np.int8)[(slice(1, 3),) * 8]
        for backend in BACKENDS:
            assert_same(self, dml.concat([y, y[..., ::-1]], axis=-1, backend=backend),
                        np.concatenate([y, y[..., ::-1]], axis=-1), "misaligned rank 8 on " + backend)
            for got, want in zip(dml.split(y, 2, axis=0, backend=backend), np.split(y, 2, axis=0)):
                assert_same(self, got, want, "misaligned rank 8 split on " + backend)
            with self.assertRaisesRegex(ValueError, "dimensions do not merge"):
                dml.concat([z, z], backend=backend)

    def test_errors(self):
        x = np.zeros((2, 3), np.float32)
        cases = [  # (what numpy refuses with ValueError, the dml call, the message)
            (lambda: np.split(x, 2, axis=1), lambda: dml.split(x, 2, axis=1), "does not result in an equal division"),
            (lambda: np.concatenate([x, np.zeros((3, 3), np.float32)], axis=1),
             lambda: dml.concat([x, np.zeros((3, 3), np.float32)], axis=1),
             "along dimension 0, the array at index 0 has size 2 and the array at index 1 has size 3"),
            (lambda: np.concatenate([x, np.zeros(3, np.float32)]), lambda: dml.concat([x, np.zeros(3, np.float32)]),
             "array at index 0 has 2 dimension\\(s\\) and the array at index 1 has 1 dimension\\(s\\)"),
            (lambda: np.concatenate([]), lambda: dml.concat([]), "need at least one array"),
            (lambda: np.concatenate([np.float32(1)]), lambda: dml.concat([np.array(1.0)]), "zero-dimensional"),
            (lambda: np.concatenate([x], axis=2), lambda: dml.concat([x], axis=2),
             "axis 2 is out of bounds for array of dimension 2"),
        ]
        for numpy_call, dml_call, message in cases:
            with self.assertRaises(ValueError):
                numpy_call()
            with self.assertRaisesRegex(ValueError, message):
                dml_call()
        with self.assertRaises(IndexError):  # dml.AxisError is both, as numpy's
            dml.concat([x], axis=-3)
        with self.assertRaisesRegex(dml.AxisError, "axis -3 is out of bounds"):  # numpy: an IndexError
            dml.split(x, [1], axis=-3)
        with self.assertRaisesRegex(ValueError, "must be larger than 0"):
            dml.split(x, 0)
        with self.assertRaisesRegex(ValueError, "must not decrease"):
            dml.split(x, [2, 1], axis=1)
        with self.assertRaisesRegex(TypeError, "no type promotion"):
            dml.concat([x, x.astype(np.float64)])
        with self.assertRaisesRegex(TypeError, "a sequence of tensors"):
            dml.concat(x)
        with self.assertRaisesRegex(ValueError, "empty tensors"):
            dml.concat([np.zeros((2, 0), np.float32)] * 2, axis=1)
        with self.assertRaisesRegex(TypeError, "axis must be an integer"):
            dml.split(x, 2, axis=1.0)


CAST_DTYPES = [np.float32, np.float16, np.float64, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16,
               np.uint32, np.uint64]


def ref_cast_element(v, dtype):
    """One element by the runtime's documented rules (docs/operators.md),
    written from them: floats into integers truncate toward zero, saturate,
    NaN -> 0; integers into integers keep the low bits; into floats, numpy's
    conversion (one rounding to nearest even, overflow to infinity)."""
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        if isinstance(v, (float, np.floating)):
            if math.isnan(v):
                return 0
            if math.isinf(v):
                return info.max if v > 0 else info.min
            return min(max(int(v), info.min), info.max)  # int() truncates toward zero
        bits = 8 * np.dtype(dtype).itemsize
        w = int(v) & ((1 << bits) - 1)
        return w - (1 << bits) if info.min < 0 and w >> (bits - 1) else w
    return np.array(v).astype(dtype)[()]


def ref_cast(x, dtype):
    x = x.astype(np.uint8) if x.dtype == np.bool_ else x
    items = x.reshape(-1).tolist() if np.issubdtype(x.dtype, np.integer) else list(x.reshape(-1))
    return np.array([ref_cast_element(v, dtype) for v in items], dtype=dtype).reshape(x.shape)


def numpy_defined(x, dtype):
    """Where numpy's astype is defined (C's conversion): every element unless a
    float goes into an integer, then the finite values whose truncation fits."""
    if not (np.issubdtype(x.dtype, np.floating) and np.issubdtype(dtype, np.integer)):
        return np.ones(x.shape, bool)
    info = np.iinfo(dtype)
    with np.errstate(invalid="ignore"):
        t = np.trunc(x.astype(np.float64))
        return np.isfinite(t) & (t >= float(info.min)) & (t < float(info.max) + 1.0)


class Cast(unittest.TestCase):
    def test_cast_random(self):
        """Every pair of the eleven types (and bool in), random views (negative,
        broadcast, padded strides, misaligned bases), values scaled to reach
        saturation with NaN and infinities mixed in: against the rules, and
        against numpy's astype wherever numpy defines the result."""
        rng = np.random.default_rng(SEED + 61)
        pairs = [(a, b) for a in CAST_DTYPES + [np.bool_] for b in CAST_DTYPES]
        for i, (src, dst) in enumerate(pairs * 2):
            shape = random_shape(rng, max_rank=4, max_elements=60)
            x = random_view(rng, shape, src)
            if np.issubdtype(src, np.floating):
                base = np.array(x, np.float64) * float(rng.choice([1, 300, 1e5, 1e10, 1e20]))
                flat = base.reshape(-1)
                for v in (np.nan, np.inf, -np.inf, -0.0, 65519.0, 65520.0, -2.5)[:flat.size // 3]:
                    flat[int(rng.integers(0, flat.size))] = v
                with np.errstate(over="ignore", invalid="ignore"):
                    x = flat.reshape(base.shape).astype(src)
                x = x[tuple(slice(None, None, -1) if k % 2 else slice(None) for k in range(x.ndim))]
            want = ref_cast(x, dst)
            defined = numpy_defined(x, dst)
            with np.errstate(over="ignore", invalid="ignore"):
                from_numpy = x.astype(dst)
            np.testing.assert_array_equal(from_numpy[defined], want[defined], "rules vs numpy %s -> %s" % (src, dst))
            for backend in BACKENDS:
                got = dml.cast(x, dst, backend=backend)
                assert_same(self, got, want, "case %d %s -> %s %s %s on %s"
                            % (i, x.dtype, np.dtype(dst), x.shape, x.strides, backend))

    def test_cast_documented_rules(self):
        """Where numpy's result is undefined or differs: NaN -> 0, saturation,
        float16's one rounding of wide integers, quiet NaNs across floats."""
        f = np.array([np.nan, -np.nan, np.inf, -np.inf, 1e10, -1e10, 2.9, -2.9, 255.5, -0.5, 127.99], np.float32)
        cases = [
            (f, np.int8, [0, 0, 127, -128, 127, -128, 2, -2, 127, 0, 127]),
            (f, np.uint8, [0, 0, 255, 0, 255, 0, 2, 0, 255, 0, 127]),
            (f, np.int32, [0, 0, 2**31 - 1, -2**31, 2**31 - 1, -2**31, 2, -2, 255, 0, 127]),
            (f, np.uint64, [0, 0, 2**64 - 1, 0, 10**10, 0, 2, 0, 255, 0, 127]),
            (f.astype(np.float64), np.int64, [0, 0, 2**63 - 1, -2**63, 10**10, -10**10, 2, -2, 255, 0, 127]),
            # ties to even at 2048 apart: 2049 -> 2048, 2051 -> 2052; 65519 -> 65504; from 65520: infinity
            (np.array([2049, 2051, 65519, 65520, -65520, 2**62, -2**63], np.int64), np.float16,
             [2048, 2052, 65504, np.inf, -np.inf, np.inf, -np.inf]),
            (np.array([2**64 - 1, 65504], np.uint64), np.float16, [np.inf, 65504]),
            # int64 -> float32 rounds once: 2^24 + 1 -> 2^24, 2^53 + 2^29 + 1 -> up
            (np.array([2**24 + 1, 2**53 + 2**29 + 1], np.int64), np.float32, [2.0**24, 2.0**53 + 2.0**30]),
            (np.array([300, -1, 128], np.int32), np.uint8, [44, 255, 128]),
            (np.array([300, -1, 128], np.int32), np.int8, [44, -1, -128]),
        ]
        for backend in BACKENDS:
            for x, dtype, want in cases:
                got = dml.cast(x, dtype, backend=backend)
                np.testing.assert_array_equal(got, np.array(want, dtype=dtype),
                                              "%s -> %s on %s" % (x.dtype, np.dtype(dtype), backend))
            # A signalling float32 NaN (payload 1) becomes a quiet float16 NaN
            # keeping the top payload bits and the sign (numpy's keeps it signalling).
            snan = np.array([0x7F800001, 0xFFA00000], np.uint32).view(np.float32)
            self.assertEqual(dml.cast(snan, np.float16, backend=backend).view(np.uint16).tolist(), [0x7E00, 0xFF00])

    def test_cast_dtype_forms(self):
        x = np.array([[1.5, -2.5], [300.0, np.nan]], np.float32)
        want = np.array([[1, -2], [127, 0]], np.int8)
        for form in (np.int8, np.dtype(np.int8), "int8", "i1", "<i1", np.dtype("int8").str):
            assert_same(self, dml.cast(x, form, backend="cpu"), want, repr(form))
        assert_same(self, dml.cast(x, float, backend="cpu"), x.astype(float), "float")
        assert_same(self, dml.cast(x[::-1, ::-1], "float16", backend="cpu"), x[::-1, ::-1].astype(np.float16), "flip")
        scalar = dml.cast(np.array(2.75), np.uint16, backend="cpu")  # 0-dimensional
        self.assertEqual((scalar.shape, scalar.dtype, int(scalar)), ((), np.uint16, 2))
        assert_same(self, dml.cast(np.array([True, False]), np.float32, backend="cpu"), np.array([1, 0], np.float32),
                    "bool in")
        for bad in (np.bool_, np.complex64, "U4", object, "bfloat16"):
            with self.assertRaises(TypeError, msg=repr(bad)):
                dml.cast(x, bad)
        with self.assertRaises(TypeError):
            dml.cast(x.astype(np.complex64), np.float32)


class Versions(unittest.TestCase):
    """dml.version() is the loaded runtime's dmlGetVersion: its release, its
    ABI (the one the package's declarations follow, or a later minor), and the
    plugin ABI; the package refuses a runtime of another ABI major at import."""

    def test_version(self):
        from dml import _lib
        v = dml.version()
        self.assertIsInstance(v, dml.Version)
        self.assertRegex(v.runtime, r"^\d+\.\d+\.\d+$")
        self.assertEqual(v.abi[0], _lib.ABI_VERSION[0])
        self.assertGreaterEqual(v.abi[1], _lib.ABI_VERSION[1])
        self.assertEqual(v.plugin_abi, 2)
        self.assertEqual(ctypes.sizeof(_lib.VERSION_INFO), 60)

    def test_other_library_is_refused_at_import(self):
        import ctypes.util
        import subprocess
        import sys
        other = ctypes.util.find_library("m")
        if not other:
            self.skipTest("no libm to stand in for an old runtime")
        env = dict(os.environ, DML_LIBRARY=other)
        p = subprocess.run([sys.executable, "-c", "import dml"], env=env, capture_output=True, text=True)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("ImportError: dml: %s has no dmlGetVersion: it is not a runtime of ABI 1.1" % other, p.stderr)

    def test_bad_size_is_refused(self):
        from dml import _lib
        info = _lib.VERSION_INFO()
        info.Size = 8
        with self.assertRaisesRegex(dml.DmlError, r"dmlGetVersion: info->Size = 8; "
                                                  r"must be sizeof\(DML_VERSION_INFO\) = 60"):
            _lib.check(_lib.lib.dmlGetVersion(ctypes.byref(info)))
        self.assertEqual(info.AbiMajor, 0)


class GrowableStructs(unittest.TestCase):
    """The ctypes declarations match dml.h's growable structs, Size first and
    set by their constructors; a Size the runtime refuses is a DmlError."""

    def test_layouts(self):
        from dml import _lib
        self.assertEqual(ctypes.sizeof(_lib.DEVICE_DESC), 32)
        self.assertEqual(_lib.DEVICE_DESC.Backend.offset, 8)
        self.assertEqual(ctypes.sizeof(_lib.ADAPTER_INFO), 296)
        self.assertEqual(_lib.ADAPTER_INFO.MaxFeatureLevel.offset, 292)
        self.assertEqual(_lib.DEVICE_DESC(b"cpu", 0, 0, _lib.FEATURE_LEVEL_5_0).Size, 32)
        self.assertEqual(_lib.ADAPTER_INFO().Size, 296)

    def test_bad_size_is_refused(self):
        from dml import _lib
        desc = _lib.DEVICE_DESC(b"cpu", 0, 0, _lib.FEATURE_LEVEL_5_0)
        desc.Size = 24
        device = ctypes.c_void_p()
        with self.assertRaisesRegex(dml.DmlError, r"DML_E_INVALIDARG: dmlCreateDevice: desc->Size = 24; "
                                                  r"must be sizeof\(DML_DEVICE_DESC\) = 32"):
            _lib.check(_lib.lib.dmlCreateDevice(ctypes.byref(desc), ctypes.byref(device)))
        self.assertIsNone(device.value)


class Lifetime(unittest.TestCase):
    def test_result_outlives_everything(self):
        x = np.arange(64, dtype=np.float64).reshape(8, 8)
        y = dml.slice1(x, [0, 0], [8, 8], [-1, 1])
        del x
        import gc
        gc.collect()
        np.testing.assert_array_equal(y, np.arange(64, dtype=np.float64).reshape(8, 8)[::-1])

    def test_unknown_framework_gets_a_dml_tensor(self):
        class Opaque:  # speaks DLPack, but is not numpy
            def __init__(self, a):
                self.a = a

            def __dlpack__(self, stream=None):
                return self.a.__dlpack__()

            def __dlpack_device__(self):
                return self.a.__dlpack_device__()

        x = np.arange(6, dtype=np.uint8).reshape(2, 3)
        y = dml.slice1(Opaque(x), [0, 0], [2, 3], [1, -1])
        self.assertIsInstance(y, dml.Tensor)
        np.testing.assert_array_equal(np.from_dlpack(y), x[:, ::-1])
        # Any number of consumers: each capsule holds its own reference.
        np.testing.assert_array_equal(np.from_dlpack(y), x[:, ::-1])

    def test_unconsumed_export_is_freed(self):
        x = np.arange(6, dtype=np.uint8).reshape(2, 3)
        y = dml.slice1(type("Opaque", (), {"__dlpack__": lambda s, stream=None: x.__dlpack__(),
                                           "__dlpack_device__": lambda s: x.__dlpack_device__()})(),
                       [0, 0], [2, 3], [1, 1])
        from dml import _dlpack
        before = len(_dlpack._exports)
        capsule = y.__dlpack__()
        self.assertEqual(len(_dlpack._exports), before + 1)
        del capsule  # never consumed: the capsule's destructor calls the deleter
        self.assertEqual(len(_dlpack._exports), before)


def random_window(rng, shape, signed=True):
    """SLICE1 parameters (offsets, sizes, strides, output sizes) for shape."""
    offsets, sizes, strides = [], [], []
    for n in shape:
        w = int(rng.integers(1, n + 1))
        offsets.append(int(rng.integers(0, n - w + 1)))
        sizes.append(w)
        strides.append(int(rng.choice([1, 1, 2, 3])) * (int(rng.choice([1, -1])) if signed else 1))
    out_sizes = [1 + (w - 1) // abs(s) for w, s in zip(sizes, strides)]
    return offsets, sizes, strides, out_sizes


class Identity(unittest.TestCase):
    def test_identity_random(self):
        rng = np.random.default_rng(SEED + 4)
        for i in range(60):
            x = random_view(rng, random_shape(rng), DTYPES[i % len(DTYPES)])
            want = np.empty(x.shape, x.dtype)
            for c in np.ndindex(*x.shape):  # output[c] = input[c], packed
                want[c] = x[c]
            for backend in BACKENDS:
                got = dml.identity(x, backend=backend)
                assert_same(self, got, want, "case %d %s %s %s on %s" % (i, x.dtype, x.shape, x.strides, backend))
                self.assertTrue(got.flags.c_contiguous)

    def test_scale_bias(self):
        rng = np.random.default_rng(SEED + 5)
        for i in range(30):
            dtype = [np.float32, np.float16, np.float64][i % 3]
            shape = random_shape(rng, max_elements=100)
            x = random_view(rng, shape, dtype, broadcast=False)
            # Values whose x * scale + bias is exact in every type: the
            # reference needs no rounding rule.
            x[...] = rng.integers(-64, 64, size=x.shape).astype(dtype)
            scale, bias = float(rng.choice([0.5, 2.0, -1.0, 1.0])), float(rng.choice([0.0, 3.0, -0.25]))
            want = np.empty(x.shape, dtype)
            for c in np.ndindex(*x.shape):
                want[c] = float(x[c]) * scale + bias
            for backend in BACKENDS:
                got = dml.identity(x, scale=scale, bias=bias, backend=backend)
                assert_same(self, got, want, "case %d %s %s scale %g bias %g on %s" % (i, dtype, x.strides, scale,
                                                                                       bias, backend))
        with self.assertRaisesRegex(dml.DmlError, "ScaleBias"):
            dml.identity(np.zeros((2, 2), np.int32), scale=2.0)


def run_reference(kind, x, params, lengths=None):
    """One node's output, element by element."""
    if kind == "identity":
        scale, bias = params
        if scale is None and bias is None:
            return ref_slice1(x, [0] * x.ndim, list(x.shape), [1] * x.ndim, list(x.shape))
        return (x.astype(np.float64) * (1.0 if scale is None else scale) + (bias or 0.0)).astype(x.dtype)
    if kind == "slice1":
        return ref_slice1(x, *params)
    if kind == "slice":
        return ref_slice(x, *params)
    return ref_reverse(x, lengths, params)


class Graphs(unittest.TestCase):
    def random_graph(self, rng, i):
        """A random graph (chains of 1-4 nodes, fan-out, outputs from the middle)
        with its inputs and the reference outputs."""
        g = dml.Graph()
        shape = random_shape(rng, max_rank=4, max_elements=120)
        dtype = [np.float32, np.int16, np.uint8, np.float64, np.int64][i % 5]
        x = random_view(rng, shape, dtype)
        values = [(g.input(shape), np.ascontiguousarray(x))]
        tensors, outputs, wants = [x], [], []
        for k in range(int(rng.integers(1, 5))):
            value, ref = values[int(rng.integers(0, len(values)))]  # fan-out when one is picked twice
            kind = ["identity", "slice1", "slice", "reverse"][int(rng.integers(0, 4))]
            if kind == "identity":
                scaled = dtype in (np.float32, np.float64) and rng.random() < 0.5
                params = (2.0, None) if scaled else (None, None)  # x * 2: exact, no rounding rule
                node, want = g.identity(value, *params), run_reference(kind, ref, params)
            elif kind == "slice1":
                params = random_window(rng, ref.shape)
                node, want = g.slice1(value, *params), run_reference(kind, ref, params)
            elif kind == "slice":
                o, w, s, z = random_window(rng, ref.shape, signed=False)
                params = (o, z, s)
                node, want = g.slice(value, *params), run_reference(kind, ref, params)
            else:
                axis = int(rng.integers(0, ref.ndim))
                lshape = [1 if d == axis else n for d, n in enumerate(ref.shape)]
                ltype = [np.uint32, np.int64, np.int32, np.uint64][k % 4]
                lengths = rng.integers(0, ref.shape[axis] + 2, size=lshape).astype(ltype)
                tensors.append(lengths)
                node = g.reverse_subsequences(value, g.input(lshape), axis)
                want = run_reference(kind, ref, axis, lengths)
            values.append((node, want))
            if rng.random() < 0.4:  # an output from the middle of the chain
                g.output(node)
                outputs.append(want)
        if not outputs or values[-1][0] is not g.outputs[-1]:
            g.output(values[-1][0])
            outputs.append(values[-1][1])
        return g, tensors, outputs

    def test_random_graphs(self):
        rng = np.random.default_rng(SEED + 6)
        for i in range(60):
            g, tensors, wants = self.random_graph(rng, i)
            for backend in BACKENDS:
                run = g.compile(backend=backend)
                for repeat in range(2):  # the second call reuses the compiled graph
                    got = run(*tensors)
                    self.assertEqual(len(got), len(wants))
                    for j, (a, b) in enumerate(zip(got, wants)):
                        assert_same(self, a, b, "graph %d output %d on %s (%s)" % (i, j, backend,
                                                                                   run.steps(*tensors)))
                self.assertEqual(run.compilations, 1)

    def test_cache_follows_the_layout(self):
        g = dml.Graph()
        a = g.input((4, 6))
        g.output(g.slice1(a, [0, 0], [4, 6], [1, -1]))
        run = g.compile()
        x = np.arange(48, dtype=np.float32).reshape(4, 12)
        for view in (x[:, :6], x[:, 4:10], x[:, ::2], x[:, :6].copy()):
            (y,) = run(view)
            assert_same(self, y, np.ascontiguousarray(view[:, ::-1]), "layout %s" % (view.strides,))
        self.assertEqual(run.compilations, 3)  # x[:, :6] and x[:, 4:10] share one layout

    def test_steps_show_fusion(self):
        g = dml.Graph()
        a = g.input((4, 6))
        lengths = g.input((3, 1))
        b = g.identity(a)
        c = g.slice1(b, [1, 0], [3, 6], [1, -1])
        g.output(g.reverse_subsequences(c, lengths, 1))
        run = g.compile()
        x, n = np.arange(24, dtype=np.float32).reshape(4, 6), np.array([[2], [6], [0], [9]], np.uint32)
        with self.assertRaisesRegex(ValueError, r"input 1 has shape \(4, 1\)"):
            run(x, n)
        n = n[:3]
        steps = run.steps(x, n)
        self.assertIn("3 nodes compiled to 1 step(s)", steps[0])
        self.assertEqual(len(steps), 2)
        self.assertIn("reverse-gather", steps[1])
        (y,) = run(x, n)
        # The same chain, one operator at a time.
        want = dml.reverse_subsequences(dml.slice1(dml.identity(x), [1, 0], [3, 6], [1, -1]), n, 1)
        assert_same(self, y, want, "fused chain")
        # A ScaleBias in the middle is a pass of its own.
        g = dml.Graph()
        a = g.input((4, 6))
        g.output(g.slice1(g.identity(a, scale=2.0), [0, 0], [4, 6], [-1, 1]))
        self.assertIn("2 nodes compiled to 2 step(s)", g.compile().steps(x)[0])
        assert_same(self, g.compile()(x)[0], (x * 2)[::-1], "scale then reversed rows")

    def test_graph_errors(self):
        g = dml.Graph()
        a = g.input((2, 3))
        with self.assertRaisesRegex(ValueError, "graph input cannot be a graph output"):
            g.output(a)
        with self.assertRaisesRegex(ValueError, "no outputs"):
            g.compile()
        with self.assertRaisesRegex(TypeError, "value of this graph"):
            dml.Graph().slice1(a, [0, 0], [1, 1], [1, 1])
        with self.assertRaisesRegex(ValueError, "strides has 1 values; the 2-dimensional input"):
            g.slice1(a, [0, 0], [1, 1], [1])
        with self.assertRaisesRegex(ValueError, "offsets has 3 values"):
            g.slice(a, [0, 0, 0], [1, 1], [1, 1])
        with self.assertRaisesRegex(ValueError, r"lengths of shape \(2, 3\)"):
            g.reverse_subsequences(a, a, 1)
        g.output(g.slice1(a, [0, 1], [2, 3], [1, 1]))  # the window leaves the input: the runtime says so
        self.assertEqual(len(g.compile().graph.outputs), 1)
        g.output(g.identity(a))
        run = g.compile()
        g.output(g.identity(a))  # after compile(): not part of run
        self.assertEqual(len(run.graph.outputs), 2)
        with self.assertRaisesRegex(dml.DmlError, r"InputWindowOffsets\[1\] \+ InputWindowSizes\[1\] = 4"):
            g.compile()(np.zeros((2, 3), np.float32))
        with self.assertRaisesRegex(ValueError, "1 tensors given for 2 graph inputs"):
            h = dml.Graph()
            b = h.input((2, 3))
            h.output(h.reverse_subsequences(b, h.input((2, 1)), 1))
            h.compile()(np.zeros((2, 3), np.float32))


@unittest.skipUnless(__import__("importlib").util.find_spec("torch"), "PyTorch is not installed")
class Torch(unittest.TestCase):
    def test_torch(self):
        import torch
        devices = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])
        for device in devices:
            x = torch.arange(60, dtype=torch.float32, device=device).reshape(3, 4, 5).transpose(0, 2)
            y = dml.reverse_subsequences(x, [x.shape[1]], 1)
            self.assertIsInstance(y, torch.Tensor)
            self.assertEqual(y.device, x.device)
            self.assertTrue(torch.equal(y, torch.flip(x, [1])))
            y = dml.slice1(x, [1, 0, 0], [4, 4, 3], [2, 1, -1])
            self.assertTrue(torch.equal(y, torch.flip(x[1:5:2, :, 0:3], [2])))


@unittest.skipUnless(__import__("importlib").util.find_spec("cupy"), "CuPy is not installed")
class CuPy(unittest.TestCase):
    def test_cupy(self):
        import cupy
        x = cupy.arange(60, dtype=cupy.int64).reshape(3, 4, 5)[:, ::-1, 1:]
        y = dml.slice1(x, [0, 0, 0], [3, 4, 4], [1, -1, 2])
        self.assertIsInstance(y, cupy.ndarray)
        cupy.testing.assert_array_equal(y, x[:, ::-1, ::2])


if __name__ == "__main__":
    random.seed(SEED)
    unittest.main()

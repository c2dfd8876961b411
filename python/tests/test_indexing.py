"""dml.take, take_along_axis, gather_nd, scatter, scatter_nd, one_hot and
where against references written from docs/operators.md ("Data-dependent
operators"), element by element in Python integers: a negative signed index
counts from the end once, gathers clamp what is still out of range, scatters
drop it, ONE_HOT turns nothing on. Every index dtype (and Python sequences),
hostile values (INT64_MIN, 2^63, UINT64_MAX), non-contiguous and broadcast
views, on "cpu" and "cudaemu". A backend that does not execute these plan
kinds yet (DML_E_NOTIMPL) makes the case skip, never pass."""
import unittest

import numpy as np

import dml
from test_dml import BACKENDS, DTYPES, SEED, assert_same, random_shape, random_values, random_view

INDEX_DTYPES = [np.int32, np.int64, np.uint32, np.uint64, "list"]
HOSTILE = {np.int32: [-2**31, 2**31 - 1, -1], np.int64: [-2**63, 2**63 - 1, -1],
           np.uint32: [2**32 - 1, 2**31], np.uint64: [2**64 - 1, 2**63], "list": [-2**63, 2**63 - 1, -1]}


def out_of_range(index_dtype, n):
    """Hostile values that stay out of range for an axis of n (scatters drop them)."""
    return [v for v in HOSTILE[index_dtype] if resolve(v, n) is None] + [n, -n - 1]


def wrap(values, index_dtype, shape):
    """Python integers stored as index_dtype (wrapping), or the nested list."""
    if index_dtype == "list":
        return np.array(values, dtype=object).reshape(shape).tolist() if shape else int(values[0])
    bits = 8 * np.dtype(index_dtype).itemsize
    signed = np.iinfo(index_dtype).min < 0
    stored = [(int(v) + (1 << (bits - 1) if signed else 0)) % (1 << bits) - (1 << (bits - 1) if signed else 0)
              for v in values]
    return np.array(stored, dtype=index_dtype).reshape(shape)


def resolve(v, n):
    """An index value (a Python integer, its type's value) as a position, or
    None when it stays out of range."""
    v = int(v)
    if v < 0:
        v += n
    return v if 0 <= v < n else None


def clamp(v, n):
    v = int(v)
    if v < 0:
        v += n
    return min(max(v, 0), n - 1)


def random_indices(rng, shape, n, index_dtype, hostile=True):
    """Indices for an axis of n: mostly in [-n, n), some out of range, some
    hostile; as index_dtype (negative ones wrap in unsigned types, i.e. are
    huge) or a nested list."""
    count = int(np.prod(shape, dtype=np.int64))
    values = [int(v) for v in rng.integers(-n, n, count)]
    for i in range(count):
        r = rng.random()
        if hostile and r < 0.1:
            values[i] = int(rng.choice(HOSTILE[index_dtype]))
        elif r < 0.2:
            values[i] = int(rng.integers(-3 * n - 2, 3 * n + 2))
    return wrap(values, index_dtype, shape)


def as_ints(indices):
    """The indices as an object array of Python integers (their values)."""
    if isinstance(indices, (list, int)):
        return np.array(indices, dtype=object)
    return indices.astype(object)


def random_index_view(rng, shape, n, index_dtype):
    idx = random_indices(rng, shape, n, index_dtype)
    if index_dtype == "list" or not shape or rng.random() < 0.5:
        return idx
    base = random_view(rng, shape, index_dtype, broadcast=False)
    base[...] = idx
    return base


class Indexing(unittest.TestCase):
    def setUp(self):
        self.rng = np.random.default_rng(SEED)

    def run_or_skip(self, fn, *args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except dml.DmlError as e:
            if e.name == "DML_E_NOTIMPL":
                self.skipTest("backend does not execute the data-dependent plan kinds yet: %s" % e)
            raise

    # ---- references ---------------------------------------------------------

    @staticmethod
    def ref_take(x, idx, axis):
        if axis is None:
            x, axis = np.ascontiguousarray(x).reshape(-1), 0
        axis %= x.ndim
        ints = as_ints(idx)
        n = x.shape[axis]
        out = np.empty(x.shape[:axis] + ints.shape + x.shape[axis + 1:], dtype=x.dtype)
        for c in np.ndindex(*out.shape):
            i = c[axis:axis + ints.ndim]
            src = c[:axis] + (clamp(ints[i], n),) + c[axis + ints.ndim:]
            out[c] = x[src]
        return out

    @staticmethod
    def ref_take_along_axis(x, idx, axis):
        if axis is None:
            x, axis = np.ascontiguousarray(x).reshape(-1), 0
        axis %= x.ndim
        ints = as_ints(idx)
        shape = list(np.broadcast_shapes(x.shape[:axis] + (1,) + x.shape[axis + 1:],
                                         ints.shape[:axis] + (1,) + ints.shape[axis + 1:]))
        out_shape = shape[:axis] + [ints.shape[axis]] + shape[axis + 1:]
        shape[axis] = x.shape[axis]
        xb = np.broadcast_to(x, shape)
        ib = np.broadcast_to(ints, out_shape)
        out = np.empty(out_shape, dtype=x.dtype)
        for c in np.ndindex(*out_shape):
            src = list(c)
            src[axis] = clamp(ib[c], x.shape[axis])
            out[c] = xb[tuple(src)]
        return out

    @staticmethod
    def ref_gather_nd(x, idx, b):
        ints = as_ints(idx)
        k = ints.shape[-1]
        out = np.empty(ints.shape[:-1] + x.shape[b + k:], dtype=x.dtype)
        for c in np.ndindex(*out.shape):
            lead = c[:ints.ndim - 1]
            tup = ints[lead]
            src = lead[:b] + tuple(clamp(tup[j], x.shape[b + j]) for j in range(k)) + c[ints.ndim - 1:]
            out[c] = x[src]
        return out

    @staticmethod
    def ref_scatter(x, idx, upd, axis):
        out = np.array(x)
        ints = as_ints(idx)
        shape = x.shape[:axis] + (ints.shape[axis],) + x.shape[axis + 1:]
        ib, ub = np.broadcast_to(ints, shape), np.broadcast_to(upd, shape)
        for c in np.ndindex(*shape):  # row-major: the last update wins
            p = resolve(ib[c], x.shape[axis])
            if p is not None:
                out[c[:axis] + (p,) + c[axis + 1:]] = ub[c]
        return out

    @staticmethod
    def ref_scatter_nd(x, idx, upd):
        out = np.array(x)
        ints = as_ints(idx)
        k = ints.shape[-1]
        shape = ints.shape[:-1] + x.shape[k:]
        ub = np.broadcast_to(upd, shape)
        for c in np.ndindex(*shape):
            tup = ints[c[:ints.ndim - 1]]
            pos = [resolve(tup[j], x.shape[j]) for j in range(k)]
            if None not in pos:
                out[tuple(pos) + c[ints.ndim - 1:]] = ub[c]
        return out

    @staticmethod
    def ref_one_hot(idx, depth, axis, on, off, dtype):
        ints = as_ints(idx)
        axis %= ints.ndim + 1
        out = np.empty(ints.shape[:axis] + (depth,) + ints.shape[axis:], dtype=dtype)
        for c in np.ndindex(*out.shape):
            out[c] = on if resolve(ints[c[:axis] + c[axis + 1:]], depth) == c[axis] else off
        return out

    # ---- random cases -------------------------------------------------------

    def test_take_random(self):
        rng = self.rng
        for backend in BACKENDS:
            for trial in range(40):
                dtype = DTYPES[trial % len(DTYPES)]
                index_dtype = INDEX_DTYPES[trial % len(INDEX_DTYPES)]
                shape = random_shape(rng, 4, 120)
                x = random_view(rng, shape, dtype)
                axis = None if rng.random() < 0.2 else int(rng.integers(-len(shape), len(shape)))
                n = x.size if axis is None else shape[axis]
                ishape = [] if rng.random() < 0.15 else random_shape(rng, 3, 12)
                idx = random_index_view(rng, ishape, n, index_dtype)
                what = "%s take %s axis %s %s indices %s" % (backend, shape, axis, index_dtype, ishape)
                got = self.run_or_skip(dml.take, x, idx, axis, backend=backend)
                assert_same(self, got, self.ref_take(x, idx, axis), what)

    def test_take_matches_numpy_in_range(self):
        x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
        for backend in BACKENDS:
            for idx, axis in (([2, 0, -1], 2), ([[1, -2], [0, 0]], 1), (np.array(3), None),
                              (np.array([[5, -24]], np.int64), None)):
                got = self.run_or_skip(dml.take, x, idx, axis, backend=backend)
                assert_same(self, got, np.take(x, idx, axis), "%s %s %s" % (backend, idx, axis))
            # numpy's mode="clip" for in-range negatives after the wrap; beyond, clamped.
            got = dml.take(np.arange(5, dtype=np.int16), [7, -7, -1, 100], backend=backend)
            assert_same(self, got, np.array([4, 0, 4, 4], np.int16), backend + " clamped")
            got = dml.take(np.arange(5, dtype=np.int16), [2**64 - 1, 2**63, 1], backend=backend)  # UINT64
            assert_same(self, got, np.array([4, 4, 1], np.int16), backend + " unsigned Python values")

    def test_take_along_axis_random(self):
        rng = self.rng
        for backend in BACKENDS:
            for trial in range(40):
                dtype = DTYPES[trial % len(DTYPES)]
                index_dtype = INDEX_DTYPES[(trial // 2) % len(INDEX_DTYPES)]
                shape = random_shape(rng, 4, 120)
                x = random_view(rng, shape, dtype)
                axis = int(rng.integers(-len(shape), len(shape)))
                ishape = list(shape)
                ishape[axis] = int(rng.integers(1, 6))
                for d in range(len(shape)):  # broadcasting both ways
                    if d != axis % len(shape) and rng.random() < 0.2:
                        ishape[d] = 1
                if rng.random() < 0.2:
                    d = int(rng.integers(0, len(shape)))
                    if d != axis % len(shape) and ishape[d] > 1:
                        x = x[(slice(None),) * d + (slice(0, 1),)]
                idx = random_index_view(rng, ishape, shape[axis], index_dtype)
                what = "%s take_along_axis %s axis %d %s indices %s" % (backend, x.shape, axis, index_dtype, ishape)
                got = self.run_or_skip(dml.take_along_axis, x, idx, axis, backend=backend)
                assert_same(self, got, self.ref_take_along_axis(x, idx, axis), what)
            x = np.arange(12, dtype=np.int64).reshape(3, 4)
            idx = np.argsort(-x, axis=1)
            got = dml.take_along_axis(x, idx, 1, backend=backend)
            assert_same(self, got, np.take_along_axis(x, idx, 1), backend + " numpy's example")
            got = dml.take_along_axis(x, np.array([11, 0, -1]), None, backend=backend)
            assert_same(self, got, np.array([11, 0, 11]), backend + " axis None")

    def test_gather_nd_random(self):
        rng = self.rng
        for backend in BACKENDS:
            for trial in range(40):
                dtype = DTYPES[trial % len(DTYPES)]
                index_dtype = INDEX_DTYPES[trial % len(INDEX_DTYPES)]
                shape = random_shape(rng, 4, 120)
                b = int(rng.integers(0, len(shape)))
                k = int(rng.integers(1, len(shape) - b + 1))
                ishape = shape[:b] + random_shape(rng, 2, 6)[:int(rng.integers(0, 3))] + [k]
                x = random_view(rng, shape, dtype)
                ints = np.empty(ishape, dtype=object)
                for c in np.ndindex(*ishape):
                    ints[c] = int(random_indices(rng, [1], shape[b + c[-1]], "list")[0])
                idx = wrap(list(ints.reshape(-1)), index_dtype, ishape)
                what = "%s gather_nd %s %s batch %d %s" % (backend, shape, ishape, b, index_dtype)
                got = self.run_or_skip(dml.gather_nd, x, idx, b, backend=backend)
                assert_same(self, got, self.ref_gather_nd(x, idx, b), what)
            # ONNX's examples
            data = np.array([[0, 1], [2, 3]], np.int32)
            assert_same(self, dml.gather_nd(data, [[0, 0], [1, 1]], backend=backend), np.array([0, 3], np.int32), "1")
            assert_same(self, dml.gather_nd(data, [[1], [0]], backend=backend), data[[1, 0]], "2")
            data3 = np.arange(8, dtype=np.int32).reshape(2, 2, 2)
            assert_same(self, dml.gather_nd(data3, [[1], [0]], batch_dims=1, backend=backend),
                        np.array([[2, 3], [4, 5]], np.int32), "batch_dims 1")
            assert_same(self, dml.gather_nd(data3, [1, 0, 1], backend=backend), np.array(5, np.int32), "0-d")

    def test_scatter_random(self):
        rng = self.rng
        for backend in BACKENDS:
            for trial in range(40):
                dtype = DTYPES[trial % len(DTYPES)]
                index_dtype = INDEX_DTYPES[trial % len(INDEX_DTYPES)]
                shape = random_shape(rng, 4, 120)
                axis = int(rng.integers(0, len(shape)))
                n = shape[axis]
                m = int(rng.integers(1, n + 1))
                ishape = list(shape)
                ishape[axis] = m
                # Distinct targets along each line (several updates of one element are
                # backend-defined off "cpu"), plus some dropped ones and hostile values.
                ints = np.empty(ishape, dtype=object)
                for line in np.ndindex(*(ishape[:axis] + ishape[axis + 1:])):
                    perm = rng.permutation(n)[:m]
                    for j in range(m):
                        v = int(perm[j]) - (n if rng.random() < 0.3 else 0)
                        if rng.random() < 0.15:
                            v = int(rng.choice(out_of_range(index_dtype, n)))
                        ints[line[:axis] + (j,) + line[axis:]] = v
                idx = wrap(list(ints.reshape(-1)), index_dtype, ishape)
                x = random_view(rng, shape, dtype)
                upd = random_view(rng, ishape, dtype) if rng.random() < 0.8 else random_values(rng, [1], dtype)[0]
                upd_ref = upd if isinstance(upd, np.ndarray) else np.array(upd, dtype=dtype)
                x_before = np.array(x)
                what = "%s scatter %s axis %d %s indices %s" % (backend, shape, axis, index_dtype, ishape)
                got = self.run_or_skip(dml.scatter, x, idx, upd if isinstance(upd, np.ndarray) else upd.item(),
                                       axis, backend=backend)
                assert_same(self, got, self.ref_scatter(x, idx, upd_ref, axis), what)
                np.testing.assert_array_equal(x, x_before, what + ": x is left alone")
            # numpy's put_along_axis, as a new array; on "cpu" the last of equal targets wins
            x = np.array([[10, 30, 20], [60, 40, 50]], np.int32)
            idx = np.array([[1], [2]], np.int64)
            want = np.array(x)
            np.put_along_axis(want, idx, 99, axis=1)
            assert_same(self, dml.scatter(x, idx, 99, 1, backend=backend), want, backend + " numpy's example")
            if backend == "cpu":
                got = dml.scatter(np.zeros(3, np.int32), [1, 1, 1], np.array([7, 8, 9], np.int32), 0, backend=backend)
                assert_same(self, got, np.array([0, 9, 0], np.int32), "last wins on cpu")

    def test_scatter_nd_random(self):
        rng = self.rng
        for backend in BACKENDS:
            for trial in range(40):
                dtype = DTYPES[trial % len(DTYPES)]
                index_dtype = INDEX_DTYPES[trial % len(INDEX_DTYPES)]
                shape = random_shape(rng, 4, 120)
                k = int(rng.integers(1, len(shape) + 1))
                lead = random_shape(rng, 2, 6)[:int(rng.integers(0, 3))]
                count = int(np.prod(lead, dtype=np.int64))
                cells = int(np.prod(shape[:k]))
                chosen = rng.permutation(cells)[:count]  # distinct tuples
                if len(chosen) < count:
                    lead, count = [len(chosen)], len(chosen)
                tuples = []
                for p in chosen:
                    t = list(np.unravel_index(int(p), shape[:k]))
                    t = [int(v) - (shape[j] if rng.random() < 0.3 else 0) for j, v in enumerate(t)]
                    if rng.random() < 0.15:
                        j = int(rng.integers(0, k))
                        t[j] = int(rng.choice(out_of_range(index_dtype, shape[j])))
                    tuples.append(t)
                ints = np.array(tuples, dtype=object).reshape(lead + [k])
                idx = wrap(list(ints.reshape(-1)), index_dtype, lead + [k])
                ushape = lead + shape[k:]
                x = random_view(rng, shape, dtype)
                upd = random_view(rng, ushape, dtype) if ushape else random_values(rng, [1], dtype).reshape(())
                what = "%s scatter_nd %s %s %s" % (backend, shape, lead + [k], index_dtype)
                got = self.run_or_skip(dml.scatter_nd, x, idx, upd, backend=backend)
                assert_same(self, got, self.ref_scatter_nd(x, idx, upd), what)
            # ONNX's ScatterND example 1
            data = np.arange(1, 9, dtype=np.float32)
            got = dml.scatter_nd(data, np.array([[4], [3], [1], [7]], np.int64),
                                 np.array([9, 10, 11, 12], np.float32), backend=backend)
            assert_same(self, got, np.array([1, 11, 3, 10, 9, 6, 7, 12], np.float32), backend + " ONNX example")

    def test_one_hot_random(self):
        rng = self.rng
        dtypes = [np.float32, np.float16, np.float64, np.int8, np.int32, np.int64, np.uint8, np.uint64, np.bool_]
        for backend in BACKENDS:
            for trial in range(30):
                dtype = dtypes[trial % len(dtypes)]
                index_dtype = INDEX_DTYPES[trial % len(INDEX_DTYPES)]
                ishape = [] if rng.random() < 0.1 else random_shape(rng, 3, 30)
                depth = int(rng.integers(1, 7))
                axis = int(rng.integers(-len(ishape) - 1, len(ishape) + 1))
                idx = random_index_view(rng, ishape, depth, index_dtype)
                on, off = (True, False) if dtype == np.bool_ else (int(rng.integers(1, 100)), int(rng.integers(-5, 1)))
                if dtype in (np.uint8, np.uint64):
                    off = 0
                what = "%s one_hot %s depth %d axis %d %s" % (backend, ishape, depth, axis, index_dtype)
                got = self.run_or_skip(dml.one_hot, idx, depth, axis, on, off, dtype, backend=backend)
                assert_same(self, got, self.ref_one_hot(idx, depth, axis, on, off, dtype), what)
            got = dml.one_hot(np.array([0, 2, -1, 5], np.int32), 3, backend=backend)
            assert_same(self, got, np.array([[1, 0, 0], [0, 0, 1], [0, 0, 1], [0, 0, 0]], np.float32), "TF's")

    def test_where_random(self):
        rng = self.rng
        for backend in BACKENDS:
            for trial in range(40):
                dtype = DTYPES[trial % len(DTYPES)]
                shape = random_shape(rng, 5, 200)
                shapes = []
                for _ in range(3):  # each operand: the shape, a suffix of it, or 1s in places
                    s = list(shape[int(rng.integers(0, len(shape) + 1)):]) if rng.random() < 0.3 else list(shape)
                    s = [1 if rng.random() < 0.25 else n for n in s]
                    shapes.append(s)
                c = np.asarray(random_view(rng, shapes[0], np.bool_ if rng.random() < 0.7 else np.uint8))
                a = np.asarray(random_view(rng, shapes[1], dtype))
                b = np.asarray(random_view(rng, shapes[2], dtype))
                if rng.random() < 0.15:
                    b = random_values(rng, [1], dtype)[0].item()
                want = np.where(c, a, np.array(b, dtype=dtype))
                what = "%s where %s %s %s %s" % (backend, shapes, dtype, c.dtype, type(b).__name__)
                got = self.run_or_skip(dml.where, c, a, b, backend=backend)
                assert_same(self, got, want, what)
            got = dml.where(np.array(True), np.array(1.5), 2.5, backend=backend)
            assert_same(self, got, np.array(1.5), backend + " 0-d")
            got = dml.where(np.array([[True], [False]]), 7, np.arange(3, dtype=np.int8), backend=backend)
            assert_same(self, got, np.where([[True], [False]], np.int8(7), np.arange(3, dtype=np.int8)), "scalar a")


class IndexingErrors(unittest.TestCase):
    def test_shapes_and_types(self):
        x = np.zeros((2, 3), np.float32)
        with self.assertRaisesRegex(TypeError, "dml.take: indices must be int32, int64, uint32 or uint64"):
            dml.take(x, np.zeros(2, np.float32), 0)
        with self.assertRaisesRegex(TypeError, "indices must be int32"):
            dml.take(x, np.zeros(2, np.int16), 0)
        with self.assertRaisesRegex(dml.AxisError, "dml.take: axis 2 is out of bounds for array of dimension 2"):
            dml.take(x, [0], 2)
        with self.assertRaisesRegex(ValueError, "ragged"):
            dml.take(x, [[0, 1], [0]], 0)
        with self.assertRaisesRegex(ValueError, "does not fit 64 bits"):
            dml.take(x, [2**64], 0)
        with self.assertRaisesRegex(ValueError, "would need 9 dimensions; DirectML has at most 8"):
            dml.take(np.zeros([1] * 8, np.int8), np.zeros([1, 1], np.int32), 0)
        with self.assertRaisesRegex(ValueError, "indices has 1 dimension\\(s\\), x 2; they must be equal"):
            dml.take_along_axis(x, np.zeros(2, np.int64), 1)
        with self.assertRaisesRegex(ValueError, "take_along_axis: shapes .* do not broadcast together"):
            dml.take_along_axis(x, np.zeros((3, 1), np.int64), 1)
        with self.assertRaisesRegex(ValueError, r"gather_nd: indices.shape\[-1\] = 3 \(the index tuple's length\); "
                                    r"must be at most x.ndim 2 - batch_dims 0 = 2"):
            dml.gather_nd(x, [[0, 0, 0]])
        with self.assertRaisesRegex(ValueError, r"batch dimension 0: indices.shape\[0\] = 3 differs from "
                                    r"x.shape\[0\] = 2"):
            dml.gather_nd(x, np.zeros((3, 1), np.int32), batch_dims=1)
        with self.assertRaisesRegex(ValueError, "batch_dims = 2; must be in"):
            dml.gather_nd(x, np.zeros((2, 1), np.int32), batch_dims=2)
        with self.assertRaisesRegex(ValueError, r"scatter: indices.shape\[0\] = 3 differs from x.shape\[0\] = 2"):
            dml.scatter(x, np.zeros((3, 1), np.int64), 1.0, 1)
        with self.assertRaisesRegex(ValueError, "scatter: indices has 1 dimension"):
            dml.scatter(x, [0], 1.0, 1)
        with self.assertRaisesRegex(TypeError, "scatter: updates have DLPack dtype .* \\(no type promotion\\)"):
            dml.scatter(x, np.zeros((2, 1), np.int64), np.zeros((2, 1), np.float64), 1)
        with self.assertRaisesRegex(ValueError, "scatter: updates of shape \\(2, 2\\) cannot be broadcast to "
                                    "\\(2, 1\\)"):
            dml.scatter(x, np.zeros((2, 1), np.int64), np.zeros((2, 2), np.float32), 1)
        with self.assertRaisesRegex(ValueError, "scatter_nd: updates of shape \\(3,\\) cannot be broadcast to "
                                    "\\(2, 3\\)|scatter_nd: updates of shape \\(3,\\) cannot"):
            dml.scatter_nd(x, [[0, 0], [1, 1]], np.zeros(3, np.float32))
        with self.assertRaisesRegex(ValueError, "one_hot: depth = 0; must be in"):
            dml.one_hot([0], 0)
        with self.assertRaisesRegex(dml.AxisError, "one_hot: axis 3 is out of bounds for a result of dimension 2"):
            dml.one_hot([0], 2, axis=3)
        with self.assertRaisesRegex(TypeError, "where: condition must be a bool or uint8 tensor"):
            dml.where(np.zeros(2, np.int32), x, x)
        with self.assertRaisesRegex(TypeError, "where: a has DLPack dtype .* b .* \\(no type promotion\\)"):
            dml.where(np.zeros(3, bool), x, x.astype(np.float64))
        with self.assertRaisesRegex(ValueError, "where: shapes .* do not broadcast together"):
            dml.where(np.zeros(2, bool), x, x)
        with self.assertRaisesRegex(TypeError, "where: a or b must be a tensor"):
            dml.where(np.zeros(2, bool), 1, 2)
        with self.assertRaisesRegex(ValueError, "empty tensors"):
            dml.take(x, np.zeros(0, np.int64), 0)


if __name__ == "__main__":
    unittest.main()

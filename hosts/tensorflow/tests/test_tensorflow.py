"""The TensorFlow plugin (libdml_tensorflow.so) against TensorFlow's own CPU
kernels, bit for bit, on random shapes, dtypes and attributes, eagerly and
under tf.function, with the placement checked: soft placement is off, so an
op asked for on DML:0 runs there or fails, and every result's device is
DML:0. A Keras inference model of data-movement layers gives TensorFlow-CPU's
output, and TensorFlow's placement log shows their ops on DML:0.

Run by tests/run-tensorflow.sh, once per runtime backend (DML_BACKEND);
TF_PLUGGABLE_DEVICE_LIBRARY_PATH names the plugin. TensorFlow's own output
(its log, the placement of every op) goes to DML_TF_TEST_LOG (default: a
temporary file); the test report goes to the original stdout.
"""
import os
import re
import sys
import tempfile
import unittest

import numpy as np

# TensorFlow logs placements to both file descriptors from C++: into the log file.
LOG_PATH = os.environ.get("DML_TF_TEST_LOG") or tempfile.mkstemp(prefix="dml-tf-", suffix=".log")[1]
_log = open(LOG_PATH, "wb", buffering=0)
_report = os.fdopen(os.dup(1), "w", buffering=1)
os.dup2(_log.fileno(), 1)
os.dup2(_log.fileno(), 2)
sys.stdout = sys.stderr = _report

import tensorflow as tf  # noqa: E402 (after the redirection: its import logs)

# Before any op runs: the setting is read when functions are placed.
tf.debugging.set_log_device_placement(True)
tf.get_logger().setLevel("ERROR")  # not the retracing warnings of one function per case

DML = "/device:DML:0"
CPU = "/device:CPU:0"
SEED = int(os.environ.get("DML_TF_TEST_SEED", "2026"))
# The types the plugin registers for data movement.
TYPES = [tf.float32, tf.float64, tf.float16, tf.bfloat16, tf.int8, tf.int16, tf.int32, tf.int64,
         tf.uint8, tf.uint16, tf.uint32, tf.uint64, tf.bool]

tf.config.set_soft_device_placement(False)
COUNTS = {"compared": 0, "same error": 0, "no CPU kernel": 0}


def random_array(rng, shape, dtype):
    """Random bits (NaNs and infinities included for floats); bools 0 or 1."""
    shape = tuple(int(n) for n in shape)
    if dtype == tf.bool:
        return rng.integers(0, 2, size=shape).astype(bool)
    np_type = np.dtype(dtype.as_numpy_dtype)
    count = int(np.prod(shape, dtype=np.int64))
    return np.frombuffer(rng.bytes(count * np_type.itemsize), dtype=np_type).reshape(shape).copy()


def random_shape(rng, rank, low=1, high=5):
    return [int(n) for n in rng.integers(low, high + 1, size=rank)]


def on_cpu(value):
    with tf.device(CPU):
        return tf.constant(value)


class DeviceTest(unittest.TestCase):
    def test_device_listed(self):
        devices = tf.config.list_physical_devices("DML")
        self.assertGreaterEqual(len(devices), 1, tf.config.list_physical_devices())
        self.assertEqual(devices[0].device_type, "DML")


class OpTest(unittest.TestCase):
    """Each case runs fn(*args) on the CPU and on DML:0 and wants the same
    bytes (or the same error class)."""

    def setUp(self):
        self.rng = np.random.default_rng(SEED + sum(map(ord, self.id())))

    def run_on(self, device, fn, args, function):
        def call(*a):
            with tf.device(device):
                return fn(*a)
        runner = tf.function(call, autograph=False) if function else call
        try:
            return runner(*[on_cpu(a) for a in args]), None
        except (tf.errors.InvalidArgumentError, tf.errors.UnimplementedError, ValueError) as e:
            return None, e

    def check(self, fn, *args, function=False, what=""):
        expected, expected_error = self.run_on(CPU, fn, args, function)
        if isinstance(expected_error, tf.errors.UnimplementedError):
            COUNTS["no CPU kernel"] += 1
            return  # no CPU kernel for this type (e.g. Tile of uint16): nothing to compare with
        got, error = self.run_on(DML, fn, args, function)
        label = "%s (%s)" % (what, "tf.function" if function else "eager")
        if expected_error is not None:
            self.assertIsNotNone(error, "%s: the CPU failed (%s), DML did not" % (label, expected_error))
            self.assertIsInstance(error, type(expected_error), label)
            COUNTS["same error"] += 1
            return
        if error is not None:
            self.fail("%s: DML failed: %s" % (label, error))
        outputs = got if isinstance(got, (list, tuple)) else [got]
        references = expected if isinstance(expected, (list, tuple)) else [expected]
        for out, ref in zip(outputs, references):
            self.assertTrue(out.device.endswith("device:DML:0"), "%s: ran on %s" % (label, out.device))
            self.assertEqual(out.dtype, ref.dtype, label)
            self.assertEqual(out.shape, ref.shape, label)
            a, b = out.numpy(), ref.numpy()
            self.assertEqual(a.tobytes(), b.tobytes(), "%s: results differ\nDML %s\nCPU %s" % (label, a, b))
        COUNTS["compared"] += 1

    def cases(self, count):
        """(index, dtype, use tf.function): every type, a few under tf.function."""
        for i in range(count):
            yield i, TYPES[i % len(TYPES)], i % 8 == 7

    def test_identity_snapshot(self):
        for i, dtype, function in self.cases(16):
            x = random_array(self.rng, random_shape(self.rng, i % 6), dtype)
            self.check(tf.identity, x, function=function, what="Identity %s %s" % (dtype.name, x.shape))
            self.check(lambda t: tf.raw_ops.Snapshot(input=t), x, function=function, what="Snapshot")

    def test_reshape_squeeze_expand_dims(self):
        for i, dtype, function in self.cases(16):
            shape = random_shape(self.rng, 1 + i % 5, 1, 3)
            x = random_array(self.rng, shape, dtype)
            target = list(reversed(shape))
            target[self.rng.integers(len(target))] = -1
            self.check(lambda t: tf.reshape(t, target), x, function=function, what="Reshape %s" % target)
            self.check(lambda t: tf.squeeze(t), x, function=function, what="Squeeze %s" % shape)
            axis = int(self.rng.integers(-len(shape) - 1, len(shape) + 1))
            self.check(lambda t: tf.expand_dims(t, axis), x, function=function, what="ExpandDims %d" % axis)

    def test_transpose(self):
        for i, dtype, function in self.cases(36):
            rank = 1 + i % 8
            x = random_array(self.rng, random_shape(self.rng, rank, 1, 4 if rank < 6 else 2), dtype)
            perm = [int(p) for p in self.rng.permutation(rank)]
            self.check(lambda t: tf.transpose(t, perm), x, function=function,
                       what="Transpose %s %s %s" % (dtype.name, x.shape, perm))

    def test_reverse(self):
        for i, dtype, function in self.cases(36):
            rank = 1 + i % 7
            x = random_array(self.rng, random_shape(self.rng, rank, 1, 4 if rank < 6 else 2), dtype)
            axes = [int(a) for a in self.rng.permutation(rank)[: self.rng.integers(0, rank + 1)]]
            axes = [a - rank if self.rng.integers(2) else a for a in axes]  # negative axes too
            self.check(lambda t: tf.reverse(t, axes), x, function=function,
                       what="ReverseV2 %s %s %s" % (dtype.name, x.shape, axes))

    def test_slice(self):
        for i, dtype, function in self.cases(36):
            rank = 1 + i % 6
            shape = random_shape(self.rng, rank, 1, 6)
            x = random_array(self.rng, shape, dtype)
            begin = [int(self.rng.integers(0, n)) for n in shape]
            size = [int(self.rng.integers(0, n - b + 1)) if self.rng.integers(4) else -1 for n, b in zip(shape, begin)]
            self.check(lambda t: tf.slice(t, begin, size), x, function=function,
                       what="Slice %s %s %s" % (x.shape, begin, size))

    def test_strided_slice(self):
        """Every mask: random begin/end/strides (negative, out of range,
        reversed), random masks of all five kinds; errors must match too."""
        for i, dtype, function in self.cases(120):
            rank = 1 + i % 5
            shape = random_shape(self.rng, rank, 1, 6)
            x = random_array(self.rng, shape, dtype)
            m = int(self.rng.integers(1, rank + 2))
            begin = [int(v) for v in self.rng.integers(-8, 8, size=m)]
            end = [int(v) for v in self.rng.integers(-8, 8, size=m)]
            strides = [int(v) for v in self.rng.choice([-3, -2, -1, 1, 1, 2, 3], size=m)]
            masks = {k: int(self.rng.integers(0, 1 << m)) if self.rng.integers(3) else 0
                     for k in ("begin_mask", "end_mask", "new_axis_mask", "shrink_axis_mask")}
            masks["ellipsis_mask"] = 1 << int(self.rng.integers(m)) if self.rng.integers(3) == 0 else 0
            if masks["shrink_axis_mask"]:  # valid shrink indices, stride 1, mostly
                for d in range(m):
                    if masks["shrink_axis_mask"] >> d & 1 and d < rank:
                        begin[d] = int(self.rng.integers(-shape[d], shape[d]))
                        strides[d] = 1
            self.check(lambda t: tf.raw_ops.StridedSlice(input=t, begin=begin, end=end, strides=strides, **masks),
                       x, function=function,
                       what="StridedSlice %s %s %s %s %s" % (x.shape, begin, end, strides, masks))

    def test_strided_slice_python_syntax(self):
        x = random_array(self.rng, [3, 4, 5, 2], tf.float32)
        for fn in (lambda t: t[..., ::-1], lambda t: t[1, :, tf.newaxis, ::2], lambda t: t[-1:0:-2, ..., 0],
                   lambda t: t[:, tf.newaxis, ..., tf.newaxis, 1], lambda t: t[::-1, ::-1, ::-1, ::-1]):
            self.check(fn, x, what="StridedSlice (python syntax)")
            self.check(fn, x, function=True, what="StridedSlice (python syntax)")

    def test_reverse_sequence(self):
        """seq_axis before and after batch_axis, negative batch axis, lengths 0..axis size."""
        for i, dtype, function in self.cases(36):
            rank = 2 + i % 4
            shape = random_shape(self.rng, rank, 1, 5)
            x = random_array(self.rng, shape, dtype)
            seq_axis, batch_axis = [int(a) for a in self.rng.permutation(rank)[:2]]
            lengths = self.rng.integers(0, shape[seq_axis] + 1, size=shape[batch_axis])
            lengths = lengths.astype(np.int64 if i % 2 else np.int32)
            self.check(lambda t, n: tf.reverse_sequence(t, n, seq_axis=seq_axis, batch_axis=batch_axis), x, lengths,
                       function=function, what="ReverseSequence %s seq %d batch %d" % (x.shape, seq_axis, batch_axis))

    def test_concat(self):
        for i, dtype, function in self.cases(36):
            rank = 1 + i % 6
            shape = random_shape(self.rng, rank, 1, 4)
            axis = int(self.rng.integers(-rank, rank))
            parts = []
            for _ in range(int(self.rng.integers(1, 5))):
                s = list(shape)
                s[axis] = int(self.rng.integers(0, 4))  # empty parts too
                parts.append(random_array(self.rng, s, dtype))
            self.check(lambda *t: tf.concat(list(t), axis), *parts, function=function,
                       what="ConcatV2 %s axis %d" % ([p.shape for p in parts], axis))

    def test_pad(self):
        for i, dtype, function in self.cases(48):
            rank = 1 + i % 5
            shape = random_shape(self.rng, rank, 1, 5)
            x = random_array(self.rng, shape, dtype)
            kind = ("CONSTANT", "CONSTANT_VALUE", "REFLECT", "SYMMETRIC")[i % 4]
            limit = [n - 1 if kind == "REFLECT" else n if kind == "SYMMETRIC" else 3 for n in shape]
            pads = [[int(self.rng.integers(0, m + 1)), int(self.rng.integers(0, m + 1))] for m in limit]
            if kind == "CONSTANT_VALUE":
                value = random_array(self.rng, [], dtype)
                self.check(lambda t, v: tf.pad(t, pads, constant_values=v), x, value, function=function,
                           what="PadV2 %s %s" % (x.shape, pads))
            else:
                self.check(lambda t: tf.pad(t, pads, mode=kind), x, function=function,
                           what="%s %s %s" % (kind, x.shape, pads))

    def test_tile(self):
        for i, dtype, function in self.cases(36):
            rank = 1 + i % 5
            x = random_array(self.rng, random_shape(self.rng, rank, 1, 3), dtype)
            multiples = [int(m) for m in self.rng.integers(0 if i % 9 == 0 else 1, 4, size=rank)]
            self.check(lambda t: tf.tile(t, multiples), x, function=function,
                       what="Tile %s %s" % (x.shape, multiples))

    def test_gather(self):
        for i, dtype, function in self.cases(36):
            rank = 1 + i % 4
            shape = random_shape(self.rng, rank, 1, 5)
            x = random_array(self.rng, shape, dtype)
            axis = int(self.rng.integers(-rank, rank))
            index_shape = random_shape(self.rng, int(self.rng.integers(0, 3)), 1, 4)
            indices = self.rng.integers(0, shape[axis], size=index_shape).astype(np.int64 if i % 2 else np.int32)
            self.check(lambda t, n: tf.gather(t, n, axis=axis), x, indices, function=function,
                       what="GatherV2 %s axis %d indices %s" % (x.shape, axis, indices.shape))

    def test_gather_batch_dims(self):
        """batch_dims != 0 (negative too), axis at or after the batch dimensions (negative too)."""
        for i, dtype, function in self.cases(26):
            rank = 2 + i % 4
            batch = int(self.rng.integers(1, rank))
            shape = random_shape(self.rng, rank, 1, 4)
            x = random_array(self.rng, shape, dtype)
            axis = int(self.rng.integers(batch, rank))
            index_shape = shape[:batch] + random_shape(self.rng, int(self.rng.integers(0, 3)), 0 if i % 7 == 0 else 1, 3)
            indices = self.rng.integers(0, shape[axis], size=index_shape).astype(np.int64 if i % 2 else np.int32)
            b = batch - len(index_shape) if i % 3 == 0 else batch
            a = axis - rank if i % 4 == 0 else axis
            self.check(lambda t, n: tf.gather(t, n, axis=a, batch_dims=b), x, indices, function=function,
                       what="GatherV2 %s axis %d batch_dims %d indices %s" % (x.shape, a, b, indices.shape))
        x = np.zeros([2, 3, 4], np.float32)
        for a, b, n in ((0, 1, np.zeros([2, 2], np.int32)), (2, 3, np.zeros([2, 3, 1], np.int32)),
                        (2, 1, np.zeros([3, 2], np.int32)), (2, -3, np.zeros([2, 1], np.int32)),
                        (2, 1, np.full([2, 1], 4, np.int32))):
            self.check(lambda t, i: tf.raw_ops.GatherV2(params=t, indices=i, axis=a, batch_dims=b), x, n,
                       what="GatherV2 axis %d batch_dims %d indices %s (an error)" % (a, b, n.shape))

    def test_broadcast_to(self):
        for i, dtype, function in self.cases(24):
            out_shape = random_shape(self.rng, 1 + i % 6, 1, 4)
            shape = [1 if self.rng.integers(3) == 0 else n for n in out_shape[int(self.rng.integers(0, 3)):]]
            x = random_array(self.rng, shape, dtype)
            self.check(lambda t: tf.broadcast_to(t, out_shape), x, function=function,
                       what="BroadcastTo %s -> %s" % (x.shape, out_shape))

    def test_fill(self):
        for i, dtype, function in self.cases(24):
            dims = random_shape(self.rng, i % 5, 0 if i % 7 == 0 else 1, 4)
            value = random_array(self.rng, [], dtype)
            self.check(lambda v: tf.fill(dims, v), value, function=function, what="Fill %s" % dims)

    def test_select(self):
        for i, dtype, function in self.cases(36):
            shape = random_shape(self.rng, 1 + i % 5, 1, 4)
            a, b = random_array(self.rng, shape, dtype), random_array(self.rng, shape, dtype)
            cond_shape = [1 if self.rng.integers(2) else n for n in shape][int(self.rng.integers(0, len(shape) + 1)):]
            cond = random_array(self.rng, cond_shape, tf.bool)
            b2 = random_array(self.rng, [1 if self.rng.integers(2) else n for n in shape], dtype)
            self.check(lambda c, x, y: tf.where(c, x, y), cond, a, b2, function=function,
                       what="SelectV2 %s %s %s" % (cond.shape, a.shape, b2.shape))
            first = random_array(self.rng, shape[:1], tf.bool)
            self.check(lambda c, x, y: tf.raw_ops.Select(condition=c, x=x, y=y), first, a, b, function=function,
                       what="Select %s %s" % (first.shape, a.shape))
            full = random_array(self.rng, shape, tf.bool)
            self.check(lambda c, x, y: tf.raw_ops.Select(condition=c, x=x, y=y), full, a, b, function=function,
                       what="Select %s" % (a.shape,))

    def test_split(self):
        for i, dtype, function in self.cases(36):
            rank = 1 + i % 5
            shape = random_shape(self.rng, rank, 1, 4)
            axis = int(self.rng.integers(-rank, rank))
            n = int(self.rng.integers(1, 4))
            shape[axis] *= n
            x = random_array(self.rng, shape, dtype)
            self.check(lambda t: tf.split(t, n, axis=axis), x, function=function,
                       what="Split %s into %d on %d" % (x.shape, n, axis))
            sizes = [int(v) for v in self.rng.integers(0, 3, size=int(self.rng.integers(1, 4)))]
            sizes[int(self.rng.integers(len(sizes)))] = -1
            known = sum(v for v in sizes if v >= 0)
            shape[axis] = known + int(self.rng.integers(0, 3))
            x = random_array(self.rng, shape, dtype)
            self.check(lambda t: tf.split(t, sizes, axis=axis), x, function=function,
                       what="SplitV %s %s on %d" % (x.shape, sizes, axis))

    def test_pack_unpack(self):
        for i, dtype, function in self.cases(36):
            if dtype == tf.int32:
                continue  # not registered: TensorFlow's shape arithmetic stays on its CPU kernel
            rank = i % 5
            shape = random_shape(self.rng, rank, 1, 4)
            parts = [random_array(self.rng, shape, dtype) for _ in range(int(self.rng.integers(1, 5)))]
            axis = int(self.rng.integers(-rank - 1, rank + 1))
            self.check(lambda *t: tf.stack(list(t), axis=axis), *parts, function=function,
                       what="Pack %d x %s axis %d" % (len(parts), shape, axis))
            x = random_array(self.rng, random_shape(self.rng, rank + 1, 1, 4), dtype)
            self.check(lambda t: tf.unstack(t, axis=axis), x, function=function,
                       what="Unpack %s axis %d" % (x.shape, axis))

    def test_depth_space(self):
        for i, dtype, function in self.cases(24):
            b = int(self.rng.integers(2, 4))
            n, h, w, c = (int(v) for v in self.rng.integers(1, 4, size=4))
            x = random_array(self.rng, [n, h, w, c * b * b], dtype)
            self.check(lambda t: tf.nn.depth_to_space(t, b), x, function=function,
                       what="DepthToSpace %s block %d" % (x.shape, b))
            y = random_array(self.rng, [n, h * b, w * b, c], dtype)
            self.check(lambda t: tf.nn.space_to_depth(t, b), y, function=function,
                       what="SpaceToDepth %s block %d" % (y.shape, b))

    def test_depth_space_nchw(self):
        """NCHW (TensorFlow's CPU kernels refuse it): against the CPU's NHWC
        result transposed; NCHW_VECT_C refused with a message."""
        to_nhwc, to_nchw = [0, 2, 3, 1], [0, 3, 1, 2]
        for i, dtype, function in self.cases(26):
            b = int(self.rng.integers(2, 4))
            n, h, w, c = (int(v) for v in self.rng.integers(1, 4, size=4))
            for op, x in ((tf.nn.depth_to_space, random_array(self.rng, [n, c * b * b, h, w], dtype)),
                          (tf.nn.space_to_depth, random_array(self.rng, [n, c, h * b, w * b], dtype))):
                label = "%s NCHW %s block %d (%s)" % (op.__name__, x.shape, b, "tf.function" if function else "eager")
                expected, error = self.run_on(CPU, lambda t: tf.transpose(op(tf.transpose(t, to_nhwc), b), to_nchw),
                                              [x], function)
                self.assertIsNone(error, label)
                got, error = self.run_on(DML, lambda t: op(t, b, data_format="NCHW"), [x], function)
                self.assertIsNone(error, label)
                self.assertTrue(got.device.endswith("device:DML:0"), "%s: ran on %s" % (label, got.device))
                self.assertEqual(got.shape, expected.shape, label)
                self.assertEqual(got.numpy().tobytes(), expected.numpy().tobytes(), label)
                COUNTS["compared"] += 1
        with tf.device(DML):
            with self.assertRaisesRegex(tf.errors.UnimplementedError, "NCHW_VECT_C"):
                tf.nn.depth_to_space(on_cpu(np.zeros([1, 4, 2, 2, 4], np.float32)), 2, data_format="NCHW_VECT_C")

    CAST_TYPES = [tf.float32, tf.float64, tf.float16, tf.int8, tf.int16, tf.int32, tf.int64,
                  tf.uint8, tf.uint16, tf.uint32, tf.uint64]

    def test_cast(self):
        """Every registered pair, on values every destination type holds
        (TensorFlow's out-of-range float-to-integer casts are undefined C++)."""
        for i, src in enumerate(self.CAST_TYPES):
            for j, dst in enumerate(self.CAST_TYPES):
                if src == dst:
                    continue  # tf.cast returns its input: no op runs
                shape = random_shape(self.rng, 1 + (i + j) % 4, 1, 5)
                if src.is_floating:
                    values = self.rng.uniform(0, 127, size=shape)
                    if dst.is_floating:  # any finite value, infinities and NaN too
                        values = random_array(self.rng, shape, src).astype(np.float64)
                        values[~np.isfinite(values)] = 1.5
                        if src != tf.float16:
                            values = np.clip(values, -6e4, 6e4)
                else:
                    values = random_array(self.rng, shape, src)
                x = np.asarray(values).astype(src.as_numpy_dtype)
                self.check(lambda t: tf.cast(t, dst), x, function=(i + j) % 8 == 7,
                           what="Cast %s -> %s" % (src.name, dst.name))

    def test_cast_double_to_half_rounds_twice(self):
        """TensorFlow makes a float16 of a float64 through float32: values
        whose float32 lands on a float16 tie round twice."""
        ties = [1 + 2.0 ** -11 + 2.0 ** -40, -(1 + 2.0 ** -11 + 2.0 ** -40), 3 + 2.0 ** -10 + 2.0 ** -35,
                2.0 ** -24 + 2.0 ** -50, 65520 - 2.0 ** -20, 1.5]
        for function in (False, True):
            self.check(lambda t: tf.cast(t, tf.float16), np.array(ties, np.float64), function=function,
                       what="Cast float64 -> float16 ties")

    def test_cast_truncate(self):
        """Truncate=True: float64 -> float32/float16 and float32 -> float16
        (where TensorFlow clears mantissa bits) refused with Unimplemented
        naming the attribute; every other pair is the plain cast."""
        refused = {(tf.float64, tf.float32), (tf.float64, tf.float16), (tf.float32, tf.float16)}
        pairs = [(s, d) for s in self.CAST_TYPES[:3] for d in self.CAST_TYPES if s != d]
        pairs += [(self.CAST_TYPES[i], self.CAST_TYPES[j]) for i, j in self.rng.integers(3, 11, size=(8, 2)) if i != j]
        for k, (src, dst) in enumerate(pairs):
            values = self.rng.uniform(0, 127, size=random_shape(self.rng, 1 + k % 3, 1, 5))
            x = values.astype(src.as_numpy_dtype)
            fn = lambda t: tf.raw_ops.Cast(x=t, DstT=dst, Truncate=True)  # noqa: E731
            if (src, dst) in refused:
                _, error = self.run_on(DML, fn, [x], k % 2 == 1)
                self.assertIsInstance(error, tf.errors.UnimplementedError, "%s -> %s" % (src.name, dst.name))
                self.assertIn("attribute Truncate", str(error))
            else:
                self.check(fn, x, function=k % 8 == 7, what="Cast %s -> %s Truncate" % (src.name, dst.name))

    def test_range(self):
        for i in range(24):
            dtype = (tf.float32, tf.float64, tf.int64, tf.int32)[i % 4]
            if dtype.is_integer:
                start, delta = int(self.rng.integers(-20, 20)), int(self.rng.choice([-3, -2, -1, 1, 2, 5]))
                limit = start + delta * int(self.rng.integers(0, 30)) + int(self.rng.integers(0, 2))
            else:
                start, delta = float(self.rng.uniform(-10, 10)), float(self.rng.choice([-1, 1]) * self.rng.uniform(0.1, 2))
                limit = start + delta * float(self.rng.uniform(0, 40))
            args = [np.array(v, dtype.as_numpy_dtype) for v in (start, limit, delta)]
            self.check(lambda a, b, c: tf.range(a, b, c), *args, function=i % 8 == 7,
                       what="Range %s %s %s %s" % (dtype.name, start, limit, delta))

    def test_one_hot(self):
        for i, dtype, function in self.cases(36):
            rank = i % 4
            shape = random_shape(self.rng, rank, 1, 4)
            depth = int(self.rng.integers(0 if i % 9 == 0 else 1, 6))
            index_type = (np.uint8, np.int8, np.int32, np.int64)[i % 4]
            low = 0 if index_type == np.uint8 else -2
            indices = self.rng.integers(low, depth + 2, size=shape).astype(index_type)  # out of range too
            if rank and i % 3 == 0:  # the type's extremes (the runtime reads them as unsigned)
                extremes = np.array([np.iinfo(index_type).min, np.iinfo(index_type).max], index_type)
                indices.flat[: 2] = extremes[: indices.size]
            on, off = random_array(self.rng, [], dtype), random_array(self.rng, [], dtype)
            axis = int(self.rng.integers(-1, rank + 1))
            self.check(lambda n, a, b: tf.one_hot(n, depth, on_value=a, off_value=b, axis=axis), indices, on, off,
                       function=function, what="OneHot %s depth %d axis %d" % (indices.shape, depth, axis))
        scalar, vector = np.float32(1), np.array([1, 2], np.float32)
        for on, off, depth in ((vector, scalar, 3), (scalar, vector, 3), (scalar, scalar, np.array([3], np.int32))):
            self.check(lambda n, a, b, d: tf.raw_ops.OneHot(indices=n, depth=d, on_value=a, off_value=b), np.array([0, 1]),
                       on, off, depth, what="OneHot on %s off %s depth %s" % (on.shape, off.shape, np.shape(depth)))

    def test_concurrent_ops(self):
        """Independent ops of one tf.function run on TensorFlow's inter-op
        threads at once, all on DML:0 (the plugin serialises the runtime's
        one-thread-at-a-time objects)."""
        x = random_array(self.rng, [16, 24, 8], tf.float32)
        branches = [lambda t, k=k: tf.transpose(tf.reverse(t[k % 3:, ::-1 - k % 2], [k % 3]), [2, 0, 1])
                    for k in range(16)]

        def all_branches(t):
            return tf.concat([tf.reshape(b(t), [-1]) for b in branches], 0)
        for _ in range(3):
            self.check(all_branches, x, function=True, what="16 concurrent branches")

    def test_keras_model(self):
        """Permute, Cropping2D, ZeroPadding2D, Reshape, RepeatVector,
        Embedding, Concatenate: TensorFlow-CPU's output bit for bit, and the
        placement log shows their ops (Transpose, StridedSlice, Pad, Reshape,
        ExpandDims, Tile, GatherV2, ConcatV2) on DML:0."""
        import keras
        image = keras.Input(shape=(6, 8, 3), name="image")
        tokens = keras.Input(shape=(5,), dtype="int64", name="tokens")
        x = keras.layers.Permute((2, 1, 3))(image)
        x = keras.layers.Cropping2D(((1, 0), (0, 2)))(x)
        x = keras.layers.ZeroPadding2D(((1, 2), (0, 1)))(x)
        x = keras.layers.Reshape((-1,))(x)
        v = keras.layers.Reshape((-1,))(keras.layers.Cropping2D(((2, 2), (3, 3)))(image))
        r = keras.layers.Reshape((-1,))(keras.layers.RepeatVector(3)(v))
        e = keras.layers.Reshape((-1,))(keras.layers.Embedding(11, 4)(tokens))
        model = keras.Model([image, tokens], keras.layers.Concatenate(axis=-1)([x, r, e]))
        images = self.rng.standard_normal((2, 6, 8, 3)).astype(np.float32)
        ids = self.rng.integers(0, 11, size=(2, 5)).astype(np.int64)

        def infer(device):
            # Soft placement for the model: Keras' index wrapping (Less,
            # AddV2) has no DML kernel and stays on the CPU.
            tf.config.set_soft_device_placement(True)
            try:
                with tf.device(device):
                    fn = tf.function(lambda a, b: model([a, b], training=False), autograph=False)
                    return fn(on_cpu(images), on_cpu(ids))
            finally:
                tf.config.set_soft_device_placement(False)

        expected = infer(CPU)
        start = os.path.getsize(LOG_PATH)
        got = infer(DML)
        sys.__stdout__.flush()
        with open(LOG_PATH, "rb") as f:
            f.seek(start)
            log = f.read().decode(errors="replace")
        self.assertTrue(got.device.endswith("device:DML:0"), got.device)
        self.assertEqual(got.numpy().tobytes(), expected.numpy().tobytes())
        on_dml = {op for _, op, device in re.findall(r"(\S+): \((\w+)\): (/job\S+)", log)
                  if device.endswith("device:DML:0")}
        for op in ("Transpose", "StridedSlice", "Pad", "Reshape", "ExpandDims", "Tile", "GatherV2", "ConcatV2"):
            self.assertIn(op, on_dml, "%s not placed on DML:0 (log %s)" % (op, LOG_PATH))

    def test_gather_nd(self):
        for i, dtype, function in self.cases(36):
            rank = 1 + i % 5
            shape = random_shape(self.rng, rank, 1, 4)
            x = random_array(self.rng, shape, dtype)
            k = int(self.rng.integers(1, rank + 1))
            lead = random_shape(self.rng, int(self.rng.integers(0, 3)), 1, 3)
            columns = [self.rng.integers(0, shape[c], size=lead) for c in range(k)]
            indices = np.stack(columns, axis=-1).astype(np.int64 if i % 2 else np.int32)
            self.check(lambda t, n: tf.gather_nd(t, n), x, indices, function=function,
                       what="GatherNd %s indices %s" % (x.shape, indices.shape))

    def test_tensor_scatter_update(self):
        """Distinct index tuples: of duplicates TensorFlow keeps the last and
        the runtime's GPU backends any one (docs/tensorflow.md)."""
        for i, dtype, function in self.cases(36):
            rank = 1 + i % 5
            shape = random_shape(self.rng, rank, 1, 4)
            x = random_array(self.rng, shape, dtype)
            k = int(self.rng.integers(1, rank + 1))
            tuples = np.stack(np.unravel_index(np.arange(int(np.prod(shape[:k]))), shape[:k]), axis=-1)
            chosen = self.rng.permutation(len(tuples))[: int(self.rng.integers(0, len(tuples) + 1))]
            indices = tuples[chosen].astype(np.int64 if i % 2 else np.int32)
            updates = random_array(self.rng, [len(chosen)] + shape[k:], dtype)
            self.check(lambda t, n, u: tf.tensor_scatter_nd_update(t, n, u), x, indices, updates, function=function,
                       what="TensorScatterUpdate %s indices %s" % (x.shape, indices.shape))

    def test_scatter_nd_not_registered(self):
        """ScatterNd adds duplicates, the runtime cannot: no DML kernel, so
        with soft placement off it is refused, never run differently."""
        with tf.device(DML):
            with self.assertRaisesRegex(tf.errors.InvalidArgumentError, "Could not satisfy device specification"):
                tf.scatter_nd(on_cpu(np.array([[0], [0]], np.int32)), on_cpu(np.array([1, 2], np.float32)), [2])

    def test_bad_input_is_invalid_argument(self):
        x = on_cpu(np.zeros([2, 3], np.float32))
        with tf.device(DML):
            with self.assertRaisesRegex(tf.errors.InvalidArgumentError, r"seq_lens\(1\) > input.dims\(1\)"):
                tf.reverse_sequence(x, np.array([1, 4], np.int64), seq_axis=1, batch_axis=0)
            with self.assertRaises(tf.errors.InvalidArgumentError):
                tf.slice(x, [1, 0], [2, 1])
            with self.assertRaises(tf.errors.InvalidArgumentError):
                tf.transpose(x, [0, 0])
            with self.assertRaisesRegex(tf.errors.InvalidArgumentError, r"indices\[1\] = 5 is not in \[0, 2\)"):
                tf.gather(x, np.array([0, 5], np.int64))
            # output shapes past 2^63 elements: refused before any allocation (raw_ops: tf.tile
            # narrows int64 multiples to int32 first)
            with self.assertRaisesRegex(tf.errors.InvalidArgumentError, "multiples\\[0\\] = 4611686018427387904 is more than 2\\^63"):
                tf.raw_ops.Tile(input=x, multiples=tf.constant([2**62, 1], tf.int64))
            with self.assertRaisesRegex(tf.errors.InvalidArgumentError, "output 0: shape of more than 2\\^63"):
                tf.raw_ops.Tile(input=x, multiples=tf.constant([2**40, 2**40], tf.int64))


if __name__ == "__main__":
    program = unittest.main(verbosity=1, exit=False, testRunner=unittest.TextTestRunner(stream=_report))
    print("test_tensorflow: cases %s" % ", ".join("%s %d" % kv for kv in COUNTS.items()))
    sys.exit(0 if program.result.wasSuccessful() else 1)

"""Random cases for the ONNX nodes that reach this runtime through the generic
export (dmlconf_run_node: conf_node.c maps and runs a serialized model), and
the one verdict that compares them with onnxruntime. Used by
ort_differential.py, which owns the loop, the sessions and the statistics.

Each generator returns a Case: a one-node model (dynamic shapes, cached by
`key` in the ORT session cache), its feeds in node-input order, the node's
output count, and a description to replay it. `known(case, outs, ort_outs)`
names a spec-sanctioned disagreement, or None.
"""
import ctypes

import numpy as np
from onnx import TensorProto, helper, numpy_helper

NP_OF = {
    TensorProto.FLOAT: np.float32, TensorProto.FLOAT16: np.float16, TensorProto.DOUBLE: np.float64,
    TensorProto.INT8: np.int8, TensorProto.INT16: np.int16, TensorProto.INT32: np.int32,
    TensorProto.INT64: np.int64, TensorProto.UINT8: np.uint8, TensorProto.UINT16: np.uint16,
    TensorProto.UINT32: np.uint32, TensorProto.UINT64: np.uint64, TensorProto.BOOL: np.bool_,
}
TYPES = list(NP_OF)
OPSET = 18
OTD = {0: "ran", 1: "empty", -1: "invalid", -2: "unrepresentable", -3: "dml-failed", -4: "parse-failed"}


class Case:
    def __init__(self, op, key, build, feeds, output_count, desc, attrs=None):
        self.op, self.key, self.build = op, key, build
        self.feeds = feeds            # [(name, array or None)], node-input order
        self.output_count = output_count
        self.desc = desc
        self.attrs = attrs or {}


def tname(t):
    return TensorProto.DataType.Name(t)


def dyn(name, elem, rank):
    return helper.make_tensor_value_info(name, elem, [f"{name}_d{i}" for i in range(rank)])


def one_node(op, inputs, outputs, attrs):
    """inputs: [(name, elem, rank)] (rank None: a scalar); outputs: [(name, elem, rank)]."""
    def build():
        node = helper.make_node(op, [n for n, _, _ in inputs], [n for n, _, _ in outputs], **attrs)
        ins = [helper.make_tensor_value_info(n, e, []) if r is None else dyn(n, e, r)
               for n, e, r in inputs if n]  # "" is an omitted optional input
        outs = [dyn(n, e, r) for n, e, r in outputs]
        g = helper.make_graph([node], op.lower(), ins, outs)
        return helper.make_model(g, opset_imports=[helper.make_opsetid("", OPSET)], ir_version=8)
    return build


def data(rng, shape, npdt, special=False):
    """Random bits (no NaN payloads: data movement keeps bits, ORT may not); with
    special, float values that make casts interesting (NaN, inf, ties, ranges)."""
    n = int(np.prod(shape)) if shape else 1
    if npdt is np.bool_:
        return (np.frombuffer(rng.randbytes(n), dtype=np.uint8) & 1).astype(np.bool_).reshape(shape)
    if special and np.issubdtype(npdt, np.floating):
        pool = [0.0, -0.0, 0.5, 1.5, 2.5, -2.5, 127.5, 128.0, 255.5, 256.0, -129.0, 32767.5, 65504.0,
                65520.0, 2.0**31, -2.0**31 - 1, 2.0**63, 1e20, -1e20, 1e-8, 6.0e-5, np.inf, -np.inf, np.nan]
        vals = [rng.choice(pool) if rng.random() < 0.5 else rng.uniform(-300, 300) for _ in range(n)]
        with np.errstate(over="ignore"):
            return np.array(vals, dtype=np.float64).astype(npdt).reshape(shape)
    size = np.dtype(npdt).itemsize
    a = np.frombuffer(rng.randbytes(n * size), dtype=npdt).copy().reshape(shape)
    if np.issubdtype(npdt, np.floating):
        a[np.isnan(a)] = 0
    return a


def shape_of(rng, rank, lo=1, hi=5):
    return [rng.randint(lo, hi) for _ in range(rank)]


# ---- generators ----------------------------------------------------------

def gen_concat(rng, i):
    elem = rng.choice(TYPES)
    rank = rng.randint(1, 4)
    n = rng.randint(1, 5)
    base = shape_of(rng, rank)
    axis = rng.randrange(-rank, rank)
    shapes = []
    for _ in range(n):
        s = list(base)
        s[axis % rank] = rng.choice([0, 1, 2, 3, 5]) if rng.random() < 0.2 else rng.randint(1, 4)
        if rng.random() < 0.03:  # invalid: another dimension differs
            j = rng.randrange(rank)
            if j != axis % rank:
                s[j] += 1
        shapes.append(s)
    feeds = [(f"x{k}", data(rng, s, NP_OF[elem])) for k, s in enumerate(shapes)]
    return Case("Concat", ("Concat", elem, rank, n, axis),
                one_node("Concat", [(f"x{k}", elem, rank) for k in range(n)], [("y", elem, rank)], {"axis": axis}),
                feeds, 1, f"Concat dtype={tname(elem)} shapes={shapes} axis={axis}")


def gen_split(rng, i):
    elem = rng.choice(TYPES)
    rank = rng.randint(1, 4)
    shape = shape_of(rng, rank, 1, 7)
    axis = rng.randrange(-rank, rank)
    size = shape[axis % rank]
    outs = rng.randint(1, 4)
    attrs = {"axis": axis}
    feeds = [("x", data(rng, shape, NP_OF[elem]))]
    if rng.random() < 0.5:  # explicit split, sometimes with zero parts or a wrong sum
        cuts = sorted(rng.randint(0, size) for _ in range(outs - 1))
        split = [b - a for a, b in zip([0] + cuts, cuts + [size])]
        if rng.random() < 0.05:
            split[-1] += 1
        feeds.append(("split", np.array(split, dtype=np.int64)))
        form = f"split={split}"
    else:
        attrs["num_outputs"] = outs
        form = f"num_outputs={outs}"
    ins = [("x", elem, rank)] + ([("split", TensorProto.INT64, 1)] if len(feeds) > 1 else [])
    return Case("Split", ("Split", elem, rank, axis, outs, len(feeds)),
                one_node("Split", ins, [(f"y{k}", elem, rank) for k in range(outs)], attrs),
                feeds, outs, f"Split dtype={tname(elem)} shape={shape} axis={axis} {form} outputs={outs}")


def gen_pad(rng, i):
    elem = rng.choice(TYPES)
    rank = rng.randint(1, 4)
    shape = shape_of(rng, rank)
    mode = rng.choice(["constant", "edge", "reflect"])
    use_axes = rng.random() < 0.3
    axes = sorted(rng.sample(range(rank), rng.randint(1, rank))) if use_axes else list(range(rank))
    if use_axes and rng.random() < 0.5:
        axes = [a - rank for a in axes]
    pads = []
    for _ in range(2):
        for a in axes:
            dim = shape[a % rank]
            hi = dim - 1 if mode == "reflect" else 4
            p = rng.randint(0, max(0, hi))
            if rng.random() < 0.04:
                p = -1  # a crop: ONNX allows it, DirectML's PADDING does not (unrepresentable)
            pads.append(p)
    x = data(rng, shape, NP_OF[elem])
    feeds = [("x", x), ("pads", np.array(pads, dtype=np.int64))]
    ins = [("x", elem, rank), ("pads", TensorProto.INT64, 1)]
    if mode == "constant" and rng.random() < 0.6:
        feeds.append(("value", data(rng, [], NP_OF[elem])))
        ins.append(("value", elem, None))
    if use_axes:
        if len(feeds) == 2:
            feeds.append(("value", None))
            ins.append(("", elem, None))
        feeds.append(("axes", np.array(axes, dtype=np.int64)))
        ins.append(("axes", TensorProto.INT64, 1))
    key = ("Pad", elem, rank, mode, tuple(n for n, _, _ in ins))
    return Case("Pad", key, one_node("Pad", ins, [("y", elem, rank)], {"mode": mode}), feeds, 1,
                f"Pad dtype={tname(elem)} shape={shape} mode={mode} pads={pads} axes={axes if use_axes else None}")


def gen_tile(rng, i):
    elem = rng.choice(TYPES)
    rank = rng.randint(1, 5)
    shape = shape_of(rng, rank, 1, 4)
    repeats = [rng.choice([0, 1, 1, 2, 3]) if rng.random() < 0.1 else rng.randint(1, 3) for _ in range(rank)]
    feeds = [("x", data(rng, shape, NP_OF[elem])), ("repeats", np.array(repeats, dtype=np.int64))]
    return Case("Tile", ("Tile", elem, rank),
                one_node("Tile", [("x", elem, rank), ("repeats", TensorProto.INT64, 1)], [("y", elem, rank)], {}),
                feeds, 1, f"Tile dtype={tname(elem)} shape={shape} repeats={repeats}")


def gen_depth_space(rng, i):
    elem = rng.choice(TYPES)
    to_space = rng.random() < 0.5
    b = rng.randint(1, 3)
    n, c, h, w = rng.randint(1, 2), rng.randint(1, 3), rng.randint(1, 3), rng.randint(1, 3)
    if to_space:
        shape = [n, c * b * b, h, w]
        attrs = {"blocksize": b, "mode": rng.choice(["DCR", "CRD"])}
    else:
        shape = [n, c, h * b, w * b]
        attrs = {"blocksize": b}
    if rng.random() < 0.05:
        shape[rng.randint(1, 3)] += 1  # usually invalid
    op = "DepthToSpace" if to_space else "SpaceToDepth"
    return Case(op, (op, elem, tuple(sorted(attrs.items()))),
                one_node(op, [("x", elem, 4)], [("y", elem, 4)], attrs),
                [("x", data(rng, shape, NP_OF[elem]))], 1, f"{op} dtype={tname(elem)} shape={shape} {attrs}")


def gen_cast(rng, i):
    src, dst = rng.choice(TYPES), rng.choice(TYPES)
    rank = rng.randint(0, 3)
    shape = shape_of(rng, rank, 1, 6)
    x = data(rng, shape, NP_OF[src], special=True)
    if rng.random() < 0.5:
        return Case("Cast", ("Cast", src, dst, rank),
                    one_node("Cast", [("x", src, rank)], [("y", dst, rank)], {"to": dst}),
                    [("x", x)], 1, f"Cast {tname(src)}->{tname(dst)} shape={shape}")
    like = data(rng, [1], NP_OF[dst])
    return Case("CastLike", ("CastLike", src, dst, rank),
                one_node("CastLike", [("x", src, rank), ("like", dst, 1)], [("y", dst, rank)], {}),
                [("x", x), ("like", like)], 1, f"CastLike {tname(src)}->{tname(dst)} shape={shape}")


def gen_constant_of_shape(rng, i):
    elem = rng.choice([t for t in TYPES if t != TensorProto.BOOL] + [TensorProto.BOOL])
    rank = rng.randint(0, 4)
    shape = [rng.choice([0, 1, 2, 3]) if rng.random() < 0.1 else rng.randint(1, 4) for _ in range(rank)]
    value = data(rng, [1], NP_OF[elem])
    attrs = {"value": numpy_helper.from_array(value, "value")}
    return Case("ConstantOfShape", ("ConstantOfShape", elem, rank, value.tobytes()),
                one_node("ConstantOfShape", [("shape", TensorProto.INT64, 1)], [("y", elem, rank)], attrs),
                [("shape", np.array(shape, dtype=np.int64))], 1,
                f"ConstantOfShape shape={shape} value={value.tolist()} ({tname(elem)})")


def gen_range(rng, i):
    elem = rng.choice([TensorProto.FLOAT, TensorProto.DOUBLE, TensorProto.INT16, TensorProto.INT32,
                       TensorProto.INT64])
    npdt = NP_OF[elem]
    if np.issubdtype(npdt, np.floating) and rng.random() < 0.7:
        start, delta = rng.randint(-20, 20) * 0.25, rng.choice([-1, 1]) * rng.randint(1, 12) * 0.125
    elif np.issubdtype(npdt, np.floating):
        start, delta = rng.uniform(-10, 10), rng.choice([-1, 1]) * rng.uniform(0.01, 3)
    else:
        start, delta = rng.randint(-50, 50), rng.choice([-1, 1]) * rng.randint(0, 9)
    limit = start + delta * rng.randint(-2, 40) + (rng.uniform(-0.4, 0.4) * delta if np.issubdtype(
        npdt, np.floating) else rng.randint(-1, 1))
    s, l, d = (np.array(v, dtype=npdt) for v in (start, limit, delta))
    return Case("Range", ("Range", elem),
                one_node("Range", [("s", elem, None), ("l", elem, None), ("d", elem, None)], [("y", elem, 1)], {}),
                [("s", s), ("l", l), ("d", d)], 1, f"Range {tname(elem)} start={s} limit={l} delta={d}")


def gen_expand(rng, i):
    elem = rng.choice(TYPES)
    rank = rng.randint(1, 4)
    out = shape_of(rng, rank, 1, 4)
    shape_in = [1 if rng.random() < 0.5 else d for d in out][rng.randint(0, rank - 1):]
    target = [1 if rng.random() < 0.2 else d for d in out]
    if rng.random() < 0.05:
        target[rng.randrange(rank)] = 0
    feeds = [("x", data(rng, shape_in, NP_OF[elem])), ("shape", np.array(target, dtype=np.int64))]
    return Case("Expand", ("Expand", elem, len(shape_in), rank),
                one_node("Expand", [("x", elem, len(shape_in)), ("shape", TensorProto.INT64, 1)],
                         [("y", elem, rank)], {}),
                feeds, 1, f"Expand dtype={tname(elem)} input={shape_in} shape={target}")


GENERATORS = [gen_concat, gen_split, gen_pad, gen_tile, gen_depth_space, gen_cast, gen_constant_of_shape,
              gen_range, gen_expand]


# ---- running through this runtime ------------------------------------------

def run_dml(lib, dev, case, model_bytes):
    """(code, message, [arrays], undefined mask of output 0 or None)."""
    n = len(case.feeds)
    blobs = [numpy_helper.from_array(a, name).SerializeToString() if a is not None else None
             for name, a in case.feeds]
    ptrs = (ctypes.c_char_p * n)(*blobs)
    lens = (ctypes.c_size_t * n)(*[len(b) if b is not None else 0 for b in blobs])
    result = ctypes.c_void_p()
    msg = ctypes.create_string_buffer(1024)
    code = lib.dmlconf_run_node(dev, model_bytes, len(model_bytes), n, ptrs, lens, case.output_count,
                                ctypes.byref(result), msg, 1024)
    outs, undefined = [], None
    try:
        for k in range(case.output_count if code in (0, 1) else 0):
            t, rank, nbytes = ctypes.c_int32(), ctypes.c_uint32(), ctypes.c_uint64()
            dims = np.zeros(16, dtype=np.int64)
            ptr, und = ctypes.c_void_p(), ctypes.POINTER(ctypes.c_uint8)()
            if lib.dmlconf_result_output(result, k, ctypes.byref(t), ctypes.byref(rank),
                                         dims.ctypes.data_as(ctypes.POINTER(ctypes.c_int64)), ctypes.byref(ptr),
                                         ctypes.byref(nbytes), ctypes.byref(und)):
                break
            shape = [int(d) for d in dims[:rank.value]]
            raw = ctypes.string_at(ptr, nbytes.value) if ptr.value else b""
            outs.append(np.frombuffer(raw, dtype=NP_OF[t.value]).reshape(shape) if code == 0 else
                        np.zeros(shape, dtype=NP_OF[t.value]))
            if k == 0 and und:
                undefined = np.ctypeslib.as_array(und, shape=(max(1, int(np.prod(shape))),)).copy()
    finally:
        lib.dmlconf_result_free(result)
    return code, msg.value.decode(), outs, undefined


def known(case, outs, ort_outs, undefined):
    """A spec-sanctioned difference between equally shaped outputs, or None."""
    if case.op in ("Cast", "CastLike") and undefined is not None:
        differ = outs[0].reshape(-1).view(np.uint8).reshape(outs[0].size, -1) != \
            ort_outs[0].reshape(-1).view(np.uint8).reshape(ort_outs[0].size, -1)
        rows = differ.any(axis=1)
        if rows.any() and (undefined[rows] != 0).all():
            return "Cast: NaN/inf/out-of-range float into an integer (undefined in ONNX, NaN->0 and saturation here)"
    if case.op == "Range":
        s, _, d = (a for _, a in case.feeds)
        if np.issubdtype(s.dtype, np.floating):
            i = np.arange(outs[0].size, dtype=s.dtype)
            closed = (s + i * d).astype(s.dtype)  # DirectML's start + i * delta, each step rounded in the type
            if closed.tobytes() == outs[0].tobytes():
                return "Range: onnxruntime accumulates (value += delta); DirectML's closed form start + i*delta"
    return None


def known_rejection(case, ort_outs):
    """A node ONNX calls invalid that onnxruntime runs anyway, or None."""
    if case.op == "Concat":
        shapes = [list(a.shape) for _, a in case.feeds]
        axis = case.key[4] % len(shapes[0])
        ref = next((s for s in shapes if s[axis]), shapes[0])
        mismatched = [s for s in shapes
                      if [d for i, d in enumerate(s) if i != axis] != [d for i, d in enumerate(ref) if i != axis]]
        if mismatched and all(s[axis] == 0 for s in mismatched):
            return ("Concat: onnxruntime skips an input empty on the axis without checking its other "
                    "dimensions (ONNX: all inputs share them; refused here)")
    return None

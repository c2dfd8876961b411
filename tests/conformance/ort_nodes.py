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
OTD = {0: "ran", 1: "empty", -1: "invalid", -2: "unrepresentable", -3: "dml-failed", -4: "parse-failed",
       -5: "not-executed"}


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


# ---- data-dependent operators: indices, and this runtime's rules for them ----
# ONNX calls an out-of-range index an error (OneHot excepted: all "off");
# this runtime defines it (docs/onnx.md): a negative value counts from the end
# once, gathers clamp what is still out of range, scatters drop the update.
# Each generator attaches `ref`, numpy's rendering of those rules, checked
# whenever onnxruntime refuses or disagrees on such a case.

I64_MIN, I64_MAX = -(2**63), 2**63 - 1


def index_value(rng, n, oob, signed_min=I64_MIN, signed_max=I64_MAX):
    """An index into a dimension of n: in range (half of them negative), or,
    with oob, anywhere including the type's extremes."""
    if oob and rng.random() < 0.3:
        return rng.choice([n, n + 3, -n - 1, -n - 7, signed_min, signed_max])
    i = rng.randrange(n)
    return i - n if rng.random() < 0.4 else i


def indices(rng, shape, n, npdt, oob):
    lo, hi = (I64_MIN, I64_MAX) if npdt is np.int64 else (-(2**31), 2**31 - 1)
    vals = [index_value(rng, n, oob, lo, hi) for _ in range(int(np.prod(shape)) if shape else 1)]
    return np.array(vals, dtype=npdt).reshape(shape)


def resolve(i, n):
    i = int(i)
    return i + n if i < 0 else i


def clamp(i, n):
    return min(max(resolve(i, n), 0), n - 1)


def out_of_range(a, n):
    return any(not 0 <= resolve(v, n) < n for v in np.asarray(a).reshape(-1))


def index_type(rng):
    return rng.choice([(TensorProto.INT64, np.int64), (TensorProto.INT32, np.int32)])


def gen_gather(rng, i):
    elem = rng.choice(TYPES)
    r = rng.randint(1, 4)
    q = rng.randint(0, 3)
    shape, ishape = shape_of(rng, r), shape_of(rng, q)
    axis = rng.randrange(-r, r)
    n = shape[axis % r]
    it, inp = index_type(rng)
    idx = indices(rng, ishape, n, inp, rng.random() < 0.15)
    x = data(rng, shape, NP_OF[elem])

    def ref():
        return np.take(x, np.vectorize(lambda v: clamp(v, n), otypes=[np.int64])(idx) if idx.size else idx, axis=axis)
    case = Case("Gather", ("Gather", elem, r, q, axis, it),
                one_node("Gather", [("x", elem, r), ("i", it, q)], [("y", elem, r + q - 1)], {"axis": axis}),
                [("x", x), ("i", idx)], 1, f"Gather dtype={tname(elem)} shape={shape} axis={axis} "
                f"indices={idx.tolist()} ({tname(it)})")
    case.ref, case.oob = ref, out_of_range(idx, n)
    return case


def gen_gather_elements(rng, i):
    elem = rng.choice(TYPES)
    r = rng.randint(1, 4)
    shape = shape_of(rng, r)
    axis = rng.randrange(-r, r)
    a = axis % r
    ishape = [rng.randint(1, 4) if k == a else (rng.randint(1, d) if rng.random() < 0.3 else d)
              for k, d in enumerate(shape)]
    n = shape[a]
    it, inp = index_type(rng)
    idx = indices(rng, ishape, n, inp, rng.random() < 0.15)
    x = data(rng, shape, NP_OF[elem])

    def ref():
        view = x[tuple(slice(None) if k == a else slice(0, d) for k, d in enumerate(ishape))]
        return np.take_along_axis(view, np.vectorize(lambda v: clamp(v, n), otypes=[np.int64])(idx), axis=a)
    case = Case("GatherElements", ("GatherElements", elem, r, axis, it),
                one_node("GatherElements", [("x", elem, r), ("i", it, r)], [("y", elem, r)], {"axis": axis}),
                [("x", x), ("i", idx)], 1, f"GatherElements dtype={tname(elem)} shape={shape} axis={axis} "
                f"indices={idx.tolist()} ({tname(it)})")
    case.ref, case.oob = ref, out_of_range(idx, n)
    return case


def gen_gather_nd(rng, i):
    elem = rng.choice(TYPES)
    r = rng.randint(1, 4)
    b = rng.randint(0, r - 1) if rng.random() < 0.4 else 0
    shape = shape_of(rng, r)
    k = rng.randint(1, r - b)
    q = b + 1 + rng.randint(0, 2)
    ishape = shape[:b] + shape_of(rng, q - b - 1) + [k]
    oob = rng.random() < 0.15
    vals = np.zeros(ishape, dtype=np.int64)
    for t in np.ndindex(*ishape[:-1]):
        for j in range(k):
            vals[t + (j,)] = index_value(rng, shape[b + j], oob)
    x = data(rng, shape, NP_OF[elem])

    def ref():
        out = np.empty(ishape[:-1] + shape[b + k:], dtype=x.dtype)
        for t in np.ndindex(*ishape[:-1]):
            coord = t[:b] + tuple(clamp(vals[t + (j,)], shape[b + j]) for j in range(k))
            out[t] = x[coord]
        return out
    case = Case("GatherND", ("GatherND", elem, r, q, b),
                one_node("GatherND", [("x", elem, r), ("i", TensorProto.INT64, q)],
                         [("y", elem, q - 1 + r - b - k)], {"batch_dims": b}),
                [("x", x), ("i", vals)], 1, f"GatherND dtype={tname(elem)} shape={shape} batch_dims={b} "
                f"indices={vals.tolist()}")
    case.ref = ref
    case.oob = any(not 0 <= resolve(vals[t + (j,)], shape[b + j]) < shape[b + j]
                   for t in np.ndindex(*ishape[:-1]) for j in range(k))
    return case


def gen_scatter_elements(rng, i):
    elem = rng.choice(TYPES)
    r = rng.randint(1, 4)
    shape = shape_of(rng, r)
    axis = rng.randrange(-r, r)
    a = axis % r
    n = shape[a]
    ishape = [rng.randint(1, n) if k == a else (rng.randint(1, d) if rng.random() < 0.3 else d)
              for k, d in enumerate(shape)]
    it, inp = index_type(rng)
    oob = rng.random() < 0.15
    if rng.random() < 0.7:  # distinct targets along the axis, as ONNX expects for reduction none
        idx = np.zeros(ishape, dtype=inp)
        for t in np.ndindex(*[d for k, d in enumerate(ishape) if k != a]):
            picks = rng.sample(range(n), ishape[a])
            for j, p in enumerate(picks):
                pos = list(t)
                pos.insert(a, j)
                idx[tuple(pos)] = p - n if rng.random() < 0.4 else p
        if oob:
            idx.reshape(-1)[rng.randrange(idx.size)] = rng.choice([n, -n - 1, n + 5])
    else:
        idx = indices(rng, ishape, n, inp, oob)
    x, upd = data(rng, shape, NP_OF[elem]), data(rng, ishape, NP_OF[elem])

    def ref():
        out = x.copy()
        for u in np.ndindex(*ishape):
            j = resolve(idx[u], n)
            if 0 <= j < n:
                pos = list(u)
                pos[a] = j
                out[tuple(pos)] = upd[u]
        return out
    case = Case("ScatterElements", ("ScatterElements", elem, r, axis, it),
                one_node("ScatterElements", [("x", elem, r), ("i", it, r), ("u", elem, r)], [("y", elem, r)],
                         {"axis": axis}),
                [("x", x), ("i", idx), ("u", upd)], 1, f"ScatterElements dtype={tname(elem)} shape={shape} "
                f"axis={axis} indices={idx.tolist()} ({tname(it)})")
    case.ref, case.oob = ref, out_of_range(idx, n)
    targets = [tuple(resolve(idx[u], n) if k == a else c for k, c in enumerate(u)) for u in np.ndindex(*ishape)]
    case.dups = len(set(targets)) != len(targets)
    case.candidates = lambda: scatter_candidates(x, ((t, upd[u]) for t, u in zip(targets, np.ndindex(*ishape))
                                                     if 0 <= t[a] < n))
    return case


def gen_scatter_nd(rng, i):
    elem = rng.choice(TYPES)
    r = rng.randint(1, 4)
    shape = shape_of(rng, r)
    k = rng.randint(1, r)
    lead = shape_of(rng, rng.randint(0, 2))
    count = int(np.prod(lead)) if lead else 1
    oob = rng.random() < 0.15
    space = list(np.ndindex(*shape[:k]))
    unique = rng.random() < 0.8 and count <= len(space)
    tuples = rng.sample(space, count) if unique else [rng.choice(space) for _ in range(count)]
    vals = np.array([[t[j] - shape[j] if rng.random() < 0.4 else t[j] for j in range(k)] for t in tuples],
                    dtype=np.int64).reshape(lead + [k])
    if oob:
        vals.reshape(-1)[rng.randrange(vals.size)] = rng.choice([I64_MIN, I64_MAX, 7, -9])
    x, upd = data(rng, shape, NP_OF[elem]), data(rng, lead + shape[k:], NP_OF[elem])

    def ref():
        out = x.copy()
        for t in np.ndindex(*lead):
            coord = tuple(resolve(vals[t + (j,)], shape[j]) for j in range(k))
            if all(0 <= c < shape[j] for j, c in enumerate(coord)):
                out[coord] = upd[t]
        return out
    case = Case("ScatterND", ("ScatterND", elem, r, len(lead) + 1, len(lead) + r - k),
                one_node("ScatterND", [("x", elem, r), ("i", TensorProto.INT64, len(lead) + 1),
                                       ("u", elem, len(lead) + r - k)], [("y", elem, r)], {}),
                [("x", x), ("i", vals), ("u", upd)], 1, f"ScatterND dtype={tname(elem)} shape={shape} "
                f"indices={vals.tolist()}")
    case.ref = ref
    resolved = [tuple(resolve(vals[t + (j,)], shape[j]) for j in range(k)) for t in np.ndindex(*lead)]
    case.oob = any(not all(0 <= c < shape[j] for j, c in enumerate(t)) for t in resolved)
    case.dups = len(set(resolved)) != len(resolved)
    case.candidates = lambda: scatter_candidates(
        x, ((coord + s, upd[t + s]) for t, coord in zip(np.ndindex(*lead), resolved)
            if all(0 <= c < shape[j] for j, c in enumerate(coord)) for s in np.ndindex(*shape[k:])))
    return case


# onnxruntime's CPU OneHot kernels: (indices, values/output, depth) types.
ONE_HOT_TYPES = [(TensorProto.INT64, TensorProto.INT64, TensorProto.INT64),
                 (TensorProto.FLOAT, TensorProto.INT64, TensorProto.INT64),
                 (TensorProto.INT64, TensorProto.FLOAT, TensorProto.INT64),
                 (TensorProto.INT32, TensorProto.FLOAT, TensorProto.INT32),
                 (TensorProto.INT32, TensorProto.FLOAT, TensorProto.FLOAT),
                 (TensorProto.FLOAT, TensorProto.FLOAT, TensorProto.FLOAT),
                 (TensorProto.INT64, TensorProto.INT32, TensorProto.FLOAT),
                 (TensorProto.INT64, TensorProto.FLOAT, TensorProto.FLOAT)]


def gen_one_hot(rng, i):
    if rng.random() < 0.9:
        it, vt, dt = rng.choice(ONE_HOT_TYPES)
    else:
        it, vt, dt = (rng.choice([t for t in TYPES if t != TensorProto.BOOL]), rng.choice(TYPES),
                      rng.choice([TensorProto.INT64, TensorProto.FLOAT, TensorProto.INT32]))
    q = rng.randint(1, 3) if rng.random() < 0.95 else 0  # rank 0: invalid (ONNX's shape inference)
    ishape = shape_of(rng, q)
    depth = rng.randint(1, 6)
    axis = rng.randint(-q - 1, q)
    vals = [index_value(rng, depth, rng.random() < 0.2, -128, 127) for _ in range(int(np.prod(ishape)) if q else 1)]
    idx = np.array(vals, dtype=np.float64).astype(NP_OF[it]).reshape(ishape)
    if np.issubdtype(idx.dtype, np.floating) and rng.random() < 0.3:
        idx = (idx + np.array(rng.uniform(-0.9, 0.9), dtype=idx.dtype)).astype(idx.dtype)  # truncated toward 0
    values = data(rng, [2], NP_OF[vt])
    depth_t = np.array(depth, dtype=NP_OF[dt]) if rng.random() < 0.5 else np.array([depth], dtype=NP_OF[dt])

    def ref():
        a = axis % (q + 1)
        out = np.empty(ishape[:a] + [depth] + ishape[a:], dtype=values.dtype)
        for t in np.ndindex(*ishape):
            j = resolve(int(idx[t]), depth)  # int(): truncation toward 0
            for c in range(depth):
                out[t[:a] + (c,) + t[a:]] = values[1] if c == j else values[0]
        return out
    case = Case("OneHot", ("OneHot", it, vt, dt, q, axis, depth_t.ndim),
                one_node("OneHot", [("i", it, q), ("d", dt, depth_t.ndim), ("v", vt, 1)], [("y", vt, q + 1)],
                         {"axis": axis}),
                [("i", idx), ("d", depth_t), ("v", values)], 1, f"OneHot indices={idx.tolist()} ({tname(it)}) "
                f"depth={depth} ({tname(dt)}) values={values.tolist()} ({tname(vt)}) axis={axis}")
    case.ref, case.oob = ref, False  # ONNX defines out-of-range OneHot indices: all "off", as here
    return case


def gen_where(rng, i):
    elem = rng.choice(TYPES)
    rank = rng.randint(0, 4)
    out = shape_of(rng, rank)
    shapes = []
    for _ in range(3):
        s = [1 if rng.random() < 0.3 else d for d in out][rng.randint(0, rank):] if rank else []
        shapes.append(s)
    if rank and rng.random() < 0.03:
        shapes[1] = shapes[1] + [7]  # usually does not broadcast
    c = data(rng, shapes[0], np.bool_)
    x, y = data(rng, shapes[1], NP_OF[elem]), data(rng, shapes[2], NP_OF[elem])
    case = Case("Where", ("Where", elem, tuple(len(s) for s in shapes)),
                one_node("Where", [("c", TensorProto.BOOL, len(shapes[0])), ("x", elem, len(shapes[1])),
                                   ("y", elem, len(shapes[2]))], [("o", elem, max(len(s) for s in shapes))], {}),
                [("c", c), ("x", x), ("y", y)], 1, f"Where dtype={tname(elem)} shapes={shapes}")
    case.ref, case.oob = (lambda: np.where(c, x, y)), False
    return case


INDEXED_GENERATORS = [gen_gather, gen_gather_elements, gen_gather_nd, gen_scatter_elements, gen_scatter_nd,
                      gen_one_hot, gen_where]


def scatter_candidates(x, writes):
    """Per element of a scatter's output, the values it may hold: the
    input's when no update reaches it, else any of the updates that do."""
    allowed = {}
    for pos, value in writes:
        allowed.setdefault(tuple(int(c) for c in pos), set()).add(np.asarray(value).tobytes())
    return x, allowed


def matches_candidates(case, out):
    """Whether every element of a scatter's output is one of its candidates
    (a backend that keeps any one of several updates to an element)."""
    x, allowed = case.candidates()
    if list(x.shape) != list(out.shape):
        return False
    for pos in np.ndindex(*x.shape):
        got = np.asarray(out[pos]).tobytes()
        if got not in allowed.get(pos, {np.asarray(x[pos]).tobytes()}):
            return False
    return True


def matches_ref(case, outs, any_duplicate=False):
    """Whether this runtime's output follows its rule: exactly the reference
    (the last of several updates to an element: the cpu backend), or, with
    any_duplicate, any of them (other backends: docs/operators.md)."""
    if not getattr(case, "ref", None) or not outs:
        return False
    want = np.asarray(case.ref())
    if list(want.shape) == list(outs[0].shape) and want.tobytes() == outs[0].tobytes():
        return True
    return any_duplicate and getattr(case, "dups", False) and hasattr(case, "candidates") and \
        matches_candidates(case, outs[0])


def known_error(case, outs, any_duplicate=False):
    """onnxruntime refused a case whose indices ONNX calls out of range, and
    this runtime's output follows its own rule (docs/onnx.md), or None."""
    if getattr(case, "oob", False) and matches_ref(case, outs, any_duplicate):
        rule = "dropped" if case.op.startswith("Scatter") else "clamped"
        return f"{case.op}: out-of-range index (ONNX: an error, onnxruntime refuses; here {rule})"
    return None


GENERATORS = [gen_concat, gen_split, gen_pad, gen_tile, gen_depth_space, gen_cast, gen_constant_of_shape,
              gen_range, gen_expand] + INDEXED_GENERATORS


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


def known(case, outs, ort_outs, undefined, any_duplicate=False):
    """A spec-sanctioned difference between equally shaped outputs, or None."""
    if case.op in ("Cast", "CastLike") and undefined is not None:
        differ = outs[0].reshape(-1).view(np.uint8).reshape(outs[0].size, -1) != \
            ort_outs[0].reshape(-1).view(np.uint8).reshape(ort_outs[0].size, -1)
        rows = differ.any(axis=1)
        if rows.any() and (undefined[rows] != 0).all():
            return "Cast: NaN/inf/out-of-range float into an integer (undefined in ONNX, NaN->0 and saturation here)"
    if getattr(case, "ref", None) and (getattr(case, "oob", False) or getattr(case, "dups", False)) \
            and matches_ref(case, outs, any_duplicate):
        if getattr(case, "oob", False):
            return f"{case.op}: out-of-range index (undefined in ONNX; this runtime's rule, docs/onnx.md)"
        if any_duplicate:
            return f"{case.op}: several updates to one element (ONNX: any; this backend: one of them)"
        return f"{case.op}: several updates to one element (ONNX: any; here the last in row-major order)"
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

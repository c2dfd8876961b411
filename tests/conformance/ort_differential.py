#!/usr/bin/env python3
"""Differential run: random ONNX nodes, executed by onnxruntime (CPU EP) and by
this runtime through the C mapping (tests/conformance/onnx_to_dml.c, via
libdml_conformance.so + ctypes, so there is one implementation of the mapping)
on the "cpu" and "cudaemu" backends. Outputs (shape and bytes) must match
exactly. ReverseSequence and Slice go through their own exports (with their
known disagreements below); Concat, Split, Pad, Tile, DepthToSpace,
SpaceToDepth, Cast, CastLike, ConstantOfShape, Range, Expand, Gather,
GatherElements, GatherND, ScatterElements, ScatterND, OneHot and Where
through the generic one (dmlconf_run_node: the serialized model and inputs,
run by conf_node.c, the same code as the ONNX backend-data suite). An
operator whose plan kind a backend does not execute yet (DML_E_NOTIMPL) is
counted as skipped, never passed. Out-of-range indices (an error in ONNX,
which onnxruntime raises; defined here: clamped by gathers, dropped by
scatters) and several ScatterElements/ScatterND updates to one element pass
as "known" only when this runtime's output equals ort_nodes' numpy rendering
of its own rule (on cpu the last update wins; on other backends any one of
them may: every element must then be one of its candidates).

Every disagreement is printed on a "DISAGREE" line with the case, both results and
a verdict. Known, spec-sanctioned disagreements (ORT rejects, DML clamps an
out-of-range sequence length: operators.md "A length above the axis size acts as
the axis size"; the mapping reads INT64 lengths as UINT64) are counted as
"known" and do not fail the run; any other disagreement does.

Usage: ort_differential.py --lib build/tests/libdml_conformance.so
       [--seed N] [--cases N] [--seconds S]
"""
import argparse
import ctypes
import random
import sys
import time

import numpy as np
import onnx
import ort_nodes
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1

DTYPES = [
    (TensorProto.FLOAT, np.float32), (TensorProto.FLOAT16, np.float16),
    (TensorProto.DOUBLE, np.float64), (TensorProto.INT8, np.int8),
    (TensorProto.INT16, np.int16), (TensorProto.INT32, np.int32),
    (TensorProto.INT64, np.int64), (TensorProto.UINT8, np.uint8),
    (TensorProto.UINT16, np.uint16), (TensorProto.UINT32, np.uint32),
    (TensorProto.UINT64, np.uint64), (TensorProto.BOOL, np.bool_),
]
BACKENDS = ["cpu", "cudaemu"]
I64P = ctypes.POINTER(ctypes.c_int64)


def load_lib(path):
    lib = ctypes.CDLL(path)
    lib.dmlconf_open.restype = ctypes.c_void_p
    lib.dmlconf_open.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t]
    lib.dmlconf_close.argtypes = [ctypes.c_void_p]
    lib.dmlconf_reverse_sequence.restype = ctypes.c_int
    lib.dmlconf_reverse_sequence.argtypes = [
        ctypes.c_void_p, ctypes.c_int32, ctypes.c_uint32, I64P, ctypes.c_int64, ctypes.c_int64,
        ctypes.c_int, ctypes.c_void_p, I64P, ctypes.c_uint64, ctypes.c_void_p, ctypes.c_char_p,
        ctypes.c_size_t]
    lib.dmlconf_slice.restype = ctypes.c_int
    lib.dmlconf_slice.argtypes = [
        ctypes.c_void_p, ctypes.c_int32, ctypes.c_uint32, I64P, ctypes.c_uint32, I64P, I64P, I64P,
        I64P, I64P, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t]
    lib.dmlconf_run_node.restype = ctypes.c_int
    lib.dmlconf_run_node.argtypes = [
        ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_uint32,
        ctypes.POINTER(ctypes.c_char_p), ctypes.POINTER(ctypes.c_size_t), ctypes.c_uint32,
        ctypes.POINTER(ctypes.c_void_p), ctypes.c_char_p, ctypes.c_size_t]
    lib.dmlconf_result_output.restype = ctypes.c_int
    lib.dmlconf_result_output.argtypes = [
        ctypes.c_void_p, ctypes.c_uint32, ctypes.POINTER(ctypes.c_int32), ctypes.POINTER(ctypes.c_uint32),
        I64P, ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(ctypes.c_uint64),
        ctypes.POINTER(ctypes.POINTER(ctypes.c_uint8))]
    lib.dmlconf_result_free.argtypes = [ctypes.c_void_p]
    return lib


def i64arr(values):
    a = np.ascontiguousarray(np.array(values, dtype=np.int64))
    return a, a.ctypes.data_as(I64P)


def random_data(rng, shape, npdt):
    n = int(np.prod(shape)) if shape else 1
    if npdt is np.bool_:
        return (np.frombuffer(rng.randbytes(n), dtype=np.uint8) & 1).astype(np.bool_).reshape(shape)
    size = np.dtype(npdt).itemsize
    a = np.frombuffer(rng.randbytes(n * size), dtype=npdt).copy().reshape(shape)
    if np.issubdtype(npdt, np.floating):  # keep NaN payloads out of a data-movement test
        a[np.isnan(a)] = 0
    return a


class Sessions:
    """One cached ORT session per model signature (shapes are dynamic)."""

    def __init__(self):
        self.cache = {}
        self.models = {}
        self.opts = ort.SessionOptions()
        self.opts.intra_op_num_threads = 1
        self.opts.inter_op_num_threads = 1
        self.opts.log_severity_level = 4

    def get(self, key, build):
        s = self.cache.get(key)
        if s is None:
            model = build()
            onnx.checker.check_model(model)
            s = ort.InferenceSession(model.SerializeToString(), self.opts,
                                     providers=["CPUExecutionProvider"])
            self.cache[key] = s
            self.models[key] = model
        return s

    def reference(self, key, feeds):
        """ONNX's own reference implementation (onnx.reference): the third opinion."""
        from onnx.reference import ReferenceEvaluator
        try:
            return ReferenceEvaluator(self.models[key]).run(None, feeds)[0], None
        except Exception as e:  # noqa: BLE001
            return None, str(e).splitlines()[0][:200]


def dyn(name, elem, rank):
    return helper.make_tensor_value_info(name, elem, [f"{name}_d{i}" for i in range(rank)])


def revseq_model(elem, rank, time_axis, batch_axis):
    node = helper.make_node("ReverseSequence", ["x", "lens"], ["y"], time_axis=time_axis,
                            batch_axis=batch_axis)
    g = helper.make_graph([node], "rs", [dyn("x", elem, rank), dyn("lens", TensorProto.INT64, 1)],
                          [dyn("y", elem, rank)])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)], ir_version=8)


def slice_model(elem, rank, ind_elem, has_axes, has_steps):
    names = ["x", "starts", "ends"] + (["axes"] if has_axes else []) + \
        (["steps"] if has_steps else [])
    inputs = [dyn("x", elem, rank)] + [dyn(n, ind_elem, 1) for n in names[1:]]
    node = helper.make_node("Slice", names, ["y"])
    g = helper.make_graph([node], "sl", inputs, [dyn("y", elem, rank)])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)], ir_version=8)


def pick_index(rng, dim):
    r = rng.random()
    if r < 0.08:
        return INT64_MIN
    if r < 0.16:
        return INT64_MAX
    if r < 0.22:
        return rng.choice([-(2**31), 2**31 - 1, -(2**40), 2**40])
    return rng.randint(-dim - 3, dim + 3)


def pick_step(rng, dim):
    r = rng.random()
    if r < 0.04:
        return INT64_MIN
    if r < 0.08:
        return INT64_MAX
    if r < 0.11:
        return rng.choice([2**31, -(2**31), 2**31 - 1, -(2**31 - 1)])
    if r < 0.12:
        return 0  # invalid in ONNX: both sides must reject
    s = rng.randint(1, max(1, dim + 1))
    return s if rng.random() < 0.5 else -s


class Stats:
    def __init__(self):
        self.agree = 0
        self.empty = 0
        self.both_reject = 0
        self.known = 0
        self.unexpected = 0
        self.ort_unsupported = 0
        self.by_op = {}
        self.known_kinds = {}

    def count(self, op, what):
        self.by_op.setdefault(op, {}).setdefault(what, 0)
        self.by_op[op][what] += 1


def run_revseq(rng, lib, devs, sessions, st, case_id):
    elem, npdt = rng.choice(DTYPES)
    rank = rng.randint(2, 5)
    time_axis, batch_axis = rng.choice([(0, 1), (1, 0)])
    shape = [rng.randint(1, 6) for _ in range(rank)]
    T, B = shape[time_axis], shape[batch_axis]
    bad = rng.random() < 0.05
    lens = [rng.randint(0, T) for _ in range(B)]
    if bad:
        lens[rng.randrange(B)] = rng.choice([T + 1, T + 7, -1, INT64_MAX, INT64_MIN])
    x = random_data(rng, shape, npdt)
    lens_np = np.array(lens, dtype=np.int64)
    desc = (f"ReverseSequence#{case_id} dtype={TensorProto.DataType.Name(elem)} shape={shape} "
            f"time_axis={time_axis} batch_axis={batch_axis} lens={lens}")
    sess = sessions.get(("rs", elem, rank, time_axis, batch_axis),
                        lambda: revseq_model(elem, rank, time_axis, batch_axis))
    try:
        ort_out = sess.run(None, {"x": x, "lens": lens_np})[0]
        ort_err = None
    except Exception as e:  # noqa: BLE001 - ORT raises several types
        ort_out, ort_err = None, str(e).splitlines()[0][:200]
        if "NOT_IMPLEMENTED" in ort_err or "Could not find an implementation" in ort_err:
            st.ort_unsupported += 1
            st.count("ReverseSequence", "ort-unsupported")
            return
    dims, dims_p = i64arr(shape)
    xin = np.ascontiguousarray(x)
    for dev_name, dev in devs:
        out = np.zeros_like(xin)
        msg = ctypes.create_string_buffer(1024)
        r = lib.dmlconf_reverse_sequence(dev, elem, rank, dims_p, time_axis, batch_axis, 1,
                                         xin.ctypes.data, lens_np.ctypes.data_as(I64P),
                                         len(lens), out.ctypes.data, msg, 1024)
        verdict_case(st, "ReverseSequence", desc, dev_name, ort_out, ort_err, r,
                     msg.value.decode(), out, bad_lengths=bad, x=x, lens=lens,
                     time_axis=time_axis, batch_axis=batch_axis)


def clamp_expected(x, lens, time_axis, batch_axis):
    """DML's documented semantics: lengths (INT64 bits as UINT64) clamped to T."""
    T = x.shape[time_axis]
    y = x.copy()
    for b, l in enumerate(lens):
        L = min(l & (2**64 - 1), T)
        for j in range(L):
            src = [slice(None)] * x.ndim
            dst = [slice(None)] * x.ndim
            src[batch_axis] = dst[batch_axis] = b
            src[time_axis] = L - 1 - j
            dst[time_axis] = j
            y[tuple(dst)] = x[tuple(src)]
    return y


def spec_slice(x, starts, ends, axes, steps):
    """The ONNX Slice-13 spec text, independently, in Python integers: negative
    start/end += dim; start clamped to [0, dim] (step > 0) or [0, dim-1] (step < 0);
    end to [0, dim] or [-1, dim-1]. Returns the output array, or None when invalid."""
    rank = x.ndim
    idx = [list(range(d)) for d in x.shape]
    seen = set()
    steps = steps or [1] * len(starts)
    for s0, e0, a, st in zip(starts, ends, axes, steps):
        if st == 0 or not -rank <= a < rank:
            return None
        a %= rank
        if a in seen:
            return None
        seen.add(a)
        dim = x.shape[a]
        s0 = s0 + dim if s0 < 0 else s0
        e0 = e0 + dim if e0 < 0 else e0
        if st > 0:
            s0, e0 = min(max(s0, 0), dim), min(max(e0, 0), dim)
        else:
            s0, e0 = min(max(s0, 0), dim - 1), min(max(e0, -1), dim - 1)
        idx[a] = list(range(s0, e0, st))
    return x[np.ix_(*[np.array(i, dtype=np.int64) for i in idx])]


def ort_end_quirk(ends, steps):
    """ORT reads end == INT32_MAX or INT64_MAX as 'to the far end in the step's direction'
    (end = -1 for a negative step); the ONNX spec clamps it to dim-1 instead."""
    steps = steps or [1] * len(ends)
    return any(e in (2**31 - 1, INT64_MAX) and s < 0 for e, s in zip(ends, steps))


def verdict_case(st, op, desc, dev_name, ort_out, ort_err, r, msg, out, bad_lengths=False,
                 x=None, lens=None, time_axis=None, batch_axis=None, out_dims=None,
                 reference=None, quirk=False, spec_out=None):
    if op == "Slice" and reference is not None:
        agree_ort = ((ort_err is not None and r == -1) or
                     (ort_err is None and r == 1 and ort_out.size == 0 and
                      list(ort_out.shape) == list(out_dims)) or
                     (ort_err is None and r == 0 and list(ort_out.shape) == list(out.shape) and
                      ort_out.tobytes() == out.tobytes()))
        if not agree_ort:
            ref_out, ref_err = reference()
            spec = spec_out()
            agree_spec = ((spec is None and r == -1) or
                          (spec is not None and r == 1 and spec.size == 0 and
                           list(spec.shape) == list(out_dims)) or
                          (spec is not None and r == 0 and list(spec.shape) == list(out.shape)
                           and spec.tobytes() == out.tobytes()))
            agree_ref = ((ref_err is not None and r == -1) or
                         (ref_err is None and r == 1 and ref_out.size == 0 and
                          list(ref_out.shape) == list(out_dims)) or
                         (ref_err is None and r == 0 and list(ref_out.shape) == list(out.shape)
                          and ref_out.tobytes() == out.tobytes()))
            if agree_spec and not agree_ref:
                kind2 = ("onnx.reference (numpy slicing) clamps a negative-step start below 0 to -1, "
                         "the spec text to 0 (shape of an empty output only)"
                         if (spec is not None and spec.size == 0) else
                         "onnx.reference (numpy slicing) differs from the spec text")
                st.known_kinds[kind2] = st.known_kinds.get(kind2, 0) + 1
            if agree_spec and quirk:
                st.known += 1
                kind = "ORT reads end == INT32_MAX/INT64_MAX with step < 0 as 'to the start' (DML = ONNX spec text)"
                st.count(op, "known: " + kind)
                st.known_kinds[kind] = st.known_kinds.get(kind, 0) + 1
                if st.known_kinds[kind] <= 6:
                    ort_desc = ort_err if ort_err else f"shape {list(ort_out.shape)}"
                    print(f"KNOWN-DISAGREE [{dev_name}] {desc}: ORT {ort_desc} | DML/mapping "
                          f"shape {out_dims} = spec-text shape {list(spec.shape)}; onnx.reference "
                          f"{ref_err or list(ref_out.shape)}")
                return
            st.unexpected += 1
            st.count(op, "DISAGREE")
            print(f"DISAGREE [{dev_name}] {desc}: ORT {ort_err or list(ort_out.shape)} | DML rc={r} "
                  f"{msg} dims {out_dims} | onnx.reference "
                  f"{ref_err or list(ref_out.shape)} (DML agrees with reference: {agree_ref}, "
                  f"with the spec text: {agree_spec})")
            return
    if ort_err is not None:
        if r == -1:
            st.both_reject += 1
            st.count(op, "both-reject")
            return
        if op == "ReverseSequence" and bad_lengths and r == 0:
            want = clamp_expected(x, lens, time_axis, batch_axis)
            if want.tobytes() == out.tobytes():
                st.known += 1
                st.count(op, "known: ORT rejects out-of-range length, DML clamps")
                kind = ("ReverseSequence negative length" if any(v < 0 for v in lens)
                        else "ReverseSequence length > T")
                st.known_kinds[kind] = st.known_kinds.get(kind, 0) + 1
                if st.known_kinds[kind] <= 3:
                    print(f"KNOWN-DISAGREE [{dev_name}] {desc}: ORT: {ort_err} | DML: clamps "
                          f"(operators.md), output = clamped reference")
                return
        st.unexpected += 1
        st.count(op, "DISAGREE")
        print(f"DISAGREE [{dev_name}] {desc}: ORT error: {ort_err} | DML rc={r} {msg}")
        return
    if r == 1:
        if ort_out.size == 0 and list(ort_out.shape) == list(out_dims):
            st.empty += 1
            st.count(op, "skip: empty output (no zero-size DML tensors)")
            return
        st.unexpected += 1
        st.count(op, "DISAGREE")
        print(f"DISAGREE [{dev_name}] {desc}: ORT shape {list(ort_out.shape)} | mapping says "
              f"empty {out_dims}")
        return
    if r != 0:
        st.unexpected += 1
        st.count(op, "DISAGREE")
        print(f"DISAGREE [{dev_name}] {desc}: ORT ok shape {list(ort_out.shape)} | DML rc={r} {msg}")
        return
    if list(ort_out.shape) != list(out.shape) or ort_out.tobytes() != out.tobytes():
        st.unexpected += 1
        st.count(op, "DISAGREE")
        print(f"DISAGREE [{dev_name}] {desc}: ORT shape {list(ort_out.shape)} vs DML "
              f"{list(out.shape)}; bytes differ")
        return
    st.agree += 1
    st.count(op, "agree")


def run_slice(rng, lib, devs, sessions, st, case_id):
    elem, npdt = rng.choice(DTYPES)
    rank = rng.randint(1, 5)
    shape = [rng.randint(1, 6) for _ in range(rank)]
    n = rng.randint(1, rank)
    axes_list = rng.sample(range(rank), n)
    axes_list = [a - rank if rng.random() < 0.4 else a for a in axes_list]
    has_axes = rng.random() < 0.75
    if not has_axes:
        axes_list = list(range(n))
    if has_axes and rng.random() < 0.03 and n >= 1:  # invalid: repeated axis
        axes_list = axes_list + [axes_list[0] % rank]
        n += 1
    has_steps = rng.random() < 0.8 if has_axes else False
    steps = [pick_step(rng, shape[a % rank]) for a in axes_list] if has_steps else None
    starts, ends = [], []
    for k, a in enumerate(axes_list):
        dim = shape[a % rank]
        s0, e0 = pick_index(rng, dim), pick_index(rng, dim)
        step = steps[k] if steps else 1
        if rng.random() < 0.6 and step != 0:  # usually a non-empty window in the step's direction
            lo, hi = rng.randint(-dim, dim - 1), None
            hi = rng.randint(lo + 1, dim + 2)
            s0, e0 = (lo, hi) if step > 0 else (hi - 1 if hi - 1 < dim else dim - 1, lo - 1)
            if step < 0 and e0 == -1 - dim:
                e0 = INT64_MIN
        starts.append(s0)
        ends.append(e0)
    ind_elem, ind_np = (TensorProto.INT64, np.int64)
    if rng.random() < 0.25 and all(-(2**31) <= v < 2**31 for v in starts + ends + (steps or [])):
        ind_elem, ind_np = (TensorProto.INT32, np.int32)
    x = random_data(rng, shape, npdt)
    desc = (f"Slice#{case_id} dtype={TensorProto.DataType.Name(elem)} shape={shape} "
            f"starts={starts} ends={ends} axes={axes_list if has_axes else None} steps={steps} "
            f"ind={TensorProto.DataType.Name(ind_elem)}")
    sess = sessions.get(("sl", elem, rank, ind_elem, has_axes, has_steps),
                        lambda: slice_model(elem, rank, ind_elem, has_axes, has_steps))
    feeds = {"x": x, "starts": np.array(starts, dtype=ind_np), "ends": np.array(ends, dtype=ind_np)}
    if has_axes:
        feeds["axes"] = np.array(axes_list, dtype=ind_np)
    if has_steps:
        feeds["steps"] = np.array(steps, dtype=ind_np)
    try:
        ort_out = sess.run(None, feeds)[0]
        ort_err = None
    except Exception as e:  # noqa: BLE001
        ort_out, ort_err = None, str(e).splitlines()[0][:200]
        if "NOT_IMPLEMENTED" in ort_err or "Could not find an implementation" in ort_err:
            st.ort_unsupported += 1
            st.count("Slice", "ort-unsupported")
            return
    dims, dims_p = i64arr(shape)
    s_a, s_p = i64arr(starts)
    e_a, e_p = i64arr(ends)
    a_a, a_p = i64arr(axes_list)
    st_a, st_p = i64arr(steps if has_steps else [1] * n)
    xin = np.ascontiguousarray(x)
    for dev_name, dev in devs:
        out_dims = np.zeros(rank, dtype=np.int64)
        msg = ctypes.create_string_buffer(1024)
        r = lib.dmlconf_slice(dev, elem, rank, dims_p, n, s_p, e_p, a_p if has_axes else None,
                              st_p if has_steps else None, out_dims.ctypes.data_as(I64P),
                              xin.ctypes.data, None, msg, 1024)
        out = None
        if r == 0:
            out = np.zeros([int(d) for d in out_dims], dtype=npdt)
            r = lib.dmlconf_slice(dev, elem, rank, dims_p, n, s_p, e_p, a_p if has_axes else None,
                                  st_p if has_steps else None, out_dims.ctypes.data_as(I64P),
                                  xin.ctypes.data, out.ctypes.data, msg, 1024)
        key = ("sl", elem, rank, ind_elem, has_axes, has_steps)
        verdict_case(st, "Slice", desc, dev_name, ort_out, ort_err, r, msg.value.decode(), out,
                     out_dims=[int(d) for d in out_dims],
                     reference=lambda: sessions.reference(key, feeds),
                     quirk=ort_end_quirk(ends, steps),
                     spec_out=lambda: spec_slice(x, starts, ends, axes_list,
                                                 steps if has_steps else None))


def run_generic(rng, lib, devs, sessions, st, case_id):
    """One random case of a generic-export operator (ort_nodes.GENERATORS)."""
    case = rng.choice(ort_nodes.GENERATORS)(rng, case_id)
    op, desc = case.op, f"{case.desc} #{case_id}"
    feeds = {name: a for name, a in case.feeds if a is not None}
    ort_outs, ort_err = None, None
    try:
        sess = sessions.get(case.key, case.build)
        ort_outs = sess.run(None, feeds)
    except Exception as e:  # noqa: BLE001 - ORT raises several types
        ort_err = str(e).splitlines()[0][:200]
        if "NOT_IMPLEMENTED" in ort_err or "Could not find an implementation" in ort_err:
            st.ort_unsupported += 1
            st.count(op, "ort-unsupported")
            return
    model_bytes = case.build().SerializeToString()
    for dev_name, dev in devs:
        code, msg, outs, undefined = ort_nodes.run_dml(lib, dev, case, model_bytes)
        what = ort_nodes.OTD.get(code, str(code))
        if code == -5:  # the backend does not execute this plan kind yet: never a pass
            st.ort_unsupported += 1
            st.count(op, "skip: the backend does not execute its plan kind (DML_E_NOTIMPL)")
            continue
        if code == -2:
            st.ort_unsupported += 1
            st.count(op, "skip: unrepresentable in DirectML" + (" (ORT rejects too)" if ort_err else ""))
            continue
        if ort_err is not None:
            kind = ort_nodes.known_error(case, outs, dev_name != "cpu") if code == 0 else None
            if code == -1:
                st.both_reject += 1
                st.count(op, "both-reject")
            elif kind:
                st.known += 1
                st.count(op, "known: " + kind)
                st.known_kinds[kind] = st.known_kinds.get(kind, 0) + 1
            else:
                st.unexpected += 1
                st.count(op, "DISAGREE")
                print(f"DISAGREE [{dev_name}] {desc}: ORT error: {ort_err} | DML {what}: {msg}")
            continue
        shapes_agree = len(outs) == len(ort_outs) and all(
            list(a.shape) == list(b.shape) for a, b in zip(outs, ort_outs))
        if code == 1 and shapes_agree:
            st.empty += 1
            st.count(op, "skip: empty output (no zero-size DML tensors)")
            continue
        kind = ort_nodes.known_rejection(case, ort_outs) if code == -1 else None
        if kind:
            st.known += 1
            st.count(op, "known: " + kind)
            st.known_kinds[kind] = st.known_kinds.get(kind, 0) + 1
            continue
        if code != 0 or not shapes_agree:
            st.unexpected += 1
            st.count(op, "DISAGREE")
            print(f"DISAGREE [{dev_name}] {desc}: ORT shapes {[list(o.shape) for o in ort_outs]} | DML {what} "
                  f"{msg} shapes {[list(o.shape) for o in outs]}")
            continue
        if all(a.tobytes() == np.ascontiguousarray(b).tobytes() for a, b in zip(outs, ort_outs)):
            st.agree += 1
            st.count(op, "agree")
            continue
        kind = ort_nodes.known(case, outs, [np.ascontiguousarray(b) for b in ort_outs], undefined, dev_name != "cpu")
        if kind:
            st.known += 1
            st.count(op, "known: " + kind)
            st.known_kinds[kind] = st.known_kinds.get(kind, 0) + 1
            continue
        st.unexpected += 1
        st.count(op, "DISAGREE")
        print(f"DISAGREE [{dev_name}] {desc}: bytes differ; ORT {[o.tolist() for o in ort_outs]} | "
              f"DML {[o.tolist() for o in outs]}"[:2000])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", required=True)
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--cases", type=int, default=60000)
    ap.add_argument("--seconds", type=float, default=90.0)
    args = ap.parse_args()
    seed = args.seed if args.seed is not None else int(time.time())
    print(f"ort-differential: onnxruntime {ort.__version__}, onnx {onnx.__version__}, seed {seed} "
          f"(replay with --seed {seed})")
    rng = random.Random(seed)
    lib = load_lib(args.lib)
    devs = []
    for b in BACKENDS:
        msg = ctypes.create_string_buffer(1024)
        h = lib.dmlconf_open(b.encode(), msg, 1024)
        if not h:
            print(f"ort-differential: backend {b} unavailable: {msg.value.decode()}")
            return 1
        devs.append((b, h))
    sessions = Sessions()
    st = Stats()
    t0 = time.monotonic()
    done = 0
    while done < args.cases and time.monotonic() - t0 < args.seconds:
        pick = rng.random()
        if pick < 0.15:
            run_revseq(rng, lib, devs, sessions, st, done)
        elif pick < 0.4:
            run_slice(rng, lib, devs, sessions, st, done)
        else:
            run_generic(rng, lib, devs, sessions, st, done)
        done += 1
    for _, h in devs:
        lib.dmlconf_close(h)
    el = time.monotonic() - t0
    print(f"ort-differential: {done} cases x {len(devs)} backends in {el:.1f}s, "
          f"{len(sessions.cache)} ORT sessions")
    for op, d in sorted(st.by_op.items()):
        for k, v in sorted(d.items()):
            print(f"  {op:16s} {k}: {v}")
    if st.known_kinds:
        for k, v in sorted(st.known_kinds.items()):
            print(f"  known disagreement: {k}: {v}")
    passed = st.agree + st.both_reject + st.known
    print(f"ort-differential: {passed} passed, {st.unexpected} failed, "
          f"{st.empty + st.ort_unsupported} skipped")
    return 1 if st.unexpected else 0


if __name__ == "__main__":
    sys.exit(main())

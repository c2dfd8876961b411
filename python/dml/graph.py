"""Graphs (dmlDeviceCompileGraph) from Python: nodes are built from the
operators' parameters, the graph is compiled once per device and input layout
(shapes, strides, dtypes) and called many times on DLPack tensors, zero-copy
like the single operators.

    g = dml.Graph()
    x = g.input((4, 6))
    lengths = g.input((4, 1))
    y = g.reverse_subsequences(g.slice1(x, [0, 0], [4, 6], [1, -1]), lengths, axis=1)
    g.output(y)
    run = g.compile()
    (out,) = run(x_tensor, lengths_tensor)
    run.steps(x_tensor, lengths_tensor)  # what it compiled to (fused passes)
"""
import ctypes
import threading
import types

from . import _dlpack, _lib, _ops
from ._enums import CreateDeviceFlags, GraphEdgeType, GraphNodeType
from ._lib import check, create, lib

_NODE_TYPE_OPERATOR = GraphNodeType.OPERATOR
_EDGE_INPUT, _EDGE_OUTPUT, _EDGE_INTERMEDIATE = GraphEdgeType.INPUT, GraphEdgeType.OUTPUT, GraphEdgeType.INTERMEDIATE


class Value:
    """A tensor of the graph: a graph input, or a node's output."""

    def __init__(self, graph, shape, node=None, index=None):
        self.graph, self.shape, self.node, self.index = graph, tuple(shape), node, index


class _Node:
    def __init__(self, kind, data, params, lengths=None):
        self.kind, self.data, self.params, self.lengths = kind, data, params, lengths


def _check_rank(operator, x, **lists):
    # DimensionCount is the rank: every array must hold that many values.
    for name, values in lists.items():
        if len(values) != len(x.shape):
            raise ValueError("%s: %s has %d values; the %d-dimensional input needs one per dimension"
                             % (operator, name, len(values), len(x.shape)))


class Graph:
    """A graph under construction: input(), the operators, output(), compile()."""

    def __init__(self):
        self.inputs, self.nodes, self.outputs = [], [], []

    def _value(self, v, what):
        if not isinstance(v, Value) or v.graph is not self:
            raise TypeError("dml.Graph.%s: expects a value of this graph (from input() or an operator)" % what)
        return v

    def _node(self, kind, data, shape, params, lengths=None):
        node = _Node(kind, data, params, lengths)
        self.nodes.append(node)
        node.output = Value(self, shape, node=len(self.nodes) - 1)
        return node.output

    def input(self, shape):
        """A graph input of this shape (the tensor passed at that position when called)."""
        shape = _ops._check_ints("dml.Graph.input: shape", shape, 1, 0xFFFFFFFF)
        value = Value(self, shape, index=len(self.inputs))
        self.inputs.append(value)
        return value

    def identity(self, x, scale=None, bias=None):
        """ELEMENT_WISE_IDENTITY (with scale/bias: x * scale + bias, float types only)."""
        x = self._value(x, "identity")
        return self._node("identity", x, x.shape, (scale, bias))

    def slice1(self, x, offsets, sizes, strides, output_sizes=None):
        """SLICE1, as dml.slice1."""
        x = self._value(x, "slice1")
        offsets = _ops._check_ints("dml.Graph.slice1: offsets", offsets, 0, 0xFFFFFFFF)
        sizes = _ops._check_ints("dml.Graph.slice1: sizes", sizes, 0, 0xFFFFFFFF)
        strides = _ops._check_ints("dml.Graph.slice1: strides", strides, -0x80000000, 0x7FFFFFFF)
        if output_sizes is None:
            output_sizes = [1 + (w - 1) // abs(s) if w >= 1 and s else 1 for w, s in zip(sizes, strides)]
        output_sizes = _ops._check_ints("dml.Graph.slice1: output_sizes", output_sizes, 0, 0xFFFFFFFF)
        _check_rank("dml.Graph.slice1", x, offsets=offsets, sizes=sizes, strides=strides, output_sizes=output_sizes)
        return self._node("slice1", x, output_sizes, (offsets, sizes, strides))

    def slice(self, x, offsets, sizes, strides):  # noqa: A003 (DirectML's name)
        """SLICE, as dml.slice."""
        x = self._value(x, "slice")
        offsets = _ops._check_ints("dml.Graph.slice: offsets", offsets, 0, 0xFFFFFFFF)
        sizes = _ops._check_ints("dml.Graph.slice: sizes", sizes, 0, 0xFFFFFFFF)
        strides = _ops._check_ints("dml.Graph.slice: strides", strides, 0, 0x7FFFFFFF)
        _check_rank("dml.Graph.slice", x, offsets=offsets, sizes=sizes, strides=strides)
        return self._node("slice", x, sizes, (offsets, sizes, strides))

    def reverse_subsequences(self, x, lengths, axis):
        """REVERSE_SUBSEQUENCES; lengths is a value of x's shape with 1 on axis
        (32- or 64-bit integers), a graph input or a node's output."""
        x, lengths = self._value(x, "reverse_subsequences"), self._value(lengths, "reverse_subsequences")
        rank = len(x.shape)
        if not -rank <= axis < rank:
            raise IndexError("dml.Graph.reverse_subsequences: axis %d is out of range for a %d-dimensional value"
                             % (axis, rank))
        axis %= rank
        expected = tuple(1 if d == axis else n for d, n in enumerate(x.shape))
        if lengths.shape != expected:
            raise ValueError("dml.Graph.reverse_subsequences: lengths of shape %s; expected %s"
                             % (lengths.shape, expected))
        return self._node("reverse", x, x.shape, axis, lengths)

    def output(self, value):
        """Makes a node's output the next graph output (the call returns them in this order)."""
        value = self._value(value, "output")
        if value.node is None:
            raise ValueError("dml.Graph.output: a graph input cannot be a graph output (only node outputs can)")
        self.outputs.append(value)

    def compile(self, *, backend=None):
        """A callable running this graph; compiled on first use per device and input layout."""
        if not self.outputs:
            raise ValueError("dml.Graph.compile: the graph has no outputs (call output())")
        snapshot = Graph()  # later additions to self do not change what was compiled
        snapshot.inputs, snapshot.nodes, snapshot.outputs = list(self.inputs), list(self.nodes), list(self.outputs)
        return CompiledGraph(snapshot, backend)


class _Packed:
    """A packed description (intermediates, outputs, the operators' outputs)."""

    def __init__(self, shape, data_type):
        self.shape, self.rank, self.sizes = tuple(shape), len(shape), _ops._u32_array(shape)
        self.total = lib.DMLCalcBufferTensorSize(data_type, self.rank, self.sizes, None)
        self.desc = _lib.BUFFER_TENSOR_DESC(data_type, 0, self.rank, self.sizes, None, self.total, 0)
        self.tensor = _lib.TENSOR_DESC(_lib.TENSOR_TYPE_BUFFER, ctypes.cast(ctypes.pointer(self.desc), ctypes.c_void_p))


def _described(desc, data_type):
    """desc (an operand or _Packed) with another data type (same sizes, strides, total)."""
    copy = _Packed.__new__(_Packed)
    copy.desc = _lib.BUFFER_TENSOR_DESC(data_type, 0, desc.desc.DimensionCount, desc.desc.Sizes, desc.desc.Strides,
                                        desc.desc.TotalTensorSizeInBytes, 0)
    copy.tensor = _lib.TENSOR_DESC(_lib.TENSOR_TYPE_BUFFER, ctypes.cast(ctypes.pointer(copy.desc), ctypes.c_void_p))
    copy.keep = desc
    return copy


class _Compiled:
    """One dmlDeviceCompileGraph result for one device and input layout."""

    def __init__(self, graph, device, operands, dtypes):
        self.keep = []
        values_dtype = {}
        descs = {}  # node index -> its output's packed description

        def dtype_of(v):
            return dtypes[v.index] if v.node is None else values_dtype[v.node]

        def desc_of(v, data_type=None):
            d = operands[v.index] if v.node is None else descs[v.node]
            return _described(d, data_type) if data_type is not None else d

        nodes, ops = [], []
        for k, node in enumerate(graph.nodes):
            dtype = dtype_of(node.data)
            values_dtype[k] = dtype
            size_type = _lib.UINT_TYPE_BY_SIZE[dtype[1] // 8]
            out = _Packed(node.output.shape, size_type)
            descs[k] = out
            if node.kind == "identity":
                scale, bias = node.params
                data_type = _ops.data_type(dtype, scale, bias)
                desc, keep = _ops.identity_desc(desc_of(node.data, data_type), _described(out, data_type), scale, bias)
                self.keep.append(keep)
                op_type = _ops.OPERATOR_ELEMENT_WISE_IDENTITY
            elif node.kind in ("slice1", "slice"):
                offsets, sizes, strides = node.params
                source = desc_of(node.data, size_type)
                rank = len(offsets)
                if node.kind == "slice1":
                    desc = _lib.SLICE1_OPERATOR_DESC(ctypes.pointer(source.tensor), ctypes.pointer(out.tensor), rank,
                                                     _ops._u32_array(offsets), _ops._u32_array(sizes),
                                                     (ctypes.c_int32 * max(rank, 1))(*strides))
                    op_type = _lib.OPERATOR_SLICE1
                else:
                    desc = _lib.SLICE_OPERATOR_DESC(ctypes.pointer(source.tensor), ctypes.pointer(out.tensor), rank,
                                                    _ops._u32_array(offsets), _ops._u32_array(sizes),
                                                    _ops._u32_array(strides))
                    op_type = _lib.OPERATOR_SLICE
                self.keep.append(source)
            else:
                ltype = dtype_of(node.lengths)
                if (ltype[0], ltype[1]) not in _ops._LENGTH_TYPES:
                    raise TypeError("dml.Graph.reverse_subsequences: lengths must be 32- or 64-bit integers "
                                    "(DLPack type code %d, %d bits)" % ltype[:2])
                source = desc_of(node.data, size_type)
                lengths = desc_of(node.lengths, _ops._LENGTH_TYPES[(ltype[0], ltype[1])])
                desc = _lib.REVERSE_SUBSEQUENCES_OPERATOR_DESC(ctypes.pointer(source.tensor),
                                                               ctypes.pointer(lengths.tensor),
                                                               ctypes.pointer(out.tensor), node.params)
                self.keep += [source, lengths]
                op_type = _lib.OPERATOR_REVERSE_SUBSEQUENCES
            self.keep.append(desc)
            op_desc = _lib.OPERATOR_DESC(op_type, ctypes.cast(ctypes.pointer(desc), ctypes.c_void_p))
            op = create(lib.dmlDeviceCreateOperator, device.handle.value, ctypes.byref(op_desc))
            ops.append(op)
            node_desc = _OperatorNodeDesc(op.value, ("n%d_%s" % (k, node.kind)).encode())
            self.keep.append(node_desc)
            nodes.append(_Typed(_NODE_TYPE_OPERATOR, ctypes.cast(ctypes.pointer(node_desc),
                                                                            ctypes.c_void_p)))

        input_edges, intermediate_edges, output_edges = [], [], []

        def edge(kind, desc):
            self.keep.append(desc)
            return _Typed(kind, ctypes.cast(ctypes.pointer(desc), ctypes.c_void_p))

        for k, node in enumerate(graph.nodes):
            for slot, v in enumerate([node.data] + ([node.lengths] if node.lengths else [])):
                if v.node is None:
                    input_edges.append(edge(_EDGE_INPUT, _InputEdge(v.index, k, slot, None)))
                else:
                    intermediate_edges.append(edge(_EDGE_INTERMEDIATE, _IntermediateEdge(v.node, 0, k, slot, None)))
        for i, v in enumerate(graph.outputs):
            output_edges.append(edge(_EDGE_OUTPUT, _OutputEdge(v.node, 0, i, None)))

        def array(items):
            a = (_Typed * max(len(items), 1))(*items)
            self.keep.append(a)
            return a

        graph_desc = _GraphDesc(len(graph.inputs), len(graph.outputs), len(nodes), array(nodes),
                                len(input_edges), array(input_edges), len(output_edges), array(output_edges),
                                len(intermediate_edges), array(intermediate_edges))
        self.handle = create(lib.dmlDeviceCompileGraph, device.handle.value, ctypes.byref(graph_desc), 0)
        for op in ops:  # the compiled graph keeps what it needs
            op.close()
        self.outputs = [(v.shape, values_dtype[v.node], descs[v.node]) for v in graph.outputs]
        self.properties = lib.dmlDispatchableGetBindingProperties(self.handle.value)


class CompiledGraph:
    """run(*tensors) -> list of output tensors (in output() order), of the first
    input's framework. Compiled graphs are cached per device and input layout."""

    def __init__(self, graph, backend):
        self.graph, self.backend = graph, backend
        self.cache = {}
        self.lock = threading.Lock()
        self.compilations = 0  # how many times dmlDeviceCompileGraph ran (tests check the cache)

    def _operands(self, tensors):
        graph = self.graph
        if len(tensors) != len(graph.inputs):
            raise ValueError("dml.Graph: %d tensors given for %d graph inputs" % (len(tensors), len(graph.inputs)))
        device, stream, first = _ops._placement(tensors[0], self.backend)
        views = [first] + [_dlpack.consume(t, stream) for t in tensors[1:]]
        for i, (v, value) in enumerate(zip(views, graph.inputs)):
            if v.device[0] != views[0].device[0] or (v.device[0] != _dlpack.KDL_CPU and v.device != views[0].device):
                raise ValueError("dml.Graph: input %d lives on DLPack device %s, input 0 on %s"
                                 % (i, v.device, views[0].device))
            if tuple(v.shape) != value.shape:
                raise ValueError("dml.Graph: input %d has shape %s; the graph input is %s"
                                 % (i, tuple(v.shape), value.shape))
        # Negative strides and unaligned starts are packed first (one SLICE1
        # copy each), as for reverse_subsequences; the rest is read in place.
        operands = [_ops._readable(device, stream, v) for v in views]
        return device, stream, views, operands

    def _compiled(self, device, views, operands):
        key = (device.backend, device.adapter) + tuple(
            (v.dtype, tuple(o.desc.Strides[d] for d in range(o.rank)) if o.desc.Strides else None)
            for v, o in zip(views, operands))
        with self.lock:
            if key not in self.cache:
                self.cache[key] = _Compiled(self.graph, device, operands, [v.dtype for v in views])
                self.compilations += 1
            return self.cache[key]

    def __call__(self, *tensors):
        device, stream, views, operands = self._operands(tensors)
        compiled = self._compiled(device, views, operands)
        outputs = []
        for shape, dtype, desc in compiled.outputs:
            buffer = create(lib.dmlDeviceCreateBuffer, device.handle.value, max(desc.total, 4))
            outputs.append((shape, dtype, buffer, _lib.BUFFER_BINDING(buffer.value, 0, max(desc.total, 4))))
        table = create(lib.dmlDeviceCreateBindingTable, device.handle.value,
                       ctypes.byref(_lib.BINDING_TABLE_DESC(compiled.handle.value)))
        check(lib.dmlBindingTableBindInputs(table.value, len(operands), _ops._bindings([o.binding for o in operands])))
        check(lib.dmlBindingTableBindOutputs(table.value, len(outputs), _ops._bindings([o[3] for o in outputs])))
        temporary = None
        if compiled.properties.TemporaryResourceSize:
            size = compiled.properties.TemporaryResourceSize
            temporary = create(lib.dmlDeviceCreateBuffer, device.handle.value, size)
            binding = _lib.BUFFER_BINDING(temporary.value, 0, size)
            check(lib.dmlBindingTableBindTemporaryResource(table.value, ctypes.byref(_lib.BINDING_DESC(
                _lib.BINDING_TYPE_BUFFER, ctypes.cast(ctypes.pointer(binding), ctypes.c_void_p)))))
        with device.lock:
            queue = device.queue(stream)
            check(lib.dmlCommandRecorderRecordDispatch(device.recorder.value, queue.value, compiled.handle.value,
                                                       table.value))
            synchronized = (stream is None and device.backend != "cpu") or temporary is not None
            if synchronized:
                # The temporary resource is released when this call returns:
                # the work reading it must be done (and see _ops._dispatch).
                check(lib.dmlCommandQueueSynchronize(queue.value))
        results = []
        for shape, dtype, buffer, _ in outputs:
            tensor = _ops.Tensor(device, buffer, shape, dtype, None if synchronized or stream is None else stream)
            from_dlpack = _ops._from_dlpack_of(tensors[0])
            results.append(from_dlpack(tensor) if from_dlpack else tensor)
        return results

    def steps(self, *tensors):
        """What the graph compiles to for these tensors: the runtime's INFO
        messages (one per pass; fused nodes share a pass), from a compilation on
        a DEBUG device of the same backend. Nothing is executed."""
        device, _, views, operands = self._operands(tensors)
        desc = _lib.DEVICE_DESC(device.backend.encode(), device.adapter, _CREATE_DEVICE_FLAG_DEBUG,
                                _lib.FEATURE_LEVEL_5_0)
        debug = types.SimpleNamespace(handle=create(lib.dmlCreateDevice, ctypes.byref(desc)))
        messages = []

        @_MESSAGE_CALLBACK
        def collect(severity, message, context):
            messages.append((message or b"").decode("utf-8", "replace"))

        with _messages_lock:
            lib.dmlSetMessageCallback(collect, None)
            try:
                _Compiled(self.graph, debug, operands, [v.dtype for v in views]).handle.close()
            finally:
                lib.dmlSetMessageCallback(_MESSAGE_CALLBACK(), None)  # NULL: stderr again
        debug.handle.close()
        return messages


# ---- ctypes declarations of the graph API (dml.h, "Graphs") ----------------
_CREATE_DEVICE_FLAG_DEBUG = CreateDeviceFlags.DEBUG
_MESSAGE_CALLBACK = ctypes.CFUNCTYPE(None, ctypes.c_int, ctypes.c_char_p, ctypes.c_void_p)
_messages_lock = threading.Lock()


# DML_GRAPH_NODE_DESC and DML_GRAPH_EDGE_DESC are { enum Type; const void* Desc },
# the layout of DML_BINDING_DESC.
_Typed = _lib.BINDING_DESC


class _OperatorNodeDesc(ctypes.Structure):
    _fields_ = [("Operator", ctypes.c_void_p), ("Name", ctypes.c_char_p)]


class _InputEdge(ctypes.Structure):
    _fields_ = [("GraphInputIndex", ctypes.c_uint32), ("ToNodeIndex", ctypes.c_uint32),
                ("ToNodeInputIndex", ctypes.c_uint32), ("Name", ctypes.c_char_p)]


class _OutputEdge(ctypes.Structure):
    _fields_ = [("FromNodeIndex", ctypes.c_uint32), ("FromNodeOutputIndex", ctypes.c_uint32),
                ("GraphOutputIndex", ctypes.c_uint32), ("Name", ctypes.c_char_p)]


class _IntermediateEdge(ctypes.Structure):
    _fields_ = [("FromNodeIndex", ctypes.c_uint32), ("FromNodeOutputIndex", ctypes.c_uint32),
                ("ToNodeIndex", ctypes.c_uint32), ("ToNodeInputIndex", ctypes.c_uint32), ("Name", ctypes.c_char_p)]


class _GraphDesc(ctypes.Structure):
    _fields_ = [("InputCount", ctypes.c_uint32), ("OutputCount", ctypes.c_uint32), ("NodeCount", ctypes.c_uint32),
                ("Nodes", ctypes.POINTER(_Typed)), ("InputEdgeCount", ctypes.c_uint32),
                ("InputEdges", ctypes.POINTER(_Typed)), ("OutputEdgeCount", ctypes.c_uint32),
                ("OutputEdges", ctypes.POINTER(_Typed)), ("IntermediateEdgeCount", ctypes.c_uint32),
                ("IntermediateEdges", ctypes.POINTER(_Typed))]


lib.dmlDeviceCompileGraph.argtypes = [ctypes.c_void_p, ctypes.POINTER(_GraphDesc), ctypes.c_int,
                                      ctypes.POINTER(ctypes.c_void_p)]
lib.dmlDeviceCompileGraph.restype = ctypes.c_int32
lib.dmlBindingTableBindTemporaryResource.argtypes = [ctypes.c_void_p, ctypes.POINTER(_lib.BINDING_DESC)]
lib.dmlBindingTableBindTemporaryResource.restype = ctypes.c_int32
lib.dmlSetMessageCallback.argtypes = [_MESSAGE_CALLBACK, ctypes.c_void_p]
lib.dmlSetMessageCallback.restype = None

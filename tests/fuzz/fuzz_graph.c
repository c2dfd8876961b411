/*
 * fuzz_graph.c — libFuzzer target: bytes -> DML_GRAPH_DESC -> the whole API.
 *
 * The input is decoded into up to 9 nodes (ELEMENT_WISE_IDENTITY with or
 * without ScaleBias, SLICE1, REVERSE_SUBSEQUENCES, TILE, JOIN with a second
 * graph input, CAST, PADDING in any mode, DEPTH_TO_SPACE1 / SPACE_TO_DEPTH1
 * in either order, SPLIT in two (its second output left unconnected), and
 * FILL_VALUE_CONSTANT / FILL_VALUE_SEQUENCE with raw values and no input,
 * GATHER and GATHER_ELEMENTS with an index graph input (any of the four
 * index types; its bytes are anything, so most indices are clamped), and
 * ELEMENT_WISE_IF with a UINT8 condition and B as graph inputs,
 * over small tensors whose input views may reshape or transpose what they
 * read) and input, output and
 * intermediate edges whose indices, types and counts are mostly those of a
 * valid chain-or-DAG and sometimes anything (out of range, duplicated,
 * cyclic, wrong types, NULL descs). Then, on "cpu" and "cudaemu":
 *   - dmlDeviceCompileGraph returns DML_S_OK or DML_E_INVALIDARG with a
 *     message, and leaves the out handle untouched when it fails;
 *   - both backends agree on the result;
 *   - accepted: every input, output, temporary (zeroed) and persistent
 *     resource is bound, the graph is initialized and dispatched, and both
 *     backends' outputs must be equal byte for byte.
 * Any violation aborts (a crash for libFuzzer, a failed case for the replay,
 * tests/fuzz/test_fuzz_graph_replay.c).
 */
#include <dml/dml.h>

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
/* How many inputs decoded to graphs both backends compiled and ran. */
unsigned long fuzz_graph_accepted(void);

static unsigned long g_accepted;

unsigned long fuzz_graph_accepted(void)
{
    return g_accepted;
}

#define MAX_NODES 9
#define MAX_EDGES 24

typedef struct reader {
    const uint8_t* data;
    size_t size, pos;
} reader;

static uint8_t u8(reader* r)
{
    return r->pos < r->size ? r->data[r->pos++] : 0;
}

static uint32_t below(reader* r, uint32_t n)
{
    return n ? u8(r) % n : 0;
}

static void fail(const char* what)
{
    fprintf(stderr, "fuzz_graph: %s (last message: %s)\n", what, dmlGetLastErrorMessage());
    abort();
}

typedef struct tensor {
    uint32_t sizes[4], strides[4];
    DML_BUFFER_TENSOR_DESC buffer;
    DML_TENSOR_DESC desc;
} tensor;

static void tensor_set(tensor* t, DML_TENSOR_DATA_TYPE type, uint32_t rank, const uint32_t* sizes,
    const uint32_t* strides, uint32_t element_size)
{
    memset(t, 0, sizeof *t);
    memcpy(t->sizes, sizes, rank * 4);
    if (strides)
        memcpy(t->strides, strides, rank * 4);
    /* TotalTensorSizeInBytes from the formula, rounded up to 4. */
    uint64_t last = 0;
    for (uint32_t i = 0; i < rank; ++i) {
        uint64_t stride = strides ? strides[i] : 1;
        if (!strides)
            for (uint32_t j = i + 1; j < rank; ++j)
                stride *= sizes[j];
        last += (uint64_t)(sizes[i] - 1) * stride;
    }
    uint64_t bytes = ((last + 1) * element_size + 3) & ~(uint64_t)3;
    t->buffer = (DML_BUFFER_TENSOR_DESC){ type, DML_TENSOR_FLAG_NONE, rank, t->sizes, strides ? t->strides : NULL,
        bytes, 0 };
    t->desc = (DML_TENSOR_DESC){ DML_TENSOR_TYPE_BUFFER, &t->buffer };
}

typedef struct node {
    tensor in, out, len; /* len: REVERSE_SUBSEQUENCES' lengths, JOIN's second input, or SPLIT's second output,
                          * a gather's indices, ELEMENT_WISE_IF's condition */
    tensor third;        /* ELEMENT_WISE_IF's B */
    uint32_t offsets[4], window[4], repeats[4], start[4], end[4];
    int32_t strides[4];
    DML_SCALE_BIAS sb;
    DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC id;
    DML_SLICE1_OPERATOR_DESC s1;
    DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC rs;
    DML_TILE_OPERATOR_DESC tile;
    DML_TENSOR_DESC join_inputs[2];
    DML_JOIN_OPERATOR_DESC join;
    DML_CAST_OPERATOR_DESC cast;
    DML_PADDING_OPERATOR_DESC padding;
    DML_DEPTH_TO_SPACE1_OPERATOR_DESC to_space;
    DML_SPACE_TO_DEPTH1_OPERATOR_DESC to_depth;
    DML_SPLIT_OPERATOR_DESC split;
    DML_FILL_VALUE_CONSTANT_OPERATOR_DESC fill_constant;
    DML_FILL_VALUE_SEQUENCE_OPERATOR_DESC fill_sequence;
    DML_GATHER_OPERATOR_DESC gather;
    DML_GATHER_ELEMENTS_OPERATOR_DESC gather_elements;
    DML_ELEMENT_WISE_IF_OPERATOR_DESC select;
    DML_OPERATOR_DESC od;
    DMLOperator op[2]; /* per backend */
    uint32_t inputs;
} node;

typedef struct fuzz_graph {
    uint32_t node_count, input_count, output_count;
    node nodes[MAX_NODES];
    DML_GRAPH_NODE_DESC gnodes[2][MAX_NODES];
    DML_OPERATOR_GRAPH_NODE_DESC onodes[2][MAX_NODES];
    DML_INPUT_GRAPH_EDGE_DESC ins[MAX_EDGES];
    DML_OUTPUT_GRAPH_EDGE_DESC outs[MAX_EDGES];
    DML_INTERMEDIATE_GRAPH_EDGE_DESC mids[MAX_EDGES];
    DML_GRAPH_EDGE_DESC ie[MAX_EDGES], oe[MAX_EDGES], me[MAX_EDGES];
    uint32_t in_n, out_n, mid_n;
    uint64_t input_bytes[MAX_EDGES], output_bytes[MAX_EDGES];
} fuzz_graph;

static const DML_TENSOR_DATA_TYPE TYPES[4] = { DML_TENSOR_DATA_TYPE_UINT8, DML_TENSOR_DATA_TYPE_FLOAT16,
    DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_FLOAT64 };
static const uint32_t TYPE_SIZES[4] = { 1, 2, 4, 8 };
static const DML_TENSOR_DATA_TYPE INDEX_TYPES[4] = { DML_TENSOR_DATA_TYPE_INT32, DML_TENSOR_DATA_TYPE_UINT32,
    DML_TENSOR_DATA_TYPE_INT64, DML_TENSOR_DATA_TYPE_UINT64 };

/* A node's input i: in, len (second), third. */
static const tensor* node_input(const node* n, uint32_t i)
{
    return i == 0 ? &n->in : (i == 1 ? &n->len : &n->third);
}

/* A node reading `source` (NULL: a fresh graph input of random shape). */
static void make_node(reader* r, node* n, const tensor* source)
{
    memset(n, 0, sizeof *n);
    uint32_t t = below(r, 4), rank = 1 + below(r, 3), sizes[4], strides[4];
    for (uint32_t i = 0; i < rank; ++i)
        sizes[i] = 1 + below(r, 5);
    if (source && below(r, 4) != 3) { /* read the source's bytes: its shape, or a reshape of the same count */
        const DML_BUFFER_TENSOR_DESC* s = &source->buffer;
        uint64_t bytes = s->TotalTensorSizeInBytes;
        t = below(r, 4);
        if (bytes % TYPE_SIZES[t] || below(r, 2)) {
            for (t = 0; t < 4 && TYPES[t] != s->DataType; ++t) {
            }
            rank = s->DimensionCount;
            memcpy(sizes, s->Sizes, rank * 4);
        } else {
            rank = 1;
            sizes[0] = (uint32_t)(bytes / TYPE_SIZES[t]);
        }
    }
    bool transpose = rank == 2 && below(r, 3) == 0;
    if (transpose) {
        strides[0] = 1;
        strides[1] = sizes[0];
    }
    tensor_set(&n->in, TYPES[t], rank, sizes, transpose ? strides : NULL, TYPE_SIZES[t]);
    uint32_t kind = below(r, 13), out_sizes[4], out_type = t;
    uint64_t count = 1;
    for (uint32_t i = 0; i < rank; ++i)
        count *= sizes[i];
    if (kind == 7 && count % 4) /* depth/space with block 2 needs a multiple of 4 elements */
        kind = 0;
    bool to_space = kind == 7 && below(r, 2);
    if (kind == 7) { /* the same elements viewed as [1, 4, 1, k] (depth) or [1, 1, 2, 2k] (space) */
        const uint32_t depth[4] = { 1, 4, 1, (uint32_t)(count / 4) }, space[4] = { 1, 1, 2, (uint32_t)(count / 2) };
        rank = 4;
        memcpy(sizes, to_space ? depth : space, sizeof sizes);
        tensor_set(&n->in, TYPES[t], rank, sizes, NULL, TYPE_SIZES[t]);
        memcpy(out_sizes, to_space ? space : depth, sizeof out_sizes);
    } else {
        memcpy(out_sizes, sizes, sizeof out_sizes);
    }
    uint32_t join_axis = below(r, rank);
    if (kind == 8 && sizes[join_axis] >= 2) /* SPLIT: the first part, then the rest in `len` */
        out_sizes[join_axis] = sizes[join_axis] / 2;
    if (kind == 3)
        for (uint32_t i = 0; i < rank; ++i) {
            n->repeats[i] = 1 + below(r, 2);
            out_sizes[i] *= n->repeats[i];
        }
    if (kind == 4)
        out_sizes[join_axis] *= 2;
    if (kind == 5)
        out_type = below(r, 4);
    if (kind == 6)
        for (uint32_t i = 0; i < rank; ++i) {
            n->start[i] = below(r, 4);
            n->end[i] = below(r, 3);
            out_sizes[i] += n->start[i] + n->end[i];
        }
    if (kind == 1)
        for (uint32_t i = 0; i < rank; ++i) {
            n->window[i] = 1 + below(r, sizes[i]);
            n->offsets[i] = below(r, sizes[i] - n->window[i] + 1);
            n->strides[i] = (int32_t)(1 + below(r, 2)) * (below(r, 2) ? -1 : 1);
            out_sizes[i] = 1 + (n->window[i] - 1) / (uint32_t)abs(n->strides[i]);
        }
    uint32_t gather_axis = below(r, rank), index_type = below(r, 4), picks = 1 + below(r, 4);
    if (kind == 10 || kind == 11) /* GATHER (IndexDimensions 1) and GATHER_ELEMENTS: picks on the axis */
        out_sizes[gather_axis] = picks;
    tensor_set(&n->out, TYPES[out_type], rank, out_sizes, NULL, TYPE_SIZES[out_type]);
    if (kind == 10 || kind == 11) {
        uint32_t idx_sizes[4];
        for (uint32_t i = 0; i < rank; ++i) /* GATHER: leading 1s, then the picks */
            idx_sizes[i] = kind == 11 ? out_sizes[i] : (i + 1 == rank ? picks : 1);
        tensor_set(&n->len, INDEX_TYPES[index_type], rank, idx_sizes, NULL, index_type < 2 ? 4 : 8);
        n->gather = (DML_GATHER_OPERATOR_DESC){ &n->in.desc, &n->len.desc, &n->out.desc, gather_axis, 1 };
        n->gather_elements = (DML_GATHER_ELEMENTS_OPERATOR_DESC){ &n->in.desc, &n->len.desc, &n->out.desc,
            gather_axis };
        n->od = kind == 10 ? (DML_OPERATOR_DESC){ DML_OPERATOR_GATHER, &n->gather }
                           : (DML_OPERATOR_DESC){ DML_OPERATOR_GATHER_ELEMENTS, &n->gather_elements };
        n->inputs = 2;
    } else if (kind == 12) { /* the source's bytes as the UINT8 condition: A or B (graph inputs) */
        uint32_t bytes = (uint32_t)n->in.buffer.TotalTensorSizeInBytes;
        tensor_set(&n->in, DML_TENSOR_DATA_TYPE_UINT8, 1, &bytes, NULL, 1);
        tensor_set(&n->len, TYPES[t], 1, &bytes, NULL, TYPE_SIZES[t]);
        tensor_set(&n->third, TYPES[t], 1, &bytes, NULL, TYPE_SIZES[t]);
        tensor_set(&n->out, TYPES[t], 1, &bytes, NULL, TYPE_SIZES[t]);
        n->select = (DML_ELEMENT_WISE_IF_OPERATOR_DESC){ &n->in.desc, &n->len.desc, &n->third.desc, &n->out.desc };
        n->od = (DML_OPERATOR_DESC){ DML_OPERATOR_ELEMENT_WISE_IF, &n->select };
        n->inputs = 3;
    } else if (kind == 0) {
        n->sb = (DML_SCALE_BIAS){ (float)below(r, 4) / 2, (float)below(r, 3) };
        n->id = (DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC){ &n->in.desc, &n->out.desc, t && below(r, 3) == 0 ? &n->sb : NULL };
        n->od = (DML_OPERATOR_DESC){ DML_OPERATOR_ELEMENT_WISE_IDENTITY, &n->id };
        n->inputs = 1;
    } else if (kind == 1) {
        n->s1 = (DML_SLICE1_OPERATOR_DESC){ &n->in.desc, &n->out.desc, rank, n->offsets, n->window, n->strides };
        n->od = (DML_OPERATOR_DESC){ DML_OPERATOR_SLICE1, &n->s1 };
        n->inputs = 1;
    } else if (kind == 3) {
        n->tile = (DML_TILE_OPERATOR_DESC){ &n->in.desc, &n->out.desc, rank, n->repeats };
        n->od = (DML_OPERATOR_DESC){ DML_OPERATOR_TILE, &n->tile };
        n->inputs = 1;
    } else if (kind == 5) {
        n->cast = (DML_CAST_OPERATOR_DESC){ &n->in.desc, &n->out.desc };
        n->od = (DML_OPERATOR_DESC){ DML_OPERATOR_CAST, &n->cast };
        n->inputs = 1;
    } else if (kind == 6) {
        n->padding = (DML_PADDING_OPERATOR_DESC){ &n->in.desc, &n->out.desc, (DML_PADDING_MODE)below(r, 4),
            (float)below(r, 5) - 2.5f, rank, n->start, n->end };
        n->od = (DML_OPERATOR_DESC){ DML_OPERATOR_PADDING, &n->padding };
        n->inputs = 1;
    } else if (kind == 7) {
        const DML_DEPTH_SPACE_ORDER order = (DML_DEPTH_SPACE_ORDER)below(r, 2);
        n->to_space = (DML_DEPTH_TO_SPACE1_OPERATOR_DESC){ &n->in.desc, &n->out.desc, 2, order };
        n->to_depth = (DML_SPACE_TO_DEPTH1_OPERATOR_DESC){ &n->in.desc, &n->out.desc, 2, order };
        n->od = to_space ? (DML_OPERATOR_DESC){ DML_OPERATOR_DEPTH_TO_SPACE1, &n->to_space }
                         : (DML_OPERATOR_DESC){ DML_OPERATOR_SPACE_TO_DEPTH1, &n->to_depth };
        n->inputs = 1;
    } else if (kind == 8) {
        uint32_t rest[4];
        memcpy(rest, sizes, sizeof rest);
        rest[join_axis] -= out_sizes[join_axis];
        const uint32_t parts = rest[join_axis] ? 2 : 1; /* an axis of 1: one part, a copy */
        if (parts == 2)
            tensor_set(&n->len, TYPES[t], rank, rest, NULL, TYPE_SIZES[t]);
        n->join_inputs[0] = n->out.desc;
        n->join_inputs[1] = n->len.desc;
        n->split = (DML_SPLIT_OPERATOR_DESC){ &n->in.desc, parts, n->join_inputs, join_axis };
        n->od = (DML_OPERATOR_DESC){ DML_OPERATOR_SPLIT, &n->split };
        n->inputs = 1;
    } else if (kind == 9) { /* no input: the source is not read */
        DML_SCALAR_UNION start, delta;
        for (int b = 0; b < 8; ++b) {
            start.Bytes[b] = u8(r);
            delta.Bytes[b] = u8(r);
        }
        n->fill_constant = (DML_FILL_VALUE_CONSTANT_OPERATOR_DESC){ &n->out.desc, TYPES[t], start };
        n->fill_sequence = (DML_FILL_VALUE_SEQUENCE_OPERATOR_DESC){ &n->out.desc, TYPES[t], start, delta };
        n->od = below(r, 2) ? (DML_OPERATOR_DESC){ DML_OPERATOR_FILL_VALUE_CONSTANT, &n->fill_constant }
                            : (DML_OPERATOR_DESC){ DML_OPERATOR_FILL_VALUE_SEQUENCE, &n->fill_sequence };
        n->inputs = 0;
    } else if (kind == 4) { /* the source joined with a packed graph input of its shape */
        tensor_set(&n->len, TYPES[t], rank, sizes, NULL, TYPE_SIZES[t]);
        n->join_inputs[0] = n->in.desc;
        n->join_inputs[1] = n->len.desc;
        n->join = (DML_JOIN_OPERATOR_DESC){ 2, n->join_inputs, &n->out.desc, join_axis };
        n->od = (DML_OPERATOR_DESC){ DML_OPERATOR_JOIN, &n->join };
        n->inputs = 2;
    } else {
        uint32_t axis = below(r, rank), len_sizes[4];
        memcpy(len_sizes, sizes, sizeof len_sizes);
        len_sizes[axis] = 1;
        tensor_set(&n->len, DML_TENSOR_DATA_TYPE_UINT32, rank, len_sizes, NULL, 4);
        n->rs = (DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC){ &n->in.desc, &n->len.desc, &n->out.desc, axis };
        n->od = (DML_OPERATOR_DESC){ DML_OPERATOR_REVERSE_SUBSEQUENCES, &n->rs };
        n->inputs = 2;
    }
}

static void decode(reader* r, fuzz_graph* g)
{
    memset(g, 0, sizeof *g);
    g->node_count = 1 + below(r, MAX_NODES);
    bool chaos = below(r, 8) == 7; /* edges from raw bytes */
    for (uint32_t k = 0; k < g->node_count; ++k) {
        node* n = &g->nodes[k];
        bool from_node = k > 0 && below(r, 4) != 0;
        uint32_t from = from_node ? below(r, k) : 0;
        make_node(r, n, from_node ? &g->nodes[from].out : NULL);
        for (uint32_t i = 0; i < n->inputs; ++i) {
            if (i == 0 && from_node && g->mid_n < MAX_EDGES) {
                g->mids[g->mid_n++] = (DML_INTERMEDIATE_GRAPH_EDGE_DESC){ from, 0, k, 0, NULL };
            } else if (g->in_n < MAX_EDGES) {
                uint32_t gi = g->input_count++;
                g->input_bytes[gi] = node_input(n, i)->buffer.TotalTensorSizeInBytes;
                g->ins[g->in_n++] = (DML_INPUT_GRAPH_EDGE_DESC){ gi, k, i, NULL };
            }
        }
    }
    for (uint32_t k = 0; k < g->node_count && g->out_n < MAX_EDGES; ++k)
        if (k + 1 == g->node_count || below(r, 3) == 0) {
            g->output_bytes[g->output_count] = g->nodes[k].out.buffer.TotalTensorSizeInBytes;
            g->outs[g->out_n++] = (DML_OUTPUT_GRAPH_EDGE_DESC){ k, 0, g->output_count++, NULL };
        }
    if (below(r, 4) == 0 && g->input_count < MAX_EDGES)
        g->input_bytes[g->input_count++] = 0; /* an unused graph input */
    if (chaos) /* break something: an index, a type, a count */
        for (uint32_t c = 1 + below(r, 3); c-- > 0;) {
            uint32_t what = below(r, 6), v = u8(r) % 12;
            if (what == 0 && g->in_n)
                g->ins[below(r, g->in_n)].ToNodeIndex = v;
            else if (what == 1 && g->mid_n)
                g->mids[below(r, g->mid_n)].FromNodeIndex = v;
            else if (what == 2 && g->mid_n)
                g->mids[below(r, g->mid_n)].ToNodeInputIndex = v % 3;
            else if (what == 3 && g->out_n)
                g->outs[below(r, g->out_n)].GraphOutputIndex = v;
            else if (what == 4 && g->in_n)
                g->ins[below(r, g->in_n)].GraphInputIndex = v;
            else if (g->mid_n)
                g->mids[below(r, g->mid_n)].ToNodeIndex = v; /* may close a cycle */
        }
    /* What each graph input must hold, from the edges as they ended up. */
    memset(g->input_bytes, 0, sizeof g->input_bytes);
    for (uint32_t e = 0; e < g->in_n; ++e) {
        const DML_INPUT_GRAPH_EDGE_DESC* in = &g->ins[e];
        if (in->GraphInputIndex >= g->input_count || in->ToNodeIndex >= g->node_count ||
            in->ToNodeInputIndex >= g->nodes[in->ToNodeIndex].inputs)
            continue;
        const node* n = &g->nodes[in->ToNodeIndex];
        uint64_t bytes = node_input(n, in->ToNodeInputIndex)->buffer.TotalTensorSizeInBytes;
        if (bytes > g->input_bytes[in->GraphInputIndex])
            g->input_bytes[in->GraphInputIndex] = bytes;
    }
    /* And each graph output: chaos may have renumbered them. */
    memset(g->output_bytes, 0, sizeof g->output_bytes);
    for (uint32_t e = 0; e < g->out_n; ++e) {
        const DML_OUTPUT_GRAPH_EDGE_DESC* out = &g->outs[e];
        if (out->GraphOutputIndex >= g->output_count || out->FromNodeIndex >= g->node_count)
            continue;
        uint64_t bytes = g->nodes[out->FromNodeIndex].out.buffer.TotalTensorSizeInBytes;
        if (bytes > g->output_bytes[out->GraphOutputIndex])
            g->output_bytes[out->GraphOutputIndex] = bytes;
    }
    for (uint32_t e = 0; e < g->in_n; ++e)
        g->ie[e] = (DML_GRAPH_EDGE_DESC){ DML_GRAPH_EDGE_TYPE_INPUT, &g->ins[e] };
    for (uint32_t e = 0; e < g->out_n; ++e)
        g->oe[e] = (DML_GRAPH_EDGE_DESC){ DML_GRAPH_EDGE_TYPE_OUTPUT, &g->outs[e] };
    for (uint32_t e = 0; e < g->mid_n; ++e)
        g->me[e] = (DML_GRAPH_EDGE_DESC){ DML_GRAPH_EDGE_TYPE_INTERMEDIATE, &g->mids[e] };
    if (chaos && below(r, 4) == 0 && g->mid_n)
        g->me[0].Type = (DML_GRAPH_EDGE_TYPE)below(r, 5);
}

typedef struct backend {
    const char* name;
    DMLDevice device;
    DMLCommandQueue queue;
    DMLCommandRecorder recorder;
} backend;

static backend g_backends[2] = { { "cpu", NULL, NULL, NULL }, { "cudaemu", NULL, NULL, NULL } };

static void open_backends(void)
{
    if (g_backends[0].device)
        return;
    for (int b = 0; b < 2; ++b) {
        DML_DEVICE_DESC dd = { sizeof(DML_DEVICE_DESC), g_backends[b].name, 0, DML_CREATE_DEVICE_FLAG_NONE,
            DML_FEATURE_LEVEL_5_0 };
        if (dmlCreateDevice(&dd, &g_backends[b].device) || dmlDeviceCreateCommandQueue(g_backends[b].device, NULL,
                &g_backends[b].queue) || dmlDeviceCreateCommandRecorder(g_backends[b].device, &g_backends[b].recorder))
            fail("opening a backend");
    }
}

static DMLBuffer buffer(backend* be, uint64_t size, uint8_t seed)
{
    DMLBuffer b = NULL;
    if (dmlDeviceCreateBuffer(be->device, size, &b))
        fail("dmlDeviceCreateBuffer");
    uint8_t* bytes = malloc(size);
    for (uint64_t i = 0; i < size; ++i)
        bytes[i] = seed ? (uint8_t)(i * 31 + seed) : 0;
    /* Lengths and data alike: small bytes keep sequence lengths interesting. */
    if (dmlCommandQueueWriteBuffer(be->queue, b, 0, bytes, size))
        fail("dmlCommandQueueWriteBuffer");
    free(bytes);
    return b;
}

/* Runs the compiled graph on one backend; returns its outputs concatenated. */
static uint8_t* run(backend* be, DMLCompiledOperator co, const fuzz_graph* g, uint64_t* total)
{
    DMLBindingTable table = NULL;
    DML_BINDING_TABLE_DESC td = { co };
    if (dmlDeviceCreateBindingTable(be->device, &td, &table))
        fail("dmlDeviceCreateBindingTable");
    DMLBuffer bufs[2 * MAX_EDGES + 1] = { NULL };
    DML_BUFFER_BINDING bb[MAX_EDGES];
    DML_BINDING_DESC bd[MAX_EDGES];
    for (uint32_t i = 0; i < g->input_count; ++i) {
        bufs[i] = g->input_bytes[i] ? buffer(be, g->input_bytes[i], (uint8_t)(i + 1)) : NULL;
        bb[i] = (DML_BUFFER_BINDING){ bufs[i], 0, g->input_bytes[i] };
        bd[i] = (DML_BINDING_DESC){ bufs[i] ? DML_BINDING_TYPE_BUFFER : DML_BINDING_TYPE_NONE, bufs[i] ? &bb[i] : NULL };
    }
    if (dmlBindingTableBindInputs(table, g->input_count, bd))
        fail("dmlBindingTableBindInputs");
    *total = 0;
    for (uint32_t o = 0; o < g->output_count; ++o) {
        bufs[MAX_EDGES + o] = buffer(be, g->output_bytes[o], 0);
        bb[o] = (DML_BUFFER_BINDING){ bufs[MAX_EDGES + o], 0, g->output_bytes[o] };
        bd[o] = (DML_BINDING_DESC){ DML_BINDING_TYPE_BUFFER, &bb[o] };
        *total += g->output_bytes[o];
    }
    if (dmlBindingTableBindOutputs(table, g->output_count, bd))
        fail("dmlBindingTableBindOutputs");
    DML_BINDING_PROPERTIES p = dmlDispatchableGetBindingProperties(co);
    DMLBuffer temporary = NULL;
    if (p.TemporaryResourceSize) {
        temporary = buffer(be, p.TemporaryResourceSize, 0);
        DML_BUFFER_BINDING tb = { temporary, 0, p.TemporaryResourceSize };
        DML_BINDING_DESC tdsc = { DML_BINDING_TYPE_BUFFER, &tb };
        if (dmlBindingTableBindTemporaryResource(table, &tdsc))
            fail("dmlBindingTableBindTemporaryResource");
    }
    if (p.PersistentResourceSize)
        fail("a graph without OWNED_BY_DML inputs reports a persistent resource");
    if (dmlCommandRecorderRecordDispatch(be->recorder, be->queue, co, table) || dmlCommandQueueSynchronize(be->queue))
        fail("dispatching an accepted graph");
    uint8_t* out = malloc(*total ? *total : 1);
    uint64_t at = 0;
    for (uint32_t o = 0; o < g->output_count; ++o) {
        if (dmlCommandQueueReadBuffer(be->queue, bufs[MAX_EDGES + o], 0, out + at, g->output_bytes[o]))
            fail("dmlCommandQueueReadBuffer");
        at += g->output_bytes[o];
    }
    for (uint32_t i = 0; i < 2 * MAX_EDGES + 1; ++i)
        dmlRelease(bufs[i]);
    dmlRelease(temporary);
    dmlRelease(table);
    return out;
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    open_backends();
    reader r = { data, size, 0 };
    fuzz_graph* g = calloc(1, sizeof *g);
    decode(&r, g);
    DML_RESULT results[2];
    uint8_t* outputs[2] = { NULL, NULL };
    uint64_t totals[2] = { 0, 0 };
    for (int b = 0; b < 2; ++b) {
        backend* be = &g_backends[b];
        for (uint32_t k = 0; k < g->node_count; ++k) {
            node* n = &g->nodes[k];
            if (dmlDeviceCreateOperator(be->device, &n->od, &n->op[b]))
                fail("a node's operator was rejected");
            g->onodes[b][k] = (DML_OPERATOR_GRAPH_NODE_DESC){ n->op[b], NULL };
            g->gnodes[b][k] = (DML_GRAPH_NODE_DESC){ DML_GRAPH_NODE_TYPE_OPERATOR, &g->onodes[b][k] };
        }
        DML_GRAPH_DESC gd = { g->input_count, g->output_count, g->node_count, g->gnodes[b], g->in_n, g->ie,
            g->out_n, g->oe, g->mid_n, g->me };
        DMLCompiledOperator co = (DMLCompiledOperator)(uintptr_t)0x1234;
        results[b] = dmlDeviceCompileGraph(be->device, &gd, DML_EXECUTION_FLAG_NONE, &co);
        if (results[b] != DML_S_OK) {
            if (results[b] != DML_E_INVALIDARG || !dmlGetLastErrorMessage()[0])
                fail("dmlDeviceCompileGraph failed with something other than DML_E_INVALIDARG and a message");
            if (co != (DMLCompiledOperator)(uintptr_t)0x1234)
                fail("a failed dmlDeviceCompileGraph changed its out handle");
        } else {
            outputs[b] = run(be, co, g, &totals[b]);
            dmlRelease(co);
        }
        for (uint32_t k = 0; k < g->node_count; ++k)
            dmlRelease(g->nodes[k].op[b]);
    }
    if (results[0] != results[1])
        fail("cpu and cudaemu disagree on whether the graph is valid");
    if (outputs[0])
        ++g_accepted;
    if (outputs[0] && (totals[0] != totals[1] || memcmp(outputs[0], outputs[1], totals[0]) != 0))
        fail("cpu and cudaemu outputs differ");
    free(outputs[0]);
    free(outputs[1]);
    free(g);
    return 0;
}

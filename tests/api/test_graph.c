/*
 * test_graph.c — dmlDeviceCompileGraph through the public API.
 *
 * differential: random graphs of 1 to 8 nodes (ELEMENT_WISE_IDENTITY with
 * permuted layouts, SLICE1 windows, REVERSE_SUBSEQUENCES) in chains and
 * fan-outs, graph outputs taken from the middle, unused graph inputs,
 * OWNED_BY_DML graph inputs, and edges that reinterpret the bytes (another
 * data type, element size, shape or strides). Each graph runs compiled (and
 * fused where exact) and node by node through the single-operator API; every
 * graph output must be equal byte for byte. The single-operator API is itself
 * checked against a naive reference by test_api_differential.
 *
 * validation: every rule of the graph desc with a failing case, each
 * DML_E_INVALIDARG naming the edge or node, leaving the out handle untouched.
 *
 * identity: ELEMENT_WISE_IDENTITY alone against a naive per-element copy.
 *
 * tile: TILE after a transpose fuses into one step, and an 8-dimensional
 * TILE runs as several plans, counted from what a DEBUG device says it
 * compiled; both against naive loops.
 */
#include "core/data_type.h"
#include "harness.h"
#include "reference.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static harness H;
static uint64_t g_seed = 0x6EA9F00Dull;

static void setup(void) { h_init(&H); }
static void teardown(void) { h_fini(&H); }


static uint32_t rbelow(rng* r, uint32_t n) { return (uint32_t)(rnext(r) % n); }
static int rchance(rng* r, unsigned percent) { return rbelow(r, 100) < percent; }

/* ---- tensors -------------------------------------------------------------- */

static uint64_t count_of(const h_tensor* t)
{
    uint64_t n = 1;
    for (uint32_t i = 0; i < t->buf.DimensionCount; ++i)
        n *= t->sizes[i];
    return n;
}

/* Packed strides of the sizes taken in a random order: a dense layout (every
 * byte of the tensor is an element), possibly transposed. */
static void dense_tensor(rng* r, h_tensor* t, DML_TENSOR_DATA_TYPE type, uint32_t rank, const uint32_t* sizes,
    int permute)
{
    uint32_t order[8], strides[8];
    for (uint32_t i = 0; i < rank; ++i)
        order[i] = i;
    if (permute)
        for (uint32_t i = rank; i > 1; --i) {
            uint32_t j = rbelow(r, i), k = order[i - 1];
            order[i - 1] = order[j];
            order[j] = k;
        }
    uint32_t stride = 1;
    for (uint32_t k = rank; k-- > 0;) { /* order[rank - 1] innermost */
        strides[order[k]] = stride;
        stride *= sizes[order[k]];
    }
    h_tensor_init(t, type, rank, sizes, permute ? strides : NULL);
}

static const DML_TENSOR_DATA_TYPE TYPES[] = { DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_FLOAT16,
    DML_TENSOR_DATA_TYPE_UINT32, DML_TENSOR_DATA_TYPE_UINT16, DML_TENSOR_DATA_TYPE_UINT8, DML_TENSOR_DATA_TYPE_INT32,
    DML_TENSOR_DATA_TYPE_INT16, DML_TENSOR_DATA_TYPE_INT8, DML_TENSOR_DATA_TYPE_FLOAT64, DML_TENSOR_DATA_TYPE_UINT64,
    DML_TENSOR_DATA_TYPE_INT64 };

static DML_TENSOR_DATA_TYPE type_of_size(rng* r, uint32_t size)
{
    for (;;) {
        DML_TENSOR_DATA_TYPE t = TYPES[rbelow(r, 11)];
        if (h_elem_size(t) == size)
            return t;
    }
}

/* sizes (rank 1..4) whose product is n */
static uint32_t factor(rng* r, uint64_t n, uint32_t* sizes)
{
    uint32_t rank = 1 + rbelow(r, 4);
    for (uint32_t i = 0; i + 1 < rank; ++i) {
        uint32_t f = 1;
        for (uint32_t tries = 0; tries < 8; ++tries) {
            uint32_t c = 1 + rbelow(r, 6);
            if (n % c == 0) {
                f = c;
                break;
            }
        }
        sizes[i] = f;
        n /= f;
    }
    sizes[rank - 1] = (uint32_t)n;
    return rank;
}

/* ---- random graphs -------------------------------------------------------- */

#define MAX_NODES 8
#define MAX_INPUTS (2 * MAX_NODES + 2)
#define MAX_OUTPUTS (MAX_NODES + 2)

enum { K_IDENTITY, K_SLICE1, K_REVERSE };
static const char* const KIND_NAMES[] = { "IDENTITY", "SLICE1", "REVERSE_SUBSEQUENCES" };

typedef struct gnode {
    int kind;
    h_tensor in, out, len;
    uint32_t offsets[8], window[8];
    int32_t strides[8];
    DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC id;
    DML_SCALE_BIAS scale_bias;
    DML_SLICE1_OPERATOR_DESC s1;
    DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC rs;
    DML_OPERATOR_DESC od;
    int from_node;      /* data input: a node (creation order), or -1 */
    uint32_t from_input; /* else this graph input */
    uint32_t len_input;  /* REVERSE: its lengths' graph input */
    uint32_t desc_index; /* position in DML_GRAPH_DESC.Nodes */
    int consumed;
    DMLOperator op;
} gnode;

typedef struct ginput {
    h_tensor t;  /* the tensor (data inputs; lengths use their node's) */
    const h_tensor* tensor;
    int used, owned;
    uint8_t* data;
} ginput;

typedef struct graph {
    uint32_t node_count, input_count, output_count;
    gnode nodes[MAX_NODES];
    ginput inputs[MAX_INPUTS];
    uint32_t output_node[MAX_OUTPUTS]; /* creation-order node of each graph output */
} graph;

static void describe_graph(FILE* f, const graph* g, uint64_t index)
{
    fprintf(f, "---- graph %" PRIu64 ", seed %" PRIu64 " (DML_TEST_SEED), backend %s: %u nodes, %u inputs, %u outputs\n",
        index, g_seed, h_backend(), g->node_count, g->input_count, g->output_count);
    for (uint32_t k = 0; k < g->node_count; ++k) {
        const gnode* n = &g->nodes[k];
        fprintf(f, " node %u (desc %u) %s from %s %d, in %s [", k, n->desc_index, KIND_NAMES[n->kind],
            n->from_node >= 0 ? "node" : "input", n->from_node >= 0 ? n->from_node : (int)n->from_input,
            h_type_name(n->in.buf.DataType));
        for (uint32_t i = 0; i < n->in.buf.DimensionCount; ++i)
            fprintf(f, " %u/%u", n->in.sizes[i], n->in.buf.Strides ? n->in.strides[i] : 0);
        fprintf(f, " ] out [");
        for (uint32_t i = 0; i < n->out.buf.DimensionCount; ++i)
            fprintf(f, " %u/%u", n->out.sizes[i], n->out.buf.Strides ? n->out.strides[i] : 0);
        fprintf(f, " ]\n");
    }
}

/* A node input reading `source` (same bytes): its copy, or a reinterpretation. */
static void input_view(rng* r, const h_tensor* source, h_tensor* in)
{
    uint64_t bytes = source->buf.TotalTensorSizeInBytes;
    uint32_t e = h_elem_size(source->buf.DataType);
    int dense = count_of(source) * e == bytes;
    if (!dense || rchance(r, 40)) {
        *in = *source;
        in->buf.Sizes = in->sizes;
        in->buf.Strides = source->buf.Strides ? in->strides : NULL;
        in->desc.Desc = &in->buf;
        in->buf.Flags = DML_TENSOR_FLAG_NONE;
        return;
    }
    uint32_t e2 = 1u << rbelow(r, 4);
    if (bytes % e2 || (bytes / e2) > UINT32_MAX)
        e2 = e;
    uint32_t sizes[8];
    uint32_t rank = factor(r, bytes / e2, sizes);
    dense_tensor(r, in, type_of_size(r, e2), rank, sizes, rchance(r, 30));
}

static void make_node(rng* r, graph* g, uint32_t k)
{
    gnode* n = &g->nodes[k];
    memset(n, 0, sizeof *n);
    n->from_node = -1;
    if (k > 0 && rchance(r, 75)) {
        n->from_node = (int)rbelow(r, k);
        g->nodes[n->from_node].consumed = 1;
        input_view(r, &g->nodes[n->from_node].out, &n->in);
    } else {
        uint32_t data_inputs[MAX_INPUTS], count = 0;
        for (uint32_t i = 0; i < g->input_count; ++i)
            if (g->inputs[i].tensor == &g->inputs[i].t)
                data_inputs[count++] = i;
        n->from_input = data_inputs[rbelow(r, count)];
        ginput* gi = &g->inputs[n->from_input];
        gi->used = 1;
        n->in = gi->t; /* graph inputs feed their own tensor (flags included) */
        n->in.buf.Sizes = n->in.sizes;
        n->in.buf.Strides = gi->t.buf.Strides ? n->in.strides : NULL;
        n->in.desc.Desc = &n->in.buf;
    }
    uint32_t rank = n->in.buf.DimensionCount;
    DML_TENSOR_DATA_TYPE type = n->in.buf.DataType;
    n->kind = (int)rbelow(r, 3);
    n->od.Desc = n->kind == K_IDENTITY ? (const void*)&n->id : n->kind == K_SLICE1 ? (const void*)&n->s1 : (const void*)&n->rs;
    n->od.Type = n->kind == K_IDENTITY ? DML_OPERATOR_ELEMENT_WISE_IDENTITY
        : n->kind == K_SLICE1          ? DML_OPERATOR_SLICE1
                                       : DML_OPERATOR_REVERSE_SUBSEQUENCES;
    uint32_t out_sizes[8];
    memcpy(out_sizes, n->in.sizes, sizeof out_sizes);
    if (n->kind == K_SLICE1) {
        for (uint32_t i = 0; i < rank; ++i) {
            uint32_t size = n->in.sizes[i];
            n->window[i] = 1 + rbelow(r, size);
            n->offsets[i] = rbelow(r, size - n->window[i] + 1);
            int32_t step = (int32_t)(1 + rbelow(r, rchance(r, 70) ? 1 : 3));
            n->strides[i] = rchance(r, 30) ? -step : step;
            out_sizes[i] = 1 + (n->window[i] - 1) / (uint32_t)step;
        }
        n->s1 = (DML_SLICE1_OPERATOR_DESC){ &n->in.desc, &n->out.desc, rank, n->offsets, n->window, n->strides };
    }
    dense_tensor(r, &n->out, type, rank, out_sizes, rchance(r, 40));
    if (n->kind == K_IDENTITY) {
        n->scale_bias = (DML_SCALE_BIAS){ 0.5f * (float)(1 + rbelow(r, 4)), (float)rbelow(r, 3) };
        n->id = (DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC){ &n->in.desc, &n->out.desc,
            dml_data_type_is_float(type) && rchance(r, 40) ? &n->scale_bias : NULL };
    }
    if (n->kind == K_REVERSE) {
        uint32_t axis = rbelow(r, rank), len_sizes[8];
        memcpy(len_sizes, n->in.sizes, sizeof len_sizes);
        len_sizes[axis] = 1;
        DML_TENSOR_DATA_TYPE lt = rchance(r, 50) ? DML_TENSOR_DATA_TYPE_UINT32 : DML_TENSOR_DATA_TYPE_UINT64;
        h_tensor_init(&n->len, lt, rank, len_sizes, NULL);
        n->rs = (DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC){ &n->in.desc, &n->len.desc, &n->out.desc, axis };
        ginput* li = &g->inputs[g->input_count];
        memset(li, 0, sizeof *li);
        li->tensor = &n->len;
        li->used = 1;
        n->len_input = g->input_count++;
        uint64_t count = count_of(&n->len);
        li->data = calloc(count, 8);
        for (uint64_t i = 0; i < count; ++i) {
            uint64_t v = rbelow(r, n->in.sizes[axis] + 3);
            if (lt == DML_TENSOR_DATA_TYPE_UINT32)
                ((uint32_t*)li->data)[i] = (uint32_t)v;
            else
                ((uint64_t*)li->data)[i] = v;
        }
    }
}

static void make_graph(rng* r, graph* g)
{
    memset(g, 0, sizeof *g);
    uint32_t data_inputs = 1 + rbelow(r, 2);
    for (uint32_t i = 0; i < data_inputs; ++i) {
        ginput* gi = &g->inputs[g->input_count++];
        uint32_t e = h_elem_size(TYPES[rbelow(r, 11)]);
        uint32_t sizes[8];
        uint32_t rank = factor(r, 8 * (1 + rbelow(r, 24)), sizes);
        dense_tensor(r, &gi->t, type_of_size(r, e), rank, sizes, rchance(r, 30));
        gi->owned = rchance(r, 15);
        if (gi->owned)
            gi->t.buf.Flags = DML_TENSOR_FLAG_OWNED_BY_DML;
        gi->tensor = &gi->t;
        uint64_t bytes = gi->t.buf.TotalTensorSizeInBytes;
        gi->data = malloc(bytes);
        for (uint64_t b = 0; b < bytes; ++b)
            gi->data[b] = (uint8_t)rnext(r);
    }
    g->node_count = 1 + rbelow(r, MAX_NODES);
    for (uint32_t k = 0; k < g->node_count; ++k)
        make_node(r, g, k);
    if (rchance(r, 50)) { /* an unused graph input */
        ginput* gi = &g->inputs[g->input_count++];
        uint32_t sizes[1] = { 4 };
        h_tensor_init(&gi->t, DML_TENSOR_DATA_TYPE_UINT32, 1, sizes, NULL);
        gi->tensor = &gi->t;
    }
    /* Graph outputs: every unconsumed node, and some from the middle. */
    for (uint32_t k = 0; k < g->node_count; ++k)
        if (!g->nodes[k].consumed || rchance(r, 25))
            g->output_node[g->output_count++] = k;
    /* Node order in the desc: shuffled (compilation sorts them). */
    uint32_t perm[MAX_NODES];
    for (uint32_t k = 0; k < g->node_count; ++k)
        perm[k] = k;
    for (uint32_t k = g->node_count; k > 1; --k) {
        uint32_t j = rbelow(r, k), t = perm[k - 1];
        perm[k - 1] = perm[j];
        perm[j] = t;
    }
    for (uint32_t k = 0; k < g->node_count; ++k)
        g->nodes[k].desc_index = perm[k];
}

static void free_graph(graph* g)
{
    for (uint32_t i = 0; i < g->input_count; ++i)
        free(g->inputs[i].data);
    for (uint32_t k = 0; k < g->node_count; ++k)
        dmlRelease(g->nodes[k].op);
}

static DMLBuffer buffer_with(uint64_t size, const void* data, uint8_t fill)
{
    DMLBuffer b = NULL;
    h_assert_ok(dmlDeviceCreateBuffer(H.device, size, &b));
    uint8_t* bytes = malloc(size);
    if (data)
        memcpy(bytes, data, size);
    else
        memset(bytes, fill, size);
    h_write(&H, b, 0, bytes, size);
    free(bytes);
    return b;
}

static DML_BINDING_DESC buffer_desc(DML_BUFFER_BINDING* b, DMLBuffer buffer, uint64_t size)
{
    *b = (DML_BUFFER_BINDING){ buffer, 0, size };
    return (DML_BINDING_DESC){ buffer ? DML_BINDING_TYPE_BUFFER : DML_BINDING_TYPE_NONE, buffer ? b : NULL };
}

/* Dispatches a compiled operator (initializer first when it has a persistent
 * resource). inputs[i] NULL: bound NONE. Owned inputs are clobbered after
 * initialization, so results can only come from the persistent copies. */
static void run_compiled(DMLCompiledOperator co, uint32_t input_count, DMLBuffer* inputs, const uint64_t* input_sizes,
    const int* owned, uint32_t output_count, DMLBuffer* outputs, const uint64_t* output_sizes)
{
    DML_BINDING_PROPERTIES p = dmlDispatchableGetBindingProperties(co);
    DMLBuffer persistent = NULL, temporary = NULL;
    DML_BUFFER_BINDING bb[MAX_INPUTS + MAX_OUTPUTS], pb, tb;
    DML_BINDING_DESC bd[MAX_INPUTS + MAX_OUTPUTS];
    if (p.PersistentResourceSize) {
        h_assert_ok(dmlDeviceCreateBuffer(H.device, p.PersistentResourceSize, &persistent));
        DMLOperatorInitializer init = NULL;
        DMLBindingTable it = NULL;
        h_assert_ok(dmlDeviceCreateOperatorInitializer(H.device, 1, &co, &init));
        DML_BINDING_TABLE_DESC td = { init };
        h_assert_ok(dmlDeviceCreateBindingTable(H.device, &td, &it));
        for (uint32_t i = 0; i < input_count; ++i)
            bb[i] = (DML_BUFFER_BINDING){ owned[i] ? inputs[i] : NULL, 0, owned[i] ? input_sizes[i] : 0 };
        DML_BUFFER_ARRAY_BINDING array = { input_count, bb };
        DML_BINDING_DESC one = { DML_BINDING_TYPE_BUFFER_ARRAY, &array };
        h_assert_ok(dmlBindingTableBindInputs(it, 1, &one));
        DML_BINDING_DESC pd = buffer_desc(&pb, persistent, p.PersistentResourceSize);
        h_assert_ok(dmlBindingTableBindOutputs(it, 1, &pd));
        h_assert_ok(dmlCommandRecorderRecordDispatch(H.recorder, H.queue, init, it));
        h_assert_ok(dmlCommandQueueSynchronize(H.queue));
        dmlRelease(it);
        dmlRelease(init);
        for (uint32_t i = 0; i < input_count; ++i)
            if (owned[i]) {
                uint8_t* junk = malloc(input_sizes[i]);
                memset(junk, 0xEE, input_sizes[i]);
                h_write(&H, inputs[i], 0, junk, input_sizes[i]);
                free(junk);
            }
    }
    DMLBindingTable table = NULL;
    DML_BINDING_TABLE_DESC td = { co };
    h_assert_ok(dmlDeviceCreateBindingTable(H.device, &td, &table));
    for (uint32_t i = 0; i < input_count; ++i)
        bd[i] = buffer_desc(&bb[i], owned[i] ? NULL : inputs[i], input_sizes[i]);
    h_assert_ok(dmlBindingTableBindInputs(table, input_count, bd));
    for (uint32_t o = 0; o < output_count; ++o)
        bd[o] = buffer_desc(&bb[o], outputs[o], output_sizes[o]);
    h_assert_ok(dmlBindingTableBindOutputs(table, output_count, bd));
    if (persistent) {
        DML_BINDING_DESC pd = buffer_desc(&pb, persistent, p.PersistentResourceSize);
        h_assert_ok(dmlBindingTableBindPersistentResource(table, &pd));
    }
    if (p.TemporaryResourceSize) {
        temporary = buffer_with(p.TemporaryResourceSize, NULL, 0x5A);
        DML_BINDING_DESC tdsc = buffer_desc(&tb, temporary, p.TemporaryResourceSize);
        h_assert_ok(dmlBindingTableBindTemporaryResource(table, &tdsc));
    }
    h_assert_ok(dmlCommandRecorderRecordDispatch(H.recorder, H.queue, co, table));
    h_assert_ok(dmlCommandQueueSynchronize(H.queue));
    dmlRelease(table);
    dmlRelease(persistent);
    dmlRelease(temporary);
}

/* Builds the DML_GRAPH_DESC of g (creating the node operators). */
typedef struct gdesc {
    DML_GRAPH_DESC desc;
    DML_GRAPH_NODE_DESC nodes[MAX_NODES];
    DML_OPERATOR_GRAPH_NODE_DESC op_nodes[MAX_NODES];
    DML_GRAPH_EDGE_DESC in_edges[2 * MAX_NODES], out_edges[MAX_OUTPUTS], mid_edges[MAX_NODES];
    DML_INPUT_GRAPH_EDGE_DESC ins[2 * MAX_NODES];
    DML_OUTPUT_GRAPH_EDGE_DESC outs[MAX_OUTPUTS];
    DML_INTERMEDIATE_GRAPH_EDGE_DESC mids[MAX_NODES];
} gdesc;

static void build_desc(graph* g, gdesc* d)
{
    memset(d, 0, sizeof *d);
    uint32_t ni = 0, nm = 0;
    for (uint32_t k = 0; k < g->node_count; ++k) {
        gnode* n = &g->nodes[k];
        h_assert_ok(dmlDeviceCreateOperator(H.device, &n->od, &n->op));
        d->op_nodes[n->desc_index] = (DML_OPERATOR_GRAPH_NODE_DESC){ n->op, KIND_NAMES[n->kind] };
        d->nodes[n->desc_index] = (DML_GRAPH_NODE_DESC){ DML_GRAPH_NODE_TYPE_OPERATOR, &d->op_nodes[n->desc_index] };
        if (n->from_node >= 0) {
            d->mids[nm] = (DML_INTERMEDIATE_GRAPH_EDGE_DESC){ g->nodes[n->from_node].desc_index, 0, n->desc_index, 0, NULL };
            d->mid_edges[nm] = (DML_GRAPH_EDGE_DESC){ DML_GRAPH_EDGE_TYPE_INTERMEDIATE, &d->mids[nm] };
            ++nm;
        } else {
            d->ins[ni] = (DML_INPUT_GRAPH_EDGE_DESC){ n->from_input, n->desc_index, 0, NULL };
            d->in_edges[ni] = (DML_GRAPH_EDGE_DESC){ DML_GRAPH_EDGE_TYPE_INPUT, &d->ins[ni] };
            ++ni;
        }
        if (n->kind == K_REVERSE) {
            d->ins[ni] = (DML_INPUT_GRAPH_EDGE_DESC){ n->len_input, n->desc_index, 1, NULL };
            d->in_edges[ni] = (DML_GRAPH_EDGE_DESC){ DML_GRAPH_EDGE_TYPE_INPUT, &d->ins[ni] };
            ++ni;
        }
    }
    for (uint32_t o = 0; o < g->output_count; ++o) {
        d->outs[o] = (DML_OUTPUT_GRAPH_EDGE_DESC){ g->nodes[g->output_node[o]].desc_index, 0, o, NULL };
        d->out_edges[o] = (DML_GRAPH_EDGE_DESC){ DML_GRAPH_EDGE_TYPE_OUTPUT, &d->outs[o] };
    }
    d->desc = (DML_GRAPH_DESC){ g->input_count, g->output_count, g->node_count, d->nodes, ni, d->in_edges,
        g->output_count, d->out_edges, nm, d->mid_edges };
}

static void run_case(uint64_t index)
{
    rng r = { g_seed ^ (index * 0x100000001B3ull) };
    rnext(&r);
    graph g;
    make_graph(&r, &g);
    gdesc d;
    build_desc(&g, &d);

    /* Fused: the compiled graph. */
    DMLCompiledOperator co = NULL;
    DML_RESULT res = dmlDeviceCompileGraph(H.device, &d.desc, DML_EXECUTION_FLAG_NONE, &co);
    if (res != DML_S_OK) {
        describe_graph(stderr, &g, index);
        ck_abort_msg("dmlDeviceCompileGraph failed: %s", dmlGetLastErrorMessage());
    }
    DMLBuffer inputs[MAX_INPUTS] = { NULL }, outputs[MAX_OUTPUTS] = { NULL };
    uint64_t input_sizes[MAX_INPUTS] = { 0 }, output_sizes[MAX_OUTPUTS] = { 0 };
    int owned[MAX_INPUTS] = { 0 };
    for (uint32_t i = 0; i < g.input_count; ++i) {
        if (!g.inputs[i].used)
            continue;
        input_sizes[i] = g.inputs[i].tensor->buf.TotalTensorSizeInBytes;
        inputs[i] = buffer_with(input_sizes[i], g.inputs[i].data, 0);
        owned[i] = g.inputs[i].owned;
    }
    for (uint32_t o = 0; o < g.output_count; ++o) {
        output_sizes[o] = g.nodes[g.output_node[o]].out.buf.TotalTensorSizeInBytes;
        outputs[o] = buffer_with(output_sizes[o], NULL, 0xCD);
    }
    run_compiled(co, g.input_count, inputs, input_sizes, owned, g.output_count, outputs, output_sizes);

    /* Node by node: each operator alone, intermediates through host memory. */
    uint8_t* results[MAX_NODES] = { NULL };
    for (uint32_t k = 0; k < g.node_count; ++k) {
        gnode* n = &g.nodes[k];
        DMLCompiledOperator single = NULL;
        h_assert_ok(dmlDeviceCompileOperator(H.device, n->op, DML_EXECUTION_FLAG_NONE, &single));
        const uint8_t* source = n->from_node >= 0 ? results[n->from_node] : g.inputs[n->from_input].data;
        DMLBuffer in[2] = { buffer_with(n->in.buf.TotalTensorSizeInBytes, source, 0), NULL };
        uint64_t in_sizes[2] = { n->in.buf.TotalTensorSizeInBytes, 0 };
        int in_owned[2] = { n->from_node < 0 && g.inputs[n->from_input].owned, 0 };
        if (n->kind == K_REVERSE) {
            in_sizes[1] = n->len.buf.TotalTensorSizeInBytes;
            in[1] = buffer_with(in_sizes[1], g.inputs[n->len_input].data, 0);
        }
        uint64_t out_size = n->out.buf.TotalTensorSizeInBytes;
        DMLBuffer out = buffer_with(out_size, NULL, 0xCD);
        run_compiled(single, n->kind == K_REVERSE ? 2 : 1, in, in_sizes, in_owned, 1, &out, &out_size);
        results[k] = malloc(out_size);
        h_read(&H, out, 0, results[k], out_size);
        dmlRelease(out);
        dmlRelease(in[0]);
        dmlRelease(in[1]);
        dmlRelease(single);
    }
    for (uint32_t o = 0; o < g.output_count; ++o) {
        uint8_t* got = malloc(output_sizes[o]);
        h_read(&H, outputs[o], 0, got, output_sizes[o]);
        int same = memcmp(got, results[g.output_node[o]], output_sizes[o]) == 0;
        if (!same) {
            describe_graph(stderr, &g, index);
            for (uint64_t b = 0; b < output_sizes[o]; ++b)
                if (got[b] != results[g.output_node[o]][b]) {
                    fprintf(stderr, " output %u (node %u) first differs at byte %" PRIu64 ": %02x, node by node %02x\n",
                        o, g.output_node[o], b, got[b], results[g.output_node[o]][b]);
                    break;
                }
        }
        free(got);
        ck_assert_msg(same, "graph %" PRIu64 ": output %u differs from the node-by-node run (seed %" PRIu64 ")",
            index, o, g_seed);
    }
    for (uint32_t k = 0; k < g.node_count; ++k)
        free(results[k]);
    for (uint32_t i = 0; i < g.input_count; ++i)
        dmlRelease(inputs[i]);
    for (uint32_t o = 0; o < g.output_count; ++o)
        dmlRelease(outputs[o]);
    dmlRelease(co);
    free_graph(&g);
}

static uint32_t case_count(void)
{
    const char* quick = getenv("DML_TEST_QUICK");
    return quick && *quick == '1' ? 40 : 400;
}

START_TEST(random_graphs)
{
    uint32_t n = case_count();
    for (uint32_t i = 0; i < n; ++i)
        run_case((uint64_t)_i * 100000 + i);
}
END_TEST

/* ---- a chain of three gathers fuses into one pass ------------------------- */

/* in (4 x 6 float32) -> IDENTITY transpose -> SLICE1 window -> REVERSE (all
 * lengths 3, on axis 1): checked against a naive composition of the three, and
 * with no temporary resource (nothing materialised). */
START_TEST(chain_of_three_fuses)
{
    uint32_t in_sizes[2] = { 4, 6 }, t_sizes[2] = { 6, 4 }, t_strides[2] = { 1, 6 }, s_sizes[2] = { 3, 4 };
    h_tensor in, mid0_out, mid0_in, mid1_out, mid1_in, lengths, out;
    h_tensor_init(&in, DML_TENSOR_DATA_TYPE_FLOAT32, 2, in_sizes, NULL);
    h_tensor_init(&mid0_out, DML_TENSOR_DATA_TYPE_FLOAT32, 2, t_sizes, NULL);
    h_tensor_init(&mid0_in, DML_TENSOR_DATA_TYPE_FLOAT32, 2, t_sizes, NULL);
    /* The identity reads the input transposed: in[j][i] at (i, j). */
    h_tensor transposed;
    h_tensor_init(&transposed, DML_TENSOR_DATA_TYPE_FLOAT32, 2, t_sizes, t_strides);
    h_tensor_init(&mid1_out, DML_TENSOR_DATA_TYPE_FLOAT32, 2, s_sizes, NULL);
    h_tensor_init(&mid1_in, DML_TENSOR_DATA_TYPE_FLOAT32, 2, s_sizes, NULL);
    uint32_t l_sizes[2] = { 3, 1 };
    h_tensor_init(&lengths, DML_TENSOR_DATA_TYPE_UINT32, 2, l_sizes, NULL);
    h_tensor_init(&out, DML_TENSOR_DATA_TYPE_FLOAT32, 2, s_sizes, NULL);

    DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC id = { &transposed.desc, &mid0_out.desc, NULL };
    uint32_t offsets[2] = { 1, 0 }, window[2] = { 5, 4 };
    int32_t strides[2] = { 2, 1 }; /* rows 1, 3, 5 of the transpose */
    DML_SLICE1_OPERATOR_DESC s1 = { &mid0_in.desc, &mid1_out.desc, 2, offsets, window, strides };
    DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC rs = { &mid1_in.desc, &lengths.desc, &out.desc, 1 };
    DML_OPERATOR_DESC ods[3] = { { DML_OPERATOR_ELEMENT_WISE_IDENTITY, &id }, { DML_OPERATOR_SLICE1, &s1 },
        { DML_OPERATOR_REVERSE_SUBSEQUENCES, &rs } };
    DMLOperator ops[3];
    for (int k = 0; k < 3; ++k)
        h_assert_ok(dmlDeviceCreateOperator(H.device, &ods[k], &ops[k]));
    DML_OPERATOR_GRAPH_NODE_DESC on[3] = { { ops[0], "transpose" }, { ops[1], "slice" }, { ops[2], "reverse" } };
    DML_GRAPH_NODE_DESC nodes[3] = { { DML_GRAPH_NODE_TYPE_OPERATOR, &on[0] }, { DML_GRAPH_NODE_TYPE_OPERATOR, &on[1] },
        { DML_GRAPH_NODE_TYPE_OPERATOR, &on[2] } };
    DML_INPUT_GRAPH_EDGE_DESC i0 = { 0, 0, 0, NULL }, i1 = { 1, 2, 1, NULL };
    DML_INTERMEDIATE_GRAPH_EDGE_DESC m0 = { 0, 0, 1, 0, NULL }, m1 = { 1, 0, 2, 0, NULL };
    DML_OUTPUT_GRAPH_EDGE_DESC o0 = { 2, 0, 0, NULL };
    DML_GRAPH_EDGE_DESC ie[2] = { { DML_GRAPH_EDGE_TYPE_INPUT, &i0 }, { DML_GRAPH_EDGE_TYPE_INPUT, &i1 } };
    DML_GRAPH_EDGE_DESC me[2] = { { DML_GRAPH_EDGE_TYPE_INTERMEDIATE, &m0 }, { DML_GRAPH_EDGE_TYPE_INTERMEDIATE, &m1 } };
    DML_GRAPH_EDGE_DESC oe[1] = { { DML_GRAPH_EDGE_TYPE_OUTPUT, &o0 } };
    DML_GRAPH_DESC gd = { 2, 1, 3, nodes, 2, ie, 1, oe, 2, me };
    DMLCompiledOperator co = NULL;
    h_assert_ok(dmlDeviceCompileGraph(H.device, &gd, DML_EXECUTION_FLAG_NONE, &co));
    for (int k = 0; k < 3; ++k)
        dmlRelease(ops[k]); /* the compiled graph does not need them */
    DML_BINDING_PROPERTIES p = dmlDispatchableGetBindingProperties(co);
    ck_assert_uint_eq(p.TemporaryResourceSize, 0);
    ck_assert_uint_eq(p.PersistentResourceSize, 0);

    float x[24], y[12], expect[12];
    for (int i = 0; i < 24; ++i)
        x[i] = (float)(i + 1);
    uint32_t lens[3] = { 3, 0, 9 }; /* 9 clamps to 4 */
    /* Naive: t[i][j] = x[j][i] (6 x 4); s[r][j] = t[1 + 2r][j]; out[r][j] = s[r][j < L ? L-1-j : j]. */
    for (int r = 0; r < 3; ++r) {
        uint32_t L = lens[r] < 4 ? lens[r] : 4;
        for (uint32_t j = 0; j < 4; ++j) {
            uint32_t jj = j < L ? L - 1 - j : j;
            expect[r * 4 + j] = x[jj * 6 + (1 + 2 * r)];
        }
    }
    DMLBuffer bi = buffer_with(sizeof x, x, 0), bl = buffer_with(sizeof lens, lens, 0), bo = buffer_with(sizeof y, NULL, 0);
    DMLBuffer ins[2] = { bi, bl }, outs[1] = { bo };
    uint64_t input_bytes[2] = { sizeof x, sizeof lens }, out_sizes[1] = { sizeof y };
    int owned[2] = { 0, 0 };
    run_compiled(co, 2, ins, input_bytes, owned, 1, outs, out_sizes);
    h_read(&H, bo, 0, y, sizeof y);
    ck_assert_mem_eq(y, expect, sizeof y);
    dmlRelease(bi);
    dmlRelease(bl);
    dmlRelease(bo);
    dmlRelease(co);
}
END_TEST

/* ---- ELEMENT_WISE_IDENTITY alone ------------------------------------------ */

START_TEST(identity_transpose_and_broadcast)
{
    /* out (3 x 4, packed) = in viewed with strides {1, 3} (a transpose of 4 x 3),
     * then a broadcast: in2 sizes 3 x 4 with strides {1, 0}. Reference: direct loops. */
    uint32_t sizes[2] = { 3, 4 }, tr[2] = { 1, 3 }, bc[2] = { 1, 0 };
    for (int variant = 0; variant < 2; ++variant) {
        h_tensor in, out;
        h_tensor_init(&in, DML_TENSOR_DATA_TYPE_INT16, 2, sizes, variant ? bc : tr);
        h_tensor_init(&out, DML_TENSOR_DATA_TYPE_INT16, 2, sizes, NULL);
        DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC id = { &in.desc, &out.desc, NULL };
        DML_OPERATOR_DESC od = { DML_OPERATOR_ELEMENT_WISE_IDENTITY, &id };
        int16_t x[12], y[12], expect[12];
        for (int i = 0; i < 12; ++i)
            x[i] = (int16_t)(100 + i);
        for (uint32_t r = 0; r < 3; ++r)
            for (uint32_t c = 0; c < 4; ++c)
                expect[r * 4 + c] = x[variant ? r : r + 3 * c];
        uint64_t in_bytes = in.buf.TotalTensorSizeInBytes;
        DMLBuffer bi = buffer_with(in_bytes < sizeof x ? sizeof x : in_bytes, x, 0), bo = buffer_with(sizeof y, NULL, 0);
        h_bind ib = { bi, 0, in_bytes, 0 }, ob = { bo, 0, sizeof y, 0 };
        h_assert_ok(run_operator(&H, &od, DML_EXECUTION_FLAG_NONE, 1, &ib, &ob, y, sizeof y));
        ck_assert_mem_eq(y, expect, sizeof y);
        dmlRelease(bi);
        dmlRelease(bo);
    }
}
END_TEST

/* float16 bits -> double, from the format's definition. */
static double half_value(uint16_t h)
{
    int exponent = (h >> 10) & 0x1F, mantissa = h & 0x3FF;
    double v = exponent == 0 ? ldexp(mantissa, -24) : exponent == 31 ? (mantissa ? NAN : INFINITY)
                                                                     : ldexp(1024 + mantissa, exponent - 25);
    return (h & 0x8000) ? -v : v;
}

/* The float16 nearest to v (ties to the even pattern), by search over every finite half. */
static uint16_t nearest_half(double v)
{
    if (isnan(v))
        return 0x7E00;
    if (fabs(v) >= 65520.0)
        return v < 0 ? 0xFC00 : 0x7C00;
    uint16_t best = 0;
    double best_error = INFINITY;
    for (uint32_t h = 0; h < 0x10000; ++h) {
        if (((h >> 10) & 0x1F) == 31)
            continue;
        double e = fabs(half_value((uint16_t)h) - v);
        if (e < best_error || (e == best_error && !(h & 1) && (best & 1))) {
            best = (uint16_t)h;
            best_error = e;
        }
    }
    if (v == 0 && signbit(v))
        best = 0x8000;
    return best;
}

/* ScaleBias on FLOAT32, FLOAT16 (computed in float32, rounded once to
 * nearest even) and FLOAT64, read through a transposed view, against a
 * naive per-element reference. */
START_TEST(identity_scale_bias)
{
    static const DML_TENSOR_DATA_TYPE types[3] = { DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_FLOAT16,
        DML_TENSOR_DATA_TYPE_FLOAT64 };
    rng r = { 42 };
    uint32_t sizes[2] = { 16, 24 }, transposed[2] = { 1, 16 };
    for (int t = 0; t < 3; ++t) {
        uint32_t e = h_elem_size(types[t]);
        h_tensor in, out;
        h_tensor_init(&in, types[t], 2, sizes, transposed);
        h_tensor_init(&out, types[t], 2, sizes, NULL);
        DML_SCALE_BIAS sb = { 1.0f / 3.0f, -0.125f };
        DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC id = { &in.desc, &out.desc, &sb };
        DML_OPERATOR_DESC od = { DML_OPERATOR_ELEMENT_WISE_IDENTITY, &id };
        uint8_t x[384 * 8], y[384 * 8], expect[384 * 8];
        for (int i = 0; i < 384; ++i) {
            uint64_t bits = rnext(&r);
            if (types[t] == DML_TENSOR_DATA_TYPE_FLOAT16) {
                uint16_t h = (uint16_t)bits;
                if (i < 8) /* specials: zeros, subnormals, the largest finite, infinity, NaN */
                    h = (uint16_t[]){ 0x0000, 0x8000, 0x0001, 0x03FF, 0x7BFF, 0x7C00, 0xFC00, 0x7E00 }[i];
                memcpy(x + i * 2, &h, 2);
            } else if (types[t] == DML_TENSOR_DATA_TYPE_FLOAT32) {
                float f = (float)((int64_t)(bits % 2000001) - 1000000) / 1024.0f;
                memcpy(x + i * 4, &f, 4);
            } else {
                double d = (double)((int64_t)(bits % 2000001) - 1000000) / 3.0;
                memcpy(x + i * 8, &d, 8);
            }
        }
        for (uint32_t row = 0; row < 16; ++row)
            for (uint32_t col = 0; col < 24; ++col) {
                uint32_t src = row + 16 * col, dst = row * 24 + col;
                if (types[t] == DML_TENSOR_DATA_TYPE_FLOAT32) {
                    float v;
                    memcpy(&v, x + src * 4, 4);
                    v = fmaf(v, sb.Scale, sb.Bias);
                    memcpy(expect + dst * 4, &v, 4);
                } else if (types[t] == DML_TENSOR_DATA_TYPE_FLOAT16) {
                    uint16_t h;
                    memcpy(&h, x + src * 2, 2);
                    float v = fmaf((float)half_value(h), sb.Scale, sb.Bias);
                    h = nearest_half((double)v);
                    memcpy(expect + dst * 2, &h, 2);
                } else {
                    double v;
                    memcpy(&v, x + src * 8, 8);
                    v = fma(v, (double)sb.Scale, (double)sb.Bias);
                    memcpy(expect + dst * 8, &v, 8);
                }
            }
        uint64_t bytes = 384 * e;
        DMLBuffer bi = buffer_with(bytes, x, 0), bo = buffer_with(bytes, NULL, 0);
        h_bind ib = { bi, 0, bytes, 0 }, ob = { bo, 0, bytes, 0 };
        h_assert_ok(run_operator(&H, &od, DML_EXECUTION_FLAG_NONE, 1, &ib, &ob, y, bytes));
        for (uint32_t i = 0; i < 384; ++i) {
            if (types[t] == DML_TENSOR_DATA_TYPE_FLOAT16) {
                uint16_t a, b;
                memcpy(&a, y + i * 2, 2);
                memcpy(&b, expect + i * 2, 2);
                int both_nan = isnan(half_value(a)) && isnan(half_value(b));
                ck_assert_msg(a == b || both_nan, "float16 element %u: got 0x%04x, expected 0x%04x", i, a, b);
            } else {
                ck_assert_msg(memcmp(y + i * e, expect + i * e, e) == 0, "%s element %u differs",
                    h_type_name(types[t]), i);
            }
        }
        dmlRelease(bi);
        dmlRelease(bo);
    }
}
END_TEST

START_TEST(identity_validation)
{
    uint32_t sizes[2] = { 3, 4 }, other[2] = { 4, 3 };
    h_tensor in, out, wrong_shape, wrong_type;
    h_tensor_init(&in, DML_TENSOR_DATA_TYPE_INT32, 2, sizes, NULL);
    h_tensor_init(&out, DML_TENSOR_DATA_TYPE_INT32, 2, sizes, NULL);
    h_tensor_init(&wrong_shape, DML_TENSOR_DATA_TYPE_INT32, 2, other, NULL);
    h_tensor_init(&wrong_type, DML_TENSOR_DATA_TYPE_FLOAT32, 2, sizes, NULL);
    DML_SCALE_BIAS sb = { 2.0f, 1.0f };
    struct {
        DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC d;
        const char* field;
    } cases[] = {
        { { &in.desc, &wrong_shape.desc, NULL }, "Sizes" },
        { { &in.desc, &wrong_type.desc, NULL }, "DataType" },
        { { NULL, &out.desc, NULL }, "InputTensor" },
        { { &in.desc, NULL, NULL }, "OutputTensor" },
        { { &in.desc, &out.desc, &sb }, "ScaleBias" }, /* INT32 */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        DML_OPERATOR_DESC od = { DML_OPERATOR_ELEMENT_WISE_IDENTITY, &cases[i].d };
        DMLOperator op = (DMLOperator)(uintptr_t)0x1234;
        DML_RESULT r = dmlDeviceCreateOperator(H.device, &od, &op);
        ck_assert_msg(r == DML_E_INVALIDARG, "case %zu: %s: %s", i, h_result_name(r), dmlGetLastErrorMessage());
        ck_assert_ptr_eq(op, (DMLOperator)(uintptr_t)0x1234);
        ck_assert_msg(strstr(dmlGetLastErrorMessage(), cases[i].field), "case %zu: message '%s' lacks '%s'", i,
            dmlGetLastErrorMessage(), cases[i].field);
    }
}
END_TEST

/* ---- validation ------------------------------------------------------------- */

/* A valid two-node chain (IDENTITY -> IDENTITY over 16 floats) to break one rule at a time. */
typedef struct vgraph {
    h_tensor a, b, c, bytes;
    DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC id0, id1;
    DML_OPERATOR_DESC od0, od1;
    DMLOperator ops[2];
    DML_OPERATOR_GRAPH_NODE_DESC on[2];
    DML_GRAPH_NODE_DESC nodes[2];
    DML_INPUT_GRAPH_EDGE_DESC in[2];
    DML_INTERMEDIATE_GRAPH_EDGE_DESC mid[2];
    DML_OUTPUT_GRAPH_EDGE_DESC out[2];
    DML_GRAPH_EDGE_DESC ie[2], me[2], oe[2];
    DML_GRAPH_DESC desc;
} vgraph;

static void vgraph_init(vgraph* v, int owned_second_input)
{
    memset(v, 0, sizeof *v);
    uint32_t sizes[1] = { 16 };
    h_tensor_init(&v->a, DML_TENSOR_DATA_TYPE_FLOAT32, 1, sizes, NULL);
    h_tensor_init(&v->b, DML_TENSOR_DATA_TYPE_FLOAT32, 1, sizes, NULL);
    if (owned_second_input)
        v->b.buf.Flags = DML_TENSOR_FLAG_OWNED_BY_DML;
    h_tensor_init(&v->c, DML_TENSOR_DATA_TYPE_FLOAT32, 1, sizes, NULL);
    v->id0 = (DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC){ &v->a.desc, &v->c.desc, NULL };
    v->id1 = (DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC){ &v->b.desc, &v->c.desc, NULL };
    v->od0 = (DML_OPERATOR_DESC){ DML_OPERATOR_ELEMENT_WISE_IDENTITY, &v->id0 };
    v->od1 = (DML_OPERATOR_DESC){ DML_OPERATOR_ELEMENT_WISE_IDENTITY, &v->id1 };
    h_assert_ok(dmlDeviceCreateOperator(H.device, &v->od0, &v->ops[0]));
    h_assert_ok(dmlDeviceCreateOperator(H.device, &v->od1, &v->ops[1]));
    for (int k = 0; k < 2; ++k) {
        v->on[k] = (DML_OPERATOR_GRAPH_NODE_DESC){ v->ops[k], k ? "second" : "first" };
        v->nodes[k] = (DML_GRAPH_NODE_DESC){ DML_GRAPH_NODE_TYPE_OPERATOR, &v->on[k] };
        v->ie[k] = (DML_GRAPH_EDGE_DESC){ DML_GRAPH_EDGE_TYPE_INPUT, &v->in[k] };
        v->me[k] = (DML_GRAPH_EDGE_DESC){ DML_GRAPH_EDGE_TYPE_INTERMEDIATE, &v->mid[k] };
        v->oe[k] = (DML_GRAPH_EDGE_DESC){ DML_GRAPH_EDGE_TYPE_OUTPUT, &v->out[k] };
    }
    v->in[0] = (DML_INPUT_GRAPH_EDGE_DESC){ 0, 0, 0, NULL };
    v->mid[0] = (DML_INTERMEDIATE_GRAPH_EDGE_DESC){ 0, 0, 1, 0, NULL };
    v->out[0] = (DML_OUTPUT_GRAPH_EDGE_DESC){ 1, 0, 0, NULL };
    v->desc = (DML_GRAPH_DESC){ 1, 1, 2, v->nodes, 1, v->ie, 1, v->oe, 1, v->me };
}

static void vgraph_fini(vgraph* v)
{
    dmlRelease(v->ops[0]);
    dmlRelease(v->ops[1]);
}

static void expect_graph(const DML_GRAPH_DESC* desc, DML_RESULT expected, const char* needle, const char* what)
{
    DMLCompiledOperator co = (DMLCompiledOperator)(uintptr_t)0x1234;
    DML_RESULT r = dmlDeviceCompileGraph(H.device, desc, DML_EXECUTION_FLAG_NONE, &co);
    if (r == DML_S_OK && co != (DMLCompiledOperator)(uintptr_t)0x1234)
        dmlRelease(co);
    ck_assert_msg(r == expected, "%s: dmlDeviceCompileGraph returned %s, expected %s (%s)", what, h_result_name(r),
        h_result_name(expected), dmlGetLastErrorMessage());
    if (expected != DML_S_OK) {
        ck_assert_ptr_eq(co, (DMLCompiledOperator)(uintptr_t)0x1234);
        ck_assert_msg(strstr(dmlGetLastErrorMessage(), needle), "%s: message '%s' lacks '%s'", what,
            dmlGetLastErrorMessage(), needle);
    }
}

START_TEST(graph_validation)
{
    vgraph v;
    vgraph_init(&v, 0);
    expect_graph(&v.desc, DML_S_OK, NULL, "the valid graph");

    DML_GRAPH_DESC d = v.desc;
    expect_graph(NULL, DML_E_INVALIDARG, "desc is NULL", "NULL desc");
    d.NodeCount = 0;
    expect_graph(&d, DML_E_INVALIDARG, "NodeCount", "no nodes");
    d = v.desc;
    d.OutputCount = 0;
    expect_graph(&d, DML_E_INVALIDARG, "OutputCount", "no outputs");
    d = v.desc;
    d.InputCount = 65537; /* read before any array: the cap keeps allocations bounded */
    expect_graph(&d, DML_E_INVALIDARG, "limited to 65536", "too many inputs");
    d = v.desc;
    d.IntermediateEdgeCount = 0x80000000u;
    expect_graph(&d, DML_E_INVALIDARG, "IntermediateEdgeCount = 2147483648", "too many edges");

    /* Indices in range. */
    v.in[0].GraphInputIndex = 1;
    expect_graph(&v.desc, DML_E_INVALIDARG, "InputEdges[0].GraphInputIndex = 1", "input index");
    v.in[0].GraphInputIndex = 0;
    v.in[0].ToNodeIndex = 2;
    expect_graph(&v.desc, DML_E_INVALIDARG, "InputEdges[0].ToNodeIndex = 2", "input edge node index");
    v.in[0].ToNodeIndex = 0;
    v.in[0].ToNodeInputIndex = 1;
    expect_graph(&v.desc, DML_E_INVALIDARG, "InputEdges[0].ToNodeInputIndex = 1", "node input index");
    v.in[0].ToNodeInputIndex = 0;
    v.mid[0].FromNodeIndex = 5;
    expect_graph(&v.desc, DML_E_INVALIDARG, "IntermediateEdges[0].FromNodeIndex = 5", "intermediate from");
    v.mid[0].FromNodeIndex = 0;
    v.mid[0].FromNodeOutputIndex = 1;
    expect_graph(&v.desc, DML_E_INVALIDARG, "FromNodeOutputIndex = 1", "node output index");
    v.mid[0].FromNodeOutputIndex = 0;
    v.out[0].GraphOutputIndex = 1;
    expect_graph(&v.desc, DML_E_INVALIDARG, "OutputEdges[0].GraphOutputIndex = 1", "output index");
    v.out[0].GraphOutputIndex = 0;

    /* Edge and node types, NULL descs. */
    v.ie[0].Type = DML_GRAPH_EDGE_TYPE_OUTPUT;
    expect_graph(&v.desc, DML_E_INVALIDARG, "InputEdges[0].Type", "input edge type");
    v.ie[0].Type = DML_GRAPH_EDGE_TYPE_INPUT;
    v.me[0].Desc = NULL;
    expect_graph(&v.desc, DML_E_INVALIDARG, "IntermediateEdges[0].Desc is NULL", "edge desc");
    v.me[0].Desc = &v.mid[0];
    v.nodes[1].Type = DML_GRAPH_NODE_TYPE_INVALID;
    expect_graph(&v.desc, DML_E_INVALIDARG, "Nodes[1].Type", "node type");
    v.nodes[1].Type = DML_GRAPH_NODE_TYPE_OPERATOR;
    v.on[1].Operator = NULL;
    expect_graph(&v.desc, DML_E_INVALIDARG, "Nodes[1].Operator", "node operator");
    v.on[1].Operator = v.ops[1];

    /* Every node input exactly once. */
    d = v.desc;
    d.IntermediateEdgeCount = 0;
    expect_graph(&d, DML_E_INVALIDARG, "input 0 of Nodes[1] 'second'", "unconnected node input");
    v.in[1] = (DML_INPUT_GRAPH_EDGE_DESC){ 0, 1, 0, NULL };
    d = v.desc;
    d.InputEdgeCount = 2;
    expect_graph(&d, DML_E_INVALIDARG, "already connects", "node input connected twice");

    /* Every graph output exactly once. */
    d = v.desc;
    d.OutputCount = 2;
    expect_graph(&d, DML_E_INVALIDARG, "graph output 1 has no edge", "graph output unconnected");
    v.out[1] = (DML_OUTPUT_GRAPH_EDGE_DESC){ 0, 0, 0, NULL };
    d = v.desc;
    d.OutputEdgeCount = 2;
    expect_graph(&d, DML_E_INVALIDARG, "graph output 0, which another edge already connects", "graph output twice");

    /* Cycles: 0 -> 1 -> 0, fed by nothing else. */
    v.mid[1] = (DML_INTERMEDIATE_GRAPH_EDGE_DESC){ 1, 0, 0, 0, NULL };
    d = v.desc;
    d.InputEdgeCount = 0;
    d.IntermediateEdgeCount = 2;
    expect_graph(&d, DML_E_INVALIDARG, "cycle", "cycle");
    v.mid[1] = (DML_INTERMEDIATE_GRAPH_EDGE_DESC){ 1, 0, 1, 0, NULL }; /* a self-loop on node 1 */
    d = v.desc;
    d.IntermediateEdges = &v.me[1];
    expect_graph(&d, DML_E_INVALIDARG, "cycle", "self-loop");

    /* Unused graph inputs are legal. */
    d = v.desc;
    d.InputCount = 3;
    expect_graph(&d, DML_S_OK, NULL, "unused graph inputs");
    vgraph_fini(&v);

    /* An edge's tensors must have equal TotalTensorSizeInBytes. */
    vgraph_init(&v, 0);
    uint32_t small[1] = { 8 };
    h_tensor_init(&v.b, DML_TENSOR_DATA_TYPE_FLOAT32, 1, small, NULL);
    h_tensor out8;
    h_tensor_init(&out8, DML_TENSOR_DATA_TYPE_FLOAT32, 1, small, NULL);
    v.id1.OutputTensor = &out8.desc;
    dmlRelease(v.ops[1]);
    h_assert_ok(dmlDeviceCreateOperator(H.device, &v.od1, &v.ops[1]));
    v.on[1].Operator = v.ops[1];
    expect_graph(&v.desc, DML_E_INVALIDARG, "TotalTensorSizeInBytes", "edge size mismatch");
    /* ... while a reinterpretation with the same bytes is legal (16 float32 as 64 uint8). */
    uint32_t bytes[1] = { 64 };
    h_tensor_init(&v.b, DML_TENSOR_DATA_TYPE_UINT8, 1, bytes, NULL);
    h_tensor out64;
    h_tensor_init(&out64, DML_TENSOR_DATA_TYPE_UINT8, 1, bytes, NULL);
    v.id1.OutputTensor = &out64.desc;
    dmlRelease(v.ops[1]);
    h_assert_ok(dmlDeviceCreateOperator(H.device, &v.od1, &v.ops[1]));
    v.on[1].Operator = v.ops[1];
    expect_graph(&v.desc, DML_S_OK, NULL, "reinterpreting edge");
    vgraph_fini(&v);

    /* OWNED_BY_DML only on tensors fed by graph inputs. */
    vgraph_init(&v, 1);
    expect_graph(&v.desc, DML_E_INVALIDARG, "OWNED_BY_DML", "owned intermediate");
    vgraph_fini(&v);
}
END_TEST

/* A graph whose intermediate cannot fuse (a reinterpreting edge to another
 * element size) needs a temporary resource; dispatching without one fails
 * with DML_E_INVALID_CALL and writes nothing; with it, the result is right. */
START_TEST(graph_temporary_resource)
{
    vgraph v;
    vgraph_init(&v, 0);
    uint32_t bytes[1] = { 64 };
    h_tensor_init(&v.b, DML_TENSOR_DATA_TYPE_UINT8, 1, bytes, NULL);
    h_tensor out64;
    uint32_t rsizes[2] = { 16, 4 }, rstrides[2] = { 1, 16 }; /* a transpose of the bytes */
    h_tensor_init(&out64, DML_TENSOR_DATA_TYPE_UINT8, 2, rsizes, rstrides);
    h_tensor in2;
    h_tensor_init(&in2, DML_TENSOR_DATA_TYPE_UINT8, 2, rsizes, NULL);
    v.id1 = (DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC){ &in2.desc, &out64.desc, NULL };
    dmlRelease(v.ops[1]);
    h_assert_ok(dmlDeviceCreateOperator(H.device, &v.od1, &v.ops[1]));
    v.on[1].Operator = v.ops[1];
    DMLCompiledOperator co = NULL;
    h_assert_ok(dmlDeviceCompileGraph(H.device, &v.desc, DML_EXECUTION_FLAG_NONE, &co));
    DML_BINDING_PROPERTIES p = dmlDispatchableGetBindingProperties(co);
    ck_assert_uint_ge(p.TemporaryResourceSize, 64);

    uint8_t x[64], y[64], expect[64];
    for (int i = 0; i < 64; ++i)
        x[i] = (uint8_t)(i * 7 + 3);
    for (int r = 0; r < 16; ++r)
        for (int c = 0; c < 4; ++c)
            expect[c * 16 + r] = x[r * 4 + c];
    DMLBuffer bi = buffer_with(64, x, 0), bo = buffer_with(64, NULL, 0xCD);
    DMLBindingTable table = NULL;
    DML_BINDING_TABLE_DESC td = { co };
    h_assert_ok(dmlDeviceCreateBindingTable(H.device, &td, &table));
    DML_BUFFER_BINDING b0, b1;
    DML_BINDING_DESC di = buffer_desc(&b0, bi, 64), dout = buffer_desc(&b1, bo, 64);
    h_assert_ok(dmlBindingTableBindInputs(table, 1, &di));
    h_assert_ok(dmlBindingTableBindOutputs(table, 1, &dout));
    ck_assert_int_eq(dmlCommandRecorderRecordDispatch(H.recorder, H.queue, co, table), DML_E_INVALID_CALL);
    ck_assert_ptr_nonnull(strstr(dmlGetLastErrorMessage(), "temporary resource"));
    /* The temporary may not overlap a bound output. */
    DMLBuffer big = buffer_with(p.TemporaryResourceSize + 256, NULL, 0);
    DML_BUFFER_BINDING ob = { bo, 0, 64 };
    DML_BINDING_DESC outs_over_temp = { DML_BINDING_TYPE_BUFFER, &ob };
    DML_BUFFER_BINDING tgood = { big, 0, p.TemporaryResourceSize };
    DML_BINDING_DESC tdesc = { DML_BINDING_TYPE_BUFFER, &tgood };
    h_assert_ok(dmlBindingTableBindTemporaryResource(table, &tdesc));
    DML_BUFFER_BINDING o_in_temp = { big, 0, 64 };
    DML_BINDING_DESC o_bad = { DML_BINDING_TYPE_BUFFER, &o_in_temp };
    ck_assert_int_eq(dmlBindingTableBindOutputs(table, 1, &o_bad), DML_E_INVALIDARG);
    ck_assert_ptr_nonnull(strstr(dmlGetLastErrorMessage(), "temporary resource"));
    h_assert_ok(dmlBindingTableBindOutputs(table, 1, &outs_over_temp));
    h_read(&H, bo, 0, y, 64);
    for (int i = 0; i < 64; ++i)
        ck_assert_uint_eq(y[i], 0xCD); /* the failed dispatch wrote nothing */
    h_assert_ok(dmlCommandRecorderRecordDispatch(H.recorder, H.queue, co, table));
    h_assert_ok(dmlCommandQueueSynchronize(H.queue));
    h_read(&H, bo, 0, y, 64);
    ck_assert_mem_eq(y, expect, 64);
    dmlRelease(table);
    dmlRelease(big);
    dmlRelease(bi);
    dmlRelease(bo);
    dmlRelease(co);
    vgraph_fini(&v);
}
END_TEST

/* ---- TILE: fusion and plan counts, on a DEBUG device ------------------------ */

/* A DEBUG device describes each compiled graph in one INFO message, "...: N
 * nodes compiled to S step(s); ...": the tests read S. */
static uint32_t g_steps, g_descriptions;

static void count_steps(DML_MESSAGE_SEVERITY severity, const char* message, void* context)
{
    (void)context;
    const char* at = strstr(message, " compiled to ");
    unsigned steps;
    if (severity == DML_MESSAGE_SEVERITY_INFO && at && sscanf(at, " compiled to %u step", &steps) == 1) {
        g_steps = steps;
        ++g_descriptions;
    }
}

static void setup_debug(void)
{
    memset(&H, 0, sizeof H);
    H.stage = "";
    dmlSetMessageCallback(count_steps, NULL);
    DML_DEVICE_DESC d = h_device_desc();
    d.Flags = DML_CREATE_DEVICE_FLAG_DEBUG;
    h_assert_ok(dmlCreateDevice(&d, &H.device));
    h_assert_ok(dmlDeviceCreateCommandQueue(H.device, NULL, &H.queue));
    h_assert_ok(dmlDeviceCreateCommandRecorder(H.device, &H.recorder));
}

static void teardown_debug(void)
{
    h_fini(&H);
    dmlSetMessageCallback(NULL, NULL);
}

/* Compiles the graph; *steps is what the device said it compiled to. */
static DMLCompiledOperator compile_counting(const DML_GRAPH_DESC* gd, uint32_t* steps)
{
    DMLCompiledOperator co = NULL;
    g_descriptions = 0;
    h_assert_ok(dmlDeviceCompileGraph(H.device, gd, DML_EXECUTION_FLAG_NONE, &co));
    ck_assert_msg(g_descriptions == 1, "the DEBUG device described %u compiled graphs, expected 1", g_descriptions);
    *steps = g_steps;
    return co;
}

/* x (4 x 5 int16, packed) -> IDENTITY reading it transposed (5 x 4, strides
 * {1, 5}) -> TILE repeats {2, 3} -> y (10 x 12). Naive: t[i][j] = x[j][i],
 * y[a][b] = t[a mod 5][b mod 4]. */
START_TEST(tile_after_transpose_fuses)
{
    uint32_t x_sizes[2] = { 4, 5 }, t_sizes[2] = { 5, 4 }, t_strides[2] = { 1, 5 }, y_sizes[2] = { 10, 12 };
    uint32_t repeats[2] = { 2, 3 };
    h_tensor transposed, mid_out, mid_in, y;
    h_tensor_init(&transposed, DML_TENSOR_DATA_TYPE_INT16, 2, t_sizes, t_strides);
    h_tensor_init(&mid_out, DML_TENSOR_DATA_TYPE_INT16, 2, t_sizes, NULL);
    h_tensor_init(&mid_in, DML_TENSOR_DATA_TYPE_INT16, 2, t_sizes, NULL);
    h_tensor_init(&y, DML_TENSOR_DATA_TYPE_INT16, 2, y_sizes, NULL);
    DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC id = { &transposed.desc, &mid_out.desc, NULL };
    DML_TILE_OPERATOR_DESC tile = { &mid_in.desc, &y.desc, 2, repeats };
    DML_OPERATOR_DESC ods[2] = { { DML_OPERATOR_ELEMENT_WISE_IDENTITY, &id }, { DML_OPERATOR_TILE, &tile } };
    DMLOperator ops[2];
    for (int k = 0; k < 2; ++k)
        h_assert_ok(dmlDeviceCreateOperator(H.device, &ods[k], &ops[k]));
    DML_OPERATOR_GRAPH_NODE_DESC on[2] = { { ops[0], "transpose" }, { ops[1], "tile" } };
    DML_GRAPH_NODE_DESC nodes[2] = { { DML_GRAPH_NODE_TYPE_OPERATOR, &on[0] }, { DML_GRAPH_NODE_TYPE_OPERATOR, &on[1] } };
    DML_INPUT_GRAPH_EDGE_DESC i0 = { 0, 0, 0, NULL };
    DML_INTERMEDIATE_GRAPH_EDGE_DESC m0 = { 0, 0, 1, 0, NULL };
    DML_OUTPUT_GRAPH_EDGE_DESC o0 = { 1, 0, 0, NULL };
    DML_GRAPH_EDGE_DESC ie = { DML_GRAPH_EDGE_TYPE_INPUT, &i0 }, me = { DML_GRAPH_EDGE_TYPE_INTERMEDIATE, &m0 },
                        oe = { DML_GRAPH_EDGE_TYPE_OUTPUT, &o0 };
    DML_GRAPH_DESC gd = { 1, 1, 2, nodes, 1, &ie, 1, &oe, 1, &me };
    uint32_t steps = 0;
    DMLCompiledOperator co = compile_counting(&gd, &steps);
    ck_assert_msg(steps == 1, "IDENTITY (transpose) -> TILE compiled to %u steps, expected 1 (fused)", steps);
    for (int k = 0; k < 2; ++k)
        dmlRelease(ops[k]);
    DML_BINDING_PROPERTIES p = dmlDispatchableGetBindingProperties(co);
    ck_assert_uint_eq(p.TemporaryResourceSize, 0);

    int16_t x[20], got[120], expect[120];
    for (int i = 0; i < 20; ++i)
        x[i] = (int16_t)(-7 * i + 3);
    for (uint32_t a = 0; a < 10; ++a)
        for (uint32_t b = 0; b < 12; ++b) {
            uint32_t i = a % 5, j = b % 4;       /* t's coordinate */
            expect[a * 12 + b] = x[j * x_sizes[1] + i]; /* t[i][j] = x[j][i] */
        }
    DMLBuffer bi = buffer_with(sizeof x, x, 0), bo = buffer_with(sizeof got, NULL, 0xCD);
    DMLBuffer ins[1] = { bi }, outs[1] = { bo };
    uint64_t in_bytes[1] = { sizeof x }, out_bytes[1] = { sizeof got };
    int owned[1] = { 0 };
    run_compiled(co, 1, ins, in_bytes, owned, 1, outs, out_bytes);
    h_read(&H, bo, 0, got, sizeof got);
    ck_assert_mem_eq(got, expect, sizeof got);
    dmlRelease(bi);
    dmlRelease(bo);
    dmlRelease(co);
}
END_TEST

/* TILE of 8 dimensions, each of size 2 repeated twice, with a padded,
 * permuted input: 16 dimensions no two of which merge, so more plans than
 * one; the output (4^8 uint32) against naive loops. */
START_TEST(tile_eight_dimensions_several_plans)
{
    uint32_t in_sizes[8], in_strides[8] = { 3, 97, 1, 7, 389, 16, 34, 194 }, out_sizes[8], repeats[8];
    for (int d = 0; d < 8; ++d) {
        in_sizes[d] = 2;
        repeats[d] = 2;
        out_sizes[d] = 4;
    }
    h_tensor in, out;
    h_tensor_init(&in, DML_TENSOR_DATA_TYPE_UINT32, 8, in_sizes, in_strides);
    h_tensor_init(&out, DML_TENSOR_DATA_TYPE_UINT32, 8, out_sizes, NULL);
    DML_TILE_OPERATOR_DESC tile = { &in.desc, &out.desc, 8, repeats };
    DML_OPERATOR_DESC od = { DML_OPERATOR_TILE, &tile };
    DMLOperator op;
    h_assert_ok(dmlDeviceCreateOperator(H.device, &od, &op));
    DML_OPERATOR_GRAPH_NODE_DESC on = { op, "tile" };
    DML_GRAPH_NODE_DESC node = { DML_GRAPH_NODE_TYPE_OPERATOR, &on };
    DML_INPUT_GRAPH_EDGE_DESC i0 = { 0, 0, 0, NULL };
    DML_OUTPUT_GRAPH_EDGE_DESC o0 = { 0, 0, 0, NULL };
    DML_GRAPH_EDGE_DESC ie = { DML_GRAPH_EDGE_TYPE_INPUT, &i0 }, oe = { DML_GRAPH_EDGE_TYPE_OUTPUT, &o0 };
    DML_GRAPH_DESC gd = { 1, 1, 1, &node, 1, &ie, 1, &oe, 0, NULL };
    uint32_t steps = 0;
    DMLCompiledOperator co = compile_counting(&gd, &steps);
    dmlRelease(op);
    ck_assert_msg(steps > 1, "an 8-dimensional TILE needing 16 dimensions compiled to %u step", steps);
    printf("tile_eight_dimensions_several_plans: %u steps\n", steps);

    const uint64_t in_bytes = in.buf.TotalTensorSizeInBytes, count = 65536;
    uint32_t* x = malloc(in_bytes);
    uint32_t* got = malloc(count * 4);
    uint32_t* expect = malloc(count * 4);
    ck_assert(x && got && expect);
    for (uint64_t e = 0; e < in_bytes / 4; ++e)
        x[e] = (uint32_t)(0x9E3779B9u * (e + 1));
    for (uint64_t e = 0; e < count; ++e) { /* e's coordinates: base-4 digits, dimension 7 lowest */
        uint64_t element = 0;
        for (int d = 7, rest = (int)e; d >= 0; --d, rest /= 4)
            element += (uint64_t)((rest % 4) % 2) * in_strides[d];
        expect[e] = x[element];
    }
    DMLBuffer bi = buffer_with(in_bytes, x, 0), bo = buffer_with(count * 4, NULL, 0xCD);
    DMLBuffer ins[1] = { bi }, outs[1] = { bo };
    uint64_t in_sizes_bytes[1] = { in_bytes }, out_bytes[1] = { count * 4 };
    int owned[1] = { 0 };
    run_compiled(co, 1, ins, in_sizes_bytes, owned, 1, outs, out_bytes);
    h_read(&H, bo, 0, got, count * 4);
    ck_assert_mem_eq(got, expect, count * 4);
    free(x);
    free(got);
    free(expect);
    dmlRelease(bi);
    dmlRelease(bo);
    dmlRelease(co);
}
END_TEST

/* ---- DEPTH_TO_SPACE / SPACE_TO_DEPTH: fusion, on a DEBUG device ------------ */

/* Compiles a chain of operators (node k's output feeding node k+1's input)
 * with one graph input and one output; *steps as the device said. */
static DMLCompiledOperator compile_chain(uint32_t count, const DML_OPERATOR_DESC* ods, uint32_t* steps)
{
    DMLOperator ops[4];
    DML_OPERATOR_GRAPH_NODE_DESC on[4];
    DML_GRAPH_NODE_DESC nodes[4];
    DML_INTERMEDIATE_GRAPH_EDGE_DESC m[3];
    DML_GRAPH_EDGE_DESC me[3];
    ck_assert_uint_le(count, 4);
    for (uint32_t k = 0; k < count; ++k) {
        h_assert_ok(dmlDeviceCreateOperator(H.device, &ods[k], &ops[k]));
        on[k] = (DML_OPERATOR_GRAPH_NODE_DESC){ ops[k], "node" };
        nodes[k] = (DML_GRAPH_NODE_DESC){ DML_GRAPH_NODE_TYPE_OPERATOR, &on[k] };
        if (k) {
            m[k - 1] = (DML_INTERMEDIATE_GRAPH_EDGE_DESC){ k - 1, 0, k, 0, NULL };
            me[k - 1] = (DML_GRAPH_EDGE_DESC){ DML_GRAPH_EDGE_TYPE_INTERMEDIATE, &m[k - 1] };
        }
    }
    DML_INPUT_GRAPH_EDGE_DESC i0 = { 0, 0, 0, NULL };
    DML_OUTPUT_GRAPH_EDGE_DESC o0 = { count - 1, 0, 0, NULL };
    DML_GRAPH_EDGE_DESC ie = { DML_GRAPH_EDGE_TYPE_INPUT, &i0 }, oe = { DML_GRAPH_EDGE_TYPE_OUTPUT, &o0 };
    DML_GRAPH_DESC gd = { 1, 1, count, nodes, 1, &ie, 1, &oe, count - 1, me };
    DMLCompiledOperator co = compile_counting(&gd, steps);
    for (uint32_t k = 0; k < count; ++k)
        dmlRelease(ops[k]);
    return co;
}

static void run_one_in_one_out(DMLCompiledOperator co, const void* x, uint64_t x_bytes, void* y, uint64_t y_bytes)
{
    DMLBuffer bi = buffer_with(x_bytes, x, 0), bo = buffer_with(y_bytes, NULL, 0xCD);
    DMLBuffer ins[1] = { bi }, outs[1] = { bo };
    uint64_t in_bytes[1] = { x_bytes }, out_bytes[1] = { y_bytes };
    int owned[1] = { 0 };
    run_compiled(co, 1, ins, in_bytes, owned, 1, outs, out_bytes);
    h_read(&H, bo, 0, y, y_bytes);
    dmlRelease(bi);
    dmlRelease(bo);
}

/* x (NHWC {1,2,3,8} int32, packed) -> IDENTITY reading it as NCHW {1,8,2,3}
 * (strides {48,1,24,8}) -> DEPTH_TO_SPACE1 (B 2, both orders) -> {1,2,4,6} ->
 * SLICE1 offsets {0,1,2,1}, window {1,1,2,4}, strides {1,1,1,2} -> y {1,1,2,2}.
 * Naive: t[k][h][w] = x[h][w][k]; s = the formula of the order; y[a][b] =
 * s[1][2+a][1+2b]. The slice keeps whole blocks' rows and one column of
 * each block, so the composition stays affine (a slice cutting blocks
 * unevenly, rows 1-3, is not, and is materialised). */
START_TEST(depth_to_space_between_transpose_and_slice_fuses)
{
    for (int crd = 0; crd < 2; ++crd) {
        uint32_t x_sizes[4] = { 1, 8, 2, 3 }, x_strides[4] = { 48, 1, 24, 8 }, s_sizes[4] = { 1, 2, 4, 6 };
        uint32_t y_sizes[4] = { 1, 1, 2, 2 }, offsets[4] = { 0, 1, 2, 1 }, window[4] = { 1, 1, 2, 4 };
        int32_t strides[4] = { 1, 1, 1, 2 };
        h_tensor transposed, t_out, t_in, s_out, s_in, y;
        h_tensor_init(&transposed, DML_TENSOR_DATA_TYPE_INT32, 4, x_sizes, x_strides);
        h_tensor_init(&t_out, DML_TENSOR_DATA_TYPE_INT32, 4, x_sizes, NULL);
        h_tensor_init(&t_in, DML_TENSOR_DATA_TYPE_INT32, 4, x_sizes, NULL);
        h_tensor_init(&s_out, DML_TENSOR_DATA_TYPE_INT32, 4, s_sizes, NULL);
        h_tensor_init(&s_in, DML_TENSOR_DATA_TYPE_INT32, 4, s_sizes, NULL);
        h_tensor_init(&y, DML_TENSOR_DATA_TYPE_INT32, 4, y_sizes, NULL);
        DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC id = { &transposed.desc, &t_out.desc, NULL };
        DML_DEPTH_TO_SPACE1_OPERATOR_DESC d2s = { &t_in.desc, &s_out.desc, 2,
            crd ? DML_DEPTH_SPACE_ORDER_COLUMN_ROW_DEPTH : DML_DEPTH_SPACE_ORDER_DEPTH_COLUMN_ROW };
        DML_SLICE1_OPERATOR_DESC slice = { &s_in.desc, &y.desc, 4, offsets, window, strides };
        DML_OPERATOR_DESC ods[3] = { { DML_OPERATOR_ELEMENT_WISE_IDENTITY, &id },
            { DML_OPERATOR_DEPTH_TO_SPACE1, &d2s }, { DML_OPERATOR_SLICE1, &slice } };
        uint32_t steps = 0;
        DMLCompiledOperator co = compile_chain(3, ods, &steps);
        ck_assert_msg(steps == 1, "IDENTITY (transpose) -> DEPTH_TO_SPACE1 -> SLICE1 compiled to %u steps, expected 1",
            steps);
        DML_BINDING_PROPERTIES p = dmlDispatchableGetBindingProperties(co);
        ck_assert_uint_eq(p.TemporaryResourceSize, 0);

        int32_t x[48], got[4], expect[4];
        for (int i = 0; i < 48; ++i)
            x[i] = 1000 + 7 * i;
        for (uint32_t a = 0; a < 2; ++a)
            for (uint32_t b = 0; b < 2; ++b) {
                const uint32_t c = 1, sy = 2 + a, sx = 1 + 2 * b; /* s's coordinate */
                const uint32_t h = sy / 2, i = sy % 2, w = sx / 2, j = sx % 2;
                const uint32_t k = crd ? c * 4 + i * 2 + j : (i * 2 + j) * 2 + c; /* t's channel */
                expect[a * 2 + b] = x[h * 24 + w * 8 + k];                       /* t[k][h][w] = x[h][w][k] */
            }
        run_one_in_one_out(co, x, sizeof x, got, sizeof got);
        ck_assert_mem_eq(got, expect, sizeof got);
        dmlRelease(co);
    }
}
END_TEST

/* DEPTH_TO_SPACE then SPACE_TO_DEPTH of the same order and block: one step,
 * the identity. _i: 0 the version-0 pair (DEPTH_COLUMN_ROW), 1 the *1 pair in
 * DEPTH_COLUMN_ROW, 2 in COLUMN_ROW_DEPTH. */
START_TEST(depth_to_space_then_space_to_depth_is_identity)
{
    uint32_t d_sizes[4] = { 2, 18, 2, 3 }, s_sizes[4] = { 2, 2, 6, 9 };
    h_tensor d_in, s_out, s_in, d_out;
    h_tensor_init(&d_in, DML_TENSOR_DATA_TYPE_FLOAT16, 4, d_sizes, NULL);
    h_tensor_init(&s_out, DML_TENSOR_DATA_TYPE_FLOAT16, 4, s_sizes, NULL);
    h_tensor_init(&s_in, DML_TENSOR_DATA_TYPE_FLOAT16, 4, s_sizes, NULL);
    h_tensor_init(&d_out, DML_TENSOR_DATA_TYPE_FLOAT16, 4, d_sizes, NULL);
    const DML_DEPTH_SPACE_ORDER order =
        _i == 2 ? DML_DEPTH_SPACE_ORDER_COLUMN_ROW_DEPTH : DML_DEPTH_SPACE_ORDER_DEPTH_COLUMN_ROW;
    DML_DEPTH_TO_SPACE_OPERATOR_DESC d2s0 = { &d_in.desc, &s_out.desc, 3 };
    DML_SPACE_TO_DEPTH_OPERATOR_DESC s2d0 = { &s_in.desc, &d_out.desc, 3 };
    DML_DEPTH_TO_SPACE1_OPERATOR_DESC d2s1 = { &d_in.desc, &s_out.desc, 3, order };
    DML_SPACE_TO_DEPTH1_OPERATOR_DESC s2d1 = { &s_in.desc, &d_out.desc, 3, order };
    DML_OPERATOR_DESC ods[2];
    if (_i == 0) {
        ods[0] = (DML_OPERATOR_DESC){ DML_OPERATOR_DEPTH_TO_SPACE, &d2s0 };
        ods[1] = (DML_OPERATOR_DESC){ DML_OPERATOR_SPACE_TO_DEPTH, &s2d0 };
    } else {
        ods[0] = (DML_OPERATOR_DESC){ DML_OPERATOR_DEPTH_TO_SPACE1, &d2s1 };
        ods[1] = (DML_OPERATOR_DESC){ DML_OPERATOR_SPACE_TO_DEPTH1, &s2d1 };
    }
    uint32_t steps = 0;
    DMLCompiledOperator co = compile_chain(2, ods, &steps);
    ck_assert_msg(steps == 1, "DEPTH_TO_SPACE -> SPACE_TO_DEPTH compiled to %u steps, expected 1", steps);
    uint16_t x[216], got[216];
    for (int i = 0; i < 216; ++i)
        x[i] = (uint16_t)(0x3C00 + 3 * i); /* distinct finite halves */
    run_one_in_one_out(co, x, sizeof x, got, sizeof got);
    ck_assert_mem_eq(got, x, sizeof got);
    dmlRelease(co);
}
END_TEST

/* ---- CAST: fusion with gathers on both sides, on a DEBUG device ------------ */

/* x (4 x 6 float32, packed) -> IDENTITY reading it transposed (6 x 4,
 * strides {1, 6}) -> CAST to float16 -> SLICE1 offsets {1, 0}, window
 * {4, 4}, strides {2, 1} -> y (2 x 4 float16): one step, a cast reading x
 * through the composed positions. Naive: y[a][b] = half(x[b][1 + 2a]), the
 * conversion from reference.c. */
START_TEST(cast_between_transpose_and_slice_fuses)
{
    uint32_t x_sizes[2] = { 4, 6 }, t_sizes[2] = { 6, 4 }, t_strides[2] = { 1, 6 }, y_sizes[2] = { 2, 4 };
    uint32_t offsets[2] = { 1, 0 }, window[2] = { 4, 4 };
    int32_t strides[2] = { 2, 1 };
    h_tensor transposed, t_out, c_in, c_out, s_in, y;
    h_tensor_init(&transposed, DML_TENSOR_DATA_TYPE_FLOAT32, 2, t_sizes, t_strides);
    h_tensor_init(&t_out, DML_TENSOR_DATA_TYPE_FLOAT32, 2, t_sizes, NULL);
    h_tensor_init(&c_in, DML_TENSOR_DATA_TYPE_FLOAT32, 2, t_sizes, NULL);
    h_tensor_init(&c_out, DML_TENSOR_DATA_TYPE_FLOAT16, 2, t_sizes, NULL);
    h_tensor_init(&s_in, DML_TENSOR_DATA_TYPE_FLOAT16, 2, t_sizes, NULL);
    h_tensor_init(&y, DML_TENSOR_DATA_TYPE_FLOAT16, 2, y_sizes, NULL);
    DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC id = { &transposed.desc, &t_out.desc, NULL };
    DML_CAST_OPERATOR_DESC cast = { &c_in.desc, &c_out.desc };
    DML_SLICE1_OPERATOR_DESC slice = { &s_in.desc, &y.desc, 2, offsets, window, strides };
    DML_OPERATOR_DESC ods[3] = { { DML_OPERATOR_ELEMENT_WISE_IDENTITY, &id }, { DML_OPERATOR_CAST, &cast },
        { DML_OPERATOR_SLICE1, &slice } };
    uint32_t steps = 0;
    DMLCompiledOperator co = compile_chain(3, ods, &steps);
    ck_assert_msg(steps == 1, "IDENTITY (transpose) -> CAST -> SLICE1 compiled to %u steps, expected 1", steps);
    DML_BINDING_PROPERTIES p = dmlDispatchableGetBindingProperties(co);
    ck_assert_uint_eq(p.TemporaryResourceSize, 0);

    float x[24];
    for (int k = 0; k < 24; ++k)
        x[k] = (float)(k * 1001) / 7.0f - 1500.0f; /* values that round */
    (void)x_sizes;
    uint16_t got[8], expect[8];
    run_one_in_one_out(co, x, sizeof x, got, sizeof got);
    for (uint32_t a = 0; a < 2; ++a)
        for (uint32_t b = 0; b < 4; ++b)
            ref_cast_element(DML_TENSOR_DATA_TYPE_FLOAT16, &expect[a * 4 + b], DML_TENSOR_DATA_TYPE_FLOAT32,
                &x[b * 6 + 1 + 2 * a]);
    ck_assert_msg(memcmp(got, expect, sizeof got) == 0, "fused cast differs from the reference");
    dmlRelease(co);

    /* Two casts in a row stay two steps: float32 -> float16 -> float32 rounds in between. */
    h_tensor back;
    h_tensor_init(&back, DML_TENSOR_DATA_TYPE_FLOAT32, 2, t_sizes, NULL);
    DML_CAST_OPERATOR_DESC first = { &c_in.desc, &c_out.desc }, second = { &s_in.desc, &back.desc };
    DML_OPERATOR_DESC two[2] = { { DML_OPERATOR_CAST, &first }, { DML_OPERATOR_CAST, &second } };
    co = compile_chain(2, two, &steps);
    ck_assert_msg(steps == 2, "CAST -> CAST compiled to %u steps, expected 2", steps);
    dmlRelease(co);
}
END_TEST

/* Runs co over three inputs of the given bytes; reads its output into y. */
static void run_three_in_one_out(DMLCompiledOperator co, const void* const* ins, const uint64_t* in_bytes, void* y,
    uint64_t y_bytes)
{
    DMLBuffer bufs[3], bo = buffer_with(y_bytes, NULL, 0xCD);
    int owned[3] = { 0, 0, 0 };
    for (int i = 0; i < 3; ++i)
        bufs[i] = buffer_with(in_bytes[i], ins[i], 0);
    run_compiled(co, 3, bufs, in_bytes, owned, 1, &bo, &y_bytes);
    h_read(&H, bo, 0, y, y_bytes);
    for (int i = 0; i < 3; ++i)
        dmlRelease(bufs[i]);
    dmlRelease(bo);
}

/* The data-reading kinds fuse with transposes (plan_compose.h):
 *   x {3,4} INT32 read transposed -> A {4,3}; IF(cond {4,3}, A, B {4,3}, B's
 *   columns broadcast) -> s; s read transposed -> y {3,4} is one step, no
 *   temporary. Naive: y[i][j] = cond[j][i] ? x[i][j] : b[j].
 *   x {4,3}, indices {4,3} (Axis 1, one negative, one dropped), updates
 *   u {3,4} read transposed -> SCATTER_ELEMENTS -> y {4,3} keeps its two
 *   steps (the copy of x, the updates reading u). Naive: y = x, then
 *   y[r][ind[r][k]] = u[k][r] where ind is in range. */
START_TEST(transposes_fuse_into_select_and_scatter)
{
    uint32_t s43[2] = { 4, 3 }, s34[2] = { 3, 4 }, t43[2] = { 1, 4 }, t34[2] = { 1, 3 }, b43[2] = { 1, 0 };
    h_tensor x_t, a, cond, b, s_out, s_t, y;
    h_tensor_init(&x_t, DML_TENSOR_DATA_TYPE_INT32, 2, s43, t43);
    h_tensor_init(&a, DML_TENSOR_DATA_TYPE_INT32, 2, s43, NULL);
    h_tensor_init(&cond, DML_TENSOR_DATA_TYPE_UINT8, 2, s43, NULL);
    h_tensor_init(&b, DML_TENSOR_DATA_TYPE_INT32, 2, s43, b43);
    h_tensor_init(&s_out, DML_TENSOR_DATA_TYPE_INT32, 2, s43, NULL);
    h_tensor_init(&s_t, DML_TENSOR_DATA_TYPE_INT32, 2, s34, t34);
    h_tensor_init(&y, DML_TENSOR_DATA_TYPE_INT32, 2, s34, NULL);
    DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC ta = { &x_t.desc, &a.desc, NULL }, ty = { &s_t.desc, &y.desc, NULL };
    DML_ELEMENT_WISE_IF_OPERATOR_DESC wi = { &cond.desc, &a.desc, &b.desc, &s_out.desc };
    const DML_OPERATOR_DESC ods[3] = { { DML_OPERATOR_ELEMENT_WISE_IDENTITY, &ta }, { DML_OPERATOR_ELEMENT_WISE_IF, &wi },
        { DML_OPERATOR_ELEMENT_WISE_IDENTITY, &ty } };
    DMLOperator ops[3];
    DML_OPERATOR_GRAPH_NODE_DESC on[3];
    DML_GRAPH_NODE_DESC nodes[3];
    for (int k = 0; k < 3; ++k) {
        h_assert_ok(dmlDeviceCreateOperator(H.device, &ods[k], &ops[k]));
        on[k] = (DML_OPERATOR_GRAPH_NODE_DESC){ ops[k], "node" };
        nodes[k] = (DML_GRAPH_NODE_DESC){ DML_GRAPH_NODE_TYPE_OPERATOR, &on[k] };
    }
    DML_INPUT_GRAPH_EDGE_DESC i0 = { 0, 1, 0, NULL }, i1 = { 1, 0, 0, NULL }, i2 = { 2, 1, 2, NULL };
    DML_INTERMEDIATE_GRAPH_EDGE_DESC m0 = { 0, 0, 1, 1, NULL }, m1 = { 1, 0, 2, 0, NULL };
    DML_OUTPUT_GRAPH_EDGE_DESC o0 = { 2, 0, 0, NULL };
    DML_GRAPH_EDGE_DESC ie[3] = { { DML_GRAPH_EDGE_TYPE_INPUT, &i0 }, { DML_GRAPH_EDGE_TYPE_INPUT, &i1 },
        { DML_GRAPH_EDGE_TYPE_INPUT, &i2 } };
    DML_GRAPH_EDGE_DESC me[2] = { { DML_GRAPH_EDGE_TYPE_INTERMEDIATE, &m0 }, { DML_GRAPH_EDGE_TYPE_INTERMEDIATE, &m1 } };
    DML_GRAPH_EDGE_DESC oe = { DML_GRAPH_EDGE_TYPE_OUTPUT, &o0 };
    DML_GRAPH_DESC gd = { 3, 1, 3, nodes, 3, ie, 1, &oe, 2, me };
    uint32_t steps = 0;
    DMLCompiledOperator co = compile_counting(&gd, &steps);
    ck_assert_msg(steps == 1, "transpose -> ELEMENT_WISE_IF -> transpose compiled to %u steps, expected 1", steps);
    ck_assert_uint_eq(dmlDispatchableGetBindingProperties(co).TemporaryResourceSize, 0);
    int32_t x[12], bv[4] = { -1, -2, -3, -4 }, out[12];
    uint8_t c[12];
    for (int i = 0; i < 12; ++i) {
        x[i] = 100 + i;
        c[i] = (uint8_t)(i % 3 == 0 ? 0 : i * 37); /* any non-zero byte selects A */
    }
    const void* ins[3] = { c, x, bv };
    const uint64_t in_bytes[3] = { sizeof c, sizeof x, sizeof bv };
    run_three_in_one_out(co, ins, in_bytes, out, sizeof out);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 4; ++j) {
            int32_t want = c[j * 3 + i] ? x[i * 4 + j] : bv[j];
            ck_assert_msg(out[i * 4 + j] == want, "IF: y[%d][%d] = %d, expected %d", i, j, out[i * 4 + j], want);
        }
    dmlRelease(co);
    for (int k = 0; k < 3; ++k)
        dmlRelease(ops[k]);

    /* x {4,3}, indices {4,3} (Axis 1), updates: u {3,4} read transposed. */
    h_tensor idx, sx, sy;
    h_tensor_init(&idx, DML_TENSOR_DATA_TYPE_INT32, 2, s43, NULL);
    h_tensor_init(&sx, DML_TENSOR_DATA_TYPE_INT32, 2, s43, NULL);
    h_tensor_init(&sy, DML_TENSOR_DATA_TYPE_INT32, 2, s43, NULL);
    DML_SCATTER_ELEMENTS_OPERATOR_DESC sc = { &sx.desc, &idx.desc, &a.desc, &sy.desc, 1 };
    const DML_OPERATOR_DESC sods[2] = { { DML_OPERATOR_ELEMENT_WISE_IDENTITY, &ta }, { DML_OPERATOR_SCATTER_ELEMENTS, &sc } };
    for (int k = 0; k < 2; ++k) {
        h_assert_ok(dmlDeviceCreateOperator(H.device, &sods[k], &ops[k]));
        on[k] = (DML_OPERATOR_GRAPH_NODE_DESC){ ops[k], "node" };
    }
    DML_INPUT_GRAPH_EDGE_DESC j0 = { 0, 1, 0, NULL }, j1 = { 1, 1, 1, NULL }, j2 = { 2, 0, 0, NULL };
    DML_INTERMEDIATE_GRAPH_EDGE_DESC n0 = { 0, 0, 1, 2, NULL };
    DML_OUTPUT_GRAPH_EDGE_DESC p0 = { 1, 0, 0, NULL };
    DML_GRAPH_EDGE_DESC je[3] = { { DML_GRAPH_EDGE_TYPE_INPUT, &j0 }, { DML_GRAPH_EDGE_TYPE_INPUT, &j1 },
        { DML_GRAPH_EDGE_TYPE_INPUT, &j2 } };
    DML_GRAPH_EDGE_DESC ne = { DML_GRAPH_EDGE_TYPE_INTERMEDIATE, &n0 }, pe = { DML_GRAPH_EDGE_TYPE_OUTPUT, &p0 };
    DML_GRAPH_DESC sgd = { 3, 1, 2, nodes, 3, je, 1, &pe, 1, &ne };
    co = compile_counting(&sgd, &steps);
    ck_assert_msg(steps == 2, "transpose -> SCATTER_ELEMENTS's updates compiled to %u steps, expected 2", steps);
    ck_assert_uint_eq(dmlDispatchableGetBindingProperties(co).TemporaryResourceSize, 0);
    static const int32_t ind[12] = { 0, 2, -1, 1, 9, 2, 2, 0, 1, -3, 1, 2 };
    int32_t u[12], want[12];
    for (int i = 0; i < 12; ++i)
        u[i] = -1 - i;
    const void* sins[3] = { x, ind, u };
    const uint64_t sin_bytes[3] = { sizeof x, sizeof ind, sizeof u };
    run_three_in_one_out(co, sins, sin_bytes, out, sizeof out);
    memcpy(want, x, sizeof want);
    for (int r = 0; r < 4; ++r)
        for (int k = 0; k < 3; ++k) { /* distinct targets per row: any order gives one result */
            int32_t v = ind[r * 3 + k] < 0 ? ind[r * 3 + k] + 3 : ind[r * 3 + k];
            if (v >= 0 && v < 3)
                want[r * 3 + v] = u[k * 4 + r];
        }
    for (int i = 0; i < 12; ++i)
        ck_assert_msg(out[i] == want[i], "SCATTER: y[%d] = %d, expected %d", i, out[i], want[i]);
    dmlRelease(co);
    for (int k = 0; k < 2; ++k)
        dmlRelease(ops[k]);
}
END_TEST

static Suite* graph_suite(void)
{
    Suite* s = suite_create("graph");
    TCase* tc = tcase_create("differential");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 600);
    tcase_add_loop_test(tc, random_graphs, 0, 2);
    tcase_add_test(tc, chain_of_three_fuses);
    suite_add_tcase(s, tc);
    tc = tcase_create("identity");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, identity_transpose_and_broadcast);
    tcase_add_test(tc, identity_validation);
    tcase_add_test(tc, identity_scale_bias);
    suite_add_tcase(s, tc);
    tc = tcase_create("validation");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, graph_validation);
    tcase_add_test(tc, graph_temporary_resource);
    suite_add_tcase(s, tc);
    tc = tcase_create("tile");
    tcase_add_checked_fixture(tc, setup_debug, teardown_debug);
    tcase_add_test(tc, tile_after_transpose_fuses);
    tcase_add_test(tc, tile_eight_dimensions_several_plans);
    suite_add_tcase(s, tc);
    tc = tcase_create("depth_space");
    tcase_add_checked_fixture(tc, setup_debug, teardown_debug);
    tcase_add_test(tc, depth_to_space_between_transpose_and_slice_fuses);
    tcase_add_test(tc, cast_between_transpose_and_slice_fuses);
    tcase_add_test(tc, transposes_fuse_into_select_and_scatter);
    tcase_add_loop_test(tc, depth_to_space_then_space_to_depth_is_identity, 0, 3);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    const char* env = getenv("DML_TEST_SEED");
    if (env && *env)
        g_seed = strtoull(env, NULL, 0);
    printf("test_api_graph: seed %" PRIu64 " (set DML_TEST_SEED to change), backend %s\n", g_seed, h_backend());
    fflush(stdout);
    SRunner* sr = srunner_create(graph_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

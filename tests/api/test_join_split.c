/*
 * test_join_split.c — JOIN and SPLIT through the public API against the
 * independent reference (reference.c ref_join / ref_split): random cases,
 * DirectML's documented examples, every validation rule, and fusion in
 * graphs.
 *
 * Random cases draw a data type, rank 1–8, an axis, 1–6 parts with their own
 * axis sizes, and per tensor a layout (packed, padded, permuted; inputs also
 * broadcast), each tensor in its own buffer at a random offset among random
 * bytes. After the dispatch every output buffer must equal, byte for byte,
 * the reference run over the same starting bytes: nothing outside the
 * addressed elements may change. DML_TEST_SEED=<n> replays another seed.
 */
#include "harness.h"
#include "reference.h"

#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PARTS 6

static harness H;
static uint64_t g_seed = 0x10125917ull;

static void setup(void) { h_init(&H); }
static void teardown(void) { h_fini(&H); }

static uint64_t rbelow(rng* r, uint64_t n) { return rnext(r) % n; }

/* One tensor of a case: its desc and where it lives. */
typedef struct jtensor {
    uint32_t rank, sizes[8], strides[8];
    int has_strides;
    uint64_t offset, bytes, buffer_size; /* binding offset, TotalTensorSizeInBytes, its buffer's size */
} jtensor;

typedef struct jcase {
    int split; /* SPLIT (parts are outputs), else JOIN */
    DML_TENSOR_DATA_TYPE type;
    uint32_t axis, parts;
    jtensor whole, part[MAX_PARTS];
} jcase;

/* Strides for t->sizes: packed (NULL or explicit), padded, or permuted;
 * broadcast (some strides 0) only for inputs. */
static void random_layout(rng* r, jtensor* t, int is_input)
{
    uint32_t mode = (uint32_t)rbelow(r, is_input ? 5 : 4);
    t->has_strides = mode != 0;
    uint32_t order[8];
    for (uint32_t i = 0; i < t->rank; ++i)
        order[i] = i;
    if (mode == 3)
        for (uint32_t i = t->rank; i > 1; --i) {
            uint32_t j = (uint32_t)rbelow(r, i), tmp = order[i - 1];
            order[i - 1] = order[j];
            order[j] = tmp;
        }
    uint64_t extent = 1;
    for (uint32_t k = t->rank; k-- > 0;) {
        uint32_t d = order[k];
        t->strides[d] = (uint32_t)(extent + (mode >= 2 ? rbelow(r, 3) : 0));
        extent = (uint64_t)t->strides[d] * t->sizes[d];
    }
    if (mode == 4)
        for (uint32_t i = 0; i < t->rank; ++i)
            if (rbelow(r, 3) == 0)
                t->strides[i] = 0;
}

static void place(rng* r, jtensor* t, uint32_t elem_size)
{
    t->bytes = ref_calc_buffer_tensor_size(elem_size, t->rank, t->sizes, t->has_strides ? t->strides : NULL);
    ck_assert(t->bytes > 0);
    t->offset = 16 * rbelow(r, 4);
    t->buffer_size = t->offset + t->bytes + rbelow(r, 32);
}

static void gen_case(rng* r, jcase* c, int split, DML_TENSOR_DATA_TYPE type)
{
    static const uint32_t max_dim[9] = { 0, 40, 12, 7, 5, 4, 3, 3, 2 };
    memset(c, 0, sizeof *c);
    c->split = split;
    c->type = type;
    uint32_t rank = 1 + (uint32_t)rbelow(r, 8);
    c->axis = (uint32_t)rbelow(r, rank);
    c->parts = 1 + (uint32_t)rbelow(r, MAX_PARTS);
    c->whole.rank = rank;
    for (uint32_t i = 0; i < rank; ++i)
        c->whole.sizes[i] = 1 + (uint32_t)rbelow(r, max_dim[rank]);
    c->whole.sizes[c->axis] = 0;
    for (uint32_t k = 0; k < c->parts; ++k) {
        jtensor* p = &c->part[k];
        p->rank = rank;
        memcpy(p->sizes, c->whole.sizes, sizeof p->sizes);
        p->sizes[c->axis] = 1 + (uint32_t)rbelow(r, max_dim[rank]);
        c->whole.sizes[c->axis] += p->sizes[c->axis];
    }
    uint32_t es = h_elem_size(type);
    random_layout(r, &c->whole, split);
    place(r, &c->whole, es);
    for (uint32_t k = 0; k < c->parts; ++k) {
        random_layout(r, &c->part[k], !split);
        place(r, &c->part[k], es);
    }
}

static void dump_tensor(const char* name, const jtensor* t)
{
    fprintf(stderr, "  %s: Sizes {", name);
    for (uint32_t i = 0; i < t->rank; ++i)
        fprintf(stderr, "%s%u", i ? "," : "", t->sizes[i]);
    fprintf(stderr, "} Strides ");
    if (!t->has_strides) {
        fprintf(stderr, "NULL");
    } else {
        fprintf(stderr, "{");
        for (uint32_t i = 0; i < t->rank; ++i)
            fprintf(stderr, "%s%u", i ? "," : "", t->strides[i]);
        fprintf(stderr, "}");
    }
    fprintf(stderr, " offset %" PRIu64 "\n", t->offset);
}

static void dump_case(const jcase* c, uint64_t index)
{
    fprintf(stderr, "%s case %" PRIu64 " (seed 0x%" PRIx64 "): %s, Axis %u, %u parts\n", c->split ? "SPLIT" : "JOIN",
        index, g_seed, h_type_name(c->type), c->axis, c->parts);
    dump_tensor(c->split ? "InputTensor" : "OutputTensor", &c->whole);
    for (uint32_t k = 0; k < c->parts; ++k) {
        char name[32];
        snprintf(name, sizeof name, "%s[%u]", c->split ? "OutputTensors" : "InputTensors", k);
        dump_tensor(name, &c->part[k]);
    }
}

static void make_desc(h_tensor* h, const jcase* c, const jtensor* t)
{
    h_tensor_init(h, c->type, t->rank, t->sizes, t->has_strides ? t->strides : NULL);
}

static ref_view view_of(const jcase* c, const jtensor* t, uint8_t* buffer)
{
    return (ref_view){ h_elem_size(c->type), t->rank, t->sizes, t->has_strides ? t->strides : NULL,
        buffer + t->offset, t->bytes };
}

static void run_case(rng* r, const jcase* c, uint64_t index)
{
    const uint32_t n = 1 + c->parts; /* tensor 0: the whole */
    const jtensor* ts[1 + MAX_PARTS];
    uint8_t* host[1 + MAX_PARTS];
    uint8_t* got[1 + MAX_PARTS];
    DMLBuffer dev[1 + MAX_PARTS];
    h_tensor hd[1 + MAX_PARTS];
    h_bind bind[1 + MAX_PARTS];
    DML_TENSOR_DESC part_descs[MAX_PARTS];
    for (uint32_t t = 0; t < n; ++t) {
        ts[t] = t == 0 ? &c->whole : &c->part[t - 1];
        host[t] = malloc(ts[t]->buffer_size);
        got[t] = malloc(ts[t]->buffer_size);
        ck_assert(host[t] && got[t]);
        for (uint64_t b = 0; b < ts[t]->buffer_size; ++b)
            host[t][b] = (uint8_t)rnext(r);
        dev[t] = h_buffer(&H, ts[t]->buffer_size, host[t]);
        make_desc(&hd[t], c, ts[t]);
        bind[t] = (h_bind){ dev[t], ts[t]->offset, ts[t]->bytes, 0 };
        if (t > 0)
            part_descs[t - 1] = hd[t].desc;
    }
    DML_JOIN_OPERATOR_DESC join = { c->parts, part_descs, &hd[0].desc, c->axis };
    DML_SPLIT_OPERATOR_DESC split = { &hd[0].desc, c->parts, part_descs, c->axis };
    DML_OPERATOR_DESC od = { c->split ? DML_OPERATOR_SPLIT : DML_OPERATOR_JOIN,
        c->split ? (const void*)&split : (const void*)&join };
    void* dsts[MAX_PARTS];
    uint64_t dst_sizes[MAX_PARTS];
    DML_RESULT res;
    if (c->split) {
        for (uint32_t k = 0; k < c->parts; ++k) {
            dsts[k] = got[1 + k];
            dst_sizes[k] = c->part[k].buffer_size;
        }
        res = run_operator_outputs(&H, &od, DML_EXECUTION_FLAG_NONE, 1, &bind[0], c->parts, &bind[1], dsts, dst_sizes);
    } else {
        res = run_operator(&H, &od, DML_EXECUTION_FLAG_NONE, c->parts, &bind[1], &bind[0], got[0],
            c->whole.buffer_size);
    }
    if (res != DML_S_OK) {
        dump_case(c, index);
        ck_abort_msg("case %" PRIu64 ": %s failed: %s: %s", index, H.stage, h_result_name(res), H.message);
    }

    ref_view parts[MAX_PARTS];
    for (uint32_t k = 0; k < c->parts; ++k)
        parts[k] = view_of(c, &c->part[k], host[1 + k]);
    ref_view whole = view_of(c, &c->whole, host[0]);
    if (c->split)
        ref_split(&whole, parts, c->parts, c->axis);
    else
        ref_join(parts, c->parts, &whole, c->axis);

    for (uint32_t t = c->split ? 1 : 0; t < (c->split ? n : 1); ++t) {
        for (uint64_t b = 0; b < ts[t]->buffer_size; ++b) {
            if (got[t][b] != host[t][b]) {
                dump_case(c, index);
                ck_abort_msg("case %" PRIu64 ": output tensor %u byte %" PRIu64 " (binding offset %" PRIu64
                    "): got 0x%02x, want 0x%02x", index, t, b, ts[t]->offset, got[t][b], host[t][b]);
            }
        }
    }
    for (uint32_t t = 0; t < n; ++t) {
        dmlRelease(dev[t]);
        free(host[t]);
        free(got[t]);
    }
}

#define CASES_PER_TYPE 12

/* _i: the data type - 1; both operators. */
START_TEST(random_cases)
{
    const DML_TENSOR_DATA_TYPE type = (DML_TENSOR_DATA_TYPE)(_i + 1);
    for (int split = 0; split < 2; ++split) {
        rng r = { g_seed ^ ((uint64_t)type << 32) ^ (uint64_t)split };
        for (uint64_t k = 0; k < CASES_PER_TYPE; ++k) {
            jcase c;
            gen_case(&r, &c, split, type);
            run_case(&r, &c, k);
        }
    }
}
END_TEST

/* ---- DirectML's examples ------------------------------------------------- */

/* JOIN's page, example 1: {1,1,2,3} and {1,1,2,4} joined on axis 3. */
START_TEST(join_example)
{
    const uint32_t s0[4] = { 1, 1, 2, 3 }, s1[4] = { 1, 1, 2, 4 }, so[4] = { 1, 1, 2, 7 };
    const float a[6] = { 1, 2, 3, 4, 5, 6 }, b[8] = { 7, 8, 9, 10, 11, 12, 13, 14 };
    const float want[14] = { 1, 2, 3, 7, 8, 9, 10, 4, 5, 6, 11, 12, 13, 14 };
    h_tensor t0, t1, to;
    h_tensor_init(&t0, DML_TENSOR_DATA_TYPE_FLOAT32, 4, s0, NULL);
    h_tensor_init(&t1, DML_TENSOR_DATA_TYPE_FLOAT32, 4, s1, NULL);
    h_tensor_init(&to, DML_TENSOR_DATA_TYPE_FLOAT32, 4, so, NULL);
    DML_TENSOR_DESC inputs[2] = { t0.desc, t1.desc };
    DML_JOIN_OPERATOR_DESC join = { 2, inputs, &to.desc, 3 };
    DML_OPERATOR_DESC od = { DML_OPERATOR_JOIN, &join };
    h_bind in[2] = { { h_buffer(&H, sizeof a, a), 0, sizeof a, 0 }, { h_buffer(&H, sizeof b, b), 0, sizeof b, 0 } };
    h_bind out = { h_buffer(&H, sizeof want, NULL), 0, sizeof want, 0 };
    float got[14];
    h_assert_ok(run_operator(&H, &od, DML_EXECUTION_FLAG_NONE, 2, in, &out, got, sizeof got));
    ck_assert_mem_eq(got, want, sizeof want);
    dmlRelease(in[0].buffer);
    dmlRelease(in[1].buffer);
    dmlRelease(out.buffer);
}
END_TEST

/* SPLIT's page: {1,1,6,2} split on axis 2 into {1,1,2,2}, {1,1,4,2}. */
START_TEST(split_example)
{
    const uint32_t si[4] = { 1, 1, 6, 2 }, s0[4] = { 1, 1, 2, 2 }, s1[4] = { 1, 1, 4, 2 };
    const float x[12] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 };
    const float want0[4] = { 1, 2, 3, 4 }, want1[8] = { 5, 6, 7, 8, 9, 10, 11, 12 };
    h_tensor ti, t0, t1;
    h_tensor_init(&ti, DML_TENSOR_DATA_TYPE_FLOAT32, 4, si, NULL);
    h_tensor_init(&t0, DML_TENSOR_DATA_TYPE_FLOAT32, 4, s0, NULL);
    h_tensor_init(&t1, DML_TENSOR_DATA_TYPE_FLOAT32, 4, s1, NULL);
    DML_TENSOR_DESC outputs[2] = { t0.desc, t1.desc };
    DML_SPLIT_OPERATOR_DESC split = { &ti.desc, 2, outputs, 2 };
    DML_OPERATOR_DESC od = { DML_OPERATOR_SPLIT, &split };
    h_bind in = { h_buffer(&H, sizeof x, x), 0, sizeof x, 0 };
    h_bind out[2] = { { h_buffer(&H, sizeof want0, NULL), 0, sizeof want0, 0 },
        { h_buffer(&H, sizeof want1, NULL), 0, sizeof want1, 0 } };
    float got0[4], got1[8];
    void* dsts[2] = { got0, got1 };
    uint64_t sizes[2] = { sizeof got0, sizeof got1 };
    h_assert_ok(run_operator_outputs(&H, &od, DML_EXECUTION_FLAG_NONE, 1, &in, 2, out, dsts, sizes));
    ck_assert_mem_eq(got0, want0, sizeof want0);
    ck_assert_mem_eq(got1, want1, sizeof want1);
    dmlRelease(in.buffer);
    dmlRelease(out[0].buffer);
    dmlRelease(out[1].buffer);
}
END_TEST

/* ---- validation: every rule, with the message naming field and rule -------- */

/* A JOIN of {2,3} + {2,5} -> {2,8} on axis 1, broken by `breaker`. */
typedef struct jv {
    h_tensor in[2], out;
    DML_TENSOR_DESC inputs[2];
    DML_JOIN_OPERATOR_DESC join;
    DML_SPLIT_OPERATOR_DESC split;
} jv;

static void jv_init(jv* v)
{
    const uint32_t a[2] = { 2, 3 }, b[2] = { 2, 5 }, w[2] = { 2, 8 };
    h_tensor_init(&v->in[0], DML_TENSOR_DATA_TYPE_INT16, 2, a, NULL);
    h_tensor_init(&v->in[1], DML_TENSOR_DATA_TYPE_INT16, 2, b, NULL);
    h_tensor_init(&v->out, DML_TENSOR_DATA_TYPE_INT16, 2, w, NULL);
    v->inputs[0] = v->in[0].desc;
    v->inputs[1] = v->in[1].desc;
    v->join = (DML_JOIN_OPERATOR_DESC){ 2, v->inputs, &v->out.desc, 1 };
    v->split = (DML_SPLIT_OPERATOR_DESC){ &v->out.desc, 2, v->inputs, 1 };
}

/* Creates the operator; asserts INVALIDARG with every `needles` in the message. */
static void expect_invalid(DML_OPERATOR_TYPE type, const void* desc, const char* needle1, const char* needle2)
{
    DML_OPERATOR_DESC od = { type, desc };
    DMLOperator op = (DMLOperator)(uintptr_t)0x1;
    h_assert_result(dmlDeviceCreateOperator(H.device, &od, &op), DML_E_INVALIDARG);
    ck_assert_ptr_eq(op, (DMLOperator)(uintptr_t)0x1); /* nothing written on failure */
    const char* m = dmlGetLastErrorMessage();
    ck_assert_msg(strstr(m, needle1) && (!needle2 || strstr(m, needle2)), "message \"%s\" lacks \"%s\"/\"%s\"", m,
        needle1, needle2 ? needle2 : "");
}

START_TEST(validation_rules)
{
    jv v;
    jv_init(&v);
    DML_OPERATOR_DESC od = { DML_OPERATOR_JOIN, &v.join };
    DMLOperator op = NULL;
    h_assert_ok(dmlDeviceCreateOperator(H.device, &od, &op)); /* the unbroken case is valid */
    dmlRelease(op);
    od = (DML_OPERATOR_DESC){ DML_OPERATOR_SPLIT, &v.split };
    h_assert_ok(dmlDeviceCreateOperator(H.device, &od, &op));
    dmlRelease(op);

    jv_init(&v);
    v.join.InputCount = 0;
    expect_invalid(DML_OPERATOR_JOIN, &v.join, "JOIN): InputCount = 0", "must be >= 1");
    jv_init(&v);
    v.split.OutputCount = 0;
    expect_invalid(DML_OPERATOR_SPLIT, &v.split, "SPLIT): OutputCount = 0", "must be >= 1");
    jv_init(&v);
    v.join.InputTensors = NULL;
    expect_invalid(DML_OPERATOR_JOIN, &v.join, "InputTensors is NULL", NULL);
    jv_init(&v);
    v.split.OutputTensors = NULL;
    expect_invalid(DML_OPERATOR_SPLIT, &v.split, "OutputTensors is NULL", NULL);
    jv_init(&v);
    v.join.Axis = 2;
    expect_invalid(DML_OPERATOR_JOIN, &v.join, "Axis = 2", "less than OutputTensor.DimensionCount 2");
    jv_init(&v);
    v.split.Axis = 7;
    expect_invalid(DML_OPERATOR_SPLIT, &v.split, "Axis = 7", "less than InputTensor.DimensionCount 2");
    jv_init(&v); /* a part's own desc is validated, named by its index */
    v.in[1].buf.DataType = (DML_TENSOR_DATA_TYPE)99;
    v.inputs[1] = v.in[1].desc;
    expect_invalid(DML_OPERATOR_JOIN, &v.join, "InputTensors[1]", NULL);
    jv_init(&v);
    v.out.buf.DataType = DML_TENSOR_DATA_TYPE_UINT16;
    expect_invalid(DML_OPERATOR_JOIN, &v.join, "InputTensors[0].DataType INT16 differs from OutputTensor.DataType",
        NULL);
    jv_init(&v);
    v.in[1].buf.DimensionCount = 3;
    v.in[1].sizes[2] = 1;
    v.in[1].buf.TotalTensorSizeInBytes = 2 * 5 * 2 + 4;
    v.inputs[1] = v.in[1].desc;
    expect_invalid(DML_OPERATOR_JOIN, &v.join, "InputTensors[1].DimensionCount 3 differs", NULL);
    jv_init(&v);
    v.in[0].sizes[0] = 3;
    v.in[0].buf.TotalTensorSizeInBytes = 3 * 3 * 2 + 2;
    v.inputs[0] = v.in[0].desc;
    expect_invalid(DML_OPERATOR_SPLIT, &v.split, "OutputTensors[0].Sizes[0] = 3 differs from InputTensor.Sizes[0] = 2",
        "only Axis 1 may differ");
    jv_init(&v);
    v.out.sizes[1] = 9;
    v.out.buf.TotalTensorSizeInBytes = 2 * 9 * 2 + 4;
    expect_invalid(DML_OPERATOR_JOIN, &v.join, "OutputTensor.Sizes[1] = 9", "sum of the InputTensors' Sizes[1], 8");
    jv_init(&v); /* SPLIT's outputs may not broadcast (stride 0) */
    v.in[0].strides[0] = 0;
    v.in[0].strides[1] = 1;
    v.in[0].buf.Strides = v.in[0].strides;
    v.inputs[0] = v.in[0].desc;
    expect_invalid(DML_OPERATOR_SPLIT, &v.split, "OutputTensors[0]", NULL);
}
END_TEST

/* ---- graphs: JOIN of transposed inputs writes each gather into its sub-range */

static uint32_t g_steps;

static void count_steps(DML_MESSAGE_SEVERITY severity, const char* message, void* context)
{
    (void)context;
    const char* at = strstr(message, " compiled to ");
    unsigned steps;
    if (severity == DML_MESSAGE_SEVERITY_INFO && at && sscanf(at, " compiled to %u step", &steps) == 1)
        g_steps = steps;
}

START_TEST(join_of_transposes_fuses)
{
    /* Two {3,4} inputs transposed by IDENTITY (strides {1,4} read as {4,3}),
     * then joined on axis 0 into {8,3}: two steps, no intermediate. On a
     * DEBUG device, which describes each compiled graph in an INFO message. */
    DMLDevice debug = NULL;
    DML_DEVICE_DESC dd = h_device_desc();
    dd.Flags = DML_CREATE_DEVICE_FLAG_DEBUG;
    h_assert_ok(dmlCreateDevice(&dd, &debug));
    const uint32_t s[2] = { 4, 3 }, t_strides[2] = { 1, 4 }, so[2] = { 8, 3 };
    h_tensor tin, tmid, tout;
    h_tensor_init(&tin, DML_TENSOR_DATA_TYPE_UINT8, 2, s, t_strides);
    h_tensor_init(&tmid, DML_TENSOR_DATA_TYPE_UINT8, 2, s, NULL);
    h_tensor_init(&tout, DML_TENSOR_DATA_TYPE_UINT8, 2, so, NULL);
    DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC id = { &tin.desc, &tmid.desc, NULL };
    DML_OPERATOR_DESC idd = { DML_OPERATOR_ELEMENT_WISE_IDENTITY, &id };
    DML_TENSOR_DESC parts[2] = { tmid.desc, tmid.desc };
    DML_JOIN_OPERATOR_DESC join = { 2, parts, &tout.desc, 0 };
    DML_OPERATOR_DESC jd = { DML_OPERATOR_JOIN, &join };
    DMLOperator ops[3];
    h_assert_ok(dmlDeviceCreateOperator(debug, &idd, &ops[0]));
    h_assert_ok(dmlDeviceCreateOperator(debug, &idd, &ops[1]));
    h_assert_ok(dmlDeviceCreateOperator(debug, &jd, &ops[2]));
    DML_OPERATOR_GRAPH_NODE_DESC nodes[3] = { { ops[0], "t0" }, { ops[1], "t1" }, { ops[2], "join" } };
    DML_GRAPH_NODE_DESC gn[3];
    for (int i = 0; i < 3; ++i)
        gn[i] = (DML_GRAPH_NODE_DESC){ DML_GRAPH_NODE_TYPE_OPERATOR, &nodes[i] };
    DML_INPUT_GRAPH_EDGE_DESC ie[2] = { { 0, 0, 0, NULL }, { 1, 1, 0, NULL } };
    DML_INTERMEDIATE_GRAPH_EDGE_DESC me[2] = { { 0, 0, 2, 0, NULL }, { 1, 0, 2, 1, NULL } };
    DML_OUTPUT_GRAPH_EDGE_DESC oe = { 2, 0, 0, NULL };
    DML_GRAPH_EDGE_DESC ies[2] = { { DML_GRAPH_EDGE_TYPE_INPUT, &ie[0] }, { DML_GRAPH_EDGE_TYPE_INPUT, &ie[1] } };
    DML_GRAPH_EDGE_DESC mes[2] = { { DML_GRAPH_EDGE_TYPE_INTERMEDIATE, &me[0] },
        { DML_GRAPH_EDGE_TYPE_INTERMEDIATE, &me[1] } };
    DML_GRAPH_EDGE_DESC oes = { DML_GRAPH_EDGE_TYPE_OUTPUT, &oe };
    DML_GRAPH_DESC gd = { 2, 1, 3, gn, 2, ies, 1, &oes, 2, mes };
    g_steps = 0;
    dmlSetMessageCallback(count_steps, NULL);
    DMLCompiledOperator co = NULL;
    h_assert_ok(dmlDeviceCompileGraph(debug, &gd, DML_EXECUTION_FLAG_NONE, &co));
    dmlSetMessageCallback(NULL, NULL);
    ck_assert_msg(g_steps == 2, "transpose, transpose -> JOIN compiled to %u steps, expected 2 (fused)", g_steps);
    DML_BINDING_PROPERTIES bp = dmlDispatchableGetBindingProperties(co);
    ck_assert_msg(bp.TemporaryResourceSize == 0 && bp.PersistentResourceSize == 0,
        "no intermediate expected, temporary %" PRIu64 ", persistent %" PRIu64, bp.TemporaryResourceSize,
        bp.PersistentResourceSize);

    /* Executed: out[r][c] = in_k[c][r - 4k] (in_k row-major {3,4}). */
    uint8_t a[12], b[12], got[24], want[24];
    for (int i = 0; i < 12; ++i) {
        a[i] = (uint8_t)i;
        b[i] = (uint8_t)(100 + i);
    }
    for (int r = 0; r < 8; ++r)
        for (int c = 0; c < 3; ++c)
            want[r * 3 + c] = r < 4 ? a[c * 4 + r] : b[c * 4 + r - 4];
    DMLCommandQueue queue = NULL;
    DMLCommandRecorder recorder = NULL;
    DMLOperatorInitializer init = NULL;
    DMLBindingTable table = NULL, init_table = NULL;
    DMLBuffer ba = NULL, bb = NULL, bo = NULL;
    h_assert_ok(dmlDeviceCreateCommandQueue(debug, NULL, &queue));
    h_assert_ok(dmlDeviceCreateCommandRecorder(debug, &recorder));
    h_assert_ok(dmlDeviceCreateOperatorInitializer(debug, 1, &co, &init));
    DML_BINDING_TABLE_DESC td = { init };
    h_assert_ok(dmlDeviceCreateBindingTable(debug, &td, &init_table));
    h_assert_ok(dmlCommandRecorderRecordDispatch(recorder, queue, init, init_table));
    h_assert_ok(dmlDeviceCreateBuffer(debug, 16, &ba));
    h_assert_ok(dmlDeviceCreateBuffer(debug, 16, &bb));
    h_assert_ok(dmlDeviceCreateBuffer(debug, 24, &bo));
    h_assert_ok(dmlCommandQueueWriteBuffer(queue, ba, 0, a, sizeof a));
    h_assert_ok(dmlCommandQueueWriteBuffer(queue, bb, 0, b, sizeof b));
    td.Dispatchable = co;
    h_assert_ok(dmlDeviceCreateBindingTable(debug, &td, &table));
    DML_BUFFER_BINDING in_b[2] = { { ba, 0, 12 }, { bb, 0, 12 } }, out_b = { bo, 0, 24 };
    DML_BINDING_DESC in_d[2] = { { DML_BINDING_TYPE_BUFFER, &in_b[0] }, { DML_BINDING_TYPE_BUFFER, &in_b[1] } };
    DML_BINDING_DESC out_d = { DML_BINDING_TYPE_BUFFER, &out_b };
    h_assert_ok(dmlBindingTableBindInputs(table, 2, in_d));
    h_assert_ok(dmlBindingTableBindOutputs(table, 1, &out_d));
    h_assert_ok(dmlCommandRecorderRecordDispatch(recorder, queue, co, table));
    h_assert_ok(dmlCommandQueueReadBuffer(queue, bo, 0, got, sizeof got));
    h_assert_ok(dmlCommandQueueSynchronize(queue));
    ck_assert_mem_eq(got, want, sizeof want);

    void* objects[] = { table, init_table, ba, bb, bo, init, recorder, queue, co, ops[0], ops[1], ops[2], debug };
    for (size_t i = 0; i < sizeof objects / sizeof objects[0]; ++i)
        dmlRelease(objects[i]);
}
END_TEST

Suite* join_split_suite(void)
{
    Suite* s = suite_create("join_split");
    TCase* tc = tcase_create("operators");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_loop_test(tc, random_cases, 0, 11);
    tcase_add_test(tc, join_example);
    tcase_add_test(tc, split_example);
    tcase_add_test(tc, validation_rules);
    tcase_add_test(tc, join_of_transposes_fuses);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    const char* seed = getenv("DML_TEST_SEED");
    if (seed)
        g_seed = strtoull(seed, NULL, 0);
    printf("test_api_join_split: seed 0x%" PRIx64 " (DML_TEST_SEED=<n> replays another), backend %s\n", g_seed,
        h_backend());
    fflush(stdout);
    SRunner* sr = srunner_create(join_split_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

/*
 * coalescing_kinds.c — dmlcoalesce's rows for CAST (its own kernels,
 * cast.cu) and for JOIN and SPLIT (one gather per part, the parts as one
 * grouped launch: cuda/group.h). Each operator is validated and lowered as
 * CompileOperator does (dml_op_create, dml_op_lower), its steps launched as
 * the CUDA backends dispatch them (dml_cuda_run_group) and run by the emulator
 * over buffers of the tensors' exact sizes, 64-byte aligned; the steps'
 * requested bytes and sectors are summed into the operator's row. A step
 * the launcher makes a cudaMemcpyAsync counts as perfectly coalesced, as
 * the gather rows' copies do.
 */
#include "coalescing_kinds.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/data_type.h"
#include "core/error.h"
#include "core/ops/op.h"
#include "emulator.h"
#include "group.h"
#include "launch.h"

#define MAX_TENSORS 2

/* What one operator's steps did, summed. */
typedef struct kinds_row {
    dml_coalescing stats;
    uint32_t steps, copies, launches;
    int grouped; /* a grouped launch ran some of the steps (group.h) */
    uint32_t grid, block; /* the first kernel's */
    int wide, mode;
    uint64_t out_bytes;
} kinds_row;

static unsigned char* tensor_memory(const dml_tensor* t)
{
    unsigned char* p = aligned_alloc(64, (t->total_bytes + 63) / 64 * 64);
    if (p)
        memset(p, 0x3C, t->total_bytes); /* finite in every type */
    return p;
}

static void add_copy(dml_coalescing* s, const dml_cuda_launch* l)
{
    const uint64_t sectors = (l->copy_bytes + 31) / 32;
    s->load_bytes += sectors * 32;
    s->load_sectors += sectors;
    s->store_bytes += sectors * 32;
    s->store_sectors += sectors;
}

static void add_kernel(dml_coalescing* s, const dml_coalescing* k)
{
    s->load_bytes += k->load_bytes;
    s->load_sectors += k->load_sectors;
    s->store_bytes += k->store_bytes;
    s->store_sectors += k->store_sectors;
    s->load_requests += k->load_requests;
    s->store_requests += k->store_requests;
}

/* The operator's steps as the CUDA backends dispatch them
 * (dml_cuda_run_group: JOIN's and SPLIT's parts as one grouped launch). */
typedef struct kinds_run {
    kinds_row* row;
    const dml_cuda_launch* launches;
    const dml_plan_args* args;
    const char* name;
} kinds_run;

static int emulated(const kinds_run* run, int result)
{
    if (result < 0)
        fprintf(stderr, "dmlcoalesce: %s: %s\n", run->name,
            result == DML_EMULATE_VIOLATION ? dml_cuda_emulator_violation() : "tracing ran out of memory");
    return result < 0;
}

/* A kernel launch's geometry, when it is the row's first. */
static void first_kernel(kinds_row* r, uint32_t grid, uint32_t block, int wide, int mode)
{
    if (r->grid)
        return;
    r->grid = grid;
    r->block = block;
    r->wide = wide;
    r->mode = mode;
}

static int run_single(void* context, uint32_t index)
{
    const kinds_run* run = context;
    kinds_row* r = run->row;
    dml_cuda_launch launch = run->launches[index];
    dml_cuda_bind_launch(&launch, &run->args[index]);
    r->launches++;
    r->steps++;
    if (launch.is_copy) {
        r->copies++;
        add_copy(&r->stats, &launch);
        return 0;
    }
    dml_coalescing stats;
    if (emulated(run, dml_cuda_emulate(&launch, &stats)))
        return 1;
    add_kernel(&r->stats, &stats);
    first_kernel(r, launch.grid, launch.block, launch.wide, launch.mode);
    return 0;
}

static int run_grouped(void* context, const dml_cuda_group_launch* group)
{
    const kinds_run* run = context;
    kinds_row* r = run->row;
    dml_coalescing stats;
    if (emulated(run, dml_cuda_emulate_group(group, &stats)))
        return 1;
    r->launches++;
    r->steps += group->params.parts;
    r->grouped = 1;
    add_kernel(&r->stats, &stats);
    first_kernel(r, group->grid, group->block, group->wide, (int)group->params.part[0].mode);
    return 0;
}

/* Lowers desc and emulates its steps into r; 0, or -1 (printed). */
static int emulate_desc(const DML_OPERATOR_DESC* desc, const char* name, uint32_t sm_count, kinds_row* r)
{
    memset(r, 0, sizeof *r);
    dml_op* op = NULL;
    dml_lowering lowering;
    memset(&lowering, 0, sizeof lowering);
    if (dml_op_create(desc, &op) < 0 || dml_op_lower(op, "dmlcoalesce", &lowering) < 0) {
        fprintf(stderr, "dmlcoalesce: %s: %s\n", name, dml_error_last());
        dml_op_destroy(op);
        return -1;
    }
    unsigned char* in[MAX_TENSORS] = { NULL }, *out[MAX_TENSORS] = { NULL };
    int failed = op->input_count > MAX_TENSORS || op->output_count > MAX_TENSORS || lowering.count > MAX_TENSORS;
    for (uint32_t i = 0; !failed && i < op->input_count; i++)
        failed = !(in[i] = tensor_memory(&op->inputs[i]));
    for (uint32_t i = 0; !failed && i < op->output_count; i++) {
        failed = !(out[i] = tensor_memory(&op->outputs[i]));
        r->out_bytes += failed ? 0 : op->outputs[i].total_bytes;
    }
    const dml_cuda_limits limits = dml_cuda_h100_limits(sm_count);
    const dml_plan* plans[MAX_TENSORS];
    const dml_cuda_launch* compiled[MAX_TENSORS];
    dml_cuda_launch launches[MAX_TENSORS];
    dml_plan_args args[MAX_TENSORS];
    for (uint32_t s = 0; !failed && s < lowering.count; s++) {
        const dml_op_step* step = &lowering.steps[s];
        const uint32_t i = step->input.index, o = step->output.index;
        args[s] = (dml_plan_args){ in[i], NULL, out[o], op->inputs[i].total_bytes, 0, op->outputs[o].total_bytes, NULL, 0 };
        plans[s] = &step->plan;
        dml_cuda_plan_launch_on(&step->plan, &limits, &launches[s]);
        compiled[s] = &launches[s];
    }
    dml_cuda_group_launch* group = failed ? NULL : malloc(sizeof *group);
    kinds_run run = { r, launches, args, name };
    failed = !group ||
        dml_cuda_run_group(plans, compiled, args, lowering.count, &limits, group, run_single, run_grouped, &run) != 0;
    free(group);
    for (uint32_t i = 0; i < MAX_TENSORS; i++) {
        free(in[i]);
        free(out[i]);
    }
    dml_lowering_free(&lowering);
    dml_op_destroy(op);
    return failed ? -1 : 0;
}

/* The gather kernels' modes, as dmlcoalesce names them. */
static const char* gather_mode(int mode)
{
    switch (mode) {
    case DML_CUDA_MODE_VECTOR: return "vector";
    case DML_CUDA_MODE_VECTOR_REVERSED: return "vector-reversed";
    case DML_CUDA_MODE_TILED: return "tiled";
    default: return "scalar";
    }
}

/* One row in dmlcoalesce's columns; launch: "cast", or the gather's mode
 * (its first kernel's, or a grouped launch's first part's: "group2/vector")
 * with the launch count, or "copy" when every launch is one. */
static void print_row(int csv, const char* op, uint32_t e, const char* pattern, const char* kind, const kinds_row* r)
{
    const double load = dml_coalescing_load_efficiency(&r->stats), store = dml_coalescing_store_efficiency(&r->stats);
    const int all_copies = r->copies == r->steps;
    const char* bits = all_copies ? "-" : r->wide ? "64" : "32";
    if (csv) {
        printf("%s,%u,%s,%llu,%s,%s,%u,%u,%.4f,%.4f,%llu,%llu,0,,,,,0,0,0,0,0\n", op, e, pattern,
            (unsigned long long)r->out_bytes, all_copies ? "copy" : kind, bits, r->grid, r->block, load, store,
            (unsigned long long)r->stats.load_requests, (unsigned long long)r->stats.store_requests);
        return;
    }
    char what[64];
    if (all_copies)
        snprintf(what, sizeof what, "copy x%u", r->launches);
    else if (r->grouped)
        snprintf(what, sizeof what, "group%u/%s/%s %ux%u x%u", r->steps, kind, bits, r->grid, r->block,
            r->launches);
    else if (r->launches > 1)
        snprintf(what, sizeof what, "%s/%s %ux%u x%u%s", kind, bits, r->grid, r->block, r->launches,
            r->copies ? "+copy" : "");
    else
        snprintf(what, sizeof what, "%s/%s %ux%u", kind, bits, r->grid, r->block);
    printf("%-20s %4u %-16s %9llu  %-27s %6.3f %6.3f %8llu %8llu %8u %6s\n", op, e, pattern,
        (unsigned long long)r->out_bytes, what, load, store, (unsigned long long)r->stats.load_requests,
        (unsigned long long)r->stats.store_requests, 0u, "-");
}

static void packed_tensor(DML_BUFFER_TENSOR_DESC* b, DML_TENSOR_DESC* t, DML_TENSOR_DATA_TYPE type,
    const uint32_t* sizes)
{
    /* DMLCalcBufferTensorSize's total: the bytes, rounded up to 4 */
    *b = (DML_BUFFER_TENSOR_DESC){ type, DML_TENSOR_FLAG_NONE, 2, sizes, NULL,
        ((uint64_t)sizes[0] * sizes[1] * dml_data_type_size(type) + 3) & ~(uint64_t)3, 0 };
    *t = (DML_TENSOR_DESC){ DML_TENSOR_TYPE_BUFFER, b };
}

/* Rows of about row_bytes output bytes each, about `bytes` in all. */
static void row_shape(uint64_t bytes, uint32_t row_bytes, uint32_t e, uint32_t* sizes)
{
    sizes[1] = row_bytes / e > 2 ? row_bytes / e : 2;
    const uint64_t rows = bytes / ((uint64_t)sizes[1] * e);
    sizes[0] = rows > 2 ? (uint32_t)rows : 2;
}

int coalescing_cast_rows(int csv, uint64_t bytes, uint32_t row_bytes, uint32_t sm_count)
{
    static const DML_TENSOR_DATA_TYPE pairs[][2] = {
        { DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_FLOAT16 },
        { DML_TENSOR_DATA_TYPE_FLOAT16, DML_TENSOR_DATA_TYPE_FLOAT32 },
        { DML_TENSOR_DATA_TYPE_UINT8, DML_TENSOR_DATA_TYPE_FLOAT32 },
        { DML_TENSOR_DATA_TYPE_FLOAT64, DML_TENSOR_DATA_TYPE_FLOAT32 },
    };
    int failures = 0;
    for (size_t p = 0; p < sizeof pairs / sizeof *pairs; p++) {
        uint32_t sizes[2];
        row_shape(bytes, row_bytes, dml_data_type_size(pairs[p][1]), sizes);
        DML_BUFFER_TENSOR_DESC ib, ob;
        DML_TENSOR_DESC it, ot;
        packed_tensor(&ib, &it, pairs[p][0], sizes);
        packed_tensor(&ob, &ot, pairs[p][1], sizes);
        DML_CAST_OPERATOR_DESC d = { &it, &ot };
        DML_OPERATOR_DESC od = { DML_OPERATOR_CAST, &d };
        char pattern[40];
        snprintf(pattern, sizeof pattern, "%s-%s", dml_data_type_short_name(pairs[p][0]),
            dml_data_type_short_name(pairs[p][1]));
        kinds_row r;
        if (emulate_desc(&od, pattern, sm_count, &r) < 0) {
            failures++;
            continue;
        }
        print_row(csv, "CAST", dml_data_type_size(pairs[p][1]), pattern, "cast", &r);
    }
    return failures;
}

static const DML_TENSOR_DATA_TYPE types_of_size[9] = { [1] = DML_TENSOR_DATA_TYPE_UINT8,
    [2] = DML_TENSOR_DATA_TYPE_UINT16, [4] = DML_TENSOR_DATA_TYPE_UINT32, [8] = DML_TENSOR_DATA_TYPE_UINT64 };

/* JOIN (split 0) or SPLIT (split 1) of [R, W] in two parts along axis: two
 * halves, or (uneven) the first one element shorter, so the second part's
 * rows start one element off the alignment of the first's. */
static int join_split_row(int csv, uint64_t bytes, uint32_t row_bytes, uint32_t sm_count, uint32_t e, uint32_t axis,
    int split, int uneven)
{
    const DML_TENSOR_DATA_TYPE type = types_of_size[e];
    uint32_t whole[2];
    row_shape(bytes, row_bytes, e, whole);
    whole[axis] &= ~1u; /* two equal parts */
    uint32_t part[2][2] = { { whole[0], whole[1] }, { whole[0], whole[1] } };
    part[0][axis] = whole[axis] / 2 - (uint32_t)uneven;
    part[1][axis] = whole[axis] / 2 + (uint32_t)uneven;
    DML_BUFFER_TENSOR_DESC wb, pb[2];
    DML_TENSOR_DESC wt, pt[2];
    packed_tensor(&wb, &wt, type, whole);
    packed_tensor(&pb[0], &pt[0], type, part[0]);
    packed_tensor(&pb[1], &pt[1], type, part[1]);
    DML_JOIN_OPERATOR_DESC join = { 2, pt, &wt, axis };
    DML_SPLIT_OPERATOR_DESC cut = { &wt, 2, pt, axis };
    DML_OPERATOR_DESC od = { split ? DML_OPERATOR_SPLIT : DML_OPERATOR_JOIN, split ? (const void*)&cut : &join };
    char pattern[32];
    snprintf(pattern, sizeof pattern, "%s-%s", axis == 1 ? "inner" : "outer", uneven ? "uneven" : "halves");
    kinds_row r;
    if (emulate_desc(&od, split ? "SPLIT" : "JOIN", sm_count, &r) < 0)
        return 1;
    print_row(csv, split ? "SPLIT" : "JOIN", e, pattern, gather_mode(r.mode), &r);
    return 0;
}

int coalescing_join_split_rows(int csv, uint64_t bytes, uint32_t row_bytes, uint32_t sm_count)
{
    int failures = 0;
    for (int split = 0; split <= 1; split++)
        for (uint32_t e = 1; e <= 8; e *= 2)
            for (int inner = 1; inner >= 0; inner--)
                for (int uneven = 0; uneven <= inner; uneven++)
                    failures += join_split_row(csv, bytes, row_bytes, sm_count, e, (uint32_t)inner, split, uneven);
    return failures;
}

/* A packed tensor of `rank` sizes (sizes must outlive the desc). */
static void packed_nd(DML_BUFFER_TENSOR_DESC* b, DML_TENSOR_DESC* t, DML_TENSOR_DATA_TYPE type, uint32_t rank,
    const uint32_t* sizes)
{
    uint64_t bytes = dml_data_type_size(type);
    for (uint32_t i = 0; i < rank; i++)
        bytes *= sizes[i];
    *b = (DML_BUFFER_TENSOR_DESC){ type, DML_TENSOR_FLAG_NONE, rank, sizes, NULL, (bytes + 3) & ~(uint64_t)3, 0 };
    *t = (DML_TENSOR_DESC){ DML_TENSOR_TYPE_BUFFER, b };
}

/* TILE of [R, W/2] into [R, W] (inner: each row repeated along itself) and
 * of [R/2, W] into [R, W] (outer: the whole tensor twice). */
static int tile_row(int csv, uint64_t bytes, uint32_t row_bytes, uint32_t sm_count, uint32_t e, int inner)
{
    uint32_t out[2], in[2];
    row_shape(bytes, row_bytes, e, out);
    out[0] &= ~1u;
    out[1] &= ~1u;
    in[0] = inner ? out[0] : out[0] / 2;
    in[1] = inner ? out[1] / 2 : out[1];
    const UINT repeats[2] = { inner ? 1u : 2u, inner ? 2u : 1u };
    DML_BUFFER_TENSOR_DESC ib, ob;
    DML_TENSOR_DESC it, ot;
    packed_nd(&ib, &it, types_of_size[e], 2, in);
    packed_nd(&ob, &ot, types_of_size[e], 2, out);
    DML_TILE_OPERATOR_DESC d = { &it, &ot, 2, repeats };
    DML_OPERATOR_DESC od = { DML_OPERATOR_TILE, &d };
    kinds_row r;
    if (emulate_desc(&od, "TILE", sm_count, &r) < 0)
        return 1;
    print_row(csv, "TILE", e, inner ? "inner-x2" : "outer-x2", gather_mode(r.mode), &r);
    return 0;
}

/* DEPTH_TO_SPACE1 / SPACE_TO_DEPTH1 with block 2 between [1, 4C, H, W] and
 * [1, C, 2H, 2W], C = 4, the space side's rows about row_bytes, in both
 * orders. */
static int depth_space_row(int csv, uint64_t bytes, uint32_t row_bytes, uint32_t sm_count, uint32_t e, int to_space,
    DML_DEPTH_SPACE_ORDER order)
{
    const uint32_t c = 4, block = 2;
    uint32_t w = row_bytes / e / block > 1 ? row_bytes / e / block : 1;
    uint64_t h = bytes / ((uint64_t)c * block * block * w * e);
    h = h > 1 ? h : 1;
    uint32_t depth[4] = { 1, c * block * block, (uint32_t)h, w };
    uint32_t space[4] = { 1, c, (uint32_t)h * block, w * block };
    DML_BUFFER_TENSOR_DESC db, sb;
    DML_TENSOR_DESC dt, st;
    packed_nd(&db, &dt, types_of_size[e], 4, depth);
    packed_nd(&sb, &st, types_of_size[e], 4, space);
    DML_DEPTH_TO_SPACE1_OPERATOR_DESC d2s = { &dt, &st, block, order };
    DML_SPACE_TO_DEPTH1_OPERATOR_DESC s2d = { &st, &dt, block, order };
    const char* name = to_space ? "DEPTH_TO_SPACE1" : "SPACE_TO_DEPTH1";
    DML_OPERATOR_DESC od = { to_space ? DML_OPERATOR_DEPTH_TO_SPACE1 : DML_OPERATOR_SPACE_TO_DEPTH1,
        to_space ? (const void*)&d2s : &s2d };
    kinds_row r;
    if (emulate_desc(&od, name, sm_count, &r) < 0)
        return 1;
    print_row(csv, name, e, order == DML_DEPTH_SPACE_ORDER_DEPTH_COLUMN_ROW ? "dcr-block2" : "crd-block2",
        gather_mode(r.mode), &r);
    return 0;
}

int coalescing_affine_rows(int csv, uint64_t bytes, uint32_t row_bytes, uint32_t sm_count)
{
    int failures = 0;
    for (uint32_t e = 1; e <= 8; e *= 2)
        for (int inner = 1; inner >= 0; inner--)
            failures += tile_row(csv, bytes, row_bytes, sm_count, e, inner);
    for (int to_space = 1; to_space >= 0; to_space--)
        for (uint32_t e = 1; e <= 8; e *= 2)
            for (int order = 0; order <= 1; order++)
                failures += depth_space_row(csv, bytes, row_bytes, sm_count, e, to_space,
                    order ? DML_DEPTH_SPACE_ORDER_COLUMN_ROW_DEPTH : DML_DEPTH_SPACE_ORDER_DEPTH_COLUMN_ROW);
    return failures;
}

/*
 * fuzz_operators.c — libFuzzer target: bytes -> operator desc -> the whole API.
 *
 * The input is decoded into one DML_OPERATOR_DESC (REVERSE_SUBSEQUENCES, SLICE1,
 * SLICE, TILE, CAST, PADDING, the data-dependent GATHER, GATHER_ELEMENTS,
 * GATHER_ND, GATHER_ND1, SCATTER_ELEMENTS, SCATTER_ND, ONE_HOT and
 * ELEMENT_WISE_IF, or another/unknown operator type), with random
 * ranks, sizes, strides,
 * data types, flags (OWNED_BY_DML), sizes in bytes, alignments, window
 * parameters and sequence-length values. Then, on the "cpu" and "cudaemu"
 * backends:
 *   - CreateOperator is always called (even on huge descs);
 *   - rejected: the result must be DML_E_INVALIDARG (DML_E_NOTIMPL for a valid
 *     unimplemented operator type) with a non-empty message;
 *   - accepted and small (every tensor <= FZ_MAX_BYTES): compile, initialize
 *     (owned inputs), bind, dispatch, read back, and compare with the naive
 *     reference (tests/api/reference.c) byte for byte, including the output
 *     bytes the tensor does not address (they must be left untouched).
 *     Index tensors hold hostile values (INT64_MIN, 2^63, UINT64_MAX, 2^31 ...,
 *     negative, just out of range) over their whole bound range; every range
 *     is bound at exactly its desc's TotalTensorSizeInBytes (cudaemu checks
 *     every access against it); a repaired scatter sometimes runs in place
 *     (the output bound over the input's range). Where several updates of a
 *     scatter hit one element, "cpu" must give the last; cudaemu any of them.
 *   - "repair" mode (first byte's low bit): the decoder clamps everything into
 *     the spec's valid range, and the desc must then be accepted.
 *   - the "cudaemu" device is a DML_CREATE_DEVICE_FLAG_DEBUG device, one per
 *     input: after each case one of the handles just released is used again,
 *     at an entry point the input chooses, and must be reported as released.
 * Any violation aborts (a crash for libFuzzer, a failed case for the replay).
 */
#include <dml/dml.h>

#include "api/reference.h"
#include "core/data_type.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Per tensor; larger descs are only created. 16 KiB executes 96% of the
 * cases 64 KiB did, in 60% of the time. */
#define FZ_MAX_BYTES ((uint64_t)1 << 14)

/* The oracle and the buffer plumbing are not what is fuzzed: without
 * libFuzzer's comparison tracing there (FZ_ORACLE), the fuzzer spends its
 * time in the library and the decoder. */
#if defined(__clang__)
#define FZ_ORACLE __attribute__((no_sanitize("coverage")))
#else
#define FZ_ORACLE
#endif

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
void fuzz_operators_cleanup(void);
/* How many (backend, input) pairs were executed and compared so far. */
unsigned long fuzz_operators_executed(void);

/* ---- byte reader ------------------------------------------------------------ */

typedef struct fz_reader {
    const uint8_t* data;
    size_t size, pos;
} fz_reader;

static uint8_t u8(fz_reader* r)
{
    return r->pos < r->size ? r->data[r->pos++] : 0;
}

static uint32_t u32(fz_reader* r)
{
    uint32_t v = 0;
    for (int i = 0; i < 4; i++)
        v |= (uint32_t)u8(r) << (8 * i);
    return v;
}

/* Mostly small values, sometimes the interesting edges. */
static uint32_t small_or_edge(fz_reader* r, uint32_t small_max)
{
    static const uint32_t edges[] = { 0, 1, 2, 3, 0x7fffffffu, 0x80000000u, 0xffffffffu, 0xfffffffeu, 65536, 65537,
        0x40000000u, 0x100 };
    uint8_t b = u8(r);
    if (b < 224)
        return b % (small_max + 1);
    if (b < 248)
        return edges[b % (sizeof edges / sizeof edges[0])];
    return u32(r);
}

/* ---- small helpers ------------------------------------------------------------ */

static void fz_fail(const char* what, const char* backend, DML_RESULT r)
{
    fprintf(stderr, "fuzz_operators [%s]: %s (result 0x%08x, message '%s')\n", backend, what, (unsigned)r,
        dmlGetLastErrorMessage());
    abort();
}

typedef struct fz_tensor {
    DML_BUFFER_TENSOR_DESC buf;
    DML_TENSOR_DESC desc;
    uint32_t sizes[8], strides[8];
    bool has_strides;
} fz_tensor;

static void tensor_link(fz_tensor* t)
{
    t->buf.Sizes = t->sizes;
    t->buf.Strides = t->has_strides ? t->strides : NULL;
    t->desc.Type = DML_TENSOR_TYPE_BUFFER;
    t->desc.Desc = &t->buf;
}

/* Sizes in bytes: usually exact, sometimes off by a little, sometimes random. */
static void tensor_bytes(fz_reader* r, fz_tensor* t, bool repair)
{
    uint64_t need = ref_calc_buffer_tensor_size(dml_data_type_size(t->buf.DataType), t->buf.DimensionCount, t->sizes,
        t->has_strides ? t->strides : NULL);
    uint8_t mode = u8(r);
    if (repair || mode < 200)
        t->buf.TotalTensorSizeInBytes = need + (repair ? (mode % 4) * 4 : 0);
    else if (mode < 220)
        t->buf.TotalTensorSizeInBytes = need - 1;
    else if (mode < 235)
        t->buf.TotalTensorSizeInBytes = need & 0xffffffffu; /* a 32-bit truncation */
    else
        t->buf.TotalTensorSizeInBytes = ((uint64_t)u32(r) << 32) | u32(r);
    uint8_t a = u8(r);
    t->buf.GuaranteedBaseOffsetAlignment = (repair || a < 200) ? 0 : (a < 240 ? 1u << (a % 10) : u32(r));
}

/* Decodes a tensor with the given rank and data type (sizes from the reader
 * unless given). Output tensors in repair mode get packed strides. */
static void tensor_decode(fz_reader* r, fz_tensor* t, uint32_t rank, uint32_t type, const uint32_t* sizes,
    bool repair, bool output)
{
    memset(t, 0, sizeof *t);
    t->buf.DataType = (DML_TENSOR_DATA_TYPE)type;
    t->buf.DimensionCount = rank;
    uint32_t n = rank <= 8 ? rank : 8;
    for (uint32_t i = 0; i < n; i++) {
        t->sizes[i] = sizes ? sizes[i] : small_or_edge(r, 5);
        if (repair && (t->sizes[i] == 0 || (!sizes && t->sizes[i] > 6))) /* given sizes: derived from repaired ones */
            t->sizes[i] = 1 + t->sizes[i] % 6;
    }
    uint8_t s = u8(r);
    t->has_strides = s & 1;
    if (t->has_strides) {
        if (repair && output) {
            ref_packed_strides(n, t->sizes, t->strides);
            if (s & 2) /* padded rows */
                for (uint32_t i = 0; i + 1 < n; i++)
                    t->strides[i] *= 2;
        } else {
            for (uint32_t i = 0; i < n; i++) {
                t->strides[i] = small_or_edge(r, 40);
                if (repair && t->strides[i] > 64)
                    t->strides[i] %= 64;
            }
        }
    }
    uint8_t f = u8(r);
    t->buf.Flags = (DML_TENSOR_FLAGS)(f < 230 ? 0 : (f < 250 ? 1 : f));
    if (repair && (output || t->buf.Flags > 1))
        t->buf.Flags = DML_TENSOR_FLAG_NONE;
    tensor_link(t);
    tensor_bytes(r, t, repair);
}

static uint32_t data_type(fz_reader* r, bool repair)
{
    uint8_t b = u8(r);
    uint32_t t = b < 240 ? b % 12 : (b < 250 ? b : u32(r));
    if (repair && !dml_data_type_size(t))
        t = 1 + b % 11;
    return t;
}

/* ---- the case ------------------------------------------------------------------ */

/* The data-dependent kinds (decode_indexed). */
enum { FZ_GATHER = 7, FZ_GATHER_ELEMENTS, FZ_GATHER_ND, FZ_GATHER_ND1, FZ_SCATTER, FZ_SCATTER_ND, FZ_ONE_HOT, FZ_IF,
    FZ_KIND_END };

typedef struct fz_case {
    uint32_t kind; /* 0 reverse, 1 slice1, 2 slice, 3 other type, 4 tile, 5 cast, 6 padding, FZ_GATHER.. */
    bool repair;
    DML_OPERATOR_DESC op;
    DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC reverse;
    DML_SLICE1_OPERATOR_DESC slice1;
    DML_SLICE_OPERATOR_DESC slice;
    DML_TILE_OPERATOR_DESC tile;
    DML_CAST_OPERATOR_DESC cast;
    DML_PADDING_OPERATOR_DESC padding;
    DML_GATHER_OPERATOR_DESC gather;
    DML_GATHER_ELEMENTS_OPERATOR_DESC gather_elements;
    DML_GATHER_ND1_OPERATOR_DESC gather_nd1;
    DML_SCATTER_OPERATOR_DESC scatter;
    DML_SCATTER_ND_OPERATOR_DESC scatter_nd;
    DML_ONE_HOT_OPERATOR_DESC one_hot;
    DML_ELEMENT_WISE_IF_OPERATOR_DESC select;
    /* Inputs in binding order: in, lengths (REVERSE_SUBSEQUENCES' lengths; the
     * data-dependent kinds' second input), third (updates, IF's B). */
    fz_tensor in, lengths, third, out;
    uint32_t input_count;
    int index_input;     /* which input holds indices (hostile values written there), or -1 */
    bool in_place;       /* a scatter whose output is bound over its input's range */
    uint32_t offsets[8], window[8], ustrides[8];
    int32_t strides[8];
    uint32_t param_count;
    uint64_t seed;
} fz_case;

/* Whether the runtime implements operator type t, asked once of the runtime
 * itself (a desc with a NULL Desc: NOTIMPL before any field is read), so
 * that the fuzzer never hands one operator's desc struct to another that is
 * implemented, and learns every new operator without an edit here. */
static bool implemented_type(uint32_t t)
{
    static bool known, implemented[DML_OPERATOR_TYPE_LAST + 1];
    if (!known) {
        DML_DEVICE_DESC desc = { sizeof(DML_DEVICE_DESC), "cpu", 0, DML_CREATE_DEVICE_FLAG_NONE,
            DML_FEATURE_LEVEL_5_0 };
        DMLDevice device = NULL;
        if (dmlCreateDevice(&desc, &device) < 0)
            abort();
        for (uint32_t k = 1; k <= DML_OPERATOR_TYPE_LAST; ++k) {
            DML_OPERATOR_DESC probe = { (DML_OPERATOR_TYPE)k, NULL };
            DMLOperator op = NULL;
            implemented[k] = dmlDeviceCreateOperator(device, &probe, &op) != DML_E_NOTIMPL;
        }
        dmlRelease(device);
        known = true;
    }
    return t >= 1 && t <= DML_OPERATOR_TYPE_LAST && implemented[t];
}

/* ---- the data-dependent operators ---------------------------------------------- */

static uint32_t index_type(fz_reader* r, bool repair)
{
    static const uint32_t types[4] = { DML_TENSOR_DATA_TYPE_INT32, DML_TENSOR_DATA_TYPE_INT64,
        DML_TENSOR_DATA_TYPE_UINT32, DML_TENSOR_DATA_TYPE_UINT64 };
    uint8_t b = u8(r);
    return repair || b < 240 ? types[b % 4] : (uint32_t)(b % 12); /* sometimes any type */
}

/* Small sizes (fewer per dimension at high ranks), 1 past the rank. */
static void small_sizes(fz_reader* r, uint32_t rank, bool repair, uint32_t* sizes)
{
    const uint32_t max = rank <= 3 ? 5 : 2;
    for (uint32_t i = 0; i < 8; i++) {
        uint32_t v = i < rank ? small_or_edge(r, max) : 1;
        if (repair && (v == 0 || v > max + 1))
            v = 1 + v % (max + 1);
        sizes[i] = v;
    }
}

/* Outside repair mode, sometimes one size of a derived shape is anything. */
static void perturb(fz_reader* r, bool repair, uint32_t* sizes, uint32_t n)
{
    if (!repair && n && u8(r) >= 240)
        sizes[u8(r) % n] = small_or_edge(r, 6);
}

/* Right-aligns the meaningful shape src[0..m) into out[0..n): missing leading
 * entries are 1; in repair mode the extra leading entries are forced to 1
 * (where they come from), as the operators require. */
static void right_align(uint32_t** src, uint32_t m, uint32_t n, bool repair, uint32_t* out)
{
    if (repair)
        for (uint32_t k = 0; k + n < m; k++)
            *src[k] = 1;
    for (uint32_t i = 0; i < n; i++) {
        int64_t k = (int64_t)m - (int64_t)n + i;
        out[i] = k >= 0 ? *src[k] : 1;
    }
}

/* GATHER_ND's and SCATTER_ND's counts and shapes: in repair mode the counts
 * are brought into range, the leading dimensions and the batch sizes made
 * to agree; out gets the meaningful output (updates) shape right-aligned. */
static void nd_shapes(fz_reader* r, bool repair, uint32_t n, uint32_t* in_s, uint32_t* idx_s, uint32_t* out_s,
    uint32_t* input_dims, uint32_t* indices_dims, uint32_t* batch, bool has_batch)
{
    *input_dims = small_or_edge(r, 8);
    *indices_dims = small_or_edge(r, 8);
    *batch = has_batch ? small_or_edge(r, 3) : 0;
    if (repair) {
        *input_dims = 1 + *input_dims % n;
        *indices_dims = 1 + *indices_dims % n;
        uint32_t lim = *input_dims < *indices_dims ? *input_dims : *indices_dims;
        *batch %= lim;
        for (uint32_t i = 0; i + *input_dims < n; i++)
            in_s[i] = 1;
        for (uint32_t i = 0; i + *indices_dims < n; i++)
            idx_s[i] = 1;
        idx_s[n - 1] = 1 + idx_s[n - 1] % (*input_dims - *batch);
    }
    const uint32_t xd = *input_dims, id = *indices_dims, b = *batch;
    if (!(xd >= 1 && xd <= n && id >= 1 && id <= n && b < xd && b < id && idx_s[n - 1] >= 1 &&
            idx_s[n - 1] <= xd - b)) {
        small_sizes(r, n <= 8 ? n : 8, repair, out_s);
        return;
    }
    const uint32_t q = idx_s[n - 1];
    uint32_t* src[16];
    uint32_t m = 0;
    for (uint32_t j = n - id; j + 1 < n; j++)
        src[m++] = &idx_s[j];
    for (uint32_t i = n - xd + b + q; i < n; i++)
        src[m++] = &in_s[i];
    right_align(src, m, n, repair, out_s);
    if (repair) /* the batch sizes agree (after forcing, too) */
        for (uint32_t k = 0; k < b; k++)
            in_s[n - xd + k] = idx_s[n - id + k];
    right_align(src, m, n, false, out_s);
}

/* Decodes one of the eight data-dependent operators: random shapes, data
 * and index types, counts and axes; in repair mode every rule holds. */
static void decode_indexed(fz_reader* r, fz_case* c, uint32_t rank, uint32_t type)
{
    const bool repair = c->repair;
    const uint32_t n = rank <= 8 ? rank : 8;
    uint32_t a_s[8], b_s[8], out_s[8], third_s[8];
    uint32_t itype = index_type(r, repair), axis = small_or_edge(r, 8);
    if (repair)
        axis %= n;
    small_sizes(r, n, repair, a_s);
    small_sizes(r, n, repair, b_s);
    small_sizes(r, n, repair, out_s);
    memcpy(third_s, b_s, sizeof third_s);
    c->in_place = repair && (c->kind == FZ_SCATTER || c->kind == FZ_SCATTER_ND) && (u8(r) & 3) == 0;
    uint32_t t0 = type, t1 = itype, t2 = type, otype = type, xd = 0, id = 0, batch = 0, idims = 0;
    c->input_count = 2;
    c->index_input = 1;
    switch (c->kind) {
    case FZ_GATHER: {
        idims = small_or_edge(r, 8);
        if (repair) {
            idims %= n + 1;
            for (uint32_t i = 0; i + idims < n; i++)
                b_s[i] = 1;
        }
        if (axis < n && idims <= n) {
            uint32_t* src[16];
            uint32_t m = 0;
            for (uint32_t i = 0; i < axis; i++)
                src[m++] = &a_s[i];
            for (uint32_t j = n - idims; j < n; j++)
                src[m++] = &b_s[j];
            for (uint32_t i = axis + 1; i < n; i++)
                src[m++] = &a_s[i];
            right_align(src, m, n, repair, out_s);
        }
        break;
    }
    case FZ_GATHER_ELEMENTS:
    case FZ_SCATTER:
        memcpy(b_s, a_s, sizeof b_s);
        if (axis < n)
            b_s[axis] = out_s[0]; /* any size on the axis */
        if (c->kind == FZ_GATHER_ELEMENTS) {
            memcpy(out_s, b_s, sizeof out_s);
        } else {
            memcpy(third_s, b_s, sizeof third_s);
            memcpy(out_s, a_s, sizeof out_s);
            c->input_count = 3;
        }
        break;
    case FZ_GATHER_ND:
    case FZ_GATHER_ND1:
        nd_shapes(r, repair, n, a_s, b_s, out_s, &xd, &id, &batch, c->kind == FZ_GATHER_ND1);
        break;
    case FZ_SCATTER_ND:
        nd_shapes(r, repair, n, a_s, b_s, third_s, &xd, &id, &batch, false);
        memcpy(out_s, a_s, sizeof out_s);
        c->input_count = 3;
        break;
    case FZ_ONE_HOT: /* in: indices (the output's sizes, 1 on Axis), lengths: the values */
        memcpy(a_s, out_s, sizeof a_s);
        if (axis < n)
            a_s[axis] = 1;
        for (uint32_t i = 0; repair && i < n; i++)
            b_s[i] = i + 1 == n ? 2 + b_s[i] % 2 : 1;
        t0 = itype;
        t1 = type;
        c->index_input = 0;
        break;
    default: /* IF: condition, A, B of the output's sizes (strides may broadcast) */
        memcpy(a_s, out_s, sizeof a_s);
        memcpy(b_s, out_s, sizeof b_s);
        memcpy(third_s, out_s, sizeof third_s);
        t0 = repair || u8(r) < 240 ? DML_TENSOR_DATA_TYPE_UINT8 : data_type(r, false);
        t1 = type;
        c->input_count = 3;
        c->index_input = -1;
        break;
    }
    perturb(r, repair, out_s, n);
    perturb(r, repair, b_s, n);
    if (!repair && u8(r) >= 250)
        otype = data_type(r, false);
    uint32_t orank = (!repair && u8(r) >= 250) ? u8(r) % 10 : rank;
    tensor_decode(r, &c->in, rank, t0, a_s, repair, c->in_place); /* in place: a packed (or padded) layout */
    tensor_decode(r, &c->lengths, rank, t1, b_s, repair, false);
    if (c->input_count == 3)
        tensor_decode(r, &c->third, rank, t2, third_s, repair, false);
    if (c->in_place) { /* the output is the input: one layout, bound to one range */
        c->out = c->in;
        tensor_link(&c->out);
    } else {
        tensor_decode(r, &c->out, orank, otype, out_s, repair, true);
    }
    const DML_TENSOR_DESC *in = &c->in.desc, *idx = &c->lengths.desc, *third = &c->third.desc, *out = &c->out.desc;
    switch (c->kind) {
    case FZ_GATHER:
        c->gather = (DML_GATHER_OPERATOR_DESC){ in, idx, out, axis, idims };
        c->op = (DML_OPERATOR_DESC){ DML_OPERATOR_GATHER, &c->gather };
        break;
    case FZ_GATHER_ELEMENTS:
        c->gather_elements = (DML_GATHER_ELEMENTS_OPERATOR_DESC){ in, idx, out, axis };
        c->op = (DML_OPERATOR_DESC){ DML_OPERATOR_GATHER_ELEMENTS, &c->gather_elements };
        break;
    case FZ_GATHER_ND:
    case FZ_GATHER_ND1:
        /* GATHER_ND's desc is GATHER_ND1's without its last field */
        c->gather_nd1 = (DML_GATHER_ND1_OPERATOR_DESC){ in, idx, out, xd, id, batch };
        c->op = (DML_OPERATOR_DESC){ c->kind == FZ_GATHER_ND ? DML_OPERATOR_GATHER_ND : DML_OPERATOR_GATHER_ND1,
            &c->gather_nd1 };
        break;
    case FZ_SCATTER:
        c->scatter = (DML_SCATTER_OPERATOR_DESC){ in, idx, third, out, axis };
        c->op = (DML_OPERATOR_DESC){ DML_OPERATOR_SCATTER_ELEMENTS, &c->scatter };
        break;
    case FZ_SCATTER_ND:
        c->scatter_nd = (DML_SCATTER_ND_OPERATOR_DESC){ in, idx, third, out, xd, id };
        c->op = (DML_OPERATOR_DESC){ DML_OPERATOR_SCATTER_ND, &c->scatter_nd };
        break;
    case FZ_ONE_HOT:
        c->one_hot = (DML_ONE_HOT_OPERATOR_DESC){ in, idx, out, axis };
        c->op = (DML_OPERATOR_DESC){ DML_OPERATOR_ONE_HOT, &c->one_hot };
        break;
    default:
        c->select = (DML_ELEMENT_WISE_IF_OPERATOR_DESC){ in, idx, third, out };
        c->op = (DML_OPERATOR_DESC){ DML_OPERATOR_ELEMENT_WISE_IF, &c->select };
        break;
    }
}

static void decode(fz_reader* r, fz_case* c)
{
    memset(c, 0, sizeof *c);
    uint8_t head = u8(r);
    c->repair = head & 1;
    c->kind = (head >> 1) % 7;
    /* Most "other type" heads (those below 224) select a data-dependent kind:
     * the older kinds, and the corpus, keep their heads. */
    if (c->kind == 3 && head < 224)
        c->kind = FZ_GATHER + ((head >> 1) / 7) % (FZ_KIND_END - FZ_GATHER);
    if (c->repair && c->kind == 3)
        c->kind = head % 3;
    c->index_input = -1;
    c->input_count = 1;
    uint32_t rank = 1 + u8(r) % 8;
    if (!c->repair && u8(r) >= 240)
        rank = u8(r) % 12; /* 0, or above 8 */
    uint32_t type = data_type(r, c->repair);
    uint32_t n = rank <= 8 ? rank : 8;
    if (c->kind >= FZ_GATHER)
        decode_indexed(r, c, rank, type);
    else
        tensor_decode(r, &c->in, rank, type, NULL, c->repair, false);

    if (c->kind >= FZ_GATHER) {
        /* decoded above */
    } else if (c->kind >= 4) {
        /* TILE: repeats in ustrides; PADDING: StartPadding in offsets,
         * EndPadding in window; CAST: another output type. */
        uint32_t osizes[8], otype = type;
        c->param_count = rank;
        if (!c->repair && u8(r) >= 250)
            c->param_count = u8(r) % 10;
        if (c->kind == 5)
            otype = data_type(r, c->repair);
        for (uint32_t i = 0; i < 8; i++) {
            uint32_t in_size = c->in.sizes[i] ? c->in.sizes[i] : 1;
            c->ustrides[i] = small_or_edge(r, 3);
            c->offsets[i] = small_or_edge(r, 4);
            c->window[i] = small_or_edge(r, 4);
            if (c->repair) {
                c->ustrides[i] = 1 + c->ustrides[i] % 3;
                c->offsets[i] %= 5;
                c->window[i] %= 5;
            }
            uint64_t o = c->kind == 4 ? (uint64_t)in_size * c->ustrides[i]
                : c->kind == 6 ? (uint64_t)in_size + c->offsets[i] + c->window[i] : in_size;
            osizes[i] = o > UINT32_MAX || (!c->repair && u8(r) >= 250) ? small_or_edge(r, 9) : (uint32_t)o;
        }
        tensor_decode(r, &c->out, rank, otype, osizes, c->repair, true);
        if (c->kind == 4) {
            c->tile = (DML_TILE_OPERATOR_DESC){ &c->in.desc, &c->out.desc, c->param_count, c->ustrides };
            c->op = (DML_OPERATOR_DESC){ DML_OPERATOR_TILE, &c->tile };
        } else if (c->kind == 5) {
            c->cast = (DML_CAST_OPERATOR_DESC){ &c->in.desc, &c->out.desc };
            c->op = (DML_OPERATOR_DESC){ DML_OPERATOR_CAST, &c->cast };
        } else {
            uint32_t mode = u8(r);
            float value = (float)(int8_t)u8(r) / 4.0f;
            c->padding = (DML_PADDING_OPERATOR_DESC){ &c->in.desc, &c->out.desc,
                (DML_PADDING_MODE)(c->repair ? mode % 4 : (mode < 240 ? mode % 4 : mode)), value, c->param_count,
                c->offsets, c->window };
            c->op = (DML_OPERATOR_DESC){ DML_OPERATOR_PADDING, &c->padding };
        }
    } else if (c->kind == 0 || c->kind == 3) {
        uint32_t axis = small_or_edge(r, 8);
        if (c->repair)
            axis %= rank;
        uint32_t lsizes[8];
        memcpy(lsizes, c->in.sizes, sizeof lsizes);
        if (axis < n)
            lsizes[axis] = 1;
        uint8_t lt = u8(r);
        if (c->repair)
            lt %= 240;
        uint32_t ltype = lt < 120 ? DML_TENSOR_DATA_TYPE_UINT32
                                  : (lt < 240 ? DML_TENSOR_DATA_TYPE_UINT64 : (uint32_t)(lt % 12));
        uint32_t lrank = rank;
        if (!c->repair && u8(r) >= 250)
            lrank = u8(r) % 10;
        bool perturb = !c->repair && u8(r) >= 245;
        tensor_decode(r, &c->lengths, lrank, ltype, perturb ? NULL : lsizes, c->repair, false);
        uint32_t otype = (!c->repair && u8(r) >= 250) ? data_type(r, false) : type;
        bool operturb = !c->repair && u8(r) >= 250;
        tensor_decode(r, &c->out, rank, otype, operturb ? NULL : c->in.sizes, c->repair, true);
        c->input_count = 2;
        c->reverse.InputTensor = &c->in.desc;
        c->reverse.SequenceLengthsTensor = &c->lengths.desc;
        c->reverse.OutputTensor = &c->out.desc;
        c->reverse.Axis = axis;
        c->op.Type = DML_OPERATOR_REVERSE_SUBSEQUENCES;
        c->op.Desc = &c->reverse;
        if (c->kind == 3) { /* same desc, another type: NOTIMPL or INVALIDARG */
            uint8_t t = u8(r);
            c->op.Type = (DML_OPERATOR_TYPE)(t < 200 ? t % 180 : u32(r));
            if (implemented_type((uint32_t)c->op.Type))
                c->op.Type = DML_OPERATOR_INVALID;
        }
    } else {
        uint32_t osizes[8];
        c->param_count = rank;
        if (!c->repair && u8(r) >= 250)
            c->param_count = u8(r) % 10;
        for (uint32_t i = 0; i < 8; i++) {
            uint32_t in_size = c->in.sizes[i] ? c->in.sizes[i] : 1;
            c->offsets[i] = small_or_edge(r, 6);
            c->window[i] = small_or_edge(r, 7);
            uint32_t s = small_or_edge(r, 6);
            c->strides[i] = (int32_t)((u8(r) & 1) ? 0u - s : s); /* wraps: INT32_MIN and friends */
            if (c->repair) {
                c->offsets[i] %= in_size;
                c->window[i] = 1 + c->window[i] % (in_size - c->offsets[i]);
                if (c->strides[i] == 0 || c->strides[i] > 8 || c->strides[i] < -8)
                    c->strides[i] = 1 + (int32_t)(s % 3);
                if (c->kind == 2) { /* SLICE: positive strides, reads inside the input */
                    if (c->strides[i] < 0)
                        c->strides[i] = -c->strides[i];
                }
            }
            c->ustrides[i] = (uint32_t)c->strides[i];
            uint32_t mag = c->strides[i] < 0 ? (uint32_t)(-(int64_t)c->strides[i]) : (uint32_t)c->strides[i];
            uint32_t maxo = mag && c->window[i] ? 1 + (c->window[i] - 1) / mag : 1;
            uint32_t o = small_or_edge(r, 4);
            osizes[i] = c->repair ? 1 + o % maxo : (u8(r) < 200 ? maxo : o);
            if (c->kind == 2 && c->repair) /* window from the output sizes */
                c->window[i] = (osizes[i] - 1) * (uint32_t)c->strides[i] + 1;
        }
        uint32_t otype = (!c->repair && u8(r) >= 250) ? data_type(r, false) : type;
        uint32_t orank = (!c->repair && u8(r) >= 250) ? u8(r) % 10 : rank;
        tensor_decode(r, &c->out, orank, otype, osizes, c->repair, true);
        if (c->kind == 1) {
            c->slice1 = (DML_SLICE1_OPERATOR_DESC){ &c->in.desc, &c->out.desc, c->param_count, c->offsets, c->window,
                c->strides };
            c->op.Type = DML_OPERATOR_SLICE1;
            c->op.Desc = &c->slice1;
        } else {
            c->slice = (DML_SLICE_OPERATOR_DESC){ &c->in.desc, &c->out.desc, c->param_count, c->offsets, osizes,
                c->ustrides };
            /* osizes is on the stack: copy into window (unused by SLICE) */
            memcpy(c->window, osizes, sizeof osizes);
            c->slice.Sizes = c->window;
            c->op.Type = DML_OPERATOR_SLICE;
            c->op.Desc = &c->slice;
        }
    }
    /* Rare structural damage: NULL pointers and bad tensor types. */
    if (!c->repair) {
        uint8_t d = u8(r);
        if (d == 255)
            c->op.Desc = NULL;
        else if (d == 254)
            c->in.desc.Type = DML_TENSOR_TYPE_INVALID;
        else if (d == 253)
            c->in.buf.Sizes = NULL;
        else if (d == 252)
            c->out.desc.Desc = NULL;
    }
    c->seed = ((uint64_t)u32(r) << 32) | u32(r) | 1;
}

/* ---- execution and the oracle ---------------------------------------------------- */

FZ_ORACLE static uint64_t rng(uint64_t* s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

typedef struct fz_device {
    const char* backend;
    bool debug;
    DMLDevice device;
    DMLCommandQueue queue;
    DMLCommandRecorder recorder;
} fz_device;

static fz_device g_devices[] = { { "cpu", false, NULL, NULL, NULL }, { "cudaemu", true, NULL, NULL, NULL } };
#define FZ_DEVICES (sizeof g_devices / sizeof g_devices[0])

/* The debug device's messages (one per rejected desc) would flood stderr. */
static void ignore_message(DML_MESSAGE_SEVERITY severity, const char* message, void* context)
{
    (void)severity, (void)message, (void)context;
}

static void device_open(fz_device* d)
{
    DML_DEVICE_DESC desc = { sizeof(DML_DEVICE_DESC), d->backend, 0,
        d->debug ? DML_CREATE_DEVICE_FLAG_DEBUG : DML_CREATE_DEVICE_FLAG_NONE, DML_FEATURE_LEVEL_5_0 };
    DML_RESULT r = dmlCreateDevice(&desc, &d->device);
    if (r < 0)
        fz_fail("dmlCreateDevice", d->backend, r);
    if ((r = dmlDeviceCreateCommandQueue(d->device, NULL, &d->queue)) < 0)
        fz_fail("dmlDeviceCreateCommandQueue", d->backend, r);
    if ((r = dmlDeviceCreateCommandRecorder(d->device, &d->recorder)) < 0)
        fz_fail("dmlDeviceCreateCommandRecorder", d->backend, r);
}

static void device_close(fz_device* d)
{
    dmlRelease(d->recorder);
    dmlRelease(d->queue);
    dmlRelease(d->device);
    d->recorder = NULL;
    d->queue = NULL;
    d->device = NULL;
}

/* The debug device lives for one input: its quarantine (what the input
 * released) is freed when it closes, so every input frees what it allocates
 * (libFuzzer re-runs, and leak-checks, any input that does not). */
static void devices_open(void)
{
    if (!g_devices[0].device)
        dmlSetMessageCallback(ignore_message, NULL);
    for (size_t i = 0; i < FZ_DEVICES; i++)
        if (!g_devices[i].device)
            device_open(&g_devices[i]);
}

static void debug_devices_close(void)
{
    for (size_t i = 0; i < FZ_DEVICES; i++)
        if (g_devices[i].debug)
            device_close(&g_devices[i]);
}

void fuzz_operators_cleanup(void)
{
    for (size_t i = 0; i < FZ_DEVICES; i++)
        device_close(&g_devices[i]);
    dmlSetMessageCallback(NULL, NULL);
}

typedef enum fz_stale {
    FZ_STALE_OPERATOR,
    FZ_STALE_COMPILED,
    FZ_STALE_INITIALIZER,
    FZ_STALE_TABLE,
    FZ_STALE_BUFFER,
} fz_stale;

/* On a debug device: one use of a handle just released (the entry point
 * chosen by `pick`) must fail with DML_E_INVALIDARG naming it as released. */
FZ_ORACLE static void use_stale(const fz_device* dev, void* handle, fz_stale kind, uint64_t pick)
{
    if (!dev->debug || !handle)
        return;
    DML_RESULT r = DML_E_INVALIDARG;
    void* out = NULL;
    uint8_t byte = 0;
    switch (pick % 4) {
    case 0: r = dmlSetName(handle, "stale"); break;
    case 1: r = dmlAddRef(handle) == 0 ? DML_E_INVALIDARG : DML_S_OK; break;
    case 2: r = dmlRelease(handle) == 0 ? DML_E_INVALIDARG : DML_S_OK; break;
    default:
        switch (kind) {
        case FZ_STALE_OPERATOR:
            r = dmlDeviceCompileOperator(dev->device, handle, DML_EXECUTION_FLAG_NONE, (DMLCompiledOperator*)&out);
            break;
        case FZ_STALE_COMPILED:
        case FZ_STALE_INITIALIZER: {
            DML_BINDING_TABLE_DESC td = { handle };
            r = dmlDeviceCreateBindingTable(dev->device, &td, (DMLBindingTable*)&out);
            break;
        }
        case FZ_STALE_TABLE: r = dmlBindingTableBindInputs(handle, 0, NULL); break;
        case FZ_STALE_BUFFER: r = dmlCommandQueueWriteBuffer(dev->queue, handle, 0, &byte, 1); break;
        }
    }
    if (r != DML_E_INVALIDARG || out || !strstr(dmlGetLastErrorMessage(), "is a released "))
        fz_fail("a stale handle on the debug device was not reported as released", dev->backend, r);
}

static unsigned long g_executed;

unsigned long fuzz_operators_executed(void)
{
    return g_executed;
}

static bool is_known_type(uint32_t t)
{
    return t >= 1 && t <= DML_OPERATOR_TYPE_LAST;
}

#define CHECK(call, what)                                                                                  \
    do {                                                                                                   \
        DML_RESULT r_ = (call);                                                                            \
        if (r_ < 0)                                                                                        \
            fz_fail(what, dev->backend, r_);                                                               \
    } while (0)

static DML_BUFFER_BINDING bb(DMLBuffer b, uint64_t offset, uint64_t size)
{
    DML_BUFFER_BINDING x = { b, offset, size };
    return x;
}

/* The case's tensors: inputs in binding order, then the output (FZ_OUT). */
#define FZ_SLOTS 4
#define FZ_OUT 3

static fz_tensor* slot_tensor(fz_case* c, int i)
{
    if (i == FZ_OUT)
        return &c->out;
    if ((uint32_t)i >= c->input_count)
        return NULL;
    return i == 0 ? &c->in : (i == 1 ? &c->lengths : &c->third);
}

static ref_view view_of(const fz_tensor* t, uint8_t* host, uint64_t bytes)
{
    ref_view v = { dml_data_type_size(t->buf.DataType), t->buf.DimensionCount, t->sizes, t->buf.Strides, host,
        bytes };
    return v;
}

static bool is_signed_index(const fz_tensor* t)
{
    return t->buf.DataType == DML_TENSOR_DATA_TYPE_INT32 || t->buf.DataType == DML_TENSOR_DATA_TYPE_INT64;
}

/* Index values worth trying: in range, negative from the end, just out, and
 * the ones whose arithmetic overflows (INT64_MIN, 2^63, UINT64_MAX ...). */
FZ_ORACLE static void hostile_indices(uint8_t* bytes, uint64_t size, uint32_t es, uint64_t* seed)
{
    static const uint64_t edges[] = { 0x8000000000000000ull, 0x7fffffffffffffffull, 0xffffffffffffffffull,
        0x80000000ull, 0x7fffffffull, 0xffffffffull, 0xffffffff80000000ull, 0x100000000ull, 0xfffffffffffffffeull };
    if (es != 4 && es != 8)
        return;
    for (uint64_t b = 0; b + es <= size; b += es) {
        uint64_t v = rng(seed), value;
        if ((v & 3) == 0)
            continue; /* random bytes */
        if ((v & 3) == 1)
            value = edges[(v >> 8) % (sizeof edges / sizeof edges[0])];
        else
            value = (uint64_t)((int64_t)((v >> 8) % 16) - 4); /* -4 .. 11 */
        memcpy(bytes + b, &value, es); /* little-endian: the low bytes for 32-bit indices */
    }
}

/* The byte offset of the u-th element (row-major) of a tensor. */
FZ_ORACLE static uint64_t element_offset(const fz_tensor* t, uint64_t u)
{
    const uint32_t n = t->buf.DimensionCount;
    uint32_t packed[8];
    const uint32_t* strides = t->buf.Strides;
    if (!strides) {
        ref_packed_strides(n, t->sizes, packed);
        strides = packed;
    }
    uint64_t off = 0;
    for (uint32_t i = n; i-- > 0;) {
        off += (u % t->sizes[i]) * strides[i];
        u /= t->sizes[i];
    }
    return off * dml_data_type_size(t->buf.DataType);
}

typedef struct fz_target {
    uint64_t target, update;
} fz_target;

static int target_order(const void* a, const void* b)
{
    const fz_target *x = a, *y = b;
    return x->target < y->target ? -1 : x->target > y->target ? 1 : (x->update > y->update) - (x->update < y->update);
}

/* Several updates of one element: DirectML leaves which one wins open, and
 * only "cpu" promises the last. Elsewhere any of them is accepted: where the
 * backend wrote one of the colliding updates, the reference takes it. */
FZ_ORACLE static void accept_any_collision(const fz_case* c, const uint64_t* targets, uint64_t count,
    const uint8_t* updates, const uint8_t* got, uint8_t* want)
{
    fz_target* t = malloc((count ? count : 1) * sizeof *t);
    if (!t)
        abort();
    uint64_t k = 0;
    for (uint64_t u = 0; u < count; u++)
        if (targets[u] != UINT64_MAX)
            t[k++] = (fz_target){ targets[u], u };
    qsort(t, k, sizeof *t, target_order);
    const uint32_t es = dml_data_type_size(c->out.buf.DataType);
    for (uint64_t i = 0; i < k;) {
        uint64_t j = i + 1;
        while (j < k && t[j].target == t[i].target)
            j++;
        for (uint64_t g = i; j - i > 1 && g < j; g++)
            if (memcmp(got + t[i].target, updates + element_offset(&c->third, t[g].update), es) == 0) {
                memcpy(want + t[i].target, got + t[i].target, es);
                break;
            }
        i = j;
    }
    free(t);
}

static uint64_t element_count(const fz_tensor* t)
{
    uint64_t n = 1;
    for (uint32_t i = 0; i < t->buf.DimensionCount && i < 8; i++)
        n *= t->sizes[i];
    return n;
}

/* The reference on host copies: host[FZ_OUT] starts as the output's bytes. */
FZ_ORACLE static void reference(const fz_device* dev, fz_case* c, uint8_t** host, const uint64_t* sizes,
    const uint8_t* got)
{
    ref_view vin = view_of(&c->in, host[0], sizes[0]), vout = view_of(&c->out, host[FZ_OUT], sizes[FZ_OUT]);
    ref_view v1 = view_of(&c->lengths, host[1], sizes[1]), v2 = view_of(&c->third, host[2], sizes[2]);
    const int sig = is_signed_index(&c->lengths);
    uint64_t* targets = NULL;
    uint64_t updates = 0;
    switch ((uint32_t)c->op.Type) {
    case DML_OPERATOR_REVERSE_SUBSEQUENCES: ref_reverse_subsequences(&vin, &v1, &vout, c->reverse.Axis); break;
    case DML_OPERATOR_SLICE1: ref_slice1(&vin, &vout, c->offsets, c->window, c->strides); break;
    case DML_OPERATOR_TILE: ref_tile(&vin, &vout); break;
    case DML_OPERATOR_CAST: ref_cast(&vin, c->in.buf.DataType, &vout, c->out.buf.DataType); break;
    case DML_OPERATOR_PADDING: {
        uint8_t value[8];
        ref_cast_element(c->out.buf.DataType, value, DML_TENSOR_DATA_TYPE_FLOAT32, &c->padding.PaddingValue);
        ref_padding(&vin, &vout, c->padding.PaddingMode, value, c->offsets);
        break;
    }
    case DML_OPERATOR_GATHER: ref_gather(&vin, &v1, &vout, c->gather.Axis, c->gather.IndexDimensions, sig); break;
    case DML_OPERATOR_GATHER_ELEMENTS: ref_gather_elements(&vin, &v1, &vout, c->gather_elements.Axis, sig); break;
    case DML_OPERATOR_GATHER_ND:
    case DML_OPERATOR_GATHER_ND1:
        ref_gather_nd(&vin, &v1, &vout, c->gather_nd1.InputDimensionCount, c->gather_nd1.IndicesDimensionCount,
            c->op.Type == DML_OPERATOR_GATHER_ND ? 0 : c->gather_nd1.BatchDimensionCount, sig);
        break;
    case DML_OPERATOR_SCATTER_ELEMENTS:
    case DML_OPERATOR_SCATTER_ND:
        updates = element_count(&c->third);
        targets = malloc(updates * sizeof *targets);
        if (!targets)
            abort();
        if (c->op.Type == DML_OPERATOR_SCATTER_ND)
            ref_scatter_nd(&vin, &v1, &v2, &vout, c->scatter_nd.InputDimensionCount,
                c->scatter_nd.IndicesDimensionCount, sig, targets);
        else
            ref_scatter_elements(&vin, &v1, &v2, &vout, c->scatter.Axis, sig, targets);
        if (strcmp(dev->backend, "cpu") != 0)
            accept_any_collision(c, targets, updates, host[2], got, host[FZ_OUT]);
        free(targets);
        break;
    case DML_OPERATOR_ONE_HOT: ref_one_hot(&vin, &v1, &vout, c->one_hot.Axis, is_signed_index(&c->in)); break;
    case DML_OPERATOR_ELEMENT_WISE_IF: ref_element_wise_if(&vin, &v1, &v2, &vout); break;
    default: ref_slice(&vin, &vout, c->offsets, c->ustrides); break;
    }
}

/* Runs an accepted, small operator and compares with the reference. */
FZ_ORACLE static void execute(fz_device* dev, fz_case* c, DMLOperator op)
{
    const bool reverse = c->op.Type == DML_OPERATOR_REVERSE_SUBSEQUENCES;
    const uint32_t nin = c->input_count;
    uint64_t sizes[FZ_SLOTS] = { 0 };
    uint8_t* host[FZ_SLOTS] = { NULL };
    uint64_t seed = c->seed;
    for (int i = 0; i < FZ_SLOTS; i++) {
        const fz_tensor* t = slot_tensor(c, i);
        sizes[i] = t ? t->buf.TotalTensorSizeInBytes : 0;
        host[i] = malloc(sizes[i] ? sizes[i] : 1);
        if (!host[i])
            abort();
        for (uint64_t b = 0; b < sizes[i]; b++)
            host[i][b] = (uint8_t)rng(&seed);
    }
    if (reverse && (seed & 3)) { /* mostly meaningful lengths: 0 .. axis+2, sometimes huge */
        uint32_t ls = dml_data_type_size(c->lengths.buf.DataType);
        uint32_t axis_size = c->in.sizes[c->reverse.Axis];
        for (uint64_t b = 0; b + ls <= sizes[1]; b += ls) {
            uint64_t v = rng(&seed);
            uint64_t len = (v & 0xf0) == 0xf0 ? (ls == 4 ? UINT32_MAX : UINT64_MAX) : v % (axis_size + 3);
            memcpy(host[1] + b, &len, ls); /* little-endian */
        }
    }
    if (c->index_input >= 0)
        hostile_indices(host[c->index_input], sizes[c->index_input],
            dml_data_type_size(slot_tensor(c, c->index_input)->buf.DataType), &seed);
    const bool in_place = c->in_place && !(c->in.buf.Flags & DML_TENSOR_FLAG_OWNED_BY_DML);
    if (in_place) /* one range: the output starts as the input */
        memcpy(host[FZ_OUT], host[0], sizes[0]);
    /* One buffer, the ranges aligned to 256 or the largest GuaranteedBaseOffsetAlignment. */
    uint64_t align = 256;
    for (int i = 0; i < FZ_SLOTS; i++) {
        const fz_tensor* t = slot_tensor(c, i);
        if (t && t->buf.GuaranteedBaseOffsetAlignment > align)
            align = t->buf.GuaranteedBaseOffsetAlignment; /* accepted, so a power of two; capped by small_enough */
    }
    uint64_t offs[FZ_SLOTS], total = 0;
    for (int i = 0; i < FZ_SLOTS; i++) {
        offs[i] = total;
        if (!(in_place && i == FZ_OUT))
            total += (sizes[i] + align - 1) & ~(align - 1);
    }
    if (in_place)
        offs[FZ_OUT] = offs[0];
    DMLBuffer buffer = NULL, persistent = NULL;
    DMLCompiledOperator compiled = NULL;
    DMLOperatorInitializer init = NULL;
    DMLBindingTable table = NULL;
    CHECK(dmlDeviceCreateBuffer(dev->device, total ? total : 1, &buffer), "CreateBuffer");
    for (int i = 0; i < FZ_SLOTS; i++)
        if (sizes[i] && !(in_place && i == FZ_OUT))
            CHECK(dmlCommandQueueWriteBuffer(dev->queue, buffer, offs[i], host[i], sizes[i]), "WriteBuffer");
    CHECK(dmlDeviceCompileOperator(dev->device, op, DML_EXECUTION_FLAG_NONE, &compiled), "CompileOperator");

    bool any_owned = false;
    for (uint32_t i = 0; i < nin; i++)
        any_owned |= (slot_tensor(c, (int)i)->buf.Flags & DML_TENSOR_FLAG_OWNED_BY_DML) != 0;
    DML_BINDING_PROPERTIES props = dmlDispatchableGetBindingProperties(compiled);
    if (any_owned != (props.PersistentResourceSize > 0))
        fz_fail("PersistentResourceSize disagrees with OWNED_BY_DML", dev->backend, 0);
    if (props.PersistentResourceSize)
        CHECK(dmlDeviceCreateBuffer(dev->device, props.PersistentResourceSize, &persistent), "CreateBuffer(p)");
    DML_BUFFER_BINDING b[FZ_SLOTS];
    DML_BINDING_DESC d[FZ_SLOTS];
    if (any_owned) {
        CHECK(dmlDeviceCreateOperatorInitializer(dev->device, 1, &compiled, &init), "CreateOperatorInitializer");
        DML_BINDING_TABLE_DESC td = { init };
        CHECK(dmlDeviceCreateBindingTable(dev->device, &td, &table), "CreateBindingTable(init)");
        for (uint32_t i = 0; i < nin; i++)
            b[i] = (slot_tensor(c, (int)i)->buf.Flags & DML_TENSOR_FLAG_OWNED_BY_DML) ? bb(buffer, offs[i], sizes[i])
                                                                                     : bb(NULL, 0, 0);
        DML_BUFFER_ARRAY_BINDING array = { nin, b };
        DML_BINDING_DESC one = { DML_BINDING_TYPE_BUFFER_ARRAY, &array };
        CHECK(dmlBindingTableBindInputs(table, 1, &one), "BindInputs(init)");
        DML_BUFFER_BINDING p = bb(persistent, 0, props.PersistentResourceSize);
        DML_BINDING_DESC po = { DML_BINDING_TYPE_BUFFER, &p };
        CHECK(dmlBindingTableBindOutputs(table, 1, &po), "BindOutputs(init)");
        CHECK(dmlCommandRecorderRecordDispatch(dev->recorder, dev->queue, init, table), "RecordDispatch(init)");
        dmlRelease(table);
        table = NULL;
        /* Clobber the owned sources: the result must come from the persistent copy. */
        for (uint32_t i = 0; i < nin; i++) {
            if (!(slot_tensor(c, (int)i)->buf.Flags & DML_TENSOR_FLAG_OWNED_BY_DML) || !sizes[i])
                continue;
            uint8_t* junk = malloc(sizes[i]);
            if (!junk)
                abort();
            memset(junk, 0xEE, sizes[i]);
            CHECK(dmlCommandQueueWriteBuffer(dev->queue, buffer, offs[i], junk, sizes[i]), "WriteBuffer(clobber)");
            free(junk);
        }
    }
    DML_BINDING_TABLE_DESC td = { compiled };
    CHECK(dmlDeviceCreateBindingTable(dev->device, &td, &table), "CreateBindingTable");
    for (uint32_t i = 0; i < nin; i++) {
        bool owned = (slot_tensor(c, (int)i)->buf.Flags & DML_TENSOR_FLAG_OWNED_BY_DML) != 0;
        b[i] = bb(buffer, offs[i], sizes[i]);
        d[i].Type = owned ? DML_BINDING_TYPE_NONE : DML_BINDING_TYPE_BUFFER;
        d[i].Desc = owned ? NULL : &b[i];
    }
    CHECK(dmlBindingTableBindInputs(table, nin, d), "BindInputs");
    b[FZ_OUT] = bb(buffer, offs[FZ_OUT], sizes[FZ_OUT]);
    d[FZ_OUT].Type = DML_BINDING_TYPE_BUFFER;
    d[FZ_OUT].Desc = &b[FZ_OUT];
    CHECK(dmlBindingTableBindOutputs(table, 1, &d[FZ_OUT]), in_place ? "BindOutputs (in place)" : "BindOutputs");
    if (persistent) {
        DML_BUFFER_BINDING p = bb(persistent, 0, props.PersistentResourceSize);
        DML_BINDING_DESC po = { DML_BINDING_TYPE_BUFFER, &p };
        CHECK(dmlBindingTableBindPersistentResource(table, &po), "BindPersistentResource");
    }
    CHECK(dmlCommandRecorderRecordDispatch(dev->recorder, dev->queue, compiled, table), "RecordDispatch");
    uint8_t* got = malloc(sizes[FZ_OUT] ? sizes[FZ_OUT] : 1);
    if (!got)
        abort();
    CHECK(dmlCommandQueueReadBuffer(dev->queue, buffer, offs[FZ_OUT], got, sizes[FZ_OUT]), "ReadBuffer");
    CHECK(dmlCommandQueueSynchronize(dev->queue), "Synchronize");

    reference(dev, c, host, sizes, got);
    if (memcmp(got, host[FZ_OUT], sizes[FZ_OUT]) != 0) {
        for (uint64_t i = 0; i < sizes[FZ_OUT]; i++)
            if (got[i] != host[FZ_OUT][i]) {
                fprintf(stderr, "fuzz_operators [%s]: output byte %llu is 0x%02x, reference 0x%02x\n", dev->backend,
                    (unsigned long long)i, got[i], host[FZ_OUT][i]);
                break;
            }
        fz_fail("result differs from the reference", dev->backend, 0);
    }
    free(got);
    g_executed++;
    dmlRelease(table);
    dmlRelease(init);
    dmlRelease(persistent);
    dmlRelease(compiled);
    dmlRelease(buffer);
    switch (rng(&seed) % 5) { /* all of them are destroyed now */
    case 0: use_stale(dev, table, FZ_STALE_TABLE, seed >> 8); break;
    case 1: use_stale(dev, init, FZ_STALE_INITIALIZER, seed >> 8); break;
    case 2: use_stale(dev, persistent, FZ_STALE_BUFFER, seed >> 8); break;
    case 3: use_stale(dev, compiled, FZ_STALE_COMPILED, seed >> 8); break;
    default: use_stale(dev, buffer, FZ_STALE_BUFFER, seed >> 8); break;
    }
    for (int i = 0; i < FZ_SLOTS; i++)
        free(host[i]);
}

static bool small_enough(fz_case* c)
{
    for (int i = 0; i < FZ_SLOTS; i++) {
        const fz_tensor* t = slot_tensor(c, i);
        if (!t)
            continue;
        if (t->buf.TotalTensorSizeInBytes > FZ_MAX_BYTES || t->buf.GuaranteedBaseOffsetAlignment > FZ_MAX_BYTES)
            return false;
        /* The work is the element count: bounded by the bytes only when
         * packed-ish, so bound it directly (each size is >= 1 here). */
        uint64_t n = 1;
        for (uint32_t k = 0; k < t->buf.DimensionCount && k < 8; k++) {
            n *= t->sizes[k];
            if (n > FZ_MAX_BYTES)
                return false;
        }
    }
    return true;
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    fz_reader reader = { data, size, 0 };
    fz_case c;
    decode(&reader, &c);
    devices_open();
    for (size_t k = 0; k < FZ_DEVICES; k++) {
        fz_device* dev = &g_devices[k];
        DMLOperator op = NULL;
        DML_RESULT r = dmlDeviceCreateOperator(dev->device, &c.op, &op);
        if (r < 0) {
            const char* m = dmlGetLastErrorMessage();
            if (op != NULL)
                fz_fail("a failing CreateOperator wrote its out-parameter", dev->backend, r);
            if (!m || !m[0])
                fz_fail("rejected without a message", dev->backend, r);
            const bool known_other = c.kind == 3 && is_known_type((uint32_t)c.op.Type);
            if (r == DML_E_NOTIMPL) {
                if (!known_other)
                    fz_fail("DML_E_NOTIMPL for an implemented or an invalid operator type", dev->backend, r);
            } else if (r != DML_E_INVALIDARG) {
                fz_fail("rejected with a code other than DML_E_INVALIDARG", dev->backend, r);
            } else if (known_other && c.op.Desc) {
                fz_fail("a valid unimplemented operator type gave DML_E_INVALIDARG, not NOTIMPL", dev->backend, r);
            }
            if (c.repair)
                fz_fail("a desc repaired into the valid range was rejected", dev->backend, r);
            continue;
        }
        if (c.kind == 3)
            fz_fail("an unimplemented operator type was accepted", dev->backend, r);
        if (small_enough(&c))
            execute(dev, &c, op);
        dmlRelease(op);
        use_stale(dev, op, FZ_STALE_OPERATOR, c.seed >> 3);
    }
    debug_devices_close();
    return 0;
}

/*
 * test_differential.c — randomized differential tests of the operators
 * against the independent reference (reference.c).
 *
 * Deterministic: the seed is printed; DML_TEST_SEED=<n> overrides it. Each case
 * draws a data type, rank, sizes, strides (packed / padded / permuted / broadcast
 * inputs, padded / permuted outputs), operator parameters, placement of every
 * tensor at a random multiple of 16 (or of its GuaranteedBaseOffsetAlignment)
 * inside a larger buffer (sometimes one buffer shared by all tensors), and
 * sometimes OWNED_BY_DML inputs. Every buffer starts as random bytes; after the
 * dispatch the whole output buffer must equal, byte for byte, the reference run
 * on a copy of the same starting bytes (so nothing outside the addressed output
 * elements may change). A failure prints the full case.
 */
#include "harness.h"
#include "reference.h"

#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static harness H;
static uint64_t g_seed = 0x5EEDD311ull;

static void setup(void) { h_init(&H); }
static void teardown(void) { h_fini(&H); }


/* uniform in [0, n), n >= 1 */
static uint64_t rbelow(rng* r, uint64_t n) { return rnext(r) % n; }
static int rchance(rng* r, unsigned percent) { return rbelow(r, 100) < percent; }

static rng rng_for(uint64_t a, uint64_t b, uint64_t c)
{
    rng r = { g_seed ^ (a * 0x100000001B3ull) ^ (b << 32) ^ (c << 48) };
    rnext(&r);
    return r;
}

/* ---- cases ---------------------------------------------------------------- */

enum { OP_RS, OP_SLICE1, OP_SLICE, OP_TILE, OP_D2S, OP_S2D };
static const char* const OP_NAMES[] = { "REVERSE_SUBSEQUENCES", "SLICE1", "SLICE", "TILE", "DEPTH_TO_SPACE",
    "SPACE_TO_DEPTH" };

typedef struct tdesc {
    DML_TENSOR_DATA_TYPE type;
    uint32_t rank;
    uint32_t sizes[8];
    uint32_t strides[8];
    int has_strides;
    const char* layout;
    uint64_t total;       /* TotalTensorSizeInBytes */
    uint32_t align;       /* GuaranteedBaseOffsetAlignment */
    int owned;
    uint32_t buffer;      /* which buffer */
    uint64_t offset;      /* binding Offset */
    uint64_t bind_size;   /* binding SizeInBytes */
} tdesc;

typedef struct dcase {
    int op;
    const char* kind;
    uint64_t index;
    tdesc in, len, out;
    uint32_t axis;
    uint32_t offsets[8], window[8];
    int32_t s1_strides[8];
    uint32_t s_strides[8];
    uint32_t repeats[8];
    uint32_t block;      /* DEPTH_TO_SPACE / SPACE_TO_DEPTH */
    int crd, version1;  /* COLUMN_ROW_DEPTH order; the *1 desc (else version 0, DEPTH_COLUMN_ROW) */
    uint32_t exec_flags;
    int shared;
    uint32_t nbuffers;
    uint64_t buffer_size[3];
} dcase;

static void dump_u32(FILE* f, const char* name, uint32_t n, const uint32_t* v)
{
    fprintf(f, "  %s {", name);
    for (uint32_t i = 0; i < n; ++i)
        fprintf(f, "%s%" PRIu32, i ? "," : "", v[i]);
    fprintf(f, "}\n");
}

static void dump_tensor(FILE* f, const char* name, const tdesc* t)
{
    fprintf(f, " %s: %s rank %u layout %s%s, TotalTensorSizeInBytes %" PRIu64
               ", GuaranteedBaseOffsetAlignment %u, buffer %u Offset %" PRIu64 " SizeInBytes %" PRIu64 "\n",
            name, h_type_name(t->type), t->rank, t->layout, t->owned ? " OWNED_BY_DML" : "", t->total, t->align,
            t->buffer, t->offset, t->bind_size);
    dump_u32(f, "Sizes", t->rank, t->sizes);
    if (t->has_strides)
        dump_u32(f, "Strides", t->rank, t->strides);
    else
        fprintf(f, "  Strides NULL\n");
}

static void dump_case(FILE* f, const dcase* c)
{
    fprintf(f, "---- case %" PRIu64 " (%s), seed %" PRIu64 " (DML_TEST_SEED), backend %s ----\n", c->index, c->kind,
            g_seed, h_backend());
    fprintf(f, " %s, execution flags 0x%x, %s buffers:", OP_NAMES[c->op], c->exec_flags,
            c->shared ? "one shared" : "separate");
    for (uint32_t i = 0; i < c->nbuffers; ++i)
        fprintf(f, " %" PRIu64, c->buffer_size[i]);
    fprintf(f, " bytes\n");
    dump_tensor(f, "InputTensor", &c->in);
    if (c->op == OP_RS) {
        dump_tensor(f, "SequenceLengthsTensor", &c->len);
        fprintf(f, " Axis %u\n", c->axis);
    }
    dump_tensor(f, "OutputTensor", &c->out);
    if (c->op == OP_SLICE1) {
        dump_u32(f, "InputWindowOffsets", c->in.rank, c->offsets);
        dump_u32(f, "InputWindowSizes", c->in.rank, c->window);
        fprintf(f, "  InputWindowStrides {");
        for (uint32_t i = 0; i < c->in.rank; ++i)
            fprintf(f, "%s%" PRId32, i ? "," : "", c->s1_strides[i]);
        fprintf(f, "}\n");
    } else if (c->op == OP_SLICE) {
        dump_u32(f, "Offsets", c->in.rank, c->offsets);
        dump_u32(f, "Sizes", c->in.rank, c->out.sizes);
        dump_u32(f, "Strides", c->in.rank, c->s_strides);
    } else if (c->op == OP_TILE) {
        dump_u32(f, "Repeats", c->in.rank, c->repeats);
    } else if (c->op == OP_D2S || c->op == OP_S2D) {
        fprintf(f, " BlockSize %u, Order %s (%s desc)", c->block, c->crd ? "COLUMN_ROW_DEPTH" : "DEPTH_COLUMN_ROW",
            c->version1 ? "the *1" : "the version 0");
    }
}

/* ---- generation ----------------------------------------------------------- */

/* Largest size per dimension by rank: a few thousand elements at most
 * (slices read a larger input than they write). */
static const uint32_t MAX_DIM[9] = { 0, 64, 24, 10, 6, 5, 4, 3, 3 };
static const uint32_t MAX_DIM_SLICE[9] = { 0, 128, 40, 14, 8, 6, 5, 4, 3 };

static void random_sizes(rng* r, uint32_t rank, uint32_t* sizes, const uint32_t* max_dim)
{
    for (uint32_t i = 0; i < rank; ++i)
        sizes[i] = rchance(r, 10) ? 1 : 1 + (uint32_t)rbelow(r, max_dim[rank]);
}

enum { L_NULL, L_PACKED, L_PADDED, L_PERMUTED, L_BROADCAST, L_COUNT };
static const char* const LAYOUT_NAMES[] = { "packed(NULL)", "packed", "padded", "permuted", "broadcast" };

/* Strides for t->sizes. zero_mask: dimensions that must get stride 0 (inputs
 * only). Outputs never broadcast and never alias. */
static void random_strides(rng* r, tdesc* t, int is_output, uint32_t zero_mask)
{
    const uint32_t rank = t->rank;
    int mode = (int)rbelow(r, is_output ? L_BROADCAST : L_COUNT);
    if (zero_mask && (mode == L_NULL || mode == L_PACKED))
        mode = L_PADDED;
    t->layout = LAYOUT_NAMES[mode];
    if (mode == L_NULL) {
        t->has_strides = 0;
        return;
    }
    t->has_strides = 1;
    uint32_t order[8]; /* order[0] outermost ... order[rank-1] innermost */
    for (uint32_t i = 0; i < rank; ++i)
        order[i] = i;
    if (mode == L_PERMUTED)
        for (uint32_t i = rank; i > 1; --i) {
            uint32_t j = (uint32_t)rbelow(r, i), tmp = order[i - 1];
            order[i - 1] = order[j];
            order[j] = tmp;
        }
    const int gaps = (mode == L_PADDED || mode == L_PERMUTED) && rchance(r, 75);
    uint64_t maxoff = 0;
    for (uint32_t k = rank; k-- > 0;) {
        uint32_t d = order[k];
        if (zero_mask & (1u << d)) {
            t->strides[d] = 0;
            continue;
        }
        uint64_t s = maxoff + 1 + (gaps ? rbelow(r, 4) : 0);
        t->strides[d] = (uint32_t)s;
        maxoff += (uint64_t)(t->sizes[d] - 1) * s;
    }
    if (mode == L_BROADCAST) {
        uint32_t mask = 0;
        for (uint32_t i = 0; i < rank; ++i)
            if (rchance(r, 40))
                mask |= 1u << i;
        if (!mask)
            mask = 1u << rbelow(r, rank);
        for (uint32_t i = 0; i < rank; ++i)
            if (mask & (1u << i))
                t->strides[i] = 0;
    }
    /* a size-1 dimension's stride never matters */
    for (uint32_t i = 0; i < rank; ++i)
        if (t->sizes[i] == 1 && !(zero_mask & (1u << i)) && rchance(r, 10))
            t->strides[i] = (uint32_t)(is_output ? 1 + rbelow(r, 50) : rbelow(r, 50));
}

static DML_TENSOR_DATA_TYPE random_type(rng* r)
{
    return (DML_TENSOR_DATA_TYPE)(1 + rbelow(r, 11));
}

/* Fills total / alignment / placement of every tensor and the buffer sizes. */
static void place(rng* r, dcase* c)
{
    tdesc* ts[3];
    uint32_t n = 0;
    ts[n++] = &c->in;
    if (c->op == OP_RS)
        ts[n++] = &c->len;
    ts[n++] = &c->out;
    c->shared = rchance(r, 25);
    c->nbuffers = c->shared ? 1 : n;
    uint64_t cursor[3] = { 0, 0, 0 };
    for (uint32_t i = 0; i < n; ++i) {
        tdesc* t = ts[i];
        const uint32_t es = h_elem_size(t->type);
        uint64_t need = ref_calc_buffer_tensor_size(es, t->rank, t->sizes, t->has_strides ? t->strides : NULL);
        ck_assert_msg(need > 0, "test bug: tensor size overflow");
        t->total = need + (rchance(r, 20) ? 4 * rbelow(r, 8) : 0);
        t->align = 0;
        if (rchance(r, 25)) {
            static const uint32_t choices[] = { 1, 2, 4, 8, 16, 32, 64, 128, 256 };
            do
                t->align = choices[rbelow(r, 9)];
            while (t->align < es);
        }
        const uint64_t a = t->align > 16 ? t->align : 16;
        t->buffer = c->shared ? 0 : i;
        uint64_t* cur = &cursor[t->buffer];
        t->offset = (*cur + a - 1) / a * a + a * rbelow(r, 4);
        t->bind_size = t->total + (rchance(r, 30) ? 4 * rbelow(r, 16) : 0);
        *cur = t->offset + t->bind_size;
    }
    for (uint32_t b = 0; b < c->nbuffers; ++b)
        c->buffer_size[b] = cursor[b] + rbelow(r, 64);
    c->exec_flags = (uint32_t)rbelow(r, 8);
}

static void gen_rs(rng* r, dcase* c, DML_TENSOR_DATA_TYPE type)
{
    memset(c, 0, sizeof *c);
    c->op = OP_RS;
    uint32_t rank = 1 + (uint32_t)rbelow(r, 8);
    c->in.type = c->out.type = type;
    c->in.rank = c->out.rank = c->len.rank = rank;
    random_sizes(r, rank, c->in.sizes, MAX_DIM);
    memcpy(c->out.sizes, c->in.sizes, sizeof c->in.sizes);
    c->axis = (uint32_t)rbelow(r, rank);
    memcpy(c->len.sizes, c->in.sizes, sizeof c->in.sizes);
    c->len.sizes[c->axis] = 1;
    c->len.type = rchance(r, 50) ? DML_TENSOR_DATA_TYPE_UINT32 : DML_TENSOR_DATA_TYPE_UINT64;
    random_strides(r, &c->in, 0, 0);
    random_strides(r, &c->out, 1, 0);
    random_strides(r, &c->len, 0, 0);
    if (c->len.has_strides && rchance(r, 15)) { /* one length for everything */
        for (uint32_t i = 0; i < rank; ++i)
            c->len.strides[i] = 0;
        c->len.layout = "broadcast(all)";
    }
    c->in.owned = rchance(r, 15);
    c->len.owned = rchance(r, 15);
    place(r, c);
}

/* Window, stride and output size along one SLICE1 dimension of input size S. */
static void gen_s1_dim(rng* r, dcase* c, uint32_t d)
{
    const uint32_t S = c->in.sizes[d];
    uint32_t o = rchance(r, 40) ? 0 : (uint32_t)rbelow(r, S);
    uint32_t w = rchance(r, 50) ? S - o : 1 + (uint32_t)rbelow(r, S - o);
    int64_t mag;
    unsigned pick = (unsigned)rbelow(r, 100);
    if (pick < 70)
        mag = 1 + (int64_t)rbelow(r, 2);
    else if (pick < 88)
        mag = 1 + (int64_t)rbelow(r, w + 1);
    else if (pick < 94)
        mag = 1 + (int64_t)rbelow(r, INT32_MAX);
    else if (pick < 97)
        mag = INT32_MAX;
    else
        mag = (int64_t)INT32_MAX + 1; /* INT32_MIN */
    int negative = mag > INT32_MAX || rchance(r, 50);
    c->s1_strides[d] = negative ? (int32_t)(-mag) : (int32_t)mag;
    c->offsets[d] = o;
    c->window[d] = w;
    uint64_t maxout = 1 + (uint64_t)(w - 1) / (uint64_t)mag;
    c->out.sizes[d] = (uint32_t)(rchance(r, 60) ? maxout : 1 + rbelow(r, maxout));
}

/* A huge, broadcast (stride 0) input dimension with a stride of large
 * magnitude: one or two output elements along it. */
static void gen_s1_huge_dim(rng* r, dcase* c, uint32_t d)
{
    int64_t mag;
    switch (rbelow(r, 4)) {
    case 0: mag = INT32_MAX; break;
    case 1: mag = (int64_t)INT32_MAX + 1; break;
    case 2: mag = 0x40000000 + (int64_t)rbelow(r, 0x40000000); break;
    default: mag = 1 + (int64_t)rbelow(r, 5); break; /* small stride, huge window */
    }
    uint32_t o = (uint32_t)rbelow(r, 3);
    uint64_t w = (mag > 5) ? (uint64_t)mag + 1 + rbelow(r, 3) : 0x80000000ull + rbelow(r, 1000);
    uint64_t S = o + w + rbelow(r, 3);
    ck_assert(S <= UINT32_MAX);
    c->in.sizes[d] = (uint32_t)S;
    c->offsets[d] = o;
    c->window[d] = (uint32_t)w;
    int negative = mag > INT32_MAX || rchance(r, 50);
    c->s1_strides[d] = negative ? (int32_t)(-mag) : (int32_t)mag;
    uint64_t maxout = 1 + (w - 1) / (uint64_t)mag;
    if (maxout > 2)
        maxout = 2;
    c->out.sizes[d] = 1 + (uint32_t)rbelow(r, maxout);
}

static void gen_s1(rng* r, dcase* c, DML_TENSOR_DATA_TYPE type, int huge)
{
    memset(c, 0, sizeof *c);
    c->op = OP_SLICE1;
    uint32_t rank = 1 + (uint32_t)rbelow(r, 8);
    c->in.type = c->out.type = type;
    c->in.rank = c->out.rank = rank;
    random_sizes(r, rank, c->in.sizes, MAX_DIM_SLICE);
    uint32_t zero_mask = 0;
    if (huge) {
        zero_mask = 1u << rbelow(r, rank);
        if (rank > 2 && rchance(r, 30))
            zero_mask |= 1u << rbelow(r, rank);
    }
    for (uint32_t d = 0; d < rank; ++d) {
        if (zero_mask & (1u << d))
            gen_s1_huge_dim(r, c, d);
        else
            gen_s1_dim(r, c, d);
    }
    random_strides(r, &c->in, 0, zero_mask);
    random_strides(r, &c->out, 1, 0);
    c->in.owned = rchance(r, 15);
    place(r, c);
}

static void gen_slice_dim(rng* r, dcase* c, uint32_t d)
{
    const uint32_t S = c->in.sizes[d];
    uint32_t o = rchance(r, 40) ? 0 : (uint32_t)rbelow(r, S);
    uint64_t s;
    unsigned pick = (unsigned)rbelow(r, 100);
    if (pick < 75)
        s = 1 + rbelow(r, 2);
    else if (pick < 93)
        s = 1 + rbelow(r, S);
    else
        s = 1 + rbelow(r, UINT32_MAX);
    c->offsets[d] = o;
    c->s_strides[d] = (uint32_t)s;
    uint64_t maxn = 1 + (uint64_t)(S - 1 - o) / s;
    c->out.sizes[d] = (uint32_t)(rchance(r, 60) ? maxn : 1 + rbelow(r, maxn));
}

static void gen_slice_huge_dim(rng* r, dcase* c, uint32_t d)
{
    uint64_t s, o = rbelow(r, 3), S;
    switch (rbelow(r, 3)) {
    case 0: s = 0xFFFFFFFEull; o = 0; S = 0xFFFFFFFFull; break;
    case 1: s = 0x80000000ull; S = o + s + 1 + rbelow(r, 3); break;
    default: s = 0x10000000ull + rbelow(r, 0x60000000ull); S = o + s + 1 + rbelow(r, 3); break;
    }
    c->in.sizes[d] = (uint32_t)S;
    c->offsets[d] = (uint32_t)o;
    c->s_strides[d] = (uint32_t)s;
    c->out.sizes[d] = 1 + (uint32_t)rbelow(r, 2);
}

static void gen_slice(rng* r, dcase* c, DML_TENSOR_DATA_TYPE type, int huge)
{
    memset(c, 0, sizeof *c);
    c->op = OP_SLICE;
    uint32_t rank = 1 + (uint32_t)rbelow(r, 8);
    c->in.type = c->out.type = type;
    c->in.rank = c->out.rank = rank;
    random_sizes(r, rank, c->in.sizes, MAX_DIM_SLICE);
    uint32_t zero_mask = huge ? 1u << rbelow(r, rank) : 0;
    for (uint32_t d = 0; d < rank; ++d) {
        if (zero_mask & (1u << d))
            gen_slice_huge_dim(r, c, d);
        else
            gen_slice_dim(r, c, d);
    }
    random_strides(r, &c->in, 0, zero_mask);
    random_strides(r, &c->out, 1, 0);
    c->in.owned = rchance(r, 15);
    place(r, c);
}

/* TILE: input sizes small enough that the output (input * repeats) stays
 * within MAX_DIM per dimension, except that 2 repeats are always possible. */
static const uint32_t MAX_DIM_TILE_IN[9] = { 0, 24, 10, 5, 4, 3, 3, 2, 2 };

static void gen_tile(rng* r, dcase* c, DML_TENSOR_DATA_TYPE type)
{
    memset(c, 0, sizeof *c);
    c->op = OP_TILE;
    uint32_t rank = 1 + (uint32_t)rbelow(r, 8);
    c->in.type = c->out.type = type;
    c->in.rank = c->out.rank = rank;
    random_sizes(r, rank, c->in.sizes, MAX_DIM_TILE_IN);
    for (uint32_t d = 0; d < rank; ++d) {
        uint32_t room = MAX_DIM[rank] / c->in.sizes[d];
        c->repeats[d] = rchance(r, 20) ? 1 : 1 + (uint32_t)rbelow(r, room > 2 ? room : 2);
        c->out.sizes[d] = c->in.sizes[d] * c->repeats[d];
    }
    random_strides(r, &c->in, 0, 0);
    random_strides(r, &c->out, 1, 0);
    c->in.owned = rchance(r, 15);
    place(r, c);
}

/* DEPTH_TO_SPACE / SPACE_TO_DEPTH: the space tensor {N, C', H*B, W*B}, the
 * depth tensor {N, C'*B*B, H, W}; either order, either desc version (version
 * 0 is DEPTH_COLUMN_ROW only). */
static void gen_depth_space(rng* r, dcase* c, DML_TENSOR_DATA_TYPE type, int to_space)
{
    memset(c, 0, sizeof *c);
    c->op = to_space ? OP_D2S : OP_S2D;
    c->block = rchance(r, 10) ? 1 : 2 + (uint32_t)rbelow(r, 3);
    c->version1 = rchance(r, 70);
    c->crd = c->version1 && rchance(r, 50);
    const uint32_t b = c->block;
    const uint32_t n = 1 + (uint32_t)rbelow(r, 3), cs = 1 + (uint32_t)rbelow(r, 4);
    const uint32_t h = 1 + (uint32_t)rbelow(r, b > 2 ? 3 : 5), w = 1 + (uint32_t)rbelow(r, b > 2 ? 3 : 5);
    const uint32_t space[4] = { n, cs, h * b, w * b }, depth[4] = { n, cs * b * b, h, w };
    tdesc* sp = to_space ? &c->out : &c->in;
    tdesc* dp = to_space ? &c->in : &c->out;
    c->in.type = c->out.type = type;
    c->in.rank = c->out.rank = 4;
    memcpy(sp->sizes, space, sizeof space);
    memcpy(dp->sizes, depth, sizeof depth);
    random_strides(r, &c->in, 0, 0);
    random_strides(r, &c->out, 1, 0);
    c->in.owned = rchance(r, 15);
    place(r, c);
}

/* ---- running a case --------------------------------------------------------- */

static void fill_random(rng* r, uint8_t* p, uint64_t n)
{
    for (uint64_t i = 0; i < n; i += 8) {
        uint64_t v = rnext(r);
        memcpy(p + i, &v, n - i < 8 ? n - i : 8);
    }
}

static uint64_t random_length(rng* r, uint32_t axis_size, int is64)
{
    switch (rbelow(r, 10)) {
    case 0: return 0;
    case 1: return 1;
    case 2:
    case 3:
    case 4: return rbelow(r, (uint64_t)axis_size + 1);
    case 5: return axis_size;
    case 6: return (uint64_t)axis_size + 1 + rbelow(r, 10);
    case 7: return is64 ? UINT64_MAX : UINT32_MAX;
    case 8: return is64 ? 0x100000000ull + rbelow(r, (uint64_t)axis_size + 2) : UINT32_MAX - rbelow(r, 3);
    default: return is64 ? rnext(r) : (uint32_t)rnext(r);
    }
}

static void make_tensor(h_tensor* ht, const tdesc* t)
{
    h_tensor_init(ht, t->type, t->rank, t->sizes, t->has_strides ? t->strides : NULL);
    ht->buf.TotalTensorSizeInBytes = t->total;
    ht->buf.GuaranteedBaseOffsetAlignment = t->align;
    ht->buf.Flags = t->owned ? DML_TENSOR_FLAG_OWNED_BY_DML : DML_TENSOR_FLAG_NONE;
}

static ref_view view_of(const tdesc* t, uint8_t* buffer_bytes)
{
    ref_view v;
    v.elem_size = h_elem_size(t->type);
    v.rank = t->rank;
    v.sizes = t->sizes;
    v.strides = t->has_strides ? t->strides : NULL;
    v.base = buffer_bytes + t->offset;
    v.range = t->bind_size;
    return v;
}

/* The output coordinate whose element covers byte `b` of the output binding. */
static void describe_byte(FILE* f, const tdesc* out, uint64_t b)
{
    uint64_t c[8] = { 0 };
    const uint32_t es = h_elem_size(out->type);
    uint32_t packed[8];
    const uint32_t* st = out->has_strides ? out->strides : packed;
    if (!out->has_strides)
        ref_packed_strides(out->rank, out->sizes, packed);
    for (;;) {
        uint64_t e = 0;
        for (uint32_t i = 0; i < out->rank; ++i)
            e += c[i] * st[i];
        if (b >= e * es && b < (e + 1) * es) {
            fprintf(f, " = output element {");
            for (uint32_t i = 0; i < out->rank; ++i)
                fprintf(f, "%s%" PRIu64, i ? "," : "", c[i]);
            fprintf(f, "} (element index %" PRIu64 ")", e);
            return;
        }
        uint32_t k = out->rank;
        while (k-- > 0) {
            if (++c[k] < out->sizes[k])
                break;
            c[k] = 0;
        }
        if (k == UINT32_MAX)
            break;
    }
    fprintf(f, " (outside every addressed output element)");
}

/* per test: cases run and output elements compared (printed at the end) */
static uint64_t g_cases, g_elements;

static void report(const char* test, int i)
{
    printf("%s[%d]: %" PRIu64 " cases, %" PRIu64 " output elements compared\n", test, i, g_cases, g_elements);
    fflush(stdout);
    ck_assert_uint_gt(g_cases, 0);
}

static void run_case(rng* r, dcase* c)
{
    uint8_t* host[3] = { NULL, NULL, NULL };
    DMLBuffer dev[3] = { NULL, NULL, NULL };
    for (uint32_t b = 0; b < c->nbuffers; ++b) {
        host[b] = malloc(c->buffer_size[b]);
        ck_assert_ptr_nonnull(host[b]);
        fill_random(r, host[b], c->buffer_size[b]);
    }
    if (c->op == OP_RS) {
        const uint32_t es = h_elem_size(c->len.type);
        uint8_t* p = host[c->len.buffer] + c->len.offset;
        for (uint64_t i = 0; i + es <= c->len.bind_size; i += es) {
            uint64_t v = random_length(r, c->in.sizes[c->axis], es == 8);
            if (es == 8) {
                memcpy(p + i, &v, 8);
            } else {
                uint32_t v32 = (uint32_t)v;
                memcpy(p + i, &v32, 4);
            }
        }
    }
    for (uint32_t b = 0; b < c->nbuffers; ++b)
        dev[b] = h_buffer(&H, c->buffer_size[b], host[b]);

    h_tensor in, len, out;
    make_tensor(&in, &c->in);
    make_tensor(&len, &c->len);
    make_tensor(&out, &c->out);
    DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC rs = { &in.desc, &len.desc, &out.desc, c->axis };
    DML_SLICE1_OPERATOR_DESC s1 = { &in.desc, &out.desc, c->in.rank, c->offsets, c->window, c->s1_strides };
    DML_SLICE_OPERATOR_DESC s = { &in.desc, &out.desc, c->in.rank, c->offsets, c->out.sizes, c->s_strides };
    DML_TILE_OPERATOR_DESC tile = { &in.desc, &out.desc, c->in.rank, c->repeats };
    const DML_DEPTH_SPACE_ORDER order =
        c->crd ? DML_DEPTH_SPACE_ORDER_COLUMN_ROW_DEPTH : DML_DEPTH_SPACE_ORDER_DEPTH_COLUMN_ROW;
    DML_DEPTH_TO_SPACE_OPERATOR_DESC d2s = { &in.desc, &out.desc, c->block };
    DML_SPACE_TO_DEPTH_OPERATOR_DESC s2d = { &in.desc, &out.desc, c->block };
    DML_DEPTH_TO_SPACE1_OPERATOR_DESC d2s1 = { &in.desc, &out.desc, c->block, order };
    DML_SPACE_TO_DEPTH1_OPERATOR_DESC s2d1 = { &in.desc, &out.desc, c->block, order };
    DML_OPERATOR_DESC od;
    h_bind binds[2];
    uint32_t nin = 1;
    binds[0] = (h_bind){ dev[c->in.buffer], c->in.offset, c->in.bind_size, c->in.owned };
    if (c->op == OP_RS) {
        od.Type = DML_OPERATOR_REVERSE_SUBSEQUENCES;
        od.Desc = &rs;
        binds[1] = (h_bind){ dev[c->len.buffer], c->len.offset, c->len.bind_size, c->len.owned };
        nin = 2;
    } else if (c->op == OP_SLICE1) {
        od.Type = DML_OPERATOR_SLICE1;
        od.Desc = &s1;
    } else if (c->op == OP_TILE) {
        od.Type = DML_OPERATOR_TILE;
        od.Desc = &tile;
    } else if (c->op == OP_D2S) {
        od.Type = c->version1 ? DML_OPERATOR_DEPTH_TO_SPACE1 : DML_OPERATOR_DEPTH_TO_SPACE;
        od.Desc = c->version1 ? (const void*)&d2s1 : (const void*)&d2s;
    } else if (c->op == OP_S2D) {
        od.Type = c->version1 ? DML_OPERATOR_SPACE_TO_DEPTH1 : DML_OPERATOR_SPACE_TO_DEPTH;
        od.Desc = c->version1 ? (const void*)&s2d1 : (const void*)&s2d;
    } else {
        od.Type = DML_OPERATOR_SLICE;
        od.Desc = &s;
    }
    h_bind obind = { dev[c->out.buffer], c->out.offset, c->out.bind_size, 0 };

    const uint64_t osize = c->buffer_size[c->out.buffer];
    uint8_t* got = malloc(osize);
    uint8_t* want = malloc(osize);
    uint8_t* before = malloc(osize);
    uint8_t* mask = calloc(1, osize);
    ck_assert(got && want && before && mask);

    DML_RESULT res = run_operator(&H, &od, (DML_EXECUTION_FLAGS)c->exec_flags, nin, binds, &obind, got, osize);
    if (res != DML_S_OK) {
        dump_case(stderr, c);
        ck_abort_msg("case %" PRIu64 ": %s failed: %s (0x%08x): %s", c->index, H.stage, h_result_name(res),
                     (unsigned)res, H.message);
    }

    /* Expected: the starting bytes (with owned inputs' ranges clobbered when they
     * share the output's buffer), then the reference on the pre-clobber inputs. */
    memcpy(before, host[c->out.buffer], osize);
    const tdesc* ins[2] = { &c->in, &c->len };
    for (uint32_t i = 0; i < nin; ++i)
        if (ins[i]->owned && ins[i]->buffer == c->out.buffer)
            memset(before + ins[i]->offset, H_CLOBBER_BYTE, ins[i]->bind_size);
    memcpy(want, before, osize);
    ref_view vi = view_of(&c->in, host[c->in.buffer]);
    ref_view vo = view_of(&c->out, want);
    if (c->op == OP_RS) {
        ref_view vl = view_of(&c->len, host[c->len.buffer]);
        ref_reverse_subsequences(&vi, &vl, &vo, c->axis);
    } else if (c->op == OP_SLICE1) {
        ref_slice1(&vi, &vo, c->offsets, c->window, c->s1_strides);
    } else if (c->op == OP_TILE) {
        ref_tile(&vi, &vo);
    } else if (c->op == OP_D2S) {
        ref_depth_to_space(&vi, &vo, c->block, c->crd);
    } else if (c->op == OP_S2D) {
        ref_space_to_depth(&vi, &vo, c->block, c->crd);
    } else {
        ref_slice(&vi, &vo, c->offsets, c->s_strides);
    }
    ref_view vm = view_of(&c->out, mask);
    ref_output_mask(&vm, mask + c->out.offset);

    uint64_t first = UINT64_MAX, count = 0, outside = 0;
    for (uint64_t b = 0; b < osize; ++b) {
        if (got[b] != want[b]) {
            if (first == UINT64_MAX)
                first = b;
            ++count;
            outside += !mask[b];
        }
    }
    if (count) {
        dump_case(stderr, c);
        fprintf(stderr, " MISMATCH: %" PRIu64 " bytes differ (%" PRIu64 " outside the addressed output elements)\n",
                count, outside);
        fprintf(stderr, " first at buffer byte %" PRIu64 ": got 0x%02x, want 0x%02x, before 0x%02x", first,
                got[first], want[first], before[first]);
        if (first >= c->out.offset && first < c->out.offset + c->out.bind_size)
            describe_byte(stderr, &c->out, first - c->out.offset);
        else
            fprintf(stderr, " (outside the output binding)");
        fprintf(stderr, "\n");
    }
    ck_assert_msg(count == 0,
                  "case %" PRIu64 " (%s %s rank %u): %" PRIu64 " output-buffer bytes differ from the reference, "
                  "first at byte %" PRIu64 "%s; the full case is on stderr",
                  c->index, OP_NAMES[c->op], h_type_name(c->in.type), c->in.rank, count, first,
                  (first != UINT64_MAX && !mask[first]) ? " (outside the addressed elements)" : "");

    ++g_cases;
    uint64_t n = 1;
    for (uint32_t i = 0; i < c->out.rank; ++i)
        n *= c->out.sizes[i];
    g_elements += n;

    free(got);
    free(want);
    free(before);
    free(mask);
    for (uint32_t b = 0; b < c->nbuffers; ++b) {
        dmlRelease(dev[b]);
        free(host[b]);
    }
}

/* ---- tests ------------------------------------------------------------------ */

#define CASES_PER_TYPE 60

START_TEST(reverse_subsequences_random)
{
    const DML_TENSOR_DATA_TYPE type = (DML_TENSOR_DATA_TYPE)(_i + 1);
    rng r = rng_for(OP_RS, (uint64_t)type, 1);
    for (uint64_t k = 0; k < CASES_PER_TYPE; ++k) {
        dcase c;
        gen_rs(&r, &c, type);
        c.kind = "random";
        c.index = k;
        run_case(&r, &c);
    }
    report("reverse_subsequences_random", _i);
}
END_TEST

START_TEST(slice1_random)
{
    const DML_TENSOR_DATA_TYPE type = (DML_TENSOR_DATA_TYPE)(_i + 1);
    rng r = rng_for(OP_SLICE1, (uint64_t)type, 1);
    for (uint64_t k = 0; k < CASES_PER_TYPE; ++k) {
        dcase c;
        gen_s1(&r, &c, type, 0);
        c.kind = "random";
        c.index = k;
        run_case(&r, &c);
    }
    report("slice1_random", _i);
}
END_TEST

START_TEST(slice_random)
{
    const DML_TENSOR_DATA_TYPE type = (DML_TENSOR_DATA_TYPE)(_i + 1);
    rng r = rng_for(OP_SLICE, (uint64_t)type, 1);
    for (uint64_t k = 0; k < CASES_PER_TYPE; ++k) {
        dcase c;
        gen_slice(&r, &c, type, 0);
        c.kind = "random";
        c.index = k;
        run_case(&r, &c);
    }
    report("slice_random", _i);
}
END_TEST

START_TEST(tile_random)
{
    const DML_TENSOR_DATA_TYPE type = (DML_TENSOR_DATA_TYPE)(_i + 1);
    rng r = rng_for(OP_TILE, (uint64_t)type, 1);
    for (uint64_t k = 0; k < CASES_PER_TYPE; ++k) {
        dcase c;
        gen_tile(&r, &c, type);
        c.kind = "random";
        c.index = k;
        run_case(&r, &c);
    }
    report("tile_random", _i);
}
END_TEST

/* _i % 11: the data type; _i < 11 DEPTH_TO_SPACE, else SPACE_TO_DEPTH. */
START_TEST(depth_space_random)
{
    const DML_TENSOR_DATA_TYPE type = (DML_TENSOR_DATA_TYPE)(_i % 11 + 1);
    const int to_space = _i < 11;
    rng r = rng_for(to_space ? OP_D2S : OP_S2D, (uint64_t)type, 1);
    for (uint64_t k = 0; k < CASES_PER_TYPE; ++k) {
        dcase c;
        gen_depth_space(&r, &c, type, to_space);
        c.kind = "random";
        c.index = k;
        run_case(&r, &c);
    }
    report("depth_space_random", _i);
}
END_TEST

START_TEST(slice1_huge_broadcast_dims)
{
    /* Input dimensions of up to ~2^32 elements with stride 0, window strides of
     * magnitude up to 2^31: coordinates far beyond 32-bit signed range. */
    rng r = rng_for(OP_SLICE1, 0, 2);
    for (uint64_t k = 0; k < 60; ++k) {
        dcase c;
        gen_s1(&r, &c, random_type(&r), 1);
        c.kind = "huge broadcast dims";
        c.index = k;
        run_case(&r, &c);
    }
    report("slice1_huge_broadcast_dims", _i);
}
END_TEST

START_TEST(slice_huge_broadcast_dims)
{
    rng r = rng_for(OP_SLICE, 0, 2);
    for (uint64_t k = 0; k < 40; ++k) {
        dcase c;
        gen_slice(&r, &c, random_type(&r), 1);
        c.kind = "huge broadcast dims";
        c.index = k;
        run_case(&r, &c);
    }
    report("slice_huge_broadcast_dims", _i);
}
END_TEST

START_TEST(owned_inputs)
{
    /* Every case with OWNED_BY_DML inputs: bound at the initializer, NONE at
     * execution, and clobbered in between. */
    rng r = rng_for(99, (uint64_t)_i, 3);
    for (uint64_t k = 0; k < 30; ++k) {
        dcase c;
        DML_TENSOR_DATA_TYPE type = random_type(&r);
        if (_i == OP_RS) {
            gen_rs(&r, &c, type);
            c.in.owned = rchance(&r, 70);
            c.len.owned = !c.in.owned || rchance(&r, 50);
        } else if (_i == OP_SLICE1) {
            gen_s1(&r, &c, type, 0);
            c.in.owned = 1;
        } else if (_i == OP_TILE) {
            gen_tile(&r, &c, type);
            c.in.owned = 1;
        } else if (_i == OP_D2S || _i == OP_S2D) {
            gen_depth_space(&r, &c, type, _i == OP_D2S);
            c.in.owned = 1;
        } else {
            gen_slice(&r, &c, type, 0);
            c.in.owned = 1;
        }
        c.kind = "owned inputs";
        c.index = k;
        run_case(&r, &c);
    }
    report("owned_inputs", _i);
}
END_TEST

/* Eight dimensions, every one repeated: 16 dimensions after the split, none
 * of which merge (the input's strides are permuted and padded), so the
 * tile runs as several plans (test_api_graph counts them). _i: the output
 * packed, or padded and permuted. */
START_TEST(tile_eight_dimensions)
{
    rng r = rng_for(OP_TILE, 0, 4 + (uint64_t)_i);
    static const uint32_t in_strides[8] = { 3, 97, 1, 7, 389, 16, 34, 194 };
    for (uint64_t k = 0; k < 6; ++k) {
        dcase c;
        memset(&c, 0, sizeof c);
        c.op = OP_TILE;
        c.kind = "eight dimensions, several plans";
        c.index = k;
        c.in.type = c.out.type = random_type(&r);
        c.in.rank = c.out.rank = 8;
        for (uint32_t d = 0; d < 8; ++d) {
            c.in.sizes[d] = 2;
            c.repeats[d] = 2 + (uint32_t)(k == 5 && d == 3);
            c.out.sizes[d] = c.in.sizes[d] * c.repeats[d];
            c.in.strides[d] = in_strides[d];
        }
        c.in.has_strides = 1;
        c.in.layout = "permuted+padded";
        if (_i == 0) {
            c.out.layout = "packed(NULL)";
        } else {
            random_strides(&r, &c.out, 1, 0);
        }
        c.in.owned = k == 4;
        place(&r, &c);
        run_case(&r, &c);
    }
    report("tile_eight_dimensions", _i);
}
END_TEST

/* A few cases of about a million elements. */
static void large_case(dcase* c, rng* r)
{
    c->kind = "large";
    place(r, c);
    run_case(r, c);
}

START_TEST(large_tensors)
{
    rng r = rng_for(7, 7, 7);
    dcase c;

    /* REVERSE_SUBSEQUENCES {1024,1024} FLOAT32 along axis 1, transposed output. */
    memset(&c, 0, sizeof c);
    c.op = OP_RS;
    c.index = 0;
    c.in.type = c.out.type = DML_TENSOR_DATA_TYPE_FLOAT32;
    c.in.rank = c.out.rank = c.len.rank = 2;
    c.in.sizes[0] = c.in.sizes[1] = 1024;
    memcpy(c.out.sizes, c.in.sizes, sizeof c.in.sizes);
    c.axis = 1;
    c.len.type = DML_TENSOR_DATA_TYPE_UINT64;
    c.len.sizes[0] = 1024;
    c.len.sizes[1] = 1;
    c.in.layout = c.len.layout = "packed(NULL)";
    c.out.layout = "permuted";
    c.out.has_strides = 1;
    c.out.strides[0] = 1;
    c.out.strides[1] = 1024;
    large_case(&c, &r);

    /* SLICE1 {2048,1024} UINT16 -> {1024,1024}, stride -2 on dim 0. */
    memset(&c, 0, sizeof c);
    c.op = OP_SLICE1;
    c.index = 1;
    c.in.type = c.out.type = DML_TENSOR_DATA_TYPE_UINT16;
    c.in.rank = c.out.rank = 2;
    c.in.sizes[0] = 2048; c.in.sizes[1] = 1024;
    c.out.sizes[0] = 1024; c.out.sizes[1] = 1024;
    c.offsets[0] = 0; c.window[0] = 2048; c.s1_strides[0] = -2;
    c.offsets[1] = 0; c.window[1] = 1024; c.s1_strides[1] = 1;
    c.in.layout = c.out.layout = "packed(NULL)";
    large_case(&c, &r);

    /* SLICE {64,128,256} UINT8 -> {64,64,256} (every other row), padded input. */
    memset(&c, 0, sizeof c);
    c.op = OP_SLICE;
    c.index = 2;
    c.in.type = c.out.type = DML_TENSOR_DATA_TYPE_UINT8;
    c.in.rank = c.out.rank = 3;
    c.in.sizes[0] = 64; c.in.sizes[1] = 128; c.in.sizes[2] = 256;
    c.out.sizes[0] = 64; c.out.sizes[1] = 64; c.out.sizes[2] = 256;
    c.offsets[1] = 1;
    c.s_strides[0] = 1; c.s_strides[1] = 2; c.s_strides[2] = 1;
    c.in.has_strides = 1;
    c.in.strides[2] = 1; c.in.strides[1] = 260; c.in.strides[0] = 260 * 128;
    c.in.layout = "padded";
    c.out.layout = "packed(NULL)";
    large_case(&c, &r);

    /* TILE {4,1,256} UINT8 (transposed) x {2,128,4} -> {8,128,1024}. */
    memset(&c, 0, sizeof c);
    c.op = OP_TILE;
    c.index = 3;
    c.in.type = c.out.type = DML_TENSOR_DATA_TYPE_UINT8;
    c.in.rank = c.out.rank = 3;
    c.in.sizes[0] = 4; c.in.sizes[1] = 1; c.in.sizes[2] = 256;
    c.repeats[0] = 2; c.repeats[1] = 128; c.repeats[2] = 4;
    c.out.sizes[0] = 8; c.out.sizes[1] = 128; c.out.sizes[2] = 1024;
    c.in.has_strides = 1;
    c.in.strides[0] = 1; c.in.strides[1] = 1; c.in.strides[2] = 4;
    c.in.layout = "permuted";
    c.out.layout = "packed(NULL)";
    large_case(&c, &r);
    report("large_tensors", _i);
}
END_TEST

static Suite* differential_suite(void)
{
    Suite* s = suite_create("differential");
    TCase* tc = tcase_create("random");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 300);
    tcase_add_loop_test(tc, reverse_subsequences_random, 0, 11);
    tcase_add_loop_test(tc, slice1_random, 0, 11);
    tcase_add_loop_test(tc, slice_random, 0, 11);
    tcase_add_loop_test(tc, tile_random, 0, 11);
    tcase_add_loop_test(tc, tile_eight_dimensions, 0, 2);
    tcase_add_loop_test(tc, depth_space_random, 0, 22);
    tcase_add_test(tc, slice1_huge_broadcast_dims);
    tcase_add_test(tc, slice_huge_broadcast_dims);
    tcase_add_loop_test(tc, owned_inputs, 0, 6);
    tcase_add_test(tc, large_tensors);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    const char* env = getenv("DML_TEST_SEED");
    if (env && *env)
        g_seed = strtoull(env, NULL, 0);
    printf("test_api_differential: seed %" PRIu64 " (set DML_TEST_SEED to change), backend %s\n", g_seed,
           h_backend());
    fflush(stdout);
    SRunner* sr = srunner_create(differential_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

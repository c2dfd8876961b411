#include "gather_cases.h"

#include <stdlib.h>
#include <string.h>


static DML_TENSOR_DATA_TYPE data_type_of(uint32_t element_size)
{
    switch (element_size) {
    case 1: return DML_TENSOR_DATA_TYPE_UINT8;
    case 2: return DML_TENSOR_DATA_TYPE_FLOAT16;
    case 4: return DML_TENSOR_DATA_TYPE_FLOAT32;
    default: return DML_TENSOR_DATA_TYPE_INT64;
    }
}

void gather_packed_strides(uint32_t rank, const uint32_t* sizes, uint32_t* strides)
{
    uint32_t packed = 1;
    for (uint32_t i = rank; i-- > 0;) {
        strides[i] = packed;
        packed *= sizes[i];
    }
}

void gather_lengths_sizes(const gather_case* c, uint32_t* sizes)
{
    for (uint32_t i = 0; i < c->rank; ++i)
        sizes[i] = i == c->axis ? 1 : c->in_sizes[i];
}

/* The three tensor descs of a case, in DirectML's terms. */
typedef struct case_descs {
    DML_BUFFER_TENSOR_DESC buffer[3];
    DML_TENSOR_DESC desc[3];
    uint32_t len_sizes[GATHER_MAX_RANK];
} case_descs;

static void describe(const gather_case* c, case_descs* d)
{
    memset(d, 0, sizeof *d);
    gather_lengths_sizes(c, d->len_sizes);
    const uint32_t* sizes[3] = { c->in_sizes, d->len_sizes, c->out_sizes };
    const uint32_t* strides[3] = { c->in_packed ? NULL : c->in_strides, c->len_packed ? NULL : c->len_strides,
        c->out_packed ? NULL : c->out_strides };
    DML_TENSOR_DATA_TYPE types[3] = { data_type_of(c->element_size),
        c->lengths_size == 8 ? DML_TENSOR_DATA_TYPE_UINT64 : DML_TENSOR_DATA_TYPE_UINT32,
        data_type_of(c->element_size) };
    for (int i = 0; i < 3; ++i) {
        DML_BUFFER_TENSOR_DESC* b = &d->buffer[i];
        b->DataType = types[i];
        b->DimensionCount = c->rank;
        b->Sizes = sizes[i];
        b->Strides = strides[i];
        uint64_t bytes = 0;
        dml_calc_buffer_tensor_size(types[i], c->rank, sizes[i], strides[i], &bytes);
        b->TotalTensorSizeInBytes = bytes;
        d->desc[i].Type = DML_TENSOR_TYPE_BUFFER;
        d->desc[i].Desc = b;
    }
}

uint64_t gather_tensor_bytes(const gather_case* c, int which)
{
    if (which == 1 && c->type != DML_OPERATOR_REVERSE_SUBSEQUENCES)
        return 0;
    case_descs d;
    describe(c, &d);
    return d.buffer[which].TotalTensorSizeInBytes;
}

void gather_case_desc(const gather_case* c, gather_desc* g)
{
    case_descs d;
    describe(c, &d);
    memset(g, 0, sizeof *g);
    memcpy(g->len_sizes, d.len_sizes, sizeof g->len_sizes);
    for (int i = 0; i < 3; ++i) {
        g->buffer[i] = d.buffer[i];
        g->tensor[i] = d.desc[i];
        g->tensor[i].Desc = &g->buffer[i];
    }
    g->buffer[1].Sizes = g->len_sizes;
    g->slice1 = (DML_SLICE1_OPERATOR_DESC) { &g->tensor[0], &g->tensor[2], c->rank, c->offsets, c->window_sizes,
        c->window_strides };
    g->slice = (DML_SLICE_OPERATOR_DESC) { &g->tensor[0], &g->tensor[2], c->rank, c->offsets, c->out_sizes,
        c->slice_strides };
    g->reverse = (DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC) { &g->tensor[0], &g->tensor[1], &g->tensor[2], c->axis };
    g->desc.Type = c->type;
    g->desc.Desc = c->type == DML_OPERATOR_SLICE1 ? (const void*)&g->slice1
        : c->type == DML_OPERATOR_SLICE           ? (const void*)&g->slice
                                                  : (const void*)&g->reverse;
}

DML_RESULT gather_case_compile(const gather_case* c, dml_plan* plan)
{
    gather_desc d;
    gather_case_desc(c, &d);
    return dml_plan_from_desc(&d.desc, plan);
}

unsigned char gather_sentinel(uint64_t position)
{
    return (unsigned char)(0xA5 ^ (position * 0x3B));
}

static uint64_t next_random(uint64_t* state)
{
    *state = *state * 6364136223846793005ull + 1442695040888963407ull;
    uint64_t x = *state;
    x ^= x >> 29;
    x *= 0xBF58476D1CE4E5B9ull;
    return x ^ (x >> 32);
}

static uint64_t random_length(const gather_case* c, uint64_t* state)
{
    uint64_t axis_size = c->in_sizes[c->axis];
    switch (c->length_kind) {
    case GATHER_LENGTHS_FULL: return axis_size;
    case GATHER_LENGTHS_ZERO: return 0;
    default: break;
    }
    uint64_t r = next_random(state);
    switch (r % 16) {
    case 0: return c->lengths_size == 8 ? UINT64_MAX : UINT32_MAX;
    case 1: return 1;
    case 2: return axis_size;
    case 3: return axis_size + 1;
    case 4: return c->lengths_size == 8 ? (1ull << 32) + 1 : (uint64_t)INT32_MAX + 7; /* above, in the high bits */
    default: return (r >> 8) % (axis_size + 3);
    }
}

int gather_buffers_alloc(const gather_case* c, const uint32_t offsets[3], uint64_t seed, gather_buffers* b)
{
    memset(b, 0, sizeof *b);
    uint64_t state = seed * 0x9E3779B97F4A7C15ull + 1;
    for (int i = 0; i < 3; ++i) {
        b->bytes[i] = gather_tensor_bytes(c, i);
        b->block_bytes[i] = (offsets[i] + b->bytes[i] + GATHER_GUARD_BYTES + 63) / 64 * 64;
        b->block[i] = aligned_alloc(64, b->block_bytes[i]);
        if (!b->block[i]) {
            gather_buffers_free(b);
            return -1;
        }
        b->base[i] = b->block[i] + offsets[i];
        unsigned char* block = b->block[i];
        if (i == 0) {
            for (uint64_t k = 0; k < b->block_bytes[i]; k += 8) {
                uint64_t v = next_random(&state);
                memcpy(block + k, &v, 8);
            }
        } else if (i == 1) {
            memset(block, 0xEE, b->block_bytes[i]);
            for (uint64_t k = 0; c->lengths_size && k + c->lengths_size <= b->bytes[i]; k += c->lengths_size) {
                uint64_t v = random_length(c, &state);
                if (c->lengths_size == 4) {
                    uint32_t v32 = (uint32_t)(v > UINT32_MAX ? UINT32_MAX : v);
                    memcpy(b->base[i] + k, &v32, 4);
                } else {
                    memcpy(b->base[i] + k, &v, 8);
                }
            }
        } else {
            for (uint64_t k = 0; k < b->block_bytes[i]; ++k)
                block[k] = gather_sentinel(k);
        }
    }
    b->expected = malloc(b->block_bytes[2]);
    if (!b->expected) {
        gather_buffers_free(b);
        return -1;
    }
    memcpy(b->expected, b->block[2], b->block_bytes[2]);
    return 0;
}

void gather_buffers_free(gather_buffers* b)
{
    for (int i = 0; i < 3; ++i)
        free(b->block[i]);
    free(b->expected);
    memset(b, 0, sizeof *b);
}

const char* gather_pattern_name(int pattern)
{
    static const char* const names[PATTERN_COUNT] = {
        "copy", "reverse-inner", "reverse-outer", "stride+2", "stride-2", "window+1", "transposed",
        "broadcast", "pad-out-64B", "pad-out-odd", "rs-inner-varying", "time-major", "batch-major",
    };
    return pattern >= 0 && pattern < PATTERN_COUNT ? names[pattern] : "?";
}

const char* gather_operator_name(DML_OPERATOR_TYPE type)
{
    switch (type) {
    case DML_OPERATOR_SLICE: return "SLICE";
    case DML_OPERATOR_SLICE1: return "SLICE1";
    default: return "REVERSE_SUBSEQUENCES";
    }
}

/* Rank 2 or 3, every tensor packed, the window the whole input. */
static void base_case(gather_case* c, DML_OPERATOR_TYPE type, uint32_t e, uint32_t rank, const uint32_t* sizes)
{
    memset(c, 0, sizeof *c);
    c->type = type;
    c->element_size = e;
    c->rank = rank;
    c->in_packed = c->out_packed = c->len_packed = 1;
    c->lengths_size = 4;
    for (uint32_t i = 0; i < rank; ++i) {
        c->in_sizes[i] = c->out_sizes[i] = c->window_sizes[i] = sizes[i];
        c->window_strides[i] = 1;
        c->slice_strides[i] = 1;
    }
    gather_packed_strides(rank, sizes, c->in_strides);
    gather_packed_strides(rank, sizes, c->out_strides);
}

/* Lengths of a rank-2 RS on axis 0 broadcast along the row: one length. */
static void rs_outer(gather_case* c, gather_length_kind kind)
{
    c->axis = 0;
    c->len_packed = 0;
    c->len_strides[0] = 0;
    c->len_strides[1] = 0;
    c->length_kind = kind;
}

int gather_pattern_case(DML_OPERATOR_TYPE type, uint32_t e, int pattern, uint64_t out_bytes, uint32_t row_bytes,
    gather_case* c)
{
    const int rs = type == DML_OPERATOR_REVERSE_SUBSEQUENCES, s1 = type == DML_OPERATOR_SLICE1;
    const uint32_t C = row_bytes / e > 1 ? row_bytes / e : 2;
    const uint32_t R = (uint32_t)(out_bytes / ((uint64_t)C * e) ? out_bytes / ((uint64_t)C * e) : 1);
    const uint32_t lanes = 16 / e;
    uint32_t sizes[3] = { R, C, 1 };
    switch (pattern) {
    case PATTERN_COPY:
        base_case(c, type, e, 2, sizes);
        if (rs)
            rs_outer(c, GATHER_LENGTHS_ZERO);
        return 1;
    case PATTERN_REVERSE_INNER:
        if (!s1 && !rs)
            return 0;
        base_case(c, type, e, 2, sizes);
        if (rs) {
            c->axis = 1;
            c->length_kind = GATHER_LENGTHS_FULL;
        } else {
            c->window_strides[1] = -1;
        }
        return 1;
    case PATTERN_REVERSE_OUTER:
        if (!s1 && !rs)
            return 0;
        base_case(c, type, e, 2, sizes);
        if (rs)
            rs_outer(c, GATHER_LENGTHS_FULL);
        else
            c->window_strides[0] = -1;
        return 1;
    case PATTERN_STRIDE_2:
    case PATTERN_STRIDE_MINUS_2:
        if (rs || (pattern == PATTERN_STRIDE_MINUS_2 && !s1))
            return 0;
        base_case(c, type, e, 2, sizes);
        c->in_sizes[1] = 2 * C;
        c->window_sizes[1] = 2 * C - 1;
        c->window_strides[1] = pattern == PATTERN_STRIDE_2 ? 2 : -2;
        c->slice_strides[1] = 2;
        return 1;
    case PATTERN_WINDOW_PLUS_1:
        if (rs)
            return 0;
        base_case(c, type, e, 2, sizes);
        c->in_sizes[1] = C + lanes; /* rows stay 16-byte multiples; the window starts e bytes in */
        c->offsets[1] = 1;
        return 1;
    case PATTERN_TRANSPOSED:
        base_case(c, type, e, 2, sizes);
        c->in_packed = 0;
        c->in_strides[0] = 1;
        c->in_strides[1] = R;
        if (rs)
            rs_outer(c, GATHER_LENGTHS_RANDOM);
        return 1;
    case PATTERN_BROADCAST:
        base_case(c, type, e, 2, sizes);
        c->in_packed = 0;
        c->in_strides[0] = 0;
        c->in_strides[1] = 1;
        if (rs)
            rs_outer(c, GATHER_LENGTHS_RANDOM);
        return 1;
    case PATTERN_PAD_OUT_64:
    case PATTERN_PAD_OUT_ODD:
        base_case(c, type, e, 2, sizes);
        c->out_packed = 0;
        c->out_strides[0] = C + (pattern == PATTERN_PAD_OUT_64 ? 64 / e : 1);
        c->out_strides[1] = 1;
        if (rs)
            rs_outer(c, GATHER_LENGTHS_RANDOM);
        return 1;
    case PATTERN_RS_INNER_VARYING:
        if (!rs)
            return 0;
        base_case(c, type, e, 2, sizes);
        c->axis = 1;
        c->length_kind = GATHER_LENGTHS_RANDOM;
        return 1;
    case PATTERN_TIME_MAJOR:
    case PATTERN_BATCH_MAJOR: {
        if (!rs)
            return 0;
        /* T = 16 steps of F = row_bytes / 4 of features, N sequences. */
        uint32_t T = 16, F = row_bytes / 4 / e ? row_bytes / 4 / e : 1;
        uint32_t N = (uint32_t)(out_bytes / ((uint64_t)T * F * e) ? out_bytes / ((uint64_t)T * F * e) : 1);
        uint32_t tm[3] = { T, N, F }, bm[3] = { N, T, F };
        base_case(c, type, e, 3, pattern == PATTERN_TIME_MAJOR ? tm : bm);
        c->axis = pattern == PATTERN_TIME_MAJOR ? 0 : 1;
        c->len_packed = 0; /* one length per sequence, broadcast along the features */
        c->len_strides[0] = pattern == PATTERN_TIME_MAJOR ? 0 : 1;
        c->len_strides[1] = pattern == PATTERN_TIME_MAJOR ? 1 : 0;
        c->len_strides[2] = 0;
        c->length_kind = GATHER_LENGTHS_RANDOM;
        return 1;
    }
    default: return 0;
    }
}

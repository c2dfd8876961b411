/*
 * throughput_cases.c — the cases of dmlbench's throughput table (see
 * profiling/README.md): SLICE1, REVERSE_SUBSEQUENCES, PADDING, JOIN, SPLIT, TILE, DEPTH_TO_SPACE1,
 * SPACE_TO_DEPTH1, CAST, FILL and GATHER descs
 * shaped as hosts use them, each for any element size and output size.
 */
#include "dmlbench.h"

#include <stdlib.h>
#include <string.h>

static void btensor_init(btensor* t, DML_TENSOR_DATA_TYPE type, UINT rank, const UINT* sizes, const UINT* strides)
{
    memset(t, 0, sizeof *t);
    memcpy(t->sizes, sizes, rank * sizeof(UINT));
    if (strides)
        memcpy(t->strides, strides, rank * sizeof(UINT));
    t->buffer.DataType = type;
    t->buffer.DimensionCount = rank;
    t->buffer.Sizes = t->sizes;
    t->buffer.Strides = strides ? t->strides : NULL;
    t->buffer.TotalTensorSizeInBytes = DMLCalcBufferTensorSize(type, rank, t->sizes, strides ? t->strides : NULL);
    t->desc.Type = DML_TENSOR_TYPE_BUFFER;
    t->desc.Desc = &t->buffer;
}

/* The table's type for an element size: the cases move bytes as unsigned integers. */
static DML_TENSOR_DATA_TYPE type_of_size(unsigned size)
{
    switch (size) {
    case 1: return DML_TENSOR_DATA_TYPE_UINT8;
    case 2: return DML_TENSOR_DATA_TYPE_UINT16;
    case 4: return DML_TENSOR_DATA_TYPE_UINT32;
    default: return DML_TENSOR_DATA_TYPE_UINT64;
    }
}

/* Elements per output row for the row-shaped cases. */
#define ROW 1024u

static void build_reverse(built_case* c, DML_TENSOR_DATA_TYPE type, UINT rank, const UINT* sizes, UINT axis,
    const UINT* length_strides, uint32_t (*length_of)(UINT index, UINT axis_size))
{
    UINT lsizes[4];
    memcpy(lsizes, sizes, rank * sizeof(UINT));
    lsizes[axis] = 1;
    btensor_init(&c->in, type, rank, sizes, NULL);
    btensor_init(&c->out, type, rank, sizes, NULL);
    btensor_init(&c->lengths, DML_TENSOR_DATA_TYPE_UINT32, rank, lsizes, length_strides);
    uint64_t count = c->lengths.buffer.TotalTensorSizeInBytes / 4;
    c->lengths_data = calloc(count ? count : 1, 4);
    for (uint64_t i = 0; i < count; ++i)
        c->lengths_data[i] = length_of((UINT)i, sizes[axis]);
    c->reverse = (DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC){ &c->in.desc, &c->lengths.desc, &c->out.desc, axis };
    c->desc = (DML_OPERATOR_DESC){ DML_OPERATOR_REVERSE_SUBSEQUENCES, &c->reverse };
    c->inputs = 2;
}

static uint32_t full_length(UINT index, UINT axis_size)
{
    (void)index;
    return axis_size;
}

/* Sequence batches: lengths from full down to a quarter, cycling. */
static uint32_t varied_length(UINT index, UINT axis_size)
{
    return axis_size - (UINT)((index * 7u) % (axis_size * 3u / 4u + 1u));
}

static UINT rows_of(uint64_t n, UINT row)
{
    return (UINT)(n / row ? n / row : 1);
}

static UINT row_of(uint64_t n)
{
    return n < ROW ? (UINT)n : ROW;
}

/* [R, 1024], reversed along the inner axis (every sequence full length). */
static int case_reverse_inner(built_case* c, DML_TENSOR_DATA_TYPE type, uint64_t n)
{
    UINT row = row_of(n), sizes[2] = { rows_of(n, row), row };
    build_reverse(c, type, 2, sizes, 1, NULL, full_length);
    return 0;
}

/* [64, R], reversed along the outer axis, one length for all (a broadcast
 * lengths tensor): rows move whole, reversed in order. */
static int case_reverse_outer(built_case* c, DML_TENSOR_DATA_TYPE type, uint64_t n)
{
    UINT outer = n >= 64 ? 64 : (UINT)n, sizes[2] = { outer, (UINT)(n / outer) }, lstrides[2] = { 0, 0 };
    build_reverse(c, type, 2, sizes, 0, lstrides, full_length);
    return 0;
}

/* A batch of B=8 sequences of T=64 steps of F features, time on axis
 * time_axis (0 or 1) and the batch on the other, reversed along time with a
 * length per sequence (stride 1 along the batch, 0 along time and F). */
static int build_sequences(built_case* c, DML_TENSOR_DATA_TYPE type, uint64_t n, UINT time_axis)
{
    if (n < 512)
        return -1;
    UINT sizes[3] = { 8, 8, (UINT)(n / 512) }, lstrides[3] = { 0, 0, 0 };
    sizes[time_axis] = 64;
    lstrides[1 - time_axis] = 1;
    build_reverse(c, type, 3, sizes, time_axis, lstrides, varied_length);
    return 0;
}

/* [T=64, B=8, F] time-major: lengths [1, 8, F] with strides {0, 1, 0}. */
static int case_seq_time_major(built_case* c, DML_TENSOR_DATA_TYPE t, uint64_t n)
{
    return build_sequences(c, t, n, 0);
}

/* [B=8, T=64, F] batch-major: lengths [8, 1, F] with strides {1, 0, 0}. */
static int case_seq_batch_major(built_case* c, DML_TENSOR_DATA_TYPE t, uint64_t n)
{
    return build_sequences(c, t, n, 1);
}

/* Sequence lengths per column, pseudo-random over 0 .. axis size + 2. */
static uint32_t random_length(UINT index, UINT axis_size)
{
    uint32_t x = index * 2654435761u;
    x ^= x >> 15;
    return x % (axis_size + 3u);
}

/* [16, C] reversed along axis 0 with a length per column (lengths [1, C]):
 * every output row reads from all 16 input rows. */
static int build_columns(built_case* c, DML_TENSOR_DATA_TYPE type, uint64_t n, uint32_t (*length_of)(UINT, UINT))
{
    if (n < 16)
        return -1;
    UINT sizes[2] = { 16, (UINT)(n / 16) };
    build_reverse(c, type, 2, sizes, 0, NULL, length_of);
    return 0;
}

static int case_columns_full(built_case* c, DML_TENSOR_DATA_TYPE t, uint64_t n)
{
    return build_columns(c, t, n, full_length);
}

static int case_columns_random(built_case* c, DML_TENSOR_DATA_TYPE t, uint64_t n)
{
    return build_columns(c, t, n, random_length);
}

/* The SLICE1 desc from c->in to c->out: a window of rows x columns at the
 * origin, strides {1, stride}. */
static void set_slice(built_case* c, UINT rows, UINT columns, int stride)
{
    c->offsets[0] = c->offsets[1] = 0;
    c->window[0] = rows;
    c->window[1] = columns;
    c->slice_strides[0] = 1;
    c->slice_strides[1] = stride;
    c->slice = (DML_SLICE1_OPERATOR_DESC){ &c->in.desc, &c->out.desc, 2, c->offsets, c->window, c->slice_strides };
    c->desc = (DML_OPERATOR_DESC){ DML_OPERATOR_SLICE1, &c->slice };
    c->inputs = 1;
}

/* SLICE1 of [R, 1024] rows out of [R, |stride| * 1024 (+64 for stride 1)] rows. */
static int build_slice(built_case* c, DML_TENSOR_DATA_TYPE type, uint64_t n, int stride)
{
    UINT row = row_of(n), rows = rows_of(n, row);
    UINT a = (UINT)(stride < 0 ? -stride : stride);
    UINT in_sizes[2] = { rows, row * a + (a == 1 && stride > 0 ? 64 : 0) }, out_sizes[2] = { rows, row };
    btensor_init(&c->in, type, 2, in_sizes, NULL);
    btensor_init(&c->out, type, 2, out_sizes, NULL);
    set_slice(c, rows, row * a, stride);
    return 0;
}

static int case_slice_p1(built_case* c, DML_TENSOR_DATA_TYPE t, uint64_t n) { return build_slice(c, t, n, 1); }
static int case_slice_m1(built_case* c, DML_TENSOR_DATA_TYPE t, uint64_t n) { return build_slice(c, t, n, -1); }
static int case_slice_p2(built_case* c, DML_TENSOR_DATA_TYPE t, uint64_t n) { return build_slice(c, t, n, 2); }
static int case_slice_m2(built_case* c, DML_TENSOR_DATA_TYPE t, uint64_t n) { return build_slice(c, t, n, -2); }

/* Identity SLICE1 of [A, B] = [R, 1024] from a transposed view (input
 * strides {1, A}) or from one row broadcast to all (input strides {0, 1}). */
static int build_identity(built_case* c, DML_TENSOR_DATA_TYPE type, uint64_t n, int transposed)
{
    UINT b = row_of(n), a = rows_of(n, b);
    UINT sizes[2] = { a, b }, strides[2] = { transposed ? 1 : 0, transposed ? a : 1 };
    btensor_init(&c->in, type, 2, sizes, strides);
    btensor_init(&c->out, type, 2, sizes, NULL);
    set_slice(c, a, b, 1);
    return 0;
}

static int case_transpose(built_case* c, DML_TENSOR_DATA_TYPE t, uint64_t n) { return build_identity(c, t, n, 1); }
static int case_broadcast(built_case* c, DML_TENSOR_DATA_TYPE t, uint64_t n) { return build_identity(c, t, n, 0); }

/* PADDING of an image [R, 1024] by 1 on each side of both dimensions (the
 * output about n elements), in each mode. */
static int build_padding(built_case* c, DML_TENSOR_DATA_TYPE type, uint64_t n, DML_PADDING_MODE mode)
{
    UINT row = row_of(n), rows = rows_of(n, row);
    if (row < 3 || rows < 3)
        return -1;
    UINT in_sizes[2] = { rows - 2, row - 2 }, out_sizes[2] = { rows, row };
    btensor_init(&c->in, type, 2, in_sizes, NULL);
    btensor_init(&c->out, type, 2, out_sizes, NULL);
    for (int i = 0; i < 2; ++i)
        c->start_padding[i] = c->end_padding[i] = 1;
    c->padding = (DML_PADDING_OPERATOR_DESC){ &c->in.desc, &c->out.desc, mode, 0.0f, 2, c->start_padding,
        c->end_padding };
    c->desc = (DML_OPERATOR_DESC){ DML_OPERATOR_PADDING, &c->padding };
    c->inputs = 1;
    return 0;
}

static int case_pad_constant(built_case* c, DML_TENSOR_DATA_TYPE t, uint64_t n)
{
    return build_padding(c, t, n, DML_PADDING_MODE_CONSTANT);
}
static int case_pad_edge(built_case* c, DML_TENSOR_DATA_TYPE t, uint64_t n)
{
    return build_padding(c, t, n, DML_PADDING_MODE_EDGE);
}
static int case_pad_reflect(built_case* c, DML_TENSOR_DATA_TYPE t, uint64_t n)
{
    return build_padding(c, t, n, DML_PADDING_MODE_REFLECTION);
}
static int case_pad_symmetric(built_case* c, DML_TENSOR_DATA_TYPE t, uint64_t n)
{
    return build_padding(c, t, n, DML_PADDING_MODE_SYMMETRIC);
}
/* JOIN of two [R, 512] into [R, 1024] (inner: every output row from both
 * inputs) or of two [R/2, 1024] into [R, 1024] (outer: each input one
 * contiguous half); SPLIT the other way. The output (JOIN) or the input
 * (SPLIT) holds the case's n elements. */
static int build_join_split(built_case* c, DML_TENSOR_DATA_TYPE type, uint64_t n, int inner, int split)
{
    UINT row = row_of(n), rows = rows_of(n, row);
    if ((inner ? row : rows) < 2)
        return -1;
    UINT whole[2] = { rows, row }, part[2] = { inner ? rows : rows / 2, inner ? row / 2 : row };
    whole[inner ? 1 : 0] = 2 * part[inner ? 1 : 0]; /* an odd size loses its last row or column */
    btensor* parts[2] = { split ? &c->out : &c->in, split ? &c->out2 : &c->lengths };
    btensor_init(split ? &c->in : &c->out, type, 2, whole, NULL);
    for (int k = 0; k < 2; ++k) {
        btensor_init(parts[k], type, 2, part, NULL);
        c->parts[k] = parts[k]->desc;
    }
    if (split) {
        c->split = (DML_SPLIT_OPERATOR_DESC){ &c->in.desc, 2, c->parts, inner ? 1u : 0u };
        c->desc = (DML_OPERATOR_DESC){ DML_OPERATOR_SPLIT, &c->split };
        c->inputs = 1;
        c->outputs = 2;
    } else {
        c->join = (DML_JOIN_OPERATOR_DESC){ 2, c->parts, &c->out.desc, inner ? 1u : 0u };
        c->desc = (DML_OPERATOR_DESC){ DML_OPERATOR_JOIN, &c->join };
        c->inputs = 2;
        uint64_t words = (c->lengths.buffer.TotalTensorSizeInBytes + 3) / 4;
        c->lengths_data = calloc(words, 4);
        for (uint64_t i = 0; i < words; ++i)
            c->lengths_data[i] = (uint32_t)(i * 2654435761u);
    }
    return 0;
}

static int case_join_inner(built_case* c, DML_TENSOR_DATA_TYPE t, uint64_t n) { return build_join_split(c, t, n, 1, 0); }
static int case_join_outer(built_case* c, DML_TENSOR_DATA_TYPE t, uint64_t n) { return build_join_split(c, t, n, 0, 0); }
static int case_split_inner(built_case* c, DML_TENSOR_DATA_TYPE t, uint64_t n) { return build_join_split(c, t, n, 1, 1); }
static int case_split_outer(built_case* c, DML_TENSOR_DATA_TYPE t, uint64_t n) { return build_join_split(c, t, n, 0, 1); }

/* TILE of [R/2, 512] by {2, 2} into [R, 1024]: each input row twice along
 * the row, the whole twice along the rows (np.tile(x, (2, 2))). */
static int case_tile(built_case* c, DML_TENSOR_DATA_TYPE type, uint64_t n)
{
    UINT row = row_of(n), rows = rows_of(n, row);
    if (row < 2 || rows < 2)
        return -1;
    UINT in_sizes[2] = { rows / 2, row / 2 }, out_sizes[2] = { rows / 2 * 2, row / 2 * 2 };
    btensor_init(&c->in, type, 2, in_sizes, NULL);
    btensor_init(&c->out, type, 2, out_sizes, NULL);
    c->repeats[0] = c->repeats[1] = 2;
    c->tile = (DML_TILE_OPERATOR_DESC){ &c->in.desc, &c->out.desc, 2, c->repeats };
    c->desc = (DML_OPERATOR_DESC){ DML_OPERATOR_TILE, &c->tile };
    c->inputs = 1;
    return 0;
}

/* DEPTH_TO_SPACE1 (DEPTH_COLUMN_ROW, ONNX's DCR) with blocks of 2 in NCHW:
 * [1, 4C, H, 512] -> [1, C, 2H, 1024] (C = 16 where the size allows), and
 * SPACE_TO_DEPTH1 the other way; each output row interleaves two input rows
 * (depth to space) or takes every other element of one (space to depth). */
static int depth_space_shape(uint64_t n, UINT* channels, UINT* height)
{
    const uint64_t out_rows = n / ROW; /* rows of 1024 on the space side */
    if (out_rows < 2)
        return -1;
    *channels = out_rows >= 32 ? 16 : 1;
    *height = (UINT)(out_rows / (2u * *channels));
    return *height ? 0 : -1;
}

static int build_depth_space(built_case* c, DML_TENSOR_DATA_TYPE type, uint64_t n, int to_space)
{
    UINT ch, h;
    if (depth_space_shape(n, &ch, &h) < 0)
        return -1;
    UINT depth[4] = { 1, 4 * ch, h, ROW / 2 }, space[4] = { 1, ch, 2 * h, ROW };
    btensor_init(&c->in, type, 4, to_space ? depth : space, NULL);
    btensor_init(&c->out, type, 4, to_space ? space : depth, NULL);
    const DML_DEPTH_SPACE_ORDER dcr = DML_DEPTH_SPACE_ORDER_DEPTH_COLUMN_ROW;
    if (to_space) {
        c->depth_to_space = (DML_DEPTH_TO_SPACE1_OPERATOR_DESC){ &c->in.desc, &c->out.desc, 2, dcr };
        c->desc = (DML_OPERATOR_DESC){ DML_OPERATOR_DEPTH_TO_SPACE1, &c->depth_to_space };
    } else {
        c->space_to_depth = (DML_SPACE_TO_DEPTH1_OPERATOR_DESC){ &c->in.desc, &c->out.desc, 2, dcr };
        c->desc = (DML_OPERATOR_DESC){ DML_OPERATOR_SPACE_TO_DEPTH1, &c->space_to_depth };
    }
    c->inputs = 1;
    return 0;
}

static int case_depth_to_space(built_case* c, DML_TENSOR_DATA_TYPE type, uint64_t n)
{
    return build_depth_space(c, type, n, 1);
}

static int case_space_to_depth(built_case* c, DML_TENSOR_DATA_TYPE type, uint64_t n)
{
    return build_depth_space(c, type, n, 0);
}

/* CAST of [R, 1024] from one type to another: built only for the element
 * size of its output type (the table's element size; the case's n elements
 * are its output's). */
static int build_cast(built_case* c, DML_TENSOR_DATA_TYPE type, uint64_t n, DML_TENSOR_DATA_TYPE from,
    DML_TENSOR_DATA_TYPE to, unsigned to_size)
{
    if (type != type_of_size(to_size))
        return -1;
    UINT row = row_of(n), sizes[2] = { rows_of(n, row), row };
    btensor_init(&c->in, from, 2, sizes, NULL);
    btensor_init(&c->out, to, 2, sizes, NULL);
    c->cast = (DML_CAST_OPERATOR_DESC){ &c->in.desc, &c->out.desc };
    c->desc = (DML_OPERATOR_DESC){ DML_OPERATOR_CAST, &c->cast };
    c->inputs = 1;
    return 0;
}

static int case_cast_f32_f16(built_case* c, DML_TENSOR_DATA_TYPE t, uint64_t n)
{
    return build_cast(c, t, n, DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_FLOAT16, 2);
}
static int case_cast_f32_i32(built_case* c, DML_TENSOR_DATA_TYPE t, uint64_t n)
{
    return build_cast(c, t, n, DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_INT32, 4);
}
static int case_cast_u8_f32(built_case* c, DML_TENSOR_DATA_TYPE t, uint64_t n)
{
    return build_cast(c, t, n, DML_TENSOR_DATA_TYPE_UINT8, DML_TENSOR_DATA_TYPE_FLOAT32, 4);
}

/* FILL_VALUE_CONSTANT / FILL_VALUE_SEQUENCE of [R, 1024] in the element
 * size's unsigned type (no input): a constant 7, and 1, 4, 7, ... */
static int build_fill(built_case* c, DML_TENSOR_DATA_TYPE type, uint64_t n, int sequence)
{
    UINT row = row_of(n), sizes[2] = { rows_of(n, row), row };
    btensor_init(&c->out, type, 2, sizes, NULL);
    DML_SCALAR_UNION start = { .UInt64 = sequence ? 1 : 7 }, delta = { .UInt64 = 3 };
    if (sequence) {
        c->fill_sequence = (DML_FILL_VALUE_SEQUENCE_OPERATOR_DESC){ &c->out.desc, type, start, delta };
        c->desc = (DML_OPERATOR_DESC){ DML_OPERATOR_FILL_VALUE_SEQUENCE, &c->fill_sequence };
    } else {
        c->fill_constant = (DML_FILL_VALUE_CONSTANT_OPERATOR_DESC){ &c->out.desc, type, start };
        c->desc = (DML_OPERATOR_DESC){ DML_OPERATOR_FILL_VALUE_CONSTANT, &c->fill_constant };
    }
    c->inputs = 0;
    return 0;
}

static int case_fill_constant(built_case* c, DML_TENSOR_DATA_TYPE t, uint64_t n) { return build_fill(c, t, n, 0); }
static int case_fill_sequence(built_case* c, DML_TENSOR_DATA_TYPE t, uint64_t n) { return build_fill(c, t, n, 1); }

/* INT64 indices at random in [0, bound), in lengths_data (n of them). */
static void random_indices(built_case* c, uint64_t n, uint64_t bound)
{
    c->lengths_data = calloc(n ? 2 * n : 2, 4);
    if (!c->lengths_data)
        return;
    uint64_t x = 0x9E3779B97F4A7C15ull;
    for (uint64_t i = 0; i < n; ++i) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        const int64_t v = (int64_t)(x % bound);
        memcpy(c->lengths_data + 2 * i, &v, 8);
    }
}

/* The element size of the table's types (type_of_size's inverse). */
static unsigned size_of_type(DML_TENSOR_DATA_TYPE type)
{
    return type == DML_TENSOR_DATA_TYPE_UINT8 ? 1 : type == DML_TENSOR_DATA_TYPE_UINT16 ? 2
        : type == DML_TENSOR_DATA_TYPE_UINT32 ? 4 : 8;
}

/* GATHER of rows of row_bytes (an embedding lookup): a table [T, W] as big
 * as the output, INT64 indices [1, T] at random, output [T, W]. */
static int build_gather_rows(built_case* c, DML_TENSOR_DATA_TYPE type, uint64_t n, unsigned row_bytes)
{
    const UINT width = row_bytes / size_of_type(type), rows = (UINT)(n / width);
    if (rows == 0)
        return -1;
    UINT table[2] = { rows, width }, indices[2] = { 1, rows };
    btensor_init(&c->in, type, 2, table, NULL);
    btensor_init(&c->lengths, DML_TENSOR_DATA_TYPE_INT64, 2, indices, NULL);
    btensor_init(&c->out, type, 2, table, NULL);
    random_indices(c, rows, rows);
    c->gather = (DML_GATHER_OPERATOR_DESC){ &c->in.desc, &c->lengths.desc, &c->out.desc, 0, 1 };
    c->desc = (DML_OPERATOR_DESC){ DML_OPERATOR_GATHER, &c->gather };
    c->inputs = 2;
    return c->lengths_data ? 0 : -1;
}

static int case_gather_rows_256(built_case* c, DML_TENSOR_DATA_TYPE t, uint64_t n)
{
    return build_gather_rows(c, t, n, 256);
}
static int case_gather_rows_1k(built_case* c, DML_TENSOR_DATA_TYPE t, uint64_t n)
{
    return build_gather_rows(c, t, n, 1024);
}

/* GATHER_ELEMENTS of [R, 1024] along axis 1, INT64 indices [R, 1024] at random. */
static int case_gather_elements(built_case* c, DML_TENSOR_DATA_TYPE type, uint64_t n)
{
    UINT row = row_of(n), sizes[2] = { rows_of(n, row), row };
    btensor_init(&c->in, type, 2, sizes, NULL);
    btensor_init(&c->lengths, DML_TENSOR_DATA_TYPE_INT64, 2, sizes, NULL);
    btensor_init(&c->out, type, 2, sizes, NULL);
    random_indices(c, (uint64_t)sizes[0] * row, row);
    c->gather_elements = (DML_GATHER_ELEMENTS_OPERATOR_DESC){ &c->in.desc, &c->lengths.desc, &c->out.desc, 1 };
    c->desc = (DML_OPERATOR_DESC){ DML_OPERATOR_GATHER_ELEMENTS, &c->gather_elements };
    c->inputs = 2;
    return c->lengths_data ? 0 : -1;
}

/* SCATTER_ELEMENTS of [R, 1024] along axis 1: INT64 indices [R, 1024] at
 * random (duplicates included), updates [R, 1024]. */
static int case_scatter_elements(built_case* c, DML_TENSOR_DATA_TYPE type, uint64_t n)
{
    UINT row = row_of(n), sizes[2] = { rows_of(n, row), row };
    btensor_init(&c->in, type, 2, sizes, NULL);
    btensor_init(&c->lengths, DML_TENSOR_DATA_TYPE_INT64, 2, sizes, NULL);
    btensor_init(&c->in3, type, 2, sizes, NULL);
    btensor_init(&c->out, type, 2, sizes, NULL);
    random_indices(c, (uint64_t)sizes[0] * row, row);
    c->scatter = (DML_SCATTER_OPERATOR_DESC){ &c->in.desc, &c->lengths.desc, &c->in3.desc, &c->out.desc, 1 };
    c->desc = (DML_OPERATOR_DESC){ DML_OPERATOR_SCATTER_ELEMENTS, &c->scatter };
    c->inputs = 3;
    return c->lengths_data ? 0 : -1;
}

/* SCATTER_ND of 1 KiB rows (a cache update): a table [T, W], as many
 * updated rows [T, W] at random INT64 positions [T, 1]. */
static int case_scatter_nd_rows(built_case* c, DML_TENSOR_DATA_TYPE type, uint64_t n)
{
    const UINT width = 1024 / size_of_type(type), rows = (UINT)(n / width);
    if (rows == 0)
        return -1;
    UINT table[2] = { rows, width }, indices[2] = { rows, 1 };
    btensor_init(&c->in, type, 2, table, NULL);
    btensor_init(&c->lengths, DML_TENSOR_DATA_TYPE_INT64, 2, indices, NULL);
    btensor_init(&c->in3, type, 2, table, NULL);
    btensor_init(&c->out, type, 2, table, NULL);
    random_indices(c, rows, rows);
    c->scatter_nd = (DML_SCATTER_ND_OPERATOR_DESC){ &c->in.desc, &c->lengths.desc, &c->in3.desc, &c->out.desc, 2, 2 };
    c->desc = (DML_OPERATOR_DESC){ DML_OPERATOR_SCATTER_ND, &c->scatter_nd };
    c->inputs = 3;
    return c->lengths_data ? 0 : -1;
}

/* ELEMENT_WISE_IF of [R, 1024]: a UINT8 condition of 0s and 1s at random. */
static int case_element_wise_if(built_case* c, DML_TENSOR_DATA_TYPE type, uint64_t n)
{
    UINT row = row_of(n), sizes[2] = { rows_of(n, row), row };
    const uint64_t count = (uint64_t)sizes[0] * row;
    btensor_init(&c->in, type, 2, sizes, NULL);
    btensor_init(&c->lengths, DML_TENSOR_DATA_TYPE_UINT8, 2, sizes, NULL);
    btensor_init(&c->in3, type, 2, sizes, NULL);
    btensor_init(&c->out, type, 2, sizes, NULL);
    c->lengths_data = calloc((count + 3) / 4 + 1, 4);
    if (!c->lengths_data)
        return -1;
    uint64_t x = 0x9E3779B97F4A7C15ull;
    for (uint64_t i = 0; i < count; ++i) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        ((unsigned char*)c->lengths_data)[i] = (unsigned char)(x >> 63);
    }
    c->element_wise_if = (DML_ELEMENT_WISE_IF_OPERATOR_DESC){ &c->lengths.desc, &c->in.desc, &c->in3.desc,
        &c->out.desc };
    c->desc = (DML_OPERATOR_DESC){ DML_OPERATOR_ELEMENT_WISE_IF, &c->element_wise_if };
    c->inputs = 3;
    c->lengths_first = 1;
    return 0;
}

const case_entry bench_cases[] = {
    { "reverse_inner", case_reverse_inner, 0 },
    { "reverse_outer", case_reverse_outer, 1 },
    { "seq_time_major", case_seq_time_major, 1 },
    { "seq_batch_major", case_seq_batch_major, 1 },
    { "rs_columns_full", case_columns_full, 1 },
    { "rs_columns_random", case_columns_random, 0 },
    { "slice_p1", case_slice_p1, 1 },
    { "slice_m1", case_slice_m1, 0 },
    { "slice_p2", case_slice_p2, 0 },
    { "slice_m2", case_slice_m2, 0 },
    { "transpose", case_transpose, 0 },
    { "broadcast", case_broadcast, 1 },
    { "pad_constant", case_pad_constant, 1 },
    { "pad_edge", case_pad_edge, 1 },
    { "pad_reflect", case_pad_reflect, 1 },
    { "pad_symmetric", case_pad_symmetric, 1 },
    { "join_inner", case_join_inner, 1 },
    { "join_outer", case_join_outer, 1 },
    { "split_inner", case_split_inner, 1 },
    { "split_outer", case_split_outer, 1 },
    { "tile", case_tile, 1 },
    { "depth_to_space", case_depth_to_space, 0 },
    { "space_to_depth", case_space_to_depth, 0 },
    { "cast_f32_f16", case_cast_f32_f16, 1 },
    { "cast_f32_i32", case_cast_f32_i32, 1 },
    { "cast_u8_f32", case_cast_u8_f32, 1 },
    { "fill_constant", case_fill_constant, 1 },
    { "fill_sequence", case_fill_sequence, 1 },
    { "gather_rows_256", case_gather_rows_256, 1 },
    { "gather_rows_1k", case_gather_rows_1k, 1 },
    { "gather_elements", case_gather_elements, 0 },
    { "scatter_elements", case_scatter_elements, 0 },
    { "scatter_nd_rows", case_scatter_nd_rows, 1 },
    { "element_wise_if", case_element_wise_if, 1 },
};
_Static_assert(sizeof bench_cases / sizeof bench_cases[0] == BENCH_CASE_COUNT, "BENCH_CASE_COUNT counts the cases");

int build_case(built_case* c, const case_entry* entry, unsigned element_size, uint64_t bytes)
{
    memset(c, 0, sizeof *c);
    DML_TENSOR_DATA_TYPE type = type_of_size(element_size);
    uint64_t n = bytes / element_size;
    if (n == 0 || entry->build(c, type, n) != 0) {
        free(c->lengths_data);
        return -1;
    }
    if (c->outputs == 0)
        c->outputs = 1;
    uint64_t out_elements = 1;
    for (UINT i = 0; i < c->out.buffer.DimensionCount; ++i)
        out_elements *= c->out.sizes[i];
    c->bytes_written = out_elements * element_size * c->outputs; /* SPLIT's two outputs have one size */
    /* Bytes read: every element the operator loads, once (a broadcast row once). */
    if (entry->build == case_broadcast)
        c->bytes_read = c->in.sizes[1] * (uint64_t)element_size;
    else if (c->inputs == 0) /* the fills only write */
        c->bytes_read = 0;
    else if (c->desc.Type == DML_OPERATOR_PADDING || c->desc.Type == DML_OPERATOR_CAST ||
        c->desc.Type == DML_OPERATOR_TILE)
        /* the input once (PADDING: the border elements read again are cached; TILE: its repeats too;
         * CAST: another element size) */
        c->bytes_read = c->in.buffer.TotalTensorSizeInBytes;
    else
        c->bytes_read = c->bytes_written;
    if (c->inputs == 2 && (c->desc.Type == DML_OPERATOR_REVERSE_SUBSEQUENCES || c->desc.Type == DML_OPERATOR_GATHER ||
            c->desc.Type == DML_OPERATOR_GATHER_ELEMENTS))
        c->bytes_read += c->lengths.buffer.TotalTensorSizeInBytes; /* JOIN's inputs are its output's bytes */
    if (c->inputs == 3) { /* every input once: the scatters' input, indices and updates; IF's condition, A and B */
        c->bytes_read = c->in.buffer.TotalTensorSizeInBytes + c->lengths.buffer.TotalTensorSizeInBytes +
            c->in3.buffer.TotalTensorSizeInBytes;
        if (c->desc.Type != DML_OPERATOR_ELEMENT_WISE_IF) /* the copy, then the updates */
            c->bytes_written += c->in3.buffer.TotalTensorSizeInBytes;
    }
    return 0;
}

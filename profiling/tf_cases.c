/*
 * tf_cases.c — compare_tensorflow.py's cases as the runtime operators the
 * TensorFlow plugin makes of them (tf_cases.h). Each builder names the
 * plugin's function whose descs it repeats.
 */
#include "tf_cases.h"

#include <math.h>
#include <string.h>

#define U32 DML_TENSOR_DATA_TYPE_UINT32 /* float32 moved as its bits (dmltf_bits_type) */

/* compare_tensorflow.py's shapes for n bytes of float32 input. */
typedef struct tf_shapes {
    uint32_t e, side, cols, cube, depth3, rows;
} tf_shapes;

static tf_shapes shapes_for(uint64_t bytes)
{
    tf_shapes s;
    s.e = (uint32_t)(bytes / 4 > 64 ? bytes / 4 : 64);
    uint32_t side = (uint32_t)sqrt((double)s.e);
    while ((uint64_t)(side + 1) * (side + 1) <= s.e) /* int(math.sqrt(e)) */
        side++;
    while ((uint64_t)side * side > s.e)
        side--;
    s.side = side > 8 ? side : 8;
    s.cols = s.e / s.side;
    const uint32_t cube = (uint32_t)lround(cbrt((double)s.e));
    s.cube = cube > 4 ? cube : 4;
    s.depth3 = s.e / (s.cube * s.cube);
    s.rows = s.side < 1024 ? s.side : 1024;
    return s;
}

/* A tensor of `type`, sizes and strides (NULL: packed, no strides given,
 * as the plugin's dmltf_tensor_desc with NULL). */
static void tensor(tf_tensor* t, DML_TENSOR_DATA_TYPE type, uint32_t rank, const UINT* sizes, const UINT* strides)
{
    memcpy(t->sizes, sizes, rank * sizeof *sizes);
    if (strides)
        memcpy(t->strides, strides, rank * sizeof *strides);
    t->buffer = (DML_BUFFER_TENSOR_DESC){ type, DML_TENSOR_FLAG_NONE, rank, t->sizes, strides ? t->strides : NULL,
        DMLCalcBufferTensorSize(type, rank, sizes, strides), 0 };
    t->desc = (DML_TENSOR_DESC){ DML_TENSOR_TYPE_BUFFER, &t->buffer };
}

static uint64_t bytes_of(const tf_tensor* t)
{
    return t->buffer.TotalTensorSizeInBytes;
}

static void set_desc(tf_case* c, DML_OPERATOR_TYPE type, const void* op, const char* operator_name)
{
    c->desc = (DML_OPERATOR_DESC){ type, op };
    c->operator_name = operator_name;
}

/* Transpose (kernels_slice.c, create_transpose): ELEMENT_WISE_IDENTITY from
 * the input read through its permuted strides. */
static void transpose(tf_case* c, uint32_t rank, const UINT* dims, const uint32_t* perm)
{
    UINT packed[TF_CASE_RANK], out[TF_CASE_RANK], strides[TF_CASE_RANK];
    UINT stride = 1;
    for (uint32_t i = rank; i-- > 0;) {
        packed[i] = stride;
        stride *= dims[i];
    }
    for (uint32_t i = 0; i < rank; i++) {
        out[i] = dims[perm[i]];
        strides[i] = out[i] == 1 ? 0 : packed[perm[i]];
    }
    c->inputs = c->outputs = 1;
    tensor(&c->in[0], U32, rank, out, strides);
    tensor(&c->out[0], U32, rank, out, NULL);
    c->read = c->written = bytes_of(&c->out[0]);
    c->op.identity = (DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC){ &c->in[0].desc, &c->out[0].desc, NULL };
    set_desc(c, DML_OPERATOR_ELEMENT_WISE_IDENTITY, &c->op.identity, "ELEMENT_WISE_IDENTITY");
}

/* ReverseV2, Slice, StridedSlice (kernels_slice.c, run_selection): SLICE1
 * of the selection begin[i] + step[i] * k, k < count[i]. */
static void selection(tf_case* c, const UINT* dims, const int64_t* begin, const INT* step, const UINT* count)
{
    for (uint32_t i = 0; i < 2; i++) {
        const int64_t magnitude = step[i] < 0 ? -(int64_t)step[i] : step[i];
        const int64_t last = begin[i] + (int64_t)(count[i] - 1) * step[i];
        c->offsets[i] = (UINT)(step[i] < 0 ? last : begin[i]);
        c->windows[i] = (UINT)((count[i] - 1) * magnitude + 1);
        c->steps[i] = count[i] == 1 ? 1 : step[i];
    }
    c->inputs = c->outputs = 1;
    tensor(&c->in[0], U32, 2, dims, NULL);
    tensor(&c->out[0], U32, 2, count, NULL);
    c->read = c->written = bytes_of(&c->out[0]);
    c->op.slice = (DML_SLICE1_OPERATOR_DESC){ &c->in[0].desc, &c->out[0].desc, 2, c->offsets, c->windows, c->steps };
    set_desc(c, DML_OPERATOR_SLICE1, &c->op.slice, "SLICE1");
}

/* ReverseSequence, seq_axis 1, batch_axis 0 (kernels_sequence.c): lengths
 * as UINT32 {B, 1} at strides {1, 0}. */
static void reverse_sequence(tf_case* c, const UINT* dims)
{
    const UINT lengths[2] = { dims[0], 1 }, strides[2] = { 1, 0 };
    c->inputs = 2;
    c->outputs = 1;
    tensor(&c->in[0], U32, 2, dims, NULL);
    tensor(&c->in[1], DML_TENSOR_DATA_TYPE_UINT32, 2, lengths, strides);
    tensor(&c->out[0], U32, 2, dims, NULL);
    c->fill[1] = TF_FILL_LENGTHS;
    c->limit[1] = dims[1];
    c->read = bytes_of(&c->in[0]) + bytes_of(&c->in[1]);
    c->written = bytes_of(&c->out[0]);
    c->op.reverse = (DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC){ &c->in[0].desc, &c->in[1].desc, &c->out[0].desc, 1 };
    set_desc(c, DML_OPERATOR_REVERSE_SUBSEQUENCES, &c->op.reverse, "REVERSE_SUBSEQUENCES");
}

/* ConcatV2 (kernels_join.c, create_concat) of parts along axis 1: JOIN. */
static void concat(tf_case* c, const UINT* dims, uint32_t parts)
{
    const UINT part[2] = { dims[0], dims[1] / parts }, whole[2] = { dims[0], part[1] * parts };
    c->inputs = parts;
    c->outputs = 1;
    for (uint32_t k = 0; k < parts; k++) {
        tensor(&c->in[k], U32, 2, part, NULL);
        c->parts[k] = c->in[k].desc;
    }
    tensor(&c->out[0], U32, 2, whole, NULL);
    c->read = c->written = bytes_of(&c->out[0]);
    c->op.join = (DML_JOIN_OPERATOR_DESC){ parts, c->parts, &c->out[0].desc, 1 };
    set_desc(c, DML_OPERATOR_JOIN, &c->op.join, "JOIN");
}

/* Split (kernels_split.c, create_split) in `parts` along axis 1: SPLIT. */
static void split(tf_case* c, const UINT* dims, uint32_t parts)
{
    const UINT part[2] = { dims[0], dims[1] / parts }, whole[2] = { dims[0], part[1] * parts };
    c->inputs = 1;
    c->outputs = parts;
    tensor(&c->in[0], U32, 2, whole, NULL);
    for (uint32_t k = 0; k < parts; k++) {
        tensor(&c->out[k], U32, 2, part, NULL);
        c->parts[k] = c->out[k].desc;
    }
    c->read = c->written = bytes_of(&c->in[0]);
    c->op.split = (DML_SPLIT_OPERATOR_DESC){ &c->in[0].desc, parts, c->parts, 1 };
    set_desc(c, DML_OPERATOR_SPLIT, &c->op.split, "SPLIT");
}

/* Pad and MirrorPad (kernels_join.c, create_pad): PADDING1, the value 0 in
 * the moved type. */
static void pad(tf_case* c, const UINT* dims, UINT amount, DML_PADDING_MODE mode)
{
    const UINT out[2] = { dims[0] + 2 * amount, dims[1] + 2 * amount };
    c->offsets[0] = c->offsets[1] = c->ends[0] = c->ends[1] = amount;
    c->inputs = c->outputs = 1;
    tensor(&c->in[0], U32, 2, dims, NULL);
    tensor(&c->out[0], U32, 2, out, NULL);
    c->read = bytes_of(&c->in[0]);
    c->written = bytes_of(&c->out[0]);
    DML_SCALAR_UNION zero;
    memset(&zero, 0, sizeof zero);
    c->op.pad = (DML_PADDING1_OPERATOR_DESC){ &c->in[0].desc, &c->out[0].desc, mode, U32, zero, 2, c->offsets,
        c->ends };
    set_desc(c, DML_OPERATOR_PADDING1, &c->op.pad, "PADDING1");
}

/* Tile (2, 1) (kernels_join.c, create_tile): TILE. */
static void tile(tf_case* c, const UINT* dims)
{
    const UINT out[2] = { dims[0] * 2, dims[1] };
    c->windows[0] = 2;
    c->windows[1] = 1;
    c->inputs = c->outputs = 1;
    tensor(&c->in[0], U32, 2, dims, NULL);
    tensor(&c->out[0], U32, 2, out, NULL);
    c->read = bytes_of(&c->in[0]);
    c->written = bytes_of(&c->out[0]);
    c->op.tile = (DML_TILE_OPERATOR_DESC){ &c->in[0].desc, &c->out[0].desc, 2, c->windows };
    set_desc(c, DML_OPERATOR_TILE, &c->op.tile, "TILE");
}

/* GatherV2 of rows, axis 0, int64 indices (kernels_gather.c,
 * create_gather): GATHER over {outer 1, axis, inner}. */
static void gather_rows(tf_case* c, const UINT* dims, UINT count)
{
    const UINT in[3] = { 1, dims[0], dims[1] }, indices[3] = { 1, 1, count }, out[3] = { 1, count, dims[1] };
    c->inputs = 2;
    c->outputs = 1;
    tensor(&c->in[0], U32, 3, in, NULL);
    tensor(&c->in[1], DML_TENSOR_DATA_TYPE_INT64, 3, indices, NULL);
    tensor(&c->out[0], U32, 3, out, NULL);
    c->fill[1] = TF_FILL_INDICES;
    c->limit[1] = dims[0];
    c->written = bytes_of(&c->out[0]);
    c->read = c->written + bytes_of(&c->in[1]);
    c->op.gather = (DML_GATHER_OPERATOR_DESC){ &c->in[0].desc, &c->in[1].desc, &c->out[0].desc, 1, 1 };
    set_desc(c, DML_OPERATOR_GATHER, &c->op.gather, "GATHER");
}

/* BroadcastTo of one row (kernels_broadcast.c, create_broadcast):
 * ELEMENT_WISE_IDENTITY reading through strides {0, 1}. */
static void broadcast_row(tf_case* c, const UINT* dims)
{
    const UINT strides[2] = { 0, 1 };
    c->inputs = c->outputs = 1;
    tensor(&c->in[0], U32, 2, dims, strides);
    tensor(&c->out[0], U32, 2, dims, NULL);
    c->read = bytes_of(&c->in[0]);
    c->written = bytes_of(&c->out[0]);
    c->op.identity = (DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC){ &c->in[0].desc, &c->out[0].desc, NULL };
    set_desc(c, DML_OPERATOR_ELEMENT_WISE_IDENTITY, &c->op.identity, "ELEMENT_WISE_IDENTITY");
}

/* SelectV2 of one shape (kernels_broadcast.c, create_select): ELEMENT_WISE_IF,
 * the bool condition as UINT8, every input with its (packed) broadcast
 * strides given. */
static void select_v2(tf_case* c, const UINT* dims)
{
    const UINT strides[2] = { dims[1], 1 };
    c->inputs = 3;
    c->outputs = 1;
    tensor(&c->in[0], DML_TENSOR_DATA_TYPE_UINT8, 2, dims, strides);
    tensor(&c->in[1], U32, 2, dims, strides);
    tensor(&c->in[2], U32, 2, dims, strides);
    tensor(&c->out[0], U32, 2, dims, NULL);
    c->fill[0] = TF_FILL_BOOLS;
    c->read = bytes_of(&c->in[0]) + bytes_of(&c->in[1]) + bytes_of(&c->in[2]);
    c->written = bytes_of(&c->out[0]);
    c->op.select = (DML_ELEMENT_WISE_IF_OPERATOR_DESC){ &c->in[0].desc, &c->in[1].desc, &c->in[2].desc,
        &c->out[0].desc };
    set_desc(c, DML_OPERATOR_ELEMENT_WISE_IF, &c->op.select, "ELEMENT_WISE_IF");
}

/* An NHWC shape as NCHW sizes and strides (kernels_space.c, nhwc). */
static void nhwc(tf_tensor* t, const UINT* d)
{
    const UINT sizes[4] = { d[0], d[3], d[1], d[2] }, strides[4] = { d[1] * d[2] * d[3], 1, d[2] * d[3], d[3] };
    tensor(t, U32, 4, sizes, strides);
}

/* DepthToSpace, block 2, NHWC (kernels_space.c, create_space). */
static void depth_to_space(tf_case* c, const UINT* dims)
{
    const UINT out[4] = { dims[0], dims[1] * 2, dims[2] * 2, dims[3] / 4 };
    c->inputs = c->outputs = 1;
    nhwc(&c->in[0], dims);
    nhwc(&c->out[0], out);
    c->read = bytes_of(&c->in[0]);
    c->written = bytes_of(&c->out[0]);
    c->op.depth = (DML_DEPTH_TO_SPACE_OPERATOR_DESC){ &c->in[0].desc, &c->out[0].desc, 2 };
    set_desc(c, DML_OPERATOR_DEPTH_TO_SPACE, &c->op.depth, "DEPTH_TO_SPACE");
}

/* Cast float32 -> float16 (kernels_convert.c, create_cast): CAST of a 1-D
 * tensor of every element. */
static void cast(tf_case* c, UINT count)
{
    c->inputs = c->outputs = 1;
    tensor(&c->in[0], DML_TENSOR_DATA_TYPE_FLOAT32, 1, &count, NULL);
    tensor(&c->out[0], DML_TENSOR_DATA_TYPE_FLOAT16, 1, &count, NULL);
    c->read = bytes_of(&c->in[0]);
    c->written = bytes_of(&c->out[0]);
    c->op.cast = (DML_CAST_OPERATOR_DESC){ &c->in[0].desc, &c->out[0].desc };
    set_desc(c, DML_OPERATOR_CAST, &c->op.cast, "CAST");
}

/* OneHot, depth 16, axis -1, int64 indices (kernels_convert.c,
 * create_one_hot): indices {n, 1} read as UINT64 (a negative index then
 * selects nothing, as TensorFlow's), values {1, 2} (off, on; the plugin
 * JOINs them there first: a 2-element dispatch left out here). */
static void one_hot(tf_case* c, UINT count, UINT depth)
{
    const UINT out[2] = { count, depth }, indices[2] = { count, 1 }, values[2] = { 1, 2 };
    c->inputs = 2;
    c->outputs = 1;
    tensor(&c->in[0], DML_TENSOR_DATA_TYPE_UINT64, 2, indices, NULL);
    tensor(&c->in[1], U32, 2, values, NULL);
    tensor(&c->out[0], U32, 2, out, NULL);
    c->fill[0] = TF_FILL_INDICES;
    c->limit[0] = depth;
    c->fill[1] = TF_FILL_ON_OFF;
    c->read = bytes_of(&c->in[0]) + bytes_of(&c->in[1]);
    c->written = bytes_of(&c->out[0]);
    c->op.one_hot = (DML_ONE_HOT_OPERATOR_DESC){ &c->in[0].desc, &c->in[1].desc, &c->out[0].desc, 1 };
    set_desc(c, DML_OPERATOR_ONE_HOT, &c->op.one_hot, "ONE_HOT");
}

static const char* const names[] = {
    "Transpose 2-D", "Transpose 3-D (2,0,1)", "ReverseV2 axis 0", "ReverseV2 axis 1", "Slice (half)",
    "StridedSlice [::-1, ::2]", "ReverseSequence", "ConcatV2 of 2 halves", "Pad 1 each side", "MirrorPad REFLECT",
    "Tile (2,1) of half", "GatherV2 rows", "BroadcastTo rows", "SelectV2", "Split in 4", "DepthToSpace block 2",
    "Cast float32 -> float16", "OneHot depth 16",
};

int tf_case_count(void)
{
    return (int)(sizeof names / sizeof *names);
}

int tf_case_build(tf_case* c, int index, uint64_t bytes)
{
    if (index < 0 || index >= tf_case_count())
        return -1;
    memset(c, 0, sizeof *c);
    c->name = names[index];
    const tf_shapes s = shapes_for(bytes);
    const UINT x2[2] = { s.side, s.cols }, x3[3] = { s.cube, s.cube, s.depth3 };
    const UINT half_rows[2] = { s.side / 2, s.cols };
    switch (index) {
    case 0: {
        const uint32_t perm[2] = { 1, 0 };
        transpose(c, 2, x2, perm);
        break;
    }
    case 1: {
        const uint32_t perm[3] = { 2, 0, 1 };
        transpose(c, 3, x3, perm);
        break;
    }
    case 2:
    case 3: { /* tf.reverse(t, [axis]) */
        const int axis = index - 2;
        int64_t begin[2] = { 0, 0 };
        INT step[2] = { 1, 1 };
        begin[axis] = x2[axis] - 1;
        step[axis] = -1;
        selection(c, x2, begin, step, x2);
        break;
    }
    case 4: { /* tf.slice(t, [1, 1], [rows / 2, cols / 2]) */
        const int64_t begin[2] = { 1, 1 };
        const INT step[2] = { 1, 1 };
        const UINT count[2] = { s.side / 2, s.cols / 2 };
        selection(c, x2, begin, step, count);
        break;
    }
    case 5: { /* t[::-1, ::2] */
        const int64_t begin[2] = { x2[0] - 1, 0 };
        const INT step[2] = { -1, 2 };
        const UINT count[2] = { x2[0], (x2[1] + 1) / 2 };
        selection(c, x2, begin, step, count);
        break;
    }
    case 6: reverse_sequence(c, x2); break;
    case 7: concat(c, x2, 2); break;
    case 8: pad(c, x2, 1, DML_PADDING_MODE_CONSTANT); break;
    case 9: pad(c, x2, 2, DML_PADDING_MODE_REFLECTION); break;
    case 10: tile(c, half_rows); break;
    case 11: gather_rows(c, x2, x2[0]); break;
    case 12: broadcast_row(c, x2); break;
    case 13: select_v2(c, x2); break;
    case 14: split(c, x2, 4); break;
    case 15: {
        const UINT quarter = s.rows / 4 ? s.rows / 4 : 1, width = s.e / quarter / 16;
        const UINT nhwc_dims[4] = { 1, quarter, width ? width : 1, 16 };
        depth_to_space(c, nhwc_dims);
        break;
    }
    case 16: cast(c, s.side * s.cols); break;
    default: one_hot(c, s.e / 16 ? s.e / 16 : 1, 16); break;
    }
    return 0;
}

void tf_case_fill(const tf_case* c, uint32_t input, unsigned char* host, uint64_t seed)
{
    const uint64_t bytes = c->in[input].buffer.TotalTensorSizeInBytes, limit = c->limit[input];
    uint64_t state = seed * 0x9E3779B97F4A7C15ull + input + 1;
    for (uint64_t at = 0; at < bytes;) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        const uint32_t r = (uint32_t)(state >> 33);
        switch (c->fill[input]) {
        case TF_FILL_INDICES: {
            const int64_t v = (int64_t)(r % limit);
            memcpy(host + at, &v, 8);
            at += 8;
            break;
        }
        case TF_FILL_LENGTHS: {
            const uint32_t v = (uint32_t)(r % (limit + 1));
            memcpy(host + at, &v, 4);
            at += 4;
            break;
        }
        case TF_FILL_BOOLS: host[at++] = (unsigned char)(r & 1); break;
        case TF_FILL_ON_OFF: {
            const float v = at == 0 ? 0.0f : 1.0f;
            memcpy(host + at, &v, 4);
            at += 4;
            break;
        }
        default: { /* a float32 in [-1, 1) */
            const float v = (float)((int32_t)(r & 0xFFFFFF) - 0x800000) / (float)0x800000;
            memcpy(host + at, &v, 4);
            at += 4;
            break;
        }
        }
    }
}

/* onnx_to_dml.c — see onnx_to_dml.h. Integer arithmetic only, but Range's
 * float element count (computed as onnxruntime does). */
#include "onnx_to_dml.h"

#include "tensorproto.h"

#include "core/half.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int fail(int code, char* err, size_t errlen, const char* fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return code;
}

int otd_map_dtype(int32_t t, DML_TENSOR_DATA_TYPE* out)
{
    switch (t) {
    case TP_FLOAT: *out = DML_TENSOR_DATA_TYPE_FLOAT32; return OTD_OK;
    case TP_FLOAT16: *out = DML_TENSOR_DATA_TYPE_FLOAT16; return OTD_OK;
    case TP_DOUBLE: *out = DML_TENSOR_DATA_TYPE_FLOAT64; return OTD_OK;
    case TP_INT8: *out = DML_TENSOR_DATA_TYPE_INT8; return OTD_OK;
    case TP_INT16: *out = DML_TENSOR_DATA_TYPE_INT16; return OTD_OK;
    case TP_INT32: *out = DML_TENSOR_DATA_TYPE_INT32; return OTD_OK;
    case TP_INT64: *out = DML_TENSOR_DATA_TYPE_INT64; return OTD_OK;
    case TP_UINT8: *out = DML_TENSOR_DATA_TYPE_UINT8; return OTD_OK;
    case TP_UINT16: *out = DML_TENSOR_DATA_TYPE_UINT16; return OTD_OK;
    case TP_UINT32: *out = DML_TENSOR_DATA_TYPE_UINT32; return OTD_OK;
    case TP_UINT64: *out = DML_TENSOR_DATA_TYPE_UINT64; return OTD_OK;
    case TP_BOOL: *out = DML_TENSOR_DATA_TYPE_UINT8; return OTD_OK;
    default: return OTD_UNREPRESENTABLE;
    }
}

static int check_dims(uint32_t rank, const int64_t* dims, uint32_t* sizes, char* err, size_t errlen)
{
    if (rank < 1 || rank > DML_TENSOR_DIMENSION_COUNT_MAX1)
        return fail(OTD_UNREPRESENTABLE, err, errlen, "rank %u is outside DirectML's 1..8", rank);
    for (uint32_t i = 0; i < rank; ++i) {
        if (dims[i] < 0)
            return fail(OTD_INVALID, err, errlen, "dims[%u] = %lld is negative", i, (long long)dims[i]);
        if (dims[i] > (int64_t)UINT32_MAX)
            return fail(OTD_UNREPRESENTABLE, err, errlen, "dims[%u] = %lld exceeds UINT32", i,
                        (long long)dims[i]);
        sizes[i] = (uint32_t)dims[i];
    }
    return OTD_OK;
}

int otd_map_reverse_sequence(uint32_t rank, const int64_t* dims, int64_t time_axis,
                             int64_t batch_axis, uint64_t lengths_count, int onnx_strict,
                             otd_reverse_sequence* out, char* err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (onnx_strict && rank < 2)
        return fail(OTD_INVALID, err, errlen, "ReverseSequence: input rank %u < 2", rank);
    int r = check_dims(rank, dims, out->sizes, err, errlen);
    if (r != OTD_OK)
        return r;
    int64_t lim = onnx_strict ? 2 : (int64_t)rank;
    if (time_axis < 0 || time_axis >= lim)
        return fail(OTD_INVALID, err, errlen, "ReverseSequence: time_axis %lld not in [0, %lld)",
                    (long long)time_axis, (long long)lim);
    if (batch_axis < 0 || batch_axis >= lim)
        return fail(OTD_INVALID, err, errlen, "ReverseSequence: batch_axis %lld not in [0, %lld)",
                    (long long)batch_axis, (long long)lim);
    if (time_axis == batch_axis)
        return fail(OTD_INVALID, err, errlen, "ReverseSequence: time_axis == batch_axis == %lld",
                    (long long)time_axis);
    if (lengths_count != (uint64_t)dims[batch_axis])
        return fail(OTD_INVALID, err, errlen,
                    "ReverseSequence: sequence_lens has %llu elements, batch dimension is %lld",
                    (unsigned long long)lengths_count, (long long)dims[batch_axis]);
    for (uint32_t i = 0; i < rank; ++i)
        if (out->sizes[i] == 0)
            return fail(OTD_EMPTY, err, errlen, "ReverseSequence: input dims[%u] is 0", i);
    out->rank = rank;
    out->axis = (uint32_t)time_axis;
    out->lengths_type = DML_TENSOR_DATA_TYPE_UINT64;
    for (uint32_t i = 0; i < rank; ++i) {
        out->lengths_sizes[i] = (i == out->axis) ? 1u : out->sizes[i];
        out->lengths_strides[i] = (i == (uint32_t)batch_axis) ? 1u : 0u;
    }
    return OTD_OK;
}

/* |v| as uint64, exact for INT64_MIN. */
static uint64_t uabs64(int64_t v)
{
    return v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
}

int otd_slice_axis(int64_t dim, int64_t start, int64_t end, int64_t step, int64_t* first,
                   uint64_t* count)
{
    if (step == 0)
        return OTD_INVALID;
    /* dim in [0, 2^32]; start + dim / end + dim only when negative: no overflow. */
    if (start < 0)
        start += dim;
    if (end < 0)
        end += dim;
    if (step > 0) {
        start = start < 0 ? 0 : (start > dim ? dim : start);
        end = end < 0 ? 0 : (end > dim ? dim : end);
        uint64_t span = end > start ? (uint64_t)(end - start) : 0;
        uint64_t s = (uint64_t)step;
        *count = span ? (span - 1) / s + 1 : 0; /* ceil without overflow */
    } else {
        start = start < 0 ? 0 : (start > dim - 1 ? dim - 1 : start);
        end = end < -1 ? -1 : (end > dim - 1 ? dim - 1 : end);
        uint64_t span = start > end ? (uint64_t)(start - end) : 0;
        uint64_t s = uabs64(step);
        *count = span ? (span - 1) / s + 1 : 0;
    }
    *first = start;
    return OTD_OK;
}

int otd_map_slice(uint32_t rank, const int64_t* dims, uint32_t n, const int64_t* starts,
                  const int64_t* ends, const int64_t* axes, const int64_t* steps, otd_slice* out,
                  char* err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    int r = check_dims(rank, dims, out->input_sizes, err, errlen);
    if (r != OTD_OK)
        return r;
    out->rank = rank;
    int64_t start[DML_TENSOR_DIMENSION_COUNT_MAX1], end[DML_TENSOR_DIMENSION_COUNT_MAX1],
        step[DML_TENSOR_DIMENSION_COUNT_MAX1];
    int seen[DML_TENSOR_DIMENSION_COUNT_MAX1] = { 0 };
    for (uint32_t i = 0; i < rank; ++i) {
        start[i] = 0;
        end[i] = INT64_MAX;
        step[i] = 1;
    }
    if (n > rank)
        return fail(OTD_INVALID, err, errlen, "Slice: %u starts for a rank-%u input", n, rank);
    for (uint32_t k = 0; k < n; ++k) {
        int64_t a = axes ? axes[k] : (int64_t)k;
        if (a < -(int64_t)rank || a >= (int64_t)rank)
            return fail(OTD_INVALID, err, errlen, "Slice: axes[%u] = %lld out of range for rank %u", k,
                        (long long)a, rank);
        if (a < 0)
            a += rank;
        if (seen[a]++)
            return fail(OTD_INVALID, err, errlen, "Slice: axis %lld repeated", (long long)a);
        int64_t s = steps ? steps[k] : 1;
        if (s == 0)
            return fail(OTD_INVALID, err, errlen, "Slice: steps[%u] is 0", k);
        start[a] = starts[k];
        end[a] = ends[k];
        step[a] = s;
    }
    int empty = 0;
    for (uint32_t i = 0; i < rank; ++i) {
        int64_t first;
        uint64_t count;
        otd_slice_axis(dims[i], start[i], end[i], step[i], &first, &count);
        out->output_sizes[i] = (uint32_t)count; /* count <= dim <= UINT32_MAX */
        if (count == 0) {
            empty = 1;
            continue;
        }
        if (count == 1) {
            out->offsets[i] = (uint32_t)first;
            out->window_sizes[i] = 1;
            out->strides[i] = 1;
            continue;
        }
        uint64_t mag = uabs64(step[i]); /* count >= 2 => mag < dim */
        if (mag > (uint64_t)INT32_MAX)
            return fail(OTD_UNREPRESENTABLE, err, errlen,
                        "Slice: step %lld on axis %u does not fit DML's INT32 window stride",
                        (long long)step[i], i);
        uint64_t extent = (count - 1) * mag; /* distance first..last, < dim */
        out->window_sizes[i] = (uint32_t)(extent + 1);
        if (step[i] > 0) {
            out->offsets[i] = (uint32_t)first;
            out->strides[i] = (int32_t)mag;
        } else {
            /* Elements first, first - mag, ..., last = first - extent. SLICE1 starts a
             * negative-stride window at offset + size - 1 = first. */
            out->offsets[i] = (uint32_t)((uint64_t)first - extent);
            out->strides[i] = -(int32_t)mag;
        }
    }
    if (empty)
        return fail(OTD_EMPTY, err, errlen, "Slice: the output has a zero dimension");
    return OTD_OK;
}

int otd_map_tile(uint32_t rank, const int64_t* dims, uint64_t repeats_count, const int64_t* repeats,
                 otd_tile* out, char* err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    int r = check_dims(rank, dims, out->input_sizes, err, errlen);
    if (r != OTD_OK)
        return r;
    if (repeats_count != rank)
        return fail(OTD_INVALID, err, errlen, "Tile: %llu repeats for a rank-%u input",
                    (unsigned long long)repeats_count, rank);
    out->rank = rank;
    int empty = 0;
    for (uint32_t i = 0; i < rank; ++i) {
        if (repeats[i] < 0)
            return fail(OTD_INVALID, err, errlen, "Tile: repeats[%u] = %lld is negative", i,
                        (long long)repeats[i]);
        /* dims[i] <= UINT32_MAX: the product is exact unless repeats[i] is huge */
        uint64_t size;
        if (__builtin_mul_overflow((uint64_t)dims[i], (uint64_t)repeats[i], &size) || size > UINT32_MAX)
            return fail(OTD_UNREPRESENTABLE, err, errlen,
                        "Tile: dims[%u] * repeats[%u] = %lld * %lld exceeds UINT32", i, i,
                        (long long)dims[i], (long long)repeats[i]);
        out->repeats[i] = (uint32_t)repeats[i];
        out->output_sizes[i] = (uint32_t)size;
        empty |= size == 0;
    }
    if (empty)
        return fail(OTD_EMPTY, err, errlen, "Tile: the output has a zero dimension");
    return OTD_OK;
}

int otd_map_pad(uint32_t rank, const int64_t* dims, uint64_t pads_count, const int64_t* pads, uint64_t axes_count,
                const int64_t* axes, const char* mode, otd_pad* out, char* err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    int r = check_dims(rank, dims, out->input_sizes, err, errlen);
    if (r != OTD_OK)
        return r;
    out->rank = rank;
    if (!mode || !strcmp(mode, "constant"))
        out->mode = DML_PADDING_MODE_CONSTANT;
    else if (!strcmp(mode, "edge"))
        out->mode = DML_PADDING_MODE_EDGE;
    else if (!strcmp(mode, "reflect"))
        out->mode = DML_PADDING_MODE_REFLECTION;
    else if (!strcmp(mode, "wrap"))
        return fail(OTD_UNREPRESENTABLE, err, errlen, "Pad: mode \"wrap\" has no DML_PADDING_MODE");
    else
        return fail(OTD_INVALID, err, errlen, "Pad: mode \"%s\"; must be constant, reflect, edge or wrap", mode);
    const uint64_t n = axes ? axes_count : rank;
    if (pads_count != 2 * n)
        return fail(OTD_INVALID, err, errlen, "Pad: %llu pads for %llu axes; must be twice as many",
                    (unsigned long long)pads_count, (unsigned long long)n);
    int seen[DML_TENSOR_DIMENSION_COUNT_MAX1] = { 0 };
    int64_t begin[DML_TENSOR_DIMENSION_COUNT_MAX1] = { 0 }, finish[DML_TENSOR_DIMENSION_COUNT_MAX1] = { 0 };
    for (uint64_t k = 0; k < n; ++k) {
        int64_t a = axes ? axes[k] : (int64_t)k;
        if (a < -(int64_t)rank || a >= (int64_t)rank)
            return fail(OTD_INVALID, err, errlen, "Pad: axis %lld outside a rank-%u input", (long long)a, rank);
        if (a < 0)
            a += rank;
        if (seen[a]++)
            return fail(OTD_INVALID, err, errlen, "Pad: axis %lld repeated", (long long)a);
        begin[a] = pads[k];
        finish[a] = pads[n + k];
    }
    int empty = 0;
    for (uint32_t i = 0; i < rank; ++i) {
        if (begin[i] < 0 || finish[i] < 0)
            return fail(OTD_UNREPRESENTABLE, err, errlen,
                        "Pad: a negative pad on axis %u (ONNX crops; DirectML's PADDING only adds)", i);
        if (begin[i] > (int64_t)UINT32_MAX || finish[i] > (int64_t)UINT32_MAX ||
            dims[i] + begin[i] + finish[i] > (int64_t)UINT32_MAX)
            return fail(OTD_UNREPRESENTABLE, err, errlen, "Pad: axis %u padded beyond UINT32", i);
        out->start[i] = (uint32_t)begin[i];
        out->end[i] = (uint32_t)finish[i];
        out->output_sizes[i] = (uint32_t)(dims[i] + begin[i] + finish[i]);
        if (dims[i] == 0 && out->output_sizes[i] > 0)
            return fail(OTD_UNREPRESENTABLE, err, errlen, "Pad: axis %u pads an empty input", i);
        empty |= out->output_sizes[i] == 0;
    }
    if (empty)
        return fail(OTD_EMPTY, err, errlen, "Pad: the output has a zero dimension");
    return OTD_OK;
}

int otd_map_depth_space(int to_space, uint32_t rank, const int64_t* dims, int64_t blocksize, const char* mode,
                        otd_depth_space* out, char* err, size_t errlen)
{
    const char* op = to_space ? "DepthToSpace" : "SpaceToDepth";
    memset(out, 0, sizeof *out);
    out->to_space = to_space;
    if (rank != 4)
        return fail(OTD_INVALID, err, errlen, "%s: rank %u; must be 4 (NCHW)", op, rank);
    for (uint32_t i = 0; i < 4; ++i) {
        if (dims[i] < 0)
            return fail(OTD_INVALID, err, errlen, "%s: dims[%u] = %lld is negative", op, i, (long long)dims[i]);
        if (dims[i] > (int64_t)UINT32_MAX)
            return fail(OTD_UNREPRESENTABLE, err, errlen, "%s: dims[%u] = %lld exceeds UINT32", op, i,
                        (long long)dims[i]);
        out->input_sizes[i] = (uint32_t)dims[i];
    }
    if (blocksize < 1)
        return fail(OTD_INVALID, err, errlen, "%s: blocksize %lld; must be >= 1", op, (long long)blocksize);
    if (blocksize > (int64_t)UINT32_MAX)
        return fail(OTD_UNREPRESENTABLE, err, errlen, "%s: blocksize %lld exceeds UINT32", op,
                    (long long)blocksize);
    out->block = (uint32_t)blocksize;
    out->order = DML_DEPTH_SPACE_ORDER_DEPTH_COLUMN_ROW;
    if (to_space && mode && !strcmp(mode, "CRD"))
        out->order = DML_DEPTH_SPACE_ORDER_COLUMN_ROW_DEPTH;
    else if (to_space && mode && strcmp(mode, "DCR"))
        return fail(OTD_INVALID, err, errlen, "DepthToSpace: mode \"%s\"; must be \"DCR\" or \"CRD\"", mode);
    const uint64_t b = (uint64_t)blocksize, bb = b * b; /* < 2^64: two 32-bit factors */
    uint64_t sizes[4] = { (uint64_t)dims[0], 0, 0, 0 };
    if (to_space) {
        if ((uint64_t)dims[1] % bb)
            return fail(OTD_INVALID, err, errlen, "DepthToSpace: C = %lld is not a multiple of blocksize^2 = %llu",
                        (long long)dims[1], (unsigned long long)bb);
        sizes[1] = (uint64_t)dims[1] / bb;
        sizes[2] = (uint64_t)dims[2] * b;
        sizes[3] = (uint64_t)dims[3] * b;
    } else {
        if ((uint64_t)dims[2] % b || (uint64_t)dims[3] % b)
            return fail(OTD_INVALID, err, errlen, "SpaceToDepth: H = %lld, W = %lld are not multiples of "
                        "blocksize %lld", (long long)dims[2], (long long)dims[3], (long long)blocksize);
        if (bb > UINT32_MAX || __builtin_mul_overflow((uint64_t)dims[1], bb, &sizes[1]))
            sizes[1] = UINT64_MAX;
        sizes[2] = (uint64_t)dims[2] / b;
        sizes[3] = (uint64_t)dims[3] / b;
    }
    int empty = 0;
    for (uint32_t i = 0; i < 4; ++i) {
        if (sizes[i] > UINT32_MAX)
            return fail(OTD_UNREPRESENTABLE, err, errlen, "%s: output dimension %u exceeds UINT32", op, i);
        out->output_sizes[i] = (uint32_t)sizes[i];
        empty |= sizes[i] == 0;
    }
    if (empty)
        return fail(OTD_EMPTY, err, errlen, "%s: a zero dimension", op);
    return OTD_OK;
}

static int check_axis(const char* op, int64_t axis, uint32_t rank, uint32_t* out, char* err, size_t errlen)
{
    if (axis < -(int64_t)rank || axis >= (int64_t)rank)
        return fail(OTD_INVALID, err, errlen, "%s: axis %lld is outside [-%u, %u)", op, (long long)axis, rank, rank);
    *out = (uint32_t)(axis < 0 ? axis + rank : axis);
    return OTD_OK;
}

/* OTD_EMPTY when the whole has a zero dimension, else OTD_OK. */
static int whole_or_empty(const char* op, const otd_join_split* m, char* err, size_t errlen)
{
    for (uint32_t i = 0; i < m->rank; ++i)
        if (m->whole_sizes[i] == 0)
            return fail(OTD_EMPTY, err, errlen, "%s: dimension %u of the %s is 0", op, i,
                        op[0] == 'C' ? "output" : "input");
    return OTD_OK;
}

int otd_map_concat(uint32_t input_count, const uint32_t* ranks, const int64_t* const* dims, int64_t axis,
                   otd_join_split* out, char* err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (input_count == 0)
        return fail(OTD_INVALID, err, errlen, "Concat: no inputs");
    if (input_count > OTD_MAX_PARTS)
        return fail(OTD_UNREPRESENTABLE, err, errlen, "Concat: %u inputs; this mapping takes up to %d", input_count,
                    OTD_MAX_PARTS);
    int r = check_dims(ranks[0], dims[0], out->whole_sizes, err, errlen);
    if (r != OTD_OK)
        return r;
    out->rank = ranks[0];
    if ((r = check_axis("Concat", axis, out->rank, &out->axis, err, errlen)) != OTD_OK)
        return r;
    uint64_t total = 0;
    for (uint32_t k = 0; k < input_count; ++k) {
        uint32_t sizes[DML_TENSOR_DIMENSION_COUNT_MAX1];
        if (ranks[k] != out->rank)
            return fail(OTD_INVALID, err, errlen, "Concat: input %u has rank %u, input 0 rank %u", k, ranks[k],
                        out->rank);
        if ((r = check_dims(ranks[k], dims[k], sizes, err, errlen)) != OTD_OK)
            return r;
        for (uint32_t i = 0; i < out->rank; ++i)
            if (i != out->axis && sizes[i] != out->whole_sizes[i])
                return fail(OTD_INVALID, err, errlen, "Concat: input %u dims[%u] = %u, input 0's %u", k, i,
                            sizes[i], out->whole_sizes[i]);
        out->part_axis_sizes[k] = sizes[out->axis];
        total += sizes[out->axis]; /* at most 64 sizes below 2^32 */
    }
    if (total > UINT32_MAX)
        return fail(OTD_UNREPRESENTABLE, err, errlen, "Concat: the output's axis size %llu exceeds UINT32",
                    (unsigned long long)total);
    out->part_count = input_count;
    out->whole_sizes[out->axis] = (uint32_t)total;
    return whole_or_empty("Concat", out, err, errlen);
}

int otd_map_split(uint32_t rank, const int64_t* dims, int64_t axis, uint32_t output_count, const int64_t* split,
                  uint64_t split_count, int64_t num_outputs, otd_join_split* out, char* err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    int r = check_dims(rank, dims, out->whole_sizes, err, errlen);
    if (r != OTD_OK)
        return r;
    out->rank = rank;
    if ((r = check_axis("Split", axis, rank, &out->axis, err, errlen)) != OTD_OK)
        return r;
    if (output_count == 0)
        return fail(OTD_INVALID, err, errlen, "Split: no outputs");
    if (output_count > OTD_MAX_PARTS)
        return fail(OTD_UNREPRESENTABLE, err, errlen, "Split: %u outputs; this mapping takes up to %d",
                    output_count, OTD_MAX_PARTS);
    if (split && num_outputs)
        return fail(OTD_INVALID, err, errlen, "Split: both 'split' and num_outputs are given");
    if (num_outputs && num_outputs != (int64_t)output_count)
        return fail(OTD_INVALID, err, errlen, "Split: num_outputs = %lld for %u outputs", (long long)num_outputs,
                    output_count);
    const uint64_t n = out->whole_sizes[out->axis];
    out->part_count = output_count;
    if (split) {
        if (split_count != output_count)
            return fail(OTD_INVALID, err, errlen, "Split: %llu split values for %u outputs",
                        (unsigned long long)split_count, output_count);
        uint64_t total = 0;
        for (uint32_t k = 0; k < output_count; ++k) {
            if (split[k] < 0 || split[k] > (int64_t)UINT32_MAX)
                return fail(OTD_INVALID, err, errlen, "Split: split[%u] = %lld is outside [0, the axis size]", k,
                            (long long)split[k]);
            out->part_axis_sizes[k] = (uint32_t)split[k];
            total += (uint64_t)split[k]; /* at most 64 values below 2^32 */
        }
        if (total != n)
            return fail(OTD_INVALID, err, errlen, "Split: the split values sum to %llu, the axis size is %llu",
                        (unsigned long long)total, (unsigned long long)n);
    } else if (num_outputs) {
        const uint64_t chunk = (n + output_count - 1) / output_count;
        const uint64_t before_last = chunk * (output_count - 1);
        if (before_last > n)
            return fail(OTD_INVALID, err, errlen, "Split: %llu elements cannot be split into %u parts of %llu",
                        (unsigned long long)n, output_count, (unsigned long long)chunk);
        for (uint32_t k = 0; k + 1 < output_count; ++k)
            out->part_axis_sizes[k] = (uint32_t)chunk;
        out->part_axis_sizes[output_count - 1] = (uint32_t)(n - before_last);
    } else {
        if (n % output_count)
            return fail(OTD_INVALID, err, errlen, "Split: the axis size %llu does not divide into %u equal parts",
                        (unsigned long long)n, output_count);
        for (uint32_t k = 0; k < output_count; ++k)
            out->part_axis_sizes[k] = (uint32_t)(n / output_count);
    }
    return whole_or_empty("Split", out, err, errlen);
}

/* ---- ConstantOfShape, Range (fills) and Expand ------------------------------ */

/* A fill's output sizes from ONNX dims (rank 0: one element, as {1}). */
static int fill_sizes(const char* op, uint64_t rank, const int64_t* dims, otd_fill* out, char* err, size_t errlen)
{
    if (rank > DML_TENSOR_DIMENSION_COUNT_MAX1)
        return fail(OTD_UNREPRESENTABLE, err, errlen, "%s: rank %llu is outside DirectML's 1..8", op,
                    (unsigned long long)rank);
    out->rank = rank ? (uint32_t)rank : 1;
    out->output_sizes[0] = 1;
    int empty = 0;
    for (uint32_t i = 0; i < rank; ++i) {
        if (dims[i] < 0)
            return fail(OTD_INVALID, err, errlen, "%s: dimension %u = %lld is negative", op, i, (long long)dims[i]);
        if (dims[i] > (int64_t)UINT32_MAX)
            return fail(OTD_UNREPRESENTABLE, err, errlen, "%s: dimension %u = %lld exceeds UINT32", op, i,
                        (long long)dims[i]);
        out->output_sizes[i] = (uint32_t)dims[i];
        empty |= dims[i] == 0;
    }
    if (empty)
        return fail(OTD_EMPTY, err, errlen, "%s: the output has a zero dimension", op);
    return OTD_OK;
}

int otd_map_constant_of_shape(uint64_t shape_count, const int64_t* shape, int32_t value_type, const void* value,
                              otd_fill* out, char* err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (!value) { /* ONNX's default: a float 0 */
        value_type = TP_FLOAT;
        value = out->start.Bytes; /* zeros */
    }
    if (otd_map_dtype(value_type, &out->type) != OTD_OK)
        return fail(OTD_UNREPRESENTABLE, err, errlen, "ConstantOfShape: value type %d has no DML type",
                    (int)value_type);
    memcpy(out->start.Bytes, value, tp_elem_size(value_type));
    return fill_sizes("ConstantOfShape", shape_count, shape, out, err, errlen);
}

/* ONNX's element count, max(ceil((limit - start) / delta), 0): in exact
 * integers for the integer types; for floats as onnxruntime computes it,
 * limit - start in the type, then divided by delta in double. */
static int range_count(int32_t type, const void* start, const void* limit, const void* delta, uint64_t* count,
                       char* err, size_t errlen)
{
    double n;
    if (type == TP_FLOAT || type == TP_DOUBLE) {
        double s, l, d;
        if (type == TP_FLOAT) {
            float fs, fl, fd;
            memcpy(&fs, start, 4);
            memcpy(&fl, limit, 4);
            memcpy(&fd, delta, 4);
            s = 0, l = (double)(fl - fs), d = fd;
        } else {
            memcpy(&s, start, 8);
            memcpy(&l, limit, 8);
            memcpy(&d, delta, 8);
            l -= s;
            s = 0;
        }
        if (d == 0)
            return fail(OTD_INVALID, err, errlen, "Range: delta is 0");
        n = __builtin_ceil(l / d);
        if (n != n)
            return fail(OTD_INVALID, err, errlen, "Range: the element count is NaN");
    } else {
        tp_tensor t = { .data_type = type, .count = 3, .elem_size = tp_elem_size(type) };
        uint8_t bytes[24];
        memcpy(bytes, start, t.elem_size);
        memcpy(bytes + t.elem_size, limit, t.elem_size);
        memcpy(bytes + 2 * t.elem_size, delta, t.elem_size);
        t.data = bytes;
        __int128 s = tp_get_i64(&t, 0), l = tp_get_i64(&t, 1), d = tp_get_i64(&t, 2), span = l - s;
        if (d == 0)
            return fail(OTD_INVALID, err, errlen, "Range: delta is 0");
        __int128 q = span / d;
        if (span % d != 0 && ((span < 0) == (d < 0)))
            ++q; /* ceil */
        n = q > (__int128)UINT64_MAX ? 1e30 : (double)q;
    }
    if (n <= 0) {
        *count = 0;
        return OTD_OK;
    }
    if (n > (double)UINT32_MAX)
        return fail(OTD_UNREPRESENTABLE, err, errlen, "Range: %.0f elements exceed UINT32", n);
    *count = (uint64_t)n;
    return OTD_OK;
}

int otd_map_range(int32_t type, const void* start, const void* limit, const void* delta, otd_fill* out,
                  char* err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (type != TP_FLOAT && type != TP_DOUBLE && type != TP_INT16 && type != TP_INT32 && type != TP_INT64)
        return fail(OTD_INVALID, err, errlen, "Range: type %d is not float, double, int16, int32 or int64",
                    (int)type);
    otd_map_dtype(type, &out->type);
    out->sequence = 1;
    memcpy(out->start.Bytes, start, tp_elem_size(type));
    memcpy(out->delta.Bytes, delta, tp_elem_size(type));
    uint64_t count;
    int r = range_count(type, start, limit, delta, &count, err, errlen);
    if (r != OTD_OK)
        return r;
    int64_t dim = (int64_t)count;
    return fill_sizes("Range", 1, &dim, out, err, errlen);
}

int otd_map_expand(uint32_t rank, const int64_t* dims, uint64_t shape_count, const int64_t* shape,
                   otd_expand* out, char* err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    uint64_t out_rank = rank > shape_count ? rank : shape_count;
    if (out_rank > DML_TENSOR_DIMENSION_COUNT_MAX1)
        return fail(OTD_UNREPRESENTABLE, err, errlen, "Expand: rank %llu is outside DirectML's 1..8",
                    (unsigned long long)out_rank);
    out->rank = out_rank ? (uint32_t)out_rank : 1;
    out->output_sizes[0] = 1;
    uint64_t stride = 1; /* the input's packed stride, innermost first */
    int empty = 0;
    for (uint32_t k = 0; k < out_rank; ++k) { /* k-th dimension from the right */
        int64_t a = k < rank ? dims[rank - 1 - k] : 1, b = k < shape_count ? shape[shape_count - 1 - k] : 1;
        if (a < 0 || b < 0)
            return fail(OTD_INVALID, err, errlen, "Expand: a negative dimension");
        if (a != b && a != 1 && b != 1)
            return fail(OTD_INVALID, err, errlen, "Expand: input dimension %lld and shape %lld do not broadcast",
                        (long long)a, (long long)b);
        int64_t size = a == 1 ? b : a;
        if (size > (int64_t)UINT32_MAX)
            return fail(OTD_UNREPRESENTABLE, err, errlen, "Expand: dimension %lld exceeds UINT32", (long long)size);
        uint32_t i = (uint32_t)(out_rank - 1 - k);
        out->output_sizes[i] = (uint32_t)size;
        out->input_strides[i] = a == 1 ? 0 : (uint32_t)stride; /* broadcast: read again */
        if (stride * (uint64_t)a > UINT32_MAX)
            return fail(OTD_UNREPRESENTABLE, err, errlen, "Expand: the input's strides exceed UINT32");
        stride *= (uint64_t)a;
        empty |= size == 0;
    }
    out->input_elements = stride;
    if (empty)
        return fail(OTD_EMPTY, err, errlen, "Expand: the output has a zero dimension");
    return OTD_OK;
}
int otd_map_cast(uint32_t rank, const int64_t* dims, int32_t input_type, int32_t to, otd_cast* out, char* err,
                 size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (otd_map_dtype(input_type, &out->input_type) != OTD_OK)
        return fail(OTD_UNREPRESENTABLE, err, errlen, "Cast: input type %d is not a DirectML type", (int)input_type);
    if (to == TP_BOOL)
        return fail(OTD_UNREPRESENTABLE, err, errlen, "Cast: to BOOL is (x != 0), not DML_CAST (DirectML has no bool)");
    if (otd_map_dtype(to, &out->output_type) != OTD_OK)
        return fail(OTD_UNREPRESENTABLE, err, errlen, "Cast: to = %d is not a DirectML type", (int)to);
    static const int64_t scalar_dims[1] = { 1 };
    out->rank = rank ? rank : 1; /* a scalar as {1} */
    int r = check_dims(out->rank, rank ? dims : scalar_dims, out->sizes, err, errlen);
    if (r != OTD_OK)
        return r;
    for (uint32_t i = 0; i < out->rank; ++i)
        if (!out->sizes[i])
            return fail(OTD_EMPTY, err, errlen, "Cast: the input has a zero dimension");
    return OTD_OK;
}

/* The input element as a double when the input is a float type. */
static int float_element(DML_TENSOR_DATA_TYPE type, const void* element, double* value)
{
    if (type == DML_TENSOR_DATA_TYPE_FLOAT64) {
        memcpy(value, element, sizeof *value);
    } else if (type == DML_TENSOR_DATA_TYPE_FLOAT32) {
        float f;
        memcpy(&f, element, sizeof f);
        *value = f;
    } else if (type == DML_TENSOR_DATA_TYPE_FLOAT16) {
        uint16_t h;
        memcpy(&h, element, sizeof h);
        *value = dml_half_to_float(h);
    } else {
        return 0;
    }
    return 1;
}

int otd_cast_onnx_undefined(const otd_cast* m, const void* element)
{
    double v, lo, above; /* the integer range as [lo, above) after truncation */
    if (!float_element(m->input_type, element, &v))
        return 0;
    switch (m->output_type) {
    case DML_TENSOR_DATA_TYPE_INT8: lo = -128.0; above = 128.0; break;
    case DML_TENSOR_DATA_TYPE_INT16: lo = -32768.0; above = 32768.0; break;
    case DML_TENSOR_DATA_TYPE_INT32: lo = -2147483648.0; above = 2147483648.0; break;
    case DML_TENSOR_DATA_TYPE_INT64: lo = -9223372036854775808.0; above = 9223372036854775808.0; break;
    case DML_TENSOR_DATA_TYPE_UINT8: lo = 0.0; above = 256.0; break;
    case DML_TENSOR_DATA_TYPE_UINT16: lo = 0.0; above = 65536.0; break;
    case DML_TENSOR_DATA_TYPE_UINT32: lo = 0.0; above = 4294967296.0; break;
    case DML_TENSOR_DATA_TYPE_UINT64: lo = 0.0; above = 18446744073709551616.0; break;
    default: return 0; /* into a float: ONNX's rounding is the runtime's */
    }
    if (isnan(v) || isinf(v))
        return 1;
    double t = trunc(v);
    return t < lo || t >= above;
}

/* ---- Data-dependent operators (onnx_to_dml.h) ------------------------------- */

static int index_dml_type(const char* op, int32_t onnx_type, int int64_only, DML_TENSOR_DATA_TYPE* out, char* err,
                          size_t errlen)
{
    if (onnx_type == TP_INT64 || (onnx_type == TP_INT32 && !int64_only))
        return otd_map_dtype(onnx_type, out);
    return fail(OTD_INVALID, err, errlen, "%s: indices of ONNX type %d; must be %s", op, (int)onnx_type,
                int64_only ? "INT64" : "INT32 or INT64");
}

static int data_dml_type(const char* op, const char* what, int32_t onnx_type, DML_TENSOR_DATA_TYPE* out, char* err,
                         size_t errlen)
{
    return otd_map_dtype(onnx_type, out) == OTD_OK
               ? OTD_OK
               : fail(OTD_UNREPRESENTABLE, err, errlen, "%s: %s of ONNX type %d has no DirectML type", op, what,
                      (int)onnx_type);
}

/* The operator's DimensionCount: the largest rank involved, at least 1. */
static int indexed_rank(const char* op, uint64_t rank, otd_indexed* m, char* err, size_t errlen)
{
    if (rank > DML_TENSOR_DIMENSION_COUNT_MAX1)
        return fail(OTD_UNREPRESENTABLE, err, errlen, "%s: needs %llu dimensions; DirectML has at most 8", op,
                    (unsigned long long)rank);
    m->rank = rank ? (uint32_t)rank : 1;
    return OTD_OK;
}

/* An ONNX tensor of `rank` dims, right-aligned into m->rank, packed. */
static int place(const char* op, const otd_indexed* m, uint32_t rank, const int64_t* dims, DML_TENSOR_DATA_TYPE type,
                 otd_indexed_tensor* t, char* err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    t->type = type;
    t->elements = 1;
    const uint32_t lead = m->rank - rank; /* rank <= m->rank by construction */
    for (uint32_t i = 0; i < m->rank; ++i)
        t->sizes[i] = 1;
    for (uint32_t i = 0; i < rank; ++i) {
        if (dims[i] < 0)
            return fail(OTD_INVALID, err, errlen, "%s: dimension %lld is negative", op, (long long)dims[i]);
        if (dims[i] > (int64_t)UINT32_MAX)
            return fail(OTD_UNREPRESENTABLE, err, errlen, "%s: dimension %lld exceeds UINT32", op, (long long)dims[i]);
        t->sizes[lead + i] = (uint32_t)dims[i];
        t->elements *= (uint64_t)dims[i]; /* at most 8 factors below 2^32 of a real tensor */
    }
    return OTD_OK;
}

/* Packed strides of t's sizes into t->strides (strided); OTD_UNREPRESENTABLE beyond UINT32. */
static int packed_strides(const char* op, uint32_t rank, otd_indexed_tensor* t, char* err, size_t errlen)
{
    uint64_t stride = 1;
    for (uint32_t i = rank; i-- > 0;) {
        if (stride > UINT32_MAX)
            return fail(OTD_UNREPRESENTABLE, err, errlen, "%s: a stride exceeds UINT32", op);
        t->strides[i] = (uint32_t)stride;
        stride *= t->sizes[i];
    }
    t->strided = 1;
    return OTD_OK;
}

/* The ONNX output (rank, dims) and its DML tensor. */
static int place_output(const char* op, otd_indexed* m, uint32_t rank, const int64_t* dims, DML_TENSOR_DATA_TYPE type,
                        char* err, size_t errlen)
{
    m->onnx_rank = rank;
    memcpy(m->onnx_dims, dims, rank * sizeof *dims);
    return place(op, m, rank, dims, type, &m->output, err, errlen);
}

/* OTD_EMPTY when the output has no elements; OTD_UNREPRESENTABLE when an
 * input has none but the output has (the host copies or fills). */
static int indexed_finish(const char* op, const otd_indexed* m, char* err, size_t errlen)
{
    if (!m->output.elements)
        return fail(OTD_EMPTY, err, errlen, "%s: the output has a zero dimension", op);
    for (uint32_t k = 0; k < m->input_count; ++k)
        if (!m->inputs[k].elements)
            return fail(OTD_UNREPRESENTABLE, err, errlen,
                        "%s: input %u is empty, the output is not (DirectML has no zero-size tensors)", op, k);
    return OTD_OK;
}

static int norm_axis(const char* op, int64_t axis, uint32_t rank, uint32_t* out, char* err, size_t errlen)
{
    if (axis < -(int64_t)rank || axis >= (int64_t)rank)
        return fail(OTD_INVALID, err, errlen, "%s: axis %lld is outside [-%u, %u)", op, (long long)axis, rank, rank);
    *out = (uint32_t)(axis < 0 ? axis + rank : axis);
    return OTD_OK;
}

static uint32_t max3(uint32_t a, uint32_t b, uint32_t c)
{
    uint32_t m = a > b ? a : b;
    return m > c ? m : c;
}

int otd_map_gather(uint32_t r, const int64_t* data_dims, uint32_t q, const int64_t* index_dims, int64_t axis,
                   int32_t data_type, int32_t index_type, otd_indexed* out, char* err, size_t errlen)
{
    static const char op[] = "Gather";
    memset(out, 0, sizeof *out);
    out->op = DML_OPERATOR_GATHER;
    out->input_count = 2;
    DML_TENSOR_DATA_TYPE dt, it;
    uint32_t a = 0;
    int rc;
    if ((rc = data_dml_type(op, "data", data_type, &dt, err, errlen)) != OTD_OK ||
        (rc = index_dml_type(op, index_type, 0, &it, err, errlen)) != OTD_OK)
        return rc;
    if (r < 1)
        return fail(OTD_INVALID, err, errlen, "Gather: data of rank 0; must be at least 1");
    if ((rc = norm_axis(op, axis, r, &a, err, errlen)) != OTD_OK ||
        (rc = indexed_rank(op, max3(r, q, r + q - 1), out, err, errlen)) != OTD_OK)
        return rc;
    if ((rc = place(op, out, r, data_dims, dt, &out->inputs[0], err, errlen)) != OTD_OK ||
        (rc = place(op, out, q, index_dims, it, &out->inputs[1], err, errlen)) != OTD_OK)
        return rc;
    int64_t dims[DML_TENSOR_DIMENSION_COUNT_MAX1];
    uint32_t n = 0; /* r + q - 1 <= 8 */
    for (uint32_t i = 0; i < a; ++i)
        dims[n++] = data_dims[i];
    for (uint32_t j = 0; j < q; ++j)
        dims[n++] = index_dims[j];
    for (uint32_t i = a + 1; i < r; ++i)
        dims[n++] = data_dims[i];
    if ((rc = place_output(op, out, n, dims, dt, err, errlen)) != OTD_OK)
        return rc;
    out->axis = a + (out->rank - r);
    out->index_dimensions = q;
    return indexed_finish(op, out, err, errlen);
}

/* GatherElements' and ScatterElements' shape rule: equal ranks, the indices
 * no larger than the data on every dimension but the axis. */
static int elements_shapes(const char* op, uint32_t r, const int64_t* data_dims, uint32_t q, const int64_t* index_dims,
                           uint32_t a, int* sub_view, char* err, size_t errlen)
{
    if (q != r)
        return fail(OTD_INVALID, err, errlen, "%s: indices of rank %u, data of rank %u; must be equal", op, q, r);
    *sub_view = 0;
    for (uint32_t i = 0; i < r; ++i) {
        if (i == a || index_dims[i] == data_dims[i])
            continue;
        if (index_dims[i] > data_dims[i])
            return fail(OTD_INVALID, err, errlen, "%s: indices dimension %u = %lld exceeds the data's %lld", op, i,
                        (long long)index_dims[i], (long long)data_dims[i]);
        *sub_view = 1;
    }
    return OTD_OK;
}

/* The data seen through the indices' sizes (the data's on the axis), with
 * the data's strides: t, the placed data (rank == the operator's), in place. */
static int sub_view(const char* op, uint32_t rank, uint32_t a, const int64_t* index_dims, otd_indexed_tensor* t,
                    char* err, size_t errlen)
{
    int rc = packed_strides(op, rank, t, err, errlen);
    if (rc != OTD_OK)
        return rc;
    for (uint32_t i = 0; i < rank; ++i)
        if (i != a)
            t->sizes[i] = (uint32_t)index_dims[i]; /* no larger than the data's: elements_shapes */
    return OTD_OK;
}

int otd_map_gather_elements(uint32_t r, const int64_t* data_dims, uint32_t q, const int64_t* index_dims,
                            int64_t axis, int32_t data_type, int32_t index_type, otd_indexed* out, char* err,
                            size_t errlen)
{
    static const char op[] = "GatherElements";
    memset(out, 0, sizeof *out);
    out->op = DML_OPERATOR_GATHER_ELEMENTS;
    out->input_count = 2;
    DML_TENSOR_DATA_TYPE dt, it;
    uint32_t a = 0;
    int rc, view;
    if ((rc = data_dml_type(op, "data", data_type, &dt, err, errlen)) != OTD_OK ||
        (rc = index_dml_type(op, index_type, 0, &it, err, errlen)) != OTD_OK)
        return rc;
    if (r < 1)
        return fail(OTD_INVALID, err, errlen, "GatherElements: data of rank 0; must be at least 1");
    if ((rc = norm_axis(op, axis, r, &a, err, errlen)) != OTD_OK ||
        (rc = indexed_rank(op, r, out, err, errlen)) != OTD_OK ||
        (rc = elements_shapes(op, r, data_dims, q, index_dims, a, &view, err, errlen)) != OTD_OK)
        return rc;
    if ((rc = place(op, out, r, data_dims, dt, &out->inputs[0], err, errlen)) != OTD_OK ||
        (rc = place(op, out, q, index_dims, it, &out->inputs[1], err, errlen)) != OTD_OK ||
        (rc = place_output(op, out, q, index_dims, dt, err, errlen)) != OTD_OK)
        return rc;
    if (view && (rc = sub_view(op, r, a, index_dims, &out->inputs[0], err, errlen)) != OTD_OK)
        return rc;
    out->axis = a;
    return indexed_finish(op, out, err, errlen);
}

int otd_map_gather_nd(uint32_t r, const int64_t* data_dims, uint32_t q, const int64_t* index_dims,
                      int64_t batch_dims, int32_t data_type, int32_t index_type, otd_indexed* out, char* err,
                      size_t errlen)
{
    static const char op[] = "GatherND";
    memset(out, 0, sizeof *out);
    out->op = DML_OPERATOR_GATHER_ND1;
    out->input_count = 2;
    DML_TENSOR_DATA_TYPE dt, it;
    int rc;
    if ((rc = data_dml_type(op, "data", data_type, &dt, err, errlen)) != OTD_OK ||
        (rc = index_dml_type(op, index_type, 1, &it, err, errlen)) != OTD_OK)
        return rc;
    if (r < 1 || q < 1)
        return fail(OTD_INVALID, err, errlen, "GatherND: data rank %u, indices rank %u; both must be at least 1", r, q);
    if (batch_dims < 0 || batch_dims >= (int64_t)(r < q ? r : q))
        return fail(OTD_INVALID, err, errlen, "GatherND: batch_dims %lld; must be in [0, min(%u, %u))",
                    (long long)batch_dims, r, q);
    const uint32_t b = (uint32_t)batch_dims;
    const int64_t k = index_dims[q - 1];
    if (k < 1 || k > (int64_t)(r - b))
        return fail(OTD_INVALID, err, errlen, "GatherND: the index tuple's length %lld; must be in [1, %u]",
                    (long long)k, r - b);
    for (uint32_t i = 0; i < b; ++i)
        if (index_dims[i] != data_dims[i])
            return fail(OTD_INVALID, err, errlen, "GatherND: batch dimension %u: indices %lld, data %lld", i,
                        (long long)index_dims[i], (long long)data_dims[i]);
    const uint32_t out_rank = q - 1 + r - b - (uint32_t)k;
    if ((rc = indexed_rank(op, max3(r, q, out_rank), out, err, errlen)) != OTD_OK ||
        (rc = place(op, out, r, data_dims, dt, &out->inputs[0], err, errlen)) != OTD_OK ||
        (rc = place(op, out, q, index_dims, it, &out->inputs[1], err, errlen)) != OTD_OK)
        return rc;
    int64_t dims[DML_TENSOR_DIMENSION_COUNT_MAX1];
    uint32_t n = 0;
    for (uint32_t j = 0; j + 1 < q; ++j)
        dims[n++] = index_dims[j];
    for (uint32_t i = b + (uint32_t)k; i < r; ++i)
        dims[n++] = data_dims[i];
    if ((rc = place_output(op, out, n, dims, dt, err, errlen)) != OTD_OK)
        return rc;
    out->input_dimension_count = r;
    out->indices_dimension_count = q;
    out->batch_dimension_count = b;
    return indexed_finish(op, out, err, errlen);
}

/* ScatterElements' and ScatterND's reduction: only "none" is DirectML's. */
static int reduction_none(const char* op, const char* reduction, char* err, size_t errlen)
{
    if (!reduction || !strcmp(reduction, "none"))
        return OTD_OK;
    if (!strcmp(reduction, "add") || !strcmp(reduction, "mul") || !strcmp(reduction, "max") ||
        !strcmp(reduction, "min"))
        return fail(OTD_UNREPRESENTABLE, err, errlen, "%s: reduction \"%s\" has no DirectML operator here "
                    "(SCATTER writes; only reduction \"none\" maps)", op, reduction);
    return fail(OTD_INVALID, err, errlen, "%s: reduction \"%s\"; must be none, add, mul, max or min", op, reduction);
}

static int same_dims(uint32_t ra, const int64_t* a, uint32_t rb, const int64_t* b)
{
    if (ra != rb)
        return 0;
    for (uint32_t i = 0; i < ra; ++i)
        if (a[i] != b[i])
            return 0;
    return 1;
}

int otd_map_scatter_elements(uint32_t r, const int64_t* data_dims, uint32_t q, const int64_t* index_dims,
                             uint32_t u, const int64_t* update_dims, int64_t axis, const char* reduction,
                             int32_t data_type, int32_t index_type, int32_t update_type, otd_indexed* out,
                             char* err, size_t errlen)
{
    static const char op[] = "ScatterElements";
    memset(out, 0, sizeof *out);
    out->op = DML_OPERATOR_SCATTER_ELEMENTS;
    out->input_count = 3;
    DML_TENSOR_DATA_TYPE dt, it;
    uint32_t a = 0;
    int rc, view;
    if ((rc = reduction_none(op, reduction, err, errlen)) != OTD_OK ||
        (rc = data_dml_type(op, "data", data_type, &dt, err, errlen)) != OTD_OK ||
        (rc = index_dml_type(op, index_type, 0, &it, err, errlen)) != OTD_OK)
        return rc;
    if (update_type != data_type)
        return fail(OTD_INVALID, err, errlen, "ScatterElements: updates of type %d, data of type %d",
                    (int)update_type, (int)data_type);
    if (r < 1)
        return fail(OTD_INVALID, err, errlen, "ScatterElements: data of rank 0; must be at least 1");
    if (!same_dims(q, index_dims, u, update_dims))
        return fail(OTD_INVALID, err, errlen, "ScatterElements: indices and updates differ in shape");
    if ((rc = norm_axis(op, axis, r, &a, err, errlen)) != OTD_OK ||
        (rc = indexed_rank(op, r, out, err, errlen)) != OTD_OK ||
        (rc = elements_shapes(op, r, data_dims, q, index_dims, a, &view, err, errlen)) != OTD_OK)
        return rc;
    if ((rc = place(op, out, r, data_dims, dt, &out->inputs[0], err, errlen)) != OTD_OK ||
        (rc = place(op, out, q, index_dims, it, &out->inputs[1], err, errlen)) != OTD_OK ||
        (rc = place(op, out, u, update_dims, dt, &out->inputs[2], err, errlen)) != OTD_OK ||
        (rc = place_output(op, out, r, data_dims, dt, err, errlen)) != OTD_OK)
        return rc;
    if (view && ((rc = sub_view(op, r, a, index_dims, &out->inputs[0], err, errlen)) != OTD_OK ||
                 (rc = sub_view(op, r, a, index_dims, &out->output, err, errlen)) != OTD_OK))
        return rc;
    out->prefill_output = view;
    out->axis = a;
    return indexed_finish(op, out, err, errlen);
}

int otd_map_scatter_nd(uint32_t r, const int64_t* data_dims, uint32_t q, const int64_t* index_dims, uint32_t u,
                       const int64_t* update_dims, const char* reduction, int32_t data_type, int32_t index_type,
                       int32_t update_type, otd_indexed* out, char* err, size_t errlen)
{
    static const char op[] = "ScatterND";
    memset(out, 0, sizeof *out);
    out->op = DML_OPERATOR_SCATTER_ND;
    out->input_count = 3;
    DML_TENSOR_DATA_TYPE dt, it;
    int rc;
    if ((rc = reduction_none(op, reduction, err, errlen)) != OTD_OK ||
        (rc = data_dml_type(op, "data", data_type, &dt, err, errlen)) != OTD_OK ||
        (rc = index_dml_type(op, index_type, 1, &it, err, errlen)) != OTD_OK)
        return rc;
    if (update_type != data_type)
        return fail(OTD_INVALID, err, errlen, "ScatterND: updates of type %d, data of type %d", (int)update_type,
                    (int)data_type);
    if (r < 1 || q < 1)
        return fail(OTD_INVALID, err, errlen, "ScatterND: data rank %u, indices rank %u; both must be at least 1", r,
                    q);
    const int64_t k = index_dims[q - 1];
    if (k < 1 || k > (int64_t)r)
        return fail(OTD_INVALID, err, errlen, "ScatterND: the index tuple's length %lld; must be in [1, %u]",
                    (long long)k, r);
    int64_t want[2 * DML_TENSOR_DIMENSION_COUNT_MAX1 + 2];
    uint32_t n = 0;
    if (q - 1 + r - (uint32_t)k > sizeof want / sizeof want[0])
        return fail(OTD_UNREPRESENTABLE, err, errlen, "ScatterND: updates of rank %u", q - 1 + r - (uint32_t)k);
    for (uint32_t j = 0; j + 1 < q; ++j)
        want[n++] = index_dims[j];
    for (uint32_t i = (uint32_t)k; i < r; ++i)
        want[n++] = data_dims[i];
    if (!same_dims(u, update_dims, n, want))
        return fail(OTD_INVALID, err, errlen,
                    "ScatterND: updates' shape must be indices.shape[:-1] + data.shape[indices.shape[-1]:]");
    if ((rc = indexed_rank(op, max3(r, q, u), out, err, errlen)) != OTD_OK ||
        (rc = place(op, out, r, data_dims, dt, &out->inputs[0], err, errlen)) != OTD_OK ||
        (rc = place(op, out, q, index_dims, it, &out->inputs[1], err, errlen)) != OTD_OK ||
        (rc = place(op, out, u, update_dims, dt, &out->inputs[2], err, errlen)) != OTD_OK ||
        (rc = place_output(op, out, r, data_dims, dt, err, errlen)) != OTD_OK)
        return rc;
    out->input_dimension_count = r;
    out->indices_dimension_count = q;
    return indexed_finish(op, out, err, errlen);
}

int otd_map_one_hot(uint32_t q, const int64_t* index_dims, int64_t depth, uint64_t values_count, int64_t axis,
                    int32_t index_type, int32_t values_type, otd_indexed* out, char* err, size_t errlen)
{
    static const char op[] = "OneHot";
    memset(out, 0, sizeof *out);
    out->op = DML_OPERATOR_ONE_HOT;
    out->input_count = 2;
    DML_TENSOR_DATA_TYPE vt, it = DML_TENSOR_DATA_TYPE_INT64;
    uint32_t a = 0;
    int rc;
    if ((rc = data_dml_type(op, "values", values_type, &vt, err, errlen)) != OTD_OK)
        return rc;
    if (index_type == TP_INT32 || index_type == TP_UINT32 || index_type == TP_UINT64)
        otd_map_dtype(index_type, &it);
    else if (index_type == TP_BOOL || otd_map_dtype(index_type, &it) != OTD_OK)
        return fail(OTD_INVALID, err, errlen, "OneHot: indices of ONNX type %d; must be numeric", (int)index_type);
    else if (index_type != TP_INT64)
        out->convert_indices = 1;
    it = out->convert_indices ? DML_TENSOR_DATA_TYPE_INT64 : it;
    if (values_count != 2)
        return fail(OTD_INVALID, err, errlen, "OneHot: values has %llu elements; must be 2 (off, on)",
                    (unsigned long long)values_count);
    if (depth < 1)
        return fail(OTD_INVALID, err, errlen, "OneHot: depth %lld; must be at least 1", (long long)depth);
    if (q < 1) /* ONNX's shape inference: indices of rank >= 1 */
        return fail(OTD_INVALID, err, errlen, "OneHot: indices of rank 0; must be at least 1");
    if ((rc = indexed_rank(op, (uint64_t)q + 1, out, err, errlen)) != OTD_OK ||
        (rc = norm_axis(op, axis, q + 1, &a, err, errlen)) != OTD_OK)
        return rc;
    int64_t dims[DML_TENSOR_DIMENSION_COUNT_MAX1], ones[DML_TENSOR_DIMENSION_COUNT_MAX1];
    for (uint32_t i = 0, j = 0; i <= q; ++i) {
        dims[i] = i == a ? depth : index_dims[j];
        ones[i] = i == a ? 1 : index_dims[j];
        j += i != a;
    }
    static const int64_t two = 2;
    if ((rc = place(op, out, q + 1, ones, it, &out->inputs[0], err, errlen)) != OTD_OK ||
        (rc = place(op, out, 1, &two, vt, &out->inputs[1], err, errlen)) != OTD_OK ||
        (rc = place_output(op, out, q + 1, dims, vt, err, errlen)) != OTD_OK)
        return rc;
    out->axis = a;
    return indexed_finish(op, out, err, errlen);
}

int otd_map_where(const uint32_t* ranks, const int64_t* const* dims, const int32_t* types, otd_indexed* out,
                  char* err, size_t errlen)
{
    static const char op[] = "Where";
    memset(out, 0, sizeof *out);
    out->op = DML_OPERATOR_ELEMENT_WISE_IF;
    out->input_count = 3;
    DML_TENSOR_DATA_TYPE dt;
    int rc;
    if (types[0] != TP_BOOL)
        return fail(OTD_INVALID, err, errlen, "Where: condition of ONNX type %d; must be BOOL", (int)types[0]);
    if (types[1] != types[2])
        return fail(OTD_INVALID, err, errlen, "Where: X of type %d, Y of type %d", (int)types[1], (int)types[2]);
    if ((rc = data_dml_type(op, "X", types[1], &dt, err, errlen)) != OTD_OK ||
        (rc = indexed_rank(op, max3(ranks[0], ranks[1], ranks[2]), out, err, errlen)) != OTD_OK)
        return rc;
    const uint32_t n = max3(ranks[0], ranks[1], ranks[2]);
    int64_t shape[DML_TENSOR_DIMENSION_COUNT_MAX1];
    for (uint32_t k = 0; k < n; ++k) { /* k-th dimension from the right: numpy's rule */
        int64_t size = 1;
        for (uint32_t t = 0; t < 3; ++t) {
            int64_t d = k < ranks[t] ? dims[t][ranks[t] - 1 - k] : 1;
            if (d == 1)
                continue;
            if (size != 1 && d != size)
                return fail(OTD_INVALID, err, errlen, "Where: dimensions %lld and %lld do not broadcast",
                            (long long)size, (long long)d);
            size = d;
        }
        shape[n - 1 - k] = size;
    }
    const DML_TENSOR_DATA_TYPE types_dml[3] = { DML_TENSOR_DATA_TYPE_UINT8, dt, dt };
    for (uint32_t t = 0; t < 3; ++t) {
        otd_indexed_tensor* x = &out->inputs[t];
        if ((rc = place(op, out, ranks[t], dims[t], types_dml[t], x, err, errlen)) != OTD_OK ||
            (rc = packed_strides(op, out->rank, x, err, errlen)) != OTD_OK)
            return rc;
        for (uint32_t i = 0; i < out->rank; ++i) { /* read again where it broadcasts */
            uint32_t full = i + n >= out->rank ? (uint32_t)shape[i + n - out->rank] : 1;
            if (x->sizes[i] != full)
                x->strides[i] = 0;
            x->sizes[i] = full;
        }
    }
    if ((rc = place_output(op, out, n, shape, dt, err, errlen)) != OTD_OK)
        return rc;
    return indexed_finish(op, out, err, errlen);
}

int64_t otd_one_hot_index(int32_t type, const void* element)
{
    double v;
    switch (type) {
    case TP_FLOAT: {
        float f;
        memcpy(&f, element, sizeof f);
        v = f;
        break;
    }
    case TP_DOUBLE: memcpy(&v, element, sizeof v); break;
    case TP_FLOAT16: {
        uint16_t h;
        memcpy(&h, element, sizeof h);
        v = dml_half_to_float(h);
        break;
    }
    default: {
        tp_tensor t = { .data_type = type, .count = 1, .elem_size = tp_elem_size(type), .data = (void*)element };
        if (type == TP_UINT64) {
            uint64_t u;
            memcpy(&u, element, sizeof u);
            return u > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)u;
        }
        return tp_get_i64(&t, 0);
    }
    }
    if (isnan(v) || !(v > -9223372036854775808.0 && v < 9223372036854775808.0))
        return INT64_MAX; /* out of range: all "off" */
    return (int64_t)v; /* truncation toward zero, as onnxruntime's static_cast */
}

/*
 * onnx_to_dml.h — host-side mapping of ONNX operators onto this runtime's
 * DirectML operators, as a host (an ONNX execution provider) would do it.
 *
 *   ReverseSequence(time_axis, batch_axis, sequence_lens[batch])
 *     -> DML_REVERSE_SUBSEQUENCES, Axis = time_axis. The INT64 sequence_lens
 *        buffer is bound as it is, described as UINT64 with the input's sizes
 *        except 1 on the axis, stride 1 on the batch axis and 0 on every other
 *        axis (a broadcast lengths tensor). A negative length therefore reads as
 *        a huge UINT64 and DirectML clamps it to the axis size (full reversal):
 *        ONNX calls such a length invalid; the mapping does not check values.
 *
 *   Slice(data, starts, ends[, axes[, steps]])  (opset >= 10; opset 1 passes the
 *   attributes, steps all 1)
 *     -> DML_SLICE1 with one window per dimension and signed strides. ONNX rules,
 *        in exact 64-bit integer arithmetic (no floating point):
 *          axes default 0..n-1, negative axes += rank, must be in [0, rank), unique;
 *          steps default 1, must be non-zero;
 *          start, end: negative += dim; then
 *            step > 0: clamp both to [0, dim]
 *            step < 0: start to [0, dim-1], end to [-1, dim-1]
 *          count = max(0, ceil((end - start) / step)).
 *        INT64_MIN / INT64_MAX starts, ends and steps (the spec's "slice to the
 *        end" idiom) are handled without overflow. An output dimension of 0 gives
 *        OTD_EMPTY (DirectML has no zero-size tensors: the host must not dispatch).
 *        A dimension with count 1 becomes window size 1, stride +1 (so any step,
 *        however large, is representable). With count >= 2 the step is smaller
 *        than the dimension; only a dimension above INT32_MAX can then need a
 *        stride beyond INT32 (DML's InputWindowStrides), which gives
 *        OTD_UNREPRESENTABLE.
 *
 *   Tile(input, repeats)  (repeats: one non-negative INT64 per input dimension)
 *     -> DML_TILE, Repeats = repeats. ONNX Tile is numpy.tile with len(repeats)
 *        equal to the rank. A repeat of 0 (or an input dimension of 0) gives
 *        OTD_EMPTY; an output dimension above UINT32 gives OTD_UNREPRESENTABLE.
 *
 *   DepthToSpace(input; blocksize, mode "DCR" | "CRD")  (4-D NCHW)
 *     -> DML_DEPTH_TO_SPACE1, BlockSize = blocksize, Order DEPTH_COLUMN_ROW
 *        (DCR, the default) or COLUMN_ROW_DEPTH (CRD).
 *   SpaceToDepth(input; blocksize)  (4-D NCHW)
 *     -> DML_SPACE_TO_DEPTH1, Order DEPTH_COLUMN_ROW (ONNX's only order).
 *        Both: blocksize >= 1, C a multiple of blocksize^2 (DepthToSpace), H
 *        and W multiples of blocksize (SpaceToDepth), else OTD_INVALID; a
 *        zero dimension gives OTD_EMPTY; an output dimension above UINT32
 *        gives OTD_UNREPRESENTABLE.
 *
 *   Pad(data, pads[, constant_value[, axes]]; mode)  (opset >= 11: pads an
 *   input; opset 2's pads attribute is passed the same way)
 *     -> DML_PADDING1, StartPadding = pads[0..n), EndPadding = pads[n..2n)
 *        on the axes (default all, negative += rank, unique), 0 elsewhere;
 *        mode "constant" (default) -> CONSTANT with constant_value (default 0)
 *        as PaddingValue in the data's own type; "edge" -> EDGE; "reflect"
 *        -> REFLECTION. "wrap" (opset 19) has no DirectML mode: the mapping
 *        gives OTD_UNREPRESENTABLE, as it does for a negative pad (ONNX
 *        crops there; a host would add a SLICE, which this mapping does not).
 *        An input dimension of 0 padded to more than 0 is OTD_UNREPRESENTABLE
 *        (DirectML has no zero-size input); an output dimension of 0 is
 *        OTD_EMPTY; one above UINT32 OTD_UNREPRESENTABLE.
 *   Concat(inputs...; axis)  (any number of inputs, axis in [-rank, rank))
 *     -> DML_JOIN, Axis = axis (+ rank when negative). Every input has the
 *        first's rank and sizes except on the axis; the output's axis size is
 *        the sum of theirs. An input with 0 on the axis is left out of the
 *        desc (DirectML's parts have a non-zero size there; it adds nothing);
 *        an output with a zero dimension gives OTD_EMPTY.
 *
 *   Split(input[, split]; axis, split, num_outputs)  (opset 1-18)
 *     -> DML_SPLIT, Axis = axis (+ rank when negative), output k's axis size
 *        split[k]: the 'split' attribute (opset 1-12) or input (opset 1 and
 *        13+), as many values as outputs, each >= 0, summing to the axis size.
 *        Absent: num_outputs (opset 18) parts of ceil(n / num_outputs), the
 *        last one what remains (ONNX's rule; a negative remainder is
 *        OTD_INVALID), else equal parts, one per output, which must divide the
 *        axis size. 'split' and num_outputs together are OTD_INVALID. Outputs
 *        with 0 on the axis are left out of the desc (the host returns them
 *        empty); an input with a zero dimension gives OTD_EMPTY.
 *   ConstantOfShape(shape; value)  (value: a one-element tensor, default float 0)
 *     -> DML_FILL_VALUE_CONSTANT of value's type, Value = its bits, sizes =
 *        shape ({} is a scalar: {1}).
 *   Range(start, limit, delta)  (scalars of float, double, int16, int32, int64)
 *     -> DML_FILL_VALUE_SEQUENCE, ValueStart = start, ValueDelta = delta, one
 *        dimension of ONNX's max(ceil((limit - start) / delta), 0) elements:
 *        exact for integers, for floats as onnxruntime computes it (limit -
 *        start in the type, divided by delta in double); delta 0 is
 *        OTD_INVALID. The values are DirectML's closed form start + i * delta.
 *   Expand(input, shape)
 *     -> DML_ELEMENT_WISE_IDENTITY whose input is the output's sizes with
 *        stride 0 on every broadcast dimension (numpy's bidirectional
 *        broadcast, aligned right).
 *   A zero dimension gives OTD_EMPTY, one above UINT32 OTD_UNREPRESENTABLE.
 *
 *   Cast(input; to)  /  CastLike(input, target_type)  (CastLike: `to` is
 *   target_type's data type, its values unused)
 *     -> DML_CAST, the input's sizes for both tensors (a rank-0 scalar as
 *        {1}). Types DirectML lacks (STRING, BFLOAT16, FLOAT8*, INT4, UINT4,
 *        complex) give OTD_UNREPRESENTABLE, and so does `to` = BOOL: ONNX's
 *        bool is (x != 0), not a numeric cast into UINT8. A BOOL input is its
 *        0/1 bytes, read as UINT8 (the same numbers). The `saturate`
 *        attribute (opset 19) concerns FLOAT8 targets only. ONNX leaves a
 *        float into an integer undefined when the value is NaN, infinite or
 *        truncates outside the target's range; DirectML's rules define it
 *        (docs/operators.md: NaN -> 0, saturate): otd_cast_onnx_undefined
 *        names those elements, which a comparison with ONNX data reports as
 *        a known difference, never as a pass.
 *
 * Data-dependent operators (indices read at execution). Every DML tensor of
 * one operator has one DimensionCount R (DirectML's rule): ONNX shapes are
 * right-aligned into R with leading 1s, R the largest rank involved (<= 8,
 * else OTD_UNREPRESENTABLE). ONNX calls out-of-range indices an error; this
 * runtime defines them (negative counts from the end once, gathers clamp,
 * scatters drop the update; docs/onnx.md "Known differences").
 *
 *   Gather(data[r], indices[q]; axis)  -> DML_GATHER, Axis = axis (+ r when
 *       negative) + R - r, IndexDimensions = q, R = max(r, q, r + q - 1).
 *   GatherElements(data, indices; axis)  -> DML_GATHER_ELEMENTS. ONNX lets
 *       the indices be smaller than the data on the other dimensions: the
 *       input is described with the indices' sizes (the data's on the axis)
 *       and the data's own strides, a sub-view of the bound data.
 *   GatherND(data[r], indices[q]; batch_dims)  -> DML_GATHER_ND1,
 *       InputDimensionCount = r, IndicesDimensionCount = q,
 *       BatchDimensionCount = batch_dims.
 *   ScatterElements(data, indices, updates; axis, reduction "none")
 *       -> DML_SCATTER_ELEMENTS; indices smaller than the data: the input and
 *       the output are both described as the sub-view above, and the output
 *       buffer holds a copy of the data first (the elements outside the
 *       sub-view; the runtime refuses an output bound over its input, so
 *       the copy is the host's).
 *   ScatterND(data, indices, updates; reduction "none")  -> DML_SCATTER_ND.
 *       Other reductions (add, mul, max, min) have no DirectML operator here:
 *       OTD_UNREPRESENTABLE.
 *   OneHot(indices[q >= 1], depth, values; axis = -1)  -> DML_ONE_HOT, Axis =
 *       axis (+ q + 1 when negative), R = q + 1; depth is read on the host (an
 *       output size); values [off, on] is the ValuesTensor {1,...,1,2}.
 *       Index types other than INT32/INT64 are converted to INT64 on the
 *       host (convert_indices): integers exactly, floats truncated toward 0
 *       as onnxruntime does, NaN/inf/beyond INT64 to INT64_MAX (all "off").
 *   Where(condition, X, Y)  -> DML_ELEMENT_WISE_IF, BOOL condition as UINT8;
 *       numpy broadcasting by strides of 0 over the output's sizes.
 *   A zero dimension in the output gives OTD_EMPTY; one elsewhere (an empty
 *   indices or updates tensor with a non-empty output) OTD_UNREPRESENTABLE:
 *   DirectML has no zero-size tensors (the host copies or fills).
 *
 * Data types: ONNX TensorProto types to DML types; BOOL maps to UINT8
 * (data movement only: one byte, bits preserved).
 */
#ifndef DML_TESTS_CONFORMANCE_ONNX_TO_DML_H
#define DML_TESTS_CONFORMANCE_ONNX_TO_DML_H

#include <dml/dml.h>

#include <stddef.h>
#include <stdint.h>

enum {
    OTD_OK = 0,
    OTD_EMPTY = 1,              /* valid ONNX, output has a zero dimension: nothing to dispatch */
    OTD_INVALID = -1,           /* the ONNX node is invalid by the ONNX spec */
    OTD_UNREPRESENTABLE = -2    /* valid ONNX this runtime cannot express (rank > 8, dim > UINT32_MAX...) */
};

/* ONNX TensorProto.DataType -> DML type; OTD_OK or OTD_UNREPRESENTABLE (string, bfloat16...). */
int otd_map_dtype(int32_t onnx_type, DML_TENSOR_DATA_TYPE* out);

typedef struct otd_reverse_sequence {
    uint32_t rank;
    uint32_t sizes[DML_TENSOR_DIMENSION_COUNT_MAX1];           /* input and output */
    uint32_t axis;                                              /* DML Axis */
    uint32_t lengths_sizes[DML_TENSOR_DIMENSION_COUNT_MAX1];
    uint32_t lengths_strides[DML_TENSOR_DIMENSION_COUNT_MAX1];
    DML_TENSOR_DATA_TYPE lengths_type;                          /* UINT64 (INT64 bits) */
} otd_reverse_sequence;

/* time_axis, batch_axis in [0, rank) and distinct (ONNX restricts both to {0, 1};
 * `onnx_strict` enforces that, 0 allows any axes as TF's reverse_sequence does);
 * lengths_count must equal dims[batch_axis]. */
int otd_map_reverse_sequence(uint32_t rank, const int64_t* dims, int64_t time_axis,
                             int64_t batch_axis, uint64_t lengths_count, int onnx_strict,
                             otd_reverse_sequence* out, char* err, size_t errlen);

typedef struct otd_slice {
    uint32_t rank;
    uint32_t input_sizes[DML_TENSOR_DIMENSION_COUNT_MAX1];
    uint32_t offsets[DML_TENSOR_DIMENSION_COUNT_MAX1];
    uint32_t window_sizes[DML_TENSOR_DIMENSION_COUNT_MAX1];
    int32_t strides[DML_TENSOR_DIMENSION_COUNT_MAX1];
    uint32_t output_sizes[DML_TENSOR_DIMENSION_COUNT_MAX1];   /* 0 somewhere when OTD_EMPTY */
} otd_slice;

/* n entries in starts/ends (and axes/steps when non-NULL). */
int otd_map_slice(uint32_t rank, const int64_t* dims, uint32_t n, const int64_t* starts,
                  const int64_t* ends, const int64_t* axes, const int64_t* steps, otd_slice* out,
                  char* err, size_t errlen);

typedef struct otd_tile {
    uint32_t rank;
    uint32_t input_sizes[DML_TENSOR_DIMENSION_COUNT_MAX1];
    uint32_t repeats[DML_TENSOR_DIMENSION_COUNT_MAX1];
    uint32_t output_sizes[DML_TENSOR_DIMENSION_COUNT_MAX1];   /* 0 somewhere when OTD_EMPTY */
} otd_tile;

/* repeats_count values in repeats (the ONNX input's element count). */
int otd_map_tile(uint32_t rank, const int64_t* dims, uint64_t repeats_count, const int64_t* repeats,
                 otd_tile* out, char* err, size_t errlen);

typedef struct otd_pad {
    uint32_t rank;
    DML_PADDING_MODE mode;
    uint32_t input_sizes[DML_TENSOR_DIMENSION_COUNT_MAX1];
    uint32_t start[DML_TENSOR_DIMENSION_COUNT_MAX1];
    uint32_t end[DML_TENSOR_DIMENSION_COUNT_MAX1];
    uint32_t output_sizes[DML_TENSOR_DIMENSION_COUNT_MAX1];   /* 0 somewhere when OTD_EMPTY */
} otd_pad;

/* pads_count values in pads; axes_count values in axes (NULL: every axis);
 * mode: the attribute, NULL when absent ("constant"). */
int otd_map_pad(uint32_t rank, const int64_t* dims, uint64_t pads_count, const int64_t* pads, uint64_t axes_count,
                const int64_t* axes, const char* mode, otd_pad* out, char* err, size_t errlen);

typedef struct otd_depth_space {
    int to_space;                 /* DepthToSpace; else SpaceToDepth */
    uint32_t block;
    DML_DEPTH_SPACE_ORDER order;
    uint32_t input_sizes[4];
    uint32_t output_sizes[4];     /* 0 somewhere when OTD_EMPTY */
} otd_depth_space;

/* mode: DepthToSpace's attribute, NULL when absent (DCR); ignored for
 * SpaceToDepth. */
int otd_map_depth_space(int to_space, uint32_t rank, const int64_t* dims, int64_t blocksize, const char* mode,
                        otd_depth_space* out, char* err, size_t errlen);

#define OTD_MAX_PARTS 64 /* Concat inputs / Split outputs this mapping takes (more: OTD_UNREPRESENTABLE) */

/* Concat's or Split's mapping: the whole (Concat's output, Split's input) and
 * every ONNX part's size on the axis; parts with 0 there are not DML's. */
typedef struct otd_join_split {
    uint32_t rank;
    uint32_t axis;
    uint32_t whole_sizes[DML_TENSOR_DIMENSION_COUNT_MAX1]; /* 0 somewhere when OTD_EMPTY */
    uint32_t part_count;                                   /* ONNX's, empty parts included */
    uint32_t part_axis_sizes[OTD_MAX_PARTS];
} otd_join_split;

/* input_count inputs, input k of ranks[k] dimensions dims[k]. */
int otd_map_concat(uint32_t input_count, const uint32_t* ranks, const int64_t* const* dims, int64_t axis,
                   otd_join_split* out, char* err, size_t errlen);

/* output_count outputs; split: split_count values or NULL when absent;
 * num_outputs: the attribute, 0 when absent. */
int otd_map_split(uint32_t rank, const int64_t* dims, int64_t axis, uint32_t output_count, const int64_t* split,
                  uint64_t split_count, int64_t num_outputs, otd_join_split* out, char* err, size_t errlen);
typedef struct otd_fill {
    DML_TENSOR_DATA_TYPE type;
    int sequence;                 /* Range: FILL_VALUE_SEQUENCE; else FILL_VALUE_CONSTANT */
    uint32_t rank;
    uint32_t output_sizes[DML_TENSOR_DIMENSION_COUNT_MAX1]; /* 0 somewhere when OTD_EMPTY */
    DML_SCALAR_UNION start, delta;
} otd_fill;

/* shape: shape_count dims; value: value_type's element bytes (NULL: the
 * attribute is absent). */
int otd_map_constant_of_shape(uint64_t shape_count, const int64_t* shape, int32_t value_type, const void* value,
                              otd_fill* out, char* err, size_t errlen);

/* start, limit, delta: one element of type (TP_*) each. */
int otd_map_range(int32_t type, const void* start, const void* limit, const void* delta, otd_fill* out,
                  char* err, size_t errlen);

typedef struct otd_expand {
    uint32_t rank;
    uint32_t output_sizes[DML_TENSOR_DIMENSION_COUNT_MAX1];  /* 0 somewhere when OTD_EMPTY */
    uint32_t input_strides[DML_TENSOR_DIMENSION_COUNT_MAX1]; /* over output_sizes; 0 where it broadcasts */
    uint64_t input_elements;
} otd_expand;

int otd_map_expand(uint32_t rank, const int64_t* dims, uint64_t shape_count, const int64_t* shape,
                   otd_expand* out, char* err, size_t errlen);

typedef struct otd_cast {
    uint32_t rank;
    uint32_t sizes[DML_TENSOR_DIMENSION_COUNT_MAX1]; /* input and output; 0 somewhere when OTD_EMPTY */
    DML_TENSOR_DATA_TYPE input_type;
    DML_TENSOR_DATA_TYPE output_type;
} otd_cast;

/* input_type: the input's TensorProto type; to: Cast's attribute (CastLike:
 * target_type's TensorProto type). */
int otd_map_cast(uint32_t rank, const int64_t* dims, int32_t input_type, int32_t to, otd_cast* out, char* err,
                 size_t errlen);

/* 1 when ONNX leaves the cast of this input element (in m->input_type's
 * bytes) undefined: a float into an integer that is NaN, infinite or
 * truncates outside the integer's range; else 0. */
int otd_cast_onnx_undefined(const otd_cast* m, const void* element);

/* ---- Data-dependent operators ------------------------------------------- */

#define OTD_INDEXED_INPUTS 3

typedef struct otd_indexed_tensor {
    DML_TENSOR_DATA_TYPE type;
    uint32_t sizes[DML_TENSOR_DIMENSION_COUNT_MAX1];
    uint32_t strides[DML_TENSOR_DIMENSION_COUNT_MAX1]; /* meaningful when strided */
    int strided;                                        /* else packed */
    uint64_t elements;                                  /* the ONNX tensor's: what is bound */
} otd_indexed_tensor;

typedef struct otd_indexed {
    DML_OPERATOR_TYPE op; /* GATHER, GATHER_ELEMENTS, GATHER_ND1, SCATTER_ELEMENTS, SCATTER_ND, ONE_HOT,
                             ELEMENT_WISE_IF */
    uint32_t rank;        /* every tensor's DimensionCount */
    uint32_t axis;        /* GATHER, GATHER_ELEMENTS, SCATTER_ELEMENTS, ONE_HOT */
    uint32_t index_dimensions;                      /* GATHER */
    uint32_t input_dimension_count, indices_dimension_count, batch_dimension_count; /* GATHER_ND1, SCATTER_ND */
    uint32_t input_count;                           /* DML inputs, in the desc's order */
    otd_indexed_tensor inputs[OTD_INDEXED_INPUTS];
    otd_indexed_tensor output;
    int prefill_output;   /* SCATTER_ELEMENTS on a sub-view: the output buffer first holds the data */
    int convert_indices;  /* ONE_HOT: the host converts ONNX's indices to INT64 first */
    uint32_t onnx_rank;   /* the ONNX output's rank (0: a scalar) and dims */
    int64_t onnx_dims[DML_TENSOR_DIMENSION_COUNT_MAX1];
} otd_indexed;

/* data_type, index_type, values_type...: ONNX TensorProto types. */
int otd_map_gather(uint32_t r, const int64_t* data_dims, uint32_t q, const int64_t* index_dims, int64_t axis,
                   int32_t data_type, int32_t index_type, otd_indexed* out, char* err, size_t errlen);
int otd_map_gather_elements(uint32_t r, const int64_t* data_dims, uint32_t q, const int64_t* index_dims,
                            int64_t axis, int32_t data_type, int32_t index_type, otd_indexed* out, char* err,
                            size_t errlen);
int otd_map_gather_nd(uint32_t r, const int64_t* data_dims, uint32_t q, const int64_t* index_dims,
                      int64_t batch_dims, int32_t data_type, int32_t index_type, otd_indexed* out, char* err,
                      size_t errlen);
/* reduction: the attribute, NULL when absent ("none"). */
int otd_map_scatter_elements(uint32_t r, const int64_t* data_dims, uint32_t q, const int64_t* index_dims,
                             uint32_t u, const int64_t* update_dims, int64_t axis, const char* reduction,
                             int32_t data_type, int32_t index_type, int32_t update_type, otd_indexed* out,
                             char* err, size_t errlen);
int otd_map_scatter_nd(uint32_t r, const int64_t* data_dims, uint32_t q, const int64_t* index_dims, uint32_t u,
                       const int64_t* update_dims, const char* reduction, int32_t data_type, int32_t index_type,
                       int32_t update_type, otd_indexed* out, char* err, size_t errlen);
/* depth: the depth tensor's one value (read on the host); values_count:
 * the values tensor's element count (2). */
int otd_map_one_hot(uint32_t q, const int64_t* index_dims, int64_t depth, uint64_t values_count, int64_t axis,
                    int32_t index_type, int32_t values_type, otd_indexed* out, char* err, size_t errlen);
/* ranks[3], dims[3], types[3]: condition, X, Y. */
int otd_map_where(const uint32_t* ranks, const int64_t* const* dims, const int32_t* types, otd_indexed* out,
                  char* err, size_t errlen);

/* OneHot's host conversion of one index element of ONNX type `type` to INT64
 * (integers exactly; floats truncated toward 0; NaN, inf and values beyond
 * INT64 to INT64_MAX, which is out of range: all "off"). */
int64_t otd_one_hot_index(int32_t type, const void* element);

/* The ONNX per-axis computation alone: first index and element count along one
 * axis of size dim (exposed for unit tests). Returns OTD_OK or OTD_INVALID (step 0). */
int otd_slice_axis(int64_t dim, int64_t start, int64_t end, int64_t step, int64_t* first,
                   uint64_t* count);

#endif

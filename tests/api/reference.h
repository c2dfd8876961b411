/*
 * reference.h — an independent, deliberately naive reference for the
 * operators, written from docs/operators.md (no library code).
 *
 * Everything is per element: an odometer walks the output coordinates, and an
 * element's byte address is sum(coord[i] * strides[i]) * elementSize, with
 * packed row-major strides when the strides pointer is NULL. Buffers are host
 * memory holding exactly the bound range of each tensor ("base" points at the
 * tensor's first byte); every access is checked against the range given, and
 * an access outside it aborts (it would be a bug in the test, not the library).
 */
#ifndef DML_TESTS_API_REFERENCE_H
#define DML_TESTS_API_REFERENCE_H

#include <stddef.h>
#include <stdint.h>

#define REF_MAX_RANK 8

/* A strided view of host bytes. */
typedef struct ref_view {
    uint32_t elem_size;        /* 1, 2, 4 or 8 */
    uint32_t rank;             /* 1..8 */
    const uint32_t* sizes;
    const uint32_t* strides;   /* NULL: packed row-major */
    uint8_t* base;             /* first byte of the tensor */
    uint64_t range;            /* bytes available from base (accesses are checked) */
} ref_view;

/* The spec's DMLCalcBufferTensorSize: ((last + 1) * bits + 7) / 8 rounded up to
 * a multiple of 4; last = sum((Sizes[i]-1)*Strides[i]) or prod(Sizes)-1 when
 * packed. 0 when an argument is invalid or the arithmetic overflows 64 bits. */
uint64_t ref_calc_buffer_tensor_size(uint32_t elem_size, uint32_t rank,
                                     const uint32_t* sizes, const uint32_t* strides);

/* Packed row-major strides of sizes[0..rank). */
void ref_packed_strides(uint32_t rank, const uint32_t* sizes, uint32_t* strides);

/* REVERSE_SUBSEQUENCES. lengths: elem_size 4 (UINT32) or 8 (UINT64), sizes equal
 * to the input's except sizes[axis] = 1, read with its own strides. */
void ref_reverse_subsequences(const ref_view* input, const ref_view* lengths,
                              const ref_view* output, uint32_t axis);

/* SLICE1: CopyStart[i] = offsets[i] + (strides[i] < 0 ? window[i] - 1 : 0);
 * Output[c] = Input[CopyStart + strides * c]. */
void ref_slice1(const ref_view* input, const ref_view* output, const uint32_t* offsets,
                const uint32_t* window_sizes, const int32_t* strides);

/* SLICE: Output[c] = Input[offsets + strides * c]. */
void ref_slice(const ref_view* input, const ref_view* output, const uint32_t* offsets,
               const uint32_t* strides);

/* TILE: Output[c] = Input[c mod Input.Sizes] (every output dimension a
 * multiple of the input's). */
void ref_tile(const ref_view* input, const ref_view* output);

/* DEPTH_TO_SPACE(1) on 4-D {N, C, H, W}, B = block, C' = Output.Sizes[1]:
 *   DCR (crd 0): out[n, c, h*B+i, w*B+j] = in[n, (i*B + j)*C' + c, h, w]
 *   CRD (crd 1): out[n, c, h*B+i, w*B+j] = in[n, c*B*B + i*B + j, h, w] */
void ref_depth_to_space(const ref_view* input, const ref_view* output, uint32_t block, int crd);

/* SPACE_TO_DEPTH(1): the inverse, C' = Input.Sizes[1]:
 *   out[n, (i*B + j)*C' + c, h, w] (DCR) or out[n, c*B*B + i*B + j, h, w] (CRD)
 *   = in[n, c, h*B+i, w*B+j] */
void ref_space_to_depth(const ref_view* input, const ref_view* output, uint32_t block, int crd);

/* PADDING / PADDING1: Output.Sizes = Input.Sizes + start + end. The output
 * element at c reads the input at j = c - start on every dimension, where j
 * outside [0, n) is walked back inside as the mode says: mode 1 (EDGE) stops
 * at the edge, 2 (REFLECTION) bounces off the edge element (n = 1: stays),
 * 3 (SYMMETRIC) bounces with the edge element repeated, as many times as it
 * takes; mode 0 (CONSTANT) writes value (elem_size bytes) instead. */
void ref_padding(const ref_view* input, const ref_view* output, uint32_t mode, const void* value,
                 const uint32_t* start);
/* CAST: Output[c] = Input[c] converted from in_type to out_type
 * (DML_TENSOR_DATA_TYPE values) by the spec's rules: floats to integers
 * truncate, saturate, NaN -> 0; integers wrap; to float16/float32 rounds
 * once to nearest even, overflow -> infinity; NaN stays NaN (sign and the
 * top of its payload kept, quiet). Written with C's and libm's conversions
 * (rint, ldexp), not the library's bit arithmetic. */
void ref_cast(const ref_view* input, uint32_t in_type, const ref_view* output, uint32_t out_type);

/* One element of ref_cast, for tests that build their own layouts. */
void ref_cast_element(uint32_t out_type, void* out, uint32_t in_type, const void* in);
/* FILL_VALUE_CONSTANT (sequence 0) and FILL_VALUE_SEQUENCE (1): the element
 * at row-major position k of the logical sizes is ValueStart's bits when
 * k = 0 (always, for a constant), else start + k * delta in data_type
 * (DML_TENSOR_DATA_TYPE's value): integers modulo 2^bits; float32 and float64
 * with k, the product and the sum each rounded to the type; float16 in
 * float32, rounded once to float16; a NaN result is the canonical quiet NaN
 * (0x7E00, 0x7FC00000, 0x7FF8000000000000). start and delta hold the type's
 * bits in their low bytes. */
void ref_fill(const ref_view* output, uint32_t data_type, uint64_t start, uint64_t delta, int sequence);

/* One element of it: its bits in the low bytes. */
uint64_t ref_fill_value(uint32_t data_type, uint64_t start, uint64_t delta, uint64_t k);

/* Sets mask[b] = 1 for every byte of base..base+range the output view addresses. */
void ref_output_mask(const ref_view* output, uint8_t* mask);

/* JOIN: the inputs side by side along axis (input k from the sum of the
 * earlier inputs' axis sizes); SPLIT: its mirror, the input cut into the
 * outputs. */
void ref_join(const ref_view* inputs, uint32_t count, const ref_view* output, uint32_t axis);
void ref_split(const ref_view* input, const ref_view* outputs, uint32_t count, uint32_t axis);

/* ---- the data-dependent operators (data-movement.md group B) -------------
 * Index views hold INT32/UINT32 (elem_size 4) or INT64/UINT64 (8) elements;
 * idx_signed says which. A signed negative index counts from the end once
 * (v + n); gathers clamp what is still outside [0, n) to the nearer end;
 * scatters drop such an update; ONE_HOT turns nothing on. */

/* An index value as a position in [0, n): returns 1 and sets *pos when the
 * value (after the negative rule) lies inside, else 0. */
int ref_index_position(const ref_view* indices, const uint64_t* coord, int idx_signed, uint64_t n, uint64_t* pos);

/* GATHER: output[...] = input[..., indices[...], ...]; the meaningful output
 * shape is Input.Sizes before axis, Indices' last index_dims sizes, Input.Sizes
 * after axis, right-aligned against the output's rank (absent leading
 * dimensions are coordinate 0). */
void ref_gather(const ref_view* input, const ref_view* indices, const ref_view* output, uint32_t axis,
                uint32_t index_dims, int idx_signed);

/* GATHER_ELEMENTS: output[c] = input[c with c[axis] = indices[c]]. */
void ref_gather_elements(const ref_view* input, const ref_view* indices, const ref_view* output, uint32_t axis,
                         int idx_signed);

/* GATHER_ND (batch_dims 0) and GATHER_ND1: with R the rank, the meaningful
 * dimensions the last input_dims of the input and the last indices_dims of
 * the indices, q = Indices.Sizes[R-1] components per tuple: the meaningful
 * output is Indices' meaningful sizes but the last, then the input's after
 * its batch and tuple dimensions, right-aligned; the input coordinate is
 * (batch coordinates, the tuple, the output's trailing coordinates). */
void ref_gather_nd(const ref_view* input, const ref_view* indices, const ref_view* output, uint32_t input_dims,
                   uint32_t indices_dims, uint32_t batch_dims, int idx_signed);

/* SCATTER_ELEMENTS: output = input, then for every update coordinate c in
 * row-major order output[c with c[axis] = indices[c]] = updates[c] (so the
 * last one wins). targets (NULL or one per update, row-major): the byte
 * offset in output->base each update landed at, or UINT64_MAX if dropped. */
void ref_scatter_elements(const ref_view* input, const ref_view* indices, const ref_view* updates,
                          const ref_view* output, uint32_t axis, int idx_signed, uint64_t* targets);

/* SCATTER_ND: output = input, then each update (row-major over its sizes,
 * whose meaningful part is Indices' meaningful sizes but the last, then the
 * input's after the tuple dimensions, right-aligned) written at (the tuple,
 * its trailing coordinates); an update with any component out of range is
 * dropped. targets as for ref_scatter_elements. */
void ref_scatter_nd(const ref_view* input, const ref_view* indices, const ref_view* updates,
                    const ref_view* output, uint32_t input_dims, uint32_t indices_dims, int idx_signed,
                    uint64_t* targets);

/* ONE_HOT: output[c] = on if indices[c with c[axis] = 0] names c[axis], else
 * off; off is values' element 0, on the element one step along its innermost
 * dimension of size > 1. */
void ref_one_hot(const ref_view* indices, const ref_view* values, const ref_view* output, uint32_t axis,
                 int idx_signed);

/* ELEMENT_WISE_IF: output[c] = condition[c] (UINT8) != 0 ? a[c] : b[c]. */
void ref_element_wise_if(const ref_view* condition, const ref_view* a, const ref_view* b, const ref_view* output);

#endif

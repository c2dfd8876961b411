/*
 * conf_runner.h — runs mapped ONNX nodes on a DML device (public API only),
 * with error returns instead of assertions, so that the Check suites and the
 * ctypes library (libdml_conformance.so, driven by ort_differential.py) share
 * one implementation of "map, then dispatch".
 */
#ifndef DML_TESTS_CONFORMANCE_CONF_RUNNER_H
#define DML_TESTS_CONFORMANCE_CONF_RUNNER_H

#include "onnx_to_dml.h"

#include <dml/dml.h>

#include <stddef.h>
#include <stdint.h>

typedef struct conf_device {
    DMLDevice device;
    DMLCommandQueue queue;
    DMLCommandRecorder recorder;
    char backend[32];
    char message[1024]; /* where and why the last call failed */
} conf_device;

DML_RESULT conf_device_open(conf_device* d, const char* backend);
void conf_device_close(conf_device* d);

uint32_t conf_elem_size(DML_TENSOR_DATA_TYPE type);

/* Creates, compiles, initializes and dispatches `desc` with packed-buffer inputs
 * (input_bytes[i] bytes each, padded to the tensor's TotalTensorSizeInBytes) and
 * reads output_bytes bytes of the output back. */
DML_RESULT conf_run(conf_device* d, const DML_OPERATOR_DESC* desc, uint32_t input_count,
                    const void* const* inputs, const uint64_t* input_bytes,
                    const uint64_t* input_total, uint64_t output_total, void* output,
                    uint64_t output_bytes);

/* conf_run with output_count outputs (output_total[i], outputs[i], output_bytes[i] each). */
DML_RESULT conf_run_outputs(conf_device* d, const DML_OPERATOR_DESC* desc, uint32_t input_count,
                            const void* const* inputs, const uint64_t* input_bytes,
                            const uint64_t* input_total, uint32_t output_count, const uint64_t* output_total,
                            void* const* outputs, const uint64_t* output_bytes);

/* conf_run_outputs; prefill: output 0's buffer is first written with input
 * 0's bytes (a scatter whose output desc covers part of its buffer). */
DML_RESULT conf_run_prefilled(conf_device* d, const DML_OPERATOR_DESC* desc, uint32_t input_count,
                            const void* const* inputs, const uint64_t* input_bytes,
                            const uint64_t* input_total, uint32_t output_count, const uint64_t* output_total,
                            void* const* outputs, const uint64_t* output_bytes, int prefill);

/* The DML operator of a mapped data-dependent node (OTD_OK only): inputs[k]
 * is DML input k in the desc's order (m->inputs[k].elements packed
 * elements); output: m->output.elements elements. */
DML_RESULT conf_indexed(conf_device* d, const otd_indexed* m, const void* const* inputs, void* output);

/* DML_REVERSE_SUBSEQUENCES for a mapped ReverseSequence: input packed with m->sizes,
 * lengths = one m->lengths_type element (UINT64: the INT64 sequence_lens bits; UINT32
 * allowed) per batch entry, output packed. */
DML_RESULT conf_reverse_sequence(conf_device* d, DML_TENSOR_DATA_TYPE type,
                                 const otd_reverse_sequence* m, const void* input,
                                 const void* lengths, void* output);

/* DML_SLICE1 for a mapped Slice (OTD_OK only): input packed with m->input_sizes,
 * output packed with m->output_sizes. */
DML_RESULT conf_slice1(conf_device* d, DML_TENSOR_DATA_TYPE type, const otd_slice* m,
                       const void* input, void* output);

/* DML_TILE for a mapped Tile (OTD_OK only): input packed with m->input_sizes,
 * output packed with m->output_sizes. */
DML_RESULT conf_tile(conf_device* d, DML_TENSOR_DATA_TYPE type, const otd_tile* m, const void* input,
                     void* output);

/* DML_PADDING1 for a mapped Pad (OTD_OK only): both tensors packed; value:
 * the constant's element_size bytes (CONSTANT; NULL: zero). */
DML_RESULT conf_pad(conf_device* d, DML_TENSOR_DATA_TYPE type, const otd_pad* m, const void* input, const void* value,
                    void* output);

/* DML_DEPTH_TO_SPACE1 / DML_SPACE_TO_DEPTH1 for a mapped DepthToSpace /
 * SpaceToDepth (OTD_OK only): both tensors packed. */
DML_RESULT conf_depth_space(conf_device* d, DML_TENSOR_DATA_TYPE type, const otd_depth_space* m,
                            const void* input, void* output);

/* DML_CAST for a mapped Cast / CastLike (OTD_OK only). */
DML_RESULT conf_cast(conf_device* d, const otd_cast* m, const void* input, void* output);

/* DML_JOIN for a mapped Concat (OTD_OK only): inputs[k] is ONNX input k,
 * packed (those with 0 on the axis are not read); the output packed. */
DML_RESULT conf_join(conf_device* d, DML_TENSOR_DATA_TYPE type, const otd_join_split* m,
                     const void* const* inputs, void* output);

/* DML_SPLIT for a mapped Split (OTD_OK only): the input packed; outputs[k] is
 * ONNX output k, packed (those with 0 on the axis are not written). */
DML_RESULT conf_split(conf_device* d, DML_TENSOR_DATA_TYPE type, const otd_join_split* m, const void* input,
                      void* const* outputs);
/* DML_FILL_VALUE_CONSTANT / FILL_VALUE_SEQUENCE for a mapped ConstantOfShape
 * / Range (OTD_OK only): no input, the output packed. */
DML_RESULT conf_fill(conf_device* d, const otd_fill* m, void* output);

/* DML_ELEMENT_WISE_IDENTITY for a mapped Expand (OTD_OK only): the input
 * packed (m->input_elements), read with m->input_strides; the output packed. */
DML_RESULT conf_expand(conf_device* d, DML_TENSOR_DATA_TYPE type, const otd_expand* m, const void* input,
                       void* output);

#endif

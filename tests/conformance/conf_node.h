/*
 * conf_node.h — one ONNX node (the first node of a tp_model) mapped by
 * onnx_to_dml.c and run on a DML device: the one "read the node, map it,
 * dispatch it" of every operator the conformance suites cover, shared by
 * test_onnx_node.c (ONNX's backend test data) and libdml_conformance.so
 * (ort_differential.py against onnxruntime).
 *
 * Operators: ReverseSequence, Slice (1 and 10+), Tile, Pad (2 and 11+),
 * DepthToSpace, SpaceToDepth, Concat, Split (1-18), Cast, CastLike,
 * ConstantOfShape, Range, Expand, Gather, GatherElements, GatherND,
 * ScatterElements (and opset 9's Scatter), ScatterND, OneHot, Where.
 */
#ifndef DML_TESTS_CONFORMANCE_CONF_NODE_H
#define DML_TESTS_CONFORMANCE_CONF_NODE_H

#include "conf_runner.h"
#include "tensorproto.h"

/* conf_node_run's results: onnx_to_dml.h's OTD_OK, OTD_EMPTY (an output has
 * a zero dimension: its shape is set, nothing was dispatched),
 * OTD_INVALID, OTD_UNREPRESENTABLE, and: */
enum {
    CONF_NODE_DML_FAILED = -3,  /* a DML call failed (conf_device.message says which) */
    CONF_NODE_NOT_EXECUTED = -5 /* DML_E_NOTIMPL: the backend does not execute the operator's plan kind */
};

typedef struct conf_node_result {
    uint32_t output_count;
    /* The node's outputs as ONNX types them: data_type, rank, dims, count,
     * elem_size, and data (malloc'd; NULL for an output with no elements). */
    tp_tensor outputs[OTD_MAX_PARTS];
    /* Cast / CastLike: one byte per element of output 0, non-zero where ONNX
     * leaves the value undefined (otd_cast_onnx_undefined) and DirectML's
     * rules define it; NULL for every other operator. */
    uint8_t* undefined;
    char message[1024]; /* why, for anything but OTD_OK */
} conf_node_result;

/* Runs m's node on d. inputs[k] is node input k (NULL when an optional one
 * is omitted), typed as the model declares it; output_count is the node's
 * output count (Split's parts; 1 for the others). Always fills *r (free it
 * with conf_node_result_free, whatever the result). */
int conf_node_run(conf_device* d, const tp_model* m, const tp_tensor* const* inputs, uint32_t input_count,
                  uint32_t output_count, conf_node_result* r);

void conf_node_result_free(conf_node_result* r);

#endif

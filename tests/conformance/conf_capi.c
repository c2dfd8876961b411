/*
 * conf_capi.c — libdml_conformance.so: the C mapping (onnx_to_dml.c) plus the
 * runner (conf_runner.c) behind a flat C API for ctypes (ort_differential.py),
 * so that the differential run exercises the same mapping code as the C suites.
 *
 * Return values: 0 ran (output written), 1 OTD_EMPTY (nothing dispatched),
 * -1 OTD_INVALID, -2 OTD_UNREPRESENTABLE, -3 a DML call failed, -5 (dmlconf_run_node) the
 * backend does not execute the operator's plan kind (DML_E_NOTIMPL); msg says why.
 * dmlconf_run_node takes any operator conf_node.c maps, as a serialized
 * ONNX model and serialized TensorProto inputs, so new operators need no new
 * export.
 */
#include "conf_node.h"
#include "conf_runner.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))

EXPORT void* dmlconf_open(const char* backend, char* msg, size_t msglen)
{
    conf_device* d = calloc(1, sizeof *d);
    if (!d)
        return NULL;
    if (DML_FAILED(conf_device_open(d, backend))) {
        snprintf(msg, msglen, "%s", d->message);
        free(d);
        return NULL;
    }
    return d;
}

EXPORT void dmlconf_close(void* h)
{
    if (h) {
        conf_device_close(h);
        free(h);
    }
}

static int dml_fail(conf_device* d, DML_RESULT r, char* msg, size_t msglen)
{
    snprintf(msg, msglen, "0x%08x %s", (unsigned)r, d->message);
    return -3;
}

EXPORT int dmlconf_reverse_sequence(void* h, int32_t onnx_type, uint32_t rank, const int64_t* dims,
                                    int64_t time_axis, int64_t batch_axis, int onnx_strict,
                                    const void* input, const int64_t* lengths,
                                    uint64_t lengths_count, void* output, char* msg, size_t msglen)
{
    conf_device* d = h;
    DML_TENSOR_DATA_TYPE t;
    msg[0] = '\0';
    if (otd_map_dtype(onnx_type, &t) != OTD_OK) {
        snprintf(msg, msglen, "ONNX type %d has no DML type", onnx_type);
        return OTD_UNREPRESENTABLE;
    }
    otd_reverse_sequence m;
    int r = otd_map_reverse_sequence(rank, dims, time_axis, batch_axis, lengths_count, onnx_strict,
                                     &m, msg, msglen);
    if (r != OTD_OK)
        return r;
    DML_RESULT dr = conf_reverse_sequence(d, t, &m, input, lengths, output);
    return DML_FAILED(dr) ? dml_fail(d, dr, msg, msglen) : 0;
}

/* out_dims receives the output shape (rank entries) whenever the mapping succeeds
 * or is OTD_EMPTY; output must hold prod(out_dims) elements. Call with output NULL
 * to get the shape only. */
EXPORT int dmlconf_slice(void* h, int32_t onnx_type, uint32_t rank, const int64_t* dims, uint32_t n,
                         const int64_t* starts, const int64_t* ends, const int64_t* axes,
                         const int64_t* steps, int64_t* out_dims, const void* input, void* output,
                         char* msg, size_t msglen)
{
    conf_device* d = h;
    DML_TENSOR_DATA_TYPE t;
    msg[0] = '\0';
    if (otd_map_dtype(onnx_type, &t) != OTD_OK) {
        snprintf(msg, msglen, "ONNX type %d has no DML type", onnx_type);
        return OTD_UNREPRESENTABLE;
    }
    otd_slice m;
    int r = otd_map_slice(rank, dims, n, starts, ends, axes, steps, &m, msg, msglen);
    if (r == OTD_OK || r == OTD_EMPTY)
        for (uint32_t i = 0; i < rank; ++i)
            out_dims[i] = m.output_sizes[i];
    if (r != OTD_OK || !output)
        return r;
    DML_RESULT dr = conf_slice1(d, t, &m, input, output);
    return DML_FAILED(dr) ? dml_fail(d, dr, msg, msglen) : 0;
}

/* Runs the first node of a serialized ONNX model on the device. inputs[k]
 * (input_lens[k] bytes) is a serialized TensorProto for node input k, NULL
 * for an omitted optional one; output_count: the node's outputs. Returns
 * conf_node_run's result (-4: the model or an input did not parse) and, in
 * *result, a handle to read with dmlconf_result_output and free with
 * dmlconf_result_free (NULL when nothing parsed). */
EXPORT int dmlconf_run_node(void* h, const uint8_t* model, size_t model_len, uint32_t input_count,
                            const uint8_t* const* inputs, const size_t* input_lens, uint32_t output_count,
                            void** result, char* msg, size_t msglen)
{
    static const int parse_failed = -4;
    *result = NULL;
    msg[0] = '\0';
    if (input_count > TP_MAX_IO) {
        snprintf(msg, msglen, "%u inputs, at most %u", input_count, TP_MAX_IO);
        return parse_failed;
    }
    tp_model m;
    if (tp_parse_model(model, model_len, &m, msg, msglen))
        return parse_failed;
    tp_tensor tensors[TP_MAX_IO];
    const tp_tensor* node_inputs[TP_MAX_IO];
    uint32_t parsed = 0;
    int r = 0;
    for (; parsed < input_count; ++parsed) {
        node_inputs[parsed] = NULL;
        if (inputs[parsed] && tp_parse_tensor(inputs[parsed], input_lens[parsed], &tensors[parsed], msg, msglen)) {
            r = parse_failed;
            break;
        }
        if (inputs[parsed])
            node_inputs[parsed] = &tensors[parsed];
    }
    conf_node_result* res = r ? NULL : calloc(1, sizeof *res);
    if (!r && !res) {
        snprintf(msg, msglen, "out of host memory");
        r = parse_failed;
    }
    if (!r) {
        r = conf_node_run(h, &m, node_inputs, input_count, output_count, res);
        snprintf(msg, msglen, "%s", res->message);
        *result = res;
    }
    for (uint32_t k = 0; k < parsed; ++k)
        if (node_inputs[k])
            tp_tensor_free(&tensors[k]);
    tp_model_free(&m);
    return r;
}

/* Output k of a result: ONNX type, rank, dims (16 entries), and its bytes
 * (NULL when it has no elements); undefined: Cast's per-element mask or NULL.
 * Returns -1 when k is out of range. */
EXPORT int dmlconf_result_output(const void* result, uint32_t k, int32_t* type, uint32_t* rank, int64_t* dims,
                                 const void** data, uint64_t* bytes, const uint8_t** undefined)
{
    const conf_node_result* res = result;
    if (!res || k >= res->output_count)
        return -1;
    const tp_tensor* t = &res->outputs[k];
    *type = t->data_type;
    *rank = t->rank;
    memcpy(dims, t->dims, sizeof t->dims);
    *data = t->data;
    *bytes = t->count * t->elem_size;
    *undefined = k == 0 ? res->undefined : NULL;
    return 0;
}

EXPORT void dmlconf_result_free(void* result)
{
    if (result) {
        conf_node_result_free(result);
        free(result);
    }
}

/*
 * conf_capi.c — libdml_conformance.so: the C mapping (onnx_to_dml.c) plus the
 * runner (conf_runner.c) behind a flat C API for ctypes (ort_differential.py),
 * so that the differential run exercises the same mapping code as the C suites.
 *
 * Return values: 0 ran (output written), 1 OTD_EMPTY (nothing dispatched),
 * -1 OTD_INVALID, -2 OTD_UNREPRESENTABLE, -3 a DML call failed; msg says why.
 */
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

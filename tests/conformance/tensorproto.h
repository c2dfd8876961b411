/*
 * tensorproto.h — a minimal reader for the ONNX protobuf messages the
 * conformance suites need: TensorProto (input_N.pb / output_N.pb) and, from a
 * ModelProto (model.onnx), the graph's first node (op_type, input names,
 * INT / INTS / STRING / TENSOR attributes), the graph's input names and declared element types,
 * its first output's declared element type, and its initializers.
 *
 * Protobuf wire format only (varint, 64-bit, length-delimited, 32-bit); unknown
 * fields are skipped. No dependency besides libc.
 */
#ifndef DML_TESTS_CONFORMANCE_TENSORPROTO_H
#define DML_TESTS_CONFORMANCE_TENSORPROTO_H

#include <stddef.h>
#include <stdint.h>

/* ONNX TensorProto.DataType values. */
enum {
    TP_UNDEFINED = 0, TP_FLOAT = 1, TP_UINT8 = 2, TP_INT8 = 3, TP_UINT16 = 4, TP_INT16 = 5,
    TP_INT32 = 6, TP_INT64 = 7, TP_STRING = 8, TP_BOOL = 9, TP_FLOAT16 = 10, TP_DOUBLE = 11,
    TP_UINT32 = 12, TP_UINT64 = 13, TP_BFLOAT16 = 16
};

#define TP_MAX_DIMS 16

typedef struct tp_tensor {
    char name[128];
    int32_t data_type;     /* TP_* */
    uint32_t rank;
    int64_t dims[TP_MAX_DIMS];
    uint64_t count;        /* product of dims (1 for a scalar) */
    uint32_t elem_size;    /* bytes per element in `data` */
    uint8_t* data;         /* count * elem_size bytes, little-endian, malloc'd */
} tp_tensor;

/* Bytes per element for an ONNX type (bool as 1), 0 when unsupported. */
uint32_t tp_elem_size(int32_t data_type);

/* Parses a serialized TensorProto. Returns 0 on success, -1 with err filled. */
int tp_parse_tensor(const uint8_t* buf, size_t len, tp_tensor* out, char* err, size_t errlen);
int tp_load_tensor(const char* path, tp_tensor* out, char* err, size_t errlen);
void tp_tensor_free(tp_tensor* t);
/* Element i as int64 (integer types only; unsigned 64 reinterpreted). */
int64_t tp_get_i64(const tp_tensor* t, uint64_t i);

#define TP_MAX_ATTRS 16
#define TP_MAX_IO 16
#define TP_MAX_INTS 16

typedef struct tp_attr {
    char name[64];
    int has_i;
    int64_t i;
    int has_s;
    char s[64]; /* a STRING attribute (DepthToSpace's mode), truncated */
    uint32_t ints_count;
    int64_t ints[TP_MAX_INTS];
    int has_t;
    tp_tensor t; /* a TENSOR attribute (ConstantOfShape's value); freed by tp_model_free */
} tp_attr;

typedef struct tp_model {
    int64_t opset;                  /* the default-domain opset_import version (0 if absent) */
    char op_type[64];               /* the graph's first node */
    uint32_t input_count;
    char inputs[TP_MAX_IO][128];    /* that node's input names ("" for an omitted optional) */
    uint32_t attr_count;
    tp_attr attrs[TP_MAX_ATTRS];
    uint32_t graph_input_count;
    char graph_inputs[TP_MAX_IO][128]; /* graph.input names, in order (input_N.pb order) */
    int32_t graph_input_types[TP_MAX_IO]; /* their declared elem_type (TP_UNDEFINED when not a tensor) */
    uint32_t graph_output_count;
    int32_t graph_output_type;      /* the first graph output's declared elem_type */
    uint32_t initializer_count;
    tp_tensor initializers[TP_MAX_IO];
} tp_model;

int tp_parse_model(const uint8_t* buf, size_t len, tp_model* out, char* err, size_t errlen);
int tp_load_model(const char* path, tp_model* out, char* err, size_t errlen);
void tp_model_free(tp_model* m);
const tp_attr* tp_model_attr(const tp_model* m, const char* name);
/* Index of `name` among the graph inputs, or -1. */
int tp_graph_input_index(const tp_model* m, const char* name);
const tp_tensor* tp_model_initializer(const tp_model* m, const char* name);

#endif

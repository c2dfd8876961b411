/*
 * common.h — what dmlinfo and dmlrun share: data type names and values,
 * float16 conversion, tensor printing, and opening a device through the
 * public API with every failure fatal (message printed, exit status 2).
 */
#ifndef DML_TOOLS_COMMON_H
#define DML_TOOLS_COMMON_H

#include <dml/dml.h>
#include <stdbool.h>
#include <stdio.h>

#define TOOL_EXIT_FAILURE 2 /* an API call failed, or bad usage */

/* Set by main; prefixes every message. */
extern const char* tool_name;

/* Exits with TOOL_EXIT_FAILURE after printing what failed and
 * dmlGetLastErrorMessage() when result is a failure. */
void tool_check(DML_RESULT result, const char* what);
_Noreturn void tool_fail(const char* format, ...) __attribute__((format(printf, 1, 2)));
const char* tool_result_name(DML_RESULT result);

/* ---- Data types ---- */
#define TOOL_DATA_TYPE_COUNT 11
extern const DML_TENSOR_DATA_TYPE tool_data_types[TOOL_DATA_TYPE_COUNT];
const char* tool_data_type_name(DML_TENSOR_DATA_TYPE type); /* "float32", ... */
bool tool_parse_data_type(const char* text, DML_TENSOR_DATA_TYPE* type);
uint32_t tool_data_type_size(DML_TENSOR_DATA_TYPE type);
/* "5_0" for DML_FEATURE_LEVEL_5_0. */
void tool_feature_level_name(DML_FEATURE_LEVEL level, char* out, size_t size);

/* ---- float16 ---- */
float tool_half_to_float(uint16_t half);
uint16_t tool_float_to_half(float value); /* round to nearest even */

/* ---- Elements ---- */
/* Parses text as one value of type into element; false if not a number or
 * out of the type's range. */
bool tool_parse_element(DML_TENSOR_DATA_TYPE type, const char* text, void* element);
/* Stores the integer value (1, 2, 3 ...: default inputs), wrapping for narrow integer types. */
void tool_store_index(DML_TENSOR_DATA_TYPE type, uint64_t value, void* element);
void tool_format_element(DML_TENSOR_DATA_TYPE type, const void* element, char* out, size_t size);

/* Prints a packed tensor as nested rows by its last dimension, e.g.
 *   [[[[ 1,  2],
 *      [ 3,  4]]]]
 * every line after the first indented by `indent` spaces. */
void tool_print_tensor(FILE* out, DML_TENSOR_DATA_TYPE type, uint32_t rank, const uint32_t* sizes,
    const void* data, int indent);
void tool_print_sizes(FILE* out, uint32_t rank, const uint32_t* sizes); /* "{1,1,4,4}" */

/* ---- Devices ---- */
typedef struct tool_device {
    DMLDevice device;
    DMLCommandQueue queue;
    DMLCommandRecorder recorder;
    char backend[DML_BACKEND_NAME_SIZE];
    const char* why;           /* why this backend: "--backend", "DML_BACKEND", "highest score" */
    DML_ADAPTER_INFO adapter;  /* the adapter the device runs on */
} tool_device;

/* Why dmlCreateDevice picks the backend it does for this request. */
const char* tool_selection_reason(const char* requested);
/* Creates the device and, when with_queue, a queue and a recorder; fatal on failure. */
void tool_device_open(tool_device* dev, const char* requested, bool with_queue);
void tool_device_close(tool_device* dev);

#endif /* DML_TOOLS_COMMON_H */

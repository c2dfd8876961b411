/*
 * common.h — what dmlinfo and dmlrun share: parsing and printing elements
 * and tensors, and opening a device through the public API with every
 * failure fatal (message printed, exit status 2).
 */
#ifndef DML_TOOLS_COMMON_H
#define DML_TOOLS_COMMON_H

#include <dml/dml.h>
#include <stdbool.h>
#include <stdio.h>

#include "core/data_type.h"
#include "core/half.h"
#include "core/result.h"

#define TOOL_EXIT_FAILURE 2 /* an API call failed, or bad usage */

/* Set by main; prefixes every message. */
extern const char* tool_name;

/* Exits with TOOL_EXIT_FAILURE after printing what failed and
 * dmlGetLastErrorMessage() when result is a failure. */
void tool_check(DML_RESULT result, const char* what);
_Noreturn void tool_fail(const char* format, ...) __attribute__((format(printf, 1, 2)));

/* ---- Data types ---- */
/* The names, sizes and kinds of the data types are core/data_type.h's
 * (dml_data_type_short_name: "float32", ...), result names core/result.h's
 * and float16 conversion core/half.h's. */
bool tool_parse_data_type(const char* text, DML_TENSOR_DATA_TYPE* type); /* a short name */
/* "5_0" for DML_FEATURE_LEVEL_5_0. */
void tool_feature_level_name(DML_FEATURE_LEVEL level, char* out, size_t size);

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

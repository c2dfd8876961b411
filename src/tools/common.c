#include "common.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

const char* tool_name = "dml";

/* ---- Failures ----------------------------------------------------------- */

void tool_check(DML_RESULT result, const char* what)
{
    if (DML_SUCCEEDED(result))
        return;
    fprintf(stderr, "%s: %s failed: %s (0x%08" PRIX32 ")\n  %s\n", tool_name, what, dml_result_name(result),
        (uint32_t)result, dmlGetLastErrorMessage());
    exit(TOOL_EXIT_FAILURE);
}

void tool_fail(const char* format, ...)
{
    va_list args;
    va_start(args, format);
    fprintf(stderr, "%s: ", tool_name);
    vfprintf(stderr, format, args);
    fputc('\n', stderr);
    va_end(args);
    exit(TOOL_EXIT_FAILURE);
}

/* ---- Data types --------------------------------------------------------- */

bool tool_parse_data_type(const char* text, DML_TENSOR_DATA_TYPE* type)
{
    for (uint32_t i = 1; i <= DML_DATA_TYPE_COUNT; i++) {
        if (strcmp(text, dml_data_type_short_name((DML_TENSOR_DATA_TYPE)i)) == 0) {
            *type = (DML_TENSOR_DATA_TYPE)i;
            return true;
        }
    }
    return false;
}

void tool_feature_level_name(DML_FEATURE_LEVEL level, char* out, size_t size)
{
    snprintf(out, size, "%x_%x", ((unsigned)level >> 12) & 0xF, ((unsigned)level >> 8) & 0xF);
}

/* ---- Elements ----------------------------------------------------------- */

/* Stores the low bytes of a 64-bit two's complement value (little-endian host). */
static void store_bits(DML_TENSOR_DATA_TYPE type, uint64_t bits, void* element)
{
    switch (dml_data_type_size(type)) {
    case 1: { uint8_t v = (uint8_t)bits; memcpy(element, &v, 1); break; }
    case 2: { uint16_t v = (uint16_t)bits; memcpy(element, &v, 2); break; }
    case 4: { uint32_t v = (uint32_t)bits; memcpy(element, &v, 4); break; }
    case 8: memcpy(element, &bits, 8); break;
    }
}

static void store_float(DML_TENSOR_DATA_TYPE type, double value, void* element)
{
    if (type == DML_TENSOR_DATA_TYPE_FLOAT64) {
        memcpy(element, &value, sizeof value);
    } else if (type == DML_TENSOR_DATA_TYPE_FLOAT32) {
        float v = (float)value;
        memcpy(element, &v, sizeof v);
    } else {
        uint16_t v = dml_float_to_half((float)value);
        memcpy(element, &v, sizeof v);
    }
}

bool tool_parse_element(DML_TENSOR_DATA_TYPE type, const char* text, void* element)
{
    char* end = NULL;
    errno = 0;
    if (dml_data_type_is_float(type)) {
        double value = strtod(text, &end);
        if (end == text || *end || errno == ERANGE)
            return false;
        store_float(type, value, element);
        return true;
    }
    unsigned bits = dml_data_type_size(type) * 8;
    if (dml_data_type_is_signed(type)) {
        long long value = strtoll(text, &end, 0);
        if (end == text || *end || errno == ERANGE)
            return false;
        if (bits < 64 && (value < -(1LL << (bits - 1)) || value > (1LL << (bits - 1)) - 1))
            return false;
        store_bits(type, (uint64_t)value, element);
        return true;
    }
    if (text[0] == '-')
        return false; /* strtoull would accept and negate it */
    unsigned long long value = strtoull(text, &end, 0);
    if (end == text || *end || errno == ERANGE)
        return false;
    if (bits < 64 && value >> bits)
        return false;
    store_bits(type, value, element);
    return true;
}

void tool_store_index(DML_TENSOR_DATA_TYPE type, uint64_t value, void* element)
{
    if (dml_data_type_is_float(type))
        store_float(type, (double)value, element);
    else
        store_bits(type, value, element);
}

void tool_format_element(DML_TENSOR_DATA_TYPE type, const void* element, char* out, size_t size)
{
    union {
        float f32;
        double f64;
        uint16_t u16;
        uint8_t u8;
        uint32_t u32;
        uint64_t u64;
        int8_t i8;
        int16_t i16;
        int32_t i32;
        int64_t i64;
    } v;
    memcpy(&v, element, dml_data_type_size(type));
    switch (type) {
    case DML_TENSOR_DATA_TYPE_FLOAT32: snprintf(out, size, "%g", (double)v.f32); break;
    case DML_TENSOR_DATA_TYPE_FLOAT16: snprintf(out, size, "%g", (double)dml_half_to_float(v.u16)); break;
    case DML_TENSOR_DATA_TYPE_FLOAT64: snprintf(out, size, "%g", v.f64); break;
    case DML_TENSOR_DATA_TYPE_UINT8: snprintf(out, size, "%" PRIu8, v.u8); break;
    case DML_TENSOR_DATA_TYPE_UINT16: snprintf(out, size, "%" PRIu16, v.u16); break;
    case DML_TENSOR_DATA_TYPE_UINT32: snprintf(out, size, "%" PRIu32, v.u32); break;
    case DML_TENSOR_DATA_TYPE_UINT64: snprintf(out, size, "%" PRIu64, v.u64); break;
    case DML_TENSOR_DATA_TYPE_INT8: snprintf(out, size, "%" PRId8, v.i8); break;
    case DML_TENSOR_DATA_TYPE_INT16: snprintf(out, size, "%" PRId16, v.i16); break;
    case DML_TENSOR_DATA_TYPE_INT32: snprintf(out, size, "%" PRId32, v.i32); break;
    case DML_TENSOR_DATA_TYPE_INT64: snprintf(out, size, "%" PRId64, v.i64); break;
    case DML_TENSOR_DATA_TYPE_UNKNOWN: snprintf(out, size, "?"); break;
    }
}

/* ---- Printing ----------------------------------------------------------- */

void tool_print_sizes(FILE* out, uint32_t rank, const uint32_t* sizes)
{
    fputc('{', out);
    for (uint32_t i = 0; i < rank; i++)
        fprintf(out, "%s%" PRIu32, i ? "," : "", sizes[i]);
    fputc('}', out);
}

typedef struct printer {
    FILE* out;
    DML_TENSOR_DATA_TYPE type;
    uint32_t rank;
    const uint32_t* sizes;
    const unsigned char* data;
    uint32_t element_size;
    int width; /* of the widest element, so columns line up */
    int indent;
} printer;

/* Prints dimension dim starting at element index `first`; returns the index after it. */
static uint64_t print_level(const printer* p, uint32_t dim, uint64_t first)
{
    fputc('[', p->out);
    for (uint32_t i = 0; i < p->sizes[dim]; i++) {
        if (dim + 1 == p->rank) {
            char text[64];
            tool_format_element(p->type, p->data + first * p->element_size, text, sizeof text);
            fprintf(p->out, "%s%*s", i ? ", " : "", p->width, text);
            first++;
        } else {
            if (i) /* close the row, then line up under the opening brackets */
                fprintf(p->out, ",%s\n%*s", dim + 2 < p->rank ? "\n" : "", p->indent + (int)dim + 1, "");
            first = print_level(p, dim + 1, first);
        }
    }
    fputc(']', p->out);
    return first;
}

void tool_print_tensor(FILE* out, DML_TENSOR_DATA_TYPE type, uint32_t rank, const uint32_t* sizes,
    const void* data, int indent)
{
    printer p = { out, type, rank, sizes, data, dml_data_type_size(type), 1, indent };
    uint64_t count = 1;
    for (uint32_t i = 0; i < rank; i++)
        count *= sizes[i];
    for (uint64_t i = 0; i < count; i++) {
        char text[64];
        tool_format_element(type, p.data + i * p.element_size, text, sizeof text);
        int length = (int)strlen(text);
        if (length > p.width)
            p.width = length;
    }
    if (rank == 0) {
        fputs("[]\n", out);
        return;
    }
    print_level(&p, 0, 0);
    fputc('\n', out);
}

/* ---- Devices ------------------------------------------------------------ */

const char* tool_selection_reason(const char* requested)
{
    if (requested && requested[0])
        return "chosen with --backend";
    const char* env = getenv("DML_BACKEND");
    if (env && env[0])
        return "forced by DML_BACKEND";
    return "the available backend with the highest score";
}

void tool_device_open(tool_device* dev, const char* requested, bool with_queue)
{
    memset(dev, 0, sizeof *dev);
    /* A NULL Backend lets dmlCreateDevice choose exactly as it would for a
     * host (DML_BACKEND, else the best); the device then says what it got. */
    DML_DEVICE_DESC desc = { sizeof(DML_DEVICE_DESC), requested && requested[0] ? requested : NULL, 0,
        DML_CREATE_DEVICE_FLAG_NONE, DML_FEATURE_LEVEL_5_0 };
    tool_check(dmlCreateDevice(&desc, &dev->device), "dmlCreateDevice");
    dev->adapter.Size = sizeof dev->adapter;
    tool_check(dmlDeviceGetAdapterInfo(dev->device, &dev->adapter), "dmlDeviceGetAdapterInfo");
    snprintf(dev->backend, sizeof dev->backend, "%s", dev->adapter.Backend);
    dev->why = tool_selection_reason(requested);
    if (!with_queue)
        return;
    tool_check(dmlDeviceCreateCommandQueue(dev->device, NULL, &dev->queue), "dmlDeviceCreateCommandQueue");
    tool_check(dmlDeviceCreateCommandRecorder(dev->device, &dev->recorder), "dmlDeviceCreateCommandRecorder");
}

void tool_device_close(tool_device* dev)
{
    dmlRelease(dev->recorder);
    dmlRelease(dev->queue);
    dmlRelease(dev->device);
    memset(dev, 0, sizeof *dev);
}

#include "common.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

const char* tool_name = "dml";

/* ---- Failures ----------------------------------------------------------- */

const char* tool_result_name(DML_RESULT result)
{
    switch (result) {
    case DML_S_OK: return "DML_S_OK";
    case DML_E_INVALIDARG: return "DML_E_INVALIDARG";
    case DML_E_OUTOFMEMORY: return "DML_E_OUTOFMEMORY";
    case DML_E_NOTIMPL: return "DML_E_NOTIMPL";
    case DML_E_INVALID_CALL: return "DML_E_INVALID_CALL";
    case DML_E_UNSUPPORTED: return "DML_E_UNSUPPORTED";
    case DML_E_DEVICE_REMOVED: return "DML_E_DEVICE_REMOVED";
    }
    return "unknown result";
}

void tool_check(DML_RESULT result, const char* what)
{
    if (DML_SUCCEEDED(result))
        return;
    fprintf(stderr, "%s: %s failed: %s (0x%08" PRIX32 ")\n  %s\n", tool_name, what, tool_result_name(result),
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

const DML_TENSOR_DATA_TYPE tool_data_types[TOOL_DATA_TYPE_COUNT] = {
    DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_FLOAT16, DML_TENSOR_DATA_TYPE_UINT32,
    DML_TENSOR_DATA_TYPE_UINT16, DML_TENSOR_DATA_TYPE_UINT8, DML_TENSOR_DATA_TYPE_INT32,
    DML_TENSOR_DATA_TYPE_INT16, DML_TENSOR_DATA_TYPE_INT8, DML_TENSOR_DATA_TYPE_FLOAT64,
    DML_TENSOR_DATA_TYPE_UINT64, DML_TENSOR_DATA_TYPE_INT64,
};

const char* tool_data_type_name(DML_TENSOR_DATA_TYPE type)
{
    switch (type) {
    case DML_TENSOR_DATA_TYPE_FLOAT32: return "float32";
    case DML_TENSOR_DATA_TYPE_FLOAT16: return "float16";
    case DML_TENSOR_DATA_TYPE_UINT32: return "uint32";
    case DML_TENSOR_DATA_TYPE_UINT16: return "uint16";
    case DML_TENSOR_DATA_TYPE_UINT8: return "uint8";
    case DML_TENSOR_DATA_TYPE_INT32: return "int32";
    case DML_TENSOR_DATA_TYPE_INT16: return "int16";
    case DML_TENSOR_DATA_TYPE_INT8: return "int8";
    case DML_TENSOR_DATA_TYPE_FLOAT64: return "float64";
    case DML_TENSOR_DATA_TYPE_UINT64: return "uint64";
    case DML_TENSOR_DATA_TYPE_INT64: return "int64";
    case DML_TENSOR_DATA_TYPE_UNKNOWN: break;
    }
    return "unknown";
}

bool tool_parse_data_type(const char* text, DML_TENSOR_DATA_TYPE* type)
{
    for (int i = 0; i < TOOL_DATA_TYPE_COUNT; i++) {
        if (strcmp(text, tool_data_type_name(tool_data_types[i])) == 0) {
            *type = tool_data_types[i];
            return true;
        }
    }
    return false;
}

uint32_t tool_data_type_size(DML_TENSOR_DATA_TYPE type)
{
    switch (type) {
    case DML_TENSOR_DATA_TYPE_UINT8:
    case DML_TENSOR_DATA_TYPE_INT8: return 1;
    case DML_TENSOR_DATA_TYPE_FLOAT16:
    case DML_TENSOR_DATA_TYPE_UINT16:
    case DML_TENSOR_DATA_TYPE_INT16: return 2;
    case DML_TENSOR_DATA_TYPE_FLOAT32:
    case DML_TENSOR_DATA_TYPE_UINT32:
    case DML_TENSOR_DATA_TYPE_INT32: return 4;
    case DML_TENSOR_DATA_TYPE_FLOAT64:
    case DML_TENSOR_DATA_TYPE_UINT64:
    case DML_TENSOR_DATA_TYPE_INT64: return 8;
    case DML_TENSOR_DATA_TYPE_UNKNOWN: break;
    }
    return 0;
}

void tool_feature_level_name(DML_FEATURE_LEVEL level, char* out, size_t size)
{
    snprintf(out, size, "%x_%x", ((unsigned)level >> 12) & 0xF, ((unsigned)level >> 8) & 0xF);
}

/* ---- float16 (IEEE binary16) -------------------------------------------- */

float tool_half_to_float(uint16_t half)
{
    uint32_t sign = (uint32_t)(half & 0x8000u) << 16;
    uint32_t exponent = (half >> 10) & 0x1Fu;
    uint32_t mantissa = half & 0x3FFu;
    uint32_t bits;
    if (exponent == 0x1F) {
        bits = sign | 0x7F800000u | (mantissa << 13); /* inf, nan */
    } else if (exponent != 0) {
        bits = sign | ((exponent + 127 - 15) << 23) | (mantissa << 13);
    } else if (mantissa == 0) {
        bits = sign; /* +-0 */
    } else {
        /* Subnormal: shift the leading 1 up to the implicit bit. */
        exponent = 127 - 15 + 1;
        while (!(mantissa & 0x400u)) {
            mantissa <<= 1;
            exponent--;
        }
        bits = sign | (exponent << 23) | ((mantissa & 0x3FFu) << 13);
    }
    float value;
    memcpy(&value, &bits, sizeof value);
    return value;
}

uint16_t tool_float_to_half(float value)
{
    uint32_t bits;
    memcpy(&bits, &value, sizeof bits);
    uint16_t sign = (uint16_t)((bits >> 16) & 0x8000u);
    uint32_t magnitude = bits & 0x7FFFFFFFu;

    if (magnitude >= 0x7F800000u) /* inf stays inf, nan stays (quiet) nan */
        return (uint16_t)(sign | 0x7C00u | (magnitude > 0x7F800000u ? 0x200u : 0));
    if (magnitude >= 0x477FF000u) /* >= 65520 rounds to inf */
        return (uint16_t)(sign | 0x7C00u);
    if (magnitude < 0x38800000u) { /* below 2^-14: a subnormal half, or zero */
        if (magnitude <= 0x33000000u) /* <= 2^-25 rounds (to even) to zero */
            return sign;
        uint32_t exponent = magnitude >> 23;
        uint32_t mantissa = (magnitude & 0x7FFFFFu) | 0x800000u;
        uint32_t shift = 126 - exponent; /* 14..24 */
        uint32_t result = mantissa >> shift;
        uint32_t rest = mantissa & ((1u << shift) - 1);
        uint32_t halfway = 1u << (shift - 1);
        if (rest > halfway || (rest == halfway && (result & 1)))
            result++;
        return (uint16_t)(sign | result);
    }
    /* Normal: rebias the exponent (127 -> 15) and round the mantissa to 10 bits;
     * a carry out of the mantissa correctly bumps the exponent. */
    uint32_t rebiased = magnitude - 0x38000000u;
    uint32_t result = rebiased >> 13;
    uint32_t rest = rebiased & 0x1FFFu;
    if (rest > 0x1000u || (rest == 0x1000u && (result & 1)))
        result++;
    return (uint16_t)(sign | result);
}

/* ---- Elements ----------------------------------------------------------- */

static bool is_float(DML_TENSOR_DATA_TYPE type)
{
    return type == DML_TENSOR_DATA_TYPE_FLOAT32 || type == DML_TENSOR_DATA_TYPE_FLOAT16 ||
        type == DML_TENSOR_DATA_TYPE_FLOAT64;
}

static bool is_signed(DML_TENSOR_DATA_TYPE type)
{
    return type == DML_TENSOR_DATA_TYPE_INT8 || type == DML_TENSOR_DATA_TYPE_INT16 ||
        type == DML_TENSOR_DATA_TYPE_INT32 || type == DML_TENSOR_DATA_TYPE_INT64;
}

/* Stores the low bytes of a 64-bit two's complement value (little-endian host). */
static void store_bits(DML_TENSOR_DATA_TYPE type, uint64_t bits, void* element)
{
    switch (tool_data_type_size(type)) {
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
        uint16_t v = tool_float_to_half((float)value);
        memcpy(element, &v, sizeof v);
    }
}

bool tool_parse_element(DML_TENSOR_DATA_TYPE type, const char* text, void* element)
{
    char* end = NULL;
    errno = 0;
    if (is_float(type)) {
        double value = strtod(text, &end);
        if (end == text || *end || errno == ERANGE)
            return false;
        store_float(type, value, element);
        return true;
    }
    unsigned bits = tool_data_type_size(type) * 8;
    if (is_signed(type)) {
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
    if (is_float(type))
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
    memcpy(&v, element, tool_data_type_size(type));
    switch (type) {
    case DML_TENSOR_DATA_TYPE_FLOAT32: snprintf(out, size, "%g", (double)v.f32); break;
    case DML_TENSOR_DATA_TYPE_FLOAT16: snprintf(out, size, "%g", (double)tool_half_to_float(v.u16)); break;
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
    printer p = { out, type, rank, sizes, data, tool_data_type_size(type), 1, indent };
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

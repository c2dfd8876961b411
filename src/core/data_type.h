/*
 * data_type.h — the one table of DML_TENSOR_DATA_TYPE facts: each type's
 * element size, its name ("FLOAT32", as in the enum) and its short name
 * ("float32", the tools' command lines), whether it is signed (holds negative
 * values: the signed integers and the floats) and whether it is a float.
 *
 * Header-only, so that the core, the tools and the tests (which link only
 * libdml.so) share it. python/dml/_lib.py's DATA_TYPES mirrors it; the CTest
 * python_mirrors_c (tests/core/check_python_mirrors.py) compares the two.
 */
#ifndef DML_CORE_DATA_TYPE_H
#define DML_CORE_DATA_TYPE_H

#include <dml/dml.h>
#include <stdbool.h>
#include <stdint.h>

/* X(NAME, short name, size in bytes, signed, float), in the enum's order. */
#define DML_DATA_TYPES(X)                  \
    X(FLOAT32, "float32", 4, true, true)   \
    X(FLOAT16, "float16", 2, true, true)   \
    X(UINT32, "uint32", 4, false, false)   \
    X(UINT16, "uint16", 2, false, false)   \
    X(UINT8, "uint8", 1, false, false)     \
    X(INT32, "int32", 4, true, false)      \
    X(INT16, "int16", 2, true, false)      \
    X(INT8, "int8", 1, true, false)        \
    X(FLOAT64, "float64", 8, true, true)   \
    X(UINT64, "uint64", 8, false, false)   \
    X(INT64, "int64", 8, true, false)

/* How many types the table holds; they are the values 1 .. DML_DATA_TYPE_COUNT
 * (0 is UNKNOWN). */
#define DML_DATA_TYPE_ONE_(name, short_name, size, is_signed, is_float) +1
enum { DML_DATA_TYPE_COUNT = 0 DML_DATA_TYPES(DML_DATA_TYPE_ONE_) };
#undef DML_DATA_TYPE_ONE_

typedef struct dml_data_type_facts {
    const char* name;       /* "FLOAT32"; "UNKNOWN"; "invalid" past the enum */
    const char* short_name; /* "float32"; "unknown"; "invalid" */
    uint32_t size;          /* bytes per element; 0 for UNKNOWN and invalid values */
    bool is_signed;
    bool is_float;
} dml_data_type_facts;

static inline const dml_data_type_facts* dml_data_type_facts_of(DML_TENSOR_DATA_TYPE type)
{
    static const dml_data_type_facts table[] = {
        [DML_TENSOR_DATA_TYPE_UNKNOWN] = { "UNKNOWN", "unknown", 0, false, false },
#define DML_DATA_TYPE_ROW_(name, short_name, size, is_signed, is_float) \
    [DML_TENSOR_DATA_TYPE_##name] = { #name, short_name, size, is_signed, is_float },
        DML_DATA_TYPES(DML_DATA_TYPE_ROW_)
#undef DML_DATA_TYPE_ROW_
    };
    /* Every row filled: the enum's values are 0 .. DML_DATA_TYPE_COUNT. */
    _Static_assert(sizeof table / sizeof table[0] == DML_DATA_TYPE_COUNT + 1, "DML_DATA_TYPES skips a value");
    static const dml_data_type_facts invalid = { "invalid", "invalid", 0, false, false };
    return (uint32_t)type <= DML_DATA_TYPE_COUNT ? &table[type] : &invalid;
}

/* Bytes per element; 0 for UNKNOWN or an invalid value. */
static inline uint32_t dml_data_type_size(DML_TENSOR_DATA_TYPE type)
{
    return dml_data_type_facts_of(type)->size;
}

static inline const char* dml_data_type_name(DML_TENSOR_DATA_TYPE type)
{
    return dml_data_type_facts_of(type)->name;
}

static inline const char* dml_data_type_short_name(DML_TENSOR_DATA_TYPE type)
{
    return dml_data_type_facts_of(type)->short_name;
}

static inline bool dml_data_type_is_signed(DML_TENSOR_DATA_TYPE type)
{
    return dml_data_type_facts_of(type)->is_signed;
}

static inline bool dml_data_type_is_float(DML_TENSOR_DATA_TYPE type)
{
    return dml_data_type_facts_of(type)->is_float;
}

#endif /* DML_CORE_DATA_TYPE_H */

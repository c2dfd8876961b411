/*
 * print_facts — prints the C side of the facts that python/dml/_lib.py
 * mirrors, straight from their X-macro lists, one per line:
 *   type NAME VALUE SIZE SIGNED FLOAT     (core/data_type.h)
 *   result NAME VALUE                     (core/result.h; VALUE as a signed 32-bit number)
 * check_python_mirrors.py compares them with the Python package's tables.
 */
#include <stdint.h>
#include <stdio.h>

#include "core/data_type.h"
#include "core/result.h"

int main(void)
{
#define PRINT_TYPE(name, short_name, size, is_signed, is_float) \
    printf("type %s %d %d %d %d\n", #name, (int)DML_TENSOR_DATA_TYPE_##name, size, (int)(is_signed), (int)(is_float));
    DML_DATA_TYPES(PRINT_TYPE)
#undef PRINT_TYPE
#define PRINT_RESULT(code) printf("result %s %ld\n", #code, (long)(int32_t)(code));
    DML_RESULTS(PRINT_RESULT)
#undef PRINT_RESULT
    return 0;
}

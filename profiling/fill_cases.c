#include "fill_cases.h"

#include "core/ops/op.h"

const char* fill_pattern_name(int pattern)
{
    return pattern == FILL_CONTIGUOUS ? "contiguous" : "padded-rows";
}

int fill_case_plan(int sequence, uint32_t e, int pattern, uint64_t bytes, uint32_t row_bytes, dml_plan* plan,
    uint64_t* output_bytes)
{
    static const DML_TENSOR_DATA_TYPE types[9] = { [1] = DML_TENSOR_DATA_TYPE_UINT8,
        [2] = DML_TENSOR_DATA_TYPE_FLOAT16, [4] = DML_TENSOR_DATA_TYPE_FLOAT32, [8] = DML_TENSOR_DATA_TYPE_FLOAT64 };
    const DML_TENSOR_DATA_TYPE type = types[e];
    uint32_t sizes[2], strides[2], rank = 1;
    if (pattern == FILL_CONTIGUOUS) {
        sizes[0] = (uint32_t)(bytes / e);
        strides[0] = 1;
    } else {
        rank = 2;
        sizes[1] = row_bytes / e;
        sizes[0] = (uint32_t)(bytes / row_bytes);
        strides[1] = 1;
        strides[0] = sizes[1] + 16 / e;
    }
    uint64_t total;
    if (!dml_calc_buffer_tensor_size(type, rank, sizes, strides, &total))
        return -1;
    DML_BUFFER_TENSOR_DESC buffer = { type, DML_TENSOR_FLAG_NONE, rank, sizes, strides, total, 0 };
    DML_TENSOR_DESC tensor = { DML_TENSOR_TYPE_BUFFER, &buffer };
    DML_SCALAR_UNION start = { .Bytes = { 0x3C, 0x3F, 0x80, 0x3F, 0, 0, 0xF0, 0x3F } }, delta = start;
    DML_FILL_VALUE_CONSTANT_OPERATOR_DESC constant = { &tensor, type, start };
    DML_FILL_VALUE_SEQUENCE_OPERATOR_DESC seq = { &tensor, type, start, delta };
    DML_OPERATOR_DESC desc = { sequence ? DML_OPERATOR_FILL_VALUE_SEQUENCE : DML_OPERATOR_FILL_VALUE_CONSTANT,
        sequence ? (const void*)&seq : (const void*)&constant };
    *output_bytes = total;
    return dml_plan_from_desc(&desc, plan) < 0 ? -1 : 0;
}

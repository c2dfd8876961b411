/*
 * common.c — helpers operator files share: validating a tensor in its role,
 * and the element-wise contract of two tensors.
 */
#include "op.h"

DML_RESULT dml_op_tensor(const char* call, const char* field, bool is_output, const DML_TENSOR_DESC* desc,
    dml_tensor* tensor)
{
    dml_tensor_role role = { call, field, is_output };
    return dml_tensor_from_desc(desc, &role, tensor);
}

DML_RESULT dml_op_check_same_shape(const char* call, const char* a_field, const dml_tensor* a, const char* b_field,
    const dml_tensor* b, bool same_type)
{
    if (b->rank != a->rank)
        DML_OP_FAIL("%s: %s.DimensionCount %u differs from %s.DimensionCount %u", call, b_field, b->rank, a_field,
            a->rank);
    if (same_type && b->data_type != a->data_type)
        DML_OP_FAIL("%s: %s.DataType %s differs from %s.DataType %s", call, b_field, dml_data_type_name(b->data_type),
            a_field, dml_data_type_name(a->data_type));
    for (uint32_t i = 0; i < a->rank; ++i)
        if (b->sizes[i] != a->sizes[i])
            DML_OP_FAIL("%s: %s.Sizes[%u] = %u differs from %s.Sizes[%u] = %u", call, b_field, i, b->sizes[i],
                a_field, i, a->sizes[i]);
    return DML_S_OK;
}

/*
 * operator.h — validated operator descs. CreateOperator turns a
 * DML_OPERATOR_DESC into a dml_op_desc (a deep copy with every rule checked);
 * CompileOperator turns that into a plan. SLICE and ELEMENT_WISE_IDENTITY
 * are stored in SLICE1's form.
 */
#ifndef DML_CORE_OPERATOR_H
#define DML_CORE_OPERATOR_H

#include "tensor.h"

#define DML_OP_MAX_INPUTS 2

typedef struct dml_op_desc {
    DML_OPERATOR_TYPE type;
    uint32_t input_count;                  /* REVERSE_SUBSEQUENCES: input, lengths */
    dml_tensor inputs[DML_OP_MAX_INPUTS];
    dml_tensor output;
    /* SLICE and SLICE1, in SLICE1's terms (SLICE's strides may exceed INT32_MAX) */
    uint32_t window_offsets[DML_PLAN_MAX_RANK];
    uint32_t window_sizes[DML_PLAN_MAX_RANK];
    int64_t window_strides[DML_PLAN_MAX_RANK];
    /* REVERSE_SUBSEQUENCES */
    uint32_t axis;
    /* ELEMENT_WISE_IDENTITY (stored as SLICE1 over the whole input) with ScaleBias */
    bool has_scale_bias;
    float scale, bias;
} dml_op_desc;

/* "SLICE1", "DML_OPERATOR_TYPE 3", ... for messages. */
const char* dml_operator_type_name(DML_OPERATOR_TYPE type);

/* Validates desc and fills *op. DML_E_INVALIDARG for a broken rule or an
 * unknown type, DML_E_NOTIMPL for a DirectML operator this runtime lacks;
 * *op is untouched on failure. */
DML_RESULT dml_operator_from_desc(const DML_OPERATOR_DESC* desc, dml_op_desc* op);

#endif /* DML_CORE_OPERATOR_H */

/*
 * tensor.h — validated copies of DML_BUFFER_TENSOR_DESCs.
 */
#ifndef DML_CORE_TENSOR_H
#define DML_CORE_TENSOR_H

#include <dml/dml.h>
#include <stdbool.h>

#include "data_type.h" /* dml_data_type_size, dml_data_type_name */

/* A validated tensor desc, deep-copied: strides are always explicit (packed
 * ones filled in when the desc had NULL). */
typedef struct dml_tensor {
    DML_TENSOR_DATA_TYPE data_type;
    DML_TENSOR_FLAGS flags;
    uint32_t rank;
    uint32_t element_size;
    uint32_t sizes[DML_TENSOR_DIMENSION_COUNT_MAX1];
    uint64_t strides[DML_TENSOR_DIMENSION_COUNT_MAX1]; /* 64-bit: packed strides of huge tensors exceed 32 bits */
    uint64_t total_bytes;     /* TotalTensorSizeInBytes */
    uint32_t base_alignment;  /* GuaranteedBaseOffsetAlignment */
    bool packed_strides;      /* Strides was NULL */
} dml_tensor;

/* DirectML's DMLCalcBufferTensorSize, overflow-checked: false when the
 * arguments are invalid or the size does not fit in 64 bits. */
bool dml_calc_buffer_tensor_size(DML_TENSOR_DATA_TYPE type, uint32_t rank, const uint32_t* sizes,
    const uint32_t* strides, uint64_t* size);

/* Role of a tensor in its operator, for validation and messages. */
typedef struct dml_tensor_role {
    const char* call;     /* e.g. "dmlDeviceCreateOperator(SLICE1)" */
    const char* field;    /* e.g. "InputTensor" */
    bool is_output;       /* outputs may not broadcast or alias, nor be OWNED_BY_DML */
} dml_tensor_role;

/* Validates desc (every rule of the spec) and copies it into *tensor.
 * Returns DML_S_OK or DML_E_INVALIDARG with the message set; *tensor is
 * untouched on failure. */
DML_RESULT dml_tensor_from_desc(const DML_TENSOR_DESC* desc, const dml_tensor_role* role, dml_tensor* tensor);

#endif /* DML_CORE_TENSOR_H */

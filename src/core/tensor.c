#include "tensor.h"

#include <stdlib.h>
#include <string.h>

#include "error.h"

/* Largest element index addressed: sum((size - 1) * stride), or prod - 1 when packed. */
static bool last_element_index(uint32_t rank, const uint32_t* sizes, const uint32_t* strides, uint64_t* last)
{
    uint64_t index = 0;
    if (strides) {
        for (uint32_t i = 0; i < rank; ++i) {
            uint64_t term = (uint64_t)(sizes[i] - 1) * strides[i]; /* < 2^64: both factors < 2^32 */
            if (__builtin_add_overflow(index, term, &index))
                return false;
        }
    } else {
        uint64_t count = 1;
        for (uint32_t i = 0; i < rank; ++i)
            if (__builtin_mul_overflow(count, (uint64_t)sizes[i], &count))
                return false;
        index = count - 1;
    }
    *last = index;
    return true;
}

bool dml_calc_buffer_tensor_size(DML_TENSOR_DATA_TYPE type, uint32_t rank, const uint32_t* sizes,
    const uint32_t* strides, uint64_t* size)
{
    uint32_t element_size = dml_data_type_size(type);
    if (!element_size || !sizes || rank == 0 || rank > DML_TENSOR_DIMENSION_COUNT_MAX1)
        return false;
    for (uint32_t i = 0; i < rank; ++i)
        if (sizes[i] == 0)
            return false;
    uint64_t last, bytes;
    if (!last_element_index(rank, sizes, strides, &last) || last == UINT64_MAX ||
        __builtin_mul_overflow(last + 1, (uint64_t)element_size, &bytes) || bytes > UINT64_MAX - 3)
        return false;
    *size = (bytes + 3) & ~(uint64_t)3; /* DirectML rounds up to 4 bytes */
    return true;
}

typedef enum overlap_result { NO_OVERLAP, OVERLAP, OVERLAP_UNKNOWN } overlap_result;

/* Enumerating addresses settles layouts the nesting test cannot; bounded so
 * CreateOperator stays cheap. */
#define DML_OVERLAP_ENUMERATION_LIMIT (1u << 24)

static overlap_result enumerate_overlap(uint32_t rank, const uint32_t* sizes, const uint64_t* strides, uint64_t span)
{
    uint8_t* seen = calloc((size_t)(span + 7) / 8, 1);
    if (!seen)
        return OVERLAP_UNKNOWN;
    uint32_t coord[DML_TENSOR_DIMENSION_COUNT_MAX1] = { 0 };
    overlap_result result = NO_OVERLAP;
    for (;;) {
        uint64_t offset = 0;
        for (uint32_t i = 0; i < rank; ++i)
            offset += coord[i] * strides[i];
        if (seen[offset / 8] & (1u << (offset % 8))) {
            result = OVERLAP;
            break;
        }
        seen[offset / 8] |= (uint8_t)(1u << (offset % 8));
        uint32_t d = rank;
        while (d > 0 && ++coord[d - 1] == sizes[d - 1])
            coord[--d] = 0;
        if (d == 0)
            break;
    }
    free(seen);
    return result;
}

/* Whether two coordinates of an output map to one address. Dimensions sorted
 * by stride must each step past everything the smaller ones reach (the common
 * case, decided in O(rank^2)); otherwise small layouts are enumerated. */
static overlap_result output_overlap(uint32_t rank, const uint32_t* sizes, const uint64_t* strides)
{
    uint32_t order[DML_TENSOR_DIMENSION_COUNT_MAX1];
    uint32_t n = 0;
    uint64_t count = 1;
    for (uint32_t i = 0; i < rank; ++i) {
        if (sizes[i] == 1)
            continue;
        if (strides[i] == 0)
            return OVERLAP;
        uint32_t j = n++;
        for (; j > 0 && strides[order[j - 1]] > strides[i]; --j)
            order[j] = order[j - 1];
        order[j] = i;
        count *= sizes[i]; /* cannot overflow for a tensor whose size computation succeeded */
    }
    uint64_t extent = 0; /* largest offset reachable by the dimensions seen so far */
    bool nested = true;
    for (uint32_t k = 0; k < n; ++k) {
        uint32_t i = order[k];
        if (strides[i] <= extent)
            nested = false;
        extent += (sizes[i] - 1) * strides[i]; /* bounded by the checked tensor size */
    }
    if (nested)
        return NO_OVERLAP;
    if (count > DML_OVERLAP_ENUMERATION_LIMIT || extent >= DML_OVERLAP_ENUMERATION_LIMIT * 8ull)
        return OVERLAP_UNKNOWN;
    return enumerate_overlap(rank, sizes, strides, extent + 1);
}

static bool is_power_of_two(uint32_t v)
{
    return v && !(v & (v - 1));
}

#define FAIL(...) return dml_set_error(DML_E_INVALIDARG, __VA_ARGS__)

DML_RESULT dml_tensor_from_desc(const DML_TENSOR_DESC* desc, const dml_tensor_role* role, dml_tensor* tensor)
{
    const char* call = role->call;
    const char* field = role->field;
    if (!desc)
        FAIL("%s: %s is NULL", call, field);
    if (desc->Type != DML_TENSOR_TYPE_BUFFER)
        FAIL("%s: %s.Type = %d; only DML_TENSOR_TYPE_BUFFER is supported", call, field, (int)desc->Type);
    const DML_BUFFER_TENSOR_DESC* buffer = (const DML_BUFFER_TENSOR_DESC*)desc->Desc;
    if (!buffer)
        FAIL("%s: %s.Desc is NULL", call, field);

    uint32_t element_size = dml_data_type_size(buffer->DataType);
    if (!element_size)
        FAIL("%s: %s.DataType = %d is not a valid DML_TENSOR_DATA_TYPE", call, field, (int)buffer->DataType);
    if ((uint32_t)buffer->Flags & ~(uint32_t)DML_TENSOR_FLAG_OWNED_BY_DML)
        FAIL("%s: %s.Flags = 0x%x has bits outside DML_TENSOR_FLAG_OWNED_BY_DML", call, field, (unsigned)buffer->Flags);
    if (role->is_output && (buffer->Flags & DML_TENSOR_FLAG_OWNED_BY_DML))
        FAIL("%s: %s.Flags has DML_TENSOR_FLAG_OWNED_BY_DML; only inputs can be owned by DML", call, field);
    uint32_t rank = buffer->DimensionCount;
    if (rank < 1 || rank > DML_TENSOR_DIMENSION_COUNT_MAX1)
        FAIL("%s: %s.DimensionCount = %u; must be 1 to %d", call, field, rank, DML_TENSOR_DIMENSION_COUNT_MAX1);
    if (!buffer->Sizes)
        FAIL("%s: %s.Sizes is NULL", call, field);
    for (uint32_t i = 0; i < rank; ++i)
        if (buffer->Sizes[i] == 0)
            FAIL("%s: %s.Sizes[%u] = 0; every size must be >= 1", call, field, i);

    uint64_t minimum;
    if (!dml_calc_buffer_tensor_size(buffer->DataType, rank, buffer->Sizes, buffer->Strides, &minimum))
        FAIL("%s: %s: the size implied by Sizes and Strides overflows 64 bits", call, field);
    if (minimum > (uint64_t)INT64_MAX) /* keeps every element offset a signed 64-bit number */
        FAIL("%s: %s: the size implied by Sizes and Strides, %llu bytes, exceeds 2^63 - 1", call, field,
            (unsigned long long)minimum);
    if (buffer->TotalTensorSizeInBytes < minimum)
        FAIL("%s: %s.TotalTensorSizeInBytes = %llu is less than DMLCalcBufferTensorSize = %llu", call, field,
            (unsigned long long)buffer->TotalTensorSizeInBytes, (unsigned long long)minimum);
    uint32_t alignment = buffer->GuaranteedBaseOffsetAlignment;
    if (alignment != 0 && (!is_power_of_two(alignment) || alignment < element_size))
        FAIL("%s: %s.GuaranteedBaseOffsetAlignment = %u; must be 0 or a power of two >= the element size %u",
            call, field, alignment, element_size);

    dml_tensor t;
    memset(&t, 0, sizeof t);
    t.data_type = buffer->DataType;
    t.flags = buffer->Flags;
    t.rank = rank;
    t.element_size = element_size;
    t.total_bytes = buffer->TotalTensorSizeInBytes;
    t.base_alignment = alignment;
    t.packed_strides = buffer->Strides == NULL;
    uint64_t packed = 1; /* cannot overflow: the element count was checked above */
    for (uint32_t i = rank; i-- > 0;) {
        t.sizes[i] = buffer->Sizes[i];
        t.strides[i] = buffer->Strides ? buffer->Strides[i] : packed;
        packed *= buffer->Sizes[i];
    }

    if (role->is_output) {
        overlap_result overlap = output_overlap(rank, t.sizes, t.strides);
        if (overlap == OVERLAP)
            FAIL("%s: %s.Strides make two output elements share an address", call, field);
        if (overlap == OVERLAP_UNKNOWN)
            FAIL("%s: %s.Strides interleave dimensions in a layout too large to prove free of shared addresses",
                call, field);
    }
    *tensor = t;
    return DML_S_OK;
}

/*
 * test_header_c11.c — <dml/dml.h> as strict ISO C11 (-std=c11 -Wpedantic
 * -pedantic-errors -Werror), and its fixed values (docs/contract.md) checked
 * at compile time. Plain main (no Check, whose header is not the point here).
 */
#include <dml/dml.h>

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define SAME_TYPE(expr, T) _Generic((expr), T: 1, default: 0)

_Static_assert(sizeof(UINT) == 4 && sizeof(INT) == 4 && sizeof(UINT64) == 8 && sizeof(BOOL) == 4, "scalar sizes");
_Static_assert(SAME_TYPE((DML_RESULT)0, int32_t), "DML_RESULT is int32_t");

_Static_assert(DML_S_OK == 0, "S_OK");
_Static_assert(DML_E_INVALIDARG == (DML_RESULT)0x80070057u, "E_INVALIDARG");
_Static_assert(DML_E_OUTOFMEMORY == (DML_RESULT)0x8007000Eu, "E_OUTOFMEMORY");
_Static_assert(DML_E_NOTIMPL == (DML_RESULT)0x80004001u, "E_NOTIMPL");
_Static_assert(DML_E_INVALID_CALL == (DML_RESULT)0x887A0001u, "E_INVALID_CALL");
_Static_assert(DML_E_UNSUPPORTED == (DML_RESULT)0x887A0004u, "E_UNSUPPORTED");
_Static_assert(DML_E_DEVICE_REMOVED == (DML_RESULT)0x887A0005u, "E_DEVICE_REMOVED");
_Static_assert(DML_FAILED(DML_E_INVALIDARG) && !DML_SUCCEEDED(DML_E_INVALIDARG), "failure codes are negative");
_Static_assert(DML_SUCCEEDED(DML_S_OK) && !DML_FAILED(DML_S_OK), "S_OK succeeds");

_Static_assert(DML_TENSOR_DATA_TYPE_UNKNOWN == 0 && DML_TENSOR_DATA_TYPE_FLOAT32 == 1 &&
                   DML_TENSOR_DATA_TYPE_FLOAT16 == 2 && DML_TENSOR_DATA_TYPE_UINT32 == 3 &&
                   DML_TENSOR_DATA_TYPE_UINT16 == 4 && DML_TENSOR_DATA_TYPE_UINT8 == 5 &&
                   DML_TENSOR_DATA_TYPE_INT32 == 6 && DML_TENSOR_DATA_TYPE_INT16 == 7 &&
                   DML_TENSOR_DATA_TYPE_INT8 == 8 && DML_TENSOR_DATA_TYPE_FLOAT64 == 9 &&
                   DML_TENSOR_DATA_TYPE_UINT64 == 10 && DML_TENSOR_DATA_TYPE_INT64 == 11,
               "DML_TENSOR_DATA_TYPE");
_Static_assert(DML_TENSOR_TYPE_INVALID == 0 && DML_TENSOR_TYPE_BUFFER == 1, "DML_TENSOR_TYPE");
_Static_assert(DML_TENSOR_FLAG_NONE == 0 && DML_TENSOR_FLAG_OWNED_BY_DML == 1, "DML_TENSOR_FLAGS");
_Static_assert(DML_FEATURE_LEVEL_1_0 == 0x1000 && DML_FEATURE_LEVEL_5_0 == 0x5000 && DML_FEATURE_LEVEL_5_1 == 0x5100 &&
                   DML_FEATURE_LEVEL_6_4 == 0x6400,
               "DML_FEATURE_LEVEL");
_Static_assert(DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT == 0 && DML_FEATURE_FEATURE_LEVELS == 1, "DML_FEATURE");
_Static_assert(DML_EXECUTION_FLAG_NONE == 0 && DML_EXECUTION_FLAG_ALLOW_HALF_PRECISION_COMPUTATION == 1 &&
                   DML_EXECUTION_FLAG_DISABLE_META_COMMANDS == 2 && DML_EXECUTION_FLAG_DESCRIPTORS_VOLATILE == 4,
               "DML_EXECUTION_FLAGS");
_Static_assert(DML_CREATE_DEVICE_FLAG_NONE == 0 && DML_CREATE_DEVICE_FLAG_DEBUG == 1, "DML_CREATE_DEVICE_FLAGS");
_Static_assert(DML_BINDING_TYPE_NONE == 0 && DML_BINDING_TYPE_BUFFER == 1 && DML_BINDING_TYPE_BUFFER_ARRAY == 2,
               "DML_BINDING_TYPE");
_Static_assert(DML_OPERATOR_INVALID == 0 && DML_OPERATOR_ELEMENT_WISE_IDENTITY == 1 && DML_OPERATOR_SLICE == 60 &&
                   DML_OPERATOR_REVERSE_SUBSEQUENCES == 106 && DML_OPERATOR_SLICE1 == 111 &&
                   DML_OPERATOR_UNFOLD == 177,
               "DML_OPERATOR_TYPE");
_Static_assert(DML_TENSOR_DIMENSION_COUNT_MAX1 == 8 && DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT == 16 &&
                   DML_TEMPORARY_BUFFER_ALIGNMENT == 256 && DML_PERSISTENT_BUFFER_ALIGNMENT == 256,
               "constants");

/* DirectML's field order. */
#define IN_ORDER(T, a, b) (offsetof(T, a) < offsetof(T, b))
_Static_assert(IN_ORDER(DML_BUFFER_TENSOR_DESC, DataType, Flags) && IN_ORDER(DML_BUFFER_TENSOR_DESC, Flags, DimensionCount) &&
                   IN_ORDER(DML_BUFFER_TENSOR_DESC, DimensionCount, Sizes) &&
                   IN_ORDER(DML_BUFFER_TENSOR_DESC, Sizes, Strides) &&
                   IN_ORDER(DML_BUFFER_TENSOR_DESC, Strides, TotalTensorSizeInBytes) &&
                   IN_ORDER(DML_BUFFER_TENSOR_DESC, TotalTensorSizeInBytes, GuaranteedBaseOffsetAlignment),
               "DML_BUFFER_TENSOR_DESC order");
_Static_assert(IN_ORDER(DML_TENSOR_DESC, Type, Desc) && IN_ORDER(DML_OPERATOR_DESC, Type, Desc), "desc order");
_Static_assert(IN_ORDER(DML_SLICE1_OPERATOR_DESC, InputTensor, OutputTensor) &&
                   IN_ORDER(DML_SLICE1_OPERATOR_DESC, OutputTensor, DimensionCount) &&
                   IN_ORDER(DML_SLICE1_OPERATOR_DESC, DimensionCount, InputWindowOffsets) &&
                   IN_ORDER(DML_SLICE1_OPERATOR_DESC, InputWindowOffsets, InputWindowSizes) &&
                   IN_ORDER(DML_SLICE1_OPERATOR_DESC, InputWindowSizes, InputWindowStrides),
               "DML_SLICE1_OPERATOR_DESC order");
_Static_assert(IN_ORDER(DML_SLICE_OPERATOR_DESC, DimensionCount, Offsets) && IN_ORDER(DML_SLICE_OPERATOR_DESC, Offsets, Sizes) &&
                   IN_ORDER(DML_SLICE_OPERATOR_DESC, Sizes, Strides),
               "DML_SLICE_OPERATOR_DESC order");
_Static_assert(IN_ORDER(DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC, InputTensor, SequenceLengthsTensor) &&
                   IN_ORDER(DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC, SequenceLengthsTensor, OutputTensor) &&
                   IN_ORDER(DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC, OutputTensor, Axis),
               "DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC order");
_Static_assert(IN_ORDER(DML_TILE_OPERATOR_DESC, InputTensor, OutputTensor) &&
                   IN_ORDER(DML_TILE_OPERATOR_DESC, OutputTensor, RepeatsCount) &&
                   IN_ORDER(DML_TILE_OPERATOR_DESC, RepeatsCount, Repeats) && DML_OPERATOR_TILE == 70,
               "DML_TILE_OPERATOR_DESC order");
_Static_assert(IN_ORDER(DML_SPACE_TO_DEPTH_OPERATOR_DESC, InputTensor, OutputTensor) &&
                   IN_ORDER(DML_SPACE_TO_DEPTH_OPERATOR_DESC, OutputTensor, BlockSize) &&
                   IN_ORDER(DML_DEPTH_TO_SPACE_OPERATOR_DESC, InputTensor, OutputTensor) &&
                   IN_ORDER(DML_DEPTH_TO_SPACE_OPERATOR_DESC, OutputTensor, BlockSize) &&
                   DML_OPERATOR_SPACE_TO_DEPTH == 68 && DML_OPERATOR_DEPTH_TO_SPACE == 69,
               "DML_SPACE_TO_DEPTH / DML_DEPTH_TO_SPACE_OPERATOR_DESC order");
_Static_assert(IN_ORDER(DML_DEPTH_TO_SPACE1_OPERATOR_DESC, InputTensor, OutputTensor) &&
                   IN_ORDER(DML_DEPTH_TO_SPACE1_OPERATOR_DESC, OutputTensor, BlockSize) &&
                   IN_ORDER(DML_DEPTH_TO_SPACE1_OPERATOR_DESC, BlockSize, Order) &&
                   IN_ORDER(DML_SPACE_TO_DEPTH1_OPERATOR_DESC, InputTensor, OutputTensor) &&
                   IN_ORDER(DML_SPACE_TO_DEPTH1_OPERATOR_DESC, OutputTensor, BlockSize) &&
                   IN_ORDER(DML_SPACE_TO_DEPTH1_OPERATOR_DESC, BlockSize, Order) &&
                   DML_OPERATOR_DEPTH_TO_SPACE1 == 113 && DML_OPERATOR_SPACE_TO_DEPTH1 == 114 &&
                   DML_DEPTH_SPACE_ORDER_DEPTH_COLUMN_ROW == 0 && DML_DEPTH_SPACE_ORDER_COLUMN_ROW_DEPTH == 1 &&
                   sizeof(DML_DEPTH_SPACE_ORDER) == 4,
               "DML_DEPTH_TO_SPACE1 / DML_SPACE_TO_DEPTH1_OPERATOR_DESC order");
/* The data-dependent descs, at DirectML's offsets (LP64: pointers 8 bytes, UINT 4). */
#define P(k) ((k) * sizeof(void*))
_Static_assert(offsetof(DML_GATHER_OPERATOR_DESC, IndicesTensor) == P(1) &&
                   offsetof(DML_GATHER_OPERATOR_DESC, Axis) == P(3) &&
                   offsetof(DML_GATHER_OPERATOR_DESC, IndexDimensions) == P(3) + 4 &&
                   offsetof(DML_GATHER_ELEMENTS_OPERATOR_DESC, Axis) == P(3) &&
                   offsetof(DML_GATHER_ND_OPERATOR_DESC, IndicesDimensionCount) == P(3) + 4 &&
                   offsetof(DML_GATHER_ND1_OPERATOR_DESC, BatchDimensionCount) == P(3) + 8 &&
                   offsetof(DML_SCATTER_OPERATOR_DESC, UpdatesTensor) == P(2) &&
                   offsetof(DML_SCATTER_OPERATOR_DESC, Axis) == P(4) &&
                   offsetof(DML_SCATTER_ND_OPERATOR_DESC, IndicesDimensionCount) == P(4) + 4 &&
                   offsetof(DML_ONE_HOT_OPERATOR_DESC, ValuesTensor) == P(1) &&
                   offsetof(DML_ONE_HOT_OPERATOR_DESC, Axis) == P(3) &&
                   offsetof(DML_ELEMENT_WISE_IF_OPERATOR_DESC, BTensor) == P(2) &&
                   offsetof(DML_ELEMENT_WISE_IF_OPERATOR_DESC, OutputTensor) == P(3) &&
                   SAME_TYPE((DML_SCATTER_ELEMENTS_OPERATOR_DESC*)0, DML_SCATTER_OPERATOR_DESC*),
               "data-dependent desc layouts");
_Static_assert(DML_OPERATOR_GATHER == 67 && DML_OPERATOR_ELEMENT_WISE_IF == 88 && DML_OPERATOR_SCATTER_ELEMENTS == 94 &&
                   DML_OPERATOR_SCATTER == 94 && DML_OPERATOR_ONE_HOT == 95 && DML_OPERATOR_GATHER_ELEMENTS == 107 &&
                   DML_OPERATOR_GATHER_ND == 108 && DML_OPERATOR_SCATTER_ND == 109 && DML_OPERATOR_GATHER_ND1 == 140,
               "data-dependent operator values");
#undef P
_Static_assert(IN_ORDER(DML_BINDING_PROPERTIES, RequiredDescriptorCount, TemporaryResourceSize) &&
                   IN_ORDER(DML_BINDING_PROPERTIES, TemporaryResourceSize, PersistentResourceSize),
               "DML_BINDING_PROPERTIES order");
_Static_assert(IN_ORDER(DML_BUFFER_BINDING, Buffer, Offset) && IN_ORDER(DML_BUFFER_BINDING, Offset, SizeInBytes),
               "DML_BUFFER_BINDING order");
_Static_assert(IN_ORDER(DML_DEVICE_DESC, Backend, AdapterIndex) && IN_ORDER(DML_DEVICE_DESC, AdapterIndex, Flags) &&
                   IN_ORDER(DML_DEVICE_DESC, Flags, MinimumFeatureLevel),
               "DML_DEVICE_DESC order");
/* The growable structs begin with Size (dml.h). */
_Static_assert(offsetof(DML_DEVICE_DESC, Size) == 0 && offsetof(DML_ADAPTER_INFO, Size) == 0 &&
                   offsetof(DML_PLUGIN_INFO, Size) == 0 && SAME_TYPE(((DML_DEVICE_DESC*)0)->Size, UINT),
               "Size first");

int main(void)
{
    /* Field types. */
    DML_SLICE1_OPERATOR_DESC s1 = { 0 };
    DML_SLICE_OPERATOR_DESC s = { 0 };
    DML_BUFFER_BINDING bb = { 0 };
    int ok = SAME_TYPE(s1.InputWindowStrides, const int32_t*) && SAME_TYPE(s1.InputWindowOffsets, const uint32_t*) &&
             SAME_TYPE(s.Strides, const uint32_t*) && SAME_TYPE(bb.Buffer, DMLBuffer) &&
             SAME_TYPE(bb.Offset, uint64_t);
    if (!ok) {
        fprintf(stderr, "field types differ from the spec\n");
        return EXIT_FAILURE;
    }

    /* Signatures (a mismatch is a compile error under -pedantic-errors). */
    DML_RESULT (*create_device)(const DML_DEVICE_DESC*, DMLDevice*) = dmlCreateDevice;
    DML_RESULT (*check_feature)(DMLDevice, DML_FEATURE, uint32_t, const void*, uint32_t, void*) =
        dmlDeviceCheckFeatureSupport;
    DML_RESULT (*record)(DMLCommandRecorder, DMLCommandQueue, DMLDispatchable, DMLBindingTable) =
        dmlCommandRecorderRecordDispatch;
    uint64_t (*calc)(DML_TENSOR_DATA_TYPE, uint32_t, const uint32_t*, const uint32_t*) = DMLCalcBufferTensorSize;
    uint32_t (*release)(void*) = dmlRelease;
    const char* (*last)(void) = dmlGetLastErrorMessage;
    DML_BINDING_PROPERTIES (*props)(DMLDispatchable) = dmlDispatchableGetBindingProperties;
    (void)create_device;
    (void)check_feature;
    (void)record;
    (void)props;

    /* Compiled operators and initializers convert to DMLDispatchable without a cast. */
    DMLCompiledOperator c = NULL;
    DMLOperatorInitializer i = NULL;
    DML_BINDING_TABLE_DESC td = { c };
    td.Dispatchable = i;
    (void)td;

    /* And it links. */
    static const uint32_t sizes[2] = { 3, 5 };
    if (calc(DML_TENSOR_DATA_TYPE_FLOAT16, 2, sizes, NULL) != 32) {
        fprintf(stderr, "DMLCalcBufferTensorSize(FLOAT16, {3,5}) != 32\n");
        return EXIT_FAILURE;
    }
    if (release(NULL) != 0 || last() == NULL) {
        fprintf(stderr, "dmlRelease(NULL) != 0 or dmlGetLastErrorMessage() == NULL\n");
        return EXIT_FAILURE;
    }
    printf("test_api_header_c11: OK\n");
    return EXIT_SUCCESS;
}

/*
 * dml.h — the public C ABI of the DirectML-compatible operator runtime.
 *
 * DirectML's object model (device, operator, compiled operator, initializer,
 * binding table, command recorder) as flat C functions, with DirectML's type
 * names and numeric values. The documentation for host authors is the
 * project's docs/ (installed as share/doc/dml/): docs/README.md to start,
 * docs/contract.md for every rule a host must follow (alignment, overlap,
 * blocking, threading, errors) with its reason, docs/operators.md for the
 * operators, docs/troubleshooting.md by error message. The comments below
 * summarise what each call does.
 *
 * Conventions
 *  - Every function returning DML_RESULT leaves its out-parameters untouched on
 *    failure, changes no state, and sets a thread-local message readable with
 *    dmlGetLastErrorMessage() naming the call, the object, the field and the rule.
 *    Successful calls leave the message as it was (like errno).
 *  - Objects are reference-counted; each keeps its device alive (and a compiled
 *    operator its operator). dmlRelease(NULL) is a no-op.
 *  - A device and creating objects from it are thread-safe; one binding table,
 *    recorder or queue is used by one thread at a time (as in DirectML).
 */
#ifndef DML_DML_H
#define DML_DML_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(DML_BUILDING_LIBRARY)
#define DML_API __attribute__((visibility("default")))
#else
#define DML_API
#endif

/* The ABI version this header declares; dmlGetVersion gives the loaded
 * runtime's. A host built against MAJOR.MINOR runs on any runtime of the same
 * MAJOR and a MINOR at least as high.
 *   DML_ABI_VERSION_MINOR is bumped for every append to the ABI: a function
 *   (in a new symbol-version node DML_MAJOR.MINOR of src/dispatcher/libdml.map),
 *   a member of a growable struct, an entry of the plugin table (dml_plugin.h).
 *   Nothing is ever removed or changed; that would be a new MAJOR.
 * History: 1.0 the first release; 1.1 dmlGetVersion, DML_VERSION_INFO. */
#define DML_ABI_VERSION_MAJOR 1
#define DML_ABI_VERSION_MINOR 1

/* ---- Scalar types (DirectML's names) ---------------------------------- */
typedef uint32_t UINT;
typedef int32_t INT;
typedef uint64_t UINT64;
typedef int32_t BOOL;
typedef float FLOAT;

/* ---- Results ---------------------------------------------------------- */
typedef int32_t DML_RESULT;
#define DML_SUCCEEDED(r) ((DML_RESULT)(r) >= 0)
#define DML_FAILED(r) ((DML_RESULT)(r) < 0)

#define DML_S_OK ((DML_RESULT)0)
#define DML_E_INVALIDARG ((DML_RESULT)0x80070057u)
#define DML_E_OUTOFMEMORY ((DML_RESULT)0x8007000Eu)
#define DML_E_NOTIMPL ((DML_RESULT)0x80004001u)
#define DML_E_INVALID_CALL ((DML_RESULT)0x887A0001u)
#define DML_E_UNSUPPORTED ((DML_RESULT)0x887A0004u)
#define DML_E_DEVICE_REMOVED ((DML_RESULT)0x887A0005u)

/* ---- Constants -------------------------------------------------------- */
#define DML_TENSOR_DIMENSION_COUNT_MAX 5
#define DML_TENSOR_DIMENSION_COUNT_MAX1 8
#define DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT 16
#define DML_TEMPORARY_BUFFER_ALIGNMENT 256
#define DML_PERSISTENT_BUFFER_ALIGNMENT 256

/* ---- Enumerations ----------------------------------------------------- */
typedef enum DML_TENSOR_DATA_TYPE {
    DML_TENSOR_DATA_TYPE_UNKNOWN = 0,
    DML_TENSOR_DATA_TYPE_FLOAT32 = 1,
    DML_TENSOR_DATA_TYPE_FLOAT16 = 2,
    DML_TENSOR_DATA_TYPE_UINT32 = 3,
    DML_TENSOR_DATA_TYPE_UINT16 = 4,
    DML_TENSOR_DATA_TYPE_UINT8 = 5,
    DML_TENSOR_DATA_TYPE_INT32 = 6,
    DML_TENSOR_DATA_TYPE_INT16 = 7,
    DML_TENSOR_DATA_TYPE_INT8 = 8,
    DML_TENSOR_DATA_TYPE_FLOAT64 = 9,
    DML_TENSOR_DATA_TYPE_UINT64 = 10,
    DML_TENSOR_DATA_TYPE_INT64 = 11,
} DML_TENSOR_DATA_TYPE;

typedef enum DML_TENSOR_TYPE {
    DML_TENSOR_TYPE_INVALID = 0,
    DML_TENSOR_TYPE_BUFFER = 1,
} DML_TENSOR_TYPE;

typedef enum DML_TENSOR_FLAGS {
    DML_TENSOR_FLAG_NONE = 0x0,
    DML_TENSOR_FLAG_OWNED_BY_DML = 0x1,
} DML_TENSOR_FLAGS;

typedef enum DML_FEATURE_LEVEL {
    DML_FEATURE_LEVEL_1_0 = 0x1000,
    DML_FEATURE_LEVEL_2_0 = 0x2000,
    DML_FEATURE_LEVEL_2_1 = 0x2100,
    DML_FEATURE_LEVEL_3_0 = 0x3000,
    DML_FEATURE_LEVEL_3_1 = 0x3100,
    DML_FEATURE_LEVEL_4_0 = 0x4000,
    DML_FEATURE_LEVEL_4_1 = 0x4100,
    DML_FEATURE_LEVEL_5_0 = 0x5000,
    DML_FEATURE_LEVEL_5_1 = 0x5100,
    DML_FEATURE_LEVEL_5_2 = 0x5200,
    DML_FEATURE_LEVEL_6_0 = 0x6000,
    DML_FEATURE_LEVEL_6_1 = 0x6100,
    DML_FEATURE_LEVEL_6_2 = 0x6200,
    DML_FEATURE_LEVEL_6_3 = 0x6300,
    DML_FEATURE_LEVEL_6_4 = 0x6400,
} DML_FEATURE_LEVEL;

typedef enum DML_FEATURE {
    DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT = 0,
    DML_FEATURE_FEATURE_LEVELS = 1,
} DML_FEATURE;

typedef enum DML_EXECUTION_FLAGS {
    DML_EXECUTION_FLAG_NONE = 0,
    DML_EXECUTION_FLAG_ALLOW_HALF_PRECISION_COMPUTATION = 0x1,
    DML_EXECUTION_FLAG_DISABLE_META_COMMANDS = 0x2,
    DML_EXECUTION_FLAG_DESCRIPTORS_VOLATILE = 0x4,
} DML_EXECUTION_FLAGS;

typedef enum DML_CREATE_DEVICE_FLAGS {
    DML_CREATE_DEVICE_FLAG_NONE = 0,
    DML_CREATE_DEVICE_FLAG_DEBUG = 0x1,
} DML_CREATE_DEVICE_FLAGS;

typedef enum DML_BINDING_TYPE {
    DML_BINDING_TYPE_NONE = 0,
    DML_BINDING_TYPE_BUFFER = 1,
    DML_BINDING_TYPE_BUFFER_ARRAY = 2,
} DML_BINDING_TYPE;

/* DirectML's full operator list (values fixed by DirectML). This runtime
 * implements ELEMENT_WISE_IDENTITY, SLICE, REVERSE_SUBSEQUENCES and SLICE1; any other valid type gives
 * DML_E_NOTIMPL, a value outside this list DML_E_INVALIDARG. */
typedef enum DML_OPERATOR_TYPE {
    DML_OPERATOR_INVALID = 0,
    DML_OPERATOR_ELEMENT_WISE_IDENTITY = 1,
    DML_OPERATOR_ELEMENT_WISE_ABS = 2,
    DML_OPERATOR_ELEMENT_WISE_ACOS = 3,
    DML_OPERATOR_ELEMENT_WISE_ADD = 4,
    DML_OPERATOR_ELEMENT_WISE_ASIN = 5,
    DML_OPERATOR_ELEMENT_WISE_ATAN = 6,
    DML_OPERATOR_ELEMENT_WISE_CEIL = 7,
    DML_OPERATOR_ELEMENT_WISE_CLIP = 8,
    DML_OPERATOR_ELEMENT_WISE_COS = 9,
    DML_OPERATOR_ELEMENT_WISE_DIVIDE = 10,
    DML_OPERATOR_ELEMENT_WISE_EXP = 11,
    DML_OPERATOR_ELEMENT_WISE_FLOOR = 12,
    DML_OPERATOR_ELEMENT_WISE_LOG = 13,
    DML_OPERATOR_ELEMENT_WISE_LOGICAL_AND = 14,
    DML_OPERATOR_ELEMENT_WISE_LOGICAL_EQUALS = 15,
    DML_OPERATOR_ELEMENT_WISE_LOGICAL_GREATER_THAN = 16,
    DML_OPERATOR_ELEMENT_WISE_LOGICAL_LESS_THAN = 17,
    DML_OPERATOR_ELEMENT_WISE_LOGICAL_NOT = 18,
    DML_OPERATOR_ELEMENT_WISE_LOGICAL_OR = 19,
    DML_OPERATOR_ELEMENT_WISE_LOGICAL_XOR = 20,
    DML_OPERATOR_ELEMENT_WISE_MAX = 21,
    DML_OPERATOR_ELEMENT_WISE_MEAN = 22,
    DML_OPERATOR_ELEMENT_WISE_MIN = 23,
    DML_OPERATOR_ELEMENT_WISE_MULTIPLY = 24,
    DML_OPERATOR_ELEMENT_WISE_POW = 25,
    DML_OPERATOR_ELEMENT_WISE_CONSTANT_POW = 26,
    DML_OPERATOR_ELEMENT_WISE_RECIP = 27,
    DML_OPERATOR_ELEMENT_WISE_SIN = 28,
    DML_OPERATOR_ELEMENT_WISE_SQRT = 29,
    DML_OPERATOR_ELEMENT_WISE_SUBTRACT = 30,
    DML_OPERATOR_ELEMENT_WISE_TAN = 31,
    DML_OPERATOR_ELEMENT_WISE_THRESHOLD = 32,
    DML_OPERATOR_ELEMENT_WISE_QUANTIZE_LINEAR = 33,
    DML_OPERATOR_ELEMENT_WISE_DEQUANTIZE_LINEAR = 34,
    DML_OPERATOR_ACTIVATION_ELU = 35,
    DML_OPERATOR_ACTIVATION_HARDMAX = 36,
    DML_OPERATOR_ACTIVATION_HARD_SIGMOID = 37,
    DML_OPERATOR_ACTIVATION_IDENTITY = 38,
    DML_OPERATOR_ACTIVATION_LEAKY_RELU = 39,
    DML_OPERATOR_ACTIVATION_LINEAR = 40,
    DML_OPERATOR_ACTIVATION_LOG_SOFTMAX = 41,
    DML_OPERATOR_ACTIVATION_PARAMETERIZED_RELU = 42,
    DML_OPERATOR_ACTIVATION_PARAMETRIC_SOFTPLUS = 43,
    DML_OPERATOR_ACTIVATION_RELU = 44,
    DML_OPERATOR_ACTIVATION_SCALED_ELU = 45,
    DML_OPERATOR_ACTIVATION_SCALED_TANH = 46,
    DML_OPERATOR_ACTIVATION_SIGMOID = 47,
    DML_OPERATOR_ACTIVATION_SOFTMAX = 48,
    DML_OPERATOR_ACTIVATION_SOFTPLUS = 49,
    DML_OPERATOR_ACTIVATION_SOFTSIGN = 50,
    DML_OPERATOR_ACTIVATION_TANH = 51,
    DML_OPERATOR_ACTIVATION_THRESHOLDED_RELU = 52,
    DML_OPERATOR_CONVOLUTION = 53,
    DML_OPERATOR_GEMM = 54,
    DML_OPERATOR_REDUCE = 55,
    DML_OPERATOR_AVERAGE_POOLING = 56,
    DML_OPERATOR_LP_POOLING = 57,
    DML_OPERATOR_MAX_POOLING = 58,
    DML_OPERATOR_ROI_POOLING = 59,
    DML_OPERATOR_SLICE = 60,
    DML_OPERATOR_CAST = 61,
    DML_OPERATOR_SPLIT = 62,
    DML_OPERATOR_JOIN = 63,
    DML_OPERATOR_PADDING = 64,
    DML_OPERATOR_VALUE_SCALE_2D = 65,
    DML_OPERATOR_UPSAMPLE_2D = 66,
    DML_OPERATOR_GATHER = 67,
    DML_OPERATOR_SPACE_TO_DEPTH = 68,
    DML_OPERATOR_DEPTH_TO_SPACE = 69,
    DML_OPERATOR_TILE = 70,
    DML_OPERATOR_TOP_K = 71,
    DML_OPERATOR_BATCH_NORMALIZATION = 72,
    DML_OPERATOR_MEAN_VARIANCE_NORMALIZATION = 73,
    DML_OPERATOR_LOCAL_RESPONSE_NORMALIZATION = 74,
    DML_OPERATOR_LP_NORMALIZATION = 75,
    DML_OPERATOR_RNN = 76,
    DML_OPERATOR_LSTM = 77,
    DML_OPERATOR_GRU = 78,
    DML_OPERATOR_ELEMENT_WISE_SIGN = 79,
    DML_OPERATOR_ELEMENT_WISE_IS_NAN = 80,
    DML_OPERATOR_ELEMENT_WISE_ERF = 81,
    DML_OPERATOR_ELEMENT_WISE_SINH = 82,
    DML_OPERATOR_ELEMENT_WISE_COSH = 83,
    DML_OPERATOR_ELEMENT_WISE_TANH = 84,
    DML_OPERATOR_ELEMENT_WISE_ASINH = 85,
    DML_OPERATOR_ELEMENT_WISE_ACOSH = 86,
    DML_OPERATOR_ELEMENT_WISE_ATANH = 87,
    DML_OPERATOR_ELEMENT_WISE_IF = 88,
    DML_OPERATOR_ELEMENT_WISE_ADD1 = 89,
    DML_OPERATOR_ACTIVATION_SHRINK = 90,
    DML_OPERATOR_MAX_POOLING1 = 91,
    DML_OPERATOR_MAX_UNPOOLING = 92,
    DML_OPERATOR_DIAGONAL_MATRIX = 93,
    DML_OPERATOR_SCATTER_ELEMENTS = 94,
    DML_OPERATOR_SCATTER = 94, /* DirectML's alias */
    DML_OPERATOR_ONE_HOT = 95,
    DML_OPERATOR_RESAMPLE = 96,
    DML_OPERATOR_ELEMENT_WISE_BIT_SHIFT_LEFT = 97,
    DML_OPERATOR_ELEMENT_WISE_BIT_SHIFT_RIGHT = 98,
    DML_OPERATOR_ELEMENT_WISE_ROUND = 99,
    DML_OPERATOR_ELEMENT_WISE_IS_INFINITY = 100,
    DML_OPERATOR_ELEMENT_WISE_MODULUS_TRUNCATE = 101,
    DML_OPERATOR_ELEMENT_WISE_MODULUS_FLOOR = 102,
    DML_OPERATOR_FILL_VALUE_CONSTANT = 103,
    DML_OPERATOR_FILL_VALUE_SEQUENCE = 104,
    DML_OPERATOR_CUMULATIVE_SUMMATION = 105,
    DML_OPERATOR_REVERSE_SUBSEQUENCES = 106,
    DML_OPERATOR_GATHER_ELEMENTS = 107,
    DML_OPERATOR_GATHER_ND = 108,
    DML_OPERATOR_SCATTER_ND = 109,
    DML_OPERATOR_MAX_POOLING2 = 110,
    DML_OPERATOR_SLICE1 = 111,
    DML_OPERATOR_TOP_K1 = 112,
    DML_OPERATOR_DEPTH_TO_SPACE1 = 113,
    DML_OPERATOR_SPACE_TO_DEPTH1 = 114,
    DML_OPERATOR_MEAN_VARIANCE_NORMALIZATION1 = 115,
    DML_OPERATOR_RESAMPLE1 = 116,
    DML_OPERATOR_MATRIX_MULTIPLY_INTEGER = 117,
    DML_OPERATOR_QUANTIZED_LINEAR_MATRIX_MULTIPLY = 118,
    DML_OPERATOR_CONVOLUTION_INTEGER = 119,
    DML_OPERATOR_QUANTIZED_LINEAR_CONVOLUTION = 120,
    DML_OPERATOR_ELEMENT_WISE_BIT_AND = 121,
    DML_OPERATOR_ELEMENT_WISE_BIT_OR = 122,
    DML_OPERATOR_ELEMENT_WISE_BIT_XOR = 123,
    DML_OPERATOR_ELEMENT_WISE_BIT_NOT = 124,
    DML_OPERATOR_ELEMENT_WISE_BIT_COUNT = 125,
    DML_OPERATOR_ELEMENT_WISE_LOGICAL_GREATER_THAN_OR_EQUAL = 126,
    DML_OPERATOR_ELEMENT_WISE_LOGICAL_LESS_THAN_OR_EQUAL = 127,
    DML_OPERATOR_ACTIVATION_CELU = 128,
    DML_OPERATOR_ACTIVATION_RELU_GRAD = 129,
    DML_OPERATOR_AVERAGE_POOLING_GRAD = 130,
    DML_OPERATOR_MAX_POOLING_GRAD = 131,
    DML_OPERATOR_RANDOM_GENERATOR = 132,
    DML_OPERATOR_NONZERO_COORDINATES = 133,
    DML_OPERATOR_RESAMPLE_GRAD = 134,
    DML_OPERATOR_SLICE_GRAD = 135,
    DML_OPERATOR_ADAM_OPTIMIZER = 136,
    DML_OPERATOR_ARGMIN = 137,
    DML_OPERATOR_ARGMAX = 138,
    DML_OPERATOR_ROI_ALIGN = 139,
    DML_OPERATOR_GATHER_ND1 = 140,
    DML_OPERATOR_ELEMENT_WISE_ATAN_YX = 141,
    DML_OPERATOR_ELEMENT_WISE_CLIP_GRAD = 142,
    DML_OPERATOR_ELEMENT_WISE_DIFFERENCE_SQUARE = 143,
    DML_OPERATOR_LOCAL_RESPONSE_NORMALIZATION_GRAD = 144,
    DML_OPERATOR_CUMULATIVE_PRODUCT = 145,
    DML_OPERATOR_BATCH_NORMALIZATION_GRAD = 146,
    DML_OPERATOR_ELEMENT_WISE_QUANTIZED_LINEAR_ADD = 147,
    DML_OPERATOR_DYNAMIC_QUANTIZE_LINEAR = 148,
    DML_OPERATOR_ROI_ALIGN1 = 149,
    DML_OPERATOR_ROI_ALIGN_GRAD = 150,
    DML_OPERATOR_BATCH_NORMALIZATION_TRAINING = 151,
    DML_OPERATOR_BATCH_NORMALIZATION_TRAINING_GRAD = 152,
    DML_OPERATOR_ELEMENT_WISE_CLIP1 = 153,
    DML_OPERATOR_ELEMENT_WISE_CLIP_GRAD1 = 154,
    DML_OPERATOR_PADDING1 = 155,
    DML_OPERATOR_ELEMENT_WISE_NEGATE = 156,
    DML_OPERATOR_ACTIVATION_GELU = 157,
    DML_OPERATOR_ACTIVATION_SOFTMAX1 = 158,
    DML_OPERATOR_ACTIVATION_LOG_SOFTMAX1 = 159,
    DML_OPERATOR_ACTIVATION_HARDMAX1 = 160,
    DML_OPERATOR_RESAMPLE2 = 161,
    DML_OPERATOR_RESAMPLE_GRAD1 = 162,
    DML_OPERATOR_DIAGONAL_MATRIX1 = 163,
    DML_OPERATOR_MULTIHEAD_ATTENTION = 164,
    DML_OPERATOR_LP_POOLING1 = 165,
    DML_OPERATOR_AVERAGE_POOLING1 = 166,
    DML_OPERATOR_ACTIVATION_SWISH = 167,
    DML_OPERATOR_ACTIVATION_HARD_SWISH = 168,
    DML_OPERATOR_QUANTIZED_LINEAR_AVERAGE_POOLING = 169,
    DML_OPERATOR_MATRIX_MULTIPLY_INTEGER_TO_FLOAT = 170,
    DML_OPERATOR_MEAN_VARIANCE_NORMALIZATION2 = 171,
    DML_OPERATOR_MULTIHEAD_ATTENTION1 = 172,
    DML_OPERATOR_QUANTIZE = 173,
    DML_OPERATOR_DEQUANTIZE = 174,
    DML_OPERATOR_RESAMPLE3 = 175,
    DML_OPERATOR_FOLD = 176,
    DML_OPERATOR_UNFOLD = 177,
} DML_OPERATOR_TYPE;

#define DML_OPERATOR_TYPE_LAST DML_OPERATOR_UNFOLD

/* ---- Handles ---------------------------------------------------------- */
typedef struct DMLDevice_T* DMLDevice;
typedef struct DMLOperator_T* DMLOperator;
typedef struct DMLCompiledOperator_T* DMLCompiledOperator;
typedef struct DMLOperatorInitializer_T* DMLOperatorInitializer;
typedef struct DMLBindingTable_T* DMLBindingTable;
typedef struct DMLCommandRecorder_T* DMLCommandRecorder;
typedef struct DMLCommandQueue_T* DMLCommandQueue;
typedef struct DMLBuffer_T* DMLBuffer;
/* A compiled operator or an operator initializer. A void pointer, so either
 * handle converts to it without a cast in C and in C++. */
typedef void* DMLDispatchable;

/* ---- Tensor and operator descs (DirectML's fields and order) ----------- */
typedef struct DML_BUFFER_TENSOR_DESC {
    DML_TENSOR_DATA_TYPE DataType;
    DML_TENSOR_FLAGS Flags;
    UINT DimensionCount;
    const UINT* Sizes;
    const UINT* Strides; /* NULL: packed row-major. In elements; 0 broadcasts (inputs only). */
    UINT64 TotalTensorSizeInBytes;
    UINT GuaranteedBaseOffsetAlignment;
} DML_BUFFER_TENSOR_DESC;

typedef struct DML_TENSOR_DESC {
    DML_TENSOR_TYPE Type;
    const void* Desc;
} DML_TENSOR_DESC;

typedef struct DML_OPERATOR_DESC {
    DML_OPERATOR_TYPE Type;
    const void* Desc;
} DML_OPERATOR_DESC;

typedef struct DML_SLICE_OPERATOR_DESC {
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* OutputTensor;
    UINT DimensionCount;
    const UINT* Offsets;
    const UINT* Sizes;
    const UINT* Strides;
} DML_SLICE_OPERATOR_DESC;

typedef struct DML_SLICE1_OPERATOR_DESC {
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* OutputTensor;
    UINT DimensionCount;
    const UINT* InputWindowOffsets;
    const UINT* InputWindowSizes;
    const INT* InputWindowStrides;
} DML_SLICE1_OPERATOR_DESC;

typedef struct DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC {
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* SequenceLengthsTensor;
    const DML_TENSOR_DESC* OutputTensor;
    UINT Axis;
} DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC;

/* Output = Input * Scale + Bias, for floating-point tensors only (float16 is
 * computed in float32 and rounded once, to nearest even). */
typedef struct DML_SCALE_BIAS {
    FLOAT Scale;
    FLOAT Bias;
} DML_SCALE_BIAS;

/* Output[c] = Input[c] (with ScaleBias: Input[c] * Scale + Bias). Same data
 * type and sizes; strides are free, so it expresses copies, transposes,
 * reshapes and broadcasts. ScaleBias NULL: any data type. */
typedef struct DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC {
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* OutputTensor;
    const DML_SCALE_BIAS* ScaleBias;
} DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC;

/* Output[c] = Input[c mod Input.Sizes] (per dimension): the input repeated
 * Repeats[i] times along each dimension i. RepeatsCount is the DimensionCount
 * of both tensors, Repeats[i] >= 1, Output.Sizes[i] = Input.Sizes[i] *
 * Repeats[i], same data type (any). */
typedef struct DML_TILE_OPERATOR_DESC {
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* OutputTensor;
    UINT RepeatsCount;
    const UINT* Repeats; /* RepeatsCount values */
} DML_TILE_OPERATOR_DESC;

/* DEPTH_TO_SPACE (DEPTH_COLUMN_ROW order) and SPACE_TO_DEPTH, its inverse:
 * 4-D {N, C, H, W} tensors, BlockSize >= 1, same data type (any).
 * DEPTH_TO_SPACE: Output.Sizes = {N, C / (B*B), H * B, W * B}, C a multiple
 * of B*B; SPACE_TO_DEPTH: Output.Sizes = {N, C * B*B, H / B, W / B}, H and W
 * multiples of B. */
typedef struct DML_SPACE_TO_DEPTH_OPERATOR_DESC {
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* OutputTensor;
    UINT BlockSize;
} DML_SPACE_TO_DEPTH_OPERATOR_DESC;

typedef struct DML_DEPTH_TO_SPACE_OPERATOR_DESC {
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* OutputTensor;
    UINT BlockSize;
} DML_DEPTH_TO_SPACE_OPERATOR_DESC;

/* How the depth tensor's channels flatten (the space tensor is always
 * [N, C', (H, BlockHeight), (W, BlockWidth)]):
 *   DEPTH_COLUMN_ROW: [N, (BlockHeight, BlockWidth, C'), H, W] (ONNX's DCR)
 *   COLUMN_ROW_DEPTH: [N, (C', BlockHeight, BlockWidth), H, W] (ONNX's CRD) */
typedef enum DML_DEPTH_SPACE_ORDER {
    DML_DEPTH_SPACE_ORDER_DEPTH_COLUMN_ROW,
    DML_DEPTH_SPACE_ORDER_COLUMN_ROW_DEPTH,
} DML_DEPTH_SPACE_ORDER;

typedef struct DML_DEPTH_TO_SPACE1_OPERATOR_DESC {
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* OutputTensor;
    UINT BlockSize;
    DML_DEPTH_SPACE_ORDER Order;
} DML_DEPTH_TO_SPACE1_OPERATOR_DESC;

typedef struct DML_SPACE_TO_DEPTH1_OPERATOR_DESC {
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* OutputTensor;
    UINT BlockSize;
    DML_DEPTH_SPACE_ORDER Order;
} DML_SPACE_TO_DEPTH1_OPERATOR_DESC;

/* ---- Casts, joins, splits, padding and fills (issue 21) ---------------- */

/* One value of any data type, as DirectML's DML_SCALAR_UNION (8 bytes). It
 * has no float16 member: a FLOAT16 value is its 16-bit pattern in
 * Bytes[0..1]. Bytes a type does not use are ignored. */
typedef union DML_SCALAR_UNION {
    uint8_t Bytes[8];
    int8_t Int8;
    uint8_t UInt8;
    int16_t Int16;
    uint16_t UInt16;
    int32_t Int32;
    uint32_t UInt32;
    int64_t Int64;
    uint64_t UInt64;
    FLOAT Float32;
    double Float64;
} DML_SCALAR_UNION;

/* Output[c] = Input[c] converted to the output's data type (any of the
 * eleven to any): same rank and sizes. Rounding and out-of-range values
 * follow docs/operators.md, identically on every backend. */
typedef struct DML_CAST_OPERATOR_DESC {
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* OutputTensor;
} DML_CAST_OPERATOR_DESC;

/* The input cut along Axis into OutputCount >= 1 outputs: output k holds the
 * input's Axis positions [sum of the earlier outputs' Axis sizes, + its own).
 * All tensors agree on rank, data type and every size but Axis's. */
typedef struct DML_SPLIT_OPERATOR_DESC {
    const DML_TENSOR_DESC* InputTensor;
    UINT OutputCount;
    const DML_TENSOR_DESC* OutputTensors; /* OutputCount descs */
    UINT Axis;
} DML_SPLIT_OPERATOR_DESC;

/* SPLIT's mirror: InputCount >= 1 inputs concatenated along Axis. */
typedef struct DML_JOIN_OPERATOR_DESC {
    UINT InputCount;
    const DML_TENSOR_DESC* InputTensors; /* InputCount descs */
    const DML_TENSOR_DESC* OutputTensor;
    UINT Axis;
} DML_JOIN_OPERATOR_DESC;

typedef enum DML_PADDING_MODE {
    DML_PADDING_MODE_CONSTANT,
    DML_PADDING_MODE_EDGE,
    DML_PADDING_MODE_REFLECTION,
    DML_PADDING_MODE_SYMMETRIC,
} DML_PADDING_MODE;

/* Output.Sizes[i] = Input.Sizes[i] + StartPadding[i] + EndPadding[i], the
 * input at offset StartPadding, the border by PaddingMode. DimensionCount is
 * both tensors' rank. PADDING's FLOAT value is converted to the output's
 * type by CAST's rules. */
typedef struct DML_PADDING_OPERATOR_DESC {
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* OutputTensor;
    DML_PADDING_MODE PaddingMode;
    FLOAT PaddingValue;
    UINT DimensionCount;
    const UINT* StartPadding; /* DimensionCount values */
    const UINT* EndPadding;   /* DimensionCount values */
} DML_PADDING_OPERATOR_DESC;

/* PADDING with the value in the output's own type (PaddingValueDataType
 * must equal it). */
typedef struct DML_PADDING1_OPERATOR_DESC {
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* OutputTensor;
    DML_PADDING_MODE PaddingMode;
    DML_TENSOR_DATA_TYPE PaddingValueDataType;
    DML_SCALAR_UNION PaddingValue;
    UINT DimensionCount;
    const UINT* StartPadding; /* DimensionCount values */
    const UINT* EndPadding;   /* DimensionCount values */
} DML_PADDING1_OPERATOR_DESC;

/* Every output element = Value (ValueDataType equals the output's type). */
typedef struct DML_FILL_VALUE_CONSTANT_OPERATOR_DESC {
    const DML_TENSOR_DESC* OutputTensor;
    DML_TENSOR_DATA_TYPE ValueDataType;
    DML_SCALAR_UNION Value;
} DML_FILL_VALUE_CONSTANT_OPERATOR_DESC;

/* The element at row-major position k = ValueStart + k * ValueDelta, in the
 * output's type (ValueDataType equals it): integers wrap, floats round once
 * per product and sum (float16 in float32, rounded once). */
typedef struct DML_FILL_VALUE_SEQUENCE_OPERATOR_DESC {
    const DML_TENSOR_DESC* OutputTensor;
    DML_TENSOR_DATA_TYPE ValueDataType;
    DML_SCALAR_UNION ValueStart;
    DML_SCALAR_UNION ValueDelta;
} DML_FILL_VALUE_SEQUENCE_OPERATOR_DESC;

/* ---- Data-dependent data movement: positions read from a tensor --------
 * Index tensors are INT32, INT64, UINT32 or UINT64 and live in device memory:
 * they are checked at execution, never trusted. A negative signed index
 * counts from the end (i + size); gathers clamp what is still out of range
 * into it, scatters drop such updates, ONE_HOT gives an all-off sequence
 * (docs/operators.md). */

/* output[..., i..., ...] = input[..., indices[i...], ...] along Axis; the
 * last IndexDimensions dimensions of IndicesTensor replace the input's Axis
 * dimension in the output (right-aligned, leading 1s cropped or added). */
typedef struct DML_GATHER_OPERATOR_DESC {
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* IndicesTensor;
    const DML_TENSOR_DESC* OutputTensor;
    UINT Axis;
    UINT IndexDimensions;
} DML_GATHER_OPERATOR_DESC;

/* output[c] = input[c with c[Axis] = indices[c]]: IndicesTensor and
 * OutputTensor share sizes, which equal the input's except on Axis. */
typedef struct DML_GATHER_ELEMENTS_OPERATOR_DESC {
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* IndicesTensor;
    const DML_TENSOR_DESC* OutputTensor;
    UINT Axis;
} DML_GATHER_ELEMENTS_OPERATOR_DESC;

/* output[b..., i...] = input[b..., indices[b..., i..., :], ...]: the last
 * dimension of IndicesTensor holds tuples of coordinates into the input's
 * first dimensions after BatchDimensionCount batch dimensions (GATHER_ND:
 * none). InputDimensionCount and IndicesDimensionCount count the tensors'
 * meaningful (trailing) dimensions; the others are leading 1s. */
typedef struct DML_GATHER_ND_OPERATOR_DESC {
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* IndicesTensor;
    const DML_TENSOR_DESC* OutputTensor;
    UINT InputDimensionCount;
    UINT IndicesDimensionCount;
} DML_GATHER_ND_OPERATOR_DESC;

typedef struct DML_GATHER_ND1_OPERATOR_DESC {
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* IndicesTensor;
    const DML_TENSOR_DESC* OutputTensor;
    UINT InputDimensionCount;
    UINT IndicesDimensionCount;
    UINT BatchDimensionCount;
} DML_GATHER_ND1_OPERATOR_DESC;

/* Output = Input, then output[c with c[Axis] = indices[c]] = updates[c] for
 * every coordinate c of UpdatesTensor (whose sizes IndicesTensor shares). */
typedef struct DML_SCATTER_OPERATOR_DESC {
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* IndicesTensor;
    const DML_TENSOR_DESC* UpdatesTensor;
    const DML_TENSOR_DESC* OutputTensor;
    UINT Axis;
} DML_SCATTER_OPERATOR_DESC;
typedef DML_SCATTER_OPERATOR_DESC DML_SCATTER_ELEMENTS_OPERATOR_DESC; /* DirectML's alias */

/* Output = Input, then output[indices[i..., :], ...] = updates[i..., ...]:
 * GATHER_ND's mirror. */
typedef struct DML_SCATTER_ND_OPERATOR_DESC {
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* IndicesTensor;
    const DML_TENSOR_DESC* UpdatesTensor;
    const DML_TENSOR_DESC* OutputTensor;
    UINT InputDimensionCount;
    UINT IndicesDimensionCount;
} DML_SCATTER_ND_OPERATOR_DESC;

/* Along Axis of the output, the element at indices[...] is ValuesTensor's
 * second element ("on"), every other its first ("off"). */
typedef struct DML_ONE_HOT_OPERATOR_DESC {
    const DML_TENSOR_DESC* IndicesTensor;
    const DML_TENSOR_DESC* ValuesTensor;
    const DML_TENSOR_DESC* OutputTensor;
    UINT Axis;
} DML_ONE_HOT_OPERATOR_DESC;

/* output = condition != 0 ? a : b, element-wise; ConditionTensor is UINT8. */
typedef struct DML_ELEMENT_WISE_IF_OPERATOR_DESC {
    const DML_TENSOR_DESC* ConditionTensor;
    const DML_TENSOR_DESC* ATensor;
    const DML_TENSOR_DESC* BTensor;
    const DML_TENSOR_DESC* OutputTensor;
} DML_ELEMENT_WISE_IF_OPERATOR_DESC;

/* ---- Graphs (DirectML's IDMLDevice1::CompileGraph) -------------------- */
typedef enum DML_GRAPH_NODE_TYPE {
    DML_GRAPH_NODE_TYPE_INVALID = 0,
    DML_GRAPH_NODE_TYPE_OPERATOR = 1,
} DML_GRAPH_NODE_TYPE;

typedef struct DML_OPERATOR_GRAPH_NODE_DESC {
    DMLOperator Operator;
    const char* Name; /* optional, for messages */
} DML_OPERATOR_GRAPH_NODE_DESC;

typedef struct DML_GRAPH_NODE_DESC {
    DML_GRAPH_NODE_TYPE Type;
    const void* Desc; /* DML_OPERATOR_GRAPH_NODE_DESC */
} DML_GRAPH_NODE_DESC;

typedef enum DML_GRAPH_EDGE_TYPE {
    DML_GRAPH_EDGE_TYPE_INVALID = 0,
    DML_GRAPH_EDGE_TYPE_INPUT = 1,
    DML_GRAPH_EDGE_TYPE_OUTPUT = 2,
    DML_GRAPH_EDGE_TYPE_INTERMEDIATE = 3,
} DML_GRAPH_EDGE_TYPE;

typedef struct DML_GRAPH_EDGE_DESC {
    DML_GRAPH_EDGE_TYPE Type;
    const void* Desc;
} DML_GRAPH_EDGE_DESC;

typedef struct DML_INPUT_GRAPH_EDGE_DESC {
    UINT GraphInputIndex;
    UINT ToNodeIndex;
    UINT ToNodeInputIndex;
    const char* Name;
} DML_INPUT_GRAPH_EDGE_DESC;

typedef struct DML_OUTPUT_GRAPH_EDGE_DESC {
    UINT FromNodeIndex;
    UINT FromNodeOutputIndex;
    UINT GraphOutputIndex;
    const char* Name;
} DML_OUTPUT_GRAPH_EDGE_DESC;

typedef struct DML_INTERMEDIATE_GRAPH_EDGE_DESC {
    UINT FromNodeIndex;
    UINT FromNodeOutputIndex;
    UINT ToNodeIndex;
    UINT ToNodeInputIndex;
    const char* Name;
} DML_INTERMEDIATE_GRAPH_EDGE_DESC;

typedef struct DML_GRAPH_DESC {
    UINT InputCount;
    UINT OutputCount;
    UINT NodeCount;
    const DML_GRAPH_NODE_DESC* Nodes;
    UINT InputEdgeCount;
    const DML_GRAPH_EDGE_DESC* InputEdges;
    UINT OutputEdgeCount;
    const DML_GRAPH_EDGE_DESC* OutputEdges;
    UINT IntermediateEdgeCount;
    const DML_GRAPH_EDGE_DESC* IntermediateEdges;
} DML_GRAPH_DESC;

/* ---- Bindings --------------------------------------------------------- */
typedef struct DML_BINDING_PROPERTIES {
    UINT RequiredDescriptorCount; /* always 0: no descriptor heaps here */
    UINT64 TemporaryResourceSize;
    UINT64 PersistentResourceSize;
} DML_BINDING_PROPERTIES;

typedef struct DML_BUFFER_BINDING {
    DMLBuffer Buffer; /* a DMLBuffer instead of DirectML's ID3D12Resource* */
    UINT64 Offset;
    UINT64 SizeInBytes;
} DML_BUFFER_BINDING;

typedef struct DML_BUFFER_ARRAY_BINDING {
    UINT BindingCount;
    const DML_BUFFER_BINDING* Bindings;
} DML_BUFFER_ARRAY_BINDING;

typedef struct DML_BINDING_DESC {
    DML_BINDING_TYPE Type;
    const void* Desc;
} DML_BINDING_DESC;

/* No descriptor heaps on this platform: only the dispatchable. */
typedef struct DML_BINDING_TABLE_DESC {
    DMLDispatchable Dispatchable;
} DML_BINDING_TABLE_DESC;

/* ---- Feature queries -------------------------------------------------- */
typedef struct DML_FEATURE_QUERY_TENSOR_DATA_TYPE_SUPPORT {
    DML_TENSOR_DATA_TYPE DataType;
} DML_FEATURE_QUERY_TENSOR_DATA_TYPE_SUPPORT;

typedef struct DML_FEATURE_DATA_TENSOR_DATA_TYPE_SUPPORT {
    BOOL IsSupported;
} DML_FEATURE_DATA_TENSOR_DATA_TYPE_SUPPORT;

typedef struct DML_FEATURE_QUERY_FEATURE_LEVELS {
    UINT RequestedFeatureLevelCount;
    const DML_FEATURE_LEVEL* RequestedFeatureLevels;
} DML_FEATURE_QUERY_FEATURE_LEVELS;

typedef struct DML_FEATURE_DATA_FEATURE_LEVELS {
    DML_FEATURE_LEVEL MaxSupportedFeatureLevel;
} DML_FEATURE_DATA_FEATURE_LEVELS;

/* ---- Growable structs -------------------------------------------------
 * The runtime's own structs (not DirectML's) may gain members in later
 * versions: DML_DEVICE_DESC, DML_ADAPTER_INFO, DML_PLUGIN_INFO and
 * DML_VERSION_INFO. Each begins with UINT Size, which the host sets to sizeof
 * the struct as its dml.h declares it (a positional initializer starts with
 * sizeof(DML_DEVICE_DESC); a struct left at {0} fails with a message).
 * The rules (docs/contract.md, "Growable structs"):
 *  - Size is at least the struct's size when it was introduced, at most
 *    DML_STRUCT_SIZE_MAX, and a multiple of the struct's alignment; else the
 *    call fails with DML_E_INVALIDARG naming the call, the field and the rule.
 *  - A struct the runtime reads (DML_DEVICE_DESC): members past Size count as
 *    zero; bytes past the runtime's own struct (members of a newer dml.h)
 *    must be zero, else DML_E_INVALIDARG: it cannot honour what it does not know.
 *  - A struct the runtime writes (the _INFO structs): it writes the members
 *    Size covers, zeroes the bytes past its own struct, and leaves Size as it
 *    was. In an array every entry's Size must be the same: it is the stride.
 * Members are only appended, each starting at or past the previous version's
 * sizeof (explicit padding members where needed), so every version's sizeof
 * differs; each append bumps DML_ABI_VERSION_MINOR. */
#define DML_STRUCT_SIZE_MAX 4096

/* ---- Devices and adapters (this platform's replacement for D3D12) ------ */
#define DML_BACKEND_NAME_SIZE 16
#define DML_ADAPTER_DESCRIPTION_SIZE 256

/* Written by dmlEnumerateAdapters and dmlDeviceGetAdapterInfo. Growable. */
typedef struct DML_ADAPTER_INFO {
    UINT Size;                                       /* set by the host: sizeof(DML_ADAPTER_INFO) */
    char Backend[DML_BACKEND_NAME_SIZE];             /* "cpu", "cuda", ... */
    UINT AdapterIndex;                               /* index within its backend */
    char Description[DML_ADAPTER_DESCRIPTION_SIZE];  /* GPU name and capability, or CPU model */
    UINT64 MemorySizeInBytes;                        /* device memory, or host RAM */
    BOOL IsSoftware;                                 /* TRUE for the CPU fallback */
    DML_FEATURE_LEVEL MaxFeatureLevel;
} DML_ADAPTER_INFO;

/* Read by dmlCreateDevice. Growable. */
typedef struct DML_DEVICE_DESC {
    UINT Size;            /* sizeof(DML_DEVICE_DESC) */
    const char* Backend;  /* NULL or "": best available (DML_BACKEND overrides NULL); "cpu", "cuda" force one */
    UINT AdapterIndex;    /* within the chosen backend */
    DML_CREATE_DEVICE_FLAGS Flags;
    DML_FEATURE_LEVEL MinimumFeatureLevel; /* 0 means DML_FEATURE_LEVEL_1_0 */
} DML_DEVICE_DESC;

/* What the dispatcher found: one entry per plugin file it looked at. An
 * extension of this runtime (DirectML has no plugins); dmlinfo prints it.
 * Written by dmlEnumeratePlugins. Growable. */
#define DML_PLUGIN_PATH_SIZE 512
#define DML_PLUGIN_REASON_SIZE 256

typedef struct DML_PLUGIN_INFO {
    UINT Size;                             /* set by the host: sizeof(DML_PLUGIN_INFO) */
    char Backend[DML_BACKEND_NAME_SIZE];   /* empty when the file could not be loaded */
    char Path[DML_PLUGIN_PATH_SIZE];
    BOOL Loaded;                           /* a valid plugin of this ABI version */
    BOOL Available;                        /* its probe found usable hardware */
    UINT AdapterCount;
    INT Score;                             /* higher wins when no backend is forced */
    char Reason[DML_PLUGIN_REASON_SIZE];   /* why not loaded / not available, else "" */
} DML_PLUGIN_INFO;

/* What dmlGetVersion reports: the versions of the libdml.so the process
 * loaded, which may be newer than the dml.h a host was compiled with.
 * Growable (Size first). Since ABI 1.1. */
#define DML_RUNTIME_VERSION_SIZE 32

typedef struct DML_VERSION_INFO {
    UINT Size;                              /* set by the host: sizeof(DML_VERSION_INFO) */
    UINT AbiMajor;                          /* the runtime's DML_ABI_VERSION_MAJOR */
    UINT AbiMinor;                          /* the runtime's DML_ABI_VERSION_MINOR */
    UINT PluginAbiVersion;                  /* DML_PLUGIN_ABI_VERSION of the plugins it loads */
    UINT RuntimeMajor;                      /* the release, as in "1.0.0" */
    UINT RuntimeMinor;
    UINT RuntimePatch;
    char Runtime[DML_RUNTIME_VERSION_SIZE]; /* the release as text: "1.0.0" */
} DML_VERSION_INFO;

typedef enum DML_MESSAGE_SEVERITY {
    DML_MESSAGE_SEVERITY_ERROR = 0,
    DML_MESSAGE_SEVERITY_WARNING = 1,
    DML_MESSAGE_SEVERITY_INFO = 2,
} DML_MESSAGE_SEVERITY;

/* Receives the messages of devices created with DML_CREATE_DEVICE_FLAG_DEBUG
 * (instead of stderr). May be called from any thread. */
typedef void (*DML_MESSAGE_CALLBACK)(DML_MESSAGE_SEVERITY severity, const char* message, void* context);

/* ---- Functions -------------------------------------------------------- */
/* The loaded runtime's release and ABI version (info->Size set by the host).
 * Loads no plugin; fails only for a NULL info or a bad Size. A host that
 * needs what its dml.h declares checks AbiMajor == DML_ABI_VERSION_MAJOR and
 * AbiMinor >= DML_ABI_VERSION_MINOR (linking against dmlGetVersion@DML_1.1
 * already makes the loader refuse a runtime before 1.1). Since ABI 1.1. */
DML_API DML_RESULT dmlGetVersion(DML_VERSION_INFO* info);
DML_API uint32_t dmlAddRef(void* object);
DML_API uint32_t dmlRelease(void* object);
DML_API DML_RESULT dmlSetName(void* object, const char* name);

/* count in/out as in Vulkan: adapters NULL returns the count; otherwise fills up
 * to *count entries and returns the number written. Adapters of every
 * available backend, the best backend first. Each entry to be written has its
 * Size set (the same in all: the array's stride). */
DML_API DML_RESULT dmlEnumerateAdapters(uint32_t* count, DML_ADAPTER_INFO* adapters);
/* Same convention (Size in each entry); every plugin file the dispatcher examined. */
DML_API DML_RESULT dmlEnumeratePlugins(uint32_t* count, DML_PLUGIN_INFO* plugins);
/* NULL callback restores stderr. Process-wide. */
DML_API void dmlSetMessageCallback(DML_MESSAGE_CALLBACK callback, void* context);

DML_API DML_RESULT dmlCreateDevice(const DML_DEVICE_DESC* desc, DMLDevice* device);
DML_API DML_RESULT dmlDeviceGetDeviceRemovedReason(DMLDevice device);
/* The adapter a device runs on (its backend, index, description, ...). An
 * extension of this runtime: DirectML hosts ask D3D12 instead. The host sets
 * info->Size. */
DML_API DML_RESULT dmlDeviceGetAdapterInfo(DMLDevice device, DML_ADAPTER_INFO* info);
DML_API DML_RESULT dmlDeviceCheckFeatureSupport(DMLDevice device, DML_FEATURE feature,
    uint32_t querySize, const void* query, uint32_t supportSize, void* support);
DML_API DML_RESULT dmlDeviceCreateOperator(DMLDevice device, const DML_OPERATOR_DESC* desc, DMLOperator* op);
DML_API DML_RESULT dmlDeviceCompileOperator(DMLDevice device, DMLOperator op, DML_EXECUTION_FLAGS flags,
    DMLCompiledOperator* compiled);
/* Compiles a graph of operators into one compiled operator whose inputs are
 * the graph inputs (InputCount, by GraphInputIndex) and whose outputs are the
 * graph outputs. Chains of data-movement nodes are fused into single passes
 * where that is exact; other intermediates live in the temporary resource
 * (TemporaryResourceSize). Node inputs that are OWNED_BY_DML must be fed by
 * graph inputs: the graph input is then owned (all its node inputs must
 * agree), and, as in DirectML, the initializer takes for a compiled graph one
 * DML_BUFFER_ARRAY_BINDING with one entry per graph input (NONE-sized entries
 * for inputs that are not owned) and copies the owned ones into the graph's
 * persistent resource. The node operators may be released afterwards. */
DML_API DML_RESULT dmlDeviceCompileGraph(DMLDevice device, const DML_GRAPH_DESC* desc, DML_EXECUTION_FLAGS flags,
    DMLCompiledOperator* compiled);
DML_API DML_RESULT dmlDeviceCreateOperatorInitializer(DMLDevice device, uint32_t count,
    const DMLCompiledOperator* ops, DMLOperatorInitializer* initializer);
/* An invalid dispatchable returns all zeros and sets the error message. */
DML_API DML_BINDING_PROPERTIES dmlDispatchableGetBindingProperties(DMLDispatchable dispatchable);
DML_API DML_RESULT dmlDeviceCreateBindingTable(DMLDevice device, const DML_BINDING_TABLE_DESC* desc,
    DMLBindingTable* table);
DML_API DML_RESULT dmlBindingTableBindInputs(DMLBindingTable table, uint32_t count, const DML_BINDING_DESC* bindings);
DML_API DML_RESULT dmlBindingTableBindOutputs(DMLBindingTable table, uint32_t count, const DML_BINDING_DESC* bindings);
DML_API DML_RESULT dmlBindingTableBindTemporaryResource(DMLBindingTable table, const DML_BINDING_DESC* binding);
DML_API DML_RESULT dmlBindingTableBindPersistentResource(DMLBindingTable table, const DML_BINDING_DESC* binding);
/* desc NULL clears the bindings and keeps the dispatchable. */
DML_API DML_RESULT dmlBindingTableReset(DMLBindingTable table, const DML_BINDING_TABLE_DESC* desc);
DML_API DML_RESULT dmlDeviceCreateCommandRecorder(DMLDevice device, DMLCommandRecorder* recorder);
DML_API DML_RESULT dmlDeviceCreateCommandQueue(DMLDevice device, void* nativeQueue, DMLCommandQueue* queue);
DML_API DML_RESULT dmlCommandRecorderRecordDispatch(DMLCommandRecorder recorder, DMLCommandQueue queue,
    DMLDispatchable dispatchable, DMLBindingTable bindings);
DML_API DML_RESULT dmlCommandQueueSynchronize(DMLCommandQueue queue);
DML_API DML_RESULT dmlDeviceCreateBuffer(DMLDevice device, uint64_t sizeInBytes, DMLBuffer* buffer);
DML_API DML_RESULT dmlDeviceWrapBuffer(DMLDevice device, void* nativePointer, uint64_t sizeInBytes, DMLBuffer* buffer);
DML_API void* dmlBufferGetNativePointer(DMLBuffer buffer);
DML_API DML_RESULT dmlCommandQueueWriteBuffer(DMLCommandQueue queue, DMLBuffer buffer, uint64_t offset,
    const void* source, uint64_t size);
DML_API DML_RESULT dmlCommandQueueReadBuffer(DMLCommandQueue queue, DMLBuffer buffer, uint64_t offset,
    void* destination, uint64_t size);
/* Caps the host threads a device's dispatches use, the calling thread
 * included: for hosts that run their own threads (an inference server). An
 * extension of this runtime, not in DirectML; appended to the ABI.
 *   maxThreads: 1 or more sets the cap (a cap above the backend's own count
 *     changes nothing; UINT32_MAX restores it); 0 leaves it as it is.
 *   threadsInUse: optional; receives the count dispatches now use.
 * Applies to dispatches recorded after it returns. The CPU backend's count is
 * min(usable CPUs, 16), or the environment variable DML_CPU_THREADS (1-16)
 * read when the device is created. Backends that use no host threads for
 * dispatches (CUDA) return DML_E_NOTIMPL, as do plugins built before it. */
DML_API DML_RESULT dmlDeviceSetThreadLimit(DMLDevice device, uint32_t maxThreads, uint32_t* threadsInUse);
/* The message of the last failing call on this thread ("" if none). */
DML_API const char* dmlGetLastErrorMessage(void);
/* DirectML's helper: 0 when the arguments are invalid or the size overflows 64 bits. */
DML_API uint64_t DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE dataType, uint32_t dimensionCount,
    const uint32_t* sizes, const uint32_t* strides);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* DML_DML_H */

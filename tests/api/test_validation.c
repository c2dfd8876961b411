/*
 * test_validation.c — every validation rule of docs/operators.md and
 * docs/contract.md has a failing case here, expecting the result code the spec
 * names, out-parameters untouched (or NULL), and a fresh, non-empty
 * dmlGetLastErrorMessage() that names the field where that is reasonable.
 * Each rule is checked against a baseline that is itself shown valid.
 */
#include "harness.h"
#include "reference.h"

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static harness H;
static void setup(void) { h_init(&H); }
static void teardown(void) { h_fini(&H); }

/* ---- messages ------------------------------------------------------------ */

static char g_primed[1024];

/* Sets a known message, so a later check can tell that the call under test set
 * its own. */
static void prime(void)
{
    DMLBuffer b = (DMLBuffer)(uintptr_t)0x5678;
    ck_assert(dmlDeviceCreateBuffer(NULL, 64, &b) == DML_E_INVALIDARG);
    ck_assert_ptr_eq(b, (DMLBuffer)(uintptr_t)0x5678);
    snprintf(g_primed, sizeof g_primed, "%s", dmlGetLastErrorMessage());
    ck_assert_msg(g_primed[0] != '\0', "a failing dmlDeviceCreateBuffer left no message");
}

/* The call under test failed: its message is new, non-empty and names `field`
 * (case-insensitively). */
static void check_message(const char* what, const char* field)
{
    const char* m = dmlGetLastErrorMessage();
    ck_assert_msg(m != NULL && m[0] != '\0', "%s: empty error message", what);
    ck_assert_msg(strcmp(m, g_primed) != 0, "%s: the failing call did not set its own message (still \"%s\")",
                  what, m);
    if (field)
        ck_assert_msg(strcasestr(m, field) != NULL, "%s: message \"%s\" does not mention \"%s\"", what, m, field);
}

#define SENTINEL(T) ((T)(uintptr_t)0x1234)
#define UNTOUCHED(p, T) ((p) == SENTINEL(T) || (p) == NULL)

/* ---- operator creation --------------------------------------------------- */

static void expect_create(const DML_OPERATOR_DESC* od, DML_RESULT expected, const char* field, const char* what)
{
    prime();
    DMLOperator op = SENTINEL(DMLOperator);
    DML_RESULT r = dmlDeviceCreateOperator(H.device, od, &op);
    if (DML_SUCCEEDED(r) && op != SENTINEL(DMLOperator))
        dmlRelease(op);
    ck_assert_msg(r == expected, "%s: dmlDeviceCreateOperator returned %s (0x%08x), expected %s", what,
                  h_result_name(r), (unsigned)r, h_result_name(expected));
    ck_assert_msg(UNTOUCHED(op, DMLOperator), "%s: failed call changed the out handle to %p", what, (void*)op);
    check_message(what, field);
}

static void expect_create_ok(const DML_OPERATOR_DESC* od, const char* what)
{
    DMLOperator op = NULL;
    DML_RESULT r = dmlDeviceCreateOperator(H.device, od, &op);
    ck_assert_msg(r == DML_S_OK, "%s: valid desc rejected: %s: %s", what, h_result_name(r), dmlGetLastErrorMessage());
    ck_assert_ptr_nonnull(op);
    dmlRelease(op);
}

#define EXPECT_INVALID(od, field) expect_create((od), DML_E_INVALIDARG, (field), __func__)

/* REVERSE_SUBSEQUENCES baseline: Input {2,3,4} FLOAT32, Axis 1, lengths {2,1,4} UINT32. */
typedef struct rs_fixture {
    h_tensor in, len, out;
    DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC d;
    DML_OPERATOR_DESC od;
} rs_fixture;

static void rs_make(rs_fixture* f)
{
    static const uint32_t sizes[3] = { 2, 3, 4 }, len_sizes[3] = { 2, 1, 4 };
    h_tensor_init(&f->in, DML_TENSOR_DATA_TYPE_FLOAT32, 3, sizes, NULL);
    h_tensor_init(&f->len, DML_TENSOR_DATA_TYPE_UINT32, 3, len_sizes, NULL);
    h_tensor_init(&f->out, DML_TENSOR_DATA_TYPE_FLOAT32, 3, sizes, NULL);
    f->d.InputTensor = &f->in.desc;
    f->d.SequenceLengthsTensor = &f->len.desc;
    f->d.OutputTensor = &f->out.desc;
    f->d.Axis = 1;
    f->od.Type = DML_OPERATOR_REVERSE_SUBSEQUENCES;
    f->od.Desc = &f->d;
}

/* SLICE1 baseline: Input {4,5} FLOAT32, Output {2,2}, offsets {1,0}, window {3,5},
 * strides {2,-3} (Output = rows 1,3 x columns 4,1). */
typedef struct s1_fixture {
    h_tensor in, out;
    uint32_t offsets[9], window[9];
    int32_t strides[9];
    DML_SLICE1_OPERATOR_DESC d;
    DML_OPERATOR_DESC od;
} s1_fixture;

static void s1_make(s1_fixture* f)
{
    static const uint32_t in_sizes[2] = { 4, 5 }, out_sizes[2] = { 2, 2 };
    memset(f, 0, sizeof *f);
    h_tensor_init(&f->in, DML_TENSOR_DATA_TYPE_FLOAT32, 2, in_sizes, NULL);
    h_tensor_init(&f->out, DML_TENSOR_DATA_TYPE_FLOAT32, 2, out_sizes, NULL);
    for (int i = 0; i < 9; ++i) {
        f->offsets[i] = 0;
        f->window[i] = 1;
        f->strides[i] = 1;
    }
    f->offsets[0] = 1; f->window[0] = 3; f->strides[0] = 2;
    f->offsets[1] = 0; f->window[1] = 5; f->strides[1] = -3;
    f->d.InputTensor = &f->in.desc;
    f->d.OutputTensor = &f->out.desc;
    f->d.DimensionCount = 2;
    f->d.InputWindowOffsets = f->offsets;
    f->d.InputWindowSizes = f->window;
    f->d.InputWindowStrides = f->strides;
    f->od.Type = DML_OPERATOR_SLICE1;
    f->od.Desc = &f->d;
}

/* SLICE baseline: Input {4,5}, Output {2,2}, offsets {1,1}, sizes {2,2}, strides {2,3}. */
typedef struct s_fixture {
    h_tensor in, out;
    uint32_t offsets[2], sizes[2], strides[2];
    DML_SLICE_OPERATOR_DESC d;
    DML_OPERATOR_DESC od;
} s_fixture;

static void s_make(s_fixture* f)
{
    static const uint32_t in_sizes[2] = { 4, 5 }, out_sizes[2] = { 2, 2 };
    h_tensor_init(&f->in, DML_TENSOR_DATA_TYPE_FLOAT32, 2, in_sizes, NULL);
    h_tensor_init(&f->out, DML_TENSOR_DATA_TYPE_FLOAT32, 2, out_sizes, NULL);
    f->offsets[0] = 1; f->offsets[1] = 1;
    f->sizes[0] = 2; f->sizes[1] = 2;
    f->strides[0] = 2; f->strides[1] = 3;
    f->d.InputTensor = &f->in.desc;
    f->d.OutputTensor = &f->out.desc;
    f->d.DimensionCount = 2;
    f->d.Offsets = f->offsets;
    f->d.Sizes = f->sizes;
    f->d.Strides = f->strides;
    f->od.Type = DML_OPERATOR_SLICE;
    f->od.Desc = &f->d;
}

/* TILE baseline: Input {2,3} FLOAT32, Repeats {3,2}, Output {6,6}. */
typedef struct tile_fixture {
    h_tensor in, out;
    uint32_t repeats[9];
    DML_TILE_OPERATOR_DESC d;
    DML_OPERATOR_DESC od;
} tile_fixture;

static void tile_make(tile_fixture* f)
{
    static const uint32_t in_sizes[2] = { 2, 3 }, out_sizes[2] = { 6, 6 };
    memset(f, 0, sizeof *f);
    h_tensor_init(&f->in, DML_TENSOR_DATA_TYPE_FLOAT32, 2, in_sizes, NULL);
    h_tensor_init(&f->out, DML_TENSOR_DATA_TYPE_FLOAT32, 2, out_sizes, NULL);
    for (int i = 0; i < 9; ++i)
        f->repeats[i] = 1;
    f->repeats[0] = 3;
    f->repeats[1] = 2;
    f->d.InputTensor = &f->in.desc;
    f->d.OutputTensor = &f->out.desc;
    f->d.RepeatsCount = 2;
    f->d.Repeats = f->repeats;
    f->od.Type = DML_OPERATOR_TILE;
    f->od.Desc = &f->d;
}

/* DEPTH_TO_SPACE1 baseline: Input {1,8,2,3} FLOAT32, BlockSize 2, Output
 * {1,2,4,6}, DEPTH_COLUMN_ROW; ds_s2d turns it around into SPACE_TO_DEPTH1. */
typedef struct ds_fixture {
    h_tensor in, out;
    DML_DEPTH_TO_SPACE1_OPERATOR_DESC d; /* SPACE_TO_DEPTH1's has the same layout */
    DML_DEPTH_TO_SPACE_OPERATOR_DESC d0;
    DML_OPERATOR_DESC od;
} ds_fixture;

static const uint32_t DS_DEPTH[4] = { 1, 8, 2, 3 }, DS_SPACE[4] = { 1, 2, 4, 6 };

static void ds_make(ds_fixture* f, DML_OPERATOR_TYPE type)
{
    const int to_space = type == DML_OPERATOR_DEPTH_TO_SPACE || type == DML_OPERATOR_DEPTH_TO_SPACE1;
    const int v1 = type == DML_OPERATOR_DEPTH_TO_SPACE1 || type == DML_OPERATOR_SPACE_TO_DEPTH1;
    memset(f, 0, sizeof *f);
    h_tensor_init(&f->in, DML_TENSOR_DATA_TYPE_FLOAT32, 4, to_space ? DS_DEPTH : DS_SPACE, NULL);
    h_tensor_init(&f->out, DML_TENSOR_DATA_TYPE_FLOAT32, 4, to_space ? DS_SPACE : DS_DEPTH, NULL);
    f->d = (DML_DEPTH_TO_SPACE1_OPERATOR_DESC){ &f->in.desc, &f->out.desc, 2, DML_DEPTH_SPACE_ORDER_DEPTH_COLUMN_ROW };
    f->d0 = (DML_DEPTH_TO_SPACE_OPERATOR_DESC){ &f->in.desc, &f->out.desc, 2 };
    f->od.Type = type;
    f->od.Desc = v1 ? (const void*)&f->d : (const void*)&f->d0;
}

static const DML_OPERATOR_TYPE DS_TYPES[4] = { DML_OPERATOR_SPACE_TO_DEPTH, DML_OPERATOR_DEPTH_TO_SPACE,
    DML_OPERATOR_DEPTH_TO_SPACE1, DML_OPERATOR_SPACE_TO_DEPTH1 };

START_TEST(baselines_are_valid)
{
    rs_fixture rs; rs_make(&rs);
    expect_create_ok(&rs.od, "REVERSE_SUBSEQUENCES baseline");
    s1_fixture s1; s1_make(&s1);
    expect_create_ok(&s1.od, "SLICE1 baseline");
    s_fixture s; s_make(&s);
    expect_create_ok(&s.od, "SLICE baseline");
    tile_fixture t; tile_make(&t);
    expect_create_ok(&t.od, "TILE baseline");
    for (int k = 0; k < 4; ++k) {
        ds_fixture ds; ds_make(&ds, DS_TYPES[k]);
        expect_create_ok(&ds.od, "DEPTH_TO_SPACE / SPACE_TO_DEPTH baseline");
        ds.d.Order = DML_DEPTH_SPACE_ORDER_COLUMN_ROW_DEPTH;
        expect_create_ok(&ds.od, "... in COLUMN_ROW_DEPTH order");
    }
}
END_TEST

/* ---- operator desc / type ----------------------------------------------- */

START_TEST(operator_type_not_implemented)
{
    uint8_t dummy[256];
    memset(dummy, 0, sizeof dummy);
    DML_OPERATOR_DESC od = { DML_OPERATOR_ELEMENT_WISE_ABS, dummy };
    expect_create(&od, DML_E_NOTIMPL, NULL, "ELEMENT_WISE_ABS");
    od.Type = DML_OPERATOR_UNFOLD;
    expect_create(&od, DML_E_NOTIMPL, NULL, "UNFOLD (177)");
    od.Type = DML_OPERATOR_CONVOLUTION;
    expect_create(&od, DML_E_NOTIMPL, NULL, "CONVOLUTION");
}
END_TEST

START_TEST(operator_type_unknown)
{
    uint8_t dummy[256];
    memset(dummy, 0, sizeof dummy);
    DML_OPERATOR_DESC od = { (DML_OPERATOR_TYPE)178, dummy };
    expect_create(&od, DML_E_INVALIDARG, NULL, "type 178");
    od.Type = (DML_OPERATOR_TYPE)0x7fffffff;
    expect_create(&od, DML_E_INVALIDARG, NULL, "type 0x7fffffff");
    od.Type = DML_OPERATOR_INVALID;
    expect_create(&od, DML_E_INVALIDARG, NULL, "DML_OPERATOR_INVALID");
}
END_TEST

START_TEST(operator_desc_null)
{
    expect_create(NULL, DML_E_INVALIDARG, NULL, "NULL DML_OPERATOR_DESC");
    s1_fixture f; s1_make(&f);
    f.od.Desc = NULL;
    expect_create(&f.od, DML_E_INVALIDARG, NULL, "NULL SLICE1 desc");
    rs_fixture rs; rs_make(&rs);
    rs.od.Desc = NULL;
    expect_create(&rs.od, DML_E_INVALIDARG, NULL, "NULL REVERSE_SUBSEQUENCES desc");
}
END_TEST

START_TEST(operator_bad_handles)
{
    s1_fixture f; s1_make(&f);
    prime();
    DMLOperator op = SENTINEL(DMLOperator);
    ck_assert_int_eq(dmlDeviceCreateOperator(NULL, &f.od, &op), DML_E_INVALIDARG);
    ck_assert(UNTOUCHED(op, DMLOperator));
    check_message("NULL device", NULL);
    prime();
    ck_assert_int_eq(dmlDeviceCreateOperator(H.device, &f.od, NULL), DML_E_INVALIDARG);
    check_message("NULL out pointer", NULL);
}
END_TEST

/* ---- tensor descs ------------------------------------------------------- */

START_TEST(tensor_null)
{
    s1_fixture f; s1_make(&f);
    f.d.InputTensor = NULL;
    EXPECT_INVALID(&f.od, "InputTensor");
    s1_make(&f);
    f.d.OutputTensor = NULL;
    EXPECT_INVALID(&f.od, "Output");
    rs_fixture rs; rs_make(&rs);
    rs.d.SequenceLengthsTensor = NULL;
    EXPECT_INVALID(&rs.od, "SequenceLengthsTensor");
}
END_TEST

START_TEST(tensor_type_not_buffer)
{
    s1_fixture f; s1_make(&f);
    f.in.desc.Type = DML_TENSOR_TYPE_INVALID;
    EXPECT_INVALID(&f.od, "InputTensor");
    s1_make(&f);
    f.out.desc.Type = (DML_TENSOR_TYPE)2;
    EXPECT_INVALID(&f.od, "Output");
}
END_TEST

START_TEST(tensor_null_buffer_desc)
{
    s1_fixture f; s1_make(&f);
    f.in.desc.Desc = NULL;
    EXPECT_INVALID(&f.od, "InputTensor");
    rs_fixture rs; rs_make(&rs);
    rs.len.desc.Desc = NULL;
    EXPECT_INVALID(&rs.od, "SequenceLengthsTensor");
}
END_TEST

START_TEST(tensor_dimension_count)
{
    rs_fixture f; rs_make(&f);
    f.in.buf.DimensionCount = 0;
    f.len.buf.DimensionCount = 0;
    f.out.buf.DimensionCount = 0;
    EXPECT_INVALID(&f.od, "DimensionCount");

    /* 9 dimensions everywhere (the arrays hold 9 entries). */
    static const uint32_t sizes9[9] = { 1, 1, 1, 1, 1, 1, 1, 2, 3 };
    static const uint32_t len9[9] = { 1, 1, 1, 1, 1, 1, 1, 1, 3 };
    rs_make(&f);
    f.in.buf.DimensionCount = 9; f.in.buf.Sizes = sizes9; f.in.buf.TotalTensorSizeInBytes = 24;
    f.out.buf.DimensionCount = 9; f.out.buf.Sizes = sizes9; f.out.buf.TotalTensorSizeInBytes = 24;
    f.len.buf.DimensionCount = 9; f.len.buf.Sizes = len9; f.len.buf.TotalTensorSizeInBytes = 12;
    f.d.Axis = 7;
    EXPECT_INVALID(&f.od, "DimensionCount");

    s1_fixture s; s1_make(&s);
    s.in.buf.DimensionCount = 9; s.in.buf.Sizes = sizes9; s.in.buf.TotalTensorSizeInBytes = 24;
    s.out.buf.DimensionCount = 9; s.out.buf.Sizes = sizes9; s.out.buf.TotalTensorSizeInBytes = 24;
    s.d.DimensionCount = 9;
    for (int i = 0; i < 9; ++i) { s.offsets[i] = 0; s.window[i] = sizes9[i]; s.strides[i] = 1; }
    EXPECT_INVALID(&s.od, "DimensionCount");
}
END_TEST

START_TEST(tensor_size_zero)
{
    rs_fixture f; rs_make(&f);
    f.in.sizes[2] = 0;
    f.out.sizes[2] = 0;
    f.len.sizes[2] = 0;
    EXPECT_INVALID(&f.od, "Sizes");
    s1_fixture s; s1_make(&s);
    s.in.sizes[0] = 0;
    EXPECT_INVALID(&s.od, "Sizes");
}
END_TEST

START_TEST(tensor_data_type)
{
    s1_fixture f; s1_make(&f);
    f.in.buf.DataType = DML_TENSOR_DATA_TYPE_UNKNOWN;
    f.out.buf.DataType = DML_TENSOR_DATA_TYPE_UNKNOWN;
    EXPECT_INVALID(&f.od, "DataType");
    s1_make(&f);
    f.in.buf.DataType = (DML_TENSOR_DATA_TYPE)12;
    f.out.buf.DataType = (DML_TENSOR_DATA_TYPE)12;
    EXPECT_INVALID(&f.od, "DataType");
}
END_TEST

START_TEST(tensor_flags)
{
    s1_fixture f; s1_make(&f);
    f.in.buf.Flags = (DML_TENSOR_FLAGS)2;
    EXPECT_INVALID(&f.od, "Flags");
    s1_make(&f);
    f.in.buf.Flags = (DML_TENSOR_FLAGS)3;
    EXPECT_INVALID(&f.od, "Flags");
    /* OWNED_BY_DML on an output */
    s1_make(&f);
    f.out.buf.Flags = DML_TENSOR_FLAG_OWNED_BY_DML;
    EXPECT_INVALID(&f.od, "Output");
    rs_fixture rs; rs_make(&rs);
    rs.out.buf.Flags = DML_TENSOR_FLAG_OWNED_BY_DML;
    EXPECT_INVALID(&rs.od, "Output");
    /* ... and on inputs it is fine */
    s1_make(&f);
    f.in.buf.Flags = DML_TENSOR_FLAG_OWNED_BY_DML;
    expect_create_ok(&f.od, "OWNED_BY_DML input");
    rs_make(&rs);
    rs.len.buf.Flags = DML_TENSOR_FLAG_OWNED_BY_DML;
    expect_create_ok(&rs.od, "OWNED_BY_DML lengths");
}
END_TEST

START_TEST(tensor_total_size_too_small)
{
    s1_fixture f; s1_make(&f);
    uint64_t need = DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_FLOAT32, 2, f.in.sizes, NULL);
    ck_assert_uint_eq(need, f.in.buf.TotalTensorSizeInBytes); /* 80, by the reference */
    f.in.buf.TotalTensorSizeInBytes = need - 1;
    EXPECT_INVALID(&f.od, "TotalTensorSizeInBytes");
    s1_make(&f);
    f.out.buf.TotalTensorSizeInBytes = 15;
    EXPECT_INVALID(&f.od, "TotalTensorSizeInBytes");
    s1_make(&f);
    f.in.buf.TotalTensorSizeInBytes = 0;
    EXPECT_INVALID(&f.od, "TotalTensorSizeInBytes");

    /* With strides: last = 3*7 + 4*1 = 25 -> 26 UINT16 = 52 bytes. */
    static const uint32_t st[2] = { 7, 1 };
    s1_make(&f);
    h_tensor_init(&f.in, DML_TENSOR_DATA_TYPE_UINT16, 2, f.in.sizes, st);
    h_tensor_init(&f.out, DML_TENSOR_DATA_TYPE_UINT16, 2, f.out.sizes, NULL);
    ck_assert_uint_eq(f.in.buf.TotalTensorSizeInBytes, 52);
    ck_assert_uint_eq(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_UINT16, 2, f.in.sizes, st), 52);
    expect_create_ok(&f.od, "strided UINT16 input, exact size");
    f.in.buf.TotalTensorSizeInBytes = 51;
    EXPECT_INVALID(&f.od, "TotalTensorSizeInBytes");

    /* larger than needed is fine */
    s1_make(&f);
    f.in.buf.TotalTensorSizeInBytes = 1000;
    expect_create_ok(&f.od, "TotalTensorSizeInBytes larger than needed");
}
END_TEST

START_TEST(tensor_alignment)
{
    s1_fixture f; s1_make(&f);
    f.in.buf.GuaranteedBaseOffsetAlignment = 3;
    EXPECT_INVALID(&f.od, "GuaranteedBaseOffsetAlignment");
    s1_make(&f);
    f.in.buf.GuaranteedBaseOffsetAlignment = 2; /* power of two, below sizeof(float) */
    EXPECT_INVALID(&f.od, "GuaranteedBaseOffsetAlignment");
    s1_make(&f);
    f.out.buf.GuaranteedBaseOffsetAlignment = 48;
    EXPECT_INVALID(&f.od, "GuaranteedBaseOffsetAlignment");
    s1_make(&f);
    f.out.buf.GuaranteedBaseOffsetAlignment = 0x80000001u;
    EXPECT_INVALID(&f.od, "GuaranteedBaseOffsetAlignment");
    const uint32_t ok[] = { 0, 4, 8, 16, 64, 256, 4096 };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; ++i) {
        s1_make(&f);
        f.in.buf.GuaranteedBaseOffsetAlignment = ok[i];
        f.out.buf.GuaranteedBaseOffsetAlignment = ok[i];
        expect_create_ok(&f.od, "valid alignment");
    }
    /* 1 is >= the element size of UINT8 */
    s1_make(&f);
    f.in.buf.DataType = f.out.buf.DataType = DML_TENSOR_DATA_TYPE_UINT8;
    f.in.buf.GuaranteedBaseOffsetAlignment = 1;
    f.out.buf.GuaranteedBaseOffsetAlignment = 2;
    expect_create_ok(&f.od, "UINT8 alignments 1 and 2");
    s1_make(&f);
    f.in.buf.DataType = f.out.buf.DataType = DML_TENSOR_DATA_TYPE_FLOAT64;
    f.in.buf.TotalTensorSizeInBytes *= 2;
    f.out.buf.TotalTensorSizeInBytes *= 2;
    f.in.buf.GuaranteedBaseOffsetAlignment = 4;
    EXPECT_INVALID(&f.od, "GuaranteedBaseOffsetAlignment");
}
END_TEST

START_TEST(tensor_size_overflow)
{
    /* last = 8 * (2^32-2)*(2^32-1) overflows 64 bits. */
    static const uint32_t big[8] = { 0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu,
                                     0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu };
    static const uint32_t ones[8] = { 1, 1, 1, 1, 1, 1, 1, 1 };
    uint32_t offsets[8] = { 0 }, window[8] = { 1, 1, 1, 1, 1, 1, 1, 1 };
    int32_t strides[8] = { 1, 1, 1, 1, 1, 1, 1, 1 };
    h_tensor in, out;
    h_tensor_init(&in, DML_TENSOR_DATA_TYPE_FLOAT32, 8, big, big);
    h_tensor_init(&out, DML_TENSOR_DATA_TYPE_FLOAT32, 8, ones, NULL);
    ck_assert_uint_eq(in.buf.TotalTensorSizeInBytes, 0); /* the reference saw the overflow */
    ck_assert_uint_eq(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_FLOAT32, 8, big, big), 0);
    in.buf.TotalTensorSizeInBytes = UINT64_MAX;
    DML_SLICE1_OPERATOR_DESC d = { &in.desc, &out.desc, 8, offsets, window, strides };
    DML_OPERATOR_DESC od = { DML_OPERATOR_SLICE1, &d };
    EXPECT_INVALID(&od, NULL);

    /* Packed: prod(Sizes) overflows. */
    in.buf.Strides = NULL;
    EXPECT_INVALID(&od, NULL);

    /* One dimension: last = (2^32-2)*(2^32-1) fits, but (last+1) * 64 bits does not. */
    static const uint32_t s1[1] = { 0xFFFFFFFFu }, o1[1] = { 1 };
    h_tensor_init(&in, DML_TENSOR_DATA_TYPE_FLOAT64, 1, s1, s1);
    h_tensor_init(&out, DML_TENSOR_DATA_TYPE_FLOAT64, 1, o1, NULL);
    in.buf.TotalTensorSizeInBytes = UINT64_MAX;
    ck_assert_uint_eq(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_FLOAT64, 1, s1, s1), 0);
    d.DimensionCount = 1;
    EXPECT_INVALID(&od, NULL);
}
END_TEST

START_TEST(tensor_output_broadcast)
{
    static const uint32_t st[2] = { 0, 1 };
    s1_fixture f; s1_make(&f);
    h_tensor_init(&f.out, DML_TENSOR_DATA_TYPE_FLOAT32, 2, f.out.sizes, st);
    f.out.buf.TotalTensorSizeInBytes = 16;
    EXPECT_INVALID(&f.od, "Output");
    /* the same strides on an input are fine (broadcast) */
    static const uint32_t in_st[2] = { 0, 1 };
    s1_make(&f);
    h_tensor_init(&f.in, DML_TENSOR_DATA_TYPE_FLOAT32, 2, f.in.sizes, in_st);
    expect_create_ok(&f.od, "broadcast input");
}
END_TEST

START_TEST(tensor_output_aliasing)
{
    static const uint32_t sizes[2] = { 2, 2 }, st[2] = { 1, 1 };
    s1_fixture f; s1_make(&f);
    h_tensor_init(&f.out, DML_TENSOR_DATA_TYPE_FLOAT32, 2, sizes, st);
    EXPECT_INVALID(&f.od, "Output");
    /* {3,2} with strides {1,2}: (2,0) and (0,1) share element 2 */
    static const uint32_t s3[2] = { 3, 2 }, st3[2] = { 1, 2 };
    s1_make(&f);
    f.window[1] = 5; f.strides[1] = 4; /* 1 + 4/4 = 2 columns */
    f.window[0] = 3; f.strides[0] = 1; /* 3 rows */
    h_tensor_init(&f.out, DML_TENSOR_DATA_TYPE_FLOAT32, 2, s3, st3);
    EXPECT_INVALID(&f.od, "Output");
    /* transposed (column-major) output is fine */
    static const uint32_t tr[2] = { 1, 3 };
    s1_make(&f);
    f.window[1] = 5; f.strides[1] = 4;
    f.window[0] = 3; f.strides[0] = 1;
    h_tensor_init(&f.out, DML_TENSOR_DATA_TYPE_FLOAT32, 2, s3, tr);
    expect_create_ok(&f.od, "column-major output");
}
END_TEST

/* ---- REVERSE_SUBSEQUENCES ------------------------------------------------ */

START_TEST(rs_dimension_count_mismatch)
{
    static const uint32_t s4[4] = { 2, 3, 4, 1 }, l4[4] = { 2, 1, 4, 1 }, s2[2] = { 2, 3 };
    rs_fixture f; rs_make(&f);
    h_tensor_init(&f.out, DML_TENSOR_DATA_TYPE_FLOAT32, 4, s4, NULL);
    EXPECT_INVALID(&f.od, "DimensionCount");
    rs_make(&f);
    h_tensor_init(&f.len, DML_TENSOR_DATA_TYPE_UINT32, 4, l4, NULL);
    EXPECT_INVALID(&f.od, "DimensionCount");
    rs_make(&f);
    h_tensor_init(&f.in, DML_TENSOR_DATA_TYPE_FLOAT32, 4, s4, NULL);
    h_tensor_init(&f.out, DML_TENSOR_DATA_TYPE_FLOAT32, 4, s4, NULL);
    EXPECT_INVALID(&f.od, "DimensionCount");
    rs_make(&f);
    h_tensor_init(&f.len, DML_TENSOR_DATA_TYPE_UINT32, 2, s2, NULL);
    EXPECT_INVALID(&f.od, "DimensionCount");
}
END_TEST

START_TEST(rs_output_differs)
{
    static const uint32_t other[3] = { 2, 3, 5 };
    rs_fixture f; rs_make(&f);
    h_tensor_init(&f.out, DML_TENSOR_DATA_TYPE_FLOAT32, 3, other, NULL);
    EXPECT_INVALID(&f.od, "Sizes");
    rs_make(&f);
    f.out.buf.DataType = DML_TENSOR_DATA_TYPE_INT32;
    EXPECT_INVALID(&f.od, "DataType");
    rs_make(&f);
    f.out.buf.DataType = DML_TENSOR_DATA_TYPE_FLOAT16;
    EXPECT_INVALID(&f.od, "DataType");
}
END_TEST

START_TEST(rs_lengths_sizes)
{
    static const uint32_t full[3] = { 2, 3, 4 }, other[3] = { 2, 1, 3 }, first[3] = { 1, 1, 4 };
    rs_fixture f; rs_make(&f);
    h_tensor_init(&f.len, DML_TENSOR_DATA_TYPE_UINT32, 3, full, NULL);
    EXPECT_INVALID(&f.od, "SequenceLengthsTensor");
    rs_make(&f);
    h_tensor_init(&f.len, DML_TENSOR_DATA_TYPE_UINT32, 3, other, NULL);
    EXPECT_INVALID(&f.od, "SequenceLengthsTensor");
    rs_make(&f);
    h_tensor_init(&f.len, DML_TENSOR_DATA_TYPE_UINT32, 3, first, NULL);
    EXPECT_INVALID(&f.od, "SequenceLengthsTensor");
}
END_TEST

START_TEST(rs_lengths_data_type)
{
    rs_fixture f; rs_make(&f);
    f.len.buf.DataType = DML_TENSOR_DATA_TYPE_INT32;
    EXPECT_INVALID(&f.od, "SequenceLengthsTensor");
    rs_make(&f);
    f.len.buf.DataType = DML_TENSOR_DATA_TYPE_FLOAT32;
    EXPECT_INVALID(&f.od, "SequenceLengthsTensor");
    rs_make(&f);
    f.len.buf.DataType = DML_TENSOR_DATA_TYPE_INT64;
    f.len.buf.TotalTensorSizeInBytes *= 2;
    EXPECT_INVALID(&f.od, "SequenceLengthsTensor");
    rs_make(&f);
    f.len.buf.DataType = DML_TENSOR_DATA_TYPE_UINT64;
    f.len.buf.TotalTensorSizeInBytes *= 2;
    expect_create_ok(&f.od, "UINT64 lengths");
}
END_TEST

START_TEST(rs_axis)
{
    rs_fixture f; rs_make(&f);
    f.d.Axis = 3;
    EXPECT_INVALID(&f.od, "Axis");
    f.d.Axis = UINT32_MAX;
    EXPECT_INVALID(&f.od, "Axis");
    /* every axis < DimensionCount with matching lengths is fine */
    static const uint32_t l0[3] = { 1, 3, 4 }, l2[3] = { 2, 3, 1 };
    rs_make(&f);
    f.d.Axis = 0;
    h_tensor_init(&f.len, DML_TENSOR_DATA_TYPE_UINT32, 3, l0, NULL);
    expect_create_ok(&f.od, "axis 0");
    rs_make(&f);
    f.d.Axis = 2;
    h_tensor_init(&f.len, DML_TENSOR_DATA_TYPE_UINT32, 3, l2, NULL);
    expect_create_ok(&f.od, "axis 2");
    /* ... but lengths shaped for axis 1 do not fit axis 2 */
    rs_make(&f);
    f.d.Axis = 2;
    EXPECT_INVALID(&f.od, NULL);
}
END_TEST

/* ---- SLICE1 -------------------------------------------------------------- */

START_TEST(s1_dimension_count)
{
    s1_fixture f; s1_make(&f);
    f.d.DimensionCount = 1;
    EXPECT_INVALID(&f.od, "DimensionCount");
    f.d.DimensionCount = 3;
    EXPECT_INVALID(&f.od, "DimensionCount");
    f.d.DimensionCount = 0;
    EXPECT_INVALID(&f.od, "DimensionCount");
    f.d.DimensionCount = 9;
    EXPECT_INVALID(&f.od, "DimensionCount");
    /* input and output ranks differ */
    static const uint32_t o3[3] = { 2, 2, 1 };
    s1_make(&f);
    h_tensor_init(&f.out, DML_TENSOR_DATA_TYPE_FLOAT32, 3, o3, NULL);
    EXPECT_INVALID(&f.od, "DimensionCount");
}
END_TEST

START_TEST(s1_data_types_differ)
{
    s1_fixture f; s1_make(&f);
    f.out.buf.DataType = DML_TENSOR_DATA_TYPE_INT32;
    EXPECT_INVALID(&f.od, "DataType");
    s1_make(&f);
    f.out.buf.DataType = DML_TENSOR_DATA_TYPE_UINT16;
    EXPECT_INVALID(&f.od, "DataType");
}
END_TEST

START_TEST(s1_window_size_zero)
{
    s1_fixture f; s1_make(&f);
    f.window[1] = 0;
    EXPECT_INVALID(&f.od, "InputWindowSizes");
}
END_TEST

START_TEST(s1_window_out_of_bounds)
{
    s1_fixture f; s1_make(&f);
    f.offsets[0] = 2; /* 2 + 3 > 4 */
    EXPECT_INVALID(&f.od, "InputWindowSizes");
    s1_make(&f);
    f.window[1] = 6; /* 0 + 6 > 5 */
    EXPECT_INVALID(&f.od, "InputWindowSizes");
    s1_make(&f);
    f.offsets[1] = 5; f.window[1] = 1; f.strides[1] = 1; /* 5 + 1 > 5 */
    f.out.sizes[1] = 1; f.out.buf.TotalTensorSizeInBytes = 8;
    EXPECT_INVALID(&f.od, "InputWindowOffsets");
    /* offset + size wraps around 32 bits: 0xFFFFFFFF + 2 = 1 */
    s1_make(&f);
    f.offsets[1] = 0xFFFFFFFFu; f.window[1] = 2; f.strides[1] = 1;
    f.out.sizes[1] = 1; f.out.buf.TotalTensorSizeInBytes = 8;
    EXPECT_INVALID(&f.od, "InputWindowOffsets");
    /* the edge is fine: offset 1 + window 3 == 4 */
    s1_make(&f);
    expect_create_ok(&f.od, "window ending at the input's edge");
}
END_TEST

START_TEST(s1_stride_zero)
{
    s1_fixture f; s1_make(&f);
    f.strides[0] = 0;
    EXPECT_INVALID(&f.od, "InputWindowStrides");
    s1_make(&f);
    f.strides[1] = 0;
    f.out.sizes[1] = 1; f.out.buf.TotalTensorSizeInBytes = 8;
    EXPECT_INVALID(&f.od, "InputWindowStrides");
}
END_TEST

START_TEST(s1_output_size_zero)
{
    s1_fixture f; s1_make(&f);
    f.out.sizes[0] = 0;
    f.out.buf.TotalTensorSizeInBytes = 16;
    EXPECT_INVALID(&f.od, "Sizes");
}
END_TEST

START_TEST(s1_output_too_large)
{
    /* dim 0: window 3, stride 2 -> at most 2 */
    s1_fixture f; s1_make(&f);
    f.out.sizes[0] = 3; f.out.buf.TotalTensorSizeInBytes = 24;
    EXPECT_INVALID(&f.od, "Output");
    /* dim 1: window 5, stride -3 -> at most 2 */
    s1_make(&f);
    f.out.sizes[1] = 3; f.out.buf.TotalTensorSizeInBytes = 24;
    EXPECT_INVALID(&f.od, "Output");
    /* stride INT32_MIN: |stride| does not fit an int32; at most 1 */
    s1_make(&f);
    f.strides[1] = INT32_MIN;
    EXPECT_INVALID(&f.od, "Output");
    s1_make(&f);
    f.strides[1] = INT32_MAX;
    EXPECT_INVALID(&f.od, "Output");
    /* but one element with those strides is fine; so is taking fewer than reachable */
    s1_make(&f);
    f.strides[1] = INT32_MIN;
    f.out.sizes[1] = 1; f.out.buf.TotalTensorSizeInBytes = 8;
    expect_create_ok(&f.od, "stride INT32_MIN, one element");
    s1_make(&f);
    f.strides[1] = -1; /* 5 reachable, 2 taken */
    expect_create_ok(&f.od, "fewer outputs than reachable");
}
END_TEST

START_TEST(s1_null_arrays)
{
    s1_fixture f; s1_make(&f);
    f.d.InputWindowOffsets = NULL;
    EXPECT_INVALID(&f.od, "InputWindowOffsets");
    s1_make(&f);
    f.d.InputWindowSizes = NULL;
    EXPECT_INVALID(&f.od, "InputWindowSizes");
    s1_make(&f);
    f.d.InputWindowStrides = NULL;
    EXPECT_INVALID(&f.od, "InputWindowStrides");
    s1_make(&f);
    f.in.buf.Sizes = NULL;
    EXPECT_INVALID(&f.od, "Sizes");
}
END_TEST

/* ---- SLICE --------------------------------------------------------------- */

START_TEST(slice_rules)
{
    s_fixture f; s_make(&f);
    f.strides[0] = 0;
    EXPECT_INVALID(&f.od, "Strides");
    s_make(&f);
    f.offsets[1] = 2; /* 2 + (2-1)*3 = 5 >= 5 */
    EXPECT_INVALID(&f.od, "Offsets");
    s_make(&f);
    f.strides[0] = 3; /* 1 + 3 = 4 >= 4 */
    EXPECT_INVALID(&f.od, NULL);
    /* (Sizes-1)*Strides wraps around 32 bits: 2 * 2^31 = 2^32 -> 0 */
    static const uint32_t o3[2] = { 3, 2 };
    s_make(&f);
    h_tensor_init(&f.out, DML_TENSOR_DATA_TYPE_FLOAT32, 2, o3, NULL);
    f.sizes[0] = 3; f.strides[0] = 0x80000000u; f.offsets[0] = 0;
    EXPECT_INVALID(&f.od, NULL);
    /* offset + (Sizes-1)*Strides wraps: 0xFFFFFFFF + 1*2 */
    s_make(&f);
    f.offsets[0] = 0xFFFFFFFFu; f.strides[0] = 2;
    EXPECT_INVALID(&f.od, "Offsets");
    /* Sizes must equal the output's sizes */
    s_make(&f);
    f.sizes[1] = 1;
    EXPECT_INVALID(&f.od, "Sizes");
    s_make(&f);
    f.d.DimensionCount = 1;
    EXPECT_INVALID(&f.od, "DimensionCount");
    s_make(&f);
    f.out.buf.DataType = DML_TENSOR_DATA_TYPE_UINT32;
    EXPECT_INVALID(&f.od, "DataType");
    s_make(&f);
    f.d.Strides = NULL;
    EXPECT_INVALID(&f.od, "Strides");
    s_make(&f);
    f.d.Offsets = NULL;
    EXPECT_INVALID(&f.od, "Offsets");
    s_make(&f);
    f.d.Sizes = NULL;
    EXPECT_INVALID(&f.od, "Sizes");
    /* huge stride with one element is fine */
    static const uint32_t o1[2] = { 1, 2 };
    s_make(&f);
    h_tensor_init(&f.out, DML_TENSOR_DATA_TYPE_FLOAT32, 2, o1, NULL);
    f.sizes[0] = 1; f.strides[0] = 0xFFFFFFFFu;
    expect_create_ok(&f.od, "SLICE, stride 2^32-1 with one element");
}
END_TEST

/* ---- DEPTH_TO_SPACE, SPACE_TO_DEPTH and their *1 versions ---------------- */

START_TEST(depth_space_block_size)
{
    for (int k = 0; k < 4; ++k) {
        ds_fixture f; ds_make(&f, DS_TYPES[k]);
        f.d.BlockSize = f.d0.BlockSize = 0;
        EXPECT_INVALID(&f.od, "BlockSize = 0; must be >= 1");
        /* block 1 is the identity: the output is the input's shape */
        ds_make(&f, DS_TYPES[k]);
        f.d.BlockSize = f.d0.BlockSize = 1;
        EXPECT_INVALID(&f.od, "OutputTensor.Sizes");
        h_tensor_init(&f.out, DML_TENSOR_DATA_TYPE_FLOAT32, 4, f.in.sizes, NULL);
        expect_create_ok(&f.od, "BlockSize 1");
    }
}
END_TEST

START_TEST(depth_space_order)
{
    /* only the *1 versions have an Order */
    const DML_OPERATOR_TYPE types[2] = { DML_OPERATOR_DEPTH_TO_SPACE1, DML_OPERATOR_SPACE_TO_DEPTH1 };
    for (int k = 0; k < 2; ++k) {
        ds_fixture f; ds_make(&f, types[k]);
        f.d.Order = (DML_DEPTH_SPACE_ORDER)2;
        EXPECT_INVALID(&f.od, "Order = 2; must be DML_DEPTH_SPACE_ORDER_DEPTH_COLUMN_ROW (0) or "
            "DML_DEPTH_SPACE_ORDER_COLUMN_ROW_DEPTH (1)");
        f.d.Order = (DML_DEPTH_SPACE_ORDER)-1;
        EXPECT_INVALID(&f.od, "Order = -1");
    }
}
END_TEST

START_TEST(depth_space_rank)
{
    static const uint32_t d3[3] = { 8, 2, 3 }, s3[3] = { 2, 4, 6 }, d5[5] = { 1, 1, 8, 2, 3 }, s5[5] = { 1, 1, 2, 4, 6 };
    ds_fixture f; ds_make(&f, DML_OPERATOR_DEPTH_TO_SPACE1);
    h_tensor_init(&f.in, DML_TENSOR_DATA_TYPE_FLOAT32, 3, d3, NULL);
    h_tensor_init(&f.out, DML_TENSOR_DATA_TYPE_FLOAT32, 3, s3, NULL);
    EXPECT_INVALID(&f.od, "InputTensor.DimensionCount = 3; must be 4");
    ds_make(&f, DML_OPERATOR_DEPTH_TO_SPACE);
    h_tensor_init(&f.in, DML_TENSOR_DATA_TYPE_FLOAT32, 5, d5, NULL);
    h_tensor_init(&f.out, DML_TENSOR_DATA_TYPE_FLOAT32, 5, s5, NULL);
    EXPECT_INVALID(&f.od, "InputTensor.DimensionCount = 5; must be 4");
    ds_make(&f, DML_OPERATOR_DEPTH_TO_SPACE1);
    h_tensor_init(&f.out, DML_TENSOR_DATA_TYPE_FLOAT32, 5, s5, NULL);
    EXPECT_INVALID(&f.od, "OutputTensor.DimensionCount = 5; must be 4");
    ds_make(&f, DML_OPERATOR_SPACE_TO_DEPTH);
    h_tensor_init(&f.out, DML_TENSOR_DATA_TYPE_FLOAT32, 5, d5, NULL);
    EXPECT_INVALID(&f.od, "OutputTensor.DimensionCount = 5; must be 4");
}
END_TEST

START_TEST(depth_space_divisibility)
{
    /* DEPTH_TO_SPACE: channels a multiple of B*B */
    static const uint32_t c6[4] = { 1, 6, 2, 3 }, c2[4] = { 1, 2, 2, 3 };
    for (int v = 0; v < 2; ++v) {
        ds_fixture f; ds_make(&f, v ? DML_OPERATOR_DEPTH_TO_SPACE1 : DML_OPERATOR_DEPTH_TO_SPACE);
        h_tensor_init(&f.in, DML_TENSOR_DATA_TYPE_FLOAT32, 4, c6, NULL);
        EXPECT_INVALID(&f.od, "InputTensor.Sizes[1] = 6 (channels); must be a multiple of BlockSize * BlockSize = 4");
        ds_make(&f, v ? DML_OPERATOR_DEPTH_TO_SPACE1 : DML_OPERATOR_DEPTH_TO_SPACE);
        h_tensor_init(&f.in, DML_TENSOR_DATA_TYPE_FLOAT32, 4, c2, NULL);
        EXPECT_INVALID(&f.od, "must be a multiple of BlockSize * BlockSize = 4");
    }
    /* SPACE_TO_DEPTH: height and width multiples of B */
    static const uint32_t h5[4] = { 1, 2, 5, 6 }, w7[4] = { 1, 2, 4, 7 };
    for (int v = 0; v < 2; ++v) {
        const DML_OPERATOR_TYPE t = v ? DML_OPERATOR_SPACE_TO_DEPTH1 : DML_OPERATOR_SPACE_TO_DEPTH;
        ds_fixture f; ds_make(&f, t);
        h_tensor_init(&f.in, DML_TENSOR_DATA_TYPE_FLOAT32, 4, h5, NULL);
        EXPECT_INVALID(&f.od, "InputTensor.Sizes[2] = 5 (height); must be a multiple of BlockSize = 2");
        ds_make(&f, t);
        h_tensor_init(&f.in, DML_TENSOR_DATA_TYPE_FLOAT32, 4, w7, NULL);
        EXPECT_INVALID(&f.od, "InputTensor.Sizes[3] = 7 (width); must be a multiple of BlockSize = 2");
    }
}
END_TEST

static void depth_space_output_sizes_of(DML_OPERATOR_TYPE type)
{
    ds_fixture f; ds_make(&f, type);
    uint32_t right[4], wrong[4];
    memcpy(right, f.out.sizes, sizeof right);
    for (int d = 0; d < 4; ++d)
        for (int delta = -1; delta <= 1; delta += 2) {
            ds_make(&f, type);
            memcpy(wrong, right, sizeof wrong);
            wrong[d] = (uint32_t)((int)wrong[d] + delta);
            if (wrong[d] == 0)
                continue;
            h_tensor_init(&f.out, DML_TENSOR_DATA_TYPE_FLOAT32, 4, wrong, NULL);
            char want[64];
            snprintf(want, sizeof want, "OutputTensor.Sizes[%d] = %u; must be", d, wrong[d]);
            EXPECT_INVALID(&f.od, want);
        }
    /* the rule named with its value */
    ds_make(&f, type);
    const int to_space = type == DML_OPERATOR_DEPTH_TO_SPACE || type == DML_OPERATOR_DEPTH_TO_SPACE1;
    h_tensor_init(&f.out, DML_TENSOR_DATA_TYPE_FLOAT32, 4, to_space ? DS_DEPTH : DS_SPACE, NULL);
    EXPECT_INVALID(&f.od, to_space ? "OutputTensor.Sizes[1] = 8; must be InputTensor.Sizes[1] / (BlockSize * "
        "BlockSize) = 2" : "OutputTensor.Sizes[1] = 2; must be InputTensor.Sizes[1] * BlockSize * BlockSize = 8");
}

START_TEST(depth_space_output_sizes)
{
    for (int k = 0; k < 4; ++k)
        depth_space_output_sizes_of(DS_TYPES[k]);
}
END_TEST

START_TEST(depth_space_output_size_overflow)
{
    /* SPACE_TO_DEPTH: channels * B*B past 32 bits (65536 * 65536 = 2^32,
     * 0 in 32-bit arithmetic); a broadcast input keeps it small in memory. */
    static const uint32_t in_sizes[4] = { 1, 65536, 65536, 65536 }, zero[4] = { 0, 0, 0, 0 };
    static const uint32_t out_sizes[4] = { 1, 1, 1, 1 };
    ds_fixture f; ds_make(&f, DML_OPERATOR_SPACE_TO_DEPTH1);
    h_tensor_init(&f.in, DML_TENSOR_DATA_TYPE_UINT8, 4, in_sizes, zero);
    h_tensor_init(&f.out, DML_TENSOR_DATA_TYPE_UINT8, 4, out_sizes, NULL);
    f.d.BlockSize = 65536;
    EXPECT_INVALID(&f.od, "OutputTensor.Sizes[1] = 1; must be InputTensor.Sizes[1] * BlockSize * BlockSize, more "
        "than a 32-bit size holds");
    /* B*B itself past 32 bits (B = 2^17) */
    static const uint32_t in2[4] = { 1, 1, 131072, 131072 };
    ds_make(&f, DML_OPERATOR_SPACE_TO_DEPTH);
    h_tensor_init(&f.in, DML_TENSOR_DATA_TYPE_UINT8, 4, in2, zero);
    h_tensor_init(&f.out, DML_TENSOR_DATA_TYPE_UINT8, 4, out_sizes, NULL);
    f.d0.BlockSize = 131072;
    EXPECT_INVALID(&f.od, "more than a 32-bit size holds");
    /* DEPTH_TO_SPACE: height * B past 32 bits (2^31 * 2 = 2^32, 0 in 32-bit
     * arithmetic) */
    static const uint32_t d_in[4] = { 1, 4, 0x80000000u, 1 }, d_out[4] = { 1, 1, 1, 2 };
    ds_make(&f, DML_OPERATOR_DEPTH_TO_SPACE);
    h_tensor_init(&f.in, DML_TENSOR_DATA_TYPE_UINT8, 4, d_in, zero);
    h_tensor_init(&f.out, DML_TENSOR_DATA_TYPE_UINT8, 4, d_out, NULL);
    EXPECT_INVALID(&f.od, "OutputTensor.Sizes[2] = 1; must be InputTensor.Sizes[2] * BlockSize, more than a 32-bit "
        "size holds");
}
END_TEST

START_TEST(depth_space_data_types)
{
    for (int k = 0; k < 4; ++k) {
        ds_fixture f; ds_make(&f, DS_TYPES[k]);
        f.out.buf.DataType = DML_TENSOR_DATA_TYPE_INT32; /* same size, another type */
        EXPECT_INVALID(&f.od, "OutputTensor.DataType INT32 differs from InputTensor.DataType FLOAT32");
        for (uint32_t t = DML_TENSOR_DATA_TYPE_FLOAT32; t <= DML_TENSOR_DATA_TYPE_INT64; ++t) {
            ds_make(&f, DS_TYPES[k]);
            h_tensor_init(&f.in, (DML_TENSOR_DATA_TYPE)t, 4, f.in.sizes, NULL);
            h_tensor_init(&f.out, (DML_TENSOR_DATA_TYPE)t, 4, f.out.sizes, NULL);
            expect_create_ok(&f.od, h_type_name((DML_TENSOR_DATA_TYPE)t));
        }
    }
}
END_TEST

START_TEST(depth_space_tensors)
{
    for (int k = 0; k < 4; ++k) {
        ds_fixture f; ds_make(&f, DS_TYPES[k]);
        f.d.InputTensor = f.d0.InputTensor = NULL;
        EXPECT_INVALID(&f.od, "InputTensor");
        ds_make(&f, DS_TYPES[k]);
        f.d.OutputTensor = f.d0.OutputTensor = NULL;
        EXPECT_INVALID(&f.od, "OutputTensor");
        /* an output that broadcasts */
        static const uint32_t broadcast[4] = { 0, 0, 0, 1 };
        ds_make(&f, DS_TYPES[k]);
        h_tensor_init(&f.out, DML_TENSOR_DATA_TYPE_FLOAT32, 4, f.out.sizes, broadcast);
        EXPECT_INVALID(&f.od, "Output");
        /* a broadcast input is fine */
        ds_make(&f, DS_TYPES[k]);
        h_tensor_init(&f.in, DML_TENSOR_DATA_TYPE_FLOAT32, 4, f.in.sizes, broadcast);
        expect_create_ok(&f.od, "broadcast input");
    }
}
END_TEST

/* ---- TILE ---------------------------------------------------------------- */

START_TEST(tile_repeats_count)
{
    tile_fixture f; tile_make(&f);
    const uint32_t counts[] = { 0, 1, 3, 8, 9, 0xFFFFFFFFu };
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; ++i) {
        tile_make(&f);
        f.d.RepeatsCount = counts[i];
        EXPECT_INVALID(&f.od, "RepeatsCount");
    }
    /* the output's rank differs from the input's (and RepeatsCount's) */
    static const uint32_t o3[3] = { 6, 6, 1 };
    tile_make(&f);
    h_tensor_init(&f.out, DML_TENSOR_DATA_TYPE_FLOAT32, 3, o3, NULL);
    EXPECT_INVALID(&f.od, "DimensionCount");
    /* ... and RepeatsCount following the output instead of the input */
    tile_make(&f);
    h_tensor_init(&f.out, DML_TENSOR_DATA_TYPE_FLOAT32, 3, o3, NULL);
    f.d.RepeatsCount = 3;
    EXPECT_INVALID(&f.od, "RepeatsCount");
}
END_TEST

START_TEST(tile_repeats_null)
{
    tile_fixture f; tile_make(&f);
    f.d.Repeats = NULL;
    EXPECT_INVALID(&f.od, "Repeats");
}
END_TEST

START_TEST(tile_repeat_zero)
{
    /* The output keeps valid sizes: the rule broken is the repeat's own. */
    tile_fixture f; tile_make(&f);
    f.repeats[1] = 0;
    EXPECT_INVALID(&f.od, "dmlDeviceCreateOperator(TILE): Repeats[1] = 0; must be >= 1");
    tile_make(&f);
    f.repeats[0] = 0;
    EXPECT_INVALID(&f.od, "Repeats[0] = 0; must be >= 1");
    /* the output sized for the zero repeat is no way around it */
    static const uint32_t o0[2] = { 0, 6 };
    tile_make(&f);
    f.repeats[0] = 0;
    h_tensor_init(&f.out, DML_TENSOR_DATA_TYPE_FLOAT32, 2, o0, NULL);
    f.out.buf.TotalTensorSizeInBytes = 16;
    EXPECT_INVALID(&f.od, "Repeats[0] = 0; must be >= 1");
}
END_TEST

START_TEST(tile_output_sizes)
{
    static const uint32_t wrong[][2] = { { 6, 5 }, { 6, 7 }, { 3, 6 }, { 2, 3 }, { 12, 6 }, { 6, 12 } };
    for (size_t i = 0; i < sizeof wrong / sizeof wrong[0]; ++i) {
        tile_fixture f; tile_make(&f);
        h_tensor_init(&f.out, DML_TENSOR_DATA_TYPE_FLOAT32, 2, wrong[i], NULL);
        EXPECT_INVALID(&f.od, "OutputTensor.Sizes");
    }
    tile_fixture f; tile_make(&f);
    h_tensor_init(&f.out, DML_TENSOR_DATA_TYPE_FLOAT32, 2, (const uint32_t[]){ 6, 5 }, NULL);
    EXPECT_INVALID(&f.od, "InputTensor.Sizes[1] * Repeats[1] = 3 * 2 = 6");
    /* repeats of 1 copy: the output is the input's size */
    tile_make(&f);
    f.repeats[0] = f.repeats[1] = 1;
    EXPECT_INVALID(&f.od, "OutputTensor.Sizes[0]");
    h_tensor_init(&f.out, DML_TENSOR_DATA_TYPE_FLOAT32, 2, f.in.sizes, NULL);
    expect_create_ok(&f.od, "TILE with every repeat 1");
}
END_TEST

START_TEST(tile_output_size_overflow)
{
    /* 65536 * 65537 = 2^32 + 65536: 65536 in 32-bit arithmetic. */
    static const uint32_t in_sizes[2] = { 65536, 1 }, out_sizes[2] = { 65536, 1 };
    tile_fixture f; tile_make(&f);
    h_tensor_init(&f.in, DML_TENSOR_DATA_TYPE_UINT8, 2, in_sizes, NULL);
    h_tensor_init(&f.out, DML_TENSOR_DATA_TYPE_UINT8, 2, out_sizes, NULL);
    f.repeats[0] = 65537;
    f.repeats[1] = 1;
    EXPECT_INVALID(&f.od, "4295032832");
    /* 2^32 exactly wraps to 0: 2 * 2^31 */
    static const uint32_t two[1] = { 2 }, one[1] = { 1 };
    tile_make(&f);
    h_tensor_init(&f.in, DML_TENSOR_DATA_TYPE_UINT8, 1, two, NULL);
    h_tensor_init(&f.out, DML_TENSOR_DATA_TYPE_UINT8, 1, one, NULL);
    f.d.RepeatsCount = 1;
    f.repeats[0] = 0x80000000u;
    EXPECT_INVALID(&f.od, "OutputTensor.Sizes[0]");
    /* the largest size that fits is fine: 3 * 0x55555555 = 2^32 - 1 (a broadcast input of 3) */
    static const uint32_t three[1] = { 3 }, zero_stride[1] = { 0 }, most[1] = { 0xFFFFFFFFu };
    tile_make(&f);
    h_tensor_init(&f.in, DML_TENSOR_DATA_TYPE_UINT8, 1, three, zero_stride);
    h_tensor_init(&f.out, DML_TENSOR_DATA_TYPE_UINT8, 1, most, NULL);
    f.d.RepeatsCount = 1;
    f.repeats[0] = 0x55555555u;
    expect_create_ok(&f.od, "TILE to a 2^32 - 1 output");
}
END_TEST

START_TEST(tile_data_types)
{
    tile_fixture f; tile_make(&f);
    f.out.buf.DataType = DML_TENSOR_DATA_TYPE_INT32; /* same size, another type */
    EXPECT_INVALID(&f.od, "DataType");
    tile_make(&f);
    f.in.buf.DataType = DML_TENSOR_DATA_TYPE_FLOAT16;
    f.out.buf.DataType = DML_TENSOR_DATA_TYPE_UINT16;
    EXPECT_INVALID(&f.od, "DataType");
    /* every data type, FLOAT64 included */
    for (uint32_t t = DML_TENSOR_DATA_TYPE_FLOAT32; t <= DML_TENSOR_DATA_TYPE_INT64; ++t) {
        tile_make(&f);
        h_tensor_init(&f.in, (DML_TENSOR_DATA_TYPE)t, 2, f.in.sizes, NULL);
        h_tensor_init(&f.out, (DML_TENSOR_DATA_TYPE)t, 2, f.out.sizes, NULL);
        expect_create_ok(&f.od, h_type_name((DML_TENSOR_DATA_TYPE)t));
    }
}
END_TEST

START_TEST(tile_tensors)
{
    tile_fixture f; tile_make(&f);
    f.d.InputTensor = NULL;
    EXPECT_INVALID(&f.od, "InputTensor");
    tile_make(&f);
    f.d.OutputTensor = NULL;
    EXPECT_INVALID(&f.od, "OutputTensor");
    /* an output that broadcasts (two elements at one address) */
    static const uint32_t broadcast[2] = { 6, 0 };
    tile_make(&f);
    h_tensor_init(&f.out, DML_TENSOR_DATA_TYPE_FLOAT32, 2, f.out.sizes, broadcast);
    EXPECT_INVALID(&f.od, "Output");
    /* a broadcast input is fine, and so is a transposed output */
    static const uint32_t in_broadcast[2] = { 0, 1 }, transposed[2] = { 1, 6 };
    tile_make(&f);
    h_tensor_init(&f.in, DML_TENSOR_DATA_TYPE_FLOAT32, 2, f.in.sizes, in_broadcast);
    h_tensor_init(&f.out, DML_TENSOR_DATA_TYPE_FLOAT32, 2, f.out.sizes, transposed);
    expect_create_ok(&f.od, "broadcast input, transposed output");
    /* an output of more than 8 dimensions is the tensor rule's */
    static const uint32_t sizes9[9] = { 1, 1, 1, 1, 1, 1, 1, 2, 3 };
    tile_make(&f);
    f.in.buf.DimensionCount = 9; f.in.buf.Sizes = sizes9; f.in.buf.TotalTensorSizeInBytes = 24;
    f.d.RepeatsCount = 9;
    EXPECT_INVALID(&f.od, "DimensionCount");
}
END_TEST

/* ---- devices ------------------------------------------------------------- */

static void expect_device(const DML_DEVICE_DESC* d, DML_RESULT expected, const char* what)
{
    prime();
    DMLDevice dev = SENTINEL(DMLDevice);
    DML_RESULT r = dmlCreateDevice(d, &dev);
    if (DML_SUCCEEDED(r) && dev != SENTINEL(DMLDevice))
        dmlRelease(dev);
    ck_assert_msg(r == expected, "%s: dmlCreateDevice returned %s (0x%08x), expected %s", what, h_result_name(r),
                  (unsigned)r, h_result_name(expected));
    ck_assert_msg(UNTOUCHED(dev, DMLDevice), "%s: out handle changed", what);
    check_message(what, NULL);
}

START_TEST(device_rules)
{
    expect_device(NULL, DML_E_INVALIDARG, "NULL desc");
    DML_DEVICE_DESC d = h_device_desc();
    d.AdapterIndex = 1000;
    expect_device(&d, DML_E_INVALIDARG, "AdapterIndex 1000");
    d = h_device_desc();
    d.AdapterIndex = UINT32_MAX;
    expect_device(&d, DML_E_INVALIDARG, "AdapterIndex UINT32_MAX");
    d = h_device_desc();
    d.Flags = (DML_CREATE_DEVICE_FLAGS)0x80;
    expect_device(&d, DML_E_INVALIDARG, "Flags 0x80");
    d = h_device_desc();
    d.MinimumFeatureLevel = DML_FEATURE_LEVEL_5_1;
    expect_device(&d, DML_E_UNSUPPORTED, "MinimumFeatureLevel 5_1");
    d.MinimumFeatureLevel = DML_FEATURE_LEVEL_6_4;
    expect_device(&d, DML_E_UNSUPPORTED, "MinimumFeatureLevel 6_4");
    d = h_device_desc();
    d.Backend = "nosuch";
    expect_device(&d, DML_E_UNSUPPORTED, "Backend \"nosuch\"");
    prime();
    d = h_device_desc();
    ck_assert_int_eq(dmlCreateDevice(&d, NULL), DML_E_INVALIDARG);
    check_message("NULL out pointer", NULL);

    /* valid variations */
    const DML_FEATURE_LEVEL levels[] = { (DML_FEATURE_LEVEL)0, DML_FEATURE_LEVEL_1_0, DML_FEATURE_LEVEL_4_1,
                                         DML_FEATURE_LEVEL_5_0 };
    for (size_t i = 0; i < sizeof levels / sizeof levels[0]; ++i) {
        d = h_device_desc();
        d.MinimumFeatureLevel = levels[i];
        DMLDevice dev = NULL;
        h_assert_ok(dmlCreateDevice(&d, &dev));
        ck_assert_ptr_nonnull(dev);
        ck_assert_uint_eq(dmlRelease(dev), 0);
    }
    d = h_device_desc();
    d.Flags = DML_CREATE_DEVICE_FLAG_DEBUG;
    DMLDevice dev = NULL;
    h_assert_ok(dmlCreateDevice(&d, &dev));
    ck_assert_uint_eq(dmlRelease(dev), 0);
}
END_TEST

typedef struct captured {
    int calls;
    DML_MESSAGE_SEVERITY severity;
    char message[1024];
} captured;

static void capture(DML_MESSAGE_SEVERITY severity, const char* message, void* context)
{
    captured* c = context;
    ++c->calls;
    c->severity = severity;
    snprintf(c->message, sizeof c->message, "%s", message ? message : "(null)");
}

START_TEST(debug_device_messages)
{
    captured got;
    memset(&got, 0, sizeof got);
    dmlSetMessageCallback(capture, &got);

    DML_DEVICE_DESC d = h_device_desc();
    d.Flags = DML_CREATE_DEVICE_FLAG_DEBUG;
    DMLDevice dbg = NULL;
    h_assert_ok(dmlCreateDevice(&d, &dbg));
    int before = got.calls;
    s1_fixture f; s1_make(&f);
    f.strides[0] = 0;
    DMLOperator op = SENTINEL(DMLOperator);
    ck_assert_int_eq(dmlDeviceCreateOperator(dbg, &f.od, &op), DML_E_INVALIDARG);
    ck_assert(UNTOUCHED(op, DMLOperator));
    ck_assert_msg(got.calls > before, "a failing call on a DEBUG device did not reach the message callback");
    ck_assert_int_eq(got.severity, DML_MESSAGE_SEVERITY_ERROR);
    ck_assert_msg(strstr(got.message, dmlGetLastErrorMessage()) != NULL,
                  "callback message \"%s\" is not the error message \"%s\"", got.message, dmlGetLastErrorMessage());

    /* a device without the DEBUG flag stays quiet */
    before = got.calls;
    ck_assert_int_eq(dmlDeviceCreateOperator(H.device, &f.od, &op), DML_E_INVALIDARG);
    ck_assert_int_eq(got.calls, before);

    dmlSetMessageCallback(NULL, NULL);
    dmlRelease(dbg);
}
END_TEST

/* ---- feature support ----------------------------------------------------- */

START_TEST(feature_data_types)
{
    for (int t = 1; t <= 11; ++t) {
        DML_FEATURE_QUERY_TENSOR_DATA_TYPE_SUPPORT q = { (DML_TENSOR_DATA_TYPE)t };
        DML_FEATURE_DATA_TENSOR_DATA_TYPE_SUPPORT s = { 0 };
        h_assert_ok(dmlDeviceCheckFeatureSupport(H.device, DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT, sizeof q, &q,
                                                 sizeof s, &s));
        ck_assert_msg(s.IsSupported, "%s reported unsupported", h_type_name((DML_TENSOR_DATA_TYPE)t));
    }
    const int bad[] = { 0, 12, -1 };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        DML_FEATURE_QUERY_TENSOR_DATA_TYPE_SUPPORT q = { (DML_TENSOR_DATA_TYPE)bad[i] };
        DML_FEATURE_DATA_TENSOR_DATA_TYPE_SUPPORT s = { 77 };
        prime();
        ck_assert_int_eq(dmlDeviceCheckFeatureSupport(H.device, DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT, sizeof q, &q,
                                                      sizeof s, &s),
                         DML_E_INVALIDARG);
        ck_assert_int_eq(s.IsSupported, 77);
        check_message("data type query", NULL);
    }
}
END_TEST

/* The device reports the adapter it runs on: the backend the suite asked for. */
START_TEST(device_adapter_info)
{
    DML_ADAPTER_INFO info;
    memset(&info, 0, sizeof info);
    info.Size = sizeof info;
    h_assert_ok(dmlDeviceGetAdapterInfo(H.device, &info));
    ck_assert_str_eq(info.Backend, h_backend());
    ck_assert_uint_eq(info.AdapterIndex, 0);
    ck_assert_int_eq(info.MaxFeatureLevel, DML_FEATURE_LEVEL_5_0);
    ck_assert_msg(info.Description[0] != '\0', "empty adapter description");
    ck_assert_int_eq(dmlDeviceGetAdapterInfo(H.device, NULL), DML_E_INVALIDARG);
    ck_assert_msg(strstr(dmlGetLastErrorMessage(), "info") != NULL, "message: %s", dmlGetLastErrorMessage());
    ck_assert_int_eq(dmlDeviceGetAdapterInfo(NULL, &info), DML_E_INVALIDARG);
}
END_TEST

START_TEST(feature_levels)
{
    const DML_FEATURE_LEVEL req[3] = { DML_FEATURE_LEVEL_1_0, DML_FEATURE_LEVEL_5_0, DML_FEATURE_LEVEL_6_4 };
    DML_FEATURE_QUERY_FEATURE_LEVELS q = { 3, req };
    DML_FEATURE_DATA_FEATURE_LEVELS s = { (DML_FEATURE_LEVEL)0 };
    h_assert_ok(dmlDeviceCheckFeatureSupport(H.device, DML_FEATURE_FEATURE_LEVELS, sizeof q, &q, sizeof s, &s));
    ck_assert_int_eq(s.MaxSupportedFeatureLevel, DML_FEATURE_LEVEL_5_0);

    /* the highest requested level that is supported */
    const DML_FEATURE_LEVEL req2[2] = { DML_FEATURE_LEVEL_4_1, DML_FEATURE_LEVEL_1_0 };
    DML_FEATURE_QUERY_FEATURE_LEVELS q2 = { 2, req2 };
    s.MaxSupportedFeatureLevel = (DML_FEATURE_LEVEL)0;
    h_assert_ok(dmlDeviceCheckFeatureSupport(H.device, DML_FEATURE_FEATURE_LEVELS, sizeof q2, &q2, sizeof s, &s));
    ck_assert_int_eq(s.MaxSupportedFeatureLevel, DML_FEATURE_LEVEL_4_1);
}
END_TEST

START_TEST(feature_query_errors)
{
    const DML_FEATURE_LEVEL req[3] = { DML_FEATURE_LEVEL_1_0, DML_FEATURE_LEVEL_5_0, DML_FEATURE_LEVEL_6_4 };
    DML_FEATURE_QUERY_FEATURE_LEVELS q = { 3, req };
    DML_FEATURE_DATA_FEATURE_LEVELS s = { (DML_FEATURE_LEVEL)0x77 };
    prime();
    ck_assert_int_eq(dmlDeviceCheckFeatureSupport(H.device, DML_FEATURE_FEATURE_LEVELS, sizeof q - 1, &q, sizeof s, &s),
                     DML_E_INVALIDARG);
    check_message("querySize - 1", NULL);
    prime();
    ck_assert_int_eq(dmlDeviceCheckFeatureSupport(H.device, DML_FEATURE_FEATURE_LEVELS, sizeof q, &q, sizeof s + 4, &s),
                     DML_E_INVALIDARG);
    check_message("supportSize + 4", NULL);
    prime();
    ck_assert_int_eq(dmlDeviceCheckFeatureSupport(H.device, DML_FEATURE_FEATURE_LEVELS, sizeof q, NULL, sizeof s, &s),
                     DML_E_INVALIDARG);
    check_message("NULL query", NULL);
    prime();
    ck_assert_int_eq(dmlDeviceCheckFeatureSupport(H.device, DML_FEATURE_FEATURE_LEVELS, sizeof q, &q, sizeof s, NULL),
                     DML_E_INVALIDARG);
    check_message("NULL support", NULL);
    ck_assert_int_eq(s.MaxSupportedFeatureLevel, 0x77);

    DML_FEATURE_QUERY_TENSOR_DATA_TYPE_SUPPORT tq = { DML_TENSOR_DATA_TYPE_FLOAT32 };
    DML_FEATURE_DATA_TENSOR_DATA_TYPE_SUPPORT ts = { 77 };
    prime();
    ck_assert_int_eq(dmlDeviceCheckFeatureSupport(H.device, DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT, sizeof tq, &tq,
                                                  sizeof ts - 1, &ts),
                     DML_E_INVALIDARG);
    check_message("supportSize - 1", NULL);
    ck_assert_int_eq(ts.IsSupported, 77);

    prime();
    ck_assert_int_eq(dmlDeviceCheckFeatureSupport(H.device, (DML_FEATURE)99, sizeof q, &q, sizeof s, &s),
                     DML_E_UNSUPPORTED);
    check_message("feature 99", NULL);
    ck_assert_int_eq(s.MaxSupportedFeatureLevel, 0x77);

    prime();
    ck_assert_int_eq(dmlDeviceCheckFeatureSupport(NULL, DML_FEATURE_FEATURE_LEVELS, sizeof q, &q, sizeof s, &s),
                     DML_E_INVALIDARG);
    check_message("NULL device", NULL);
}
END_TEST

/* ---- bindings ------------------------------------------------------------ */

static DMLCompiledOperator compile_desc(const DML_OPERATOR_DESC* od)
{
    DMLOperator op = NULL;
    DMLCompiledOperator c = NULL;
    h_assert_ok(dmlDeviceCreateOperator(H.device, od, &op));
    h_assert_ok(dmlDeviceCompileOperator(H.device, op, DML_EXECUTION_FLAG_NONE, &c));
    dmlRelease(op);
    return c;
}

static DMLBindingTable table_for(DMLDispatchable d)
{
    DML_BINDING_TABLE_DESC td = { d };
    DMLBindingTable t = NULL;
    h_assert_ok(dmlDeviceCreateBindingTable(H.device, &td, &t));
    ck_assert_ptr_nonnull(t);
    return t;
}

static DML_BINDING_DESC bdesc(DML_BUFFER_BINDING* bb, DMLBuffer b, uint64_t offset, uint64_t size)
{
    bb->Buffer = b;
    bb->Offset = offset;
    bb->SizeInBytes = size;
    DML_BINDING_DESC d = { DML_BINDING_TYPE_BUFFER, bb };
    return d;
}

static void expect_bind(DML_RESULT r, const char* what, const char* field)
{
    ck_assert_msg(r == DML_E_INVALIDARG, "%s: bind returned %s (0x%08x), expected DML_E_INVALIDARG", what,
                  h_result_name(r), (unsigned)r);
    check_message(what, field);
}

/* SLICE1 baseline input values 0..19; expected output rows {1,3} x columns {4,1}. */
static const float S1_EXPECTED[4] = { 9, 6, 19, 16 };

static void s1_input_values(float* v)
{
    for (int i = 0; i < 20; ++i)
        v[i] = (float)i;
}

static void dispatch_and_check_s1(DMLCompiledOperator c, DMLBindingTable t, DMLBuffer out, uint64_t out_offset)
{
    h_assert_ok(dmlCommandRecorderRecordDispatch(H.recorder, H.queue, c, t));
    float got[4];
    h_read(&H, out, out_offset, got, sizeof got);
    for (int i = 0; i < 4; ++i)
        ck_assert_msg(got[i] == S1_EXPECTED[i], "output[%d] = %g, expected %g", i, (double)got[i],
                      (double)S1_EXPECTED[i]);
}

START_TEST(binding_counts)
{
    s1_fixture f; s1_make(&f);
    DMLCompiledOperator c = compile_desc(&f.od);
    DMLBindingTable t = table_for(c);
    DMLBuffer in = h_buffer(&H, 256, NULL), out = h_buffer(&H, 256, NULL);
    DML_BUFFER_BINDING bb[2];
    DML_BINDING_DESC bd[2] = { bdesc(&bb[0], in, 0, 80), bdesc(&bb[1], in, 128, 80) };
    prime();
    expect_bind(dmlBindingTableBindInputs(t, 2, bd), "2 inputs for SLICE1", NULL);
    prime();
    expect_bind(dmlBindingTableBindInputs(t, 0, NULL), "0 inputs for SLICE1", NULL);
    prime();
    expect_bind(dmlBindingTableBindInputs(t, 1, NULL), "NULL bindings", NULL);
    DML_BINDING_DESC od[2] = { bdesc(&bb[0], out, 0, 16), bdesc(&bb[1], out, 32, 16) };
    prime();
    expect_bind(dmlBindingTableBindOutputs(t, 2, od), "2 outputs for SLICE1", NULL);
    prime();
    expect_bind(dmlBindingTableBindOutputs(t, 0, NULL), "0 outputs for SLICE1", NULL);

    rs_fixture rs; rs_make(&rs);
    DMLCompiledOperator c2 = compile_desc(&rs.od);
    DMLBindingTable t2 = table_for(c2);
    prime();
    expect_bind(dmlBindingTableBindInputs(t2, 1, bd), "1 input for REVERSE_SUBSEQUENCES", NULL);
    prime();
    expect_bind(dmlBindingTableBindInputs(t2, 3, bd), "3 inputs for REVERSE_SUBSEQUENCES", NULL);
    prime();
    expect_bind(dmlBindingTableBindInputs(NULL, 1, bd), "NULL table", NULL);

    dmlRelease(t2); dmlRelease(c2);
    dmlRelease(t); dmlRelease(c);
    dmlRelease(in); dmlRelease(out);
}
END_TEST

START_TEST(binding_ranges)
{
    s1_fixture f; s1_make(&f);
    DMLCompiledOperator c = compile_desc(&f.od);
    DMLBindingTable t = table_for(c);
    DMLBuffer in = h_buffer(&H, 256, NULL);
    DML_BUFFER_BINDING bb;
    DML_BINDING_DESC bd;

    bd = bdesc(&bb, NULL, 0, 80);
    prime();
    expect_bind(dmlBindingTableBindInputs(t, 1, &bd), "NULL buffer", "Buffer");
    bd = bdesc(&bb, in, 192, 80); /* 272 > 256 */
    prime();
    expect_bind(dmlBindingTableBindInputs(t, 1, &bd), "range beyond the buffer", "Offset");
    bd = bdesc(&bb, in, 0, 257);
    prime();
    expect_bind(dmlBindingTableBindInputs(t, 1, &bd), "SizeInBytes beyond the buffer", "SizeInBytes");
    bd = bdesc(&bb, in, 0xFFFFFFFFFFFFFF00ull, 0x180); /* wraps to 0x80 */
    prime();
    expect_bind(dmlBindingTableBindInputs(t, 1, &bd), "Offset + SizeInBytes overflowing", "Offset");
    bd = bdesc(&bb, in, 256, 80);
    prime();
    expect_bind(dmlBindingTableBindInputs(t, 1, &bd), "Offset at the buffer's end", "Offset");
    bd = bdesc(&bb, in, 0, 79); /* TotalTensorSizeInBytes is 80 */
    prime();
    expect_bind(dmlBindingTableBindInputs(t, 1, &bd), "SizeInBytes < TotalTensorSizeInBytes", "SizeInBytes");
    bd = bdesc(&bb, in, 8, 80);
    prime();
    expect_bind(dmlBindingTableBindInputs(t, 1, &bd), "Offset 8", "Offset");
    bd = bdesc(&bb, in, 4, 80);
    prime();
    expect_bind(dmlBindingTableBindInputs(t, 1, &bd), "Offset 4", "Offset");

    /* valid: exactly at the end, with extra size */
    bd = bdesc(&bb, in, 176, 80);
    h_assert_ok(dmlBindingTableBindInputs(t, 1, &bd));
    bd = bdesc(&bb, in, 16, 240);
    h_assert_ok(dmlBindingTableBindInputs(t, 1, &bd));

    dmlRelease(t); dmlRelease(c); dmlRelease(in);
}
END_TEST

START_TEST(binding_tensor_alignment)
{
    s1_fixture f; s1_make(&f);
    f.in.buf.GuaranteedBaseOffsetAlignment = 64;
    f.out.buf.GuaranteedBaseOffsetAlignment = 32;
    DMLCompiledOperator c = compile_desc(&f.od);
    DMLBindingTable t = table_for(c);
    float values[20];
    s1_input_values(values);
    uint8_t init[512];
    memset(init, 0, sizeof init);
    memcpy(init + 64, values, sizeof values);
    DMLBuffer in = h_buffer(&H, 512, init), out = h_buffer(&H, 512, NULL);
    DML_BUFFER_BINDING bb;
    DML_BINDING_DESC bd = bdesc(&bb, in, 32, 80);
    prime();
    expect_bind(dmlBindingTableBindInputs(t, 1, &bd), "Offset 32 with alignment 64", "Offset");
    bd = bdesc(&bb, in, 16, 80);
    prime();
    expect_bind(dmlBindingTableBindInputs(t, 1, &bd), "Offset 16 with alignment 64", "Offset");
    bd = bdesc(&bb, out, 48, 16);
    prime();
    expect_bind(dmlBindingTableBindOutputs(t, 1, &bd), "output Offset 48 with alignment 32", "Offset");
    bd = bdesc(&bb, in, 64, 80);
    h_assert_ok(dmlBindingTableBindInputs(t, 1, &bd));
    bd = bdesc(&bb, out, 96, 16);
    h_assert_ok(dmlBindingTableBindOutputs(t, 1, &bd));
    dispatch_and_check_s1(c, t, out, 96);
    dmlRelease(t); dmlRelease(c); dmlRelease(in); dmlRelease(out);
}
END_TEST

START_TEST(binding_overlap)
{
    s1_fixture f; s1_make(&f);
    DMLCompiledOperator c = compile_desc(&f.od);
    float values[20];
    s1_input_values(values);
    DMLBuffer buf = h_buffer(&H, 256, NULL);
    h_write(&H, buf, 0, values, sizeof values);
    DML_BUFFER_BINDING bi, bo;
    DML_BINDING_DESC di = bdesc(&bi, buf, 0, 80), dout = bdesc(&bo, buf, 64, 16);

    /* inputs first, then an overlapping output */
    DMLBindingTable t = table_for(c);
    h_assert_ok(dmlBindingTableBindInputs(t, 1, &di));
    prime();
    expect_bind(dmlBindingTableBindOutputs(t, 1, &dout), "output [64,80) over input [0,80)", NULL);
    dout = bdesc(&bo, buf, 0, 256);
    prime();
    expect_bind(dmlBindingTableBindOutputs(t, 1, &dout), "output [0,256) over input [0,80)", NULL);
    dmlRelease(t);

    /* output first, then an overlapping input */
    t = table_for(c);
    dout = bdesc(&bo, buf, 64, 16);
    h_assert_ok(dmlBindingTableBindOutputs(t, 1, &dout));
    prime();
    expect_bind(dmlBindingTableBindInputs(t, 1, &di), "input [0,80) over output [64,80)", NULL);
    /* the input's extra SizeInBytes counts as its range */
    di = bdesc(&bi, buf, 0, 96);
    dout = bdesc(&bo, buf, 80, 16);
    h_assert_ok(dmlBindingTableBindOutputs(t, 1, &dout));
    prime();
    expect_bind(dmlBindingTableBindInputs(t, 1, &di), "input [0,96) over output [80,96)", NULL);
    /* adjacent ranges are fine: input [0,80), output [80,96) */
    di = bdesc(&bi, buf, 0, 80);
    h_assert_ok(dmlBindingTableBindInputs(t, 1, &di));
    dispatch_and_check_s1(c, t, buf, 80);
    dmlRelease(t);
    dmlRelease(c);
    dmlRelease(buf);
}
END_TEST

START_TEST(binding_bad_type)
{
    s1_fixture f; s1_make(&f);
    DMLCompiledOperator c = compile_desc(&f.od);
    DMLBindingTable t = table_for(c);
    DMLBuffer in = h_buffer(&H, 256, NULL), out = h_buffer(&H, 256, NULL);
    DML_BUFFER_BINDING bb;
    DML_BINDING_DESC bd = bdesc(&bb, in, 0, 80);
    bd.Type = (DML_BINDING_TYPE)7;
    prime();
    expect_bind(dmlBindingTableBindInputs(t, 1, &bd), "binding Type 7", "Type");
    bd = bdesc(&bb, in, 0, 80);
    bd.Desc = NULL;
    prime();
    expect_bind(dmlBindingTableBindInputs(t, 1, &bd), "BUFFER binding with NULL Desc", NULL);
    bd = bdesc(&bb, out, 0, 16);
    bd.Type = (DML_BINDING_TYPE)7;
    prime();
    expect_bind(dmlBindingTableBindOutputs(t, 1, &bd), "output binding Type 7", "Type");
    DML_BUFFER_ARRAY_BINDING arr = { 1, &bb };
    bd.Type = DML_BINDING_TYPE_BUFFER_ARRAY;
    bd.Desc = &arr;
    prime();
    expect_bind(dmlBindingTableBindOutputs(t, 1, &bd), "BUFFER_ARRAY for an operator output", NULL);
    dmlRelease(t); dmlRelease(c); dmlRelease(in); dmlRelease(out);
}
END_TEST

START_TEST(binding_failed_bind_keeps_previous)
{
    /* REVERSE_SUBSEQUENCES (two inputs): a failing BindInputs whose first entry is
     * valid must not replace anything. */
    rs_fixture f; rs_make(&f);
    DMLCompiledOperator c = compile_desc(&f.od);
    DMLBindingTable t = table_for(c);
    float values[24], other[24];
    for (int i = 0; i < 24; ++i) {
        values[i] = (float)(i + 1);
        other[i] = -1000.0f - (float)i;
    }
    uint32_t lengths[8] = { 3, 2, 0, 1, 3, 3, 2, 7 };
    DMLBuffer in = h_buffer(&H, sizeof values, values), in2 = h_buffer(&H, sizeof other, other);
    DMLBuffer len = h_buffer(&H, sizeof lengths, lengths);
    DMLBuffer out = h_buffer(&H, 256, NULL);
    DML_BUFFER_BINDING bb[2];
    DML_BINDING_DESC good[2] = { bdesc(&bb[0], in, 0, 96), bdesc(&bb[1], len, 0, 32) };
    h_assert_ok(dmlBindingTableBindInputs(t, 2, good));
    DML_BUFFER_BINDING ob;
    DML_BINDING_DESC gout = bdesc(&ob, out, 0, 96);
    h_assert_ok(dmlBindingTableBindOutputs(t, 1, &gout));

    DML_BUFFER_BINDING xb[2];
    DML_BINDING_DESC bad[2] = { bdesc(&xb[0], in2, 0, 96), bdesc(&xb[1], len, 8, 32) };
    prime();
    expect_bind(dmlBindingTableBindInputs(t, 2, bad), "second input misaligned", "Offset");
    DML_BUFFER_BINDING xo;
    DML_BINDING_DESC bout = bdesc(&xo, NULL, 0, 96);
    prime();
    expect_bind(dmlBindingTableBindOutputs(t, 1, &bout), "NULL output buffer", "Buffer");
    bout = bdesc(&xo, out, 128, 95);
    prime();
    expect_bind(dmlBindingTableBindOutputs(t, 1, &bout), "short output", "SizeInBytes");

    h_assert_ok(dmlCommandRecorderRecordDispatch(H.recorder, H.queue, c, t));
    float got[24], want[24];
    h_read(&H, out, 0, got, sizeof got);
    static const uint32_t sizes[3] = { 2, 3, 4 }, lsizes[3] = { 2, 1, 4 };
    ref_view vi = { 4, 3, sizes, NULL, (uint8_t*)values, sizeof values };
    ref_view vl = { 4, 3, lsizes, NULL, (uint8_t*)lengths, sizeof lengths };
    ref_view vo = { 4, 3, sizes, NULL, (uint8_t*)want, sizeof want };
    ref_reverse_subsequences(&vi, &vl, &vo, 1);
    ck_assert_float_eq(want[0], 9.0f); /* the reference itself: column 0 of batch 0 reversed over 3 */
    for (int i = 0; i < 24; ++i)
        ck_assert_msg(got[i] == want[i], "output[%d] = %g, expected %g", i, (double)got[i], (double)want[i]);
    dmlRelease(t); dmlRelease(c);
    dmlRelease(in); dmlRelease(in2); dmlRelease(len); dmlRelease(out);
}
END_TEST

/* ---- dispatch ------------------------------------------------------------ */

START_TEST(dispatch_wrong_table)
{
    s1_fixture f; s1_make(&f);
    DMLCompiledOperator a = compile_desc(&f.od), b = compile_desc(&f.od);
    DMLBindingTable ta = table_for(a);
    float values[20];
    s1_input_values(values);
    DMLBuffer in = h_buffer(&H, 80, values), out = h_buffer(&H, 16, NULL);
    DML_BUFFER_BINDING bi, bo;
    DML_BINDING_DESC di = bdesc(&bi, in, 0, 80), dout = bdesc(&bo, out, 0, 16);
    h_assert_ok(dmlBindingTableBindInputs(ta, 1, &di));
    h_assert_ok(dmlBindingTableBindOutputs(ta, 1, &dout));
    prime();
    DML_RESULT r = dmlCommandRecorderRecordDispatch(H.recorder, H.queue, b, ta);
    ck_assert_msg(r == DML_E_INVALIDARG, "dispatch of B with A's table returned %s", h_result_name(r));
    check_message("table of another operator", NULL);

    DMLOperatorInitializer init = NULL;
    h_assert_ok(dmlDeviceCreateOperatorInitializer(H.device, 1, &a, &init));
    DMLBindingTable ti = table_for(init);
    prime();
    r = dmlCommandRecorderRecordDispatch(H.recorder, H.queue, a, ti);
    ck_assert_msg(r == DML_E_INVALIDARG, "dispatch with the initializer's table returned %s", h_result_name(r));
    check_message("initializer's table", NULL);
    prime();
    r = dmlCommandRecorderRecordDispatch(H.recorder, H.queue, init, ta);
    ck_assert_msg(r == DML_E_INVALIDARG, "initializer dispatch with the operator's table returned %s",
                  h_result_name(r));
    check_message("operator's table for the initializer", NULL);

    /* NULL arguments */
    prime();
    ck_assert_int_eq(dmlCommandRecorderRecordDispatch(NULL, H.queue, a, ta), DML_E_INVALIDARG);
    check_message("NULL recorder", NULL);
    prime();
    ck_assert_int_eq(dmlCommandRecorderRecordDispatch(H.recorder, NULL, a, ta), DML_E_INVALIDARG);
    check_message("NULL queue", NULL);
    prime();
    ck_assert_int_eq(dmlCommandRecorderRecordDispatch(H.recorder, H.queue, NULL, ta), DML_E_INVALIDARG);
    check_message("NULL dispatchable", NULL);
    prime();
    ck_assert_int_eq(dmlCommandRecorderRecordDispatch(H.recorder, H.queue, a, NULL), DML_E_INVALIDARG);
    check_message("NULL table", NULL);

    /* and the right pairing still works */
    dispatch_and_check_s1(a, ta, out, 0);
    dmlRelease(ti); dmlRelease(init); dmlRelease(ta);
    dmlRelease(a); dmlRelease(b); dmlRelease(in); dmlRelease(out);
}
END_TEST

START_TEST(dispatch_missing_bindings)
{
    s1_fixture f; s1_make(&f);
    DMLCompiledOperator c = compile_desc(&f.od);
    float values[20];
    s1_input_values(values);
    DMLBuffer in = h_buffer(&H, 80, values), out = h_buffer(&H, 16, NULL);
    DML_BUFFER_BINDING bi, bo;
    DML_BINDING_DESC di = bdesc(&bi, in, 0, 80), dout = bdesc(&bo, out, 0, 16);

    DMLBindingTable t = table_for(c);
    h_assert_ok(dmlBindingTableBindInputs(t, 1, &di));
    prime();
    h_assert_result(dmlCommandRecorderRecordDispatch(H.recorder, H.queue, c, t), DML_E_INVALID_CALL);
    check_message("output not bound", NULL);
    dmlRelease(t);

    t = table_for(c);
    h_assert_ok(dmlBindingTableBindOutputs(t, 1, &dout));
    prime();
    h_assert_result(dmlCommandRecorderRecordDispatch(H.recorder, H.queue, c, t), DML_E_INVALID_CALL);
    check_message("input not bound", NULL);

    /* a NONE binding for a required (not owned) input: rejected at bind, or at dispatch */
    DML_BINDING_DESC none = { DML_BINDING_TYPE_NONE, NULL };
    prime();
    DML_RESULT r = dmlBindingTableBindInputs(t, 1, &none);
    if (r == DML_S_OK) {
        prime();
        h_assert_result(dmlCommandRecorderRecordDispatch(H.recorder, H.queue, c, t), DML_E_INVALID_CALL);
        check_message("required input bound as NONE", NULL);
    } else {
        expect_bind(r, "required input bound as NONE", NULL);
    }

    /* Reset(NULL) clears the bindings */
    h_assert_ok(dmlBindingTableBindInputs(t, 1, &di));
    h_assert_ok(dmlBindingTableReset(t, NULL));
    prime();
    h_assert_result(dmlCommandRecorderRecordDispatch(H.recorder, H.queue, c, t), DML_E_INVALID_CALL);
    check_message("after Reset(NULL)", NULL);
    h_assert_ok(dmlBindingTableBindInputs(t, 1, &di));
    h_assert_ok(dmlBindingTableBindOutputs(t, 1, &dout));
    dispatch_and_check_s1(c, t, out, 0);
    dmlRelease(t);
    dmlRelease(c); dmlRelease(in); dmlRelease(out);
}
END_TEST

START_TEST(dispatch_missing_persistent)
{
    /* An OWNED_BY_DML input: executing without the persistent resource bound. */
    s1_fixture f; s1_make(&f);
    f.in.buf.Flags = DML_TENSOR_FLAG_OWNED_BY_DML;
    DMLCompiledOperator c = compile_desc(&f.od);
    DML_BINDING_PROPERTIES p = dmlDispatchableGetBindingProperties(c);
    ck_assert_uint_gt(p.PersistentResourceSize, 0);
    DMLBuffer out = h_buffer(&H, 16, NULL);
    DMLBindingTable t = table_for(c);
    DML_BINDING_DESC none = { DML_BINDING_TYPE_NONE, NULL };
    h_assert_ok(dmlBindingTableBindInputs(t, 1, &none));
    DML_BUFFER_BINDING bo;
    DML_BINDING_DESC dout = bdesc(&bo, out, 0, 16);
    h_assert_ok(dmlBindingTableBindOutputs(t, 1, &dout));
    prime();
    h_assert_result(dmlCommandRecorderRecordDispatch(H.recorder, H.queue, c, t), DML_E_INVALID_CALL);
    check_message("persistent resource not bound", NULL);

    /* a persistent binding smaller than PersistentResourceSize is rejected */
    DMLBuffer pers = h_buffer(&H, p.PersistentResourceSize, NULL);
    DML_BUFFER_BINDING bp;
    DML_BINDING_DESC dp = bdesc(&bp, pers, 0, p.PersistentResourceSize - 1);
    prime();
    expect_bind(dmlBindingTableBindPersistentResource(t, &dp), "short persistent resource", NULL);
    dmlRelease(t); dmlRelease(c); dmlRelease(out); dmlRelease(pers);
}
END_TEST

START_TEST(initializer_bindings)
{
    /* SLICE1 with an OWNED_BY_DML input: the initializer takes one
     * DML_BUFFER_ARRAY_BINDING (one entry per operator input) and the persistent
     * resource as its output. */
    s1_fixture f; s1_make(&f);
    f.in.buf.Flags = DML_TENSOR_FLAG_OWNED_BY_DML;
    DMLCompiledOperator c = compile_desc(&f.od);
    DMLOperatorInitializer init = NULL;
    h_assert_ok(dmlDeviceCreateOperatorInitializer(H.device, 1, &c, &init));
    DML_BINDING_PROPERTIES p = dmlDispatchableGetBindingProperties(c);
    ck_assert_uint_gt(p.PersistentResourceSize, 0);
    DML_BINDING_PROPERTIES ip = dmlDispatchableGetBindingProperties(init);
    ck_assert_uint_eq(ip.PersistentResourceSize, 0);
    float values[20];
    s1_input_values(values);
    DMLBuffer in = h_buffer(&H, 80, values), out = h_buffer(&H, 16, NULL);
    DMLBuffer pers = h_buffer(&H, p.PersistentResourceSize, NULL);
    DMLBindingTable ti = table_for(init);

    DML_BUFFER_BINDING bb[2] = { { in, 0, 80 }, { in, 0, 80 } };
    DML_BUFFER_ARRAY_BINDING arr = { 2, bb };
    DML_BINDING_DESC bd = { DML_BINDING_TYPE_BUFFER_ARRAY, &arr };
    prime();
    expect_bind(dmlBindingTableBindInputs(ti, 1, &bd), "BUFFER_ARRAY with 2 entries for a 1-input operator", NULL);
    arr.BindingCount = 1;
    DML_BINDING_DESC two[2] = { bd, bd };
    prime();
    expect_bind(dmlBindingTableBindInputs(ti, 2, two), "2 array bindings for 1 operator", NULL);
    DML_BINDING_DESC plain = { DML_BINDING_TYPE_BUFFER, &bb[0] };
    prime();
    expect_bind(dmlBindingTableBindInputs(ti, 1, &plain), "BUFFER instead of BUFFER_ARRAY", NULL);
    bb[0].SizeInBytes = 79;
    prime();
    expect_bind(dmlBindingTableBindInputs(ti, 1, &bd), "owned input SizeInBytes 79 < 80", "SizeInBytes");
    bb[0].SizeInBytes = 80;

    /* missing bindings at dispatch */
    DML_BUFFER_BINDING pb = { pers, 0, p.PersistentResourceSize };
    DML_BINDING_DESC pd = { DML_BINDING_TYPE_BUFFER, &pb };
    h_assert_ok(dmlBindingTableBindOutputs(ti, 1, &pd));
    prime();
    h_assert_result(dmlCommandRecorderRecordDispatch(H.recorder, H.queue, init, ti), DML_E_INVALID_CALL);
    check_message("initializer without its owned input", NULL);
    h_assert_ok(dmlBindingTableReset(ti, NULL));
    h_assert_ok(dmlBindingTableBindInputs(ti, 1, &bd));
    prime();
    h_assert_result(dmlCommandRecorderRecordDispatch(H.recorder, H.queue, init, ti), DML_E_INVALID_CALL);
    check_message("initializer without the persistent resource", NULL);

    /* the right way: then the input buffer is clobbered and the result still right */
    h_assert_ok(dmlBindingTableBindOutputs(ti, 1, &pd));
    h_assert_ok(dmlCommandRecorderRecordDispatch(H.recorder, H.queue, init, ti));
    float junk[20];
    for (int i = 0; i < 20; ++i)
        junk[i] = -1.0f;
    h_write(&H, in, 0, junk, sizeof junk);
    DMLBindingTable t = table_for(c);
    DML_BINDING_DESC none = { DML_BINDING_TYPE_NONE, NULL };
    h_assert_ok(dmlBindingTableBindInputs(t, 1, &none));
    DML_BUFFER_BINDING ob;
    DML_BINDING_DESC od = bdesc(&ob, out, 0, 16);
    h_assert_ok(dmlBindingTableBindOutputs(t, 1, &od));
    h_assert_ok(dmlBindingTableBindPersistentResource(t, &pd));
    dispatch_and_check_s1(c, t, out, 0);
    dmlRelease(t); dmlRelease(ti); dmlRelease(init); dmlRelease(c);
    dmlRelease(in); dmlRelease(out); dmlRelease(pers);
}
END_TEST

START_TEST(adapters)
{
    uint32_t count = 0;
    h_assert_ok(dmlEnumerateAdapters(&count, NULL));
    ck_assert_uint_ge(count, 1);
    DML_ADAPTER_INFO* a = calloc(count + 1, sizeof *a);
    ck_assert_ptr_nonnull(a);
    for (uint32_t i = 0; i <= count; ++i)
        a[i].Size = sizeof a[i];
    uint32_t n = count + 1;
    h_assert_ok(dmlEnumerateAdapters(&n, a));
    ck_assert_uint_eq(n, count);
    int found = 0;
    for (uint32_t i = 0; i < n; ++i) {
        ck_assert_msg(memchr(a[i].Backend, '\0', sizeof a[i].Backend) != NULL, "Backend not terminated");
        ck_assert_msg(memchr(a[i].Description, '\0', sizeof a[i].Description) != NULL, "Description not terminated");
        if (strcmp(a[i].Backend, h_backend()) == 0 && a[i].AdapterIndex == 0) {
            found = 1;
            ck_assert_int_eq(a[i].MaxFeatureLevel, DML_FEATURE_LEVEL_5_0);
            if (strcmp(a[i].Backend, "cpu") == 0)
                ck_assert_msg(a[i].IsSoftware, "the cpu adapter is not marked IsSoftware");
        }
    }
    ck_assert_msg(found, "no adapter 0 of backend \"%s\" enumerated", h_backend());
    if (count > 1) {
        /* fewer slots than adapters: fills what fits */
        uint32_t one = 1;
        memset(a, 0x55, sizeof *a);
        a[0].Size = sizeof a[0];
        ck_assert(DML_SUCCEEDED(dmlEnumerateAdapters(&one, a)));
        ck_assert_uint_eq(one, 1);
    }
    prime();
    ck_assert_int_eq(dmlEnumerateAdapters(NULL, a), DML_E_INVALIDARG);
    check_message("NULL count", NULL);
    free(a);
}
END_TEST

/* ---- other out-parameters -------------------------------------------------- */

START_TEST(out_params_untouched)
{
    s1_fixture f; s1_make(&f);
    DMLOperator op = NULL;
    h_assert_ok(dmlDeviceCreateOperator(H.device, &f.od, &op));

    prime();
    DMLCompiledOperator c = SENTINEL(DMLCompiledOperator);
    ck_assert_int_eq(dmlDeviceCompileOperator(H.device, op, (DML_EXECUTION_FLAGS)0x100, &c), DML_E_INVALIDARG);
    ck_assert(UNTOUCHED(c, DMLCompiledOperator));
    check_message("execution flags 0x100", "flags");
    prime();
    c = SENTINEL(DMLCompiledOperator);
    ck_assert_int_eq(dmlDeviceCompileOperator(H.device, NULL, DML_EXECUTION_FLAG_NONE, &c), DML_E_INVALIDARG);
    ck_assert(UNTOUCHED(c, DMLCompiledOperator));
    check_message("NULL operator", NULL);
    prime();
    c = SENTINEL(DMLCompiledOperator);
    ck_assert_int_eq(dmlDeviceCompileOperator(H.device, (DMLOperator)(void*)H.queue, DML_EXECUTION_FLAG_NONE, &c),
                     DML_E_INVALIDARG);
    ck_assert(UNTOUCHED(c, DMLCompiledOperator));
    check_message("a queue passed as an operator", NULL);

    c = NULL;
    h_assert_ok(dmlDeviceCompileOperator(H.device, op, DML_EXECUTION_FLAG_NONE, &c));
    prime();
    DMLOperatorInitializer init = SENTINEL(DMLOperatorInitializer);
    ck_assert_int_eq(dmlDeviceCreateOperatorInitializer(H.device, 1, NULL, &init), DML_E_INVALIDARG);
    ck_assert(UNTOUCHED(init, DMLOperatorInitializer));
    check_message("initializer with NULL ops", NULL);
    DMLCompiledOperator bad[1] = { (DMLCompiledOperator)(void*)op };
    prime();
    init = SENTINEL(DMLOperatorInitializer);
    ck_assert_int_eq(dmlDeviceCreateOperatorInitializer(H.device, 1, bad, &init), DML_E_INVALIDARG);
    ck_assert(UNTOUCHED(init, DMLOperatorInitializer));
    check_message("initializer of an uncompiled operator", NULL);

    prime();
    DMLBindingTable t = SENTINEL(DMLBindingTable);
    DML_BINDING_TABLE_DESC td = { (DMLDispatchable)op };
    ck_assert_int_eq(dmlDeviceCreateBindingTable(H.device, &td, &t), DML_E_INVALIDARG);
    ck_assert(UNTOUCHED(t, DMLBindingTable));
    check_message("binding table for an operator (not dispatchable)", NULL);

    prime();
    DMLBuffer b = SENTINEL(DMLBuffer);
    ck_assert_int_eq(dmlDeviceCreateBuffer(NULL, 64, &b), DML_E_INVALIDARG);
    ck_assert(UNTOUCHED(b, DMLBuffer));
    prime();
    DMLCommandQueue q = SENTINEL(DMLCommandQueue);
    ck_assert_int_eq(dmlDeviceCreateCommandQueue(NULL, NULL, &q), DML_E_INVALIDARG);
    ck_assert(UNTOUCHED(q, DMLCommandQueue));
    check_message("queue on a NULL device", NULL);
    prime();
    DMLCommandRecorder rec = SENTINEL(DMLCommandRecorder);
    ck_assert_int_eq(dmlDeviceCreateCommandRecorder(NULL, &rec), DML_E_INVALIDARG);
    ck_assert(UNTOUCHED(rec, DMLCommandRecorder));
    check_message("recorder on a NULL device", NULL);

    prime();
    DML_BINDING_PROPERTIES p = dmlDispatchableGetBindingProperties(NULL);
    ck_assert_uint_eq(p.RequiredDescriptorCount, 0);
    ck_assert_uint_eq(p.TemporaryResourceSize, 0);
    ck_assert_uint_eq(p.PersistentResourceSize, 0);
    check_message("binding properties of NULL", NULL);

    prime();
    ck_assert_int_eq(dmlSetName(NULL, "x"), DML_E_INVALIDARG);
    check_message("dmlSetName(NULL)", NULL);

    dmlRelease(c);
    dmlRelease(op);
}
END_TEST

START_TEST(buffer_io_ranges)
{
    DMLBuffer b = h_buffer(&H, 64, NULL);
    uint8_t data[80];
    memset(data, 1, sizeof data);
    prime();
    ck_assert_int_eq(dmlCommandQueueWriteBuffer(H.queue, b, 0, data, 65), DML_E_INVALIDARG);
    check_message("write past the end", NULL);
    prime();
    ck_assert_int_eq(dmlCommandQueueReadBuffer(H.queue, b, 60, data, 8), DML_E_INVALIDARG);
    check_message("read past the end", NULL);
    prime();
    ck_assert_int_eq(dmlCommandQueueReadBuffer(H.queue, b, UINT64_MAX - 3, data, 8), DML_E_INVALIDARG);
    check_message("read range overflowing", NULL);
    prime();
    ck_assert_int_eq(dmlCommandQueueWriteBuffer(H.queue, NULL, 0, data, 8), DML_E_INVALIDARG);
    check_message("write to NULL buffer", NULL);
    /* nothing was written */
    uint8_t got[64];
    h_read(&H, b, 0, got, sizeof got);
    for (int i = 0; i < 64; ++i)
        ck_assert_uint_eq(got[i], 0);
    dmlRelease(b);
}
END_TEST

static Suite* validation_suite(void)
{
    Suite* s = suite_create("validation");
    struct { const char* name; const TTest* tests[24]; } groups[] = {
        { "operator", { baselines_are_valid, operator_type_not_implemented, operator_type_unknown,
                        operator_desc_null, operator_bad_handles, NULL } },
        { "tensor", { tensor_null, tensor_type_not_buffer, tensor_null_buffer_desc, tensor_dimension_count,
                      tensor_size_zero, tensor_data_type, tensor_flags, tensor_total_size_too_small,
                      tensor_alignment, tensor_size_overflow, tensor_output_broadcast, tensor_output_aliasing,
                      NULL } },
        { "reverse_subsequences", { rs_dimension_count_mismatch, rs_output_differs, rs_lengths_sizes,
                                    rs_lengths_data_type, rs_axis, NULL } },
        { "slice1", { s1_dimension_count, s1_data_types_differ, s1_window_size_zero, s1_window_out_of_bounds,
                      s1_stride_zero, s1_output_size_zero, s1_output_too_large, s1_null_arrays, NULL } },
        { "slice", { slice_rules, NULL } },
        { "tile", { tile_repeats_count, tile_repeats_null, tile_repeat_zero, tile_output_sizes,
                    tile_output_size_overflow, tile_data_types, tile_tensors, NULL } },
        { "depth_space", { depth_space_block_size, depth_space_order, depth_space_rank, depth_space_divisibility,
                           depth_space_output_sizes, depth_space_output_size_overflow, depth_space_data_types,
                           depth_space_tensors, NULL } },
        { "device", { device_rules, adapters, device_adapter_info, debug_device_messages, feature_data_types, feature_levels, feature_query_errors, NULL } },
        { "bindings", { binding_counts, binding_ranges, binding_tensor_alignment, binding_overlap,
                        binding_bad_type, binding_failed_bind_keeps_previous, initializer_bindings, NULL } },
        { "dispatch", { dispatch_wrong_table, dispatch_missing_bindings, dispatch_missing_persistent,
                        out_params_untouched, buffer_io_ranges, NULL } },
    };
    for (size_t g = 0; g < sizeof groups / sizeof groups[0]; ++g) {
        TCase* tc = tcase_create(groups[g].name);
        tcase_add_checked_fixture(tc, setup, teardown);
        tcase_set_timeout(tc, 60);
        for (int i = 0; groups[g].tests[i]; ++i)
            tcase_add_test(tc, groups[g].tests[i]);
        suite_add_tcase(s, tc);
    }
    return s;
}

int main(void)
{
    SRunner* sr = srunner_create(validation_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

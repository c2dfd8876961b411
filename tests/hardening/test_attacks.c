/*
 * test_attacks.c — known attack classes on descs and bindings, as regression
 * tests: each gives the specified code and a non-empty message, never a crash,
 * and nothing is allocated for the huge descs (only CreateOperator /
 * CompileOperator / DMLCalcBufferTensorSize see them).
 * Backend: DML_TEST_BACKEND (default "cpu"); CMake also runs it on "cudaemu".
 */
#include "api/harness.h"
#include "api/reference.h"

#include <check.h>
#include <stdint.h>
#include <string.h>

static harness H;

static void setup(void)
{
    h_init(&H);
}

static void teardown(void)
{
    h_fini(&H);
}

/* CreateOperator's result; on failure also checks the message and that the
 * out-parameter was left alone. On success compiles and releases. */
static DML_RESULT create(const DML_OPERATOR_DESC* desc)
{
    DMLOperator op = NULL;
    DML_RESULT r = dmlDeviceCreateOperator(H.device, desc, &op);
    if (r < 0) {
        ck_assert_ptr_null(op);
        ck_assert_msg(dmlGetLastErrorMessage()[0] != '\0', "no message for 0x%08x", (unsigned)r);
        return r;
    }
    DMLCompiledOperator co = NULL;
    h_assert_ok(dmlDeviceCompileOperator(H.device, op, DML_EXECUTION_FLAG_NONE, &co));
    dmlRelease(co);
    dmlRelease(op);
    return r;
}

#define expect_invalid(desc) h_assert_result(create(desc), DML_E_INVALIDARG)

/* ---- REVERSE_SUBSEQUENCES ----------------------------------------------------- */

typedef struct rev {
    h_tensor in, len, out;
    DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC d;
    DML_OPERATOR_DESC op;
} rev;

static void rev_init(rev* r, uint32_t rank, const uint32_t* sizes, uint32_t axis)
{
    uint32_t ls[8];
    memcpy(ls, sizes, rank * sizeof *sizes);
    if (axis < rank)
        ls[axis] = 1;
    h_tensor_init(&r->in, DML_TENSOR_DATA_TYPE_FLOAT32, rank, sizes, NULL);
    h_tensor_init(&r->len, DML_TENSOR_DATA_TYPE_UINT32, rank, ls, NULL);
    h_tensor_init(&r->out, DML_TENSOR_DATA_TYPE_FLOAT32, rank, sizes, NULL);
    r->d.InputTensor = &r->in.desc;
    r->d.SequenceLengthsTensor = &r->len.desc;
    r->d.OutputTensor = &r->out.desc;
    r->d.Axis = axis;
    r->op.Type = DML_OPERATOR_REVERSE_SUBSEQUENCES;
    r->op.Desc = &r->d;
}

START_TEST(axis_past_rank_and_uint32_max)
{
    static const uint32_t sizes[4] = { 1, 2, 3, 4 };
    static const uint32_t axes[] = { 4, 5, 8, 9, 0x80000000u, UINT32_MAX };
    for (size_t i = 0; i < sizeof axes / sizeof axes[0]; i++) {
        rev r;
        rev_init(&r, 4, sizes, 3);
        r.d.Axis = axes[i];
        expect_invalid(&r.op);
    }
}
END_TEST

/* Lengths 0, above the axis, at the type maximum: accepted, and reads stay
 * inside the bound ranges (the output matches the reference: clamped). */
static void run_lengths(DML_TENSOR_DATA_TYPE ltype, const uint64_t* values, uint32_t n)
{
    const uint32_t sizes[2] = { n, 5 };
    const uint32_t axis = 1;
    rev r;
    rev_init(&r, 2, sizes, axis);
    h_tensor_init(&r.len, ltype, 2, (const uint32_t[]){ n, 1 }, NULL);
    const uint32_t ls = h_elem_size(ltype);
    uint8_t lengths[256];
    for (uint32_t i = 0; i < n; i++)
        memcpy(lengths + i * ls, &values[i], ls);
    float input[64], got[64], want[64];
    for (uint32_t i = 0; i < n * 5; i++)
        input[i] = (float)i;
    memset(want, 0, sizeof want);
    DMLBuffer bi = h_buffer(&H, 256, input), bl = h_buffer(&H, 256, lengths), bo = h_buffer(&H, 256, NULL);
    h_bind ins[2] = { { bi, 0, r.in.buf.TotalTensorSizeInBytes, 0 }, { bl, 0, r.len.buf.TotalTensorSizeInBytes, 0 } };
    h_bind out = { bo, 0, r.out.buf.TotalTensorSizeInBytes, 0 };
    h_assert_ok(run_operator(&H, &r.op, DML_EXECUTION_FLAG_NONE, 2, ins, &out, got, n * 5 * sizeof(float)));
    ref_view vi = { 4, 2, sizes, NULL, (uint8_t*)input, sizeof input };
    ref_view vl = { ls, 2, r.len.sizes, NULL, lengths, sizeof lengths };
    ref_view vo = { 4, 2, sizes, NULL, (uint8_t*)want, sizeof want };
    ref_reverse_subsequences(&vi, &vl, &vo, axis);
    ck_assert_mem_eq(got, want, n * 5 * sizeof(float));
    dmlRelease(bi);
    dmlRelease(bl);
    dmlRelease(bo);
}

START_TEST(lengths_zero_above_axis_and_type_max)
{
    const uint64_t v32[] = { 0, 1, 5, 6, 1000, 0x7fffffff, 0x80000000u, UINT32_MAX };
    run_lengths(DML_TENSOR_DATA_TYPE_UINT32, v32, 8);
    const uint64_t v64[] = { 0, 6, UINT32_MAX, (uint64_t)UINT32_MAX + 1, INT64_MAX, (uint64_t)INT64_MAX + 1,
        UINT64_MAX - 1, UINT64_MAX };
    run_lengths(DML_TENSOR_DATA_TYPE_UINT64, v64, 8);
}
END_TEST

START_TEST(lengths_of_other_types_are_invalid)
{
    static const uint32_t sizes[2] = { 2, 3 };
    static const DML_TENSOR_DATA_TYPE bad[] = { DML_TENSOR_DATA_TYPE_INT32, DML_TENSOR_DATA_TYPE_INT64,
        DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_UINT16, DML_TENSOR_DATA_TYPE_UNKNOWN,
        (DML_TENSOR_DATA_TYPE)12, (DML_TENSOR_DATA_TYPE)-1 };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        rev r;
        rev_init(&r, 2, sizes, 1);
        r.len.buf.DataType = bad[i];
        r.len.buf.TotalTensorSizeInBytes = 64;
        expect_invalid(&r.op);
    }
}
END_TEST

/* ---- zero sizes, dimension counts ------------------------------------------------ */

START_TEST(zero_size_dimensions)
{
    for (uint32_t d = 0; d < 4; d++) {
        uint32_t sizes[4] = { 1, 2, 3, 4 };
        sizes[d] = 0;
        rev r;
        rev_init(&r, 4, (const uint32_t[]){ 1, 2, 3, 4 }, 3);
        r.in.sizes[d] = 0;
        expect_invalid(&r.op);
        rev_init(&r, 4, (const uint32_t[]){ 1, 2, 3, 4 }, 3);
        r.out.sizes[d] = 0;
        expect_invalid(&r.op);
        rev_init(&r, 4, (const uint32_t[]){ 1, 2, 3, 4 }, 3);
        r.len.sizes[d] = 0;
        expect_invalid(&r.op);
        (void)sizes;
    }
}
END_TEST

START_TEST(dimension_counts_zero_and_above_eight)
{
    static const uint32_t counts[] = { 0, 9, 64, UINT32_MAX };
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
        rev r;
        rev_init(&r, 1, (const uint32_t[]){ 4 }, 0);
        r.in.buf.DimensionCount = r.len.buf.DimensionCount = r.out.buf.DimensionCount = counts[i];
        expect_invalid(&r.op);
    }
}
END_TEST

/* ---- SLICE1 windows ----------------------------------------------------------------- */

typedef struct s1 {
    h_tensor in, out;
    uint32_t offsets[8], window[8];
    int32_t strides[8];
    DML_SLICE1_OPERATOR_DESC d;
    DML_OPERATOR_DESC op;
} s1;

/* A valid 1-D SLICE1 over `size` elements: offset 0, full window, stride 1. */
static void s1_init(s1* s, uint32_t size)
{
    memset(s, 0, sizeof *s);
    h_tensor_init(&s->in, DML_TENSOR_DATA_TYPE_UINT8, 1, &size, NULL);
    h_tensor_init(&s->out, DML_TENSOR_DATA_TYPE_UINT8, 1, &size, NULL);
    s->window[0] = size;
    s->strides[0] = 1;
    s->d = (DML_SLICE1_OPERATOR_DESC){ &s->in.desc, &s->out.desc, 1, s->offsets, s->window, s->strides };
    s->op.Type = DML_OPERATOR_SLICE1;
    s->op.Desc = &s->d;
}

START_TEST(offset_plus_window_overflows_32_bits)
{
    static const uint32_t offsets[] = { 1, 0x80000000u, UINT32_MAX - 3, UINT32_MAX };
    for (size_t i = 0; i < sizeof offsets / sizeof offsets[0]; i++) {
        s1 s;
        s1_init(&s, 8);
        s.offsets[0] = offsets[i];
        s.window[0] = 8; /* offset + 8 wraps to a small number for the large offsets */
        expect_invalid(&s.op);
        s1_init(&s, 8);
        s.offsets[0] = offsets[i];
        s.window[0] = UINT32_MAX - offsets[i] + 2; /* sum wraps to exactly 1 */
        expect_invalid(&s.op);
    }
    s1 s;
    s1_init(&s, 8);
    s.window[0] = 0;
    expect_invalid(&s.op);
    s1_init(&s, 8);
    s.window[0] = UINT32_MAX;
    expect_invalid(&s.op);
}
END_TEST

START_TEST(slice1_strides_at_int32_extremes)
{
    /* |INT32_MIN| does not fit in an int32: the output-size bound must not negate it. */
    static const int32_t strides[] = { INT32_MIN, INT32_MIN + 1, INT32_MAX, -1 };
    for (size_t i = 0; i < sizeof strides / sizeof strides[0]; i++) {
        s1 s;
        s1_init(&s, 8);
        s.strides[0] = strides[i];
        s.out.sizes[0] = 1; /* the only valid output size for |stride| >= window */
        s.out.buf.TotalTensorSizeInBytes = 4;
        h_assert_ok(create(&s.op));
        s.out.sizes[0] = 2;
        if (strides[i] == -1)
            s.out.sizes[0] = 9;
        expect_invalid(&s.op);
    }
    s1 s;
    s1_init(&s, 8);
    s.strides[0] = 0;
    expect_invalid(&s.op);
    /* A window of UINT32_MAX elements with stride INT32_MIN: 2 outputs exist. */
    uint32_t big = UINT32_MAX;
    s1_init(&s, 8);
    h_tensor_init(&s.in, DML_TENSOR_DATA_TYPE_UINT8, 1, &big, NULL);
    s.window[0] = UINT32_MAX;
    s.strides[0] = INT32_MIN;
    s.out.sizes[0] = 2;
    s.out.buf.TotalTensorSizeInBytes = 4;
    h_assert_ok(create(&s.op));
    s.out.sizes[0] = 3;
    expect_invalid(&s.op);
}
END_TEST

/* ---- sizes in descs past 2^31, 2^32 and 2^64 -------------------------------------------- */

START_TEST(element_counts_and_bytes_past_2_31_and_2_32)
{
    /* 2^31 + 2^16 and 2^32 + 2^16 elements; 8-byte elements: bytes past 2^34. */
    static const uint32_t shapes[][2] = { { 32769, 65536 }, { 65537, 65536 }, { 65536, 65536 }, { 1u << 31, 2 } };
    static const DML_TENSOR_DATA_TYPE types[] = { DML_TENSOR_DATA_TYPE_UINT8, DML_TENSOR_DATA_TYPE_UINT64 };
    for (size_t t = 0; t < 2; t++)
        for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
            s1 s;
            s1_init(&s, 1);
            h_tensor_init(&s.in, types[t], 2, shapes[i], NULL);
            h_tensor_init(&s.out, types[t], 2, shapes[i], NULL);
            s.d.DimensionCount = 2;
            s.window[0] = shapes[i][0];
            s.window[1] = shapes[i][1];
            s.strides[1] = 1;
            uint64_t bytes = (uint64_t)shapes[i][0] * shapes[i][1] * h_elem_size(types[t]);
            ck_assert_uint_eq(DMLCalcBufferTensorSize(types[t], 2, shapes[i], NULL), (bytes + 3) & ~3ull);
            h_assert_ok(create(&s.op)); /* valid: created and compiled, never allocated */
            /* The same desc with a size truncated to 32 bits, or one byte short. */
            if (bytes > UINT32_MAX) {
                s.in.buf.TotalTensorSizeInBytes = bytes & 0xffffffffu;
                expect_invalid(&s.op);
            }
            s.in.buf.TotalTensorSizeInBytes = bytes - 1;
            expect_invalid(&s.op);
            /* Binding it to a small buffer is refused at bind time. */
            s.in.buf.TotalTensorSizeInBytes = bytes;
            DMLOperator op = NULL;
            DMLCompiledOperator co = NULL;
            DMLBindingTable table = NULL;
            h_assert_ok(dmlDeviceCreateOperator(H.device, &s.op, &op));
            h_assert_ok(dmlDeviceCompileOperator(H.device, op, DML_EXECUTION_FLAG_NONE, &co));
            DML_BINDING_TABLE_DESC td = { co };
            h_assert_ok(dmlDeviceCreateBindingTable(H.device, &td, &table));
            DMLBuffer b = h_buffer(&H, 4096, NULL);
            DML_BUFFER_BINDING bb = { b, 0, 4096 };
            DML_BINDING_DESC bd = { DML_BINDING_TYPE_BUFFER, &bb };
            h_assert_result(dmlBindingTableBindInputs(table, 1, &bd), DML_E_INVALIDARG);
            bb.SizeInBytes = bytes; /* claims more than the buffer holds */
            h_assert_result(dmlBindingTableBindInputs(table, 1, &bd), DML_E_INVALIDARG);
            ck_assert(dmlGetLastErrorMessage()[0] != '\0');
            dmlRelease(b);
            dmlRelease(table);
            dmlRelease(co);
            dmlRelease(op);
        }
}
END_TEST

START_TEST(products_of_sizes_and_strides_overflow_64_bits)
{
    const uint32_t max8[8] = { UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX,
        UINT32_MAX };
    /* Packed: prod(sizes) overflows. Strided: (size-1)*stride sums overflow. */
    ck_assert_uint_eq(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_UINT8, 8, max8, NULL), 0);
    ck_assert_uint_eq(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_UINT8, 8, max8, max8), 0);
    ck_assert_uint_eq(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_UINT8, 3, max8, NULL), 0);
    /* 2 dims: (2^32-2)*(2^32-1)*2 elements * 8 bytes overflows only in bytes. */
    ck_assert_uint_eq(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_UINT64, 2, max8, max8), 0);
    ck_assert_uint_ne(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_UINT8, 2, max8, NULL), 0);
    const uint32_t* strides[] = { NULL, max8 };
    for (uint32_t rank = 2; rank <= 8; rank++)
        for (int st = 0; st < 2; st++) {
            rev r;
            rev_init(&r, rank, max8, 0);
            r.in.buf.DataType = r.out.buf.DataType = DML_TENSOR_DATA_TYPE_UINT64;
            r.in.buf.Strides = strides[st];
            r.in.buf.TotalTensorSizeInBytes = UINT64_MAX;
            r.out.buf.TotalTensorSizeInBytes = UINT64_MAX;
            r.len.buf.TotalTensorSizeInBytes = UINT64_MAX;
            expect_invalid(&r.op);
            s1 s;
            s1_init(&s, 1);
            h_tensor_init(&s.in, DML_TENSOR_DATA_TYPE_UINT64, rank, max8, strides[st]);
            h_tensor_init(&s.out, DML_TENSOR_DATA_TYPE_UINT64, 1, (const uint32_t[]){ 1 }, NULL);
            s.in.buf.TotalTensorSizeInBytes = UINT64_MAX;
            s.d.DimensionCount = rank;
            expect_invalid(&s.op);
        }
    /* TotalTensorSizeInBytes near 2^64 on a tiny tensor: no overflow in later sums. */
    s1 s;
    s1_init(&s, 8);
    s.in.buf.TotalTensorSizeInBytes = UINT64_MAX;
    DML_RESULT r = create(&s.op);
    ck_assert_msg(r == DML_S_OK || r == DML_E_INVALIDARG, "got 0x%08x", (unsigned)r);
}
END_TEST

START_TEST(binding_offset_plus_size_overflows_64_bits)
{
    s1 s;
    s1_init(&s, 16);
    DMLOperator op = NULL;
    DMLCompiledOperator co = NULL;
    DMLBindingTable table = NULL;
    h_assert_ok(dmlDeviceCreateOperator(H.device, &s.op, &op));
    h_assert_ok(dmlDeviceCompileOperator(H.device, op, DML_EXECUTION_FLAG_NONE, &co));
    DML_BINDING_TABLE_DESC td = { co };
    h_assert_ok(dmlDeviceCreateBindingTable(H.device, &td, &table));
    DMLBuffer b = h_buffer(&H, 256, NULL);
    static const uint64_t cases[][2] = { { UINT64_MAX - 15, 16 }, { UINT64_MAX & ~15ull, 32 },
        { 16, UINT64_MAX - 15 }, { 1ull << 63, 1ull << 63 }, { 256, 16 }, { 0, UINT64_MAX } };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        DML_BUFFER_BINDING bb = { b, cases[i][0], cases[i][1] };
        DML_BINDING_DESC bd = { DML_BINDING_TYPE_BUFFER, &bb };
        h_assert_result(dmlBindingTableBindInputs(table, 1, &bd), DML_E_INVALIDARG);
        ck_assert(dmlGetLastErrorMessage()[0] != '\0');
        h_assert_result(dmlBindingTableBindOutputs(table, 1, &bd), DML_E_INVALIDARG);
        h_assert_result(dmlBindingTableBindPersistentResource(table, &bd), DML_E_INVALIDARG);
        h_assert_result(dmlBindingTableBindTemporaryResource(table, &bd), DML_E_INVALIDARG);
    }
    /* Transfers too. */
    uint8_t x[16];
    h_assert_result(dmlCommandQueueWriteBuffer(H.queue, b, UINT64_MAX - 7, x, 16), DML_E_INVALIDARG);
    h_assert_result(dmlCommandQueueReadBuffer(H.queue, b, 16, x, UINT64_MAX), DML_E_INVALIDARG);
    /* Nothing was dispatched with the failed bindings. */
    h_assert_result(dmlCommandRecorderRecordDispatch(H.recorder, H.queue, co, table), DML_E_INVALID_CALL);
    dmlRelease(b);
    dmlRelease(table);
    dmlRelease(co);
    dmlRelease(op);
}
END_TEST

START_TEST(buffer_sizes_at_the_limit)
{
    DMLBuffer b = NULL;
    h_assert_result(dmlDeviceCreateBuffer(H.device, UINT64_MAX, &b), DML_E_OUTOFMEMORY);
    ck_assert_ptr_null(b);
    ck_assert(dmlGetLastErrorMessage()[0] != '\0');
    h_assert_result(dmlDeviceCreateBuffer(H.device, 0, &b), DML_E_INVALIDARG);
    /* An allocation failure is not a device removal. */
    h_assert_ok(dmlDeviceGetDeviceRemovedReason(H.device));
}
END_TEST

/* ---- Persistent resource size -------------------------------------------- */

/* Compiles REVERSE_SUBSEQUENCES with both inputs OWNED_BY_DML and the given
 * TotalTensorSizeInBytes (valid tensors: small sizes, huge totals). Returns the
 * result; on success *size is the reported PersistentResourceSize. */
static DML_RESULT compile_owned(uint64_t input_total, uint64_t lengths_total, uint64_t* size)
{
    static const uint32_t sizes[2] = { 2, 4 };
    rev r;
    rev_init(&r, 2, sizes, 1);
    r.in.buf.Flags = DML_TENSOR_FLAG_OWNED_BY_DML;
    r.len.buf.Flags = DML_TENSOR_FLAG_OWNED_BY_DML;
    r.in.buf.TotalTensorSizeInBytes = input_total;
    r.len.buf.TotalTensorSizeInBytes = lengths_total;
    DMLOperator op = NULL;
    DMLCompiledOperator co = NULL;
    h_assert_ok(dmlDeviceCreateOperator(H.device, &r.op, &op));
    DML_RESULT result = dmlDeviceCompileOperator(H.device, op, DML_EXECUTION_FLAG_NONE, &co);
    if (result >= 0) {
        *size = dmlDispatchableGetBindingProperties(co).PersistentResourceSize;
        /* A resource smaller than that is refused at bind time. */
        DMLBindingTable table = NULL;
        DML_BINDING_TABLE_DESC td = { co };
        h_assert_ok(dmlDeviceCreateBindingTable(H.device, &td, &table));
        DMLBuffer b = h_buffer(&H, 4096, NULL);
        DML_BUFFER_BINDING bb = { b, 0, 4096 };
        DML_BINDING_DESC bd = { DML_BINDING_TYPE_BUFFER, &bb };
        h_assert_result(dmlBindingTableBindPersistentResource(table, &bd), DML_E_INVALIDARG);
        dmlRelease(b);
        dmlRelease(table);
        dmlRelease(co);
    } else {
        ck_assert_ptr_null(co);
    }
    dmlRelease(op);
    return result;
}

/* Each owned input takes its TotalTensorSizeInBytes rounded up to 256 bytes;
 * the sum must fit in 64 bits (the largest: 2^64 - 256). */
START_TEST(persistent_size_sum_overflows_64_bits)
{
    const uint64_t top = 0 - (uint64_t)256; /* 2^64 - 256, the largest multiple of 256 */
    uint64_t size = 0;
    /* The case: 2 x (2^63 - 1) rounds to 2 x 2^63 = 2^64, which wrapped to 0. */
    h_assert_result(compile_owned(INT64_MAX, INT64_MAX, &size), DML_E_INVALIDARG);
    const char* message = dmlGetLastErrorMessage();
    ck_assert_msg(strstr(message, "dmlDeviceCompileOperator") && strstr(message, "input 0 (9223372036854775807 bytes)") &&
            strstr(message, "input 1 (9223372036854775807 bytes)") && strstr(message, "persistent"),
        "%s", message);
    /* Exactly at the limit, then one byte over it: in the sum, then in one
     * input's own rounding. (The lengths tensor's minimum is 8 bytes.) */
    h_assert_ok(compile_owned(top - 256, 256, &size));
    ck_assert_uint_eq(size, top);
    h_assert_ok(compile_owned(top - 256, 8, &size));
    ck_assert_uint_eq(size, top);
    h_assert_result(compile_owned(top - 256, 257, &size), DML_E_INVALIDARG);
    h_assert_result(compile_owned(top, 8, &size), DML_E_INVALIDARG);
    h_assert_result(compile_owned(top + 1, 8, &size), DML_E_INVALIDARG);
    h_assert_result(compile_owned(UINT64_MAX, 8, &size), DML_E_INVALIDARG);
}
END_TEST

/* ---- Range ends at their boundaries -------------------------------------- */

/* Buffer sizes within a rounding or header of 2^64, and just past 2^63 - 1:
 * refused, never wrapped into a small allocation. */
START_TEST(buffer_sizes_near_2_64)
{
    static const uint64_t below[] = { 0, 1, 15, 16, 255, 256, 257, 511, 512, 513, 4096 + 511, 4096 + 512, 4096 + 513 };
    for (size_t i = 0; i < sizeof below / sizeof below[0]; i++) {
        DMLBuffer b = NULL;
        h_assert_result(dmlDeviceCreateBuffer(H.device, UINT64_MAX - below[i], &b), DML_E_OUTOFMEMORY);
        ck_assert_ptr_null(b);
        h_assert_result(dmlDeviceCreateBuffer(H.device, (uint64_t)INT64_MAX + 1 + below[i], &b), DML_E_OUTOFMEMORY);
        ck_assert_ptr_null(b);
    }
    h_assert_ok(dmlDeviceGetDeviceRemovedReason(H.device));
}
END_TEST

/* Transfers and bindings: a range ending exactly at the buffer's end is
 * accepted, one byte further is refused, and so is every sum past 2^64. */
START_TEST(ranges_ending_at_the_buffer_end)
{
    enum { SIZE = 512 };
    DMLBuffer b = h_buffer(&H, SIZE, NULL);
    uint8_t x[SIZE];
    memset(x, 7, sizeof x);
    h_assert_ok(dmlCommandQueueWriteBuffer(H.queue, b, SIZE - 16, x, 16));
    h_assert_ok(dmlCommandQueueReadBuffer(H.queue, b, 0, x, SIZE));
    h_assert_result(dmlCommandQueueWriteBuffer(H.queue, b, SIZE - 15, x, 16), DML_E_INVALIDARG);
    h_assert_result(dmlCommandQueueReadBuffer(H.queue, b, 1, x, SIZE), DML_E_INVALIDARG);
    h_assert_result(dmlCommandQueueReadBuffer(H.queue, b, UINT64_MAX, x, 1), DML_E_INVALIDARG);
    h_assert_result(dmlCommandQueueWriteBuffer(H.queue, b, 1, x, UINT64_MAX), DML_E_INVALIDARG);

    /* An operator input of 16 bytes: bound to [SIZE - 16, SIZE), then one past. */
    s1 s;
    s1_init(&s, 16);
    DMLOperator op = NULL;
    DMLCompiledOperator co = NULL;
    DMLBindingTable table = NULL;
    h_assert_ok(dmlDeviceCreateOperator(H.device, &s.op, &op));
    h_assert_ok(dmlDeviceCompileOperator(H.device, op, DML_EXECUTION_FLAG_NONE, &co));
    DML_BINDING_TABLE_DESC td = { co };
    h_assert_ok(dmlDeviceCreateBindingTable(H.device, &td, &table));
    DML_BUFFER_BINDING bb = { b, SIZE - 16, 16 };
    DML_BINDING_DESC bd = { DML_BINDING_TYPE_BUFFER, &bb };
    h_assert_ok(dmlBindingTableBindInputs(table, 1, &bd));
    bb.SizeInBytes = 17;
    h_assert_result(dmlBindingTableBindInputs(table, 1, &bd), DML_E_INVALIDARG);
    dmlRelease(table);
    dmlRelease(co);
    dmlRelease(op);

    /* The same through an initializer's DML_BUFFER_ARRAY_BINDING. */
    s1_init(&s, 16);
    s.in.buf.Flags = DML_TENSOR_FLAG_OWNED_BY_DML;
    h_assert_ok(dmlDeviceCreateOperator(H.device, &s.op, &op));
    h_assert_ok(dmlDeviceCompileOperator(H.device, op, DML_EXECUTION_FLAG_NONE, &co));
    DMLOperatorInitializer init = NULL;
    h_assert_ok(dmlDeviceCreateOperatorInitializer(H.device, 1, &co, &init));
    DML_BINDING_TABLE_DESC itd = { init };
    h_assert_ok(dmlDeviceCreateBindingTable(H.device, &itd, &table));
    static const uint64_t ranges[][3] = { /* offset, size, accepted */
        { SIZE - 16, 16, 1 }, { SIZE - 16, 17, 0 }, { UINT64_MAX & ~15ull, 16, 0 }, { 16, UINT64_MAX - 15, 0 } };
    for (size_t i = 0; i < sizeof ranges / sizeof ranges[0]; i++) {
        DML_BUFFER_BINDING element = { b, ranges[i][0], ranges[i][1] };
        DML_BUFFER_ARRAY_BINDING array = { 1, &element };
        DML_BINDING_DESC ad = { DML_BINDING_TYPE_BUFFER_ARRAY, &array };
        h_assert_result(dmlBindingTableBindInputs(table, 1, &ad), ranges[i][2] ? DML_S_OK : DML_E_INVALIDARG);
    }
    dmlRelease(table);
    dmlRelease(init);
    dmlRelease(co);
    dmlRelease(op);
    dmlRelease(b);
}
END_TEST

/* Wrapped memory whose end would pass the top of the address space. */
START_TEST(wrapped_memory_ending_past_the_address_space)
{
    void* top = (void*)(UINTPTR_MAX & ~(uintptr_t)255); /* never touched: only wrapped and released */
    DMLBuffer b = NULL;
    h_assert_result(dmlDeviceWrapBuffer(H.device, top, 256, &b), DML_E_INVALIDARG);
    ck_assert_ptr_null(b);
    h_assert_result(dmlDeviceWrapBuffer(H.device, top, UINT64_MAX, &b), DML_E_INVALIDARG);
    h_assert_ok(dmlDeviceWrapBuffer(H.device, top, 255, &b)); /* ends at the last byte */
    dmlRelease(b);
}
END_TEST

int main(void)
{
    Suite* s = suite_create("attacks");
    TCase* tc = tcase_create("attacks");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, axis_past_rank_and_uint32_max);
    tcase_add_test(tc, lengths_zero_above_axis_and_type_max);
    tcase_add_test(tc, lengths_of_other_types_are_invalid);
    tcase_add_test(tc, zero_size_dimensions);
    tcase_add_test(tc, dimension_counts_zero_and_above_eight);
    tcase_add_test(tc, offset_plus_window_overflows_32_bits);
    tcase_add_test(tc, slice1_strides_at_int32_extremes);
    tcase_add_test(tc, element_counts_and_bytes_past_2_31_and_2_32);
    tcase_add_test(tc, products_of_sizes_and_strides_overflow_64_bits);
    tcase_add_test(tc, binding_offset_plus_size_overflows_64_bits);
    tcase_add_test(tc, buffer_sizes_at_the_limit);
    tcase_add_test(tc, persistent_size_sum_overflows_64_bits);
    tcase_add_test(tc, buffer_sizes_near_2_64);
    tcase_add_test(tc, ranges_ending_at_the_buffer_end);
    tcase_add_test(tc, wrapped_memory_ending_past_the_address_space);
    suite_add_tcase(s, tc);
    SRunner* sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}

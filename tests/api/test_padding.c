/*
 * test_padding.c — DML_OPERATOR_PADDING and PADDING1 through the public API,
 * on the backend DML_TEST_BACKEND names (cpu; cudaemu through
 * tests/cuda_plugin):
 *
 *   - random cases against tests/api/reference.c's ref_padding (its fold
 *     written independently, one bounce at a time): ranks 1-8, every data
 *     type, every mode, pads of 0, small ones and several times the input
 *     (folding again and again), size-1 dimensions, packed / padded /
 *     permuted / broadcast inputs, packed / padded / permuted outputs; the
 *     whole output buffer compared, so nothing outside the output's elements
 *     may change;
 *   - PADDING's FLOAT value converted by CAST's rules (docs/operators.md),
 *     for values whose conversion the test states by hand;
 *   - DirectML's four documented examples (PADDING1 and PADDING);
 *   - one failing case per validation rule, the message naming the field.
 *
 * DML_TEST_SEED=<n> replays another seed.
 */
#include "harness.h"
#include "reference.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static harness H;

static void setup(void) { h_init(&H); }
static void teardown(void) { h_fini(&H); }

static uint64_t rbelow(rng* r, uint64_t n) { return rnext(r) % n; }
static int rchance(rng* r, unsigned percent) { return rbelow(r, 100) < percent; }

static uint64_t seed(void)
{
    const char* s = getenv("DML_TEST_SEED");
    return s && *s ? strtoull(s, NULL, 0) : 0x9AD0DDull;
}

static const char* const MODE_NAMES[4] = { "CONSTANT", "EDGE", "REFLECTION", "SYMMETRIC" };

/* ---- PADDING's FLOAT value by CAST's rules, stated per value ------------- */

/* The values PADDING is given, and each one's FLOAT16 bits (exact, or the
 * rule: overflow → infinity; NaN stays a quiet NaN). */
static const float VALUES[] = { 0.0f, 1.0f, 2.75f, -5.0f, 100.0f, 1e10f, -1e10f, -0.0f, NAN };
static const uint16_t VALUES_F16[] = { 0x0000, 0x3C00, 0x4180, 0xC500, 0x5640, 0x7C00, 0xFC00, 0x8000, 0x7E00 };
#define VALUE_COUNT (sizeof VALUES / sizeof VALUES[0])

/* float → integer: truncated toward zero, saturated, NaN → 0. */
static void int_value(float v, int is_signed, uint32_t size, void* out)
{
    const double lo = is_signed ? -ldexp(1.0, (int)size * 8 - 1) : 0.0;
    const double hi = is_signed ? ldexp(1.0, (int)size * 8 - 1) - 1 : ldexp(1.0, (int)size * 8) - 1;
    double t = isnan(v) ? 0.0 : trunc((double)v);
    t = t < lo ? lo : t > hi ? hi : t;
    if (is_signed) {
        int64_t s = (int64_t)t;
        memcpy(out, &s, size); /* little-endian: the low bytes */
    } else {
        uint64_t u = (uint64_t)t;
        memcpy(out, &u, size);
    }
}

static void float_value_as(DML_TENSOR_DATA_TYPE type, size_t k, uint8_t* out)
{
    const float v = VALUES[k];
    switch (type) {
    case DML_TENSOR_DATA_TYPE_FLOAT32: memcpy(out, &v, 4); break;
    case DML_TENSOR_DATA_TYPE_FLOAT64: {
        double d = (double)v;
        memcpy(out, &d, 8);
        break;
    }
    case DML_TENSOR_DATA_TYPE_FLOAT16: memcpy(out, &VALUES_F16[k], 2); break;
    case DML_TENSOR_DATA_TYPE_INT8: int_value(v, 1, 1, out); break;
    case DML_TENSOR_DATA_TYPE_INT16: int_value(v, 1, 2, out); break;
    case DML_TENSOR_DATA_TYPE_INT32: int_value(v, 1, 4, out); break;
    case DML_TENSOR_DATA_TYPE_INT64: int_value(v, 1, 8, out); break;
    case DML_TENSOR_DATA_TYPE_UINT8: int_value(v, 0, 1, out); break;
    case DML_TENSOR_DATA_TYPE_UINT16: int_value(v, 0, 2, out); break;
    case DML_TENSOR_DATA_TYPE_UINT32: int_value(v, 0, 4, out); break;
    default: int_value(v, 0, 8, out); break;
    }
}

/* ---- random cases -------------------------------------------------------- */

typedef struct pcase {
    DML_TENSOR_DATA_TYPE type;
    uint32_t rank, mode, version1;
    uint32_t in_sizes[8], in_strides[8], out_sizes[8], out_strides[8];
    int in_has_strides, out_has_strides;
    uint32_t start[8], end[8];
    size_t value_index;          /* PADDING */
    DML_SCALAR_UNION value1;     /* PADDING1 */
    uint64_t in_offset, out_offset; /* bytes into their buffers */
} pcase;

static const uint32_t MAX_DIM[9] = { 0, 40, 12, 7, 5, 4, 3, 3, 2 };

static uint32_t random_pad(rng* r, uint32_t n)
{
    switch (rbelow(r, 6)) {
    case 0:
    case 1: return 0;
    case 2:
    case 3: return 1 + (uint32_t)rbelow(r, 3);
    case 4: return n + (uint32_t)rbelow(r, 2); /* just past a whole period */
    default: return (uint32_t)rbelow(r, 4 * n + 6); /* several folds */
    }
}

/* Strides for sizes: packed (NULL or explicit), padded, permuted; inputs
 * may also broadcast (stride 0) some dimensions. */
static int random_strides(rng* r, uint32_t rank, const uint32_t* sizes, uint32_t* strides, int is_output)
{
    uint32_t layout = (uint32_t)rbelow(r, is_output ? 4 : 5);
    if (layout == 0)
        return 0;
    uint32_t order[8];
    for (uint32_t i = 0; i < rank; ++i)
        order[i] = i;
    if (layout == 3)
        for (uint32_t i = rank; i > 1; --i) {
            uint32_t j = (uint32_t)rbelow(r, i), t = order[i - 1];
            order[i - 1] = order[j];
            order[j] = t;
        }
    uint64_t reach = 0;
    for (uint32_t k = rank; k-- > 0;) {
        uint32_t d = order[k];
        uint64_t s = reach + 1 + (layout >= 2 ? rbelow(r, 3) : 0);
        strides[d] = (uint32_t)s;
        reach += (uint64_t)(sizes[d] - 1) * s;
    }
    if (layout == 4)
        for (uint32_t i = 0; i < rank; ++i)
            if (rchance(r, 40))
                strides[i] = 0;
    return 1;
}

static void gen_case(rng* r, pcase* c, DML_TENSOR_DATA_TYPE type, uint32_t mode)
{
    memset(c, 0, sizeof *c);
    c->type = type;
    c->mode = mode;
    c->version1 = rchance(r, 50);
    c->rank = 1 + (uint32_t)rbelow(r, 8);
    uint64_t elements = 1;
    for (uint32_t i = 0; i < c->rank; ++i) {
        c->in_sizes[i] = rchance(r, 15) ? 1 : 1 + (uint32_t)rbelow(r, MAX_DIM[c->rank]);
        c->start[i] = random_pad(r, c->in_sizes[i]);
        c->end[i] = random_pad(r, c->in_sizes[i]);
        c->out_sizes[i] = c->in_sizes[i] + c->start[i] + c->end[i];
        elements *= c->out_sizes[i];
    }
    /* Keep each case small: trim the pads of the largest dimensions. */
    for (uint32_t i = 0; elements > 3000 && i < c->rank; ++i) {
        elements /= c->out_sizes[i];
        c->start[i] = c->start[i] ? 1 : 0;
        c->end[i] = c->end[i] > c->in_sizes[i] ? c->in_sizes[i] : c->end[i];
        c->out_sizes[i] = c->in_sizes[i] + c->start[i] + c->end[i];
        elements *= c->out_sizes[i];
    }
    c->in_has_strides = random_strides(r, c->rank, c->in_sizes, c->in_strides, 0);
    c->out_has_strides = random_strides(r, c->rank, c->out_sizes, c->out_strides, 1);
    c->value_index = (size_t)rbelow(r, VALUE_COUNT);
    c->value1.UInt64 = rnext(r);
    c->in_offset = 16 * rbelow(r, 3);
    c->out_offset = 16 * rbelow(r, 3);
}

static void dump_case(const pcase* c)
{
    fprintf(stderr, "PADDING%s %s %s rank %u\n", c->version1 ? "1" : "", h_type_name(c->type),
        MODE_NAMES[c->mode], c->rank);
    for (uint32_t i = 0; i < c->rank; ++i)
        fprintf(stderr, "  dim %u: in %u (stride %u) start %u end %u -> out %u (stride %u)\n", i, c->in_sizes[i],
            c->in_has_strides ? c->in_strides[i] : 0, c->start[i], c->end[i], c->out_sizes[i],
            c->out_has_strides ? c->out_strides[i] : 0);
}

static uint64_t g_cases, g_elements;

static void fill_random(rng* r, uint8_t* p, uint64_t n)
{
    for (uint64_t i = 0; i < n; ++i)
        p[i] = (uint8_t)rnext(r);
}

static void run_case(rng* r, const pcase* c)
{
    const uint32_t es = h_elem_size(c->type);
    h_tensor in, out;
    h_tensor_init(&in, c->type, c->rank, c->in_sizes, c->in_has_strides ? c->in_strides : NULL);
    h_tensor_init(&out, c->type, c->rank, c->out_sizes, c->out_has_strides ? c->out_strides : NULL);
    const uint64_t in_bytes = in.buf.TotalTensorSizeInBytes, out_bytes = out.buf.TotalTensorSizeInBytes;
    const uint64_t in_total = c->in_offset + in_bytes + 32, out_total = c->out_offset + out_bytes + 32;
    uint8_t* in_host = malloc(in_total);
    uint8_t* out_init = malloc(out_total);
    uint8_t* got = malloc(out_total);
    uint8_t* want = malloc(out_total);
    ck_assert(in_host && out_init && got && want);
    fill_random(r, in_host, in_total);
    fill_random(r, out_init, out_total);

    uint8_t value[8];
    DML_PADDING_OPERATOR_DESC d0 = { &in.desc, &out.desc, (DML_PADDING_MODE)c->mode, VALUES[c->value_index],
        c->rank, c->start, c->end };
    DML_PADDING1_OPERATOR_DESC d1 = { &in.desc, &out.desc, (DML_PADDING_MODE)c->mode, c->type, c->value1, c->rank,
        c->start, c->end };
    DML_OPERATOR_DESC od = { DML_OPERATOR_PADDING, &d0 };
    if (c->version1) {
        od = (DML_OPERATOR_DESC){ DML_OPERATOR_PADDING1, &d1 };
        memcpy(value, c->value1.Bytes, es);
    } else {
        float_value_as(c->type, c->value_index, value);
    }

    h_bind ib = { h_buffer(&H, in_total, in_host), c->in_offset, in_bytes, 0 };
    h_bind ob = { h_buffer(&H, out_total, out_init), c->out_offset, out_bytes, 0 };
    DML_RESULT res = run_operator(&H, &od, DML_EXECUTION_FLAG_NONE, 1, &ib, &ob, got, out_total);
    if (res != DML_S_OK) {
        dump_case(c);
        ck_abort_msg("%s failed: %s: %s", H.stage, h_result_name(res), H.message);
    }

    memcpy(want, out_init, out_total);
    ref_view vi = { es, c->rank, c->in_sizes, c->in_has_strides ? c->in_strides : NULL, in_host + c->in_offset,
        in_bytes };
    ref_view vo = { es, c->rank, c->out_sizes, c->out_has_strides ? c->out_strides : NULL, want + c->out_offset,
        out_bytes };
    ref_padding(&vi, &vo, c->mode, value, c->start);
    uint64_t first = UINT64_MAX, count = 0;
    for (uint64_t b = 0; b < out_total; ++b)
        if (got[b] != want[b]) {
            first = first == UINT64_MAX ? b : first;
            ++count;
        }
    if (count)
        dump_case(c);
    ck_assert_msg(count == 0, "%" PRIu64 " output-buffer bytes differ from the reference, first at %" PRIu64
        " (got 0x%02x, want 0x%02x; the output starts at %" PRIu64 ")", count, first, got[first], want[first],
        c->out_offset);
    uint64_t n = 1;
    for (uint32_t i = 0; i < c->rank; ++i)
        n *= c->out_sizes[i];
    ++g_cases;
    g_elements += n;
    dmlRelease(ib.buffer);
    dmlRelease(ob.buffer);
    free(in_host);
    free(out_init);
    free(got);
    free(want);
}

#define CASES_PER_TYPE_AND_MODE 4

/* _i: the mode; every type. */
START_TEST(padding_random)
{
    const uint32_t mode = (uint32_t)_i;
    rng r = { seed() ^ ((uint64_t)_i << 32) };
    g_cases = g_elements = 0;
    for (uint32_t type = 1; type <= 11; ++type)
        for (int k = 0; k < CASES_PER_TYPE_AND_MODE; ++k) {
            pcase c;
            gen_case(&r, &c, (DML_TENSOR_DATA_TYPE)type, mode);
            run_case(&r, &c);
        }
    printf("padding_random[%s]: %" PRIu64 " cases, %" PRIu64 " output elements compared\n", MODE_NAMES[mode],
        g_cases, g_elements);
}
END_TEST

/* Pads many times the input on a short dimension (dozens of folds), and
 * every mode on size-1 dimensions. */
START_TEST(padding_far_beyond_the_input)
{
    rng r = { seed() + 7 };
    for (uint32_t mode = 0; mode < 4; ++mode)
        for (uint32_t n = 1; n <= 4; ++n) {
            pcase c;
            memset(&c, 0, sizeof c);
            c.type = n % 2 ? DML_TENSOR_DATA_TYPE_FLOAT32 : DML_TENSOR_DATA_TYPE_UINT8;
            c.mode = mode;
            c.version1 = n % 2;
            c.rank = 2;
            c.in_sizes[0] = 2;
            c.in_sizes[1] = n;
            c.start[1] = 97 + n;
            c.end[1] = 203;
            c.start[0] = n == 1 ? 5 : 0;
            c.end[0] = 3;
            for (uint32_t i = 0; i < 2; ++i)
                c.out_sizes[i] = c.in_sizes[i] + c.start[i] + c.end[i];
            c.value_index = 2;
            c.value1.UInt64 = 0xA5A5A5A5A5A5A5A5ull;
            run_case(&r, &c);
        }
}
END_TEST

/* Rows 64 elements wide and more, the CUDA backend's row path:
 * packed [3, n] inputs (n 1-16: row r's interior starts r * n elements into
 * the range, so at every alignment in a 16-byte line), the bound ranges
 * exact-size, pads from 1 to several times the input, 1-, 2-, 4- and 8-byte
 * elements, every mode. */
START_TEST(padding_rows_at_every_alignment)
{
    static const DML_TENSOR_DATA_TYPE types[4] = { DML_TENSOR_DATA_TYPE_UINT8, DML_TENSOR_DATA_TYPE_FLOAT16,
        DML_TENSOR_DATA_TYPE_INT32, DML_TENSOR_DATA_TYPE_FLOAT64 };
    static const uint32_t pads[4][2] = { { 1, 63 }, { 2, 65 }, { 33, 31 }, { 70, 9 } };
    rng r = { seed() + 11 };
    for (uint32_t mode = 0; mode < 4; ++mode)
        for (uint32_t n = 1; n <= 16; ++n) {
            pcase c;
            memset(&c, 0, sizeof c);
            c.type = types[(n + mode) % 4];
            c.mode = mode;
            c.version1 = n % 2;
            c.rank = 2;
            c.in_sizes[0] = 3;
            c.in_sizes[1] = n;
            c.start[0] = mode % 2;
            c.end[0] = 1 - mode % 2;
            c.start[1] = pads[n % 4][0];
            c.end[1] = pads[n % 4][1];
            for (uint32_t i = 0; i < 2; ++i)
                c.out_sizes[i] = c.in_sizes[i] + c.start[i] + c.end[i];
            c.value_index = 3;
            c.value1.UInt64 = 0x0123456789ABCDEFull;
            c.out_offset = 16 * (n % 3);
            run_case(&r, &c);
        }
}
END_TEST

/* ---- DirectML's examples ----------------------------------------------- */

static const float EXAMPLE_INPUT[16] = { 1, 2, 3, 4, 5, 6, 7, 8, 1, 2, 3, 4, 5, 6, 7, 8 };
static const float EXAMPLE_OUTPUT[4][80] = {
    { 9, 9, 9, 9, 9, 9, 9, 9, 9, 9,   9, 9, 1, 2, 3, 4, 9, 9, 9, 9,   9, 9, 5, 6, 7, 8, 9, 9, 9, 9,
      9, 9, 1, 2, 3, 4, 9, 9, 9, 9,   9, 9, 5, 6, 7, 8, 9, 9, 9, 9,   9, 9, 9, 9, 9, 9, 9, 9, 9, 9,
      9, 9, 9, 9, 9, 9, 9, 9, 9, 9,   9, 9, 9, 9, 9, 9, 9, 9, 9, 9 },
    { 1, 1, 1, 2, 3, 4, 4, 4, 4, 4,   1, 1, 1, 2, 3, 4, 4, 4, 4, 4,   5, 5, 5, 6, 7, 8, 8, 8, 8, 8,
      1, 1, 1, 2, 3, 4, 4, 4, 4, 4,   5, 5, 5, 6, 7, 8, 8, 8, 8, 8,   5, 5, 5, 6, 7, 8, 8, 8, 8, 8,
      5, 5, 5, 6, 7, 8, 8, 8, 8, 8,   5, 5, 5, 6, 7, 8, 8, 8, 8, 8 },
    { 7, 6, 5, 6, 7, 8, 7, 6, 5, 6,   3, 2, 1, 2, 3, 4, 3, 2, 1, 2,   7, 6, 5, 6, 7, 8, 7, 6, 5, 6,
      3, 2, 1, 2, 3, 4, 3, 2, 1, 2,   7, 6, 5, 6, 7, 8, 7, 6, 5, 6,   3, 2, 1, 2, 3, 4, 3, 2, 1, 2,
      7, 6, 5, 6, 7, 8, 7, 6, 5, 6,   3, 2, 1, 2, 3, 4, 3, 2, 1, 2 },
    { 2, 1, 1, 2, 3, 4, 4, 3, 2, 1,   2, 1, 1, 2, 3, 4, 4, 3, 2, 1,   6, 5, 5, 6, 7, 8, 8, 7, 6, 5,
      2, 1, 1, 2, 3, 4, 4, 3, 2, 1,   6, 5, 5, 6, 7, 8, 8, 7, 6, 5,   6, 5, 5, 6, 7, 8, 8, 7, 6, 5,
      2, 1, 1, 2, 3, 4, 4, 3, 2, 1,   6, 5, 5, 6, 7, 8, 8, 7, 6, 5 },
};

static void run_example(const DML_OPERATOR_DESC* od, const float* expected)
{
    uint8_t got[16 + sizeof EXAMPLE_OUTPUT[0] + 16];
    uint8_t init[sizeof got];
    memset(init, 0x5A, sizeof init);
    h_bind in = { h_buffer(&H, sizeof EXAMPLE_INPUT, EXAMPLE_INPUT), 0, sizeof EXAMPLE_INPUT, 0 };
    h_bind out = { h_buffer(&H, sizeof init, init), 16, sizeof EXAMPLE_OUTPUT[0], 0 };
    DML_RESULT r = run_operator(&H, od, DML_EXECUTION_FLAG_NONE, 1, &in, &out, got, sizeof got);
    ck_assert_msg(r == DML_S_OK, "%s: %s: %s", H.stage, h_result_name(r), H.message);
    for (int b = 0; b < 16; ++b)
        ck_assert(got[b] == 0x5A && got[sizeof got - 1 - b] == 0x5A);
    for (int i = 0; i < 80; ++i) {
        float v;
        memcpy(&v, got + 16 + 4 * i, 4);
        ck_assert_msg(v == expected[i], "output[%d] (row %d, column %d) = %g, expected %g", i, i / 10, i % 10,
            (double)v, (double)expected[i]);
    }
    dmlRelease(in.buffer);
    dmlRelease(out.buffer);
}

/* _i: the example (1..4 on DirectML's page: CONSTANT, EDGE, REFLECTION, SYMMETRIC). */
START_TEST(directml_examples)
{
    static const uint32_t in_sizes[4] = { 1, 1, 4, 4 }, out_sizes[4] = { 1, 1, 8, 10 };
    static const uint32_t start[4] = { 0, 0, 1, 2 }, end[4] = { 0, 0, 3, 4 };
    h_tensor in, out;
    h_tensor_init(&in, DML_TENSOR_DATA_TYPE_FLOAT32, 4, in_sizes, NULL);
    h_tensor_init(&out, DML_TENSOR_DATA_TYPE_FLOAT32, 4, out_sizes, NULL);
    DML_SCALAR_UNION nine = { .Float32 = 9.0f };
    DML_PADDING1_OPERATOR_DESC d1 = { &in.desc, &out.desc, (DML_PADDING_MODE)_i, DML_TENSOR_DATA_TYPE_FLOAT32,
        nine, 4, start, end };
    DML_OPERATOR_DESC od1 = { DML_OPERATOR_PADDING1, &d1 };
    run_example(&od1, EXAMPLE_OUTPUT[_i]);
    DML_PADDING_OPERATOR_DESC d0 = { &in.desc, &out.desc, (DML_PADDING_MODE)_i, 9.0f, 4, start, end };
    DML_OPERATOR_DESC od0 = { DML_OPERATOR_PADDING, &d0 };
    run_example(&od0, EXAMPLE_OUTPUT[_i]);
}
END_TEST

/* The spec's one-dimensional examples: [1,2,3] padded by 2 at the start. */
START_TEST(spec_examples)
{
    static const float input[3] = { 1, 2, 3 };
    static const float want[4][5] = { { 0, 0, 1, 2, 3 }, { 1, 1, 1, 2, 3 }, { 3, 2, 1, 2, 3 }, { 2, 1, 1, 2, 3 } };
    static const uint32_t in_sizes[1] = { 3 }, out_sizes[1] = { 5 }, start[1] = { 2 }, end[1] = { 0 };
    h_tensor in, out;
    h_tensor_init(&in, DML_TENSOR_DATA_TYPE_FLOAT32, 1, in_sizes, NULL);
    h_tensor_init(&out, DML_TENSOR_DATA_TYPE_FLOAT32, 1, out_sizes, NULL);
    for (int mode = 0; mode < 4; ++mode) {
        DML_PADDING_OPERATOR_DESC d = { &in.desc, &out.desc, (DML_PADDING_MODE)mode, 0.0f, 1, start, end };
        DML_OPERATOR_DESC od = { DML_OPERATOR_PADDING, &d };
        float got[5];
        h_bind ib = { h_buffer(&H, sizeof input, input), 0, sizeof input, 0 };
        h_bind ob = { h_buffer(&H, sizeof got, NULL), 0, sizeof got, 0 };
        h_assert_ok(run_operator(&H, &od, DML_EXECUTION_FLAG_NONE, 1, &ib, &ob, got, sizeof got));
        for (int i = 0; i < 5; ++i)
            ck_assert_msg(got[i] == want[mode][i], "%s: output[%d] = %g, expected %g", MODE_NAMES[mode], i,
                (double)got[i], (double)want[mode][i]);
        dmlRelease(ib.buffer);
        dmlRelease(ob.buffer);
    }
}
END_TEST

/* ---- validation ---------------------------------------------------------- */

static char g_primed[1024];

static void prime(void)
{
    DMLBuffer b = NULL;
    ck_assert(dmlDeviceCreateBuffer(NULL, 64, &b) == DML_E_INVALIDARG);
    snprintf(g_primed, sizeof g_primed, "%s", dmlGetLastErrorMessage());
}

/* Creating od fails with DML_E_INVALIDARG, a new message naming the
 * operator and every one of the words given. */
static void expect_invalid(const DML_OPERATOR_DESC* od, const char* what, const char* word1, const char* word2)
{
    prime();
    DMLOperator op = NULL;
    DML_RESULT r = dmlDeviceCreateOperator(H.device, od, &op);
    if (DML_SUCCEEDED(r))
        dmlRelease(op);
    ck_assert_msg(r == DML_E_INVALIDARG, "%s: returned %s, expected DML_E_INVALIDARG", what, h_result_name(r));
    ck_assert_ptr_null(op);
    const char* m = dmlGetLastErrorMessage();
    ck_assert_msg(strcmp(m, g_primed) != 0, "%s: no message of its own", what);
    const char* name = od->Type == DML_OPERATOR_PADDING ? "(PADDING)" : "(PADDING1)";
    ck_assert_msg(strstr(m, name) != NULL, "%s: \"%s\" does not name %s", what, m, name);
    ck_assert_msg(!word1 || strstr(m, word1), "%s: \"%s\" does not mention \"%s\"", what, m, word1);
    ck_assert_msg(!word2 || strstr(m, word2), "%s: \"%s\" does not mention \"%s\"", what, m, word2);
}

/* Baseline: Input {2,3} FLOAT32, Start {1,0}, End {0,2}, Output {3,5}. */
typedef struct fixture {
    h_tensor in, out;
    uint32_t start[2], end[2];
    DML_PADDING_OPERATOR_DESC d0;
    DML_PADDING1_OPERATOR_DESC d1;
    DML_OPERATOR_DESC od0, od1;
} fixture;

static void fixture_make(fixture* f)
{
    static const uint32_t in_sizes[2] = { 2, 3 }, out_sizes[2] = { 3, 5 };
    h_tensor_init(&f->in, DML_TENSOR_DATA_TYPE_FLOAT32, 2, in_sizes, NULL);
    h_tensor_init(&f->out, DML_TENSOR_DATA_TYPE_FLOAT32, 2, out_sizes, NULL);
    f->start[0] = 1, f->start[1] = 0, f->end[0] = 0, f->end[1] = 2;
    f->d0 = (DML_PADDING_OPERATOR_DESC){ &f->in.desc, &f->out.desc, DML_PADDING_MODE_REFLECTION, 0.0f, 2, f->start,
        f->end };
    DML_SCALAR_UNION v = { .Float32 = 1.5f };
    f->d1 = (DML_PADDING1_OPERATOR_DESC){ &f->in.desc, &f->out.desc, DML_PADDING_MODE_CONSTANT,
        DML_TENSOR_DATA_TYPE_FLOAT32, v, 2, f->start, f->end };
    f->od0 = (DML_OPERATOR_DESC){ DML_OPERATOR_PADDING, &f->d0 };
    f->od1 = (DML_OPERATOR_DESC){ DML_OPERATOR_PADDING1, &f->d1 };
}

static void expect_ok(const DML_OPERATOR_DESC* od)
{
    DMLOperator op = NULL;
    h_assert_ok(dmlDeviceCreateOperator(H.device, od, &op));
    dmlRelease(op);
}

START_TEST(validation_baseline_is_valid)
{
    fixture f;
    fixture_make(&f);
    expect_ok(&f.od0);
    expect_ok(&f.od1);
}
END_TEST

/* Each rule on both versions (_i: 0 PADDING, 1 PADDING1). */
static fixture* both(fixture* f)
{
    fixture_make(f);
    return f;
}

static const DML_OPERATOR_DESC* od_of(fixture* f, int v1) { return v1 ? &f->od1 : &f->od0; }
static UINT* count_of(fixture* f, int v1) { return v1 ? &f->d1.DimensionCount : &f->d0.DimensionCount; }

static void validation_dimension_count(int _i)
{
    fixture f;
    *count_of(both(&f), _i) = 3;
    expect_invalid(od_of(&f, _i), "DimensionCount 3", "DimensionCount = 3", NULL);
    /* Input and output ranks differ. */
    static const uint32_t sizes3[3] = { 1, 3, 5 };
    both(&f);
    h_tensor_init(&f.out, DML_TENSOR_DATA_TYPE_FLOAT32, 3, sizes3, NULL);
    expect_invalid(od_of(&f, _i), "output rank 3", "DimensionCount", "OutputTensor");
}

static void validation_null_paddings(int _i)
{
    fixture f;
    both(&f);
    if (_i) f.d1.StartPadding = NULL; else f.d0.StartPadding = NULL;
    expect_invalid(od_of(&f, _i), "StartPadding NULL", "StartPadding", "NULL");
    both(&f);
    if (_i) f.d1.EndPadding = NULL; else f.d0.EndPadding = NULL;
    expect_invalid(od_of(&f, _i), "EndPadding NULL", "EndPadding", "NULL");
}

static void validation_data_types(int _i)
{
    fixture f;
    both(&f);
    f.out.buf.DataType = DML_TENSOR_DATA_TYPE_INT32;
    f.d1.PaddingValueDataType = DML_TENSOR_DATA_TYPE_INT32;
    expect_invalid(od_of(&f, _i), "output INT32", "DataType", "differs");
}

static void validation_mode(int _i)
{
    fixture f;
    both(&f);
    f.d0.PaddingMode = f.d1.PaddingMode = (DML_PADDING_MODE)4;
    expect_invalid(od_of(&f, _i), "PaddingMode 4", "PaddingMode = 4", NULL);
    f.d0.PaddingMode = f.d1.PaddingMode = (DML_PADDING_MODE)-1;
    expect_invalid(od_of(&f, _i), "PaddingMode -1", "PaddingMode", NULL);
}

static void validation_output_sizes(int _i)
{
    fixture f;
    both(&f);
    f.end[1] = 3;
    expect_invalid(od_of(&f, _i), "EndPadding[1] one too many", "OutputTensor.Sizes[1] = 5", "3 + 0 + 3 = 6");
    both(&f);
    f.start[0] = 0;
    expect_invalid(od_of(&f, _i), "StartPadding[0] one too few", "OutputTensor.Sizes[0] = 3", "StartPadding[0]");
    /* A padded size beyond 32 bits. */
    both(&f);
    f.start[1] = f.end[1] = 0xFFFFFFFFu;
    expect_invalid(od_of(&f, _i), "pads of 2^32 - 1", "more than a 32-bit size holds", NULL);
}

static void validation_tensors(int _i)
{
    fixture f;
    both(&f);
    f.d0.InputTensor = f.d1.InputTensor = NULL;
    expect_invalid(od_of(&f, _i), "InputTensor NULL", "InputTensor", NULL);
    both(&f);
    f.d0.OutputTensor = f.d1.OutputTensor = NULL;
    expect_invalid(od_of(&f, _i), "OutputTensor NULL", "OutputTensor", NULL);
}

/* Every rule, on PADDING (_i 0) and PADDING1 (_i 1). */
START_TEST(validation_rules)
{
    validation_dimension_count(_i);
    validation_null_paddings(_i);
    validation_data_types(_i);
    validation_mode(_i);
    validation_output_sizes(_i);
    validation_tensors(_i);
}
END_TEST

START_TEST(validation_padding1_value_type)
{
    fixture f;
    both(&f);
    f.d1.PaddingValueDataType = DML_TENSOR_DATA_TYPE_FLOAT16;
    expect_invalid(&f.od1, "FLOAT16 value for a FLOAT32 output", "PaddingValueDataType", "OutputTensor.DataType");
    f.d1.PaddingValueDataType = (DML_TENSOR_DATA_TYPE)99;
    expect_invalid(&f.od1, "an unknown value type", "PaddingValueDataType", NULL);
    /* Any mode, not only CONSTANT, checks it (DirectML's page states no exception). */
    f.d1.PaddingMode = DML_PADDING_MODE_EDGE;
    expect_invalid(&f.od1, "EDGE with an unknown value type", "PaddingValueDataType", NULL);
}
END_TEST

/* Pads far beyond the input (2^31 - 1 on a size-1 input) are valid: the
 * output is huge, so this only creates and compiles. */
START_TEST(huge_pads_compile)
{
    static const uint32_t in_sizes[2] = { 1, 3 };
    const uint32_t out_sizes[2] = { 1, 3u + 0x7FFFFFF0u + 0x7FFFFFF0u };
    const uint32_t start[2] = { 0, 0x7FFFFFF0u }, end[2] = { 0, 0x7FFFFFF0u };
    h_tensor in, out;
    h_tensor_init(&in, DML_TENSOR_DATA_TYPE_UINT8, 2, in_sizes, NULL);
    h_tensor_init(&out, DML_TENSOR_DATA_TYPE_UINT8, 2, out_sizes, NULL);
    for (int mode = 0; mode < 4; ++mode) {
        DML_PADDING_OPERATOR_DESC d = { &in.desc, &out.desc, (DML_PADDING_MODE)mode, 0.0f, 2, start, end };
        DML_OPERATOR_DESC od = { DML_OPERATOR_PADDING, &d };
        DMLOperator op = NULL;
        h_assert_ok(dmlDeviceCreateOperator(H.device, &od, &op));
        DMLCompiledOperator compiled = NULL;
        h_assert_ok(dmlDeviceCompileOperator(H.device, op, DML_EXECUTION_FLAG_NONE, &compiled));
        dmlRelease(compiled);
        dmlRelease(op);
    }
}
END_TEST

/* ---- graphs -------------------------------------------------------------- */

/* Runs a compiled graph of one input and one output (its temporary resource
 * bound when it has one); returns whether it had one. */
static int run_graph(DMLCompiledOperator co, const void* x, uint64_t x_bytes, void* y, uint64_t y_bytes)
{
    DML_BINDING_PROPERTIES p = dmlDispatchableGetBindingProperties(co);
    ck_assert_uint_eq(p.PersistentResourceSize, 0);
    DMLBuffer bx = h_buffer(&H, x_bytes, x), by = h_buffer(&H, y_bytes, NULL), bt = NULL;
    DMLBindingTable table = NULL;
    DML_BINDING_TABLE_DESC td = { co };
    h_assert_ok(dmlDeviceCreateBindingTable(H.device, &td, &table));
    DML_BUFFER_BINDING xb = { bx, 0, x_bytes }, yb = { by, 0, y_bytes }, tb;
    DML_BINDING_DESC xd = { DML_BINDING_TYPE_BUFFER, &xb }, yd = { DML_BINDING_TYPE_BUFFER, &yb };
    h_assert_ok(dmlBindingTableBindInputs(table, 1, &xd));
    h_assert_ok(dmlBindingTableBindOutputs(table, 1, &yd));
    if (p.TemporaryResourceSize) {
        bt = h_buffer(&H, p.TemporaryResourceSize, NULL);
        tb = (DML_BUFFER_BINDING){ bt, 0, p.TemporaryResourceSize };
        DML_BINDING_DESC t = { DML_BINDING_TYPE_BUFFER, &tb };
        h_assert_ok(dmlBindingTableBindTemporaryResource(table, &t));
    }
    h_assert_ok(dmlCommandRecorderRecordDispatch(H.recorder, H.queue, co, table));
    h_assert_ok(dmlCommandQueueSynchronize(H.queue));
    h_read(&H, by, 0, y, y_bytes);
    dmlRelease(table);
    dmlRelease(bx);
    dmlRelease(by);
    dmlRelease(bt);
    return p.TemporaryResourceSize != 0;
}

/* Two nodes, x -> first -> second -> y, compiled as a graph. */
static DMLCompiledOperator compile_chain(const DML_OPERATOR_DESC* first, const DML_OPERATOR_DESC* second)
{
    DMLOperator ops[2];
    h_assert_ok(dmlDeviceCreateOperator(H.device, first, &ops[0]));
    h_assert_ok(dmlDeviceCreateOperator(H.device, second, &ops[1]));
    DML_OPERATOR_GRAPH_NODE_DESC on[2] = { { ops[0], "first" }, { ops[1], "second" } };
    DML_GRAPH_NODE_DESC nodes[2] = { { DML_GRAPH_NODE_TYPE_OPERATOR, &on[0] }, { DML_GRAPH_NODE_TYPE_OPERATOR, &on[1] } };
    DML_INPUT_GRAPH_EDGE_DESC i0 = { 0, 0, 0, NULL };
    DML_INTERMEDIATE_GRAPH_EDGE_DESC m0 = { 0, 0, 1, 0, NULL };
    DML_OUTPUT_GRAPH_EDGE_DESC o0 = { 1, 0, 0, NULL };
    DML_GRAPH_EDGE_DESC ie = { DML_GRAPH_EDGE_TYPE_INPUT, &i0 }, me = { DML_GRAPH_EDGE_TYPE_INTERMEDIATE, &m0 },
                        oe = { DML_GRAPH_EDGE_TYPE_OUTPUT, &o0 };
    DML_GRAPH_DESC gd = { 1, 1, 2, nodes, 1, &ie, 1, &oe, 1, &me };
    DMLCompiledOperator co = NULL;
    h_assert_ok(dmlDeviceCompileGraph(H.device, &gd, DML_EXECUTION_FLAG_NONE, &co));
    dmlRelease(ops[0]);
    dmlRelease(ops[1]);
    return co;
}

/* x {4, 5} int16 -> IDENTITY reading it transposed {5, 4} -> PADDING
 * (REFLECTION, start {1, 2}, end {2, 1}) -> y {8, 7}; and the reverse order,
 * PADDING then a transpose. A PAD plan composes with no gather (its fold is
 * not affine): the intermediate is materialised, the result exact. */
START_TEST(graphs_with_padding)
{
    static const uint32_t x_sizes[2] = { 4, 5 }, t_sizes[2] = { 5, 4 }, t_strides[2] = { 1, 5 };
    static const uint32_t y_sizes[2] = { 8, 7 }, start[2] = { 1, 2 }, end[2] = { 2, 1 };
    int16_t x[20], got[56], want[56];
    for (int i = 0; i < 20; ++i)
        x[i] = (int16_t)(11 * i - 40);
    h_tensor xt, mid_out, mid_in, y;
    h_tensor_init(&xt, DML_TENSOR_DATA_TYPE_INT16, 2, t_sizes, t_strides);
    h_tensor_init(&mid_out, DML_TENSOR_DATA_TYPE_INT16, 2, t_sizes, NULL);
    h_tensor_init(&mid_in, DML_TENSOR_DATA_TYPE_INT16, 2, t_sizes, NULL);
    h_tensor_init(&y, DML_TENSOR_DATA_TYPE_INT16, 2, y_sizes, NULL);
    DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC id = { &xt.desc, &mid_out.desc, NULL };
    DML_PADDING_OPERATOR_DESC pad = { &mid_in.desc, &y.desc, DML_PADDING_MODE_REFLECTION, 0.0f, 2, start, end };
    DML_OPERATOR_DESC od_id = { DML_OPERATOR_ELEMENT_WISE_IDENTITY, &id }, od_pad = { DML_OPERATOR_PADDING, &pad };
    /* t[i][j] = x[j][i]; the reference pads t. */
    int16_t t[20];
    for (int i = 0; i < 5; ++i)
        for (int j = 0; j < 4; ++j)
            t[i * 4 + j] = x[j * 5 + i];
    ref_view vt = { 2, 2, t_sizes, NULL, (uint8_t*)t, sizeof t };
    ref_view vy = { 2, 2, y_sizes, NULL, (uint8_t*)want, sizeof want };
    int16_t zero = 0;
    ref_padding(&vt, &vy, DML_PADDING_MODE_REFLECTION, &zero, start);
    DMLCompiledOperator co = compile_chain(&od_id, &od_pad);
    ck_assert_msg(run_graph(co, x, sizeof x, got, sizeof got), "transpose -> PADDING fused (no intermediate)");
    ck_assert_mem_eq(got, want, sizeof got);
    dmlRelease(co);

    /* PADDING of x {4, 5} (start {2, 1}, end {1, 2}) -> {7, 8}, then read transposed into {8, 7}. */
    static const uint32_t p_sizes[2] = { 7, 8 }, p_start[2] = { 2, 1 }, p_end[2] = { 1, 2 }, pt_strides[2] = { 1, 8 };
    h_tensor xin, pout, tin, tout;
    h_tensor_init(&xin, DML_TENSOR_DATA_TYPE_INT16, 2, x_sizes, NULL);
    h_tensor_init(&pout, DML_TENSOR_DATA_TYPE_INT16, 2, p_sizes, NULL);
    h_tensor_init(&tin, DML_TENSOR_DATA_TYPE_INT16, 2, y_sizes, pt_strides);
    h_tensor_init(&tout, DML_TENSOR_DATA_TYPE_INT16, 2, y_sizes, NULL);
    DML_PADDING_OPERATOR_DESC pad2 = { &xin.desc, &pout.desc, DML_PADDING_MODE_SYMMETRIC, 0.0f, 2, p_start, p_end };
    DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC id2 = { &tin.desc, &tout.desc, NULL };
    DML_OPERATOR_DESC od_pad2 = { DML_OPERATOR_PADDING, &pad2 }, od_id2 = { DML_OPERATOR_ELEMENT_WISE_IDENTITY, &id2 };
    int16_t padded[56];
    ref_view vx = { 2, 2, x_sizes, NULL, (uint8_t*)x, sizeof x };
    ref_view vp = { 2, 2, p_sizes, NULL, (uint8_t*)padded, sizeof padded };
    ref_padding(&vx, &vp, DML_PADDING_MODE_SYMMETRIC, &zero, p_start);
    for (int a = 0; a < 8; ++a)
        for (int b = 0; b < 7; ++b)
            want[a * 7 + b] = padded[b * 8 + a];
    co = compile_chain(&od_pad2, &od_id2);
    ck_assert_msg(run_graph(co, x, sizeof x, got, sizeof got), "PADDING -> transpose fused (no intermediate)");
    ck_assert_mem_eq(got, want, sizeof got);
    dmlRelease(co);
}
END_TEST

static Suite* padding_suite(void)
{
    Suite* s = suite_create("padding");
    TCase* t = tcase_create("padding");
    tcase_add_checked_fixture(t, setup, teardown);
    tcase_set_timeout(t, 300);
    tcase_add_loop_test(t, padding_random, 0, 4);
    tcase_add_test(t, padding_far_beyond_the_input);
    tcase_add_test(t, padding_rows_at_every_alignment);
    tcase_add_loop_test(t, directml_examples, 0, 4);
    tcase_add_test(t, spec_examples);
    tcase_add_test(t, validation_baseline_is_valid);
    tcase_add_loop_test(t, validation_rules, 0, 2);
    tcase_add_test(t, validation_padding1_value_type);
    tcase_add_test(t, huge_pads_compile);
    tcase_add_test(t, graphs_with_padding);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    printf("test_api_padding: backend %s, seed 0x%" PRIx64 " (DML_TEST_SEED replays another)\n", h_backend(),
        seed());
    SRunner* sr = srunner_create(padding_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

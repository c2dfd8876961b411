/*
 * test_select.c — DML_OPERATOR_ONE_HOT and ELEMENT_WISE_IF through the
 * public API, on the backend DML_TEST_BACKEND names:
 *
 *   - random cases against reference.c's ref_one_hot / ref_element_wise_if:
 *     ranks 1-8, every data type, every index type (ONE_HOT), ValuesTensor
 *     of many shapes and layouts (off is element 0, on the next along the
 *     innermost dimension of size > 1), hostile indices (all off),
 *     conditions of any non-zero byte, packed / padded / permuted /
 *     broadcast operands, exact-size ranges; the whole output compared;
 *   - examples stated by hand;
 *   - one failing case per validation rule.
 *
 * A backend that does not execute the ONE_HOT or SELECT plan kinds yet
 * makes those cases skip (never pass): the suite then exits 77.
 */
#include "indexing.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const uint32_t MAX_DIM[9] = { 0, 40, 12, 7, 5, 4, 3, 3, 2 };

static uint64_t g_ran, g_skipped;

static uint32_t random_size(rng* r, uint32_t rank)
{
    return ix_chance(r, 15) ? 1 : 1 + (uint32_t)ix_below(r, MAX_DIM[rank]);
}

static void report(const char* test)
{
    printf("%s: %" PRIu64 " cases run, %" PRIu64 " skipped (plan kind not executed by '%s')\n", test, g_ran,
        g_skipped, h_backend());
}

/* Runs od over inputs and compares the whole output buffer with want. */
static void run_and_compare(const DML_OPERATOR_DESC* od, ix_operand* const* inputs, uint32_t count, ix_operand* out,
                            const uint8_t* want, const char* what)
{
    uint8_t* got = malloc(out->total);
    ck_assert_ptr_nonnull(got);
    if (ix_run(od, inputs, count, out, got)) {
        int same = ix_same_bytes(got, want, out->total, what);
        if (!same) {
            for (uint32_t i = 0; i < count; ++i)
                ix_dump("input", inputs[i]);
            ix_dump("output", out);
        }
        ck_assert_msg(same, "%s: the output buffer differs from the reference", what);
        ++g_ran;
    } else {
        ++g_skipped;
    }
    free(got);
}

/* ---- ONE_HOT ------------------------------------------------------------- */

/* ValuesTensor sizes: 1s with one or two dimensions > 1 (at most 6 elements). */
static void values_sizes(rng* r, uint32_t rank, uint32_t* sizes)
{
    for (uint32_t i = 0; i < rank; ++i)
        sizes[i] = 1;
    sizes[ix_below(r, rank)] = 2 + (uint32_t)ix_below(r, 2);
    if (rank > 1 && ix_chance(r, 40))
        sizes[ix_below(r, rank)] = 2;
}

static void one_hot_case(rng* r, DML_TENSOR_DATA_TYPE type, DML_TENSOR_DATA_TYPE index_type)
{
    const uint32_t R = 1 + (uint32_t)ix_below(r, 8), axis = (uint32_t)ix_below(r, R);
    uint32_t idx_sizes[8], out_sizes[8], val_sizes[8];
    for (uint32_t i = 0; i < R; ++i)
        idx_sizes[i] = out_sizes[i] = random_size(r, R);
    idx_sizes[axis] = 1;
    out_sizes[axis] = 1 + (uint32_t)ix_below(r, 9);
    while (ix_elements(R, out_sizes) > 3000) {
        uint32_t i = (uint32_t)ix_below(r, R);
        idx_sizes[i] = 1;
        out_sizes[i] = 1;
    }
    values_sizes(r, R, val_sizes);
    ix_operand idx, val, out;
    ix_operand_make(r, &idx, index_type, R, idx_sizes, IX_STRIDED | IX_BROADCAST);
    ix_operand_make(r, &val, type, R, val_sizes, IX_STRIDED);
    ix_operand_make(r, &out, type, R, out_sizes, IX_STRIDED);
    ix_operand_fill_indices(r, &idx, NULL, out_sizes[axis], 20);
    DML_ONE_HOT_OPERATOR_DESC d = { &idx.t.desc, &val.t.desc, &out.t.desc, axis };
    DML_OPERATOR_DESC od = { DML_OPERATOR_ONE_HOT, &d };
    uint8_t* want = malloc(out.total);
    ck_assert_ptr_nonnull(want);
    memcpy(want, out.host, out.total);
    ref_view vx = ix_view(&idx), vv = ix_view(&val), vo = ix_view(&out);
    vo.base = want + out.offset;
    ref_one_hot(&vx, &vv, &vo, axis, ix_index_signed(index_type));
    ix_operand* inputs[2] = { &idx, &val };
    run_and_compare(&od, inputs, 2, &out, want, "ONE_HOT");
    free(want);
    ix_operand_free(&idx);
    ix_operand_free(&val);
    ix_operand_free(&out);
}

START_TEST(one_hot_random)
{
    rng r = { ix_seed(0x0E407ull) };
    const int per = ix_quick() ? 1 : 4;
    g_ran = g_skipped = 0;
    for (uint32_t type = 1; type <= 11; ++type)
        for (int k = 0; k < per; ++k)
            one_hot_case(&r, (DML_TENSOR_DATA_TYPE)type, IX_INDEX_TYPES[(type + (uint32_t)k) % 4]);
    report("one_hot_random");
}
END_TEST

/* Indices {6,1} = 0, 2, -1, 5, -4, INT64_MIN (stored in each index type), depth 3, Axis 1; ValuesTensor {1,2} = {off 7, on 9}
 * and, strided, {2,1} with strides {3,1} (on is 3 elements after off). */
START_TEST(one_hot_example)
{
    static const uint32_t xs[2] = { 6, 1 }, os[2] = { 6, 3 }, v12[2] = { 1, 2 }, v21[2] = { 2, 1 },
                          v21_strides[2] = { 3, 1 };
    static const float vals12[2] = { 7, 9 };
    g_ran = g_skipped = 0;
    for (uint32_t t = 0; t < 4; ++t) {
        const int sg = ix_index_signed(IX_INDEX_TYPES[t]);
        const uint32_t es = h_elem_size(IX_INDEX_TYPES[t]);
        const uint64_t values[6] = { 0, 2, UINT64_MAX, 5, (uint64_t)-4, (uint64_t)INT64_MIN };
        /* -1: the last when signed, else huge; -4: before the first even from the end. */
        const int on[6] = { 0, 2, sg ? 2 : -1, -1, -1, es == 4 ? 0 : -1 }; /* INT64_MIN's low 32 bits: 0 */
        for (int layout = 0; layout < 2; ++layout) {
            ix_operand idx, val, out;
            ix_operand_fixed(&idx, IX_INDEX_TYPES[t], 2, xs, NULL, NULL);
            for (int i = 0; i < 6; ++i)
                memcpy(idx.host + i * es, &values[i], es);
            if (layout == 0) {
                ix_operand_fixed(&val, DML_TENSOR_DATA_TYPE_FLOAT32, 2, v12, NULL, vals12);
            } else {
                ix_operand_fixed(&val, DML_TENSOR_DATA_TYPE_FLOAT32, 2, v21, v21_strides, vals12);
                float junk = -1;
                memcpy(val.host + 4, &junk, 4); /* between off and on: never read */
            }
            ix_operand_fixed(&out, DML_TENSOR_DATA_TYPE_FLOAT32, 2, os, NULL, NULL);
            DML_ONE_HOT_OPERATOR_DESC d = { &idx.t.desc, &val.t.desc, &out.t.desc, 1 };
            DML_OPERATOR_DESC od = { DML_OPERATOR_ONE_HOT, &d };
            float got[18], want[18];
            ref_view vx = ix_view(&idx), vv = ix_view(&val);
            ref_view vo = { 4, 2, os, NULL, (uint8_t*)want, sizeof want };
            ref_one_hot(&vx, &vv, &vo, 1, sg);
            for (int i = 0; i < 18; ++i)
                ck_assert_msg(want[i] == (on[i / 3] == i % 3 ? 9.0f : 7.0f), "%s, layout %d: the reference's "
                    "output[%d][%d] = %g", h_type_name(IX_INDEX_TYPES[t]), layout, i / 3, i % 3, (double)want[i]);
            ix_operand* inputs[2] = { &idx, &val };
            if (ix_run(&od, inputs, 2, &out, got)) {
                for (int i = 0; i < 6; ++i)
                    for (int j = 0; j < 3; ++j)
                        ck_assert_msg(got[i * 3 + j] == (on[i] == j ? 9.0f : 7.0f),
                            "%s, layout %d: output[%d][%d] = %g", h_type_name(IX_INDEX_TYPES[t]), layout, i, j,
                            (double)got[i * 3 + j]);
                ++g_ran;
            } else {
                ++g_skipped;
            }
            ix_operand_free(&idx);
            ix_operand_free(&val);
            ix_operand_free(&out);
        }
    }
    report("one_hot_example");
}
END_TEST

/* ---- ELEMENT_WISE_IF ----------------------------------------------------- */

static void if_case(rng* r, DML_TENSOR_DATA_TYPE type)
{
    const uint32_t R = 1 + (uint32_t)ix_below(r, 8);
    uint32_t sizes[8];
    for (uint32_t i = 0; i < R; ++i)
        sizes[i] = random_size(r, R);
    while (ix_elements(R, sizes) > 3000)
        sizes[ix_below(r, R)] = 1;
    ix_operand cond, a, b, out;
    ix_operand_make(r, &cond, DML_TENSOR_DATA_TYPE_UINT8, R, sizes, IX_STRIDED | IX_BROADCAST);
    ix_operand_make(r, &a, type, R, sizes, IX_STRIDED | IX_BROADCAST);
    ix_operand_make(r, &b, type, R, sizes, IX_STRIDED | IX_BROADCAST);
    ix_operand_make(r, &out, type, R, sizes, IX_STRIDED);
    for (uint64_t i = 0; i < cond.total; ++i)
        if (ix_chance(r, 50))
            cond.host[i] = 0; /* the rest: any byte, 0x01 to 0xFF all select A */
    DML_ELEMENT_WISE_IF_OPERATOR_DESC d = { &cond.t.desc, &a.t.desc, &b.t.desc, &out.t.desc };
    DML_OPERATOR_DESC od = { DML_OPERATOR_ELEMENT_WISE_IF, &d };
    uint8_t* want = malloc(out.total);
    ck_assert_ptr_nonnull(want);
    memcpy(want, out.host, out.total);
    ref_view vc = ix_view(&cond), va = ix_view(&a), vb = ix_view(&b), vo = ix_view(&out);
    vo.base = want + out.offset;
    ref_element_wise_if(&vc, &va, &vb, &vo);
    ix_operand* inputs[3] = { &cond, &a, &b };
    run_and_compare(&od, inputs, 3, &out, want, "ELEMENT_WISE_IF");
    free(want);
    ix_operand_free(&cond);
    ix_operand_free(&a);
    ix_operand_free(&b);
    ix_operand_free(&out);
}

START_TEST(if_random)
{
    rng r = { ix_seed(0x1Full) };
    const int per = ix_quick() ? 1 : 4;
    g_ran = g_skipped = 0;
    for (uint32_t type = 1; type <= 11; ++type)
        for (int k = 0; k < per; ++k)
            if_case(&r, (DML_TENSOR_DATA_TYPE)type);
    report("if_random");
}
END_TEST

/* Condition {1, 0, 255, 0, 0x80, 2}, A and B INT64, B broadcast from one element. */
START_TEST(if_example)
{
    static const uint32_t s6[1] = { 6 }, zero[1] = { 0 };
    static const uint8_t c[8] = { 1, 0, 255, 0, 0x80, 2, 0, 0 };
    static const int64_t a[6] = { 1, 2, 3, 4, INT64_MIN, INT64_MAX }, b[1] = { -9 };
    static const int64_t want[6] = { 1, -9, 3, -9, INT64_MIN, INT64_MAX };
    ix_operand cond, va, vb, out;
    ix_operand_fixed(&cond, DML_TENSOR_DATA_TYPE_UINT8, 1, s6, NULL, c);
    ix_operand_fixed(&va, DML_TENSOR_DATA_TYPE_INT64, 1, s6, NULL, a);
    ix_operand_fixed(&vb, DML_TENSOR_DATA_TYPE_INT64, 1, s6, zero, NULL);
    memcpy(vb.host, b, 8);
    ix_operand_fixed(&out, DML_TENSOR_DATA_TYPE_INT64, 1, s6, NULL, NULL);
    DML_ELEMENT_WISE_IF_OPERATOR_DESC d = { &cond.t.desc, &va.t.desc, &vb.t.desc, &out.t.desc };
    DML_OPERATOR_DESC od = { DML_OPERATOR_ELEMENT_WISE_IF, &d };
    int64_t got[6], ref[6];
    ref_view vc = ix_view(&cond), vva = ix_view(&va), vvb = ix_view(&vb);
    ref_view vo = { 8, 1, s6, NULL, (uint8_t*)ref, sizeof ref };
    ref_element_wise_if(&vc, &vva, &vvb, &vo);
    ck_assert_mem_eq(ref, want, sizeof want);
    ix_operand* inputs[3] = { &cond, &va, &vb };
    g_ran = g_skipped = 0;
    if (ix_run(&od, inputs, 3, &out, got)) {
        for (int i = 0; i < 6; ++i)
            ck_assert_msg(got[i] == want[i], "output[%d] = %" PRId64 ", expected %" PRId64, i, got[i], want[i]);
        ++g_ran;
    } else {
        ++g_skipped;
    }
    report("if_example");
    ix_operand_free(&cond), ix_operand_free(&va), ix_operand_free(&vb), ix_operand_free(&out);
}
END_TEST

/* ---- validation ---------------------------------------------------------- */

/* ONE_HOT: indices {2,1,4} INT64, values {1,2} -> as rank 3 {1,1,2} FLOAT16, output {2,5,4}, Axis 1. */
typedef struct ofix {
    h_tensor idx, val, out;
    DML_ONE_HOT_OPERATOR_DESC d;
    DML_OPERATOR_DESC od;
} ofix;

static ofix* one_hot_fix(ofix* f)
{
    static const uint32_t xs[3] = { 2, 1, 4 }, vs[3] = { 1, 1, 2 }, os[3] = { 2, 5, 4 };
    h_tensor_init(&f->idx, DML_TENSOR_DATA_TYPE_INT64, 3, xs, NULL);
    h_tensor_init(&f->val, DML_TENSOR_DATA_TYPE_FLOAT16, 3, vs, NULL);
    h_tensor_init(&f->out, DML_TENSOR_DATA_TYPE_FLOAT16, 3, os, NULL);
    f->d = (DML_ONE_HOT_OPERATOR_DESC){ &f->idx.desc, &f->val.desc, &f->out.desc, 1 };
    f->od = (DML_OPERATOR_DESC){ DML_OPERATOR_ONE_HOT, &f->d };
    return f;
}

static void rank_plus_one(h_tensor* t)
{
    uint32_t sizes[8] = { 1 }, rank = t->buf.DimensionCount;
    memcpy(sizes + 1, t->sizes, rank * sizeof *sizes);
    h_tensor_init(t, t->buf.DataType, rank + 1, sizes, NULL);
}

START_TEST(validation_one_hot)
{
    const char* call = "(ONE_HOT)";
    ofix f;
    ix_expect_valid(&one_hot_fix(&f)->od, "baseline");
    one_hot_fix(&f)->d.IndicesTensor = NULL;
    ix_expect_invalid(&f.od, call, "IndicesTensor NULL", "IndicesTensor", NULL);
    one_hot_fix(&f)->d.ValuesTensor = NULL;
    ix_expect_invalid(&f.od, call, "ValuesTensor NULL", "ValuesTensor", NULL);
    one_hot_fix(&f)->d.OutputTensor = NULL;
    ix_expect_invalid(&f.od, call, "OutputTensor NULL", "OutputTensor", NULL);
    static const DML_TENSOR_DATA_TYPE bad_index[] = { DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_INT16,
        DML_TENSOR_DATA_TYPE_UINT8, DML_TENSOR_DATA_TYPE_FLOAT64, DML_TENSOR_DATA_TYPE_INT8 };
    for (size_t i = 0; i < sizeof bad_index / sizeof bad_index[0]; ++i) {
        one_hot_fix(&f)->idx.buf.DataType = bad_index[i];
        ix_expect_invalid(&f.od, call, "a non-index type", "IndicesTensor.DataType", "INT32, INT64, UINT32 or UINT64");
    }
    for (uint32_t t = 0; t < 4; ++t) {
        one_hot_fix(&f)->idx.buf.DataType = IX_INDEX_TYPES[t];
        ix_expect_valid(&f.od, "each index type");
    }
    one_hot_fix(&f)->out.buf.DataType = DML_TENSOR_DATA_TYPE_INT16;
    ix_expect_invalid(&f.od, call, "output INT16", "OutputTensor.DataType INT16", "ValuesTensor.DataType FLOAT16");
    rank_plus_one(&one_hot_fix(&f)->val);
    ix_expect_invalid(&f.od, call, "values rank + 1", "DimensionCount", "ValuesTensor 4");
    rank_plus_one(&one_hot_fix(&f)->out);
    ix_expect_invalid(&f.od, call, "output rank + 1", "DimensionCount", "OutputTensor 4");
    one_hot_fix(&f)->d.Axis = 3;
    ix_expect_invalid(&f.od, call, "Axis 3", "Axis = 3", "IndicesTensor.DimensionCount 3");
    one_hot_fix(&f)->d.Axis = 0; /* indices' 2 on the axis */
    ix_expect_invalid(&f.od, call, "Axis 0", "IndicesTensor.Sizes[0] = 2", "must be 1 on Axis 0");
    one_hot_fix(&f)->out.sizes[2] = 3;
    ix_expect_invalid(&f.od, call, "output {2,5,3}", "OutputTensor.Sizes[2] = 3", "IndicesTensor.Sizes[2] = 4");
    static const uint32_t one[3] = { 1, 1, 1 }, big[3] = { 3, 2, 2 };
    h_tensor_init(&one_hot_fix(&f)->val, DML_TENSOR_DATA_TYPE_FLOAT16, 3, one, NULL);
    ix_expect_invalid(&f.od, call, "one value", "ValuesTensor has 1 element", "at least 2");
    h_tensor_init(&one_hot_fix(&f)->val, DML_TENSOR_DATA_TYPE_FLOAT16, 3, big, NULL);
    ix_expect_valid(&f.od, "12 values (off, then on along the innermost dimension > 1)");
    /* Depth 1 on the axis is valid (every index but 0 or -1 turns nothing on). */
    one_hot_fix(&f)->out.sizes[1] = 1;
    ix_expect_valid(&f.od, "depth 1");
}
END_TEST

/* IF: condition {3,4} UINT8, A, B, output {3,4} FLOAT64. */
typedef struct ifix {
    h_tensor c, a, b, out;
    DML_ELEMENT_WISE_IF_OPERATOR_DESC d;
    DML_OPERATOR_DESC od;
} ifix;

static ifix* if_fix(ifix* f)
{
    static const uint32_t s[2] = { 3, 4 };
    h_tensor_init(&f->c, DML_TENSOR_DATA_TYPE_UINT8, 2, s, NULL);
    h_tensor_init(&f->a, DML_TENSOR_DATA_TYPE_FLOAT64, 2, s, NULL);
    h_tensor_init(&f->b, DML_TENSOR_DATA_TYPE_FLOAT64, 2, s, NULL);
    h_tensor_init(&f->out, DML_TENSOR_DATA_TYPE_FLOAT64, 2, s, NULL);
    f->d = (DML_ELEMENT_WISE_IF_OPERATOR_DESC){ &f->c.desc, &f->a.desc, &f->b.desc, &f->out.desc };
    f->od = (DML_OPERATOR_DESC){ DML_OPERATOR_ELEMENT_WISE_IF, &f->d };
    return f;
}

START_TEST(validation_if)
{
    const char* call = "(ELEMENT_WISE_IF)";
    ifix f;
    ix_expect_valid(&if_fix(&f)->od, "baseline");
    if_fix(&f)->d.ConditionTensor = NULL;
    ix_expect_invalid(&f.od, call, "ConditionTensor NULL", "ConditionTensor", NULL);
    if_fix(&f)->d.ATensor = NULL;
    ix_expect_invalid(&f.od, call, "ATensor NULL", "ATensor", NULL);
    if_fix(&f)->d.BTensor = NULL;
    ix_expect_invalid(&f.od, call, "BTensor NULL", "BTensor", NULL);
    if_fix(&f)->d.OutputTensor = NULL;
    ix_expect_invalid(&f.od, call, "OutputTensor NULL", "OutputTensor", NULL);
    static const DML_TENSOR_DATA_TYPE bad_cond[] = { DML_TENSOR_DATA_TYPE_INT8, DML_TENSOR_DATA_TYPE_UINT16,
        DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_UINT32 };
    for (size_t i = 0; i < sizeof bad_cond / sizeof bad_cond[0]; ++i) {
        if_fix(&f)->c.buf.DataType = bad_cond[i];
        f.c.buf.TotalTensorSizeInBytes = 64;
        ix_expect_invalid(&f.od, call, "a non-UINT8 condition", "ConditionTensor.DataType", "must be UINT8");
    }
    if_fix(&f)->a.buf.DataType = DML_TENSOR_DATA_TYPE_INT64;
    ix_expect_invalid(&f.od, call, "A INT64", "ATensor.DataType INT64", "OutputTensor.DataType FLOAT64");
    if_fix(&f)->b.buf.DataType = DML_TENSOR_DATA_TYPE_UINT64;
    ix_expect_invalid(&f.od, call, "B UINT64", "BTensor.DataType UINT64", "OutputTensor.DataType FLOAT64");
    if_fix(&f)->a.sizes[1] = 3;
    ix_expect_invalid(&f.od, call, "A {3,3}", "ATensor.Sizes[1] = 3", "OutputTensor.Sizes[1] = 4");
    if_fix(&f)->b.sizes[0] = 1;
    ix_expect_invalid(&f.od, call, "B {1,4}", "BTensor.Sizes[0] = 1", "OutputTensor.Sizes[0] = 3");
    if_fix(&f)->c.sizes[1] = 1;
    ix_expect_invalid(&f.od, call, "condition {3,1}", "ConditionTensor.Sizes[1] = 1", "OutputTensor.Sizes[1] = 4");
    rank_plus_one(&if_fix(&f)->c);
    ix_expect_invalid(&f.od, call, "condition rank 3", "ConditionTensor.DimensionCount 3", NULL);
    rank_plus_one(&if_fix(&f)->a);
    ix_expect_invalid(&f.od, call, "A rank 3", "ATensor.DimensionCount 3", NULL);
    rank_plus_one(&if_fix(&f)->out);
    ix_expect_invalid(&f.od, call, "output rank 3", "DimensionCount", NULL);
    /* Valid: broadcast operands (strides 0). */
    static const uint32_t s[2] = { 3, 4 }, z[2] = { 0, 1 };
    if_fix(&f);
    h_tensor_init(&f.c, DML_TENSOR_DATA_TYPE_UINT8, 2, s, z);
    h_tensor_init(&f.b, DML_TENSOR_DATA_TYPE_FLOAT64, 2, s, z);
    ix_expect_valid(&f.od, "broadcast condition and B");
}
END_TEST

static Suite* select_suite(void)
{
    Suite* s = suite_create("select");
    TCase* t = tcase_create("select");
    tcase_add_checked_fixture(t, ix_setup, ix_teardown);
    tcase_set_timeout(t, 300);
    tcase_add_test(t, one_hot_random);
    tcase_add_test(t, one_hot_example);
    tcase_add_test(t, if_random);
    tcase_add_test(t, if_example);
    tcase_add_test(t, validation_one_hot);
    tcase_add_test(t, validation_if);
    suite_add_tcase(s, t);
    return s;
}

static uint32_t probe(void)
{
    h_tensor i, v, o, c;
    ix_plain_tensor(&i, DML_TENSOR_DATA_TYPE_INT32, 1);
    ix_plain_tensor(&v, DML_TENSOR_DATA_TYPE_FLOAT32, 2);
    ix_plain_tensor(&o, DML_TENSOR_DATA_TYPE_FLOAT32, 1);
    ix_plain_tensor(&c, DML_TENSOR_DATA_TYPE_UINT8, 1);
    DML_ONE_HOT_OPERATOR_DESC oh = { &i.desc, &v.desc, &o.desc, 0 };
    DML_ELEMENT_WISE_IF_OPERATOR_DESC wi = { &c.desc, &o.desc, &o.desc, &o.desc };
    const DML_OPERATOR_DESC ods[2] = { { DML_OPERATOR_ONE_HOT, &oh }, { DML_OPERATOR_ELEMENT_WISE_IF, &wi } };
    const DML_OPERATOR_DESC* p[2] = { &ods[0], &ods[1] };
    static const char* const names[2] = { "ONE_HOT", "ELEMENT_WISE_IF" };
    return ix_probe(p, names, 2);
}

int main(void)
{
    printf("test_api_select: backend %s, seed 0x%" PRIx64 " (DML_TEST_SEED replays another)\n", h_backend(),
        ix_seed(0x0E407ull));
    uint32_t refused = probe();
    SRunner* sr = srunner_create(select_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return ix_exit_code(failed, refused, "test_api_select");
}

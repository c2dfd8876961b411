/*
 * A fused chain of three gathers moves the bytes of one gather: the chain of
 * dmlbench --graph (IDENTITY reshape -> SLICE1 reversed rows ->
 * REVERSE_SUBSEQUENCES with per-batch lengths), composed by the core
 * (core/plan_compose.c, as dmlDeviceCompileGraph does), launched by the CUDA
 * launcher and run by the emulator with its traffic counters: the data loaded
 * and stored equal those of one plain copy of the tensor (each element read
 * once and written once), a third of the three separate launches' traffic.
 * The fused output is also checked against a naive evaluation of the chain.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "core/ops/op.h"
#include "core/plan_compose.h"
#include "emulator.h"
#include "launch.h"

enum { B = 4, S = 16, C = 256, N = B * S * C };

typedef struct tspec {
    uint32_t sizes[3], strides[3];
    DML_BUFFER_TENSOR_DESC buffer;
    DML_TENSOR_DESC desc;
} tspec;

static void tspec_init(tspec* t, DML_TENSOR_DATA_TYPE type, uint32_t rank, const uint32_t* sizes,
    const uint32_t* strides, uint64_t bytes)
{
    memset(t, 0, sizeof *t);
    memcpy(t->sizes, sizes, rank * 4);
    if (strides)
        memcpy(t->strides, strides, rank * 4);
    t->buffer = (DML_BUFFER_TENSOR_DESC){ type, DML_TENSOR_FLAG_NONE, rank, t->sizes, strides ? t->strides : NULL,
        bytes, 0 };
    t->desc = (DML_TENSOR_DESC){ DML_TENSOR_TYPE_BUFFER, &t->buffer };
}

static dml_plan plan_of(const DML_OPERATOR_DESC* desc)
{
    dml_plan plan;
    ck_assert_int_eq(dml_plan_from_desc(desc, &plan), DML_S_OK);
    return plan;
}

/* Every tensor of the chain is N elements of 4 bytes; lengths are B UINT32. */
static dml_coalescing emulate(const dml_plan* plan, const void* in, const void* lengths, void* out, uint64_t bytes,
    uint64_t lengths_bytes)
{
    dml_plan_args args = { in, lengths, out, bytes, lengths ? lengths_bytes : 0, bytes, NULL, 0 };
    dml_cuda_launch launch;
    dml_cuda_prepare(plan, &args, 132, &launch);
    dml_coalescing stats;
    ck_assert_int_eq(dml_cuda_emulate(&launch, &stats), 0);
    if (launch.is_copy) /* a cudaMemcpy: the emulator counts no kernel traffic; it is one read and one write */
        stats.load_bytes = stats.store_bytes = launch.copy_bytes;
    return stats;
}

START_TEST(fused_chain_moves_one_gathers_bytes)
{
    uint32_t flat[2] = { B * S, C }, shaped[3] = { B, S, C }, len_sizes[3] = { B, 1, C }, per_batch[3] = { 1, 0, 0 };
    tspec id_in, id_out, s_in, s_out, r_in, r_len, r_out;
    tspec_init(&id_in, DML_TENSOR_DATA_TYPE_FLOAT32, 2, flat, NULL, N * 4);
    tspec_init(&id_out, DML_TENSOR_DATA_TYPE_FLOAT32, 2, flat, NULL, N * 4);
    tspec_init(&s_in, DML_TENSOR_DATA_TYPE_FLOAT32, 3, shaped, NULL, N * 4);
    tspec_init(&s_out, DML_TENSOR_DATA_TYPE_FLOAT32, 3, shaped, NULL, N * 4);
    tspec_init(&r_in, DML_TENSOR_DATA_TYPE_FLOAT32, 3, shaped, NULL, N * 4);
    tspec_init(&r_out, DML_TENSOR_DATA_TYPE_FLOAT32, 3, shaped, NULL, N * 4);
    tspec_init(&r_len, DML_TENSOR_DATA_TYPE_UINT32, 3, len_sizes, per_batch, B * 4);
    uint32_t offsets[3] = { 0, 0, 0 }, window[3] = { B, S, C };
    int32_t strides[3] = { 1, 1, -1 };
    DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC id = { &id_in.desc, &id_out.desc, NULL };
    DML_SLICE1_OPERATOR_DESC s1 = { &s_in.desc, &s_out.desc, 3, offsets, window, strides };
    DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC rs = { &r_in.desc, &r_len.desc, &r_out.desc, 1 };
    DML_OPERATOR_DESC ods[3] = { { DML_OPERATOR_ELEMENT_WISE_IDENTITY, &id }, { DML_OPERATOR_SLICE1, &s1 },
        { DML_OPERATOR_REVERSE_SUBSEQUENCES, &rs } };
    dml_plan plans[3], ab, abc;
    for (int k = 0; k < 3; ++k)
        plans[k] = plan_of(&ods[k]);
    dml_lengths_from from;
    ck_assert(dml_plan_compose(&plans[1], &plans[0], &ab, &from));
    ck_assert(dml_plan_compose(&plans[2], &ab, &abc, &from));
    ck_assert_int_eq(from, DML_LENGTHS_CONSUMER);

    float* x = malloc(N * 4);
    float* mid1 = malloc(N * 4);
    float* mid2 = malloc(N * 4);
    float* separate = malloc(N * 4);
    float* fused = malloc(N * 4);
    uint32_t lengths[B] = { 0, 5, 16, 40 }; /* 40 clamps to 16 */
    for (int i = 0; i < N; ++i)
        x[i] = (float)i;

    dml_coalescing one = emulate(&plans[0], x, NULL, mid1, N * 4, 0); /* a plain copy of the tensor: one gather */
    dml_coalescing s1_stats = emulate(&plans[1], mid1, NULL, mid2, N * 4, 0);
    dml_coalescing rs_stats = emulate(&plans[2], mid2, lengths, separate, N * 4, sizeof lengths);
    dml_coalescing f = emulate(&abc, x, lengths, fused, N * 4, sizeof lengths);

    ck_assert_uint_eq(one.load_bytes, (uint64_t)N * 4);
    ck_assert_uint_eq(one.store_bytes, (uint64_t)N * 4);
    ck_assert_uint_eq(f.load_bytes, one.load_bytes);
    ck_assert_uint_eq(f.store_bytes, one.store_bytes);
    ck_assert_uint_eq(one.load_bytes + s1_stats.load_bytes + rs_stats.load_bytes, 3 * f.load_bytes);
    ck_assert_uint_eq(one.store_bytes + s1_stats.store_bytes + rs_stats.store_bytes, 3 * f.store_bytes);

    /* Naive: out[b][s][c] = in[b][s'][C-1-c], s' = s < L ? L-1-s : s. */
    for (int b = 0; b < B; ++b) {
        uint32_t L = lengths[b] < S ? lengths[b] : S;
        for (uint32_t s = 0; s < S; ++s)
            for (int c = 0; c < C; ++c) {
                uint32_t ss = s < L ? L - 1 - s : s;
                float expect = x[(b * S + ss) * C + (C - 1 - c)];
                ck_assert_float_eq(fused[(b * S + s) * C + c], expect);
                ck_assert_float_eq(separate[(b * S + s) * C + c], expect);
            }
    }
    free(x);
    free(mid1);
    free(mid2);
    free(separate);
    free(fused);
}
END_TEST

int main(void)
{
    Suite* s = suite_create("fused_traffic");
    TCase* tc = tcase_create("traffic");
    tcase_add_test(tc, fused_chain_moves_one_gathers_bytes);
    suite_add_tcase(s, tc);
    SRunner* sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

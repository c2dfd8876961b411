#include "pad_check.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "core/ops/op.h"
#include "cpu_pad.h"
#include "guarded.h"
#include "reference.h"

void check_padding(cpu_pool* pool, DML_TENSOR_DATA_TYPE type, DML_PADDING_MODE mode, float value,
    const uint32_t* in_sizes, const uint32_t* starts, const uint32_t* ends)
{
    const uint32_t e = dml_data_type_size(type);
    uint32_t out_sizes[2] = { in_sizes[0] + starts[0] + ends[0], in_sizes[1] + starts[1] + ends[1] };
    uint64_t in_bytes, out_bytes;
    ck_assert(dml_calc_buffer_tensor_size(type, 2, in_sizes, NULL, &in_bytes));
    ck_assert(dml_calc_buffer_tensor_size(type, 2, out_sizes, NULL, &out_bytes));
    DML_BUFFER_TENSOR_DESC bi = { type, DML_TENSOR_FLAG_NONE, 2, in_sizes, NULL, in_bytes, 0 };
    DML_BUFFER_TENSOR_DESC bo = { type, DML_TENSOR_FLAG_NONE, 2, out_sizes, NULL, out_bytes, 0 };
    DML_TENSOR_DESC ti = { DML_TENSOR_TYPE_BUFFER, &bi }, to = { DML_TENSOR_TYPE_BUFFER, &bo };
    DML_PADDING_OPERATOR_DESC pd = { &ti, &to, mode, value, 2, starts, ends };
    DML_OPERATOR_DESC od = { DML_OPERATOR_PADDING, &pd };
    dml_plan plan;
    ck_assert_int_ge(dml_plan_from_desc(&od, &plan), 0);
    /* The output's exact elements (no rounding up to 4 bytes) end at the guard page. */
    const size_t out_exact = (size_t)out_sizes[0] * out_sizes[1] * e;
    unsigned char* in = malloc(in_bytes);
    unsigned char* want = malloc(out_exact);
    ck_assert(in && want);
    for (uint64_t i = 0; i < in_bytes; ++i)
        in[i] = (unsigned char)(i * 131 + 7);
    guarded g;
    guarded_make(&g, out_exact);
    memcpy(want, g.data, out_exact);
    dml_plan_args args = { in, NULL, g.data, in_bytes, 0, out_exact, NULL, 0 };
    dml_cpu_pad(pool, NULL, 3, &plan, &args);
    ref_view vi = { e, 2, in_sizes, NULL, in, in_bytes }, vo = { e, 2, out_sizes, NULL, want, out_exact };
    ref_padding(&vi, &vo, (uint32_t)mode, plan.fill_start.bytes, starts); /* the value in the type */
    ck_assert_msg(memcmp(g.data, want, out_exact) == 0, "pad type %d mode %d [%u, %u] by (%u, %u) / (%u, %u)",
        (int)type, (int)mode, in_sizes[0], in_sizes[1], starts[0], starts[1], ends[0], ends[1]);
    guarded_check_before(&g, "padding");
    guarded_free(&g);
    free(in);
    free(want);
}

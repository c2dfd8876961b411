/*
 * dmlrun_ops.c — dmlrun's operators, one entry each (dmlrun.h): the
 * command-line options, how the DML_OPERATOR_DESC is built from them, and
 * the examples of DirectML's documentation with their expected outputs.
 * Adding an operator is adding its entry and one line of the table at the
 * end. The runtime validates the descs: the entries only translate.
 */
#include "dmlrun.h"

#include <inttypes.h>
#include <string.h>

/* ---- SLICE1 --------------------------------------------------------------- */

static void slice1_build(const dmlrun_args* a, dmlrun_call* call)
{
    const dmlrun_value* offsets = dmlrun_value_of(a, "--offsets");
    const dmlrun_value* windows = dmlrun_value_of(a, "--window-sizes");
    const dmlrun_value* strides = dmlrun_value_of(a, "--strides");
    const dmlrun_value* output_sizes = dmlrun_value_of(a, "--output-sizes");
    uint32_t out_sizes[DMLRUN_MAX_RANK];
    for (uint32_t i = 0; i < a->rank; i++) {
        uint32_t stride = strides->i[i] < 0 ? (uint32_t)-(int64_t)strides->i[i] : (uint32_t)strides->i[i];
        out_sizes[i] = output_sizes->given ? output_sizes->u[i]
            : (stride && windows->u[i] ? 1 + (windows->u[i] - 1) / stride : 1);
    }
    host_tensor* output = dmlrun_set_output(call, a->type, a->rank, out_sizes);
    DML_SLICE1_OPERATOR_DESC* d = dmlrun_desc(call, DML_OPERATOR_SLICE1, sizeof *d);
    *d = (DML_SLICE1_OPERATOR_DESC){ &call->tensors[0].desc, &output->desc, a->rank, offsets->u, windows->u,
        strides->i };
    dmlrun_print_u("InputWindowOffsets", a->rank, offsets->u);
    dmlrun_print_u("InputWindowSizes", a->rank, windows->u);
    dmlrun_print_i("InputWindowStrides", a->rank, strides->i);
}

static const dmlrun_example slice1_examples[] = {
    { "SLICE1 example: offsets {0,0,0,1}, window {1,1,4,3}, strides {1,1,2,2}",
        "--sizes 1,1,4,4 --offsets 0,0,0,1 --window-sizes 1,1,4,3 --strides 1,1,2,2", "2,4,10,12" },
    { "SLICE1 example: offsets {0,0,0,1}, window {1,1,4,3}, strides {1,1,-2,2}",
        "--sizes 1,1,4,4 --offsets 0,0,0,1 --window-sizes 1,1,4,3 --strides 1,1,-2,2", "14,16,6,8" },
    { NULL, NULL, NULL },
};

static const dmlrun_op slice1 = {
    .name = "slice1",
    .title = "SLICE1",
    .usage = "--sizes S --offsets O --window-sizes W --strides T [--output-sizes S]",
    .notes = "strides are signed and non-zero; output sizes default to 1 + (W-1)/|T|",
    .options = {
        { "--offsets", DMLRUN_LIST, true },
        { "--window-sizes", DMLRUN_LIST, true },
        { "--strides", DMLRUN_SIGNED_LIST, true },
        { "--output-sizes", DMLRUN_LIST, false },
    },
    .build = slice1_build,
    .examples = slice1_examples,
};

/* ---- SLICE ---------------------------------------------------------------- */

static void slice_build(const dmlrun_args* a, dmlrun_call* call)
{
    const dmlrun_value* offsets = dmlrun_value_of(a, "--offsets");
    const dmlrun_value* sizes = dmlrun_value_of(a, "--slice-sizes");
    const dmlrun_value* strides = dmlrun_value_of(a, "--strides");
    host_tensor* output = dmlrun_set_output(call, a->type, a->rank, sizes->u);
    DML_SLICE_OPERATOR_DESC* d = dmlrun_desc(call, DML_OPERATOR_SLICE, sizeof *d);
    *d = (DML_SLICE_OPERATOR_DESC){ &call->tensors[0].desc, &output->desc, a->rank, offsets->u, sizes->u,
        strides->u };
    dmlrun_print_u("Offsets", a->rank, offsets->u);
    dmlrun_print_u("Sizes", a->rank, sizes->u);
    dmlrun_print_u("Strides", a->rank, strides->u);
}

static const dmlrun_op slice = {
    .name = "slice",
    .title = "SLICE",
    .usage = "--sizes S --offsets O --slice-sizes Z --strides T",
    .options = {
        { "--offsets", DMLRUN_LIST, true },
        { "--slice-sizes", DMLRUN_LIST, true },
        { "--strides", DMLRUN_LIST, true },
    },
    .build = slice_build,
};

/* ---- REVERSE_SUBSEQUENCES ------------------------------------------------- */

static void reverse_check(const dmlrun_args* a)
{
    uint32_t axis = dmlrun_value_of(a, "--axis")->u[0];
    if (axis >= a->rank)
        tool_fail("--axis %" PRIu32 " is not below the dimension count %" PRIu32, axis, a->rank);
}

static void reverse_build(const dmlrun_args* a, dmlrun_call* call)
{
    uint32_t axis = dmlrun_value_of(a, "--axis")->u[0];
    const dmlrun_value* lengths_type = dmlrun_value_of(a, "--lengths-type");
    uint32_t length_sizes[DMLRUN_MAX_RANK];
    memcpy(length_sizes, a->sizes, sizeof length_sizes);
    length_sizes[axis] = 1;
    host_tensor* lengths = dmlrun_add_input(call, "sequence lengths",
        lengths_type->given ? lengths_type->type : DML_TENSOR_DATA_TYPE_UINT32, a->rank, length_sizes);
    host_tensor_fill(lengths, dmlrun_value_of(a, "--lengths")->text, "--lengths");
    host_tensor* output = dmlrun_set_output(call, a->type, a->rank, a->sizes);
    DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC* d = dmlrun_desc(call, DML_OPERATOR_REVERSE_SUBSEQUENCES, sizeof *d);
    *d = (DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC){ &call->tensors[0].desc, &lengths->desc, &output->desc, axis };
    printf("  Axis %" PRIu32 "\n", axis);
}

static const dmlrun_example reverse_examples[] = {
    { "REVERSE_SUBSEQUENCES example 1: lengths {1,1,3,1} = [2,4,3], axis 3",
        "--sizes 1,1,3,4 --axis 3 --lengths 2,4,3", "2,1,3,4,8,7,6,5,11,10,9,12" },
    { "REVERSE_SUBSEQUENCES example 2: lengths {1,1,1,4} = [2,3,1,0], axis 2",
        "--sizes 1,1,3,4 --axis 2 --lengths 2,3,1,0", "5,10,3,4,1,6,7,8,9,2,11,12" },
    { NULL, NULL, NULL },
};

static const dmlrun_op reverse = {
    .name = "reverse",
    .alias = "reverse_subsequences",
    .title = "REVERSE_SUBSEQUENCES",
    .usage = "--sizes S --axis A --lengths L [--lengths-type uint32|uint64]",
    .notes = "L holds one length per sequence: the input sizes with 1 on the axis",
    .options = {
        { "--axis", DMLRUN_ONE, true },
        { "--lengths", DMLRUN_VALUES, true },
        { "--lengths-type", DMLRUN_TYPE, false },
    },
    .check = reverse_check,
    .build = reverse_build,
    .examples = reverse_examples,
};

/* ---- TILE ------------------------------------------------------------------ */

static void tile_check(const dmlrun_args* a)
{
    const uint32_t* repeats = dmlrun_value_of(a, "--repeats")->u;
    for (uint32_t i = 0; i < a->rank; i++)
        if ((uint64_t)a->sizes[i] * repeats[i] > UINT32_MAX)
            tool_fail("--repeats: Sizes[%" PRIu32 "] * Repeats[%" PRIu32 "] = %" PRIu64
                " does not fit a 32-bit output size", i, i, (uint64_t)a->sizes[i] * repeats[i]);
}

static void tile_build(const dmlrun_args* a, dmlrun_call* call)
{
    const uint32_t* repeats = dmlrun_value_of(a, "--repeats")->u;
    uint32_t out_sizes[DMLRUN_MAX_RANK];
    for (uint32_t i = 0; i < a->rank; i++)
        out_sizes[i] = a->sizes[i] * repeats[i]; /* a repeat of 0 is the runtime's to report */
    host_tensor* output = dmlrun_set_output(call, a->type, a->rank, out_sizes);
    DML_TILE_OPERATOR_DESC* d = dmlrun_desc(call, DML_OPERATOR_TILE, sizeof *d);
    *d = (DML_TILE_OPERATOR_DESC){ &call->tensors[0].desc, &output->desc, a->rank, repeats };
    dmlrun_print_u("Repeats", a->rank, repeats);
}

static const dmlrun_example tile_examples[] = {
    { "TILE example: input {1,1,2,3}, repeats {1,1,3,3}", "--sizes 1,1,2,3 --repeats 1,1,3,3",
        "1,2,3,1,2,3,1,2,3,4,5,6,4,5,6,4,5,6,"
        "1,2,3,1,2,3,1,2,3,4,5,6,4,5,6,4,5,6,"
        "1,2,3,1,2,3,1,2,3,4,5,6,4,5,6,4,5,6" },
    { NULL, NULL, NULL },
};

static const dmlrun_op tile = {
    .name = "tile",
    .title = "TILE",
    .usage = "--sizes S --repeats R",
    .notes = "the input repeated R[i] times along dimension i: output sizes S[i] * R[i]",
    .options = {
        { "--repeats", DMLRUN_LIST, true },
    },
    .check = tile_check,
    .build = tile_build,
    .examples = tile_examples,
};

/* ---- The table ------------------------------------------------------------- */

/* In --help and --examples order. */
const dmlrun_op* const dmlrun_ops[] = {
    &reverse,
    &slice1,
    &slice,
    &tile,
};

const uint32_t dmlrun_op_count = sizeof dmlrun_ops / sizeof dmlrun_ops[0];

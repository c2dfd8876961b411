/*
 * dmlrun_ops_indexed.c — dmlrun's data-dependent operators (dmlrun.h):
 * GATHER, GATHER_ELEMENTS, GATHER_ND(1), SCATTER_ELEMENTS, SCATTER_ND,
 * ONE_HOT and ELEMENT_WISE_IF, with DirectML's documented examples. Index
 * tensors take --indices-type (default uint32, DirectML's examples' type).
 */
#include "dmlrun.h"

#include <inttypes.h>
#include <string.h>

/* The indices input: --indices-sizes (the input's rank), --indices values. */
static host_tensor* add_indices(const dmlrun_args* a, dmlrun_call* call)
{
    const dmlrun_value* type = dmlrun_value_of(a, "--indices-type");
    host_tensor* indices = dmlrun_add_input(call, "indices", type->given ? type->type : DML_TENSOR_DATA_TYPE_UINT32,
        a->rank, dmlrun_value_of(a, "--indices-sizes")->u);
    host_tensor_fill(indices, dmlrun_value_of(a, "--indices")->text, "--indices");
    return indices;
}

#define INDICES_OPTIONS                                                                                               \
    { "--indices-sizes", DMLRUN_LIST, true }, { "--indices", DMLRUN_VALUES, true },                                  \
    {                                                                                                                 \
        "--indices-type", DMLRUN_TYPE, false                                                                          \
    }

/* ---- GATHER ---------------------------------------------------------------- */

static void gather_build(const dmlrun_args* a, dmlrun_call* call)
{
    const uint32_t axis = dmlrun_value_of(a, "--axis")->u[0];
    const uint32_t index_dims = dmlrun_value_of(a, "--index-dimensions")->u[0];
    host_tensor* indices = add_indices(a, call);
    host_tensor* output = dmlrun_set_output(call, a->type, a->rank, dmlrun_value_of(a, "--output-sizes")->u);
    DML_GATHER_OPERATOR_DESC* d = dmlrun_desc(call, DML_OPERATOR_GATHER, sizeof *d);
    *d = (DML_GATHER_OPERATOR_DESC){ &call->tensors[0].desc, &indices->desc, &output->desc, axis, index_dims };
    printf("  Axis %" PRIu32 "\n  IndexDimensions %" PRIu32 "\n", axis, index_dims);
}

static const dmlrun_example gather_examples[] = {
    { "GATHER example 1: 1D remapping", "--sizes 4 --input 11,12,13,14 --axis 0 --index-dimensions 1 "
        "--indices-sizes 5 --indices 3,1,3,0,2 --output-sizes 5", "14,12,14,11,13" },
    { "GATHER example 2: rows of {3,2}, indices {1,4}", "--sizes 3,2 --axis 0 --index-dimensions 1 "
        "--indices-sizes 1,4 --indices 0,1,1,2 --output-sizes 4,2", "1,2,3,4,3,4,5,6" },
    /* DirectML's page gives IndexDimensions 2 here, against its own rule
     * (original rank 2 + IndexDimensions 2 - 1 = 3 > 2 output dimensions). */
    { "GATHER example 3: swap columns (IndexDimensions 1: docs/operators.md)", "--sizes 3,2 --axis 1 "
        "--index-dimensions 1 --indices-sizes 1,2 --indices 1,0 --output-sizes 3,2", "2,1,4,3,6,5" },
    { "GATHER example 4: nested indices, axis 2", "--sizes 1,3,3 --axis 2 --index-dimensions 2 "
        "--indices-sizes 1,1,2 --indices 0,2 --output-sizes 3,1,2", "1,3,4,6,7,9" },
    { "GATHER example 5: nested indices, axis 1", "--sizes 1,3,2 --axis 1 --index-dimensions 2 "
        "--indices-sizes 1,2,2 --indices 0,1,1,2 --output-sizes 2,2,2", "1,2,3,4,3,4,5,6" },
    { "GATHER: negative and out-of-range int32 indices (clamped)", "--sizes 4 --input 11,12,13,14 --axis 0 "
        "--index-dimensions 1 --indices-sizes 4 --indices -1,-4,7,-9 --indices-type int32 --output-sizes 4",
        "14,11,14,11" },
    { NULL, NULL, NULL },
};

const dmlrun_op dmlrun_op_gather = {
    .name = "gather",
    .title = "GATHER",
    .usage = "--sizes S --axis A --index-dimensions D --indices-sizes I --indices V --output-sizes O "
             "[--indices-type T]",
    .notes = "output[..., i, ...] = input[..., indices[i], ...] on axis A; O: the input's sizes before A, the\n"
             "          indices' last D sizes, the input's after A, right-aligned; indices clamped into range",
    .options = {
        { "--axis", DMLRUN_ONE, true },
        { "--index-dimensions", DMLRUN_ONE, true },
        { "--output-sizes", DMLRUN_LIST, true },
        INDICES_OPTIONS,
    },
    .build = gather_build,
    .examples = gather_examples,
};

/* ---- GATHER_ELEMENTS ------------------------------------------------------- */

static void gather_elements_build(const dmlrun_args* a, dmlrun_call* call)
{
    const uint32_t axis = dmlrun_value_of(a, "--axis")->u[0];
    host_tensor* indices = add_indices(a, call);
    host_tensor* output = dmlrun_set_output(call, a->type, a->rank, indices->sizes);
    DML_GATHER_ELEMENTS_OPERATOR_DESC* d = dmlrun_desc(call, DML_OPERATOR_GATHER_ELEMENTS, sizeof *d);
    *d = (DML_GATHER_ELEMENTS_OPERATOR_DESC){ &call->tensors[0].desc, &indices->desc, &output->desc, axis };
    printf("  Axis %" PRIu32 "\n", axis);
}

static const dmlrun_example gather_elements_examples[] = {
    { "GATHER_ELEMENTS example: axis 0", "--sizes 3,3 --axis 0 --indices-sizes 2,3 --indices 1,2,0,2,0,0",
        "4,8,3,7,2,3" },
    { NULL, NULL, NULL },
};

const dmlrun_op dmlrun_op_gather_elements = {
    .name = "gather_elements",
    .title = "GATHER_ELEMENTS",
    .usage = "--sizes S --axis A --indices-sizes I --indices V [--indices-type T]",
    .notes = "output[c] = input[c with c[A] = indices[c]]; I equals S but on A; the output's sizes are I",
    .options = {
        { "--axis", DMLRUN_ONE, true },
        INDICES_OPTIONS,
    },
    .build = gather_elements_build,
    .examples = gather_elements_examples,
};

/* ---- GATHER_ND / GATHER_ND1 ------------------------------------------------ */

static void gather_nd_build(const dmlrun_args* a, dmlrun_call* call)
{
    const uint32_t input_dims = dmlrun_value_of(a, "--input-dimensions")->u[0];
    const uint32_t indices_dims = dmlrun_value_of(a, "--indices-dimensions")->u[0];
    const dmlrun_value* batch = dmlrun_value_of(a, "--batch-dimensions");
    host_tensor* indices = add_indices(a, call);
    host_tensor* output = dmlrun_set_output(call, a->type, a->rank, dmlrun_value_of(a, "--output-sizes")->u);
    if (batch->given) {
        DML_GATHER_ND1_OPERATOR_DESC* d = dmlrun_desc(call, DML_OPERATOR_GATHER_ND1, sizeof *d);
        *d = (DML_GATHER_ND1_OPERATOR_DESC){ &call->tensors[0].desc, &indices->desc, &output->desc, input_dims,
            indices_dims, batch->u[0] };
    } else {
        DML_GATHER_ND_OPERATOR_DESC* d = dmlrun_desc(call, DML_OPERATOR_GATHER_ND, sizeof *d);
        *d = (DML_GATHER_ND_OPERATOR_DESC){ &call->tensors[0].desc, &indices->desc, &output->desc, input_dims,
            indices_dims };
    }
    printf("  InputDimensionCount %" PRIu32 "\n  IndicesDimensionCount %" PRIu32 "\n", input_dims, indices_dims);
    if (batch->given)
        printf("  BatchDimensionCount %" PRIu32 " (GATHER_ND1)\n", batch->u[0]);
}

static const dmlrun_example gather_nd_examples[] = {
    { "GATHER_ND1 example 1: 1D remapping", "--sizes 2,2 --input 0,1,2,3 --input-dimensions 2 "
        "--indices-dimensions 2 --batch-dimensions 0 --indices-sizes 2,1 --indices 1,0 --output-sizes 2,2",
        "2,3,0,1" },
    { "GATHER_ND1 example 2: 2D remapping, one batch dimension", "--sizes 1,3,2,2 --input 0,1,2,3,4,5,6,7,8,9,10,11 "
        "--input-dimensions 3 --indices-dimensions 3 --batch-dimensions 1 --indices-sizes 1,3,2,2 "
        "--indices 0,0,1,1,1,1,0,0,0,1,1,0 --output-sizes 1,1,3,2", "0,3,7,4,9,10" },
    { NULL, NULL, NULL },
};

const dmlrun_op dmlrun_op_gather_nd = {
    .name = "gather_nd",
    .title = "GATHER_ND",
    .usage = "--sizes S --input-dimensions N --indices-dimensions M [--batch-dimensions B] --indices-sizes I\n"
             "          --indices V --output-sizes O [--indices-type T]",
    .notes = "the indices' last dimension holds tuples into the input's dimensions after B batch ones;\n"
             "          --batch-dimensions runs GATHER_ND1",
    .options = {
        { "--input-dimensions", DMLRUN_ONE, true },
        { "--indices-dimensions", DMLRUN_ONE, true },
        { "--batch-dimensions", DMLRUN_ONE, false },
        { "--output-sizes", DMLRUN_LIST, true },
        INDICES_OPTIONS,
    },
    .build = gather_nd_build,
    .examples = gather_nd_examples,
};

/* ---- SCATTER_ELEMENTS / SCATTER_ND ----------------------------------------- */

/* The updates input, of the input's type. */
static host_tensor* add_updates(const dmlrun_args* a, dmlrun_call* call, const uint32_t* sizes)
{
    host_tensor* updates = dmlrun_add_input(call, "updates", a->type, a->rank, sizes);
    host_tensor_fill(updates, dmlrun_value_of(a, "--updates")->text, "--updates");
    return updates;
}

static void scatter_build(const dmlrun_args* a, dmlrun_call* call)
{
    const uint32_t axis = dmlrun_value_of(a, "--axis")->u[0];
    host_tensor* indices = add_indices(a, call);
    host_tensor* updates = add_updates(a, call, indices->sizes);
    host_tensor* output = dmlrun_set_output(call, a->type, a->rank, a->sizes);
    DML_SCATTER_ELEMENTS_OPERATOR_DESC* d = dmlrun_desc(call, DML_OPERATOR_SCATTER_ELEMENTS, sizeof *d);
    *d = (DML_SCATTER_ELEMENTS_OPERATOR_DESC){ &call->tensors[0].desc, &indices->desc, &updates->desc,
        &output->desc, axis };
    printf("  Axis %" PRIu32 "\n", axis);
}

static const dmlrun_example scatter_examples[] = {
    { "SCATTER_ELEMENTS: axis 0 of {3,3} (ONNX's ScatterElements example 1)", "--sizes 3,3 --input 0,0,0,0,0,0,0,0,0 "
        "--axis 0 --indices-sizes 2,3 --indices 1,0,2,0,2,1 --updates 1,1.1,1.2,2,2.1,2.2",
        "2,1.1,0,1,0,2.2,0,2.1,1.2" },
    { "SCATTER_ELEMENTS: axis 1, negative int64 index", "--sizes 1,5 --input 1,2,3,4,5 --axis 1 "
        "--indices-sizes 1,2 --indices 1,-2 --indices-type int64 --updates 1.1,2.1", "1,1.1,3,2.1,5" },
    { NULL, NULL, NULL },
};

const dmlrun_op dmlrun_op_scatter = {
    .name = "scatter",
    .alias = "scatter_elements",
    .title = "SCATTER_ELEMENTS",
    .usage = "--sizes S --axis A --indices-sizes I --indices V --updates U [--indices-type T]",
    .notes = "output = input, then output[c with c[A] = indices[c]] = updates[c]; I equals S but on A;\n"
             "          out-of-range indices are dropped",
    .options = {
        { "--axis", DMLRUN_ONE, true },
        { "--updates", DMLRUN_VALUES, true },
        INDICES_OPTIONS,
    },
    .build = scatter_build,
    .examples = scatter_examples,
};

static void scatter_nd_build(const dmlrun_args* a, dmlrun_call* call)
{
    const uint32_t input_dims = dmlrun_value_of(a, "--input-dimensions")->u[0];
    const uint32_t indices_dims = dmlrun_value_of(a, "--indices-dimensions")->u[0];
    host_tensor* indices = add_indices(a, call);
    host_tensor* updates = add_updates(a, call, dmlrun_value_of(a, "--updates-sizes")->u);
    host_tensor* output = dmlrun_set_output(call, a->type, a->rank, a->sizes);
    DML_SCATTER_ND_OPERATOR_DESC* d = dmlrun_desc(call, DML_OPERATOR_SCATTER_ND, sizeof *d);
    *d = (DML_SCATTER_ND_OPERATOR_DESC){ &call->tensors[0].desc, &indices->desc, &updates->desc, &output->desc,
        input_dims, indices_dims };
    printf("  InputDimensionCount %" PRIu32 "\n  IndicesDimensionCount %" PRIu32 "\n", input_dims, indices_dims);
}

static const dmlrun_example scatter_nd_examples[] = {
    /* DirectML's page gives the input {8} and updates {4} with indices {4,1}, against its own rule that
     * every tensor has one DimensionCount: here with the leading 1 that rule asks for. */
    { "SCATTER_ND example (input {1,8})", "--sizes 1,8 --input-dimensions 1 --indices-dimensions 2 "
        "--indices-sizes 4,1 --indices 4,3,1,7 --updates-sizes 1,4 --updates 9,10,11,12", "1,11,3,10,9,6,7,12" },
    { NULL, NULL, NULL },
};

const dmlrun_op dmlrun_op_scatter_nd = {
    .name = "scatter_nd",
    .title = "SCATTER_ND",
    .usage = "--sizes S --input-dimensions N --indices-dimensions M --indices-sizes I --indices V\n"
             "          --updates-sizes Z --updates U [--indices-type T]",
    .notes = "output = input, then output[indices[i, :], ...] = updates[i, ...]; out-of-range tuples dropped",
    .options = {
        { "--input-dimensions", DMLRUN_ONE, true },
        { "--indices-dimensions", DMLRUN_ONE, true },
        { "--updates-sizes", DMLRUN_LIST, true },
        { "--updates", DMLRUN_VALUES, true },
        INDICES_OPTIONS,
    },
    .build = scatter_nd_build,
    .examples = scatter_nd_examples,
};

/* ---- ONE_HOT ----------------------------------------------------------------- */

static void one_hot_build(const dmlrun_args* a, dmlrun_call* call)
{
    const uint32_t axis = dmlrun_value_of(a, "--axis")->u[0];
    const uint32_t depth = dmlrun_value_of(a, "--depth")->u[0];
    const dmlrun_value* type = dmlrun_value_of(a, "--indices-type");
    const dmlrun_value* values_sizes = dmlrun_value_of(a, "--values-sizes");
    host_tensor* indices = dmlrun_add_input(call, "indices", type->given ? type->type : DML_TENSOR_DATA_TYPE_UINT32,
        a->rank, a->sizes);
    host_tensor_fill(indices, a->input, "--input");
    uint32_t sizes[DMLRUN_MAX_RANK];
    for (uint32_t i = 0; i < a->rank; i++)
        sizes[i] = values_sizes->given ? values_sizes->u[i] : i + 1 == a->rank ? 2 : 1;
    host_tensor* values = dmlrun_add_input(call, "values", a->type, a->rank, sizes);
    host_tensor_fill(values, dmlrun_value_of(a, "--values")->text, "--values");
    memcpy(sizes, a->sizes, sizeof sizes);
    if (axis < a->rank)
        sizes[axis] = depth;
    host_tensor* output = dmlrun_set_output(call, a->type, a->rank, sizes);
    DML_ONE_HOT_OPERATOR_DESC* d = dmlrun_desc(call, DML_OPERATOR_ONE_HOT, sizeof *d);
    *d = (DML_ONE_HOT_OPERATOR_DESC){ &indices->desc, &values->desc, &output->desc, axis };
    printf("  Axis %" PRIu32 "\n", axis);
}

static const dmlrun_example one_hot_examples[] = {
    { "ONE_HOT example 1", "--sizes 1,1,3,1 --input 0,3,2 --axis 3 --depth 4 --values 0,1",
        "1,0,0,0,0,0,0,1,0,0,1,0" },
    { "ONE_HOT example 2: another axis", "--sizes 1,1,1,4 --input 0,2,1,0 --axis 2 --depth 3 --values 0,1",
        "1,0,0,1,0,0,1,0,0,1,0,0" },
    { "ONE_HOT example 3: other on/off values", "--sizes 1,1,3,1 --input 0,3,2 --axis 3 --depth 4 "
        "--values-sizes 1,1,3,1 --values 4,2,9", "2,4,4,4,4,4,4,2,4,4,2,4" },
    { "ONE_HOT example 4: negative and out-of-bounds indices", "--sizes 1,1,3,1 --input -3,100,3 "
        "--indices-type int32 --axis 3 --depth 4 --values 0,1", "0,1,0,0,0,0,0,0,0,0,0,1" },
    { NULL, NULL, NULL },
};

const dmlrun_op dmlrun_op_one_hot = {
    .name = "one_hot",
    .title = "ONE_HOT",
    .usage = "--sizes S --input INDICES --axis A --depth D --values OFF,ON [--values-sizes Z] [--indices-type T]",
    .notes = "S: the indices' sizes (1 on A); the output is S with D on A, of --type; Z defaults to {1,...,1,2}",
    .options = {
        { "--axis", DMLRUN_ONE, true },
        { "--depth", DMLRUN_ONE, true },
        { "--values", DMLRUN_VALUES, true },
        { "--values-sizes", DMLRUN_LIST, false },
        { "--indices-type", DMLRUN_TYPE, false },
    },
    .own_inputs = true,
    .build = one_hot_build,
    .examples = one_hot_examples,
};

/* ---- ELEMENT_WISE_IF ----------------------------------------------------------- */

static void if_build(const dmlrun_args* a, dmlrun_call* call)
{
    host_tensor* condition = dmlrun_add_input(call, "condition", DML_TENSOR_DATA_TYPE_UINT8, a->rank, a->sizes);
    host_tensor_fill(condition, dmlrun_value_of(a, "--condition")->text, "--condition");
    host_tensor* x = dmlrun_add_input(call, "a", a->type, a->rank, a->sizes);
    host_tensor_fill(x, dmlrun_value_of(a, "--a")->text, "--a");
    host_tensor* y = dmlrun_add_input(call, "b", a->type, a->rank, a->sizes);
    host_tensor_fill(y, dmlrun_value_of(a, "--b")->text, "--b");
    host_tensor* output = dmlrun_set_output(call, a->type, a->rank, a->sizes);
    DML_ELEMENT_WISE_IF_OPERATOR_DESC* d = dmlrun_desc(call, DML_OPERATOR_ELEMENT_WISE_IF, sizeof *d);
    *d = (DML_ELEMENT_WISE_IF_OPERATOR_DESC){ &condition->desc, &x->desc, &y->desc, &output->desc };
}

static const dmlrun_example if_examples[] = {
    { "ELEMENT_WISE_IF example", "--sizes 2,2 --condition 1,0,0,1 --a 1,2,3,4 --b 10,20,30,40", "1,20,30,4" },
    { NULL, NULL, NULL },
};

const dmlrun_op dmlrun_op_element_wise_if = {
    .name = "if",
    .alias = "element_wise_if",
    .title = "ELEMENT_WISE_IF",
    .usage = "--sizes S --condition C --a A --b B",
    .notes = "output = C != 0 ? A : B element-wise; C is uint8, A, B and the output of --type",
    .options = {
        { "--condition", DMLRUN_VALUES, true },
        { "--a", DMLRUN_VALUES, true },
        { "--b", DMLRUN_VALUES, true },
    },
    .own_inputs = true,
    .build = if_build,
    .examples = if_examples,
};

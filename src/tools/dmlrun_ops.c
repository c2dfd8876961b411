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

/* ---- DEPTH_TO_SPACE1 / SPACE_TO_DEPTH1 --------------------------------------- */

static DML_DEPTH_SPACE_ORDER depth_space_order(const dmlrun_args* a)
{
    const dmlrun_value* order = dmlrun_value_of(a, "--order");
    if (!order->given || strcmp(order->text, "dcr") == 0)
        return DML_DEPTH_SPACE_ORDER_DEPTH_COLUMN_ROW;
    if (strcmp(order->text, "crd") == 0)
        return DML_DEPTH_SPACE_ORDER_COLUMN_ROW_DEPTH;
    tool_fail("--order: '%s'; must be dcr (DEPTH_COLUMN_ROW) or crd (COLUMN_ROW_DEPTH)", order->text);
}

static void depth_space_check(const dmlrun_args* a)
{
    depth_space_order(a);
    if (a->rank != 4)
        tool_fail("--sizes: %" PRIu32 " dimensions; DEPTH_TO_SPACE and SPACE_TO_DEPTH take 4 (N,C,H,W)", a->rank);
    const uint64_t b = dmlrun_value_of(a, "--block-size")->u[0];
    if (a->op->name[0] == 'd' && ((uint64_t)a->sizes[2] * b > UINT32_MAX || (uint64_t)a->sizes[3] * b > UINT32_MAX))
        tool_fail("--block-size: Sizes[2 or 3] * %" PRIu64 " does not fit a 32-bit output size", b);
    if (a->op->name[0] == 's' && (uint64_t)a->sizes[1] * b * b > UINT32_MAX)
        tool_fail("--block-size: Sizes[1] * %" PRIu64 "^2 does not fit a 32-bit output size", b);
}

/* The output sizes from the input's; a size that does not divide is the
 * runtime's to report (the output gets the rounded-down size). */
static void depth_space_build(const dmlrun_args* a, dmlrun_call* call)
{
    const int to_space = a->op->name[0] == 'd';
    const uint32_t b = dmlrun_value_of(a, "--block-size")->u[0];
    const uint32_t bb = b * b; /* checked to fit above, for SPACE_TO_DEPTH; 0 with b = 0 */
    uint32_t out_sizes[4] = { a->sizes[0], 0, 0, 0 };
    if (to_space) {
        out_sizes[1] = bb && a->sizes[1] >= bb ? a->sizes[1] / bb : 1;
        out_sizes[2] = b ? a->sizes[2] * b : 1;
        out_sizes[3] = b ? a->sizes[3] * b : 1;
    } else {
        out_sizes[1] = bb ? a->sizes[1] * bb : 1;
        out_sizes[2] = b && a->sizes[2] >= b ? a->sizes[2] / b : 1;
        out_sizes[3] = b && a->sizes[3] >= b ? a->sizes[3] / b : 1;
    }
    host_tensor* output = dmlrun_set_output(call, a->type, 4, out_sizes);
    const DML_DEPTH_SPACE_ORDER order = depth_space_order(a);
    DML_DEPTH_TO_SPACE1_OPERATOR_DESC* d = dmlrun_desc(call,
        to_space ? DML_OPERATOR_DEPTH_TO_SPACE1 : DML_OPERATOR_SPACE_TO_DEPTH1, sizeof *d);
    /* DML_SPACE_TO_DEPTH1_OPERATOR_DESC has the same layout */
    *d = (DML_DEPTH_TO_SPACE1_OPERATOR_DESC){ &call->tensors[0].desc, &output->desc, b, order };
    dmlrun_print_u("BlockSize", 1, &b);
    printf("  Order %s\n", order == DML_DEPTH_SPACE_ORDER_COLUMN_ROW_DEPTH ? "COLUMN_ROW_DEPTH" : "DEPTH_COLUMN_ROW");
}

#define DS_DEPTH_VALUES "0,1,2,3,4,5,9,10,11,12,13,14,18,19,20,21,22,23,27,28,29,30,31,32," \
    "36,37,38,39,40,41,45,46,47,48,49,50,54,55,56,57,58,59,63,64,65,66,67,68"
#define DS_SPACE_DCR "0,18,1,19,2,20,36,54,37,55,38,56,3,21,4,22,5,23,39,57,40,58,41,59," \
    "9,27,10,28,11,29,45,63,46,64,47,65,12,30,13,31,14,32,48,66,49,67,50,68"
#define DS_SPACE_CRD "0,9,1,10,2,11,18,27,19,28,20,29,3,12,4,13,5,14,21,30,22,31,23,32," \
    "36,45,37,46,38,47,54,63,55,64,56,65,39,48,40,49,41,50,57,66,58,67,59,68"

static const dmlrun_example depth_to_space_examples[] = {
    { "DEPTH_TO_SPACE1 example: {1,8,2,3}, block 2, DEPTH_COLUMN_ROW",
        "--sizes 1,8,2,3 --block-size 2 --order dcr --input " DS_DEPTH_VALUES, DS_SPACE_DCR },
    { "DEPTH_TO_SPACE1 example: {1,8,2,3}, block 2, COLUMN_ROW_DEPTH",
        "--sizes 1,8,2,3 --block-size 2 --order crd --input " DS_DEPTH_VALUES, DS_SPACE_CRD },
    { NULL, NULL, NULL },
};

static const dmlrun_example space_to_depth_examples[] = {
    { "SPACE_TO_DEPTH1 example: {1,2,4,6}, block 2, DEPTH_COLUMN_ROW",
        "--sizes 1,2,4,6 --block-size 2 --order dcr --input " DS_SPACE_DCR, DS_DEPTH_VALUES },
    { "SPACE_TO_DEPTH1 example: {1,2,4,6}, block 2, COLUMN_ROW_DEPTH",
        "--sizes 1,2,4,6 --block-size 2 --order crd --input " DS_SPACE_CRD, DS_DEPTH_VALUES },
    { NULL, NULL, NULL },
};

static const dmlrun_op depth_to_space = {
    .name = "depth_to_space",
    .title = "DEPTH_TO_SPACE1",
    .usage = "--sizes N,C,H,W --block-size B [--order dcr|crd]",
    .notes = "output {N, C/(B*B), H*B, W*B}; order dcr (DEPTH_COLUMN_ROW, ONNX's DCR, the default) or crd",
    .options = {
        { "--block-size", DMLRUN_ONE, true },
        { "--order", DMLRUN_WORD, false },
    },
    .check = depth_space_check,
    .build = depth_space_build,
    .examples = depth_to_space_examples,
};

static const dmlrun_op space_to_depth = {
    .name = "space_to_depth",
    .title = "SPACE_TO_DEPTH1",
    .usage = "--sizes N,C,H,W --block-size B [--order dcr|crd]",
    .notes = "output {N, C*B*B, H/B, W/B}, the inverse of depth_to_space in the same order",
    .options = {
        { "--block-size", DMLRUN_ONE, true },
        { "--order", DMLRUN_WORD, false },
    },
    .check = depth_space_check,
    .build = depth_space_build,
    .examples = space_to_depth_examples,
};

/* ---- JOIN / SPLIT ---------------------------------------------------------- */

/* Both take the whole tensor's sizes (JOIN's output, SPLIT's input) in
 * --sizes and the parts' sizes on the axis in --axis-sizes: part k is the
 * whole with --axis-sizes[k] on the axis. The sum is the runtime's to check. */
static void join_split_check(const dmlrun_args* a)
{
    uint32_t axis = dmlrun_value_of(a, "--axis")->u[0];
    if (axis >= a->rank)
        tool_fail("--axis %" PRIu32 " is not below the dimension count %" PRIu32, axis, a->rank);
}

/* The desc and the array of part descs it points to, in one allocation. */
typedef struct join_split_storage {
    union {
        DML_JOIN_OPERATOR_DESC join;
        DML_SPLIT_OPERATOR_DESC split;
    } desc; /* first: dmlrun_desc's pointer is the desc's */
    DML_TENSOR_DESC parts[DMLRUN_MAX_COUNTS];
} join_split_storage;

static void join_split_build(const dmlrun_args* a, dmlrun_call* call)
{
    const bool is_split = a->op->name[0] == 's';
    const uint32_t axis = dmlrun_value_of(a, "--axis")->u[0];
    const dmlrun_value* axis_sizes = dmlrun_value_of(a, "--axis-sizes");
    join_split_storage* storage = dmlrun_desc(call, is_split ? DML_OPERATOR_SPLIT : DML_OPERATOR_JOIN,
        sizeof *storage);
    uint32_t part_sizes[DMLRUN_MAX_RANK];
    memcpy(part_sizes, a->sizes, sizeof part_sizes);
    for (uint32_t k = 0; k < axis_sizes->count; k++) {
        part_sizes[axis] = axis_sizes->u[k];
        host_tensor* part = is_split
            ? dmlrun_add_output(call, dmlrun_part_title(true, k), a->type, a->rank, part_sizes)
            : dmlrun_add_input(call, dmlrun_part_title(false, k), a->type, a->rank, part_sizes);
        storage->parts[k] = part->desc;
    }
    if (is_split) {
        storage->desc.split = (DML_SPLIT_OPERATOR_DESC){ &call->tensors[0].desc, axis_sizes->count, storage->parts,
            axis };
    } else {
        host_tensors_fill(call->tensors, call->input_count, a->input, "--input");
        host_tensor* output = dmlrun_set_output(call, a->type, a->rank, a->sizes);
        storage->desc.join = (DML_JOIN_OPERATOR_DESC){ axis_sizes->count, storage->parts, &output->desc, axis };
    }
    printf("  %s %" PRIu32 "\n", is_split ? "OutputCount" : "InputCount", axis_sizes->count);
    printf("  Axis %" PRIu32 "\n", axis);
}

static const dmlrun_example join_examples[] = {
    { "JOIN example 1: {1,1,2,3} and {1,1,2,4} on axis 3", "--sizes 1,1,2,7 --axis 3 --axis-sizes 3,4",
        "1,2,3,7,8,9,10,4,5,6,11,12,13,14" },
    { "JOIN example 2: three {1,1,2,2} on axis 1", "--sizes 1,3,2,2 --axis 1 --axis-sizes 1,1,1",
        "1,2,3,4,5,6,7,8,9,10,11,12" },
    { "JOIN example 2: three {1,1,2,2} on axis 2", "--sizes 1,1,6,2 --axis 2 --axis-sizes 2,2,2",
        "1,2,3,4,5,6,7,8,9,10,11,12" },
    { "JOIN example 2: three {1,1,2,2} on axis 3", "--sizes 1,1,2,6 --axis 3 --axis-sizes 2,2,2",
        "1,2,5,6,9,10,3,4,7,8,11,12" },
    { NULL, NULL, NULL },
};

static const dmlrun_example split_examples[] = {
    { "SPLIT example 1: {1,1,6,2} on axis 2 into 2, 1 and 3", "--sizes 1,1,6,2 --axis 2 --axis-sizes 2,1,3",
        "1,2,3,4,5,6,7,8,9,10,11,12" },
    { "SPLIT example 2: {1,1,6,2} on axis 3 into 1 and 1", "--sizes 1,1,6,2 --axis 3 --axis-sizes 1,1",
        "1,3,5,7,9,11,2,4,6,8,10,12" },
    { NULL, NULL, NULL },
};

static const dmlrun_op join = {
    .name = "join",
    .title = "JOIN",
    .usage = "--sizes S --axis A --axis-sizes a0,a1,...",
    .notes = "S: the output's sizes; input k is S with a_k on axis A (sum a_k = S[A]), up to 8 inputs;\n"
             "          they hold 1..N continued from one to the next (--input: all their values, in order)",
    .options = {
        { "--axis", DMLRUN_ONE, true },
        { "--axis-sizes", DMLRUN_COUNTS, true },
    },
    .own_inputs = true,
    .check = join_split_check,
    .build = join_split_build,
    .examples = join_examples,
};

static const dmlrun_op split = {
    .name = "split",
    .title = "SPLIT",
    .usage = "--sizes S --axis A --axis-sizes a0,a1,...",
    .notes = "S: the input's sizes; output k is S with a_k on axis A (sum a_k = S[A]); up to 8 outputs",
    .options = {
        { "--axis", DMLRUN_ONE, true },
        { "--axis-sizes", DMLRUN_COUNTS, true },
    },
    .check = join_split_check,
    .build = join_split_build,
    .examples = split_examples,
};

/* ---- PADDING1 ---------------------------------------------------------------- */

static const char* const padding_modes[] = { "constant", "edge", "reflection", "symmetric" };

static DML_PADDING_MODE padding_mode(const dmlrun_args* a)
{
    const dmlrun_value* mode = dmlrun_value_of(a, "--mode");
    if (!mode->given)
        return DML_PADDING_MODE_CONSTANT;
    for (int m = 0; m < 4; m++)
        if (strcmp(mode->text, padding_modes[m]) == 0)
            return (DML_PADDING_MODE)m;
    tool_fail("--mode: '%s'; must be constant, edge, reflection or symmetric", mode->text);
}

static void padding_check(const dmlrun_args* a)
{
    padding_mode(a);
    const uint32_t* start = dmlrun_value_of(a, "--start-padding")->u;
    const uint32_t* end = dmlrun_value_of(a, "--end-padding")->u;
    for (uint32_t i = 0; i < a->rank; i++)
        if ((uint64_t)a->sizes[i] + start[i] + end[i] > UINT32_MAX)
            tool_fail("--start-padding/--end-padding: Sizes[%" PRIu32 "] + %" PRIu32 " + %" PRIu32
                " does not fit a 32-bit output size", i, start[i], end[i]);
}

/* PADDING1: the value is one element of the tensor's own type. */
static void padding_build(const dmlrun_args* a, dmlrun_call* call)
{
    const uint32_t* start = dmlrun_value_of(a, "--start-padding")->u;
    const uint32_t* end = dmlrun_value_of(a, "--end-padding")->u;
    const dmlrun_value* value = dmlrun_value_of(a, "--value");
    uint32_t out_sizes[DMLRUN_MAX_RANK];
    for (uint32_t i = 0; i < a->rank; i++)
        out_sizes[i] = a->sizes[i] + start[i] + end[i];
    DML_SCALAR_UNION padding_value;
    memset(&padding_value, 0, sizeof padding_value);
    if (value->given) {
        const uint32_t one = 1;
        host_tensor scalar;
        host_tensor_init(&scalar, a->type, 1, &one);
        host_tensor_fill(&scalar, value->text, "--value");
        memcpy(padding_value.Bytes, scalar.data, dml_data_type_size(a->type));
        host_tensor_free(&scalar);
    }
    host_tensor* output = dmlrun_set_output(call, a->type, a->rank, out_sizes);
    DML_PADDING1_OPERATOR_DESC* d = dmlrun_desc(call, DML_OPERATOR_PADDING1, sizeof *d);
    *d = (DML_PADDING1_OPERATOR_DESC){ &call->tensors[0].desc, &output->desc, padding_mode(a), a->type, padding_value,
        a->rank, start, end };
    printf("  PaddingMode %s, PaddingValue %s\n", padding_modes[d->PaddingMode], value->given ? value->text : "0");
    dmlrun_print_u("StartPadding", a->rank, start);
    dmlrun_print_u("EndPadding", a->rank, end);
}

#define PADDING_EXAMPLE "--sizes 1,1,4,4 --input 1,2,3,4,5,6,7,8,1,2,3,4,5,6,7,8 " \
    "--start-padding 0,0,1,2 --end-padding 0,0,3,4 --value 9 --mode "

static const dmlrun_example padding_examples[] = {
    { "PADDING example 1: CONSTANT 9", PADDING_EXAMPLE "constant",
        "9,9,9,9,9,9,9,9,9,9,9,9,1,2,3,4,9,9,9,9,9,9,5,6,7,8,9,9,9,9,9,9,1,2,3,4,9,9,9,9,"
        "9,9,5,6,7,8,9,9,9,9,9,9,9,9,9,9,9,9,9,9,9,9,9,9,9,9,9,9,9,9,9,9,9,9,9,9,9,9,9,9" },
    { "PADDING example 2: EDGE", PADDING_EXAMPLE "edge",
        "1,1,1,2,3,4,4,4,4,4,1,1,1,2,3,4,4,4,4,4,5,5,5,6,7,8,8,8,8,8,1,1,1,2,3,4,4,4,4,4,"
        "5,5,5,6,7,8,8,8,8,8,5,5,5,6,7,8,8,8,8,8,5,5,5,6,7,8,8,8,8,8,5,5,5,6,7,8,8,8,8,8" },
    { "PADDING example 3: REFLECTION", PADDING_EXAMPLE "reflection",
        "7,6,5,6,7,8,7,6,5,6,3,2,1,2,3,4,3,2,1,2,7,6,5,6,7,8,7,6,5,6,3,2,1,2,3,4,3,2,1,2,"
        "7,6,5,6,7,8,7,6,5,6,3,2,1,2,3,4,3,2,1,2,7,6,5,6,7,8,7,6,5,6,3,2,1,2,3,4,3,2,1,2" },
    { "PADDING example 4: SYMMETRIC", PADDING_EXAMPLE "symmetric",
        "2,1,1,2,3,4,4,3,2,1,2,1,1,2,3,4,4,3,2,1,6,5,5,6,7,8,8,7,6,5,2,1,1,2,3,4,4,3,2,1,"
        "6,5,5,6,7,8,8,7,6,5,6,5,5,6,7,8,8,7,6,5,2,1,1,2,3,4,4,3,2,1,6,5,5,6,7,8,8,7,6,5" },
    { NULL, NULL, NULL },
};

static const dmlrun_op padding = {
    .name = "padding",
    .alias = "pad",
    .title = "PADDING1",
    .usage = "--sizes S --start-padding P --end-padding Q [--mode constant|edge|reflection|symmetric] [--value V]",
    .notes = "V is one element of --type (default 0), used by CONSTANT",
    .options = {
        { "--start-padding", DMLRUN_LIST, true },
        { "--end-padding", DMLRUN_LIST, true },
        { "--mode", DMLRUN_WORD, false },
        { "--value", DMLRUN_VALUES, false },
    },
    .check = padding_check,
    .build = padding_build,
    .examples = padding_examples,
};

/* ---- FILL_VALUE_CONSTANT / FILL_VALUE_SEQUENCE --------------------------------- */

/* One value of --type from an option, as DML_SCALAR_UNION holds it (float16:
 * its bits in Bytes[0..1]); parsed as the tool parses elements. */
static DML_SCALAR_UNION scalar_option(const dmlrun_args* a, const char* option)
{
    const uint32_t one = 1;
    host_tensor t;
    host_tensor_init(&t, a->type, 1, &one);
    host_tensor_fill(&t, dmlrun_value_of(a, option)->text, option);
    DML_SCALAR_UNION s;
    memset(&s, 0, sizeof s);
    memcpy(s.Bytes, t.data, dml_data_type_size(a->type));
    host_tensor_free(&t);
    return s;
}

static void fill_constant_build(const dmlrun_args* a, dmlrun_call* call)
{
    host_tensor* output = dmlrun_set_output(call, a->type, a->rank, a->sizes);
    DML_FILL_VALUE_CONSTANT_OPERATOR_DESC* d = dmlrun_desc(call, DML_OPERATOR_FILL_VALUE_CONSTANT, sizeof *d);
    *d = (DML_FILL_VALUE_CONSTANT_OPERATOR_DESC){ &output->desc, a->type, scalar_option(a, "--value") };
    printf("  ValueDataType %s, Value %s\n", dml_data_type_name(a->type), dmlrun_value_of(a, "--value")->text);
}

static void fill_sequence_build(const dmlrun_args* a, dmlrun_call* call)
{
    host_tensor* output = dmlrun_set_output(call, a->type, a->rank, a->sizes);
    DML_FILL_VALUE_SEQUENCE_OPERATOR_DESC* d = dmlrun_desc(call, DML_OPERATOR_FILL_VALUE_SEQUENCE, sizeof *d);
    *d = (DML_FILL_VALUE_SEQUENCE_OPERATOR_DESC){ &output->desc, a->type, scalar_option(a, "--start"),
        scalar_option(a, "--delta") };
    printf("  ValueDataType %s, ValueStart %s, ValueDelta %s\n", dml_data_type_name(a->type),
        dmlrun_value_of(a, "--start")->text, dmlrun_value_of(a, "--delta")->text);
}

static const dmlrun_example fill_constant_examples[] = {
    { "FILL_VALUE_CONSTANT example: Value 13.0, {1,1,2,4}", "--sizes 1,1,2,4 --value 13", "13,13,13,13,13,13,13,13" },
    { NULL, NULL, NULL },
};

static const dmlrun_op fill_constant = {
    .name = "fill_constant",
    .alias = "fill_value_constant",
    .title = "FILL_VALUE_CONSTANT",
    .usage = "--sizes S --value V",
    .notes = "every element of the output (sizes S, --type) is V; no input",
    .no_input = true,
    .options = {
        { "--value", DMLRUN_VALUES, true },
    },
    .build = fill_constant_build,
    .examples = fill_constant_examples,
};

static const dmlrun_example fill_sequence_examples[] = {
    { "FILL_VALUE_SEQUENCE example 1: start 3, delta 2, {1,1,1,3}", "--sizes 1,1,1,3 --start 3 --delta 2", "3,5,7" },
    { "FILL_VALUE_SEQUENCE example 2: start 10, delta -2 (254 as uint8), {1,1,2,2}",
        "--type uint8 --sizes 1,1,2,2 --start 10 --delta 254", "10,8,6,4" },
    { NULL, NULL, NULL },
};

static const dmlrun_op fill_sequence = {
    .name = "fill_sequence",
    .alias = "fill_value_sequence",
    .title = "FILL_VALUE_SEQUENCE",
    .usage = "--sizes S --start V --delta D",
    .notes = "the element at row-major position k is V + k * D in --type (integers wrap); no input",
    .no_input = true,
    .options = {
        { "--start", DMLRUN_VALUES, true },
        { "--delta", DMLRUN_VALUES, true },
    },
    .build = fill_sequence_build,
    .examples = fill_sequence_examples,
};

/* ---- CAST ------------------------------------------------------------------ */

static void cast_build(const dmlrun_args* a, dmlrun_call* call)
{
    DML_TENSOR_DATA_TYPE to = dmlrun_value_of(a, "--to")->type;
    host_tensor* output = dmlrun_set_output(call, to, a->rank, a->sizes);
    DML_CAST_OPERATOR_DESC* d = dmlrun_desc(call, DML_OPERATOR_CAST, sizeof *d);
    *d = (DML_CAST_OPERATOR_DESC){ &call->tensors[0].desc, &output->desc };
}

static const dmlrun_example cast_examples[] = {
    { "CAST: float32 {1,5} to int8 (truncated toward zero, saturated; NaN -> 0)",
        "--sizes 1,5 --to int8 --input 2.9,-2.9,300,-1e9,nan", "2,-2,127,-128,0" },
    { "CAST: int32 {1,4} to uint8 (the low bits)", "--type int32 --sizes 1,4 --to uint8 --input 300,-1,255,256",
        "44,255,255,0" },
    { "CAST: int64 {1,3} to float16 (one rounding, ties to even)",
        "--type int64 --sizes 1,3 --to float16 --input 2049,2051,-3", "2048,2052,-3" },
    { NULL, NULL, NULL },
};

static const dmlrun_op cast = {
    .name = "cast",
    .title = "CAST",
    .usage = "--sizes S --to TYPE",
    .notes = "the input (--type) converted to TYPE by docs/operators.md's rules; the same sizes",
    .options = {
        { "--to", DMLRUN_TYPE, true },
    },
    .build = cast_build,
    .examples = cast_examples,
};

/* ---- The table ------------------------------------------------------------- */

/* In --help and --examples order. */
const dmlrun_op* const dmlrun_ops[] = {
    &reverse,
    &slice1,
    &slice,
    &tile,
    &depth_to_space,
    &space_to_depth,
    &join,
    &split,
    &padding,
    &fill_constant,
    &fill_sequence,
    &cast,
    &dmlrun_op_gather,
    &dmlrun_op_gather_elements,
    &dmlrun_op_gather_nd,
    &dmlrun_op_scatter,
    &dmlrun_op_scatter_nd,
    &dmlrun_op_one_hot,
    &dmlrun_op_element_wise_if,
};

const uint32_t dmlrun_op_count = sizeof dmlrun_ops / sizeof dmlrun_ops[0];

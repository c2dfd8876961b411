/*
 * dmlrun — runs one SLICE1, SLICE or REVERSE_SUBSEQUENCES operator described
 * on the command line, through the public API only, and prints its input and
 * output. `dmlrun --examples` runs the examples of the operator spec and
 * checks their results.
 *
 * Exit status: 0 on success, 1 when an example's output is wrong, 2 when an
 * API call fails or the command line is wrong.
 */
#include "common.h"
#include "dmlrun_graph.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define MAX_RANK DML_TENSOR_DIMENSION_COUNT_MAX1

/* ---- A host-side tensor and its desc ------------------------------------ */

typedef struct host_tensor {
    DML_TENSOR_DATA_TYPE type;
    uint32_t rank;
    uint32_t sizes[MAX_RANK];
    uint64_t count;
    DML_BUFFER_TENSOR_DESC buffer_desc;
    DML_TENSOR_DESC desc;
    unsigned char* data; /* packed, buffer_desc.TotalTensorSizeInBytes bytes */
} host_tensor;

static void tensor_init(host_tensor* t, DML_TENSOR_DATA_TYPE type, uint32_t rank, const uint32_t* sizes)
{
    memset(t, 0, sizeof *t);
    t->type = type;
    t->rank = rank;
    t->count = 1;
    bool overflow = false;
    for (uint32_t i = 0; i < rank; i++) {
        t->sizes[i] = sizes[i];
        overflow |= __builtin_mul_overflow(t->count, (uint64_t)sizes[i], &t->count);
    }
    uint64_t bytes = DMLCalcBufferTensorSize(type, rank, t->sizes, NULL);
    if (overflow || (bytes == 0 && t->count != 0))
        tool_fail("a %s tensor of these sizes does not fit in 64 bits", dml_data_type_short_name(type));
    if (bytes == 0)
        bytes = 16; /* a size of 0: let the runtime say what is wrong with it */
    t->buffer_desc = (DML_BUFFER_TENSOR_DESC){ type, DML_TENSOR_FLAG_NONE, rank, t->sizes, NULL, bytes, 0 };
    t->desc = (DML_TENSOR_DESC){ DML_TENSOR_TYPE_BUFFER, &t->buffer_desc };
    t->data = calloc(1, bytes);
    if (!t->data)
        tool_fail("out of host memory for a tensor of %" PRIu64 " bytes", bytes);
}

static void tensor_free(host_tensor* t)
{
    free(t->data);
    t->data = NULL;
}

static void* tensor_element(host_tensor* t, uint64_t index)
{
    return t->data + index * dml_data_type_size(t->type);
}

/* Fills t from "v,v,..." (exactly t->count values), or with 1..N when text is NULL. */
static void tensor_fill(host_tensor* t, const char* text, const char* option)
{
    if (!text) {
        for (uint64_t i = 0; i < t->count; i++)
            tool_store_index(t->type, i + 1, tensor_element(t, i));
        return;
    }
    char* copy = strdup(text);
    if (!copy)
        tool_fail("out of memory");
    uint64_t n = 0;
    char* cursor = NULL;
    for (char* item = strtok_r(copy, ",", &cursor); item; item = strtok_r(NULL, ",", &cursor)) {
        bool ok = n < t->count && tool_parse_element(t->type, item, tensor_element(t, n));
        if (!ok && n < t->count) {
            fprintf(stderr, "%s: %s: '%s' is not a valid %s value\n", tool_name, option, item,
                dml_data_type_short_name(t->type));
            free(copy);
            exit(TOOL_EXIT_FAILURE);
        }
        n++;
    }
    free(copy);
    if (n != t->count)
        tool_fail("%s: %" PRIu64 " values given, expected %" PRIu64 " (the product of the sizes)", option, n, t->count);
}

static void tensor_print(const char* title, const host_tensor* t)
{
    printf("%s ", title);
    tool_print_sizes(stdout, t->rank, t->sizes);
    printf(" %s:\n  ", dml_data_type_short_name(t->type));
    tool_print_tensor(stdout, t->type, t->rank, t->sizes, t->data, 2);
}

/* ---- Running one operator through the public API ------------------------ */

static DMLBuffer upload(tool_device* dev, const host_tensor* t)
{
    DMLBuffer buffer = NULL;
    uint64_t bytes = t->buffer_desc.TotalTensorSizeInBytes;
    tool_check(dmlDeviceCreateBuffer(dev->device, bytes, &buffer), "dmlDeviceCreateBuffer");
    tool_check(dmlCommandQueueWriteBuffer(dev->queue, buffer, 0, t->data, bytes), "dmlCommandQueueWriteBuffer");
    return buffer;
}

static DML_BINDING_DESC buffer_binding(DML_BUFFER_BINDING* binding, DMLBuffer buffer, uint64_t size)
{
    *binding = (DML_BUFFER_BINDING){ buffer, 0, size };
    return (DML_BINDING_DESC){ DML_BINDING_TYPE_BUFFER, binding };
}

/* Creates, compiles, initializes and dispatches op with the given inputs
 * (in the desc's binding order), then reads the result into output->data. */
static void run_operator(tool_device* dev, const DML_OPERATOR_DESC* desc, host_tensor* const* inputs,
    uint32_t input_count, host_tensor* output)
{
    DMLOperator op = NULL;
    DMLCompiledOperator compiled = NULL;
    DMLOperatorInitializer initializer = NULL;
    DMLBindingTable table = NULL;
    tool_check(dmlDeviceCreateOperator(dev->device, desc, &op), "dmlDeviceCreateOperator");
    tool_check(dmlDeviceCompileOperator(dev->device, op, DML_EXECUTION_FLAG_NONE, &compiled),
        "dmlDeviceCompileOperator");
    tool_check(dmlDeviceCreateOperatorInitializer(dev->device, 1, &compiled, &initializer),
        "dmlDeviceCreateOperatorInitializer");

    DML_BINDING_PROPERTIES init_props = dmlDispatchableGetBindingProperties(initializer);
    DML_BINDING_PROPERTIES exec_props = dmlDispatchableGetBindingProperties(compiled);
    uint64_t temporary_size = init_props.TemporaryResourceSize > exec_props.TemporaryResourceSize
        ? init_props.TemporaryResourceSize : exec_props.TemporaryResourceSize;
    DMLBuffer temporary = NULL, persistent = NULL;
    DML_BUFFER_BINDING temporary_binding, persistent_binding;
    DML_BINDING_DESC temporary_desc = { DML_BINDING_TYPE_NONE, NULL };
    DML_BINDING_DESC persistent_desc = { DML_BINDING_TYPE_NONE, NULL };
    if (temporary_size) {
        tool_check(dmlDeviceCreateBuffer(dev->device, temporary_size, &temporary), "dmlDeviceCreateBuffer(temporary)");
        temporary_desc = buffer_binding(&temporary_binding, temporary, temporary_size);
    }
    if (exec_props.PersistentResourceSize) {
        tool_check(dmlDeviceCreateBuffer(dev->device, exec_props.PersistentResourceSize, &persistent),
            "dmlDeviceCreateBuffer(persistent)");
        persistent_desc = buffer_binding(&persistent_binding, persistent, exec_props.PersistentResourceSize);
    }

    /* Initialize: no input is OWNED_BY_DML, so the initializer binds no
     * inputs; its output is the persistent resource, if any. */
    DML_BINDING_TABLE_DESC table_desc = { initializer };
    tool_check(dmlDeviceCreateBindingTable(dev->device, &table_desc, &table), "dmlDeviceCreateBindingTable");
    if (init_props.TemporaryResourceSize)
        tool_check(dmlBindingTableBindTemporaryResource(table, &temporary_desc), "dmlBindingTableBindTemporaryResource");
    if (persistent)
        tool_check(dmlBindingTableBindOutputs(table, 1, &persistent_desc), "dmlBindingTableBindOutputs(initializer)");
    tool_check(dmlCommandRecorderRecordDispatch(dev->recorder, dev->queue, initializer, table),
        "dmlCommandRecorderRecordDispatch(initializer)");

    /* Execute. */
    DMLBuffer buffers[4] = { NULL };
    DML_BUFFER_BINDING bindings[4];
    DML_BINDING_DESC input_descs[3];
    for (uint32_t i = 0; i < input_count; i++) {
        buffers[i] = upload(dev, inputs[i]);
        input_descs[i] = buffer_binding(&bindings[i], buffers[i], inputs[i]->buffer_desc.TotalTensorSizeInBytes);
    }
    uint64_t output_bytes = output->buffer_desc.TotalTensorSizeInBytes;
    DMLBuffer output_buffer = upload(dev, output); /* zeros: untouched bytes read back as 0 */
    DML_BUFFER_BINDING output_binding;
    DML_BINDING_DESC output_desc = buffer_binding(&output_binding, output_buffer, output_bytes);

    table_desc.Dispatchable = compiled;
    tool_check(dmlBindingTableReset(table, &table_desc), "dmlBindingTableReset");
    tool_check(dmlBindingTableBindInputs(table, input_count, input_descs), "dmlBindingTableBindInputs");
    tool_check(dmlBindingTableBindOutputs(table, 1, &output_desc), "dmlBindingTableBindOutputs");
    if (exec_props.TemporaryResourceSize)
        tool_check(dmlBindingTableBindTemporaryResource(table, &temporary_desc), "dmlBindingTableBindTemporaryResource");
    if (persistent)
        tool_check(dmlBindingTableBindPersistentResource(table, &persistent_desc), "dmlBindingTableBindPersistentResource");
    tool_check(dmlCommandRecorderRecordDispatch(dev->recorder, dev->queue, compiled, table),
        "dmlCommandRecorderRecordDispatch");
    /* ReadBuffer runs after the dispatch recorded on the same queue. */
    tool_check(dmlCommandQueueReadBuffer(dev->queue, output_buffer, 0, output->data, output_bytes),
        "dmlCommandQueueReadBuffer");

    dmlRelease(output_buffer);
    for (uint32_t i = 0; i < input_count; i++)
        dmlRelease(buffers[i]);
    dmlRelease(persistent);
    dmlRelease(temporary);
    dmlRelease(table);
    dmlRelease(initializer);
    dmlRelease(compiled);
    dmlRelease(op);
}

/* ---- Operator requests: from the command line or an example ------------- */

typedef enum op_kind { OP_NONE, OP_SLICE1, OP_SLICE, OP_REVERSE } op_kind;

typedef struct request {
    op_kind kind;
    DML_TENSOR_DATA_TYPE type;
    uint32_t rank;
    uint32_t sizes[MAX_RANK];
    uint32_t offsets[MAX_RANK];
    uint32_t windows[MAX_RANK];    /* SLICE1 --window-sizes; SLICE --slice-sizes */
    int32_t strides[MAX_RANK];
    uint32_t output_sizes[MAX_RANK];
    bool have_offsets, have_windows, have_strides, have_output_sizes;
    uint32_t axis;
    bool have_axis;
    DML_TENSOR_DATA_TYPE lengths_type;
    const char* input;   /* "v,v,..." or NULL for 1..N */
    const char* lengths; /* REVERSE: "v,v,..." */
} request;

static const char* op_name(op_kind kind)
{
    switch (kind) {
    case OP_SLICE1: return "SLICE1";
    case OP_SLICE: return "SLICE";
    case OP_REVERSE: return "REVERSE_SUBSEQUENCES";
    case OP_NONE: break;
    }
    return "?";
}

static void print_list_u(const char* name, uint32_t rank, const uint32_t* values)
{
    printf("  %s ", name);
    tool_print_sizes(stdout, rank, values);
    printf("\n");
}

static void print_list_i(const char* name, uint32_t rank, const int32_t* values)
{
    printf("  %s {", name);
    for (uint32_t i = 0; i < rank; i++)
        printf("%s%" PRId32, i ? "," : "", values[i]);
    printf("}\n");
}

/* Runs the request on dev, prints input(s) and output; returns the output
 * (caller frees) so examples can check it. */
static host_tensor run_request(tool_device* dev, const request* r)
{
    host_tensor input, lengths, output;
    tensor_init(&input, r->type, r->rank, r->sizes);
    tensor_fill(&input, r->input, "--input");
    memset(&lengths, 0, sizeof lengths);

    DML_OPERATOR_DESC desc;
    DML_SLICE1_OPERATOR_DESC slice1;
    DML_SLICE_OPERATOR_DESC slice;
    DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC reverse;
    host_tensor* inputs[2] = { &input, &lengths };
    uint32_t input_count = 1;

    printf("operator %s\n", op_name(r->kind));
    if (r->kind == OP_SLICE1) {
        uint32_t out_sizes[MAX_RANK];
        for (uint32_t i = 0; i < r->rank; i++) {
            uint32_t stride = r->strides[i] < 0 ? (uint32_t)-(int64_t)r->strides[i] : (uint32_t)r->strides[i];
            out_sizes[i] = r->have_output_sizes ? r->output_sizes[i]
                : (stride && r->windows[i] ? 1 + (r->windows[i] - 1) / stride : 1);
        }
        tensor_init(&output, r->type, r->rank, out_sizes);
        slice1 = (DML_SLICE1_OPERATOR_DESC){ &input.desc, &output.desc, r->rank, r->offsets, r->windows, r->strides };
        desc = (DML_OPERATOR_DESC){ DML_OPERATOR_SLICE1, &slice1 };
        print_list_u("InputWindowOffsets", r->rank, r->offsets);
        print_list_u("InputWindowSizes", r->rank, r->windows);
        print_list_i("InputWindowStrides", r->rank, r->strides);
    } else if (r->kind == OP_SLICE) {
        tensor_init(&output, r->type, r->rank, r->windows);
        slice = (DML_SLICE_OPERATOR_DESC){ &input.desc, &output.desc, r->rank, r->offsets, r->windows,
            (const uint32_t*)r->strides };
        desc = (DML_OPERATOR_DESC){ DML_OPERATOR_SLICE, &slice };
        print_list_u("Offsets", r->rank, r->offsets);
        print_list_u("Sizes", r->rank, r->windows);
        print_list_u("Strides", r->rank, (const uint32_t*)r->strides);
    } else {
        uint32_t length_sizes[MAX_RANK];
        memcpy(length_sizes, r->sizes, sizeof length_sizes);
        length_sizes[r->axis] = 1;
        tensor_init(&lengths, r->lengths_type, r->rank, length_sizes);
        tensor_fill(&lengths, r->lengths, "--lengths");
        tensor_init(&output, r->type, r->rank, r->sizes);
        reverse = (DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC){ &input.desc, &lengths.desc, &output.desc, r->axis };
        desc = (DML_OPERATOR_DESC){ DML_OPERATOR_REVERSE_SUBSEQUENCES, &reverse };
        input_count = 2;
        printf("  Axis %" PRIu32 "\n", r->axis);
    }

    tensor_print("input", &input);
    if (input_count == 2)
        tensor_print("sequence lengths", &lengths);
    run_operator(dev, &desc, inputs, input_count, &output);
    tensor_print("output", &output);
    tensor_free(&input);
    tensor_free(&lengths);
    return output;
}

/* ---- Command line -------------------------------------------------------- */

static void usage(FILE* out)
{
    fprintf(out,
        "usage: %s [--backend NAME] OPERATOR OPTIONS...\n"
        "       %s [--backend NAME] --examples\n"
        "       %s graph [--backend NAME] [--type TYPE] --sizes S [--input V,...] (CHAIN | --file FILE)\n"
        "\n"
        "Operators (SIZES, ... are comma-separated lists, one value per dimension, 1 to 8):\n"
        "  slice1  --sizes S --offsets O --window-sizes W --strides T [--output-sizes S]\n"
        "          strides are signed and non-zero; output sizes default to 1 + (W-1)/|T|\n"
        "  slice   --sizes S --offsets O --slice-sizes Z --strides T\n"
        "  reverse --sizes S --axis A --lengths L [--lengths-type uint32|uint64]\n"
        "          L holds one length per sequence: the input sizes with 1 on the axis\n"
        "Common options:\n"
        "  --type TYPE      float32 (default), float16, float64, int8/16/32/64, uint8/16/32/64\n"
        "  --input V,V,...  the input values, row-major (default 1, 2, ..., N)\n"
        "  --backend NAME   run on this backend (default: DML_BACKEND, else the best available)\n"
        "  --examples       run the examples of the operator spec and check their outputs\n"
        "Graphs: CHAIN is nodes separated by ';' (a FILE: by lines), each reading the previous output:\n"
        "  identity [scale=X bias=Y] | slice1 offsets=O window=W strides=T | reverse axis=A lengths=L\n"
        "  any node: view=S (reshape what it reads), in-strides=T (read through strides), output\n"
        "  prints the plans the graph compiled to (what was fused), then the outputs\n"
        "\n"
        "Example: %s slice1 --sizes 1,1,4,4 --offsets 0,0,0,1 --window-sizes 1,1,4,3 --strides 1,1,-2,2\n"
        "         %s graph --sizes 4,6 'identity view=6,4 in-strides=1,6; slice1 offsets=1,0 window=5,4 "
        "strides=2,1; reverse axis=1 lengths=3,0,9'\n",
        tool_name, tool_name, tool_name, tool_name, tool_name);
}

/* Parses "a,b,c" into values; returns the count (fatal on bad input). */
static uint32_t parse_list(const char* option, const char* text, bool is_signed, uint32_t* values)
{
    uint32_t n = 0;
    const char* p = text;
    while (*p) {
        if (n == MAX_RANK)
            tool_fail("%s: more than %d values", option, MAX_RANK);
        char* end = NULL;
        long long v = strtoll(p, &end, 10);
        bool ok = end != p && (*end == ',' || *end == '\0') &&
            (is_signed ? (v >= INT32_MIN && v <= INT32_MAX) : (v >= 0 && v <= UINT32_MAX));
        if (!ok)
            tool_fail("%s: '%s' is not a list of %s integers", option, text, is_signed ? "32-bit" : "unsigned 32-bit");
        values[n++] = is_signed ? (uint32_t)(int32_t)v : (uint32_t)v;
        p = *end ? end + 1 : end;
    }
    if (n == 0)
        tool_fail("%s: expected a comma-separated list", option);
    return n;
}

static void parse_rank_list(request* r, const char* option, const char* text, bool is_signed, uint32_t* values,
    bool* have)
{
    uint32_t n = parse_list(option, text, is_signed, values);
    if (r->rank && n != r->rank)
        tool_fail("%s: %" PRIu32 " values, but the tensor has %" PRIu32 " dimensions", option, n, r->rank);
    r->rank = n;
    if (have)
        *have = true;
}

typedef struct command {
    const char* backend;
    bool examples;
    request request;
} command;

static void parse_command_line(int argc, char** argv, command* c)
{
    request* r = &c->request;
    memset(c, 0, sizeof *c);
    r->type = DML_TENSOR_DATA_TYPE_FLOAT32;
    r->lengths_type = DML_TENSOR_DATA_TYPE_UINT32;
    uint32_t sizes_rank = 0;

    for (int i = 1; i < argc; i++) {
        const char* arg = argv[i];
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            usage(stdout);
            exit(0);
        }
        if (strcmp(arg, "--examples") == 0) {
            c->examples = true;
            continue;
        }
        if (arg[0] != '-') {
            if (r->kind != OP_NONE)
                tool_fail("more than one operator given ('%s')", arg);
            if (strcmp(arg, "slice1") == 0)
                r->kind = OP_SLICE1;
            else if (strcmp(arg, "slice") == 0)
                r->kind = OP_SLICE;
            else if (strcmp(arg, "reverse") == 0 || strcmp(arg, "reverse_subsequences") == 0)
                r->kind = OP_REVERSE;
            else
                tool_fail("unknown operator '%s' (try --help)", arg);
            continue;
        }
        if (i + 1 >= argc)
            tool_fail("%s needs a value (try --help)", arg);
        const char* value = argv[++i];
        if (strcmp(arg, "--backend") == 0) {
            c->backend = value;
        } else if (strcmp(arg, "--type") == 0) {
            if (!tool_parse_data_type(value, &r->type))
                tool_fail("--type: unknown data type '%s'", value);
        } else if (strcmp(arg, "--sizes") == 0) {
            parse_rank_list(r, arg, value, false, r->sizes, NULL);
            sizes_rank = r->rank;
        } else if (strcmp(arg, "--offsets") == 0) {
            parse_rank_list(r, arg, value, false, r->offsets, &r->have_offsets);
        } else if (strcmp(arg, "--window-sizes") == 0 || strcmp(arg, "--slice-sizes") == 0) {
            parse_rank_list(r, arg, value, false, r->windows, &r->have_windows);
        } else if (strcmp(arg, "--strides") == 0) {
            parse_rank_list(r, arg, value, true, (uint32_t*)r->strides, &r->have_strides);
        } else if (strcmp(arg, "--output-sizes") == 0) {
            parse_rank_list(r, arg, value, false, r->output_sizes, &r->have_output_sizes);
        } else if (strcmp(arg, "--axis") == 0) {
            uint32_t axis[MAX_RANK];
            if (parse_list(arg, value, false, axis) != 1)
                tool_fail("--axis takes one value");
            r->axis = axis[0];
            r->have_axis = true;
        } else if (strcmp(arg, "--lengths-type") == 0) {
            if (!tool_parse_data_type(value, &r->lengths_type))
                tool_fail("--lengths-type: unknown data type '%s'", value);
        } else if (strcmp(arg, "--input") == 0) {
            r->input = value;
        } else if (strcmp(arg, "--lengths") == 0) {
            r->lengths = value;
        } else {
            tool_fail("unknown option '%s' (try --help)", arg);
        }
    }

    if (c->examples)
        return;
    if (r->kind == OP_NONE) {
        usage(stderr);
        exit(TOOL_EXIT_FAILURE);
    }
    if (!sizes_rank)
        tool_fail("%s needs --sizes", op_name(r->kind));
    if (r->kind == OP_REVERSE) {
        if (!r->have_axis || !r->lengths)
            tool_fail("reverse needs --axis and --lengths");
        if (r->axis >= r->rank)
            tool_fail("--axis %" PRIu32 " is not below the dimension count %" PRIu32, r->axis, r->rank);
    } else if (!r->have_offsets || !r->have_windows || !r->have_strides) {
        tool_fail("%s needs --offsets, --%s and --strides", r->kind == OP_SLICE1 ? "slice1" : "slice",
            r->kind == OP_SLICE1 ? "window-sizes" : "slice-sizes");
    }
    /* The runtime validates the rest (bounds, zero strides, ...): that is the point. */
}

/* ---- The operators' documented examples (docs/operators.md) ----------- */

typedef struct example {
    const char* title;
    request request;
    float expected[16];
} example;

static int run_examples(tool_device* dev)
{
    example examples[4] = {
        { "REVERSE_SUBSEQUENCES example 1: lengths {1,1,3,1} = [2,4,3], axis 3",
            { .kind = OP_REVERSE, .rank = 4, .sizes = { 1, 1, 3, 4 }, .axis = 3, .lengths = "2,4,3" },
            { 2, 1, 3, 4, 8, 7, 6, 5, 11, 10, 9, 12 } },
        { "REVERSE_SUBSEQUENCES example 2: lengths {1,1,1,4} = [2,3,1,0], axis 2",
            { .kind = OP_REVERSE, .rank = 4, .sizes = { 1, 1, 3, 4 }, .axis = 2, .lengths = "2,3,1,0" },
            { 5, 10, 3, 4, 1, 6, 7, 8, 9, 2, 11, 12 } },
        { "SLICE1 example: offsets {0,0,0,1}, window {1,1,4,3}, strides {1,1,2,2}",
            { .kind = OP_SLICE1, .rank = 4, .sizes = { 1, 1, 4, 4 }, .offsets = { 0, 0, 0, 1 },
                .windows = { 1, 1, 4, 3 }, .strides = { 1, 1, 2, 2 } },
            { 2, 4, 10, 12 } },
        { "SLICE1 example: offsets {0,0,0,1}, window {1,1,4,3}, strides {1,1,-2,2}",
            { .kind = OP_SLICE1, .rank = 4, .sizes = { 1, 1, 4, 4 }, .offsets = { 0, 0, 0, 1 },
                .windows = { 1, 1, 4, 3 }, .strides = { 1, 1, -2, 2 } },
            { 14, 16, 6, 8 } },
    };

    int failures = 0;
    for (int e = 0; e < 4; e++) {
        request* r = &examples[e].request;
        r->type = DML_TENSOR_DATA_TYPE_FLOAT32;
        r->lengths_type = DML_TENSOR_DATA_TYPE_UINT32;
        r->input = NULL; /* the examples use 1..N, the default input */

        printf("== %s\n", examples[e].title);
        host_tensor output = run_request(dev, r);
        host_tensor expected;
        tensor_init(&expected, output.type, output.rank, output.sizes);
        memcpy(expected.data, examples[e].expected, output.count * sizeof(float));
        tensor_print("expected", &expected);
        bool match = memcmp(expected.data, output.data, output.count * sizeof(float)) == 0;
        printf("%s\n\n", match ? "OK" : "MISMATCH");
        failures += !match;
        tensor_free(&expected);
        tensor_free(&output);
    }
    printf("%d of 4 examples passed on backend %s\n", 4 - failures, dev->backend);
    return failures ? 1 : 0;
}

int main(int argc, char** argv)
{
    tool_name = "dmlrun";
    if (argc > 1 && strcmp(argv[1], "graph") == 0)
        return dmlrun_graph(argc - 2, argv + 2);
    command c;
    parse_command_line(argc, argv, &c);

    tool_device dev;
    tool_device_open(&dev, c.backend, true);
    printf("backend %s (%s)", dev.backend, dev.why);
    printf(", adapter %u: %s", dev.adapter.AdapterIndex, dev.adapter.Description);
    printf("\n\n");

    int status = 0;
    if (c.examples) {
        status = run_examples(&dev);
    } else {
        host_tensor output = run_request(&dev, &c.request);
        tensor_free(&output);
    }
    tool_device_close(&dev);
    return status;
}

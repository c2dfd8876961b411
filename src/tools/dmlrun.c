/*
 * dmlrun — runs one operator described on the command line, through the
 * public API only, and prints its input and output. `dmlrun --examples` runs
 * the examples of DirectML's documentation and checks their results. The
 * operators are the entries of dmlrun_ops.c (dmlrun.h); this file is the
 * driver they share.
 *
 * Exit status: 0 on success, 1 when an example's output is wrong, 2 when an
 * API call fails or the command line is wrong.
 */
#include "dmlrun.h"
#include "dmlrun_graph.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define MAX_RANK DMLRUN_MAX_RANK

/* ---- A host-side tensor and its desc ------------------------------------ */

void host_tensor_init(host_tensor* t, DML_TENSOR_DATA_TYPE type, uint32_t rank, const uint32_t* sizes)
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

void host_tensor_free(host_tensor* t)
{
    free(t->data);
    t->data = NULL;
}

static void* tensor_element(host_tensor* t, uint64_t index)
{
    return t->data + index * dml_data_type_size(t->type);
}

void host_tensors_fill(host_tensor* tensors, uint32_t count, const char* text, const char* option)
{
    uint64_t total = 0; /* each tensor's count fits in memory: no overflow */
    for (uint32_t k = 0; k < count; k++)
        total += tensors[k].count;
    if (!text) {
        uint64_t value = 1;
        for (uint32_t k = 0; k < count; k++)
            for (uint64_t i = 0; i < tensors[k].count; i++)
                tool_store_index(tensors[k].type, value++, tensor_element(&tensors[k], i));
        return;
    }
    char* copy = strdup(text);
    if (!copy)
        tool_fail("out of memory");
    uint64_t n = 0, i = 0; /* n values so far; the next goes to tensors[k]'s element i */
    uint32_t k = 0;
    char* cursor = NULL;
    for (char* item = strtok_r(copy, ",", &cursor); item; item = strtok_r(NULL, ",", &cursor)) {
        while (k < count && i == tensors[k].count) {
            k++;
            i = 0;
        }
        if (k < count && !tool_parse_element(tensors[k].type, item, tensor_element(&tensors[k], i))) {
            fprintf(stderr, "%s: %s: '%s' is not a valid %s value\n", tool_name, option, item,
                dml_data_type_short_name(tensors[k].type));
            free(copy);
            exit(TOOL_EXIT_FAILURE);
        }
        i++;
        n++;
    }
    free(copy);
    if (n != total)
        tool_fail("%s: %" PRIu64 " values given, expected %" PRIu64 " (the product of the sizes%s)", option, n, total,
            count > 1 ? ", summed over the tensors" : "");
}

void host_tensor_fill(host_tensor* t, const char* text, const char* option)
{
    host_tensors_fill(t, 1, text, option);
}

void host_tensor_print(const char* title, const host_tensor* t)
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
 * and outputs (in the desc's binding order), then reads the results into
 * the outputs' data. */
static void run_operator(tool_device* dev, const DML_OPERATOR_DESC* desc, host_tensor* inputs,
    uint32_t input_count, host_tensor* outputs, uint32_t output_count)
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
    DMLBuffer buffers[DMLRUN_MAX_INPUTS] = { NULL };
    DML_BUFFER_BINDING bindings[DMLRUN_MAX_INPUTS];
    DML_BINDING_DESC input_descs[DMLRUN_MAX_INPUTS];
    for (uint32_t i = 0; i < input_count; i++) {
        buffers[i] = upload(dev, &inputs[i]);
        input_descs[i] = buffer_binding(&bindings[i], buffers[i], inputs[i].buffer_desc.TotalTensorSizeInBytes);
    }
    DMLBuffer output_buffers[DMLRUN_MAX_OUTPUTS] = { NULL };
    DML_BUFFER_BINDING output_bindings[DMLRUN_MAX_OUTPUTS];
    DML_BINDING_DESC output_descs[DMLRUN_MAX_OUTPUTS];
    for (uint32_t i = 0; i < output_count; i++) {
        output_buffers[i] = upload(dev, &outputs[i]); /* zeros: untouched bytes read back as 0 */
        output_descs[i] = buffer_binding(&output_bindings[i], output_buffers[i],
            outputs[i].buffer_desc.TotalTensorSizeInBytes);
    }

    table_desc.Dispatchable = compiled;
    tool_check(dmlBindingTableReset(table, &table_desc), "dmlBindingTableReset");
    tool_check(dmlBindingTableBindInputs(table, input_count, input_descs), "dmlBindingTableBindInputs");
    tool_check(dmlBindingTableBindOutputs(table, output_count, output_descs), "dmlBindingTableBindOutputs");
    if (exec_props.TemporaryResourceSize)
        tool_check(dmlBindingTableBindTemporaryResource(table, &temporary_desc), "dmlBindingTableBindTemporaryResource");
    if (persistent)
        tool_check(dmlBindingTableBindPersistentResource(table, &persistent_desc), "dmlBindingTableBindPersistentResource");
    tool_check(dmlCommandRecorderRecordDispatch(dev->recorder, dev->queue, compiled, table),
        "dmlCommandRecorderRecordDispatch");
    /* ReadBuffer runs after the dispatch recorded on the same queue. */
    for (uint32_t i = 0; i < output_count; i++) {
        tool_check(dmlCommandQueueReadBuffer(dev->queue, output_buffers[i], 0, outputs[i].data,
            outputs[i].buffer_desc.TotalTensorSizeInBytes), "dmlCommandQueueReadBuffer");
        dmlRelease(output_buffers[i]);
    }
    for (uint32_t i = 0; i < input_count; i++)
        dmlRelease(buffers[i]);
    dmlRelease(persistent);
    dmlRelease(temporary);
    dmlRelease(table);
    dmlRelease(initializer);
    dmlRelease(compiled);
    dmlRelease(op);
}

/* ---- Building a call (dmlrun.h) ------------------------------------------ */

const dmlrun_value* dmlrun_value_of(const dmlrun_args* args, const char* option)
{
    for (uint32_t k = 0; k < DMLRUN_MAX_OPTIONS && args->op->options[k].name; k++)
        if (strcmp(args->op->options[k].name, option) == 0)
            return &args->values[k];
    fprintf(stderr, "%s: internal error: %s has no option %s\n", tool_name, args->op->name, option);
    abort();
}

void* dmlrun_desc(dmlrun_call* call, DML_OPERATOR_TYPE type, size_t size)
{
    call->desc_storage = calloc(1, size);
    if (!call->desc_storage)
        tool_fail("out of memory");
    call->desc = (DML_OPERATOR_DESC){ type, call->desc_storage };
    return call->desc_storage;
}

host_tensor* dmlrun_add_input(dmlrun_call* call, const char* title, DML_TENSOR_DATA_TYPE type, uint32_t rank,
    const uint32_t* sizes)
{
    if (call->input_count == DMLRUN_MAX_INPUTS)
        tool_fail("internal error: more than %d inputs", DMLRUN_MAX_INPUTS);
    host_tensor* t = &call->tensors[call->input_count];
    call->titles[call->input_count++] = title;
    host_tensor_init(t, type, rank, sizes);
    return t;
}

host_tensor* dmlrun_add_output(dmlrun_call* call, const char* title, DML_TENSOR_DATA_TYPE type, uint32_t rank,
    const uint32_t* sizes)
{
    if (call->output_count == DMLRUN_MAX_OUTPUTS)
        tool_fail("internal error: more than %d outputs", DMLRUN_MAX_OUTPUTS);
    host_tensor* t = &call->outputs[call->output_count];
    call->output_titles[call->output_count++] = title;
    host_tensor_init(t, type, rank, sizes);
    return t;
}

host_tensor* dmlrun_set_output(dmlrun_call* call, DML_TENSOR_DATA_TYPE type, uint32_t rank, const uint32_t* sizes)
{
    return dmlrun_add_output(call, "output", type, rank, sizes);
}

const char* dmlrun_part_title(bool output, uint32_t k)
{
    static const char* const inputs[] = { "input 0", "input 1", "input 2", "input 3", "input 4", "input 5",
        "input 6", "input 7" };
    static const char* const outputs[] = { "output 0", "output 1", "output 2", "output 3", "output 4", "output 5",
        "output 6", "output 7" };
    if (k >= 8)
        tool_fail("internal error: part %" PRIu32 " has no title", k);
    return output ? outputs[k] : inputs[k];
}

void dmlrun_print_u(const char* name, uint32_t rank, const uint32_t* values)
{
    printf("  %s ", name);
    tool_print_sizes(stdout, rank, values);
    printf("\n");
}

void dmlrun_print_i(const char* name, uint32_t rank, const int32_t* values)
{
    printf("  %s {", name);
    for (uint32_t i = 0; i < rank; i++)
        printf("%s%" PRId32, i ? "," : "", values[i]);
    printf("}\n");
}

static void call_free(dmlrun_call* call)
{
    for (uint32_t i = 0; i < call->input_count; i++)
        host_tensor_free(&call->tensors[i]);
    for (uint32_t i = 0; i < call->output_count; i++)
        host_tensor_free(&call->outputs[i]);
    free(call->desc_storage);
}

/* Runs the request on dev and prints inputs and outputs; call keeps the
 * outputs (call_free) so examples can check them. */
static void run_request(tool_device* dev, const dmlrun_args* a, dmlrun_call* call)
{
    memset(call, 0, sizeof *call);
    if (!a->op->own_inputs) {
        host_tensor* input = dmlrun_add_input(call, "input", a->type, a->rank, a->sizes);
        host_tensor_fill(input, a->input, "--input");
    }

    printf("operator %s\n", a->op->title);
    a->op->build(a, call);

    for (uint32_t i = 0; i < call->input_count; i++)
        host_tensor_print(call->titles[i], &call->tensors[i]);
    run_operator(dev, &call->desc, call->tensors, call->input_count, call->outputs, call->output_count);
    for (uint32_t i = 0; i < call->output_count; i++)
        host_tensor_print(call->output_titles[i], &call->outputs[i]);
}

/* ---- Command line -------------------------------------------------------- */

static void usage(FILE* out)
{
    fprintf(out,
        "usage: %s [--backend NAME] OPERATOR OPTIONS...\n"
        "       %s [--backend NAME] --examples\n"
        "       %s graph [--backend NAME] [--type TYPE] --sizes S [--input V,...] (CHAIN | --file FILE)\n"
        "\n"
        "Operators (SIZES, ... are comma-separated lists, one value per dimension, 1 to 8):\n",
        tool_name, tool_name, tool_name);
    for (uint32_t k = 0; k < dmlrun_op_count; k++) {
        const dmlrun_op* op = dmlrun_ops[k];
        fprintf(out, "  %-7s %s\n", op->name, op->usage);
        if (op->notes)
            fprintf(out, "          %s\n", op->notes);
    }
    fprintf(out,
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
        tool_name, tool_name);
}

static const dmlrun_op* find_op(const char* name)
{
    for (uint32_t k = 0; k < dmlrun_op_count; k++)
        if (strcmp(dmlrun_ops[k]->name, name) == 0 || (dmlrun_ops[k]->alias && strcmp(dmlrun_ops[k]->alias, name) == 0))
            return dmlrun_ops[k];
    return NULL;
}

/* The index of op's option `name`, or -1. */
static int find_option(const dmlrun_op* op, const char* name)
{
    for (int k = 0; op && k < DMLRUN_MAX_OPTIONS && op->options[k].name; k++)
        if (strcmp(op->options[k].name, name) == 0)
            return k;
    return -1;
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

/* A per-dimension list: its count must agree with the lists before it. */
static void parse_rank_list(dmlrun_args* a, const char* option, const char* text, bool is_signed, uint32_t* values)
{
    uint32_t n = parse_list(option, text, is_signed, values);
    if (a->rank && n != a->rank)
        tool_fail("%s: %" PRIu32 " values, but the tensor has %" PRIu32 " dimensions", option, n, a->rank);
    a->rank = n;
}

static void parse_value(dmlrun_args* a, const dmlrun_option* option, const char* text, dmlrun_value* v)
{
    switch (option->kind) {
    case DMLRUN_LIST:
        parse_rank_list(a, option->name, text, false, v->u);
        break;
    case DMLRUN_SIGNED_LIST:
        parse_rank_list(a, option->name, text, true, (uint32_t*)v->i);
        break;
    case DMLRUN_ONE: {
        uint32_t values[MAX_RANK];
        if (parse_list(option->name, text, false, values) != 1)
            tool_fail("%s takes one value", option->name);
        v->u[0] = values[0];
        break;
    }
    case DMLRUN_TYPE:
        if (!tool_parse_data_type(text, &v->type))
            tool_fail("%s: unknown data type '%s'", option->name, text);
        break;
    case DMLRUN_VALUES:
    case DMLRUN_WORD:
        v->text = text;
        break;
    case DMLRUN_COUNTS:
        v->count = parse_list(option->name, text, false, v->u); /* at most DMLRUN_MAX_COUNTS */
        break;
    }
    v->given = true;
}

/* Parses the options of argv[first..argc) into a (whose op is set, or NULL
 * with --examples); the operator's name and --examples are skipped. */
static void parse_options(int argc, char** argv, int first, dmlrun_args* a, const char** backend)
{
    for (int i = first; i < argc; i++) {
        const char* arg = argv[i];
        if (strcmp(arg, "--examples") == 0 || arg[0] != '-')
            continue; /* taken by the first pass */
        if (i + 1 >= argc)
            tool_fail("%s needs a value (try --help)", arg);
        const char* value = argv[++i];
        int k = find_option(a->op, arg);
        if (strcmp(arg, "--backend") == 0 && backend) {
            *backend = value;
        } else if (strcmp(arg, "--type") == 0) {
            if (!tool_parse_data_type(value, &a->type))
                tool_fail("--type: unknown data type '%s'", value);
        } else if (strcmp(arg, "--sizes") == 0) {
            parse_rank_list(a, arg, value, false, a->sizes);
            a->have_sizes = true;
        } else if (strcmp(arg, "--input") == 0) {
            a->input = value;
        } else if (k >= 0) {
            parse_value(a, &a->op->options[k], value, &a->values[k]);
        } else {
            for (uint32_t j = 0; j < dmlrun_op_count; j++)
                if (find_option(dmlrun_ops[j], arg) >= 0) {
                    if (a->op)
                        tool_fail("%s is not an option of %s (try --help)", arg, a->op->name);
                    tool_fail("%s is an operator's option, and no operator is given (try --help)", arg);
                }
            tool_fail("unknown option '%s' (try --help)", arg);
        }
    }
}

/* The operator's required options, given? Else fatal, listing them. */
static void check_required(const dmlrun_args* a)
{
    const dmlrun_op* op = a->op;
    if (!a->have_sizes)
        tool_fail("%s needs --sizes", op->title);
    bool missing = false;
    uint32_t required = 0;
    for (int k = 0; k < DMLRUN_MAX_OPTIONS && op->options[k].name; k++)
        if (op->options[k].required) {
            required++;
            missing |= !a->values[k].given;
        }
    if (!missing)
        return;
    char list[256];
    size_t used = 0;
    uint32_t listed = 0;
    for (int k = 0; k < DMLRUN_MAX_OPTIONS && op->options[k].name; k++) {
        if (!op->options[k].required)
            continue;
        const char* separator = listed == 0 ? "" : listed + 1 == required ? " and " : ", ";
        used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", separator, op->options[k].name);
        listed++;
        if (used >= sizeof list)
            break;
    }
    tool_fail("%s needs %s", op->name, list);
}

typedef struct command {
    const char* backend;
    bool examples;
    dmlrun_args args;
} command;

static void parse_command_line(int argc, char** argv, command* c)
{
    dmlrun_args* a = &c->args;
    memset(c, 0, sizeof *c);
    a->type = DML_TENSOR_DATA_TYPE_FLOAT32;

    /* First pass: --help, --examples and the operator (every other option
     * takes a value), so that options may come before the operator. */
    for (int i = 1; i < argc; i++) {
        const char* arg = argv[i];
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            usage(stdout);
            exit(0);
        }
        if (strcmp(arg, "--examples") == 0) {
            c->examples = true;
        } else if (arg[0] == '-') {
            i++;
        } else {
            if (a->op)
                tool_fail("more than one operator given ('%s')", arg);
            a->op = find_op(arg);
            if (!a->op)
                tool_fail("unknown operator '%s' (try --help)", arg);
        }
    }
    parse_options(argc, argv, 1, a, &c->backend);

    if (c->examples)
        return;
    if (!a->op) {
        usage(stderr);
        exit(TOOL_EXIT_FAILURE);
    }
    check_required(a);
    if (a->op->check)
        a->op->check(a);
    /* The runtime validates the rest (bounds, zero strides, ...): that is the point. */
}

/* ---- The operators' documented examples ----------------------------------- */

/* An example's options, split at spaces (in words, which a's values point
 * into: it must outlive a), parsed as a command line. */
static void example_args(const dmlrun_op* op, const dmlrun_example* e, dmlrun_args* a, char* words, size_t size)
{
    char* argv[64];
    int argc = 0;
    if ((size_t)snprintf(words, size, "%s", e->options) >= size)
        tool_fail("internal error: the options of example '%s' are too long", e->title);
    argv[argc++] = (char*)"example";
    char* cursor = NULL;
    for (char* word = strtok_r(words, " ", &cursor); word; word = strtok_r(NULL, " ", &cursor)) {
        if (argc == 64)
            tool_fail("internal error: example '%s' has more than 63 words", e->title);
        argv[argc++] = word;
    }
    memset(a, 0, sizeof *a);
    a->op = op;
    a->type = DML_TENSOR_DATA_TYPE_FLOAT32;
    parse_options(argc, argv, 1, a, NULL);
    check_required(a);
    if (op->check)
        op->check(a);
}

static int run_examples(tool_device* dev)
{
    int total = 0, failures = 0;
    for (uint32_t k = 0; k < dmlrun_op_count; k++) {
        const dmlrun_op* op = dmlrun_ops[k];
        for (const dmlrun_example* e = op->examples; e && e->title; e++) {
            dmlrun_args a;
            char words[512];
            example_args(op, e, &a, words, sizeof words);
            printf("== %s\n", e->title);
            dmlrun_call call;
            run_request(dev, &a, &call);
            host_tensor expected[DMLRUN_MAX_OUTPUTS];
            for (uint32_t i = 0; i < call.output_count; i++)
                host_tensor_init(&expected[i], call.outputs[i].type, call.outputs[i].rank, call.outputs[i].sizes);
            host_tensors_fill(expected, call.output_count, e->expected, "expected");
            bool match = true;
            for (uint32_t i = 0; i < call.output_count; i++) {
                char title[32];
                snprintf(title, sizeof title, "expected%s%s", call.output_count > 1 ? " " : "",
                    call.output_count > 1 ? call.output_titles[i] : "");
                host_tensor_print(title, &expected[i]);
                match &= memcmp(expected[i].data, call.outputs[i].data,
                    expected[i].buffer_desc.TotalTensorSizeInBytes) == 0;
                host_tensor_free(&expected[i]);
            }
            printf("%s\n\n", match ? "OK" : "MISMATCH");
            total++;
            failures += !match;
            call_free(&call);
        }
    }
    printf("%d of %d examples passed on backend %s\n", total - failures, total, dev->backend);
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
        dmlrun_call call;
        run_request(&dev, &c.args, &call);
        call_free(&call);
    }
    tool_device_close(&dev);
    return status;
}

/*
 * dmlrun_graph.c — `dmlrun graph`: compiles a chain of operators into one
 * DML_GRAPH_DESC, runs it, and prints its input, its outputs and the plans the
 * runtime compiled it to (the INFO messages a DEBUG device emits), so a user
 * sees what was fused.
 *
 *   dmlrun graph [--backend NAME] [--type T] --sizes S [--input V,...] CHAIN
 *   dmlrun graph [--backend NAME] [--type T] --sizes S --file FILE
 *
 * CHAIN (or FILE) is nodes separated by ';' or new lines; each node reads the
 * previous node's output (the first reads the graph input):
 *   identity [scale=X bias=Y]
 *   slice1 offsets=O window=W strides=T
 *   reverse axis=A lengths=L             (its lengths: a uint32 graph input)
 * and on any node:
 *   view=S        read the previous output reshaped to sizes S (packed)
 *   in-strides=T  read it through these strides (a transpose: permuted ones)
 *   output        also make this node's output a graph output
 * The last node's output is always a graph output. '#' starts a comment.
 */
#include "dmlrun_graph.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define MAX_NODES 64
#define MAX_RANK DML_TENSOR_DIMENSION_COUNT_MAX1

typedef struct tensor {
    uint32_t rank;
    uint32_t sizes[MAX_RANK];
    uint32_t strides[MAX_RANK];
    DML_BUFFER_TENSOR_DESC buffer;
    DML_TENSOR_DESC desc;
} tensor;

typedef struct node {
    char kind[16];
    tensor in, out, lengths;
    uint32_t offsets[MAX_RANK], window[MAX_RANK], axis;
    int32_t strides[MAX_RANK];
    uint32_t length_values[4096];
    uint32_t length_count;
    bool has_view, has_in_strides, has_scale_bias, is_output;
    DML_SCALE_BIAS scale_bias;
    union {
        DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC identity;
        DML_SLICE1_OPERATOR_DESC slice1;
        DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC reverse;
    } op;
    DML_OPERATOR_DESC desc;
    DMLOperator handle;
    uint32_t lengths_input; /* graph input of a reverse's lengths */
    uint32_t output_index;
} node;

static DML_TENSOR_DATA_TYPE g_type = DML_TENSOR_DATA_TYPE_FLOAT32;

static void tensor_set(tensor* t, DML_TENSOR_DATA_TYPE type, uint32_t rank, const uint32_t* sizes,
    const uint32_t* strides)
{
    memset(t, 0, sizeof *t);
    t->rank = rank;
    memcpy(t->sizes, sizes, rank * sizeof *sizes);
    if (strides)
        memcpy(t->strides, strides, rank * sizeof *strides);
    const uint32_t* s = strides ? t->strides : NULL;
    uint64_t bytes = DMLCalcBufferTensorSize(type, rank, t->sizes, s);
    if (!bytes)
        tool_fail("graph: a tensor's sizes or strides are invalid (sizes of 0, or too large)");
    t->buffer = (DML_BUFFER_TENSOR_DESC){ type, DML_TENSOR_FLAG_NONE, rank, t->sizes, s, bytes, 0 };
    t->desc = (DML_TENSOR_DESC){ DML_TENSOR_TYPE_BUFFER, &t->buffer };
}

static uint32_t parse_u32_list(const char* what, const char* text, uint32_t* values, uint32_t capacity, bool is_signed)
{
    uint32_t n = 0;
    const char* p = text;
    while (*p) {
        char* end;
        long long v = strtoll(p, &end, 10);
        if (end == p || n == capacity || v > (long long)UINT32_MAX || v < (is_signed ? INT32_MIN : 0))
            tool_fail("graph: %s: '%s' is not a list of at most %u %s numbers", what, text, capacity,
                is_signed ? "32-bit" : "unsigned 32-bit");
        values[n++] = (uint32_t)(int32_t)v;
        p = *end == ',' ? end + 1 : end;
        if (*end && *end != ',')
            tool_fail("graph: %s: unexpected '%c' in '%s'", what, *end, text);
    }
    return n;
}

/* Parses one node's words; `previous` is the tensor it reads. */
static void parse_node(node* n, char* text, const tensor* previous)
{
    memset(n, 0, sizeof *n);
    char* cursor = NULL;
    char* word = strtok_r(text, " \t", &cursor);
    snprintf(n->kind, sizeof n->kind, "%s", word);
    uint32_t view[MAX_RANK], view_rank = 0, in_strides[MAX_RANK], in_strides_rank = 0;
    uint32_t offsets_n = 0, window_n = 0, strides_n = 0;
    bool have_axis = false, have_scale = false;
    while ((word = strtok_r(NULL, " \t", &cursor))) {
        char* value = strchr(word, '=');
        if (strcmp(word, "output") == 0) {
            n->is_output = true;
            continue;
        }
        if (!value)
            tool_fail("graph: node '%s': '%s' is not key=value or 'output'", n->kind, word);
        *value++ = '\0';
        if (strcmp(word, "view") == 0)
            view_rank = parse_u32_list(word, value, view, MAX_RANK, false), n->has_view = true;
        else if (strcmp(word, "in-strides") == 0)
            in_strides_rank = parse_u32_list(word, value, in_strides, MAX_RANK, false), n->has_in_strides = true;
        else if (strcmp(word, "offsets") == 0)
            offsets_n = parse_u32_list(word, value, n->offsets, MAX_RANK, false);
        else if (strcmp(word, "window") == 0)
            window_n = parse_u32_list(word, value, n->window, MAX_RANK, false);
        else if (strcmp(word, "strides") == 0)
            strides_n = parse_u32_list(word, value, (uint32_t*)n->strides, MAX_RANK, true);
        else if (strcmp(word, "axis") == 0)
            have_axis = parse_u32_list(word, value, &n->axis, 1, false) == 1;
        else if (strcmp(word, "lengths") == 0)
            n->length_count = parse_u32_list(word, value, n->length_values, 4096, false);
        else if (strcmp(word, "scale") == 0)
            n->scale_bias.Scale = strtof(value, NULL), n->has_scale_bias = have_scale = true;
        else if (strcmp(word, "bias") == 0)
            n->scale_bias.Bias = strtof(value, NULL), n->has_scale_bias = true;
        else
            tool_fail("graph: node '%s': unknown key '%s'", n->kind, word);
    }
    if (n->has_scale_bias && !have_scale)
        n->scale_bias.Scale = 1; /* bias= alone */
    /* What it reads: the previous output, maybe reshaped and restrided. */
    uint32_t rank = n->has_view ? view_rank : previous->rank;
    const uint32_t* sizes = n->has_view ? view : previous->sizes;
    if (n->has_in_strides && in_strides_rank != rank)
        tool_fail("graph: node '%s': in-strides has %u values for %u dimensions", n->kind, in_strides_rank, rank);
    tensor_set(&n->in, g_type, rank, sizes, n->has_in_strides ? in_strides : NULL);
    uint32_t out_sizes[MAX_RANK];
    memcpy(out_sizes, sizes, rank * sizeof *sizes);
    if (strcmp(n->kind, "identity") == 0) {
        n->desc.Type = DML_OPERATOR_ELEMENT_WISE_IDENTITY;
    } else if (strcmp(n->kind, "slice1") == 0) {
        if (offsets_n != rank || window_n != rank || strides_n != rank)
            tool_fail("graph: slice1 needs offsets, window and strides with %u values each", rank);
        for (uint32_t i = 0; i < rank; ++i) {
            int32_t s = n->strides[i];
            uint32_t step = s < 0 ? (uint32_t)(-(int64_t)s) : (uint32_t)s;
            out_sizes[i] = step && n->window[i] ? 1 + (n->window[i] - 1) / step : 1;
        }
        n->desc.Type = DML_OPERATOR_SLICE1;
    } else if (strcmp(n->kind, "reverse") == 0) {
        if (!have_axis || n->axis >= rank)
            tool_fail("graph: reverse needs axis=A below its dimension count %u", rank);
        uint32_t length_sizes[MAX_RANK];
        memcpy(length_sizes, sizes, rank * sizeof *sizes);
        length_sizes[n->axis] = 1;
        tensor_set(&n->lengths, DML_TENSOR_DATA_TYPE_UINT32, rank, length_sizes, NULL);
        uint64_t expected = n->lengths.buffer.TotalTensorSizeInBytes / 4;
        if (n->length_count != expected && !(n->length_count == 0 && expected == 0))
            tool_fail("graph: reverse: lengths= has %u values, expected %" PRIu64, n->length_count, expected);
        n->desc.Type = DML_OPERATOR_REVERSE_SUBSEQUENCES;
    } else {
        tool_fail("graph: unknown node '%s' (identity, slice1, reverse)", n->kind);
    }
    tensor_set(&n->out, g_type, rank, out_sizes, NULL);
    if (n->desc.Type == DML_OPERATOR_ELEMENT_WISE_IDENTITY)
        n->op.identity = (DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC){ &n->in.desc, &n->out.desc,
            n->has_scale_bias ? &n->scale_bias : NULL };
    else if (n->desc.Type == DML_OPERATOR_SLICE1)
        n->op.slice1 = (DML_SLICE1_OPERATOR_DESC){ &n->in.desc, &n->out.desc, rank, n->offsets, n->window, n->strides };
    else
        n->op.reverse = (DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC){ &n->in.desc, &n->lengths.desc, &n->out.desc, n->axis };
    n->desc.Desc = &n->op;
}

static void print_info(DML_MESSAGE_SEVERITY severity, const char* message, void* context)
{
    (void)context;
    if (severity == DML_MESSAGE_SEVERITY_INFO)
        printf("plan: %s\n", message);
    else
        fprintf(stderr, "%s: %s\n", tool_name, message);
}

static char* read_file(const char* path)
{
    FILE* f = fopen(path, "r");
    if (!f)
        tool_fail("graph: cannot open '%s'", path);
    size_t capacity = 1 << 16, n;
    char* text = malloc(capacity + 1);
    if (!text)
        tool_fail("out of memory");
    n = fread(text, 1, capacity, f);
    if (!feof(f))
        tool_fail("graph: '%s' is larger than %zu bytes", path, capacity);
    fclose(f);
    text[n] = '\0';
    return text;
}

static void print_tensor(const char* title, const tensor* t, const void* data)
{
    printf("%s ", title);
    tool_print_sizes(stdout, t->rank, t->sizes);
    printf(" %s:\n  ", dml_data_type_short_name(g_type));
    tool_print_tensor(stdout, g_type, t->rank, t->sizes, data, 2);
}

int dmlrun_graph(int argc, char** argv)
{
    const char* backend = NULL;
    const char* chain = NULL;
    const char* input_text = NULL;
    char* file_text = NULL;
    tensor input;
    uint32_t sizes[MAX_RANK], rank = 0;
    for (int i = 0; i < argc; ++i) {
        const char* arg = argv[i];
        if (arg[0] != '-') {
            chain = arg;
            continue;
        }
        if (i + 1 >= argc)
            tool_fail("%s needs a value (try --help)", arg);
        const char* value = argv[++i];
        if (strcmp(arg, "--backend") == 0)
            backend = value;
        else if (strcmp(arg, "--type") == 0) {
            if (!tool_parse_data_type(value, &g_type))
                tool_fail("--type: unknown data type '%s'", value);
        } else if (strcmp(arg, "--sizes") == 0)
            rank = parse_u32_list(arg, value, sizes, MAX_RANK, false);
        else if (strcmp(arg, "--input") == 0)
            input_text = value;
        else if (strcmp(arg, "--file") == 0)
            chain = file_text = read_file(value);
        else
            tool_fail("graph: unknown option '%s'", arg);
    }
    if (!rank || !chain)
        tool_fail("graph needs --sizes and a chain (or --file); try --help");
    tensor_set(&input, g_type, rank, sizes, NULL);

    /* Parse the chain. */
    node* nodes = calloc(MAX_NODES, sizeof *nodes);
    char* copy = strdup(chain);
    if (!nodes || !copy)
        tool_fail("out of memory");
    uint32_t count = 0;
    char* cursor = NULL;
    for (char* line = strtok_r(copy, ";\n", &cursor); line; line = strtok_r(NULL, ";\n", &cursor)) {
        char* hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        if (strspn(line, " \t") == strlen(line))
            continue;
        if (count == MAX_NODES)
            tool_fail("graph: more than %d nodes", MAX_NODES);
        parse_node(&nodes[count], line, count ? &nodes[count - 1].out : &input);
        ++count;
    }
    if (!count)
        tool_fail("graph: the chain has no nodes");
    nodes[count - 1].is_output = true;

    /* A DEBUG device: CompileGraph describes its plans as INFO messages. */
    dmlSetMessageCallback(print_info, NULL);
    DML_DEVICE_DESC dd = { sizeof(DML_DEVICE_DESC), backend, 0, DML_CREATE_DEVICE_FLAG_DEBUG, DML_FEATURE_LEVEL_5_0 };
    DMLDevice device = NULL;
    DMLCommandQueue queue = NULL;
    DMLCommandRecorder recorder = NULL;
    tool_check(dmlCreateDevice(&dd, &device), "dmlCreateDevice");
    tool_check(dmlDeviceCreateCommandQueue(device, NULL, &queue), "dmlDeviceCreateCommandQueue");
    tool_check(dmlDeviceCreateCommandRecorder(device, &recorder), "dmlDeviceCreateCommandRecorder");
    DML_ADAPTER_INFO adapter = { .Size = sizeof adapter };
    tool_check(dmlDeviceGetAdapterInfo(device, &adapter), "dmlDeviceGetAdapterInfo");
    printf("backend %s, adapter %u: %s\n\n", adapter.Backend, adapter.AdapterIndex, adapter.Description);

    /* The graph: input 0 is the data; each reverse adds its lengths input. */
    DML_GRAPH_NODE_DESC graph_nodes[MAX_NODES];
    DML_OPERATOR_GRAPH_NODE_DESC op_nodes[MAX_NODES];
    DML_GRAPH_EDGE_DESC in_edges[2 * MAX_NODES], out_edges[MAX_NODES], mid_edges[MAX_NODES];
    DML_INPUT_GRAPH_EDGE_DESC ins[2 * MAX_NODES];
    DML_OUTPUT_GRAPH_EDGE_DESC outs[MAX_NODES];
    DML_INTERMEDIATE_GRAPH_EDGE_DESC mids[MAX_NODES];
    uint32_t input_count = 1, output_count = 0, in_n = 0;
    for (uint32_t k = 0; k < count; ++k) {
        node* n = &nodes[k];
        tool_check(dmlDeviceCreateOperator(device, &n->desc, &n->handle), "dmlDeviceCreateOperator");
        op_nodes[k] = (DML_OPERATOR_GRAPH_NODE_DESC){ n->handle, n->kind };
        graph_nodes[k] = (DML_GRAPH_NODE_DESC){ DML_GRAPH_NODE_TYPE_OPERATOR, &op_nodes[k] };
        if (k == 0) {
            ins[in_n] = (DML_INPUT_GRAPH_EDGE_DESC){ 0, 0, 0, "input" };
            in_edges[in_n] = (DML_GRAPH_EDGE_DESC){ DML_GRAPH_EDGE_TYPE_INPUT, &ins[in_n] };
            ++in_n;
        } else {
            mids[k - 1] = (DML_INTERMEDIATE_GRAPH_EDGE_DESC){ k - 1, 0, k, 0, NULL };
            mid_edges[k - 1] = (DML_GRAPH_EDGE_DESC){ DML_GRAPH_EDGE_TYPE_INTERMEDIATE, &mids[k - 1] };
        }
        if (n->desc.Type == DML_OPERATOR_REVERSE_SUBSEQUENCES) {
            n->lengths_input = input_count++;
            ins[in_n] = (DML_INPUT_GRAPH_EDGE_DESC){ n->lengths_input, k, 1, "lengths" };
            in_edges[in_n] = (DML_GRAPH_EDGE_DESC){ DML_GRAPH_EDGE_TYPE_INPUT, &ins[in_n] };
            ++in_n;
        }
        if (n->is_output) {
            n->output_index = output_count;
            outs[output_count] = (DML_OUTPUT_GRAPH_EDGE_DESC){ k, 0, output_count, NULL };
            out_edges[output_count] = (DML_GRAPH_EDGE_DESC){ DML_GRAPH_EDGE_TYPE_OUTPUT, &outs[output_count] };
            ++output_count;
        }
    }
    DML_GRAPH_DESC gd = { input_count, output_count, count, graph_nodes, in_n, in_edges, output_count, out_edges,
        count - 1, mid_edges };
    DMLCompiledOperator compiled = NULL;
    tool_check(dmlDeviceCompileGraph(device, &gd, DML_EXECUTION_FLAG_NONE, &compiled), "dmlDeviceCompileGraph");
    printf("\n");

    /* Buffers: inputs, outputs, temporary (no OWNED_BY_DML here: no persistent resource). */
    DMLBindingTable table = NULL;
    DML_BINDING_TABLE_DESC td = { compiled };
    tool_check(dmlDeviceCreateBindingTable(device, &td, &table), "dmlDeviceCreateBindingTable");
    DMLBuffer buffers[3 * MAX_NODES + 2] = { NULL };
    uint32_t buffer_count = 0;
    DML_BUFFER_BINDING bb[2 * MAX_NODES];
    DML_BINDING_DESC bd[2 * MAX_NODES];
    uint64_t in_bytes = input.buffer.TotalTensorSizeInBytes;
    unsigned char* data = calloc(1, in_bytes);
    uint64_t element_count = 1;
    for (uint32_t i = 0; i < rank; ++i)
        element_count *= sizes[i];
    if (!data)
        tool_fail("out of memory");
    uint32_t element_size = dml_data_type_size(g_type);
    if (input_text) {
        char* values = strdup(input_text);
        uint64_t n = 0;
        char* c2 = NULL;
        for (char* item = strtok_r(values, ",", &c2); item; item = strtok_r(NULL, ",", &c2), ++n)
            if (n >= element_count || !tool_parse_element(g_type, item, data + n * element_size))
                tool_fail("--input: '%s' is not a valid %s value, or too many values", item, dml_data_type_short_name(g_type));
        free(values);
        if (n != element_count)
            tool_fail("--input: %" PRIu64 " values given, expected %" PRIu64, n, element_count);
    } else {
        for (uint64_t i = 0; i < element_count; ++i)
            tool_store_index(g_type, i + 1, data + i * element_size);
    }
    print_tensor("input", &input, data);
    DMLBuffer b;
    tool_check(dmlDeviceCreateBuffer(device, in_bytes, &b), "dmlDeviceCreateBuffer");
    buffers[buffer_count++] = b;
    tool_check(dmlCommandQueueWriteBuffer(queue, b, 0, data, in_bytes), "dmlCommandQueueWriteBuffer");
    bb[0] = (DML_BUFFER_BINDING){ b, 0, in_bytes };
    bd[0] = (DML_BINDING_DESC){ DML_BINDING_TYPE_BUFFER, &bb[0] };
    for (uint32_t k = 0; k < count; ++k) {
        node* n = &nodes[k];
        if (n->desc.Type != DML_OPERATOR_REVERSE_SUBSEQUENCES)
            continue;
        uint64_t bytes = n->lengths.buffer.TotalTensorSizeInBytes;
        tool_check(dmlDeviceCreateBuffer(device, bytes, &b), "dmlDeviceCreateBuffer");
        buffers[buffer_count++] = b;
        tool_check(dmlCommandQueueWriteBuffer(queue, b, 0, n->length_values, (uint64_t)n->length_count * 4),
            "dmlCommandQueueWriteBuffer");
        bb[n->lengths_input] = (DML_BUFFER_BINDING){ b, 0, bytes };
        bd[n->lengths_input] = (DML_BINDING_DESC){ DML_BINDING_TYPE_BUFFER, &bb[n->lengths_input] };
    }
    tool_check(dmlBindingTableBindInputs(table, input_count, bd), "dmlBindingTableBindInputs");
    for (uint32_t k = 0; k < count; ++k) {
        node* n = &nodes[k];
        if (!n->is_output)
            continue;
        uint64_t bytes = n->out.buffer.TotalTensorSizeInBytes;
        tool_check(dmlDeviceCreateBuffer(device, bytes, &b), "dmlDeviceCreateBuffer");
        buffers[buffer_count++] = b;
        bb[n->output_index] = (DML_BUFFER_BINDING){ b, 0, bytes };
        bd[n->output_index] = (DML_BINDING_DESC){ DML_BINDING_TYPE_BUFFER, &bb[n->output_index] };
    }
    tool_check(dmlBindingTableBindOutputs(table, output_count, bd), "dmlBindingTableBindOutputs");
    DML_BINDING_PROPERTIES props = dmlDispatchableGetBindingProperties(compiled);
    if (props.TemporaryResourceSize) {
        tool_check(dmlDeviceCreateBuffer(device, props.TemporaryResourceSize, &b), "dmlDeviceCreateBuffer");
        buffers[buffer_count++] = b;
        DML_BUFFER_BINDING tb = { b, 0, props.TemporaryResourceSize };
        DML_BINDING_DESC tdesc = { DML_BINDING_TYPE_BUFFER, &tb };
        tool_check(dmlBindingTableBindTemporaryResource(table, &tdesc), "dmlBindingTableBindTemporaryResource");
    }
    tool_check(dmlCommandRecorderRecordDispatch(recorder, queue, compiled, table), "dmlCommandRecorderRecordDispatch");
    tool_check(dmlCommandQueueSynchronize(queue), "dmlCommandQueueSynchronize");
    for (uint32_t k = 0; k < count; ++k) {
        node* n = &nodes[k];
        if (!n->is_output)
            continue;
        uint64_t bytes = n->out.buffer.TotalTensorSizeInBytes;
        unsigned char* out = malloc(bytes);
        if (!out)
            tool_fail("out of memory");
        tool_check(dmlCommandQueueReadBuffer(queue, bb[n->output_index].Buffer, 0, out, bytes),
            "dmlCommandQueueReadBuffer");
        char title[64];
        snprintf(title, sizeof title, "output %u (node %u, %s)", n->output_index, k, n->kind);
        print_tensor(title, &n->out, out);
        free(out);
    }
    for (uint32_t i = 0; i < buffer_count; ++i)
        dmlRelease(buffers[i]);
    for (uint32_t k = 0; k < count; ++k)
        dmlRelease(nodes[k].handle);
    dmlRelease(table);
    dmlRelease(compiled);
    dmlRelease(recorder);
    dmlRelease(queue);
    dmlRelease(device);
    dmlSetMessageCallback(NULL, NULL);
    free(data);
    free(copy);
    free(file_text);
    free(nodes);
    return 0;
}

/*
 * graph.c — dmlDeviceCompileGraph: a DML_GRAPH_DESC validated, then compiled
 * into an ordinary compiled operator holding an ordered list of steps (plans
 * and where their pointers come from). Backends never see the graph.
 *
 * Compilation walks the nodes in dependency order. A node's data input fed by
 * another node's output is composed with that node's (already composed) plan
 * when the composition is exact (plan_compose.h), so a chain of gathers
 * becomes one plan reading the chain's first input. Otherwise, and for every
 * lengths input fed by a node, the producer is materialised: into the graph
 * output it feeds when it feeds one (such intermediates are never fused
 * through), else into the temporary resource (256-byte aligned). Steps are
 * emitted in dependency order for materialised nodes only; a node whose every
 * consumer fused it away costs nothing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "objects.h"
#include "plan_build.h"
#include "plan_compose.h"

/* Caps on InputCount, OutputCount, NodeCount and each edge count, so that a
 * hostile desc cannot make the runtime allocate without bound. */
#define DML_GRAPH_MAX_COUNT 65536u

#define EXECUTION_FLAGS_ALL                                                                                  \
    ((uint32_t)(DML_EXECUTION_FLAG_ALLOW_HALF_PRECISION_COMPUTATION | DML_EXECUTION_FLAG_DISABLE_META_COMMANDS | \
        DML_EXECUTION_FLAG_DESCRIPTORS_VOLATILE))

static const char call[] = "dmlDeviceCompileGraph";

enum { FROM_NOTHING = 0, FROM_INPUT = 1, FROM_NODE = 2 };

typedef struct node {
    const dml_op_desc* op;
    const char* name;
    uint32_t from_kind[DML_OP_MAX_INPUTS]; /* what feeds each input */
    uint32_t from_index[DML_OP_MAX_INPUTS];
    uint32_t indegree;        /* intermediate edges into it not yet ordered */
    int64_t graph_output;     /* the first graph output it feeds, or -1 */
    uint32_t output_edges;    /* graph outputs it feeds */
    bool to_temporary;
    uint64_t temporary_offset;
    /* Its plan composed through fused producers, and that plan's sources. */
    dml_plan plan;
    dml_source input, lengths;
} node;

typedef struct compiler {
    dml_device* device;
    const DML_GRAPH_DESC* desc;
    node* nodes;
    /* Edges by their FromNodeIndex, as linked lists (UINT32_MAX ends one), so
     * that walking a node's edges costs their number, not the graph's. */
    uint32_t* first_mid;  /* per node: its first intermediate edge out */
    uint32_t* next_mid;   /* per intermediate edge */
    uint32_t* first_out;  /* per node: its first output edge */
    uint32_t* next_out;   /* per output edge */
    uint32_t* order;       /* nodes in dependency order */
    dml_tensor* inputs;    /* per graph input */
    dml_tensor* outputs;   /* per graph output */
    uint64_t temporary_size;
} compiler;

#define FAIL(c, ...) return dml_device_fail((c)->device, DML_E_INVALIDARG, __VA_ARGS__)

/* "node 2 'name'" for messages. */
static const char* node_label(const compiler* c, uint32_t index, char* buffer, size_t size)
{
    const char* name = c->nodes[index].name;
    if (name)
        snprintf(buffer, size, "Nodes[%u] '%.64s'", index, name);
    else
        snprintf(buffer, size, "Nodes[%u]", index);
    return buffer;
}

static DML_RESULT check_nodes(compiler* c)
{
    const DML_GRAPH_DESC* d = c->desc;
    for (uint32_t n = 0; n < d->NodeCount; ++n) {
        const DML_GRAPH_NODE_DESC* node_desc = &d->Nodes[n];
        if (node_desc->Type != DML_GRAPH_NODE_TYPE_OPERATOR)
            FAIL(c, "%s: Nodes[%u].Type = %d; must be DML_GRAPH_NODE_TYPE_OPERATOR", call, n, (int)node_desc->Type);
        const DML_OPERATOR_GRAPH_NODE_DESC* op_node = node_desc->Desc;
        if (!op_node)
            FAIL(c, "%s: Nodes[%u].Desc is NULL", call, n);
        const dml_operator* op = (const dml_operator*)op_node->Operator;
        if (!dml_is_object(op, DML_OBJECT_TYPE_OPERATOR))
            FAIL(c, "%s: Nodes[%u].Operator is not a valid DMLOperator", call, n);
        if (op->base.device != c->device)
            FAIL(c, "%s: Nodes[%u].Operator was created by another device", call, n);
        c->nodes[n].op = &op->desc;
        c->nodes[n].name = op_node->Name;
        c->nodes[n].graph_output = -1;
    }
    return DML_S_OK;
}

/* Connects node input `to_input` of node `to`; each exactly once. */
static DML_RESULT connect(compiler* c, const char* edge, uint32_t to, uint32_t to_input, uint32_t kind, uint32_t from)
{
    char label[96];
    node* n = &c->nodes[to];
    if (to_input >= n->op->input_count)
        FAIL(c, "%s: %s.ToNodeInputIndex = %u; %s (%s) has %u inputs", call, edge, to_input,
            node_label(c, to, label, sizeof label), dml_operator_type_name(n->op->type), n->op->input_count);
    if (n->from_kind[to_input] != FROM_NOTHING)
        FAIL(c, "%s: %s connects input %u of %s, which another edge already connects (each node input takes "
            "exactly one edge)", call, edge, to_input, node_label(c, to, label, sizeof label));
    n->from_kind[to_input] = kind;
    n->from_index[to_input] = from;
    return DML_S_OK;
}

/* field "InputEdges": its count is "InputEdgeCount". */
static DML_RESULT check_edge_array(compiler* c, const char* field, uint32_t count, const DML_GRAPH_EDGE_DESC* edges,
    DML_GRAPH_EDGE_TYPE type, const char* type_name)
{
    int stem = (int)strlen(field) - 1;
    if (count > DML_GRAPH_MAX_COUNT)
        FAIL(c, "%s: %.*sCount = %u exceeds this runtime's limit of %u", call, stem, field, count,
            DML_GRAPH_MAX_COUNT);
    if (count && !edges)
        FAIL(c, "%s: %s is NULL with %.*sCount = %u", call, field, stem, field, count);
    for (uint32_t e = 0; e < count; ++e) {
        if (edges[e].Type != type)
            FAIL(c, "%s: %s[%u].Type = %d; must be %s", call, field, e, (int)edges[e].Type, type_name);
        if (!edges[e].Desc)
            FAIL(c, "%s: %s[%u].Desc is NULL", call, field, e);
    }
    return DML_S_OK;
}

static DML_RESULT check_node_index(compiler* c, const char* edge, const char* field, uint32_t index)
{
    if (index >= c->desc->NodeCount)
        FAIL(c, "%s: %s.%s = %u; must be less than NodeCount %u", call, edge, field, index, c->desc->NodeCount);
    return DML_S_OK;
}

static DML_RESULT check_input_edges(compiler* c)
{
    const DML_GRAPH_DESC* d = c->desc;
    for (uint32_t e = 0; e < d->InputEdgeCount; ++e) {
        const DML_INPUT_GRAPH_EDGE_DESC* edge = d->InputEdges[e].Desc;
        char name[48], label[96];
        snprintf(name, sizeof name, "InputEdges[%u]", e);
        DML_RESULT r;
        if (edge->GraphInputIndex >= d->InputCount)
            FAIL(c, "%s: %s.GraphInputIndex = %u; must be less than InputCount %u", call, name, edge->GraphInputIndex,
                d->InputCount);
        if ((r = check_node_index(c, name, "ToNodeIndex", edge->ToNodeIndex)) < 0 ||
            (r = connect(c, name, edge->ToNodeIndex, edge->ToNodeInputIndex, FROM_INPUT, edge->GraphInputIndex)) < 0)
            return r;
        /* The graph input takes its consumers' tensor: the largest size and alignment any needs. */
        const dml_tensor* t = &c->nodes[edge->ToNodeIndex].op->inputs[edge->ToNodeInputIndex];
        dml_tensor* slot = &c->inputs[edge->GraphInputIndex];
        if (!slot->rank) {
            *slot = *t;
            continue;
        }
        if ((slot->flags ^ t->flags) & DML_TENSOR_FLAG_OWNED_BY_DML)
            FAIL(c, "%s: %s feeds input %u of %s, whose OWNED_BY_DML flag differs from another node input fed by "
                "graph input %u (all inputs a graph input feeds must agree)", call, name, edge->ToNodeInputIndex,
                node_label(c, edge->ToNodeIndex, label, sizeof label), edge->GraphInputIndex);
        if (t->total_bytes > slot->total_bytes)
            slot->total_bytes = t->total_bytes;
        if (t->base_alignment > slot->base_alignment)
            slot->base_alignment = t->base_alignment;
    }
    return DML_S_OK;
}

static DML_RESULT check_intermediate_edges(compiler* c)
{
    const DML_GRAPH_DESC* d = c->desc;
    for (uint32_t e = 0; e < d->IntermediateEdgeCount; ++e) {
        const DML_INTERMEDIATE_GRAPH_EDGE_DESC* edge = d->IntermediateEdges[e].Desc;
        char name[48], from_label[96], to_label[96];
        snprintf(name, sizeof name, "IntermediateEdges[%u]", e);
        DML_RESULT r;
        if ((r = check_node_index(c, name, "FromNodeIndex", edge->FromNodeIndex)) < 0 ||
            (r = check_node_index(c, name, "ToNodeIndex", edge->ToNodeIndex)) < 0)
            return r;
        if (edge->FromNodeOutputIndex != 0)
            FAIL(c, "%s: %s.FromNodeOutputIndex = %u; %s has 1 output", call, name, edge->FromNodeOutputIndex,
                node_label(c, edge->FromNodeIndex, from_label, sizeof from_label));
        if ((r = connect(c, name, edge->ToNodeIndex, edge->ToNodeInputIndex, FROM_NODE, edge->FromNodeIndex)) < 0)
            return r;
        const dml_tensor* from = &c->nodes[edge->FromNodeIndex].op->output;
        const dml_tensor* to = &c->nodes[edge->ToNodeIndex].op->inputs[edge->ToNodeInputIndex];
        node_label(c, edge->FromNodeIndex, from_label, sizeof from_label);
        node_label(c, edge->ToNodeIndex, to_label, sizeof to_label);
        if (from->total_bytes != to->total_bytes)
            FAIL(c, "%s: %s joins %s's output (TotalTensorSizeInBytes %llu) to input %u of %s "
                "(TotalTensorSizeInBytes %llu); an edge's two tensors must have equal TotalTensorSizeInBytes",
                call, name, from_label, (unsigned long long)from->total_bytes, edge->ToNodeInputIndex, to_label,
                (unsigned long long)to->total_bytes);
        if (to->flags & DML_TENSOR_FLAG_OWNED_BY_DML)
            FAIL(c, "%s: %s feeds input %u of %s, which is OWNED_BY_DML; only graph inputs may feed owned tensors",
                call, name, edge->ToNodeInputIndex, to_label);
        c->nodes[edge->ToNodeIndex].indegree++;
        c->next_mid[e] = c->first_mid[edge->FromNodeIndex];
        c->first_mid[edge->FromNodeIndex] = e;
    }
    return DML_S_OK;
}

static DML_RESULT check_output_edges(compiler* c)
{
    const DML_GRAPH_DESC* d = c->desc;
    for (uint32_t e = 0; e < d->OutputEdgeCount; ++e) {
        const DML_OUTPUT_GRAPH_EDGE_DESC* edge = d->OutputEdges[e].Desc;
        char name[48], label[96];
        snprintf(name, sizeof name, "OutputEdges[%u]", e);
        DML_RESULT r;
        if ((r = check_node_index(c, name, "FromNodeIndex", edge->FromNodeIndex)) < 0)
            return r;
        if (edge->FromNodeOutputIndex != 0)
            FAIL(c, "%s: %s.FromNodeOutputIndex = %u; %s has 1 output", call, name, edge->FromNodeOutputIndex,
                node_label(c, edge->FromNodeIndex, label, sizeof label));
        if (edge->GraphOutputIndex >= d->OutputCount)
            FAIL(c, "%s: %s.GraphOutputIndex = %u; must be less than OutputCount %u", call, name,
                edge->GraphOutputIndex, d->OutputCount);
        dml_tensor* slot = &c->outputs[edge->GraphOutputIndex];
        if (slot->rank)
            FAIL(c, "%s: %s connects graph output %u, which another edge already connects (each graph output "
                "takes exactly one edge)", call, name, edge->GraphOutputIndex);
        node* from = &c->nodes[edge->FromNodeIndex];
        *slot = from->op->output;
        if (from->graph_output < 0)
            from->graph_output = edge->GraphOutputIndex;
        from->output_edges++;
        c->next_out[e] = c->first_out[edge->FromNodeIndex];
        c->first_out[edge->FromNodeIndex] = e;
    }
    for (uint32_t o = 0; o < d->OutputCount; ++o)
        if (!c->outputs[o].rank)
            FAIL(c, "%s: graph output %u has no edge (each graph output takes exactly one edge)", call, o);
    return DML_S_OK;
}

static DML_RESULT check_connected(compiler* c)
{
    for (uint32_t n = 0; n < c->desc->NodeCount; ++n)
        for (uint32_t i = 0; i < c->nodes[n].op->input_count; ++i)
            if (c->nodes[n].from_kind[i] == FROM_NOTHING) {
                char label[96];
                FAIL(c, "%s: input %u of %s (%s) has no edge (every node input takes exactly one edge)", call, i,
                    node_label(c, n, label, sizeof label), dml_operator_type_name(c->nodes[n].op->type));
            }
    return DML_S_OK;
}

/* Kahn's algorithm over the intermediate edges; what is left is on a cycle. */
static DML_RESULT order_nodes(compiler* c)
{
    const DML_GRAPH_DESC* d = c->desc;
    uint32_t count = 0;
    for (uint32_t n = 0; n < d->NodeCount; ++n)
        if (!c->nodes[n].indegree)
            c->order[count++] = n;
    for (uint32_t k = 0; k < count; ++k) {
        for (uint32_t e = c->first_mid[c->order[k]]; e != UINT32_MAX; e = c->next_mid[e]) {
            const DML_INTERMEDIATE_GRAPH_EDGE_DESC* edge = d->IntermediateEdges[e].Desc;
            if (--c->nodes[edge->ToNodeIndex].indegree == 0)
                c->order[count++] = edge->ToNodeIndex;
        }
    }
    if (count < d->NodeCount) {
        for (uint32_t n = 0; n < d->NodeCount; ++n)
            if (c->nodes[n].indegree) {
                char label[96];
                FAIL(c, "%s: the intermediate edges form a cycle through %s", call,
                    node_label(c, n, label, sizeof label));
            }
    }
    return DML_S_OK;
}

static DML_RESULT validate(compiler* c)
{
    const DML_GRAPH_DESC* d = c->desc;
    DML_RESULT r;
    if ((r = check_nodes(c)) < 0 ||
        (r = check_edge_array(c, "InputEdges", d->InputEdgeCount, d->InputEdges, DML_GRAPH_EDGE_TYPE_INPUT,
             "DML_GRAPH_EDGE_TYPE_INPUT")) < 0 ||
        (r = check_edge_array(c, "OutputEdges", d->OutputEdgeCount, d->OutputEdges, DML_GRAPH_EDGE_TYPE_OUTPUT,
             "DML_GRAPH_EDGE_TYPE_OUTPUT")) < 0 ||
        (r = check_edge_array(c, "IntermediateEdges", d->IntermediateEdgeCount, d->IntermediateEdges,
             DML_GRAPH_EDGE_TYPE_INTERMEDIATE, "DML_GRAPH_EDGE_TYPE_INTERMEDIATE")) < 0 ||
        (r = check_input_edges(c)) < 0 || (r = check_intermediate_edges(c)) < 0 || (r = check_output_edges(c)) < 0 ||
        (r = check_connected(c)) < 0 || (r = order_nodes(c)) < 0)
        return r;
    return DML_S_OK;
}

static uint64_t align256(uint64_t v, bool* overflow)
{
    uint64_t r;
    *overflow |= __builtin_add_overflow(v, (uint64_t)255, &r);
    return r & ~(uint64_t)255;
}

/* Where consumers read node k's output, materialising it when needed. */
static DML_RESULT materialise(compiler* c, uint32_t k, dml_source* source)
{
    node* n = &c->nodes[k];
    if (n->graph_output >= 0) {
        *source = (dml_source){ DML_SOURCE_OUTPUT, (uint32_t)n->graph_output, 0 };
        return DML_S_OK;
    }
    if (!n->to_temporary) {
        bool overflow = false;
        uint64_t offset = align256(c->temporary_size, &overflow), end;
        if (overflow || __builtin_add_overflow(offset, n->op->output.total_bytes, &end))
            FAIL(c, "%s: the temporary resource's size overflows 64 bits", call);
        n->to_temporary = true;
        n->temporary_offset = offset;
        c->temporary_size = end;
    }
    *source = (dml_source){ DML_SOURCE_TEMPORARY, 0, n->temporary_offset };
    return DML_S_OK;
}

/* A node input's source when it is read through a pointer (never fused). */
static DML_RESULT read_source(compiler* c, const node* n, uint32_t input, dml_source* source)
{
    if (n->from_kind[input] == FROM_INPUT) {
        *source = (dml_source){ DML_SOURCE_INPUT, n->from_index[input], 0 };
        return DML_S_OK;
    }
    return materialise(c, n->from_index[input], source);
}

static DML_RESULT plan_nodes(compiler* c)
{
    for (uint32_t k = 0; k < c->desc->NodeCount; ++k) {
        node* n = &c->nodes[c->order[k]];
        DML_RESULT r;
        dml_plan_build(n->op, &n->plan);
        n->lengths = (dml_source){ DML_SOURCE_NONE, 0, 0 };
        if (n->op->input_count > 1 && (r = read_source(c, n, 1, &n->lengths)) < 0)
            return r;
        if (n->from_kind[0] == FROM_NODE && c->nodes[n->from_index[0]].graph_output < 0) {
            const node* producer = &c->nodes[n->from_index[0]];
            dml_plan composed;
            dml_lengths_from lengths_from;
            if (dml_plan_compose(&n->plan, &producer->plan, &composed, &lengths_from)) {
                n->plan = composed;
                n->input = producer->input;
                if (lengths_from == DML_LENGTHS_PRODUCER)
                    n->lengths = producer->lengths;
                else if (lengths_from == DML_LENGTHS_NONE)
                    n->lengths = (dml_source){ DML_SOURCE_NONE, 0, 0 };
                continue;
            }
        }
        if ((r = read_source(c, n, 0, &n->input)) < 0)
            return r;
    }
    return DML_S_OK;
}

/* One block: inputs, outputs, owned offsets, steps. */
static DML_RESULT build(compiler* c, dml_compiled* compiled)
{
    const DML_GRAPH_DESC* d = c->desc;
    uint32_t steps = 0;
    for (uint32_t n = 0; n < d->NodeCount; ++n)
        steps += c->nodes[n].output_edges + (c->nodes[n].to_temporary ? 1 : 0);
    size_t size = (size_t)d->InputCount * (sizeof(dml_tensor) + sizeof(uint64_t)) +
        (size_t)d->OutputCount * sizeof(dml_tensor) + (size_t)steps * sizeof(dml_step);
    unsigned char* block = calloc(1, size ? size : 1);
    if (!block)
        return dml_device_fail(c->device, DML_E_OUTOFMEMORY, "%s: out of host memory", call);
    compiled->graph = block;
    dml_step* step = (dml_step*)(void*)block;
    dml_tensor* inputs = (dml_tensor*)(void*)(step + steps);
    dml_tensor* outputs = inputs + d->InputCount;
    uint64_t* owned = (uint64_t*)(void*)(outputs + d->OutputCount);
    memcpy(inputs, c->inputs, (size_t)d->InputCount * sizeof *inputs);
    memcpy(outputs, c->outputs, (size_t)d->OutputCount * sizeof *outputs);

    uint64_t persistent = 0;
    bool overflow = false;
    for (uint32_t i = 0; i < d->InputCount; ++i) {
        owned[i] = DML_NOT_OWNED;
        if (inputs[i].flags & DML_TENSOR_FLAG_OWNED_BY_DML) {
            owned[i] = persistent;
            overflow |= __builtin_add_overflow(persistent, align256(inputs[i].total_bytes, &overflow), &persistent);
        }
    }
    if (overflow)
        FAIL(c, "%s: the persistent resource's size overflows 64 bits", call);

    uint32_t s = 0;
    for (uint32_t k = 0; k < d->NodeCount; ++k) {
        const node* n = &c->nodes[c->order[k]];
        dml_step proto = { n->plan, NULL, n->input, n->lengths, { DML_SOURCE_TEMPORARY, 0, n->temporary_offset } };
        if (n->to_temporary)
            step[s++] = proto;
        for (uint32_t e = c->first_out[c->order[k]]; e != UINT32_MAX; e = c->next_out[e]) {
            const DML_OUTPUT_GRAPH_EDGE_DESC* edge = d->OutputEdges[e].Desc;
            proto.output = (dml_source){ DML_SOURCE_OUTPUT, edge->GraphOutputIndex, 0 };
            step[s++] = proto;
        }
    }
    compiled->input_count = d->InputCount;
    compiled->output_count = d->OutputCount;
    compiled->inputs = inputs;
    compiled->outputs = outputs;
    compiled->owned_offsets = owned;
    compiled->steps = step;
    compiled->step_count = steps;
    compiled->persistent_size = persistent;
    compiled->temporary_size = c->temporary_size;
    return DML_S_OK;
}

static const char* source_name(dml_source s, char* buffer, size_t size)
{
    switch (s.kind) {
    case DML_SOURCE_INPUT: snprintf(buffer, size, "input %u", s.index); break;
    case DML_SOURCE_OUTPUT: snprintf(buffer, size, "output %u", s.index); break;
    case DML_SOURCE_TEMPORARY: snprintf(buffer, size, "temporary+%llu", (unsigned long long)s.offset); break;
    default: snprintf(buffer, size, "-"); break;
    }
    return buffer;
}

/* On DEBUG devices: what the graph compiled to, one message per step, so a
 * user sees what was fused (dmlrun --graph prints these). */
static void describe(const compiler* c, const dml_compiled* compiled)
{
    char line[1024], a[48], b[48], d[48];
    snprintf(line, sizeof line, "%s: %u nodes compiled to %u step(s); temporary resource %llu bytes, persistent %llu",
        call, c->desc->NodeCount, compiled->step_count, (unsigned long long)compiled->temporary_size,
        (unsigned long long)compiled->persistent_size);
    dml_emit_info(line);
    for (uint32_t k = 0; k < compiled->step_count; ++k) {
        const dml_step* s = &compiled->steps[k];
        const dml_plan* p = &s->plan;
        int n = snprintf(line, sizeof line, "  step %u: %s %s -> %s", k,
            p->kind == DML_PLAN_REVERSE_SUBSEQUENCES ? "reverse-gather" : "gather", source_name(s->input, a, sizeof a),
            source_name(s->output, b, sizeof b));
        if (p->kind == DML_PLAN_REVERSE_SUBSEQUENCES)
            n += snprintf(line + n, sizeof line - (size_t)n, " (lengths %s, axis %d clamp %llu)",
                source_name(s->lengths, d, sizeof d), p->axis, (unsigned long long)p->axis_size);
        n += snprintf(line + n, sizeof line - (size_t)n, ", %u-byte elements, offsets in %lld out %lld, sizes/in/out:",
            p->element_size, (long long)p->in_offset, (long long)p->out_offset);
        for (uint32_t i = 0; i < p->rank && n < (int)sizeof line; ++i)
            n += snprintf(line + n, sizeof line - (size_t)n, " %llu/%lld/%lld", (unsigned long long)p->sizes[i],
                (long long)p->in_strides[i], (long long)p->out_strides[i]);
        dml_emit_info(line);
    }
}

static DML_RESULT compile(compiler* c, DMLCompiledOperator* out)
{
    DML_RESULT r;
    if ((r = validate(c)) < 0 || (r = plan_nodes(c)) < 0)
        return r;
    dml_compiled* compiled = calloc(1, sizeof *compiled);
    if (!compiled)
        return dml_device_fail(c->device, DML_E_OUTOFMEMORY, "%s: out of host memory", call);
    dml_object_init(&compiled->base, DML_OBJECT_TYPE_COMPILED_OPERATOR, c->device);
    if ((r = build(c, compiled)) < 0) {
        dml_object_release(compiled);
        return r;
    }
    if ((r = dml_compiled_compile_steps(c->device, compiled)) < 0) {
        dml_object_release(compiled);
        return dml_device_remove(c->device, r);
    }
    if (c->device->debug)
        describe(c, compiled);
    *out = (DMLCompiledOperator)compiled;
    return DML_S_OK;
}

DML_RESULT dml_compile_graph(DMLDevice handle, const DML_GRAPH_DESC* desc, DML_EXECUTION_FLAGS flags,
    DMLCompiledOperator* out);
DML_RESULT dml_compile_graph(DMLDevice handle, const DML_GRAPH_DESC* desc, DML_EXECUTION_FLAGS flags,
    DMLCompiledOperator* out)
{
    dml_device* device = (dml_device*)handle;
    if (!dml_is_object(device, DML_OBJECT_TYPE_DEVICE))
        return dml_set_error(DML_E_INVALIDARG, "%s: device is not a valid DMLDevice", call);
    DML_RESULT r = dml_device_check(device, call);
    if (r < 0)
        return r;
    if (!desc || !out)
        return dml_device_fail(device, DML_E_INVALIDARG, "%s: %s is NULL", call, desc ? "compiled" : "desc");
    if ((uint32_t)flags & ~EXECUTION_FLAGS_ALL)
        return dml_device_fail(device, DML_E_INVALIDARG, "%s: flags = 0x%x has unknown bits", call, (unsigned)flags);
    if (desc->NodeCount == 0 || !desc->Nodes)
        return dml_device_fail(device, DML_E_INVALIDARG, "%s: desc->NodeCount = %u, Nodes %s; a graph needs nodes",
            call, desc->NodeCount, desc->Nodes ? "set" : "NULL");
    if (desc->OutputCount == 0)
        return dml_device_fail(device, DML_E_INVALIDARG, "%s: desc->OutputCount = 0; a graph needs an output", call);
    if (desc->NodeCount > DML_GRAPH_MAX_COUNT || desc->InputCount > DML_GRAPH_MAX_COUNT ||
        desc->OutputCount > DML_GRAPH_MAX_COUNT)
        return dml_device_fail(device, DML_E_INVALIDARG,
            "%s: desc->NodeCount %u, InputCount %u, OutputCount %u; each is limited to %u here", call,
            desc->NodeCount, desc->InputCount, desc->OutputCount, DML_GRAPH_MAX_COUNT);

    compiler c;
    memset(&c, 0, sizeof c);
    c.device = device;
    c.desc = desc;
    c.nodes = calloc(desc->NodeCount, sizeof *c.nodes);
    c.first_mid = malloc(desc->NodeCount * sizeof *c.first_mid);
    c.first_out = malloc(desc->NodeCount * sizeof *c.first_out);
    /* Edge counts are checked against the cap before any edge is read. */
    uint32_t mids = desc->IntermediateEdgeCount <= DML_GRAPH_MAX_COUNT ? desc->IntermediateEdgeCount : 0;
    uint32_t outs = desc->OutputEdgeCount <= DML_GRAPH_MAX_COUNT ? desc->OutputEdgeCount : 0;
    c.next_mid = malloc((mids ? mids : 1) * sizeof *c.next_mid);
    c.next_out = malloc((outs ? outs : 1) * sizeof *c.next_out);
    c.order = calloc(desc->NodeCount, sizeof *c.order);
    c.inputs = calloc(desc->InputCount ? desc->InputCount : 1, sizeof *c.inputs);
    c.outputs = calloc(desc->OutputCount, sizeof *c.outputs);
    if (!c.nodes || !c.order || !c.inputs || !c.outputs || !c.first_mid || !c.first_out || !c.next_mid ||
        !c.next_out) {
        r = dml_device_fail(device, DML_E_OUTOFMEMORY, "%s: out of host memory", call);
    } else {
        memset(c.first_mid, 0xFF, desc->NodeCount * sizeof *c.first_mid);
        memset(c.first_out, 0xFF, desc->NodeCount * sizeof *c.first_out);
        r = compile(&c, out);
    }
    free(c.first_mid);
    free(c.first_out);
    free(c.next_mid);
    free(c.next_out);
    free(c.nodes);
    free(c.order);
    free(c.inputs);
    free(c.outputs);
    return r;
}

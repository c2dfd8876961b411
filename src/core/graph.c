/*
 * graph.c — compiling: dmlDeviceCompileGraph, and dmlDeviceCompileOperator
 * as the one node of a graph (dml_compile_single), so both get their steps,
 * binding slots and persistent and temporary layouts from one path.
 *
 * A DML_GRAPH_DESC is validated, then compiled into an ordinary compiled
 * operator holding an ordered list of steps (plans and where their pointers
 * come from). Backends never see the graph.
 *
 * Compilation walks the nodes in dependency order and lowers each operator
 * to its steps (ops/op.h). A step's data input fed by another node's output
 * is composed with that output's producing step when the output has exactly
 * one (it then writes all of it) and the composition is exact
 * (plan_compose.h), so a chain of gathers becomes one plan reading the
 * chain's first input. Otherwise, and for every lengths input fed by a node,
 * the producer's output is materialised: into the graph output it feeds when
 * it feeds one (such intermediates are never fused through), else into the
 * temporary resource (256-byte aligned). Steps are emitted in dependency
 * order for materialised outputs only; a node whose every consumer fused it
 * away costs nothing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "plan_compose.h"

/* Caps on InputCount, OutputCount, NodeCount and each edge count, so that a
 * hostile desc cannot make the runtime allocate without bound. */
#define DML_GRAPH_MAX_COUNT 65536u

enum { FROM_NOTHING = 0, FROM_INPUT = 1, FROM_NODE = 2 };

/* What feeds one node input: a graph input, or output `output` of a node. */
typedef struct feed {
    uint32_t kind;
    uint32_t index;
    uint32_t output;
} feed;

/* One output of a node: where it goes. */
typedef struct node_output {
    int64_t graph_output;  /* the first graph output it feeds, or -1 */
    uint32_t output_edges; /* graph outputs it feeds */
    uint32_t first_out;    /* its first output edge (UINT32_MAX: none) */
    bool to_temporary;
    uint64_t temporary_offset;
} node_output;

/* One of a node's steps, its plan composed through fused producers. */
typedef struct planned {
    dml_plan plan;
    dml_source input, lengths, input2;
    uint32_t output; /* which output of the node it writes */
    bool ordered;    /* dml_op_step.ordered */
} planned;

typedef struct node {
    const dml_op* op;
    const char* name;
    feed* feeds;           /* per input */
    node_output* outputs;  /* per output */
    uint32_t indegree;     /* intermediate edges into it not yet ordered */
    planned* steps;
    uint32_t step_count;
} node;

typedef struct compiler {
    dml_device* device;
    const char* call;        /* "dmlDeviceCompileGraph", or CompileOperator's */
    dml_operator* single;    /* CompileOperator: the operator; NULL for a graph */
    const DML_GRAPH_DESC* desc;
    node* nodes;
    feed* feeds;             /* every node's, in one array */
    node_output* node_outputs;
    /* Edges by their FromNodeIndex, as linked lists (UINT32_MAX ends one), so
     * that walking a node's edges costs their number, not the graph's. */
    uint32_t* first_mid;  /* per node: its first intermediate edge out */
    uint32_t* next_mid;   /* per intermediate edge */
    uint32_t* next_out;   /* per output edge */
    uint32_t* order;       /* nodes in dependency order */
    dml_tensor* inputs;    /* per graph input */
    dml_tensor* outputs;   /* per graph output */
    uint64_t temporary_size;
} compiler;

#define FAIL(c, ...) return dml_device_fail((c)->device, DML_E_INVALIDARG, __VA_ARGS__)

/* "Nodes[2] 'name'" for messages. */
static const char* node_label(const compiler* c, uint32_t index, char* buffer, size_t size)
{
    const char* name = c->nodes[index].name;
    if (name)
        snprintf(buffer, size, "Nodes[%u] '%.64s'", index, name);
    else
        snprintf(buffer, size, "Nodes[%u]", index);
    return buffer;
}

static const char* node_type(const compiler* c, uint32_t index)
{
    return c->nodes[index].op->entry->name;
}

/* Reads each node's operator; then gives every node its slices of the feed
 * and output arrays (their sizes are known only once the operators are). */
static DML_RESULT check_nodes(compiler* c)
{
    const DML_GRAPH_DESC* d = c->desc;
    uint64_t feeds = 0, outputs = 0;
    for (uint32_t n = 0; n < d->NodeCount; ++n) {
        const DML_GRAPH_NODE_DESC* node_desc = &d->Nodes[n];
        if (node_desc->Type != DML_GRAPH_NODE_TYPE_OPERATOR)
            FAIL(c, "%s: Nodes[%u].Type = %d; must be DML_GRAPH_NODE_TYPE_OPERATOR", c->call, n,
                (int)node_desc->Type);
        const DML_OPERATOR_GRAPH_NODE_DESC* op_node = node_desc->Desc;
        if (!op_node)
            FAIL(c, "%s: Nodes[%u].Desc is NULL", c->call, n);
        const dml_operator* op = (const dml_operator*)op_node->Operator;
        if (!dml_is_object(op, DML_OBJECT_TYPE_OPERATOR)) {
            char problem[DML_HANDLE_PROBLEM_SIZE];
            FAIL(c, "%s: Nodes[%u].Operator %s", c->call, n,
                dml_handle_problem(op, "DMLOperator", problem, sizeof problem));
        }
        if (op->base.device != c->device)
            FAIL(c, "%s: Nodes[%u].Operator was created by another device", c->call, n);
        c->nodes[n].op = op->op;
        c->nodes[n].name = op_node->Name;
        feeds += op->op->input_count;
        outputs += op->op->output_count;
    }
    c->feeds = calloc(feeds ? feeds : 1, sizeof *c->feeds);
    c->node_outputs = malloc((outputs ? outputs : 1) * sizeof *c->node_outputs);
    if (!c->feeds || !c->node_outputs)
        return dml_device_fail(c->device, DML_E_OUTOFMEMORY, "%s: out of host memory", c->call);
    feeds = outputs = 0;
    for (uint32_t n = 0; n < d->NodeCount; ++n) {
        node* nd = &c->nodes[n];
        nd->feeds = c->feeds + feeds;
        nd->outputs = c->node_outputs + outputs;
        for (uint32_t j = 0; j < nd->op->output_count; ++j)
            nd->outputs[j] = (node_output){ -1, 0, UINT32_MAX, false, 0 };
        feeds += nd->op->input_count;
        outputs += nd->op->output_count;
    }
    return DML_S_OK;
}

/* Connects node input `to_input` of node `to`; each exactly once. */
static DML_RESULT connect(compiler* c, const char* edge, uint32_t to, uint32_t to_input, feed from)
{
    char label[96];
    node* n = &c->nodes[to];
    if (to_input >= n->op->input_count)
        FAIL(c, "%s: %s.ToNodeInputIndex = %u; %s (%s) has %u inputs", c->call, edge, to_input,
            node_label(c, to, label, sizeof label), node_type(c, to), n->op->input_count);
    if (!n->op->inputs[to_input].rank)
        FAIL(c, "%s: %s connects input %u of %s (%s), which its operator leaves out (its tensor desc is NULL)",
            c->call, edge, to_input, node_label(c, to, label, sizeof label), node_type(c, to));
    if (n->feeds[to_input].kind != FROM_NOTHING)
        FAIL(c, "%s: %s connects input %u of %s, which another edge already connects (each node input takes "
            "exactly one edge)", c->call, edge, to_input, node_label(c, to, label, sizeof label));
    n->feeds[to_input] = from;
    return DML_S_OK;
}

/* field "InputEdges": its count is "InputEdgeCount". */
static DML_RESULT check_edge_array(compiler* c, const char* field, uint32_t count, const DML_GRAPH_EDGE_DESC* edges,
    DML_GRAPH_EDGE_TYPE type, const char* type_name)
{
    int stem = (int)strlen(field) - 1;
    if (count > DML_GRAPH_MAX_COUNT)
        FAIL(c, "%s: %.*sCount = %u exceeds this runtime's limit of %u", c->call, stem, field, count,
            DML_GRAPH_MAX_COUNT);
    if (count && !edges)
        FAIL(c, "%s: %s is NULL with %.*sCount = %u", c->call, field, stem, field, count);
    for (uint32_t e = 0; e < count; ++e) {
        if (edges[e].Type != type)
            FAIL(c, "%s: %s[%u].Type = %d; must be %s", c->call, field, e, (int)edges[e].Type, type_name);
        if (!edges[e].Desc)
            FAIL(c, "%s: %s[%u].Desc is NULL", c->call, field, e);
    }
    return DML_S_OK;
}

static DML_RESULT check_node_index(compiler* c, const char* edge, const char* field, uint32_t index)
{
    if (index >= c->desc->NodeCount)
        FAIL(c, "%s: %s.%s = %u; must be less than NodeCount %u", c->call, edge, field, index, c->desc->NodeCount);
    return DML_S_OK;
}

static DML_RESULT check_node_output(compiler* c, const char* edge, uint32_t from, uint32_t output)
{
    char label[96];
    uint32_t count = c->nodes[from].op->output_count;
    if (output >= count)
        FAIL(c, "%s: %s.FromNodeOutputIndex = %u; %s (%s) has %u output%s", c->call, edge, output,
            node_label(c, from, label, sizeof label), node_type(c, from), count, count == 1 ? "" : "s");
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
            FAIL(c, "%s: %s.GraphInputIndex = %u; must be less than InputCount %u", c->call, name,
                edge->GraphInputIndex, d->InputCount);
        if ((r = check_node_index(c, name, "ToNodeIndex", edge->ToNodeIndex)) < 0 ||
            (r = connect(c, name, edge->ToNodeIndex, edge->ToNodeInputIndex,
                 (feed){ FROM_INPUT, edge->GraphInputIndex, 0 })) < 0)
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
                "graph input %u (all inputs a graph input feeds must agree)", c->call, name, edge->ToNodeInputIndex,
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
            (r = check_node_index(c, name, "ToNodeIndex", edge->ToNodeIndex)) < 0 ||
            (r = check_node_output(c, name, edge->FromNodeIndex, edge->FromNodeOutputIndex)) < 0 ||
            (r = connect(c, name, edge->ToNodeIndex, edge->ToNodeInputIndex,
                 (feed){ FROM_NODE, edge->FromNodeIndex, edge->FromNodeOutputIndex })) < 0)
            return r;
        const dml_tensor* from = &c->nodes[edge->FromNodeIndex].op->outputs[edge->FromNodeOutputIndex];
        const dml_tensor* to = &c->nodes[edge->ToNodeIndex].op->inputs[edge->ToNodeInputIndex];
        node_label(c, edge->FromNodeIndex, from_label, sizeof from_label);
        node_label(c, edge->ToNodeIndex, to_label, sizeof to_label);
        if (from->total_bytes != to->total_bytes)
            FAIL(c, "%s: %s joins output %u of %s (TotalTensorSizeInBytes %llu) to input %u of %s "
                "(TotalTensorSizeInBytes %llu); an edge's two tensors must have equal TotalTensorSizeInBytes",
                c->call, name, edge->FromNodeOutputIndex, from_label, (unsigned long long)from->total_bytes,
                edge->ToNodeInputIndex, to_label, (unsigned long long)to->total_bytes);
        if (to->flags & DML_TENSOR_FLAG_OWNED_BY_DML)
            FAIL(c, "%s: %s feeds input %u of %s, which is OWNED_BY_DML; only graph inputs may feed owned tensors",
                c->call, name, edge->ToNodeInputIndex, to_label);
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
        char name[48];
        snprintf(name, sizeof name, "OutputEdges[%u]", e);
        DML_RESULT r;
        if ((r = check_node_index(c, name, "FromNodeIndex", edge->FromNodeIndex)) < 0 ||
            (r = check_node_output(c, name, edge->FromNodeIndex, edge->FromNodeOutputIndex)) < 0)
            return r;
        if (edge->GraphOutputIndex >= d->OutputCount)
            FAIL(c, "%s: %s.GraphOutputIndex = %u; must be less than OutputCount %u", c->call, name,
                edge->GraphOutputIndex, d->OutputCount);
        dml_tensor* slot = &c->outputs[edge->GraphOutputIndex];
        if (slot->rank)
            FAIL(c, "%s: %s connects graph output %u, which another edge already connects (each graph output "
                "takes exactly one edge)", c->call, name, edge->GraphOutputIndex);
        const node* from = &c->nodes[edge->FromNodeIndex];
        node_output* out = &from->outputs[edge->FromNodeOutputIndex];
        *slot = from->op->outputs[edge->FromNodeOutputIndex];
        if (out->graph_output < 0)
            out->graph_output = edge->GraphOutputIndex;
        out->output_edges++;
        c->next_out[e] = out->first_out;
        out->first_out = e;
    }
    for (uint32_t o = 0; o < d->OutputCount; ++o)
        if (!c->outputs[o].rank)
            FAIL(c, "%s: graph output %u has no edge (each graph output takes exactly one edge)", c->call, o);
    return DML_S_OK;
}

static DML_RESULT check_connected(compiler* c)
{
    for (uint32_t n = 0; n < c->desc->NodeCount; ++n) {
        const node* nd = &c->nodes[n];
        for (uint32_t i = 0; i < nd->op->input_count; ++i)
            if (nd->op->inputs[i].rank && nd->feeds[i].kind == FROM_NOTHING) {
                char label[96];
                FAIL(c, "%s: input %u of %s (%s) has no edge (every node input takes exactly one edge)", c->call, i,
                    node_label(c, n, label, sizeof label), node_type(c, n));
            }
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
                FAIL(c, "%s: the intermediate edges form a cycle through %s", c->call,
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

/* v rounded up to a multiple of alignment (a power of two); sets *overflow. */
static uint64_t align_up(uint64_t v, uint64_t alignment, bool* overflow)
{
    uint64_t r;
    *overflow |= __builtin_add_overflow(v, alignment - 1, &r);
    return r & ~(alignment - 1);
}

/* Where consumers read output `output` of node k, materialising it when needed. */
static DML_RESULT materialise(compiler* c, uint32_t k, uint32_t output, dml_source* source)
{
    const node* n = &c->nodes[k];
    node_output* out = &n->outputs[output];
    if (out->graph_output >= 0) {
        *source = (dml_source){ DML_SOURCE_OUTPUT, (uint32_t)out->graph_output, 0 };
        return DML_S_OK;
    }
    if (!out->to_temporary) {
        bool overflow = false;
        uint64_t offset = align_up(c->temporary_size, DML_TEMPORARY_BUFFER_ALIGNMENT, &overflow), end;
        if (overflow || __builtin_add_overflow(offset, n->op->outputs[output].total_bytes, &end))
            FAIL(c, "%s: the temporary resource's size overflows 64 bits", c->call);
        out->to_temporary = true;
        out->temporary_offset = offset;
        c->temporary_size = end;
    }
    *source = (dml_source){ DML_SOURCE_TEMPORARY, 0, out->temporary_offset };
    return DML_S_OK;
}

/* A node input's source when it is read through a pointer (not fused). */
static DML_RESULT read_source(compiler* c, const node* n, dml_operand operand, dml_source* source)
{
    if (operand.kind == DML_OPERAND_NONE) {
        *source = (dml_source){ DML_SOURCE_NONE, 0, 0 };
        return DML_S_OK;
    }
    const feed* f = &n->feeds[operand.index];
    if (f->kind == FROM_INPUT) {
        *source = (dml_source){ DML_SOURCE_INPUT, f->index, 0 };
        return DML_S_OK;
    }
    return materialise(c, f->index, f->output, source);
}

/* The step of a node writing `output` when exactly one does (it then
 * writes every element), else NULL. */
static const planned* sole_writer(const node* n, uint32_t output)
{
    const planned* found = NULL;
    for (uint32_t s = 0; s < n->step_count; ++s)
        if (n->steps[s].output == output) {
            if (found)
                return NULL;
            found = &n->steps[s];
        }
    return found;
}

/* Plans one step of node n: its data input composed with the producing step
 * when exact, else read through a pointer. */
static DML_RESULT plan_step(compiler* c, const node* n, const dml_op_step* step, planned* out)
{
    DML_RESULT r;
    out->plan = step->plan;
    out->output = step->output.index;
    out->ordered = step->ordered;
    if ((r = read_source(c, n, step->lengths, &out->lengths)) < 0 ||
        (r = read_source(c, n, step->input2, &out->input2)) < 0)
        return r;
    if (step->input.kind == DML_OPERAND_INPUT) {
        const feed* f = &n->feeds[step->input.index];
        const node* producer = f->kind == FROM_NODE ? &c->nodes[f->index] : NULL;
        const planned* writer = producer && producer->outputs[f->output].graph_output < 0
            ? sole_writer(producer, f->output)
            : NULL;
        dml_plan composed;
        dml_lengths_from lengths_from;
        if (writer && dml_plan_compose(&out->plan, &writer->plan, &composed, &lengths_from)) {
            out->plan = composed;
            out->input = writer->input;
            if (lengths_from == DML_LENGTHS_PRODUCER) {
                out->lengths = writer->lengths;
                out->input2 = writer->input2;
            } else if (lengths_from == DML_LENGTHS_NONE)
                out->lengths = (dml_source){ DML_SOURCE_NONE, 0, 0 };
            return DML_S_OK;
        }
    }
    return read_source(c, n, step->input, &out->input);
}

static DML_RESULT plan_nodes(compiler* c)
{
    for (uint32_t k = 0; k < c->desc->NodeCount; ++k) {
        node* n = &c->nodes[c->order[k]];
        dml_lowering lowering;
        DML_RESULT r = dml_op_lower(n->op, c->call, &lowering);
        if (r < 0)
            return dml_device_relay(c->device, r);
        n->steps = calloc(lowering.count ? lowering.count : 1, sizeof *n->steps);
        if (!n->steps) {
            dml_lowering_free(&lowering);
            return dml_device_fail(c->device, DML_E_OUTOFMEMORY, "%s: out of host memory", c->call);
        }
        n->step_count = lowering.count;
        for (uint32_t s = 0; s < lowering.count && r >= 0; ++s)
            r = plan_step(c, n, &lowering.steps[s], &n->steps[s]);
        dml_lowering_free(&lowering);
        if (r < 0)
            return r;
    }
    return DML_S_OK;
}

/* The persistent resource: each OWNED_BY_DML input at a 256-byte-aligned
 * offset. TotalTensorSizeInBytes is the host's (any value >= the tensor's
 * minimum), so both the rounding and the sum are checked. */
static DML_RESULT layout_persistent(compiler* c, const dml_tensor* inputs, uint64_t* owned, uint64_t* size)
{
    uint64_t persistent = 0;
    bool overflow = false;
    for (uint32_t i = 0; i < c->desc->InputCount; ++i) {
        owned[i] = DML_NOT_OWNED;
        if (inputs[i].flags & DML_TENSOR_FLAG_OWNED_BY_DML) {
            owned[i] = persistent;
            overflow |= __builtin_add_overflow(persistent,
                align_up(inputs[i].total_bytes, DML_PERSISTENT_BUFFER_ALIGNMENT, &overflow), &persistent);
        }
    }
    if (overflow) {
        char owned_list[160] = "";
        size_t used = 0;
        for (uint32_t i = 0; i < c->desc->InputCount && used < sizeof owned_list; ++i)
            if (inputs[i].flags & DML_TENSOR_FLAG_OWNED_BY_DML)
                used += (size_t)snprintf(owned_list + used, sizeof owned_list - used, "%sinput %u (%llu bytes)",
                    used ? ", " : "", i, (unsigned long long)inputs[i].total_bytes);
        FAIL(c, "%s%s%s%s: the OWNED_BY_DML inputs' TotalTensorSizeInBytes, each rounded up to %d bytes, add up to "
            "more than 2^64 - 1 bytes of persistent resource: %s", c->call, c->single ? "(" : "",
            c->single ? c->single->op->entry->name : "", c->single ? ")" : "", DML_PERSISTENT_BUFFER_ALIGNMENT,
            owned_list);
    }
    *size = persistent;
    return DML_S_OK;
}

/* Copies of a node's steps writing `output` into target (step NULL: counts them). */
static uint64_t copy_steps(const node* n, uint32_t output, dml_source target, dml_step* step)
{
    uint64_t copied = 0;
    for (uint32_t s = 0; s < n->step_count; ++s) {
        const planned* p = &n->steps[s];
        if (p->output != output)
            continue;
        if (step)
            step[copied] = (dml_step){ p->plan, NULL, p->input, p->lengths, target, !p->ordered, p->input2,
                p->ordered && copied > 0 };
        copied++;
    }
    return copied;
}

/* A node's steps writing `output`, once per place the output goes. */
static uint64_t emit_output(const compiler* c, const node* n, uint32_t output, dml_step* step)
{
    const node_output* out = &n->outputs[output];
    uint64_t emitted = 0;
    if (out->to_temporary)
        emitted += copy_steps(n, output, (dml_source){ DML_SOURCE_TEMPORARY, 0, out->temporary_offset }, step);
    for (uint32_t e = out->first_out; e != UINT32_MAX; e = c->next_out[e]) {
        const DML_OUTPUT_GRAPH_EDGE_DESC* edge = c->desc->OutputEdges[e].Desc;
        emitted += copy_steps(n, output, (dml_source){ DML_SOURCE_OUTPUT, edge->GraphOutputIndex, 0 },
            step ? step + emitted : NULL);
    }
    return emitted;
}

/* Every materialised output's steps, in dependency order. The steps of one
 * node are independent of each other unless ordered (ops/op.h: they write
 * disjoint parts of its outputs and read only its inputs), so each after the
 * node's first that is not ordered is marked with_previous (copy_steps). */
static uint64_t emit_steps(const compiler* c, dml_step* step)
{
    uint64_t count = 0;
    for (uint32_t k = 0; k < c->desc->NodeCount; ++k) {
        const node* n = &c->nodes[c->order[k]];
        const uint64_t first = count;
        for (uint32_t j = 0; j < n->op->output_count; ++j)
            count += emit_output(c, n, j, step ? step + count : NULL);
        if (step && count > first)
            step[first].with_previous = false;
    }
    return count;
}

/* Whether two tensors have one layout: the same bytes at the same places. */
static bool same_layout(const dml_tensor* a, const dml_tensor* b)
{
    if (a->data_type != b->data_type || a->rank != b->rank)
        return false;
    for (uint32_t i = 0; i < a->rank; ++i)
        if (a->sizes[i] != b->sizes[i] || a->strides[i] != b->strides[i])
            return false;
    return true;
}

/* dml_compiled.in_place_input: a single operator that updates its input in
 * place, input 0 (not owned by the runtime) laid out as output 0. */
static int32_t in_place_input(const compiler* c, const dml_compiled* compiled)
{
    if (!c->single || !c->single->op->entry->in_place || compiled->input_count == 0 ||
        compiled->output_count == 0 || (compiled->inputs[0].flags & DML_TENSOR_FLAG_OWNED_BY_DML))
        return -1;
    return same_layout(&compiled->inputs[0], &compiled->outputs[0]) ? 0 : -1;
}

/* One block: steps, inputs, outputs, owned offsets. */
static DML_RESULT build(compiler* c, dml_compiled* compiled)
{
    const DML_GRAPH_DESC* d = c->desc;
    uint64_t steps = emit_steps(c, NULL);
    if (steps > UINT32_MAX)
        FAIL(c, "%s: the graph compiles to %llu steps, more than this runtime's limit of 2^32 - 1", c->call,
            (unsigned long long)steps);
    size_t size = (size_t)d->InputCount * (sizeof(dml_tensor) + sizeof(uint64_t)) +
        (size_t)d->OutputCount * sizeof(dml_tensor) + (size_t)steps * sizeof(dml_step);
    unsigned char* block = calloc(1, size ? size : 1);
    if (!block)
        return dml_device_fail(c->device, DML_E_OUTOFMEMORY, "%s: out of host memory", c->call);
    compiled->block = block;
    dml_step* step = (dml_step*)(void*)block;
    dml_tensor* inputs = (dml_tensor*)(void*)(step + steps);
    dml_tensor* outputs = inputs + d->InputCount;
    uint64_t* owned = (uint64_t*)(void*)(outputs + d->OutputCount);
    memcpy(inputs, c->inputs, (size_t)d->InputCount * sizeof *inputs);
    memcpy(outputs, c->outputs, (size_t)d->OutputCount * sizeof *outputs);
    DML_RESULT r = layout_persistent(c, inputs, owned, &compiled->persistent_size);
    if (r < 0)
        return r;
    emit_steps(c, step);
    compiled->input_count = d->InputCount;
    compiled->output_count = d->OutputCount;
    compiled->inputs = inputs;
    compiled->outputs = outputs;
    compiled->owned_offsets = owned;
    compiled->steps = step;
    compiled->step_count = (uint32_t)steps;
    compiled->temporary_size = c->temporary_size;
    compiled->in_place_input = in_place_input(c, compiled);
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
        c->call, c->desc->NodeCount, compiled->step_count, (unsigned long long)compiled->temporary_size,
        (unsigned long long)compiled->persistent_size);
    dml_emit_info(line);
    for (uint32_t k = 0; k < compiled->step_count; ++k) {
        const dml_step* s = &compiled->steps[k];
        const dml_plan* p = &s->plan;
        int n = snprintf(line, sizeof line, "  step %u: %s %s -> %s", k, dml_plan_kind_name(p->kind),
            source_name(s->input, a, sizeof a), source_name(s->output, b, sizeof b));
        if (p->kind == DML_PLAN_REVERSE_SUBSEQUENCES)
            n += snprintf(line + n, sizeof line - (size_t)n, " (lengths %s, axis %d clamp %llu)",
                source_name(s->lengths, d, sizeof d), p->axis, (unsigned long long)p->axis_size);
        else if (dml_plan_reads_lengths(p->kind))
            n += snprintf(line + n, sizeof line - (size_t)n, " (%s %s)",
                p->kind == DML_PLAN_SELECT ? "condition" : "indices", source_name(s->lengths, d, sizeof d));
        n += snprintf(line + n, sizeof line - (size_t)n, ", %u-byte elements, offsets in %lld out %lld, sizes/in/out:",
            p->element_size, (long long)p->in_offset, (long long)p->out_offset);
        for (uint32_t i = 0; i < p->rank && n < (int)sizeof line; ++i)
            n += snprintf(line + n, sizeof line - (size_t)n, " %llu/%lld/%lld", (unsigned long long)p->sizes[i],
                (long long)p->in_strides[i], (long long)p->out_strides[i]);
        dml_emit_info(line);
    }
}

static DML_RESULT compile(compiler* c, dml_compiled** out)
{
    DML_RESULT r;
    if ((r = validate(c)) < 0 || (r = plan_nodes(c)) < 0)
        return r;
    dml_compiled* compiled = dml_object_new(&dml_compiled_class, c->device);
    if (!compiled)
        return dml_device_fail(c->device, DML_E_OUTOFMEMORY, "%s: out of host memory", c->call);
    if (c->single) {
        dml_object_add_ref(c->single);
        compiled->op = c->single;
    }
    if ((r = build(c, compiled)) < 0 || (r = dml_compiled_compile_steps(c->device, compiled, c->call)) < 0) {
        dml_object_release(compiled);
        return r;
    }
    if (c->device->debug && !c->single)
        describe(c, compiled);
    *out = compiled;
    return DML_S_OK;
}

/* Allocates the compiler's arrays for desc (counts already capped), compiles,
 * frees them. */
static DML_RESULT run_compiler(dml_device* device, const DML_GRAPH_DESC* desc, const char* call,
    dml_operator* single, dml_compiled** out)
{
    compiler c;
    memset(&c, 0, sizeof c);
    c.device = device;
    c.call = call;
    c.single = single;
    c.desc = desc;
    c.nodes = calloc(desc->NodeCount, sizeof *c.nodes);
    c.first_mid = malloc(desc->NodeCount * sizeof *c.first_mid);
    /* Edge counts are checked against the cap before any edge is read. */
    uint32_t mids = desc->IntermediateEdgeCount <= DML_GRAPH_MAX_COUNT ? desc->IntermediateEdgeCount : 0;
    uint32_t outs = desc->OutputEdgeCount <= DML_GRAPH_MAX_COUNT ? desc->OutputEdgeCount : 0;
    c.next_mid = malloc((mids ? mids : 1) * sizeof *c.next_mid);
    c.next_out = malloc((outs ? outs : 1) * sizeof *c.next_out);
    c.order = calloc(desc->NodeCount, sizeof *c.order);
    c.inputs = calloc(desc->InputCount ? desc->InputCount : 1, sizeof *c.inputs);
    c.outputs = calloc(desc->OutputCount, sizeof *c.outputs);
    DML_RESULT r;
    if (!c.nodes || !c.order || !c.inputs || !c.outputs || !c.first_mid || !c.next_mid || !c.next_out) {
        r = dml_device_fail(device, DML_E_OUTOFMEMORY, "%s: out of host memory", call);
    } else {
        memset(c.first_mid, 0xFF, desc->NodeCount * sizeof *c.first_mid);
        r = compile(&c, out);
    }
    for (uint32_t n = 0; c.nodes && n < desc->NodeCount; ++n)
        free(c.nodes[n].steps);
    free(c.feeds);
    free(c.node_outputs);
    free(c.first_mid);
    free(c.next_mid);
    free(c.next_out);
    free(c.nodes);
    free(c.order);
    free(c.inputs);
    free(c.outputs);
    return r;
}

DML_RESULT dml_compile_graph(DMLDevice handle, const DML_GRAPH_DESC* desc, DML_EXECUTION_FLAGS flags,
    DMLCompiledOperator* out)
{
    static const char call[] = "dmlDeviceCompileGraph";
    dml_device* device;
    DML_RESULT r = dml_device_open(handle, call, &device);
    if (r < 0)
        return r;
    if (!desc || !out)
        return dml_device_fail(device, DML_E_INVALIDARG, "%s: %s is NULL", call, desc ? "compiled" : "desc");
    if ((uint32_t)flags & ~DML_EXECUTION_FLAGS_ALL)
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
    dml_compiled* compiled;
    if ((r = run_compiler(device, desc, call, NULL, &compiled)) < 0)
        return r;
    *out = (DMLCompiledOperator)compiled;
    return DML_S_OK;
}

DML_RESULT dml_compile_single(dml_device* device, dml_operator* op, const char* call, dml_compiled** out)
{
    const dml_op* o = op->op;
    uint32_t inputs = o->input_count, outputs = o->output_count;
    DML_INPUT_GRAPH_EDGE_DESC* in = calloc(inputs ? inputs : 1, sizeof *in);
    DML_OUTPUT_GRAPH_EDGE_DESC* to = calloc(outputs, sizeof *to);
    DML_GRAPH_EDGE_DESC* edges = calloc((size_t)inputs + outputs, sizeof *edges);
    DML_RESULT r;
    if (!in || !to || !edges) {
        r = dml_device_fail(device, DML_E_OUTOFMEMORY, "%s(%s): out of host memory", call, o->entry->name);
    } else {
        /* Graph input i feeds node input i (when the operator uses it); node
         * output j is graph output j. */
        uint32_t input_edges = 0;
        for (uint32_t i = 0; i < inputs; ++i)
            if (o->inputs[i].rank) {
                in[input_edges] = (DML_INPUT_GRAPH_EDGE_DESC){ i, 0, i, NULL };
                edges[input_edges] = (DML_GRAPH_EDGE_DESC){ DML_GRAPH_EDGE_TYPE_INPUT, &in[input_edges] };
                input_edges++;
            }
        for (uint32_t j = 0; j < outputs; ++j) {
            to[j] = (DML_OUTPUT_GRAPH_EDGE_DESC){ 0, j, j, NULL };
            edges[input_edges + j] = (DML_GRAPH_EDGE_DESC){ DML_GRAPH_EDGE_TYPE_OUTPUT, &to[j] };
        }
        DML_OPERATOR_GRAPH_NODE_DESC node_desc = { (DMLOperator)op, NULL };
        DML_GRAPH_NODE_DESC graph_node = { DML_GRAPH_NODE_TYPE_OPERATOR, &node_desc };
        DML_GRAPH_DESC graph = { inputs, outputs, 1, &graph_node, input_edges, edges, outputs, edges + input_edges, 0,
            NULL };
        r = run_compiler(device, &graph, call, op, out);
    }
    free(in);
    free(to);
    free(edges);
    return r;
}

/*
 * op.h — the operator table's interface: what one operator is to the core.
 *
 * Each operator lives in one file of src/core/ops/ and exports one
 * dml_op_entry (listed in ops/table.c). Its three steps are the whole life of
 * a DML_OPERATOR_DESC here:
 *
 *   count  how many tensors the desc names (fixed, or read from the desc:
 *          JOIN's InputCount, SPLIT's OutputCount);
 *   parse  validates the desc (every rule, with a message naming the call,
 *          field and rule) into the generic dml_op: deep-copied tensors plus
 *          the operator's own parameter struct;
 *   lower  turns a validated dml_op into steps: plans (plan.h, built with
 *          plan_build.h) and which of the operator's tensors feeds each plan
 *          argument.
 *
 * CompileOperator and CompileGraph take the same path (graph.c): a single
 * operator is a one-node graph, so binding slots, persistent and temporary
 * layouts and fusion never depend on the operator type.
 */
#ifndef DML_CORE_OPS_OP_H
#define DML_CORE_OPS_OP_H

#include <stddef.h>

#include "../error.h"
#include "../plan_build.h"
#include "../tensor.h"

/* Caps the tensors one operator names (JOIN's inputs, SPLIT's outputs), so a
 * hostile count cannot make the runtime allocate without bound. */
#define DML_OP_MAX_TENSORS 65536u

/* A validated operator: the desc's tensors, deep-copied, and the operator's
 * parameters in its own struct (params, entry->params_size bytes). One
 * allocation; immutable once parsed. */
typedef struct dml_op {
    const struct dml_op_entry* entry;
    uint32_t input_count, output_count;
    dml_tensor* inputs;  /* rank 0: an optional input the desc left NULL */
    dml_tensor* outputs;
    void* params;
} dml_op;

/* Which of the operator's tensors a plan argument reads or writes. */
typedef enum dml_operand_kind {
    DML_OPERAND_NONE = 0,
    DML_OPERAND_INPUT = 1,
    DML_OPERAND_OUTPUT = 2,
} dml_operand_kind;

typedef struct dml_operand {
    uint32_t kind; /* dml_operand_kind */
    uint32_t index;
} dml_operand;

#define DML_OPERAND_NOTHING ((dml_operand){ DML_OPERAND_NONE, 0 })
#define DML_OPERAND_IN(i) ((dml_operand){ DML_OPERAND_INPUT, (i) })
#define DML_OPERAND_OUT(i) ((dml_operand){ DML_OPERAND_OUTPUT, (i) })

/* One plan of a lowered operator: the plan and where each of its pointers
 * comes from (the fields of dml_plan_args). */
typedef struct dml_op_step {
    dml_plan plan;
    dml_operand input, lengths, output;
    dml_operand input2; /* SELECT, ONE_HOT */
    /* Runs after the steps before it have finished (a scatter's updates
     * after the copy of its input); else independent of them. */
    bool ordered;
} dml_op_step;

/* The steps an operator lowers to, in execution order. Unless marked
 * ordered, a step is independent of those before it: each writes its own
 * elements of the operator's outputs and reads only its inputs, so a
 * backend may run them concurrently (dml_backend.queue_execute_group). */
typedef struct dml_lowering {
    char call[96]; /* the compiling call and operator, for messages: "dmlDeviceCompileGraph(TILE)" */
    dml_op_step* steps;
    uint32_t count, capacity;
} dml_lowering;

typedef struct dml_op_entry {
    DML_OPERATOR_TYPE type;
    const char* name;   /* DirectML's name without the prefix: "SLICE1" */
    size_t params_size; /* the operator's parameter struct */
    /* Tensor counts: fixed when count is NULL, else read from the desc
     * (validated there: >= 1, <= DML_OP_MAX_TENSORS). */
    uint32_t inputs, outputs;
    DML_RESULT (*count)(const void* desc, uint32_t* inputs, uint32_t* outputs);
    /* Validates desc into op, whose tensor arrays and params are allocated
     * and zeroed. DML_E_INVALIDARG with the message set on a broken rule. */
    DML_RESULT (*parse)(const void* desc, dml_op* op);
    /* Appends the operator's steps (dml_lowering_add). Fails only when out
     * of memory or, with DML_E_NOTIMPL, for a shape no plan kind holds. */
    DML_RESULT (*lower)(const dml_op* op, dml_lowering* lowering);
    /* Output 0 may be bound to exactly input 0's range when the two tensors
     * have one layout: the operator updates its input in place (the
     * scatters; their copy step is then skipped at dispatch). */
    bool in_place;
} dml_op_entry;

/* ---- the table (ops/table.c) ------------------------------------------- */

/* The entry of an implemented operator, or NULL. */
const dml_op_entry* dml_op_find(DML_OPERATOR_TYPE type);

/* "SLICE1" for implemented operators, "unsupported operator" for others. */
const char* dml_operator_type_name(DML_OPERATOR_TYPE type);

/* DML_E_NOTIMPL for a DirectML operator this runtime lacks, the message
 * listing the implemented ones. */
DML_RESULT dml_op_not_implemented(const char* call, DML_OPERATOR_TYPE type);

/* Validates desc into a new dml_op (dml_op_destroy frees it).
 * DML_E_INVALIDARG for a broken rule or an unknown type, DML_E_NOTIMPL for a
 * DirectML operator this runtime lacks (the message lists what it has). */
DML_RESULT dml_op_create(const DML_OPERATOR_DESC* desc, dml_op** op);
void dml_op_destroy(dml_op* op);

/* The operator's steps, compiled by call ("dmlDeviceCompileOperator");
 * *lowering is empty (and needs no freeing) on failure. */
DML_RESULT dml_op_lower(const dml_op* op, const char* call, dml_lowering* lowering);
void dml_lowering_free(dml_lowering* lowering);

/* For operator files: appends one step. */
DML_RESULT dml_lowering_add(dml_lowering* lowering, const dml_plan* plan, dml_operand input, dml_operand lengths,
    dml_operand output);
DML_RESULT dml_lowering_add_step(dml_lowering* lowering, const dml_op_step* step);

/* For operator files: appends the plans of a gather described with any
 * number of dimensions (one plan, or several when more than
 * DML_PLAN_MAX_RANK remain after merging: plan_build.h). DML_E_NOTIMPL,
 * naming the call, when that takes more than DML_OP_MAX_PEELED_PLANS. */
#define DML_OP_MAX_PEELED_PLANS 4096u
DML_RESULT dml_lowering_add_gather(dml_lowering* lowering, const dml_plan_builder* builder, dml_operand input,
    dml_operand lengths, dml_operand output);

/* The same for any plan kind: the builder's plans, each with the operands
 * (and ordered flag) of `operands` (whose plan is ignored). */
DML_RESULT dml_lowering_add_built(dml_lowering* lowering, const dml_plan_builder* builder, dml_op_step operands);

/* For tools and tests that run one plan: validates and lowers desc, which
 * must lower to exactly one step (else DML_E_NOTIMPL). */
DML_RESULT dml_plan_from_desc(const DML_OPERATOR_DESC* desc, dml_plan* plan);

/* ---- helpers for operator files ---------------------------------------- */

/* Validates one tensor desc of the operator into *tensor (ops/common.c):
 * call is "dmlDeviceCreateOperator(SLICE1)", field "InputTensor". */
DML_RESULT dml_op_tensor(const char* call, const char* field, bool is_output, const DML_TENSOR_DESC* desc,
    dml_tensor* tensor);

/* The element-wise contract of two tensors: equal rank, data type (when
 * same_type) and sizes; messages name the fields. */
DML_RESULT dml_op_check_same_shape(const char* call, const char* a_field, const dml_tensor* a, const char* b_field,
    const dml_tensor* b, bool same_type);

/* ---- helpers for the data-dependent operators (ops/indices.c) ---------- */

/* IndicesTensor's type rule: INT32, INT64, UINT32 or UINT64. */
DML_RESULT dml_op_check_indices(const char* call, const char* field, const dml_tensor* indices);

/* GATHER_ELEMENTS' and SCATTER_ELEMENTS' rule: Axis below the rank, the
 * indices' sizes the input's on every other dimension. */
DML_RESULT dml_op_check_elements_axis(const char* call, uint32_t axis, const dml_tensor* data,
    const dml_tensor* indices);

/* Sets how the plan reads indices (element size, signedness). */
void dml_op_set_indices(dml_plan_builder* builder, const dml_tensor* indices);

/* A shape an operator computes from its tensors (GATHER's output, GATHER_ND's
 * output, SCATTER_ND's updates), outermost first: each dimension's size and
 * the strides the other tensors walk along it (dml_plan_dim). */
#define DML_OP_SHAPE_MAX (2 * DML_TENSOR_DIMENSION_COUNT_MAX1)
typedef struct dml_op_shape {
    uint32_t count;
    dml_plan_dim dims[DML_OP_SHAPE_MAX];
} dml_op_shape;

/* Appends a dimension of `size` with dim's strides; false when full. */
bool dml_op_shape_add(dml_op_shape* shape, uint32_t size, dml_plan_dim dim);

/* Checks tensor's sizes are shape's, right-aligned (DirectML's rule for
 * computed shapes: missing dimensions are leading 1s, and leading extras of
 * either must be 1); strides[i] receives the tensor's stride along shape
 * dimension i (0 where cropped). rule names the shape in the message. */
DML_RESULT dml_op_align_shape(const char* call, const char* field, const dml_tensor* tensor, const char* rule,
    const dml_op_shape* shape, int64_t* strides);

/* Checks the dimensions before the last `count` of tensor are 1. */
DML_RESULT dml_op_check_leading_ones(const char* call, const char* field, const dml_tensor* tensor,
    const char* count_field, uint32_t count);

/* GATHER_ND's and SCATTER_ND's fields: the data tensor (the gather's input,
 * the scatter's output) and the indices, whose last dimension holds tuples. */
typedef struct dml_nd_fields {
    const char* data;    /* "InputTensor" */
    const char* indices; /* "IndicesTensor" */
    uint32_t data_dims, index_dims, batch_dims; /* InputDimensionCount, IndicesDimensionCount, BatchDimensionCount */
} dml_nd_fields;

typedef struct dml_nd_layout {
    uint32_t data_first, indices_first; /* first meaningful dimension of each */
    uint32_t batch, tuple;              /* batch dimensions; components of an index tuple */
    /* The addressed shape (the gather's output, the scatter's updates): per
     * dimension, in_stride is the data's stride, len_stride the indices'. */
    dml_op_shape shape;
} dml_nd_layout;

/* Validates the ND fields of data and indices (equal ranks, counts in
 * range, leading 1s, batch sizes equal, tuple within the data's
 * dimensions) into nd. */
DML_RESULT dml_op_nd_layout(const char* call, const dml_nd_fields* fields, const dml_tensor* data,
    const dml_tensor* indices, dml_nd_layout* nd);

/* Sets the plan's index tuple: nd->tuple components into the data's
 * dimensions after the batch ones, index_strides the data's strides. */
void dml_op_set_tuple(dml_plan_builder* builder, const dml_nd_layout* nd, const dml_tensor* data,
    const dml_tensor* indices);

#define DML_OP_FAIL(...) return dml_set_error(DML_E_INVALIDARG, __VA_ARGS__)

#endif /* DML_CORE_OPS_OP_H */

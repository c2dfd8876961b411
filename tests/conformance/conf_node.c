/* conf_node.c — see conf_node.h. */
#include "conf_node.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_INDEX_VALUES 32 /* starts, ends, axes, steps, repeats, shape, pads: at most 2 x 16 dimensions */

typedef struct node_call {
    conf_device* dev;
    const tp_model* model;
    const tp_tensor* const* inputs;
    uint32_t input_count;
    uint32_t output_count;
    conf_node_result* result;
} node_call;

static int say(node_call* c, int code, const char* fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->result->message, sizeof c->result->message, fmt, ap);
    va_end(ap);
    return code;
}

static const tp_tensor* input(const node_call* c, uint32_t k)
{
    return k < c->input_count ? c->inputs[k] : NULL;
}

static int64_t attr_int(const node_call* c, const char* name, int64_t fallback)
{
    const tp_attr* a = tp_model_attr(c->model, name);
    return a && a->has_i ? a->i : fallback;
}

static const char* attr_string(const node_call* c, const char* name)
{
    const tp_attr* a = tp_model_attr(c->model, name);
    return a && a->has_s ? a->s : NULL;
}

/* An integer tensor's values (shape, repeats, starts...); OTD_INVALID when it
 * is not one of ONNX's integer index types or holds more than cap. */
static int index_values(node_call* c, const tp_tensor* t, const char* what, int64_t* out, uint64_t cap,
                        uint64_t* count)
{
    if (t->data_type != TP_INT64 && t->data_type != TP_INT32)
        return say(c, OTD_INVALID, "%s must be INT32 or INT64 (ONNX type %d)", what, t->data_type);
    if (t->count > cap)
        return say(c, OTD_UNREPRESENTABLE, "%s: %llu values, the mapping takes %llu", what,
                   (unsigned long long)t->count, (unsigned long long)cap);
    for (uint64_t i = 0; i < t->count; ++i)
        out[i] = tp_get_i64(t, i);
    *count = t->count;
    return OTD_OK;
}

/* Output k: its ONNX type and shape; data allocated when it has elements. */
static int set_output(node_call* c, uint32_t k, int32_t type, uint32_t rank, const uint32_t* sizes)
{
    tp_tensor* t = &c->result->outputs[k];
    memset(t, 0, sizeof *t);
    t->data_type = type;
    t->elem_size = tp_elem_size(type);
    t->rank = rank;
    t->count = 1;
    for (uint32_t i = 0; i < rank; ++i) {
        t->dims[i] = sizes[i];
        t->count *= sizes[i]; /* each < 2^32, at most 8 of them: the product of a real tensor's sizes */
    }
    if (k + 1 > c->result->output_count)
        c->result->output_count = k + 1;
    if (t->count == 0)
        return OTD_OK;
    t->data = calloc(t->count, t->elem_size);
    return t->data ? OTD_OK : say(c, CONF_NODE_DML_FAILED, "out of host memory for output %u", k);
}

static int dml_type(node_call* c, int32_t onnx_type, DML_TENSOR_DATA_TYPE* type)
{
    return otd_map_dtype(onnx_type, type) == OTD_OK
               ? OTD_OK
               : say(c, OTD_UNREPRESENTABLE, "ONNX type %d has no DirectML type", onnx_type);
}

static int dispatched(node_call* c, DML_RESULT dr)
{
    if (DML_SUCCEEDED(dr))
        return OTD_OK;
    return say(c, dr == DML_E_NOTIMPL ? CONF_NODE_NOT_EXECUTED : CONF_NODE_DML_FAILED, "0x%08x %s", (unsigned)dr,
               c->dev->message);
}

/* The mapping's verdict: OTD_OK goes on; anything else is the node's result,
 * with the shape set first for OTD_EMPTY. */
static int mapped(node_call* c, int r, const char* err, int32_t type, uint32_t rank, const uint32_t* sizes)
{
    if (r == OTD_EMPTY) {
        int s = set_output(c, 0, type, rank, sizes);
        return s == OTD_OK ? say(c, OTD_EMPTY, "the output is empty (DirectML has no zero-size tensors)") : s;
    }
    return r == OTD_OK ? OTD_OK : say(c, r, "%s", err);
}

static int run_reverse_sequence(node_call* c, const tp_tensor* x, DML_TENSOR_DATA_TYPE type, char* err, size_t n)
{
    const tp_tensor* lens = input(c, 1);
    if (!lens || lens->data_type != TP_INT64)
        return say(c, OTD_INVALID, "ReverseSequence: sequence_lens must be an INT64 tensor");
    otd_reverse_sequence m;
    int r = otd_map_reverse_sequence(x->rank, x->dims, attr_int(c, "time_axis", 0), attr_int(c, "batch_axis", 1),
                                     lens->count, 1, &m, err, n);
    if ((r = mapped(c, r, err, x->data_type, 0, NULL)) != OTD_OK)
        return r;
    if ((r = set_output(c, 0, x->data_type, m.rank, m.sizes)) != OTD_OK)
        return r;
    return dispatched(c, conf_reverse_sequence(c->dev, type, &m, x->data, lens->data, c->result->outputs[0].data));
}

static int run_slice(node_call* c, const tp_tensor* x, DML_TENSOR_DATA_TYPE type, char* err, size_t n)
{
    int64_t values[4][MAX_INDEX_VALUES];
    uint64_t counts[4] = { 0, 0, 0, 0 };
    int present[4] = { 1, 1, 0, 0 };
    static const char* const names[4] = { "starts", "ends", "axes", "steps" };
    int r;
    for (uint32_t k = 0; k < 4; ++k) {
        if (c->model->opset >= 10) {
            const tp_tensor* t = input(c, 1 + k);
            present[k] = t != NULL;
            if (t && (r = index_values(c, t, names[k], values[k], MAX_INDEX_VALUES, &counts[k])) != OTD_OK)
                return r;
        } else if (k < 3) { /* Slice-1: attributes, steps all 1 */
            const tp_attr* a = tp_model_attr(c->model, names[k]);
            present[k] = a != NULL;
            if (a) {
                counts[k] = a->ints_count;
                memcpy(values[k], a->ints, a->ints_count * sizeof(int64_t));
            }
        }
        if (k < 2 && !present[k])
            return say(c, OTD_INVALID, "Slice: no %s", names[k]);
        if (present[k] && counts[k] != counts[0])
            return say(c, OTD_INVALID, "Slice: %s has %llu values, starts %llu", names[k],
                       (unsigned long long)counts[k], (unsigned long long)counts[0]);
    }
    otd_slice m;
    r = otd_map_slice(x->rank, x->dims, (uint32_t)counts[0], values[0], values[1], present[2] ? values[2] : NULL,
                      present[3] ? values[3] : NULL, &m, err, n);
    if ((r = mapped(c, r, err, x->data_type, m.rank, m.output_sizes)) != OTD_OK)
        return r;
    if ((r = set_output(c, 0, x->data_type, m.rank, m.output_sizes)) != OTD_OK)
        return r;
    return dispatched(c, conf_slice1(c->dev, type, &m, x->data, c->result->outputs[0].data));
}

static int run_tile(node_call* c, const tp_tensor* x, DML_TENSOR_DATA_TYPE type, char* err, size_t n)
{
    int64_t repeats[MAX_INDEX_VALUES];
    uint64_t count;
    const tp_tensor* t = input(c, 1);
    if (!t || t->data_type != TP_INT64)
        return say(c, OTD_INVALID, "Tile: repeats must be an INT64 tensor");
    int r = index_values(c, t, "repeats", repeats, MAX_INDEX_VALUES, &count);
    if (r != OTD_OK)
        return r;
    otd_tile m;
    r = otd_map_tile(x->rank, x->dims, count, repeats, &m, err, n);
    if ((r = mapped(c, r, err, x->data_type, m.rank, m.output_sizes)) != OTD_OK)
        return r;
    if ((r = set_output(c, 0, x->data_type, m.rank, m.output_sizes)) != OTD_OK)
        return r;
    return dispatched(c, conf_tile(c->dev, type, &m, x->data, c->result->outputs[0].data));
}

static int run_pad(node_call* c, const tp_tensor* x, DML_TENSOR_DATA_TYPE type, char* err, size_t n)
{
    int64_t pads[MAX_INDEX_VALUES], axes[MAX_INDEX_VALUES];
    uint64_t pads_count = 0, axes_count = 0;
    const tp_tensor* value = NULL;
    int r;
    if (c->model->opset >= 11) {
        const tp_tensor* t = input(c, 1);
        if (!t)
            return say(c, OTD_INVALID, "Pad: no pads");
        if ((r = index_values(c, t, "pads", pads, MAX_INDEX_VALUES, &pads_count)) != OTD_OK)
            return r;
        value = input(c, 2);
        if (value && value->count == 0)
            value = NULL; /* an empty constant_value is the default, 0 */
        if (value && value->data_type != x->data_type)
            return say(c, OTD_INVALID, "Pad: constant_value's type %d is not the data's %d", value->data_type,
                       x->data_type);
        const tp_tensor* a = input(c, 3);
        if (a && (r = index_values(c, a, "axes", axes, MAX_INDEX_VALUES, &axes_count)) != OTD_OK)
            return r;
    } else { /* Pad-2: attributes */
        const tp_attr* a = tp_model_attr(c->model, "pads");
        if (!a)
            return say(c, OTD_INVALID, "Pad-2: no pads attribute");
        pads_count = a->ints_count;
        memcpy(pads, a->ints, pads_count * sizeof *pads);
    }
    otd_pad m;
    r = otd_map_pad(x->rank, x->dims, pads_count, pads, axes_count, input(c, 3) ? axes : NULL,
                    attr_string(c, "mode"), &m, err, n);
    if ((r = mapped(c, r, err, x->data_type, m.rank, m.output_sizes)) != OTD_OK)
        return r;
    if ((r = set_output(c, 0, x->data_type, m.rank, m.output_sizes)) != OTD_OK)
        return r;
    return dispatched(c, conf_pad(c->dev, type, &m, x->data, value ? value->data : NULL, c->result->outputs[0].data));
}

static int run_depth_space(node_call* c, const tp_tensor* x, DML_TENSOR_DATA_TYPE type, char* err, size_t n)
{
    const tp_attr* block = tp_model_attr(c->model, "blocksize");
    if (!block || !block->has_i)
        return say(c, OTD_INVALID, "%s: no blocksize attribute", c->model->op_type);
    otd_depth_space m;
    int r = otd_map_depth_space(!strcmp(c->model->op_type, "DepthToSpace"), x->rank, x->dims, block->i,
                                attr_string(c, "mode"), &m, err, n);
    if ((r = mapped(c, r, err, x->data_type, 4, m.output_sizes)) != OTD_OK)
        return r;
    if ((r = set_output(c, 0, x->data_type, 4, m.output_sizes)) != OTD_OK)
        return r;
    return dispatched(c, conf_depth_space(c->dev, type, &m, x->data, c->result->outputs[0].data));
}

static int run_concat(node_call* c, const tp_tensor* x, DML_TENSOR_DATA_TYPE type, char* err, size_t n)
{
    uint32_t ranks[OTD_MAX_PARTS];
    const int64_t* dims[OTD_MAX_PARTS];
    const void* data[OTD_MAX_PARTS];
    if (c->input_count > OTD_MAX_PARTS)
        return say(c, OTD_UNREPRESENTABLE, "Concat: %u inputs, the mapping takes %u", c->input_count, OTD_MAX_PARTS);
    for (uint32_t k = 0; k < c->input_count; ++k) {
        const tp_tensor* t = input(c, k);
        if (!t || t->data_type != x->data_type)
            return say(c, OTD_INVALID, "Concat: input %u is missing or not of input 0's type", k);
        ranks[k] = t->rank;
        dims[k] = t->dims;
        data[k] = t->data;
    }
    const tp_attr* axis = tp_model_attr(c->model, "axis");
    if (!axis && c->model->opset >= 4)
        return say(c, OTD_INVALID, "Concat-%lld needs an axis", (long long)c->model->opset);
    otd_join_split m;
    int r = otd_map_concat(c->input_count, ranks, dims, axis ? axis->i : 1 /* Concat-1's default */, &m, err, n);
    if ((r = mapped(c, r, err, x->data_type, m.rank, m.whole_sizes)) != OTD_OK)
        return r;
    if ((r = set_output(c, 0, x->data_type, m.rank, m.whole_sizes)) != OTD_OK)
        return r;
    return dispatched(c, conf_join(c->dev, type, &m, data, c->result->outputs[0].data));
}

static int run_split(node_call* c, const tp_tensor* x, DML_TENSOR_DATA_TYPE type, char* err, size_t n)
{
    int64_t split[OTD_MAX_PARTS];
    uint64_t split_count = 0;
    int have_split = 0, r;
    const tp_attr* sa = tp_model_attr(c->model, "split");
    const tp_tensor* st = input(c, 1);
    if (sa) {
        if (sa->ints_count > OTD_MAX_PARTS)
            return say(c, OTD_UNREPRESENTABLE, "Split: %u parts", sa->ints_count);
        split_count = sa->ints_count;
        memcpy(split, sa->ints, split_count * sizeof *split);
        have_split = 1;
    } else if (st) {
        if (st->data_type != TP_INT64)
            return say(c, OTD_INVALID, "Split: split must be an INT64 tensor");
        if ((r = index_values(c, st, "split", split, OTD_MAX_PARTS, &split_count)) != OTD_OK)
            return r;
        have_split = 1;
    }
    if (c->output_count > OTD_MAX_PARTS)
        return say(c, OTD_UNREPRESENTABLE, "Split: %u outputs, the mapping takes %u", c->output_count, OTD_MAX_PARTS);
    otd_join_split m;
    r = otd_map_split(x->rank, x->dims, attr_int(c, "axis", 0), c->output_count, have_split ? split : NULL,
                      split_count, attr_int(c, "num_outputs", 0), &m, err, n);
    if (r != OTD_OK && r != OTD_EMPTY)
        return say(c, r, "%s", err);
    void* outs[OTD_MAX_PARTS];
    for (uint32_t k = 0; k < c->output_count; ++k) {
        uint32_t sizes[DML_TENSOR_DIMENSION_COUNT_MAX1];
        memcpy(sizes, m.whole_sizes, sizeof sizes);
        sizes[m.axis] = m.part_axis_sizes[k];
        int s = set_output(c, k, x->data_type, m.rank, sizes);
        if (s != OTD_OK)
            return s;
        outs[k] = c->result->outputs[k].data;
    }
    if (r == OTD_EMPTY)
        return say(c, OTD_EMPTY, "the input is empty (DirectML has no zero-size tensors)");
    return dispatched(c, conf_split(c->dev, type, &m, x->data, outs));
}

/* Cast / CastLike: `to`, or target_type's type. */
static int run_cast(node_call* c, const tp_tensor* x, char* err, size_t n)
{
    int32_t to;
    if (!strcmp(c->model->op_type, "CastLike")) {
        if (!input(c, 1))
            return say(c, OTD_INVALID, "CastLike: no target_type");
        to = input(c, 1)->data_type;
    } else {
        const tp_attr* a = tp_model_attr(c->model, "to");
        if (!a || !a->has_i)
            return say(c, OTD_INVALID, "Cast: no 'to' attribute");
        to = (int32_t)a->i;
    }
    otd_cast m;
    int r = otd_map_cast(x->rank, x->dims, x->data_type, to, &m, err, n);
    if ((r = mapped(c, r, err, to, m.rank, m.sizes)) != OTD_OK)
        return r;
    if ((r = set_output(c, 0, to, x->rank, m.sizes)) != OTD_OK) /* a scalar stays rank 0 */
        return r;
    c->result->undefined = malloc(x->count);
    if (!c->result->undefined)
        return say(c, CONF_NODE_DML_FAILED, "out of host memory");
    for (uint64_t i = 0; i < x->count; ++i)
        c->result->undefined[i] = (uint8_t)otd_cast_onnx_undefined(&m, x->data + i * x->elem_size);
    return dispatched(c, conf_cast(c->dev, &m, x->data, c->result->outputs[0].data));
}

/* ConstantOfShape (input: the shape) and Range (three scalars). */
static int run_fill(node_call* c, const tp_tensor* x, char* err, size_t n)
{
    otd_fill m;
    int r;
    int32_t type;
    uint32_t rank;
    if (!strcmp(c->model->op_type, "ConstantOfShape")) {
        int64_t shape[MAX_INDEX_VALUES];
        uint64_t count;
        if (x->data_type != TP_INT64)
            return say(c, OTD_INVALID, "ConstantOfShape: the shape must be INT64");
        if ((r = index_values(c, x, "shape", shape, MAX_INDEX_VALUES, &count)) != OTD_OK)
            return r;
        const tp_attr* va = tp_model_attr(c->model, "value");
        type = va && va->has_t ? va->t.data_type : TP_FLOAT;
        r = otd_map_constant_of_shape(count, shape, type, va && va->has_t ? va->t.data : NULL, &m, err, n);
        rank = (uint32_t)count; /* {} is a scalar: rank 0 in ONNX, {1} in DirectML */
    } else {
        const tp_tensor* limit = input(c, 1);
        const tp_tensor* delta = input(c, 2);
        if (!limit || !delta || limit->data_type != x->data_type || delta->data_type != x->data_type ||
            x->count != 1 || limit->count != 1 || delta->count != 1)
            return say(c, OTD_INVALID, "Range: start, limit and delta must be scalars of one type");
        type = x->data_type;
        r = otd_map_range(x->data_type, x->data, limit->data, delta->data, &m, err, n);
        rank = 1;
    }
    if ((r = mapped(c, r, err, type, rank, m.output_sizes)) != OTD_OK)
        return r;
    if ((r = set_output(c, 0, type, rank, m.output_sizes)) != OTD_OK)
        return r;
    return dispatched(c, conf_fill(c->dev, &m, c->result->outputs[0].data));
}

static int run_expand(node_call* c, const tp_tensor* x, DML_TENSOR_DATA_TYPE type, char* err, size_t n)
{
    int64_t shape[MAX_INDEX_VALUES];
    uint64_t count;
    const tp_tensor* t = input(c, 1);
    if (!t || t->data_type != TP_INT64)
        return say(c, OTD_INVALID, "Expand: shape must be an INT64 tensor");
    int r = index_values(c, t, "shape", shape, MAX_INDEX_VALUES, &count);
    if (r != OTD_OK)
        return r;
    otd_expand m;
    r = otd_map_expand(x->rank, x->dims, count, shape, &m, err, n);
    if ((r = mapped(c, r, err, x->data_type, m.rank, m.output_sizes)) != OTD_OK)
        return r;
    if ((r = set_output(c, 0, x->data_type, m.rank, m.output_sizes)) != OTD_OK)
        return r;
    return dispatched(c, conf_expand(c->dev, type, &m, x->data, c->result->outputs[0].data));
}

/* ---- Gather, GatherElements, GatherND, ScatterElements, ScatterND, OneHot, Where */

/* OneHot's depth: one element of any numeric type, read on the host. */
static int one_hot_depth(const tp_tensor* t, int64_t* depth, char* err, size_t n)
{
    if (t->count != 1 || t->data_type == TP_STRING || t->data_type == TP_BOOL) {
        snprintf(err, n, "OneHot: depth must hold one numeric element");
        return OTD_INVALID;
    }
    *depth = otd_one_hot_index(t->data_type, t->data);
    return OTD_OK;
}

static int map_indexed(node_call* c, const tp_tensor* x, otd_indexed* m, int64_t* depth, char* err, size_t n)
{
    const char* op = c->model->op_type;
    const tp_tensor* i1 = input(c, 1);
    const tp_tensor* i2 = input(c, 2);
    if (!i1 || (!i2 && (!strncmp(op, "Scatter", 7) || !strcmp(op, "Where") || !strcmp(op, "OneHot")))) {
        snprintf(err, n, "%s: an input is missing", op);
        return OTD_INVALID;
    }
    if (!strcmp(op, "Gather"))
        return otd_map_gather(x->rank, x->dims, i1->rank, i1->dims, attr_int(c, "axis", 0), x->data_type,
                              i1->data_type, m, err, n);
    if (!strcmp(op, "GatherElements"))
        return otd_map_gather_elements(x->rank, x->dims, i1->rank, i1->dims, attr_int(c, "axis", 0), x->data_type,
                                       i1->data_type, m, err, n);
    if (!strcmp(op, "GatherND"))
        return otd_map_gather_nd(x->rank, x->dims, i1->rank, i1->dims, attr_int(c, "batch_dims", 0), x->data_type,
                                 i1->data_type, m, err, n);
    if (!strcmp(op, "ScatterElements") || !strcmp(op, "Scatter")) /* Scatter (opset 9-10): the old name */
        return otd_map_scatter_elements(x->rank, x->dims, i1->rank, i1->dims, i2->rank, i2->dims,
                                        attr_int(c, "axis", 0), attr_string(c, "reduction"), x->data_type,
                                        i1->data_type, i2->data_type, m, err, n);
    if (!strcmp(op, "ScatterND"))
        return otd_map_scatter_nd(x->rank, x->dims, i1->rank, i1->dims, i2->rank, i2->dims,
                                  attr_string(c, "reduction"), x->data_type, i1->data_type, i2->data_type, m, err, n);
    if (!strcmp(op, "OneHot")) {
        int r = one_hot_depth(i1, depth, err, n);
        return r != OTD_OK ? r
                           : otd_map_one_hot(x->rank, x->dims, *depth, i2->count, attr_int(c, "axis", -1),
                                             x->data_type, i2->data_type, m, err, n);
    }
    const uint32_t ranks[3] = { x->rank, i1->rank, i2->rank };
    const int64_t* dims[3] = { x->dims, i1->dims, i2->dims };
    const int32_t types[3] = { x->data_type, i1->data_type, i2->data_type };
    return otd_map_where(ranks, dims, types, m, err, n);
}

static int run_indexed(node_call* c, const tp_tensor* x, DML_TENSOR_DATA_TYPE type, char* err, size_t n)
{
    (void)type; /* each tensor's type is the mapping's */
    otd_indexed m;
    int64_t depth = 0;
    int r = map_indexed(c, x, &m, &depth, err, n);
    const char* op = c->model->op_type;
    int32_t out_type = !strcmp(op, "OneHot") ? input(c, 2)->data_type
                       : !strcmp(op, "Where") ? input(c, 1)->data_type
                                               : x->data_type;
    uint32_t sizes[DML_TENSOR_DIMENSION_COUNT_MAX1];
    for (uint32_t i = 0; i < m.onnx_rank; ++i)
        sizes[i] = (uint32_t)m.onnx_dims[i]; /* placed: each fits UINT32 */
    if ((r = mapped(c, r, err, out_type, m.onnx_rank, sizes)) != OTD_OK ||
        (r = set_output(c, 0, out_type, m.onnx_rank, sizes)) != OTD_OK)
        return r;
    const void* ins[OTD_INDEXED_INPUTS];
    for (uint32_t k = 0; k < m.input_count; ++k)
        ins[k] = input(c, k)->data;
    int64_t* converted = NULL;
    if (!strcmp(op, "OneHot")) { /* indices, then values: ONNX's inputs 0 and 2 */
        ins[1] = input(c, 2)->data;
        if (m.convert_indices) {
            converted = malloc(x->count * sizeof *converted);
            if (!converted)
                return say(c, CONF_NODE_DML_FAILED, "out of host memory");
            for (uint64_t i = 0; i < x->count; ++i)
                converted[i] = otd_one_hot_index(x->data_type, x->data + i * x->elem_size);
            ins[0] = converted;
        }
    }
    r = dispatched(c, conf_indexed(c->dev, &m, ins, c->result->outputs[0].data));
    free(converted);
    return r;
}

int conf_node_run(conf_device* d, const tp_model* m, const tp_tensor* const* inputs, uint32_t input_count,
                  uint32_t output_count, conf_node_result* r)
{
    memset(r, 0, sizeof *r);
    node_call c = { d, m, inputs, input_count, output_count, r };
    char err[512] = "";
    const char* op = m->op_type;
    const tp_tensor* x = input(&c, 0);
    if (!x)
        return say(&c, OTD_INVALID, "%s: no input 0", op);
    if (!strcmp(op, "Cast") || !strcmp(op, "CastLike"))
        return run_cast(&c, x, err, sizeof err);
    if (!strcmp(op, "ConstantOfShape") || !strcmp(op, "Range"))
        return run_fill(&c, x, err, sizeof err);
    DML_TENSOR_DATA_TYPE type;
    int s = dml_type(&c, x->data_type, &type);
    if (s != OTD_OK)
        return s;
    static const struct {
        const char* op_type;
        int (*run)(node_call*, const tp_tensor*, DML_TENSOR_DATA_TYPE, char*, size_t);
    } table[] = {
        { "ReverseSequence", run_reverse_sequence }, { "Slice", run_slice }, { "Tile", run_tile },
        { "Pad", run_pad }, { "DepthToSpace", run_depth_space }, { "SpaceToDepth", run_depth_space },
        { "Concat", run_concat }, { "Split", run_split }, { "Expand", run_expand },
        { "Gather", run_indexed }, { "GatherElements", run_indexed }, { "GatherND", run_indexed },
        { "ScatterElements", run_indexed }, { "Scatter", run_indexed }, { "ScatterND", run_indexed },
        { "OneHot", run_indexed }, { "Where", run_indexed },
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; ++i)
        if (!strcmp(op, table[i].op_type))
            return table[i].run(&c, x, type, err, sizeof err);
    return say(&c, OTD_UNREPRESENTABLE, "no mapping for ONNX %s", op);
}

void conf_node_result_free(conf_node_result* r)
{
    for (uint32_t k = 0; k < r->output_count; ++k)
        tp_tensor_free(&r->outputs[k]);
    free(r->undefined);
    r->undefined = NULL;
    r->output_count = 0;
}

/*
 * depth_space.c — DML_OPERATOR_SPACE_TO_DEPTH, DEPTH_TO_SPACE (both in
 * DEPTH_COLUMN_ROW order), DEPTH_TO_SPACE1 and SPACE_TO_DEPTH1 (Order): 4-D
 * {N, C, H, W} tensors whose channels move into B x B spatial blocks and back.
 *
 * With the space tensor {N, C', H*B, W*B} and the depth tensor
 * {N, C'*B*B, H, W} (C' the space tensor's channels):
 *   DEPTH_COLUMN_ROW: space[n, c, h*B+i, w*B+j] = depth[n, (i*B + j)*C' + c, h, w]
 *   COLUMN_ROW_DEPTH: space[n, c, h*B+i, w*B+j] = depth[n, c*B*B + i*B + j, h, w]
 * DEPTH_TO_SPACE reads depth and writes space, SPACE_TO_DEPTH the reverse.
 * One affine gather over six dimensions (n, c, h, i, w, j), each with the
 * stride it implies in both tensors; the builder sorts and merges them.
 */
#include <stdio.h>

#include "op.h"

typedef struct depth_space_params {
    uint32_t block;
    uint32_t order; /* DML_DEPTH_SPACE_ORDER */
} depth_space_params;

static bool is_to_space(const dml_op* op)
{
    return op->entry->type == DML_OPERATOR_DEPTH_TO_SPACE || op->entry->type == DML_OPERATOR_DEPTH_TO_SPACE1;
}

static DML_RESULT parse_common(const DML_TENSOR_DESC* input, const DML_TENSOR_DESC* output, UINT block_size,
    bool has_order, DML_DEPTH_SPACE_ORDER order, dml_op* op)
{
    char call[64];
    snprintf(call, sizeof call, "dmlDeviceCreateOperator(%s)", op->entry->name);
    depth_space_params* p = op->params;
    dml_tensor* in = &op->inputs[0];
    dml_tensor* out = &op->outputs[0];
    const bool to_space = is_to_space(op);
    DML_RESULT r;
    if ((r = dml_op_tensor(call, "InputTensor", false, input, in)) < 0)
        return r;
    if (in->rank != 4)
        DML_OP_FAIL("%s: InputTensor.DimensionCount = %u; must be 4 ({N, C, H, W})", call, in->rank);
    if (block_size == 0)
        DML_OP_FAIL("%s: BlockSize = 0; must be >= 1", call);
    if (has_order && order != DML_DEPTH_SPACE_ORDER_DEPTH_COLUMN_ROW &&
        order != DML_DEPTH_SPACE_ORDER_COLUMN_ROW_DEPTH)
        DML_OP_FAIL("%s: Order = %d; must be DML_DEPTH_SPACE_ORDER_DEPTH_COLUMN_ROW (0) or "
            "DML_DEPTH_SPACE_ORDER_COLUMN_ROW_DEPTH (1)", call, (int)order);
    const uint64_t b = block_size, bb = b * b; /* < 2^64: two 32-bit factors */
    uint64_t expected[4] = { in->sizes[0], 0, 0, 0 };
    if (to_space) {
        if (in->sizes[1] % bb != 0)
            DML_OP_FAIL("%s: InputTensor.Sizes[1] = %u (channels); must be a multiple of BlockSize * BlockSize = "
                "%llu", call, in->sizes[1], (unsigned long long)bb);
        expected[1] = in->sizes[1] / bb;
        expected[2] = (uint64_t)in->sizes[2] * b;
        expected[3] = (uint64_t)in->sizes[3] * b;
    } else {
        if (in->sizes[2] % b != 0)
            DML_OP_FAIL("%s: InputTensor.Sizes[2] = %u (height); must be a multiple of BlockSize = %u", call,
                in->sizes[2], block_size);
        if (in->sizes[3] % b != 0)
            DML_OP_FAIL("%s: InputTensor.Sizes[3] = %u (width); must be a multiple of BlockSize = %u", call,
                in->sizes[3], block_size);
        /* bb <= 2^64 - 2^33 + 1 and Sizes[1] < 2^32: the product is checked
         * against 32 bits without overflowing 64 when bb < 2^32. */
        expected[1] = bb > UINT32_MAX ? UINT64_MAX : (uint64_t)in->sizes[1] * bb;
        expected[2] = in->sizes[2] / b;
        expected[3] = in->sizes[3] / b;
    }
    if ((r = dml_op_tensor(call, "OutputTensor", true, output, out)) < 0)
        return r;
    if (out->rank != 4)
        DML_OP_FAIL("%s: OutputTensor.DimensionCount = %u; must be 4 ({N, C, H, W})", call, out->rank);
    if (out->data_type != in->data_type)
        DML_OP_FAIL("%s: OutputTensor.DataType %s differs from InputTensor.DataType %s", call,
            dml_data_type_name(out->data_type), dml_data_type_name(in->data_type));
    static const char* const rule_d2s[4] = { "InputTensor.Sizes[0]", "InputTensor.Sizes[1] / (BlockSize * BlockSize)",
        "InputTensor.Sizes[2] * BlockSize", "InputTensor.Sizes[3] * BlockSize" };
    static const char* const rule_s2d[4] = { "InputTensor.Sizes[0]", "InputTensor.Sizes[1] * BlockSize * BlockSize",
        "InputTensor.Sizes[2] / BlockSize", "InputTensor.Sizes[3] / BlockSize" };
    for (uint32_t i = 0; i < 4; ++i)
        if (out->sizes[i] != expected[i]) {
            if (expected[i] > UINT32_MAX)
                DML_OP_FAIL("%s: OutputTensor.Sizes[%u] = %u; must be %s, more than a 32-bit size holds", call, i,
                    out->sizes[i], to_space ? rule_d2s[i] : rule_s2d[i]);
            DML_OP_FAIL("%s: OutputTensor.Sizes[%u] = %u; must be %s = %llu", call, i, out->sizes[i],
                to_space ? rule_d2s[i] : rule_s2d[i], (unsigned long long)expected[i]);
        }
    p->block = block_size;
    p->order = has_order ? (uint32_t)order : (uint32_t)DML_DEPTH_SPACE_ORDER_DEPTH_COLUMN_ROW;
    return DML_S_OK;
}

static DML_RESULT parse_v0(const void* desc, dml_op* op)
{
    /* DML_SPACE_TO_DEPTH_OPERATOR_DESC has the same layout. */
    const DML_DEPTH_TO_SPACE_OPERATOR_DESC* d = desc;
    return parse_common(d->InputTensor, d->OutputTensor, d->BlockSize, false, DML_DEPTH_SPACE_ORDER_DEPTH_COLUMN_ROW,
        op);
}

static DML_RESULT parse_v1(const void* desc, dml_op* op)
{
    /* DML_SPACE_TO_DEPTH1_OPERATOR_DESC has the same layout. */
    const DML_DEPTH_TO_SPACE1_OPERATOR_DESC* d = desc;
    return parse_common(d->InputTensor, d->OutputTensor, d->BlockSize, true, d->Order, op);
}

/* A dimension's stride, 0 when its size is 1 (the builder drops it; the
 * product could otherwise reach past the tensor). */
static int64_t stride_if(uint64_t size, uint64_t factor, uint64_t stride)
{
    return size > 1 ? (int64_t)(factor * stride) : 0;
}

static DML_RESULT lower(const dml_op* op, dml_lowering* lowering)
{
    const depth_space_params* p = op->params;
    const bool to_space = is_to_space(op);
    const dml_tensor* space = to_space ? &op->outputs[0] : &op->inputs[0];
    const dml_tensor* depth = to_space ? &op->inputs[0] : &op->outputs[0];
    const uint64_t b = p->block;
    const uint64_t n = space->sizes[0], c = space->sizes[1], h = depth->sizes[2], w = depth->sizes[3];
    const bool dcr = p->order == DML_DEPTH_SPACE_ORDER_DEPTH_COLUMN_ROW;
    /* (n, c, h, i, w, j): sizes, then the strides in the space and depth
     * tensors. Each nonzero stride is a step inside its validated tensor
     * (a dimension of size 2 or more), so it fits. */
    const uint64_t sizes[6] = { n, c, h, b, w, b };
    const int64_t space_strides[6] = {
        stride_if(n, 1, space->strides[0]),
        stride_if(c, 1, space->strides[1]),
        stride_if(h, b, space->strides[2]),
        stride_if(b, 1, space->strides[2]),
        stride_if(w, b, space->strides[3]),
        stride_if(b, 1, space->strides[3]),
    };
    const int64_t depth_strides[6] = {
        stride_if(n, 1, depth->strides[0]),
        stride_if(c, dcr ? 1 : b * b, depth->strides[1]),
        stride_if(h, 1, depth->strides[2]),
        stride_if(b, dcr ? b * c : b, depth->strides[1]),
        stride_if(w, 1, depth->strides[3]),
        stride_if(b, dcr ? c : 1, depth->strides[1]),
    };
    dml_plan_builder builder;
    dml_plan_builder_init(&builder, DML_PLAN_GATHER, op->outputs[0].element_size);
    for (int k = 0; k < 6; ++k)
        dml_plan_builder_add(&builder, (dml_plan_dim){ sizes[k], to_space ? depth_strides[k] : space_strides[k],
            to_space ? space_strides[k] : depth_strides[k], 0, 0 });
    return dml_lowering_add_gather(lowering, &builder, DML_OPERAND_IN(0), DML_OPERAND_NOTHING, DML_OPERAND_OUT(0));
}

const dml_op_entry dml_op_space_to_depth = {
    .type = DML_OPERATOR_SPACE_TO_DEPTH,
    .name = "SPACE_TO_DEPTH",
    .params_size = sizeof(depth_space_params),
    .inputs = 1,
    .outputs = 1,
    .parse = parse_v0,
    .lower = lower,
};

const dml_op_entry dml_op_depth_to_space = {
    .type = DML_OPERATOR_DEPTH_TO_SPACE,
    .name = "DEPTH_TO_SPACE",
    .params_size = sizeof(depth_space_params),
    .inputs = 1,
    .outputs = 1,
    .parse = parse_v0,
    .lower = lower,
};

const dml_op_entry dml_op_depth_to_space1 = {
    .type = DML_OPERATOR_DEPTH_TO_SPACE1,
    .name = "DEPTH_TO_SPACE1",
    .params_size = sizeof(depth_space_params),
    .inputs = 1,
    .outputs = 1,
    .parse = parse_v1,
    .lower = lower,
};

const dml_op_entry dml_op_space_to_depth1 = {
    .type = DML_OPERATOR_SPACE_TO_DEPTH1,
    .name = "SPACE_TO_DEPTH1",
    .params_size = sizeof(depth_space_params),
    .inputs = 1,
    .outputs = 1,
    .parse = parse_v1,
    .lower = lower,
};

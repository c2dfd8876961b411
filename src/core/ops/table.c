/*
 * table.c — the operator table: every implemented operator, one entry each
 * (defined in its own file of this folder). Adding an operator is adding its
 * file and one line here.
 */
#include <stdio.h>

#include "op.h"

extern const dml_op_entry dml_op_element_wise_identity;
extern const dml_op_entry dml_op_slice;
extern const dml_op_entry dml_op_split;
extern const dml_op_entry dml_op_join;
extern const dml_op_entry dml_op_cast;
extern const dml_op_entry dml_op_space_to_depth;
extern const dml_op_entry dml_op_depth_to_space;
extern const dml_op_entry dml_op_tile;
extern const dml_op_entry dml_op_padding;
extern const dml_op_entry dml_op_fill_value_constant;
extern const dml_op_entry dml_op_fill_value_sequence;
extern const dml_op_entry dml_op_reverse_subsequences;
extern const dml_op_entry dml_op_slice1;
extern const dml_op_entry dml_op_depth_to_space1;
extern const dml_op_entry dml_op_space_to_depth1;
extern const dml_op_entry dml_op_padding1;
extern const dml_op_entry dml_op_gather;
extern const dml_op_entry dml_op_gather_elements;
extern const dml_op_entry dml_op_gather_nd;
extern const dml_op_entry dml_op_gather_nd1;
extern const dml_op_entry dml_op_element_wise_if;
extern const dml_op_entry dml_op_scatter_elements;
extern const dml_op_entry dml_op_one_hot;
extern const dml_op_entry dml_op_scatter_nd;

/* In DML_OPERATOR_TYPE order (the NOTIMPL message lists them so). */
static const dml_op_entry* const table[] = {
    &dml_op_element_wise_identity,
    &dml_op_slice,
    &dml_op_split,
    &dml_op_join,
    &dml_op_padding,
    &dml_op_cast,
    &dml_op_gather,
    &dml_op_space_to_depth,
    &dml_op_depth_to_space,
    &dml_op_tile,
    &dml_op_element_wise_if,
    &dml_op_scatter_elements,
    &dml_op_one_hot,
    &dml_op_fill_value_constant,
    &dml_op_fill_value_sequence,
    &dml_op_reverse_subsequences,
    &dml_op_gather_elements,
    &dml_op_gather_nd,
    &dml_op_scatter_nd,
    &dml_op_slice1,
    &dml_op_depth_to_space1,
    &dml_op_space_to_depth1,
    &dml_op_gather_nd1,
    &dml_op_padding1,
};

#define TABLE_SIZE (sizeof table / sizeof table[0])

const dml_op_entry* dml_op_find(DML_OPERATOR_TYPE type)
{
    for (size_t i = 0; i < TABLE_SIZE; ++i)
        if (table[i]->type == type)
            return table[i];
    return NULL;
}

const char* dml_operator_type_name(DML_OPERATOR_TYPE type)
{
    const dml_op_entry* entry = dml_op_find(type);
    return entry ? entry->name : "unsupported operator";
}

DML_RESULT dml_op_not_implemented(const char* call, DML_OPERATOR_TYPE type)
{
    char list[1024];
    size_t used = 0;
    for (size_t i = 0; i < TABLE_SIZE && used < sizeof list; ++i)
        used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "", table[i]->name);
    return dml_set_error(DML_E_NOTIMPL,
        "%s: DML_OPERATOR_TYPE %d is a DirectML operator this runtime does not implement (implemented: %s)", call,
        (int)type, list);
}

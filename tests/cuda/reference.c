#include "reference.h"

#include <string.h>

void reference_gather(const gather_case* c, gather_buffers* b)
{
    uint32_t in_strides[GATHER_MAX_RANK], out_strides[GATHER_MAX_RANK], len_strides[GATHER_MAX_RANK];
    uint32_t len_sizes[GATHER_MAX_RANK];
    gather_lengths_sizes(c, len_sizes);
    if (c->in_packed)
        gather_packed_strides(c->rank, c->in_sizes, in_strides);
    else
        memcpy(in_strides, c->in_strides, sizeof in_strides);
    if (c->out_packed)
        gather_packed_strides(c->rank, c->out_sizes, out_strides);
    else
        memcpy(out_strides, c->out_strides, sizeof out_strides);
    if (c->len_packed)
        gather_packed_strides(c->rank, len_sizes, len_strides);
    else
        memcpy(len_strides, c->len_strides, sizeof len_strides);

    const uint32_t e = c->element_size;
    const unsigned char* in = b->base[0];
    const unsigned char* lengths = b->base[1];
    unsigned char* out = b->expected + (b->base[2] - b->block[2]);
    uint64_t coord[GATHER_MAX_RANK] = { 0 };
    for (;;) {
        /* the input coordinate, per the spec */
        uint64_t source[GATHER_MAX_RANK];
        if (c->type == DML_OPERATOR_REVERSE_SUBSEQUENCES) {
            uint64_t at = 0;
            for (uint32_t i = 0; i < c->rank; ++i)
                at += (i == c->axis ? 0 : coord[i]) * len_strides[i];
            uint64_t length;
            if (c->lengths_size == 8) {
                memcpy(&length, lengths + at * 8, 8);
            } else {
                uint32_t l32;
                memcpy(&l32, lengths + at * 4, 4);
                length = l32;
            }
            uint64_t L = length < c->in_sizes[c->axis] ? length : c->in_sizes[c->axis];
            for (uint32_t i = 0; i < c->rank; ++i)
                source[i] = coord[i];
            uint64_t j = coord[c->axis];
            source[c->axis] = j < L ? L - 1 - j : j;
        } else if (c->type == DML_OPERATOR_SLICE1) {
            for (uint32_t i = 0; i < c->rank; ++i) {
                int64_t start = (int64_t)c->offsets[i] + (c->window_strides[i] < 0 ? c->window_sizes[i] - 1 : 0);
                source[i] = (uint64_t)(start + (int64_t)c->window_strides[i] * (int64_t)coord[i]);
            }
        } else {
            for (uint32_t i = 0; i < c->rank; ++i)
                source[i] = c->offsets[i] + (uint64_t)c->slice_strides[i] * coord[i];
        }
        uint64_t from = 0, to = 0;
        for (uint32_t i = 0; i < c->rank; ++i) {
            from += source[i] * in_strides[i];
            to += coord[i] * out_strides[i];
        }
        memcpy(out + to * e, in + from * e, e);
        /* next output coordinate, innermost fastest */
        uint32_t d = c->rank;
        while (d > 0 && ++coord[d - 1] == c->out_sizes[d - 1])
            coord[--d] = 0;
        if (d == 0)
            break;
    }
}

uint64_t reference_mismatches(const gather_buffers* b, uint64_t* first)
{
    uint64_t count = 0;
    for (uint64_t k = b->block_bytes[2]; k-- > 0;)
        if (b->block[2][k] != b->expected[k]) {
            ++count;
            *first = k;
        }
    return count;
}

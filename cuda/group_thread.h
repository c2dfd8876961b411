/*
 * group_thread.h — how a block of a grouped launch (group_params.h) finds
 * its part: shared by the grouped kernels (group.cu) and the emulator, so
 * both partition the grid the same way.
 */
#ifndef DML_CUDA_GROUP_THREAD_H
#define DML_CUDA_GROUP_THREAD_H

#include "core/hd.h"
#include "group_params.h"

/* The part owning `block`: the last of the `count` parts whose first block
 * is at most it (first_block increases with the part, every part has a
 * block). A binary search: at most 6 steps for DML_GROUP_PARTS parts, once
 * per block. */
DML_HD uint32_t dml_group_find_part(const dml_group_part* parts, uint32_t count, uint32_t block)
{
    uint32_t low = 0, high = count;
    while (high - low > 1) {
        const uint32_t middle = low + (high - low) / 2;
        if (parts[middle].first_block <= block)
            low = middle;
        else
            high = middle;
    }
    return low;
}

#endif /* DML_CUDA_GROUP_THREAD_H */

/*
 * pad_fold.h — DML_PLAN_PAD's fold of one coordinate (plan.h): the one
 * definition the CPU executor, the CUDA kernel and the emulator share.
 *
 * j, the unfolded input coordinate (c + pad_origin), is brought into [0, n)
 * by the padding mode (DML_PADDING_MODE):
 *   EDGE        clamped: j < 0 → 0, j >= n → n - 1;
 *   REFLECTION  mirrored without repeating the edge, period 2(n - 1)
 *               (n = 1: always 0, the element repeats);
 *   SYMMETRIC   mirrored repeating the edge, period 2n;
 *   CONSTANT    not folded: -1 outside [0, n), the caller writes the value.
 * Pads far beyond n keep folding (the period), so any j maps inside. The
 * first fold needs no division (the common case: a pad within the input).
 */
#ifndef DML_CORE_PAD_FOLD_H
#define DML_CORE_PAD_FOLD_H

#include <dml/dml.h>
#include <stdint.h>

#include "hd.h"

/* j mod period, in [0, period). */
DML_HD int64_t dml_pad_wrap(int64_t j, int64_t period)
{
    int64_t m = j % period;
    return m < 0 ? m + period : m;
}

/* The input coordinate for j on a dimension of n >= 1 elements, or -1
 * (CONSTANT, outside). */
DML_HD int64_t dml_pad_fold(int64_t j, uint64_t n, uint32_t mode)
{
    const int64_t size = (int64_t)n;
    if (j >= 0 && j < size)
        return j;
    if (mode == DML_PADDING_MODE_EDGE)
        return j < 0 ? 0 : size - 1;
    if (mode == DML_PADDING_MODE_REFLECTION) {
        if (size == 1)
            return 0;
        const int64_t period = 2 * (size - 1);
        if (j < 0 && -j < size)
            return -j;
        if (j >= size && j < period)
            return period - j;
        const int64_t m = dml_pad_wrap(j, period);
        return m < size ? m : period - m;
    }
    if (mode == DML_PADDING_MODE_SYMMETRIC) {
        const int64_t period = 2 * size;
        if (j < 0 && -j <= size)
            return -1 - j;
        if (j >= size && j < period)
            return period - 1 - j;
        const int64_t m = dml_pad_wrap(j, period);
        return m < size ? m : period - 1 - m;
    }
    return -1;
}

#endif /* DML_CORE_PAD_FOLD_H */

#!/usr/bin/env python3
"""Writes the seed corpus (tests/fuzz/corpus/seed_*) for fuzz_operators.c: the
documented examples of docs/operators.md (shapes and parameters; the
data comes from each input's seed), encoded in the order decode() reads.
Usage: tests/fuzz/make_seeds.py [corpus-dir]"""
import os, sys

def tensor_tail(strides=None, owned=False):
    # strides flag (+ explicit strides), flags, size mode (exact), alignment byte
    b = [1] + list(strides) if strides is not None else [0]
    return b + [230 if owned else 0, 0, 0]

def seed(n):
    return list(n.to_bytes(8, 'little'))

def reverse(in_sizes, axis, lengths_uint64=False, owned=False, repair=False):
    r = len(in_sizes)
    b = [1 if repair else 0, r - 1, 0, 1]            # head (kind 0), rank, no rank damage, FLOAT32
    b += list(in_sizes) + tensor_tail(owned=owned)    # input
    b += [axis, 120 if lengths_uint64 else 0, 0, 0]   # axis, lengths type, no rank/size damage
    b += tensor_tail()                                # lengths (sizes implied)
    b += [0, 0] + tensor_tail()                       # output type/sizes as input
    return bytes(b + [0] + seed(0x1234567 + axis))

def slice_(kind, in_sizes, offsets, windows, strides, out_sizes=None, owned=False, dtype=1):
    r = len(in_sizes)
    b = [kind << 1, r - 1, 0, dtype] + list(in_sizes) + tensor_tail(owned=owned)
    b += [0]                                          # parameter count = rank
    for i in range(8):
        if i < r:
            s = strides[i]
            o = out_sizes[i] if out_sizes else 0
            b += [offsets[i], windows[i], abs(s), 1 if s < 0 else 0, o, 200 if out_sizes else 0]
        else:
            b += [0, 0, 1, 0, 0, 0]
    b += [0, 0] + tensor_tail()                       # output type, rank, tensor
    return bytes(b + [0] + seed(0xabcdef + kind))

INDEXED = ['gather', 'gather_elements', 'gather_nd', 'gather_nd1', 'scatter_elements', 'scatter_nd', 'one_hot',
           'element_wise_if']

def indexed(k, rank, dtype, pattern):
    # The data-dependent kinds: "other type" heads below 224 (head >> 1 = 7 k' + 3), in
    # repair mode (the decoder brings every count, axis and size into range), then the
    # rank, the data type and small bytes for everything else (index type, axis, sizes, ...).
    head = 2 * (7 * k + 3) + 1
    body = [(pattern[i % len(pattern)] + i // len(pattern)) % 7 for i in range(120)]
    return bytes([head, rank - 1, dtype] + body + seed(0x5eed0 + k))

def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), 'corpus')
    os.makedirs(out, exist_ok=True)
    seeds = {
        'seed_reverse_example1': reverse([1, 1, 3, 4], 3),
        'seed_reverse_example2': reverse([1, 1, 3, 4], 2),
        'seed_reverse_uint64_owned': reverse([2, 3, 4, 5], 1, lengths_uint64=True, owned=True),
        'seed_slice1_example1': slice_(1, [1, 1, 4, 4], [0, 0, 0, 1], [1, 1, 4, 3], [1, 1, 2, 2]),
        'seed_slice1_example2': slice_(1, [1, 1, 4, 4], [0, 0, 0, 1], [1, 1, 4, 3], [1, 1, -2, 2]),
        'seed_slice1_owned_int8': slice_(1, [2, 5], [1, 0], [1, 5], [1, -1], owned=True, dtype=8),
        'seed_slice_example': slice_(2, [1, 1, 4, 4], [0, 0, 0, 1], [1, 1, 3, 3], [1, 1, 2, 2], [1, 1, 2, 2]),
        'seed_slice_float64': slice_(2, [3, 4, 5], [0, 1, 0], [3, 3, 5], [1, 2, 2], [3, 2, 3], dtype=9),
    }
    for k, name in enumerate(INDEXED):
        seeds['seed_%s_float32' % name] = indexed(k, 2, 1, [2, 3, 0, 1, 4])
        seeds['seed_%s_int64_rank4' % name] = indexed(k, 4, 11, [1, 2, 0, 2])
    for name, data in seeds.items():
        with open(os.path.join(out, name), 'wb') as f:
            f.write(data)

if __name__ == '__main__':
    main()

/*
 * gather_thread.h — the per-thread code of every gather kernel, shared by the
 * device (kernels.cu, through nvcc) and the host emulator (emulator.c, through
 * the C compiler), so that CI executes exactly the logic the GPU runs.
 *
 * A thread handles DML_CUDA_ITEMS work items per pass of a grid-stride loop:
 * item = pass_base + block * (block_dim * ITEMS) + k * block_dim + thread, so
 * consecutive threads of a warp take consecutive items (consecutive output
 * elements or vectors: coalesced stores). All loads of a pass are issued
 * before its stores, keeping ITEMS loads in flight per thread.
 *
 * Specialisation: callers pass compile-time constants for element_size, mode,
 * wide (64-bit indexing), reverse (REVERSE_SUBSEQUENCES) and outer_rank
 * (-1: read it from the params); after inlining the compiler folds them.
 */
#ifndef DML_CUDA_GATHER_THREAD_H
#define DML_CUDA_GATHER_THREAD_H

#include "gather_params.h"

#if defined(__CUDACC__)
#define DML_HD static __host__ __device__ __forceinline__
#define DML_ALIGN16 __align__(16)
#if defined(__CUDA_ARCH__)
#define DML_UNROLL _Pragma("unroll")
#else
#define DML_UNROLL
#endif
#else
#include <string.h>
#define DML_HD static inline __attribute__((always_inline))
#define DML_UNROLL
#define DML_ALIGN16 __attribute__((aligned(16)))
#endif

/* The emulator records every global memory access with the static site that
 * made it, to measure coalescing per warp and per instruction. */
enum dml_access_site {
    DML_SITE_LENGTH = 0,
    DML_SITE_LOAD = 1,
    DML_SITE_STORE = 2,
    DML_SITE_EDGE_LOAD = 3,
    DML_SITE_EDGE_STORE = 4,
    DML_SITE_LOAD_HIGH = 5, /* the second aligned vector of a misaligned read */
    DML_SITE_PART_LOAD = 6, /* the needed part of an aligned vector that leaves the row */
    DML_SITE_COUNT = 7
};

#if defined(DML_CUDA_EMULATION) && !defined(__CUDA_ARCH__)
void dml_emulator_access(int site, int is_store, const void* address, unsigned bytes);
#define DML_TRACE(site, is_store, address, bytes) dml_emulator_access(site, is_store, address, bytes)
#else
#define DML_TRACE(site, is_store, address, bytes) ((void)(site), (void)(is_store), (void)(address), (void)(bytes))
#endif

typedef struct DML_ALIGN16 dml_u128 {
    uint32_t x, y, z, w;
} dml_u128;

DML_HD uint32_t dml_umulhi(uint32_t a, uint32_t b)
{
#if defined(__CUDA_ARCH__)
    return __umulhi(a, b);
#else
    return (uint32_t)(((uint64_t)a * b) >> 32);
#endif
}

DML_HD uint32_t dml_divide32(dml_divisor32 d, uint32_t n)
{
    return (dml_umulhi(n, d.multiplier) + n) >> d.shift;
}

/* Loads and stores of 1, 2, 4, 8 or 16 bytes. Host code goes through memcpy so
 * the emulator is free of aliasing questions; device code uses typed accesses,
 * which compile to single (vector) memory instructions. */
#if defined(__CUDA_ARCH__)
#define DML_DEFINE_ACCESS(bits)                                                             \
    DML_HD uint64_t dml_load##bits(const unsigned char* p) { return *(const uint##bits##_t*)p; } \
    DML_HD void dml_store##bits(unsigned char* p, uint64_t v) { *(uint##bits##_t*)p = (uint##bits##_t)v; }
DML_HD dml_u128 dml_load128(const unsigned char* p) { return *(const dml_u128*)p; }
DML_HD void dml_store128(unsigned char* p, dml_u128 v) { *(dml_u128*)p = v; }
#else
#define DML_DEFINE_ACCESS(bits)                                                         \
    DML_HD uint64_t dml_load##bits(const unsigned char* p)                              \
    {                                                                                   \
        uint##bits##_t v;                                                               \
        memcpy(&v, p, sizeof v);                                                        \
        return v;                                                                       \
    }                                                                                   \
    DML_HD void dml_store##bits(unsigned char* p, uint64_t v)                           \
    {                                                                                   \
        uint##bits##_t w = (uint##bits##_t)v;                                           \
        memcpy(p, &w, sizeof w);                                                        \
    }
DML_HD dml_u128 dml_load128(const unsigned char* p)
{
    dml_u128 v;
    memcpy(&v, p, sizeof v);
    return v;
}
DML_HD void dml_store128(unsigned char* p, dml_u128 v) { memcpy(p, &v, sizeof v); }
#endif
DML_DEFINE_ACCESS(8)
DML_DEFINE_ACCESS(16)
DML_DEFINE_ACCESS(32)
DML_DEFINE_ACCESS(64)

DML_HD uint64_t dml_load_element(const unsigned char* p, uint32_t size, int site)
{
    DML_TRACE(site, 0, p, size);
    switch (size) {
    case 1: return dml_load8(p);
    case 2: return dml_load16(p);
    case 4: return dml_load32(p);
    default: return dml_load64(p);
    }
}

DML_HD void dml_store_element(unsigned char* p, uint64_t v, uint32_t size, int site)
{
    DML_TRACE(site, 1, p, size);
    switch (size) {
    case 1: dml_store8(p, v); break;
    case 2: dml_store16(p, v); break;
    case 4: dml_store32(p, v); break;
    default: dml_store64(p, v); break;
    }
}

/* Reverses the order of the lanes (elements of lane_size bytes) of a vector. */
DML_HD uint32_t dml_swap_bytes32(uint32_t v)
{
    return (v >> 24) | ((v >> 8) & 0xFF00u) | ((v << 8) & 0xFF0000u) | (v << 24);
}

DML_HD dml_u128 dml_reverse_lanes(dml_u128 v, uint32_t lane_size)
{
    dml_u128 r;
    switch (lane_size) {
    case 1: r.x = dml_swap_bytes32(v.w); r.y = dml_swap_bytes32(v.z); r.z = dml_swap_bytes32(v.y); r.w = dml_swap_bytes32(v.x); break;
    case 2: r.x = (v.w >> 16) | (v.w << 16); r.y = (v.z >> 16) | (v.z << 16); r.z = (v.y >> 16) | (v.y << 16); r.w = (v.x >> 16) | (v.x << 16); break;
    case 4: r.x = v.w; r.y = v.z; r.z = v.y; r.w = v.x; break;
    default: r.x = v.z; r.y = v.w; r.z = v.x; r.w = v.y; break;
    }
    return r;
}

/* Element offsets of a row (outer coordinates of `row`), the axis coordinate
 * kept apart for REVERSE_SUBSEQUENCES. */
typedef struct dml_row {
    int64_t in, out, len;
    uint64_t axis_coordinate;
} dml_row;

DML_HD dml_row dml_row_offsets(const dml_gather_params* p, uint64_t row, int wide, int outer_rank_hint)
{
    const int rank = outer_rank_hint >= 0 ? outer_rank_hint : (int)p->outer_rank;
    dml_row r = { p->in_offset, p->out_offset, p->len_offset, 0 };
    if (!wide) {
        uint32_t rest = (uint32_t)row;
        int32_t in = 0, out = 0, len = 0;
        DML_UNROLL
        for (int d = DML_CUDA_MAX_RANK - 1; d >= 0; --d) {
            if (d >= rank)
                continue;
            uint32_t q = d > 0 ? dml_divide32(p->outer_divisors[d], rest) : 0;
            int32_t c = (int32_t)(rest - q * p->outer_divisors[d].divisor);
            rest = q;
            if (d == p->axis)
                r.axis_coordinate = (uint64_t)c;
            else
                in += c * p->in_strides32[d];
            out += c * p->out_strides32[d];
            len += c * p->len_strides32[d];
        }
        r.in += in;
        r.out += out;
        r.len += len;
    } else {
        uint64_t rest = row;
        DML_UNROLL
        for (int d = DML_CUDA_MAX_RANK - 1; d >= 0; --d) {
            if (d >= rank)
                continue;
            uint64_t q = d > 0 ? rest / p->outer_sizes[d] : 0;
            int64_t c = (int64_t)(rest - q * p->outer_sizes[d]);
            rest = q;
            if (d == p->axis)
                r.axis_coordinate = (uint64_t)c;
            else
                r.in += c * p->in_strides[d];
            r.out += c * p->out_strides[d];
            r.len += c * p->len_strides[d];
        }
    }
    return r;
}

DML_HD uint64_t dml_sequence_length(const dml_gather_params* p, int64_t index)
{
    const unsigned char* at = p->lengths + index * (int64_t)p->lengths_size;
    uint64_t length = dml_load_element(at, p->lengths_size, DML_SITE_LENGTH);
    return length < p->axis_size ? length : p->axis_size;
}

/* REVERSE_SUBSEQUENCES: the input coordinate on the axis. */
DML_HD int64_t dml_reversed_coordinate(uint64_t j, uint64_t length)
{
    return (int64_t)(j < length ? length - 1 - j : j);
}

DML_HD void dml_split_item(const dml_gather_params* p, uint64_t item, int wide, uint64_t* row, uint64_t* k)
{
    if (!wide) {
        uint32_t q = dml_divide32(p->row_divisor, (uint32_t)item);
        *row = q;
        *k = (uint32_t)item - q * p->row_divisor.divisor;
    } else {
        *row = item / p->row_items;
        *k = item - *row * p->row_items;
    }
}

/* SCALAR mode: source and destination element offsets of one item. */
DML_HD void dml_scalar_offsets(const dml_gather_params* p, uint64_t item, int wide, int reverse, int outer_rank,
    int64_t* source, int64_t* destination)
{
    uint64_t row, k;
    dml_split_item(p, item, wide, &row, &k);
    dml_row r = dml_row_offsets(p, row, wide, outer_rank);
    int64_t in = r.in, kk = (int64_t)k;
    if (reverse) {
        uint64_t length = dml_sequence_length(p, r.len + kk * p->len_inner);
        if ((uint32_t)p->axis == p->outer_rank) { /* the axis is the row */
            in += dml_reversed_coordinate(k, length) * p->in_inner;
        } else {
            in += dml_reversed_coordinate(r.axis_coordinate, length) * p->in_strides[p->axis] + kk * p->in_inner;
        }
    } else {
        in += kk * p->in_inner;
    }
    *source = in;
    *destination = r.out + kk * p->out_inner;
}

/* The 16 bytes at p, which need not be 16-byte aligned: when misaligned,
 * the two aligned vectors holding them are loaded and funnel-shifted into
 * place, keeping every load a full coalesced vector. Nothing may be read
 * outside the bound ranges, so an aligned vector is loaded whole only when it
 * lies inside `span` (bytes the caller knows are bound: the input row being
 * copied, all of whose bytes are elements of the input); otherwise only its
 * needed bytes are loaded, in naturally aligned pieces. */
DML_HD uint32_t dml_pick4(uint32_t w, uint32_t a, uint32_t b, uint32_t c, uint32_t d)
{
    return w == 0 ? a : w == 1 ? b : w == 2 ? c : d;
}

DML_HD uint32_t dml_funnel_right(uint32_t low, uint32_t high, uint32_t bits)
{
#if defined(__CUDA_ARCH__)
    return __funnelshift_r(low, high, bits);
#else
    return bits ? (low >> bits) | (high << (32 - bits)) : low;
#endif
}

/* Bytes [shift, shift + 16) of lo followed by hi (shift < 16). */
DML_HD dml_u128 dml_extract128(dml_u128 lo, dml_u128 hi, uint32_t shift)
{
    uint32_t w = shift / 4, bits = (shift % 4) * 8;
    uint32_t s0 = dml_pick4(w, lo.x, lo.y, lo.z, lo.w), s1 = dml_pick4(w, lo.y, lo.z, lo.w, hi.x);
    uint32_t s2 = dml_pick4(w, lo.z, lo.w, hi.x, hi.y), s3 = dml_pick4(w, lo.w, hi.x, hi.y, hi.z);
    uint32_t s4 = dml_pick4(w, hi.x, hi.y, hi.z, hi.w);
    dml_u128 r;
    r.x = dml_funnel_right(s0, s1, bits);
    r.y = dml_funnel_right(s1, s2, bits);
    r.z = dml_funnel_right(s2, s3, bits);
    r.w = dml_funnel_right(s3, s4, bits);
    return r;
}

/* Bytes [0, m) of low, then bytes [m, 16) of high. */
DML_HD uint32_t dml_low_bytes_mask(uint32_t m, uint32_t word)
{
    uint32_t first = word * 4;
    return m >= first + 4 ? 0xFFFFFFFFu : m <= first ? 0u : 0xFFFFFFFFu >> (32 - 8 * (m - first));
}

DML_HD dml_u128 dml_merge_bytes(dml_u128 low, dml_u128 high, uint32_t m)
{
    dml_u128 r;
    uint32_t k;
    k = dml_low_bytes_mask(m, 0); r.x = (low.x & k) | (high.x & ~k);
    k = dml_low_bytes_mask(m, 1); r.y = (low.y & k) | (high.y & ~k);
    k = dml_low_bytes_mask(m, 2); r.z = (low.z & k) | (high.z & ~k);
    k = dml_low_bytes_mask(m, 3); r.w = (low.w & k) | (high.w & ~k);
    return r;
}

/* A byte range known to be bound: [begin, end). */
typedef struct dml_span {
    const unsigned char* begin;
    const unsigned char* end;
} dml_span;

/* v with its bytes [at, at + size) replaced by the low bytes of value
 * (size 1, 2 or 4, at a multiple of size). */
DML_HD dml_u128 dml_insert_bytes(dml_u128 v, uint32_t at, uint32_t size, uint32_t value)
{
    uint32_t bits = (at % 4) * 8, mask = (size == 4 ? 0xFFFFFFFFu : (1u << (8 * size)) - 1) << bits;
    value = (value << bits) & mask;
    switch (at / 4) {
    case 0: v.x = (v.x & ~mask) | value; break;
    case 1: v.y = (v.y & ~mask) | value; break;
    case 2: v.z = (v.z & ~mask) | value; break;
    default: v.w = (v.w & ~mask) | value; break;
    }
    return v;
}

/* The aligned vector at a, of which bytes [begin, end) are needed: loaded
 * whole when it lies inside the span, else only bytes [begin, end), each
 * piece the widest naturally aligned access that fits (at most 4 pieces when
 * begin or end is 0 or 16, as for a row's first or last vector). Other bytes
 * are 0. */
DML_HD dml_u128 dml_load_vector_part(const unsigned char* a, uint32_t begin, uint32_t end, dml_span span, int site)
{
    if (a >= span.begin && a + DML_CUDA_VECTOR_BYTES <= span.end) {
        DML_TRACE(site, 0, a, DML_CUDA_VECTOR_BYTES);
        return dml_load128(a);
    }
    dml_u128 v = { 0, 0, 0, 0 };
    for (uint32_t at = begin; at < end;) {
        uint32_t size = 8;
        while (at % size || at + size > end)
            size /= 2;
        DML_TRACE(DML_SITE_PART_LOAD, 0, a + at, size);
        if (size == 8) {
            uint64_t q = dml_load64(a + at);
            v = dml_insert_bytes(v, at, 4, (uint32_t)q);
            v = dml_insert_bytes(v, at + 4, 4, (uint32_t)(q >> 32));
        } else {
            uint32_t word = size == 4 ? (uint32_t)dml_load32(a + at)
                : size == 2           ? (uint32_t)dml_load16(a + at)
                                      : (uint32_t)dml_load8(a + at);
            v = dml_insert_bytes(v, at, size, word);
        }
        at += size;
    }
    return v;
}

/* The 16 bytes at p, of which bytes [begin, end) are needed (the others
 * are don't-cares), reading nothing outside the span but needed bytes. */
DML_HD dml_u128 dml_load128_needed(const unsigned char* p, uint32_t begin, uint32_t end, dml_span span)
{
    uint32_t shift = (uint32_t)((uintptr_t)p % DML_CUDA_VECTOR_BYTES);
    if (shift == 0)
        return dml_load_vector_part(p, begin, end, span, DML_SITE_LOAD);
    const unsigned char* aligned = p - shift;
    uint32_t low_end = shift + end < DML_CUDA_VECTOR_BYTES ? shift + end : DML_CUDA_VECTOR_BYTES;
    uint32_t high_begin = shift + begin > DML_CUDA_VECTOR_BYTES ? shift + begin - DML_CUDA_VECTOR_BYTES : 0;
    dml_u128 zero = { 0, 0, 0, 0 };
    dml_u128 lo = shift + begin < DML_CUDA_VECTOR_BYTES
        ? dml_load_vector_part(aligned, shift + begin, low_end, span, DML_SITE_LOAD) : zero;
    dml_u128 hi = shift + end > DML_CUDA_VECTOR_BYTES
        ? dml_load_vector_part(aligned + DML_CUDA_VECTOR_BYTES, high_begin, shift + end - DML_CUDA_VECTOR_BYTES, span,
              DML_SITE_LOAD_HIGH)
        : zero;
    return dml_extract128(lo, hi, shift);
}

DML_HD dml_u128 dml_load128_within(const unsigned char* p, dml_span span)
{
    return dml_load128_needed(p, 0, DML_CUDA_VECTOR_BYTES, span);
}

/* VECTOR modes: a row's offsets, with an outer reversal axis applied (its
 * length is constant along the row: the launcher guarantees it). */
DML_HD dml_row dml_vector_row(const dml_gather_params* p, uint64_t row, int wide, int reverse, int outer_rank)
{
    dml_row r = dml_row_offsets(p, row, wide, outer_rank);
    if (reverse && (uint32_t)p->axis != p->outer_rank)
        r.in += dml_reversed_coordinate(r.axis_coordinate, dml_sequence_length(p, r.len)) * p->in_strides[p->axis];
    return r;
}

/* Input element offset of the row's element j (input rows run at +1 or -1;
 * REVERSE_SUBSEQUENCES along the row reverses its first `length`). */
DML_HD int64_t dml_vector_source(const dml_row* r, int64_t j, int mode, int inner_reverse, uint64_t length)
{
    if (inner_reverse)
        j = dml_reversed_coordinate((uint64_t)j, length);
    return mode == DML_CUDA_MODE_VECTOR_REVERSED ? r->in - j : r->in + j;
}

/* The input row: every byte of it is an element the gather reads, so loads
 * anywhere inside it stay inside the bound input range. */
DML_HD dml_span dml_input_row(const dml_gather_params* p, const dml_row* r, uint32_t element_size, int mode)
{
    const int64_t first = mode == DML_CUDA_MODE_VECTOR_REVERSED ? r->in - (int64_t)(p->row_length - 1) : r->in;
    dml_span span;
    span.begin = p->in + first * element_size;
    span.end = span.begin + p->row_length * element_size;
    return span;
}

/* A row's layout: head elements up to the first aligned output vector, then
 * `vectors` full vectors, then the tail. */
typedef struct dml_row_layout {
    uint64_t head, vectors, edges;
} dml_row_layout;

DML_HD dml_row_layout dml_layout_row(const dml_gather_params* p, const dml_row* r, uint32_t element_size)
{
    uintptr_t out = (uintptr_t)(p->out + r->out * element_size);
    uint64_t head = ((DML_CUDA_VECTOR_BYTES - out % DML_CUDA_VECTOR_BYTES) % DML_CUDA_VECTOR_BYTES) / element_size;
    if (head > p->row_length)
        head = p->row_length;
    dml_row_layout l;
    l.head = head;
    l.vectors = (p->row_length - head) / p->lanes;
    l.edges = p->row_length - l.vectors * p->lanes;
    return l;
}

/* Item `slot` copies edge elements slot, slot + row_items, ... one by one. */
DML_HD void dml_vector_edges(const dml_gather_params* p, const dml_row* r, const dml_row_layout* l, uint64_t slot,
    uint32_t element_size, int mode, int inner_reverse, uint64_t length)
{
    for (uint64_t q = slot; q < l->edges; q += p->row_items) {
        int64_t j = (int64_t)(q < l->head ? q : q + l->vectors * p->lanes);
        int64_t in = dml_vector_source(r, j, mode, inner_reverse, length);
        uint64_t v = dml_load_element(p->in + in * element_size, element_size, DML_SITE_EDGE_LOAD);
        dml_store_element(p->out + (r->out + j) * element_size, v, element_size, DML_SITE_EDGE_STORE);
    }
}

/* One vector item: loads its body vector into *value and returns where it
 * goes, or NULL when the item has no body vector (or straddles a reversal
 * boundary, copied element by element here). Edge elements are copied here. */
DML_HD unsigned char* dml_vector_item(const dml_gather_params* p, uint64_t item, uint32_t element_size, int mode,
    int wide, int reverse, int outer_rank, dml_u128* value)
{
    uint64_t row, slot;
    dml_split_item(p, item, wide, &row, &slot);
    dml_row r = dml_vector_row(p, row, wide, reverse, outer_rank);
    const int inner_reverse = reverse && (uint32_t)p->axis == p->outer_rank;
    const uint64_t length = inner_reverse ? dml_sequence_length(p, r.len) : 0;
    const dml_span span = dml_input_row(p, &r, element_size, mode);
    dml_row_layout l = dml_layout_row(p, &r, element_size);
    if (slot < l.edges)
        dml_vector_edges(p, &r, &l, slot, element_size, mode, inner_reverse, length);
    if (slot >= l.vectors)
        return 0;
    const uint64_t j = l.head + slot * p->lanes, lanes = p->lanes;
    unsigned char* destination = p->out + (r.out + (int64_t)j) * element_size;
    int64_t lowest;
    int backwards = mode == DML_CUDA_MODE_VECTOR_REVERSED;
    if (inner_reverse && j < length) {
        if (j + lanes > length) {
            /* Straddles the end of the reversed prefix: its first m = L - j
             * lanes are input elements L-1-j .. 0 (the row's first vector,
             * reversed and shifted down), the rest input elements L .. j+lanes-1
             * (the vector at j). Both windows lie inside the row. */
            uint32_t m = (uint32_t)(length - j) * element_size;
            dml_u128 zero = { 0, 0, 0, 0 };
            dml_u128 first =
                dml_reverse_lanes(dml_load128_needed(p->in + r.in * element_size, 0, m, span), element_size);
            dml_u128 prefix = dml_extract128(first, zero, DML_CUDA_VECTOR_BYTES - m);
            dml_u128 rest =
                dml_load128_needed(p->in + (r.in + (int64_t)j) * element_size, m, DML_CUDA_VECTOR_BYTES, span);
            *value = dml_merge_bytes(prefix, rest, m);
            return destination;
        }
        lowest = r.in + (int64_t)(length - j - lanes); /* inside the prefix: read backwards */
        backwards = 1;
    } else {
        lowest = backwards ? r.in - (int64_t)(j + lanes - 1) : r.in + (int64_t)j;
    }
    *value = dml_load128_within(p->in + lowest * element_size, span);
    if (backwards)
        *value = dml_reverse_lanes(*value, element_size);
    return destination;
}

/* The whole work of one thread. */
DML_HD void dml_gather_thread(const dml_gather_params* p, uint64_t block, uint32_t thread, uint64_t grid,
    uint32_t block_dim, uint32_t element_size, int mode, int wide, int reverse, int outer_rank)
{
    const uint64_t per_block = (uint64_t)block_dim * DML_CUDA_ITEMS;
    const uint64_t stride = grid * per_block;
    for (uint64_t base = block * per_block + thread; base < p->count; base += stride) {
        if (mode == DML_CUDA_MODE_SCALAR) {
            uint64_t values[DML_CUDA_ITEMS];
            int64_t destinations[DML_CUDA_ITEMS];
            DML_UNROLL
            for (int k = 0; k < DML_CUDA_ITEMS; ++k) {
                uint64_t item = base + (uint64_t)k * block_dim;
                if (item < p->count) {
                    int64_t source;
                    dml_scalar_offsets(p, item, wide, reverse, outer_rank, &source, &destinations[k]);
                    values[k] = dml_load_element(p->in + source * element_size, element_size, DML_SITE_LOAD);
                }
            }
            DML_UNROLL
            for (int k = 0; k < DML_CUDA_ITEMS; ++k) {
                uint64_t item = base + (uint64_t)k * block_dim;
                if (item < p->count)
                    dml_store_element(p->out + destinations[k] * element_size, values[k], element_size, DML_SITE_STORE);
            }
        } else {
            dml_u128 values[DML_CUDA_ITEMS];
            unsigned char* destinations[DML_CUDA_ITEMS];
            DML_UNROLL
            for (int k = 0; k < DML_CUDA_ITEMS; ++k) {
                uint64_t item = base + (uint64_t)k * block_dim;
                destinations[k] = 0;
                if (item < p->count)
                    destinations[k] =
                        dml_vector_item(p, item, element_size, mode, wide, reverse, outer_rank, &values[k]);
            }
            DML_UNROLL
            for (int k = 0; k < DML_CUDA_ITEMS; ++k) {
                if (destinations[k]) {
                    DML_TRACE(DML_SITE_STORE, 1, destinations[k], DML_CUDA_VECTOR_BYTES);
                    dml_store128(destinations[k], values[k]);
                }
            }
        }
    }
}

#endif /* DML_CUDA_GATHER_THREAD_H */

/*
 * gather_thread.h — the per-thread code of every gather kernel, shared by the
 * device (kernels.cu, through nvcc) and the host emulator (emulator.c, through
 * the C compiler), so that CI executes exactly the logic the GPU runs.
 *
 * A thread handles DML_CUDA_ITEMS work items per pass of a grid-stride loop:
 * item = pass_base + block * (block_dim * ITEMS) + k * block_dim + thread, so
 * consecutive threads of a warp take consecutive items (consecutive output
 * elements or vectors: coalesced stores). A pass issues all its loads (the
 * items' elements or vectors, a vector item's head or tail element, the
 * sequence lengths) before its first store, so every thread keeps at least
 * ITEMS independent loads in flight; the input, output and lengths pointers
 * are restrict-qualified, so the compiler may not sink a load below a store
 * either. tests/cuda/test_sass_loads.c checks both in the compiled code.
 *
 * Specialisation: callers pass compile-time constants for element_size, mode,
 * wide (64-bit indexing), reverse (dml_cuda_reverse) and outer_rank (-1:
 * read it from the params); after inlining the compiler folds them.
 */
#ifndef DML_CUDA_GATHER_THREAD_H
#define DML_CUDA_GATHER_THREAD_H

#include "core/hd.h"
#include "core/plan.h" /* dml_clamp_sequence_length */
#include "gather_params.h"

#if defined(__CUDACC__)
#define DML_ALIGN16 __align__(16)
#define DML_RESTRICT __restrict__
#if defined(__CUDA_ARCH__)
#define DML_UNROLL _Pragma("unroll")
#else
#define DML_UNROLL
#endif
#else
#include <string.h>
#define DML_UNROLL
#define DML_RESTRICT restrict
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
    DML_SITE_LOAD2 = 7,     /* a load from the second input (SELECT, ONE_HOT: the input2 range) */
    DML_SITE_COUNT = 8
};

/* It is also told where each pass of a thread's grid-stride loop begins,
 * to check that no load of a pass follows one of its stores. */
#if defined(DML_CUDA_EMULATION) && !defined(__CUDA_ARCH__)
void dml_emulator_access(int site, int is_store, const void* address, unsigned bytes);
void dml_emulator_pass(void);
#define DML_TRACE(site, is_store, address, bytes) dml_emulator_access(site, is_store, address, bytes)
#define DML_TRACE_PASS() dml_emulator_pass()
#else
#define DML_TRACE(site, is_store, address, bytes) ((void)(site), (void)(is_store), (void)(address), (void)(bytes))
#define DML_TRACE_PASS() ((void)0)
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

/* REVERSE_SUBSEQUENCES: the sequence length at element `index` of the
 * lengths tensor (4- or 8-byte elements), clamped to the axis. */
DML_HD uint64_t dml_sequence_length(const dml_gather_params* p, const unsigned char* DML_RESTRICT lengths,
    int64_t index)
{
    const unsigned char* at = lengths + index * (int64_t)p->lengths_size;
    DML_TRACE(DML_SITE_LENGTH, 0, at, p->lengths_size);
    return dml_clamp_sequence_length(p->lengths_size == 8 ? dml_load64(at) : dml_load32(at), p->axis_size);
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
DML_HD void dml_scalar_offsets(const dml_gather_params* p, const unsigned char* DML_RESTRICT lengths, uint64_t item,
    int wide, int reverse, int outer_rank, int64_t* source, int64_t* destination)
{
    uint64_t row, k;
    dml_split_item(p, item, wide, &row, &k);
    dml_row r = dml_row_offsets(p, row, wide, outer_rank);
    int64_t in = r.in, kk = (int64_t)k;
    if (reverse == DML_CUDA_REVERSE_ROW) {
        uint64_t length = dml_sequence_length(p, lengths, r.len + kk * p->len_inner);
        in += dml_reversed_coordinate(k, length) * p->in_inner;
    } else if (reverse == DML_CUDA_REVERSE_OUTER) {
        uint64_t length = dml_sequence_length(p, lengths, r.len + kk * p->len_inner);
        in += dml_reversed_coordinate(r.axis_coordinate, length) * p->in_strides[p->axis] + kk * p->in_inner;
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
DML_HD dml_u128 dml_load_vector_part(const unsigned char* a, uint32_t begin, uint32_t end, dml_span span,
    uint32_t element_size, int site)
{
    if (a >= span.begin && a + DML_CUDA_VECTOR_BYTES <= span.end) {
        DML_TRACE(site, 0, a, DML_CUDA_VECTOR_BYTES);
        return dml_load128(a);
    }
    dml_u128 v = { 0, 0, 0, 0 };
    for (uint32_t at = begin; at < end;) {
        uint32_t size = 8; /* begin and end are multiples of the element size: so are the pieces */
        while (size > element_size && (at % size || at + size > end))
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
DML_HD dml_u128 dml_load128_needed(const unsigned char* p, uint32_t begin, uint32_t end, dml_span span,
    uint32_t element_size)
{
    /* Elements are naturally aligned: the shift is a multiple of the
     * element size, which lets the compiler drop the byte shifts of wider
     * elements (fewer registers). */
    uint32_t shift = (uint32_t)((uintptr_t)p % DML_CUDA_VECTOR_BYTES) & ~(element_size - 1);
    if (shift == 0)
        return dml_load_vector_part(p, begin, end, span, element_size, DML_SITE_LOAD);
    const unsigned char* aligned = p - shift;
    uint32_t low_end = shift + end < DML_CUDA_VECTOR_BYTES ? shift + end : DML_CUDA_VECTOR_BYTES;
    uint32_t high_begin = shift + begin > DML_CUDA_VECTOR_BYTES ? shift + begin - DML_CUDA_VECTOR_BYTES : 0;
    dml_u128 zero = { 0, 0, 0, 0 };
    dml_u128 lo = shift + begin < DML_CUDA_VECTOR_BYTES
        ? dml_load_vector_part(aligned, shift + begin, low_end, span, element_size, DML_SITE_LOAD) : zero;
    dml_u128 hi = shift + end > DML_CUDA_VECTOR_BYTES
        ? dml_load_vector_part(aligned + DML_CUDA_VECTOR_BYTES, high_begin, shift + end - DML_CUDA_VECTOR_BYTES, span,
              element_size, DML_SITE_LOAD_HIGH)
        : zero;
    return dml_extract128(lo, hi, shift);
}

DML_HD dml_u128 dml_load128_within(const unsigned char* p, dml_span span, uint32_t element_size)
{
    return dml_load128_needed(p, 0, DML_CUDA_VECTOR_BYTES, span, element_size);
}

/* VECTOR modes: a row's offsets, with an outer reversal axis applied (its
 * length is constant along the row: the launcher guarantees it). */
DML_HD dml_row dml_vector_row(const dml_gather_params* p, const unsigned char* DML_RESTRICT lengths, uint64_t row,
    int wide, int reverse, int outer_rank)
{
    dml_row r = dml_row_offsets(p, row, wide, outer_rank);
    if (reverse == DML_CUDA_REVERSE_OUTER)
        r.in += dml_reversed_coordinate(r.axis_coordinate, dml_sequence_length(p, lengths, r.len)) *
            p->in_strides[p->axis];
    return r;
}

/* Input element offset of the row's element j (input rows run at +1 or -1;
 * REVERSE_SUBSEQUENCES along the row reverses its first `length`). */
DML_HD int64_t dml_vector_source(const dml_row* r, int64_t j, int mode, int reverse, uint64_t length)
{
    if (reverse == DML_CUDA_REVERSE_ROW)
        j = dml_reversed_coordinate((uint64_t)j, length);
    return mode == DML_CUDA_MODE_VECTOR_REVERSED ? r->in - j : r->in + j;
}

/* The input row: every byte of it is an element the gather reads, so loads
 * anywhere inside it stay inside the bound input range. */
DML_HD dml_span dml_input_row(const dml_gather_params* p, const unsigned char* in, const dml_row* r,
    uint32_t element_size, int mode)
{
    const int64_t first = mode == DML_CUDA_MODE_VECTOR_REVERSED ? r->in - (int64_t)(p->row_length - 1) : r->in;
    dml_span span;
    span.begin = in + first * element_size;
    span.end = span.begin + p->row_length * element_size;
    return span;
}

/* A row's layout: head elements up to the first aligned output vector, then
 * `vectors` full vectors, then the tail; `edges` = head + tail elements, at
 * most 2 * lanes - 2 (head and tail are each shorter than a vector). */
typedef struct dml_row_layout {
    uint64_t head, vectors, edges;
} dml_row_layout;

DML_HD dml_row_layout dml_layout_row(const dml_gather_params* p, const unsigned char* out, const dml_row* r,
    uint32_t element_size, int wide)
{
    uintptr_t first = (uintptr_t)(out + r->out * element_size);
    uint32_t head = (uint32_t)(((DML_CUDA_VECTOR_BYTES - first % DML_CUDA_VECTOR_BYTES) % DML_CUDA_VECTOR_BYTES) /
        element_size);
    dml_row_layout l;
    if (!wide) { /* 32-bit arithmetic: fewer registers */
        const uint32_t length = (uint32_t)p->row_length, lanes = p->lanes;
        head = head < length ? head : length;
        const uint32_t vectors = (length - head) / lanes;
        l.head = head;
        l.vectors = vectors;
        l.edges = length - vectors * lanes;
        return l;
    }
    l.head = head < p->row_length ? head : p->row_length;
    l.vectors = (p->row_length - l.head) / p->lanes;
    l.edges = p->row_length - l.vectors * p->lanes;
    return l;
}

/* What one vector item carries from its loads to its stores: its body
 * vector and its edge element, each with its output element offset (-1:
 * none). Offsets, not pointers: with 32-bit indexing they fit a register
 * each, and these registers are what the loads in flight cost. */
typedef struct dml_vector_work {
    dml_u128 value;
    int64_t destination;
    int64_t edge_destination;
    uint64_t edge;
} dml_vector_work;

/* An output element offset as the work keeps it: narrowed to 32 bits with
 * 32-bit indexing (every offset then fits), so that it takes one register. */
DML_HD int64_t dml_work_offset(int64_t offset, int wide)
{
    return wide ? offset : (int64_t)(int32_t)offset;
}

/* The body vector of the row's vector at element j (j + lanes <= row_length):
 * forward, or reversed (lanes swapped), or for REVERSE_SUBSEQUENCES along the
 * row: its first m bytes from the reversed prefix of `length` elements, the
 * rest forward (m = 16 inside the prefix, 0 past it, in between for the
 * vector that straddles its end). */
DML_HD dml_u128 dml_vector_body(const unsigned char* DML_RESTRICT in, const dml_row* r, uint64_t j, uint32_t lanes,
    uint32_t element_size, int mode, int reverse, uint64_t length, dml_span span)
{
    if (reverse == DML_CUDA_REVERSE_ROW) {
        const uint64_t inside = j < length ? (length - j < lanes ? length - j : lanes) : 0;
        const uint32_t m = (uint32_t)inside * element_size;
        const dml_u128 zero = { 0, 0, 0, 0 };
        /* Output lane i < inside is input element length-1-j-i: lane lanes-1-i
         * of the vector at length-j-lanes (of which only those lanes, all in
         * the row, are read). */
        const int64_t window = r->in + (int64_t)length - (int64_t)j - (int64_t)lanes;
        const dml_u128 backward = m ? dml_reverse_lanes(
            dml_load128_needed(in + window * element_size, DML_CUDA_VECTOR_BYTES - m, DML_CUDA_VECTOR_BYTES, span,
                element_size),
            element_size) : zero;
        const dml_u128 forward = m < DML_CUDA_VECTOR_BYTES
            ? dml_load128_needed(in + (r->in + (int64_t)j) * element_size, m, DML_CUDA_VECTOR_BYTES, span, element_size)
            : zero;
        return dml_merge_bytes(backward, forward, m);
    }
    if (mode == DML_CUDA_MODE_VECTOR_REVERSED) {
        const int64_t lowest = r->in - (int64_t)(j + lanes - 1);
        return dml_reverse_lanes(dml_load128_within(in + lowest * element_size, span, element_size), element_size);
    }
    return dml_load128_within(in + (r->in + (int64_t)j) * element_size, span, element_size);
}

/* One vector item's loads: its body vector (the row's slot-th), and the
 * row's edge element number slot (the launcher makes row_items at least
 * the most edge elements a row can have, so each item has one at most). */
DML_HD dml_vector_work dml_vector_load(const dml_gather_params* p, const unsigned char* DML_RESTRICT in,
    unsigned char* DML_RESTRICT out, const unsigned char* DML_RESTRICT lengths, uint64_t item, uint32_t element_size,
    int mode, int wide, int reverse, int outer_rank)
{
    dml_vector_work w;
    w.destination = -1;
    w.edge_destination = -1;
    w.edge = 0;
    uint64_t row, slot;
    dml_split_item(p, item, wide, &row, &slot);
    const dml_row r = dml_vector_row(p, lengths, row, wide, reverse, outer_rank);
    const uint64_t length = reverse == DML_CUDA_REVERSE_ROW ? dml_sequence_length(p, lengths, r.len) : 0;
    const dml_span span = dml_input_row(p, in, &r, element_size, mode);
    const dml_row_layout l = dml_layout_row(p, out, &r, element_size, wide);
    if (slot < l.edges) {
        const int64_t j = (int64_t)(slot < l.head ? slot : slot + l.vectors * p->lanes);
        const int64_t source = dml_vector_source(&r, j, mode, reverse, length);
        w.edge = dml_load_element(in + source * element_size, element_size, DML_SITE_EDGE_LOAD);
        w.edge_destination = dml_work_offset(r.out + j, wide);
    }
    if (slot < l.vectors) {
        const uint64_t j = l.head + slot * p->lanes;
        w.value = dml_vector_body(in, &r, j, p->lanes, element_size, mode, reverse, length, span);
        w.destination = dml_work_offset(r.out + (int64_t)j, wide);
    }
    return w;
}

DML_HD void dml_vector_store(unsigned char* DML_RESTRICT out, const dml_vector_work* w, uint32_t element_size)
{
    if (w->edge_destination >= 0)
        dml_store_element(out + w->edge_destination * element_size, w->edge, element_size, DML_SITE_EDGE_STORE);
    if (w->destination >= 0) {
        unsigned char* destination = out + w->destination * element_size;
        DML_TRACE(DML_SITE_STORE, 1, destination, DML_CUDA_VECTOR_BYTES);
        dml_store128(destination, w->value);
    }
}

/* The floor of loads in flight a launch's kernel holds, the same in the
 * compiled code (tests/cuda/test_sass_loads.c: loads before the first store
 * of its main loop) and in the emulator (tests/cuda/test_coalescing.c: loads
 * a thread issues before its first store): vector paths, 16-byte loads, one
 * per item (a misaligned vector takes two; the paths that need more than 64
 * registers for them have them: DML_GATHER_BLOCKS_PER_SM); scalar paths,
 * loads of any width, an element per item and with REVERSE_SUBSEQUENCES its
 * sequence length. */
DML_HD uint32_t dml_loads_in_flight_floor(uint32_t element_size, int mode, int wide, int reverse)
{
    (void)element_size;
    (void)wide;
    if (mode == DML_CUDA_MODE_VECTOR || mode == DML_CUDA_MODE_VECTOR_REVERSED)
        return DML_CUDA_ITEMS;
    return reverse != DML_CUDA_REVERSE_NONE ? 2 * DML_CUDA_ITEMS : DML_CUDA_ITEMS;
}

/* One pass of a thread: its items base, base + block_dim, ... (those below
 * count), every load first, then every store. With 32-bit indexing the
 * items are 32-bit (count < 2^31, the launcher's stride < 2^31). */
DML_HD void dml_gather_pass(const dml_gather_params* p, const unsigned char* DML_RESTRICT in,
    unsigned char* DML_RESTRICT out, const unsigned char* DML_RESTRICT lengths, uint64_t base, uint32_t block_dim,
    uint32_t element_size, int mode, int wide, int reverse, int outer_rank)
{
    DML_TRACE_PASS();
    if (mode == DML_CUDA_MODE_SCALAR) {
        uint64_t values[DML_CUDA_ITEMS];
        int64_t destinations[DML_CUDA_ITEMS];
        DML_UNROLL
        for (int k = 0; k < DML_CUDA_ITEMS; ++k) {
            const uint64_t item = wide ? base + (uint64_t)k * block_dim : (uint32_t)base + (uint32_t)k * block_dim;
            if (item < p->count) {
                int64_t source;
                dml_scalar_offsets(p, lengths, item, wide, reverse, outer_rank, &source, &destinations[k]);
                values[k] = dml_load_element(in + source * element_size, element_size, DML_SITE_LOAD);
            }
        }
        DML_UNROLL
        for (int k = 0; k < DML_CUDA_ITEMS; ++k) {
            const uint64_t item = wide ? base + (uint64_t)k * block_dim : (uint32_t)base + (uint32_t)k * block_dim;
            if (item < p->count)
                dml_store_element(out + destinations[k] * element_size, values[k], element_size, DML_SITE_STORE);
        }
    } else {
        dml_vector_work work[DML_CUDA_ITEMS];
        DML_UNROLL
        for (int k = 0; k < DML_CUDA_ITEMS; ++k) {
            const uint64_t item = wide ? base + (uint64_t)k * block_dim : (uint32_t)base + (uint32_t)k * block_dim;
            work[k].destination = -1;
            work[k].edge_destination = -1;
            if (item < p->count)
                work[k] = dml_vector_load(p, in, out, lengths, item, element_size, mode, wide, reverse, outer_rank);
        }
        DML_UNROLL
        for (int k = 0; k < DML_CUDA_ITEMS; ++k)
            dml_vector_store(out, &work[k], element_size);
    }
}

/* The whole work of one thread (a grid-stride loop of passes), over
 * restrict-qualified pointers. */
DML_HD void dml_gather_passes(const dml_gather_params* p, const unsigned char* DML_RESTRICT in,
    unsigned char* DML_RESTRICT out, const unsigned char* DML_RESTRICT lengths, uint64_t block, uint32_t thread,
    uint64_t grid, uint32_t block_dim, uint32_t element_size, int mode, int wide, int reverse, int outer_rank)
{
    const uint64_t per_block = (uint64_t)block_dim * DML_CUDA_ITEMS;
    if (!wide) {
        const uint32_t count = (uint32_t)p->count, stride = (uint32_t)(grid * per_block);
        for (uint32_t base = (uint32_t)(block * per_block) + thread; base < count; base += stride)
            dml_gather_pass(p, in, out, lengths, base, block_dim, element_size, mode, wide, reverse, outer_rank);
        return;
    }
    const uint64_t stride = grid * per_block;
    for (uint64_t base = block * per_block + thread; base < p->count; base += stride)
        dml_gather_pass(p, in, out, lengths, base, block_dim, element_size, mode, wide, reverse, outer_rank);
}

DML_HD void dml_gather_thread(const dml_gather_params* p, uint64_t block, uint32_t thread, uint64_t grid,
    uint32_t block_dim, uint32_t element_size, int mode, int wide, int reverse, int outer_rank)
{
    dml_gather_passes(p, p->in, p->out, p->lengths, block, thread, grid, block_dim, element_size, mode, wide, reverse,
        outer_rank);
}

#endif /* DML_CUDA_GATHER_THREAD_H */

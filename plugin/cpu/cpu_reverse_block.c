/*
 * cpu_reverse_block.c — REVERSE_SUBSEQUENCES with the axis just outside the
 * row and a length per element of the row (a length per column: [T, N]
 * axis 0, lengths [1, N]).
 *
 * Output row a, column j takes input row (a < L_j ? L_j - 1 - a : a) of
 * column j, so one output row reads from every input row. Walked row by row
 * over the whole tensor, each output row streams all T input rows and the
 * lengths again. Instead the columns are cut into small blocks (as
 * cache-blocked transposes are): the block's lengths are read and clamped
 * once, then every output row of the block is written while the block's
 * input rows stay in cache, so memory sees each byte once.
 *
 * Runs of columns with one length (all full, all zero) are row copies. Mixed
 * blocks of contiguous rows, when the axis has at most DML_CPU_SELECT_MAX_T
 * rows and the whole axis is written: vector selects that reverse every
 * column of a vector at once (cpu_reverse_select.c, AVX-512 or AVX2, every
 * element size), over blocks of whole 64-byte vectors. Otherwise the block is
 * packed on the stack and, for 4- and 8-byte elements with AVX2, written 8
 * columns at a time: when all 8 take the straight source (L <= a) or the same
 * reversed row (one L, a < L), one vector load; otherwise a gather of the 8
 * source rows. Other strides, the columns after the last whole vector, and
 * CPUs without AVX2 take the portable loop over the same blocks.
 */
#include "cpu_reverse_block.h"

#include <stddef.h>
#include <string.h>

#include "cpu_lengths.h"
#include "cpu_reverse_select.h"
#include "cpu_simd.h"

#define ALWAYS_INLINE static inline __attribute__((always_inline))

typedef unsigned char byte;

/* Columns per block: input rows of about BLOCK_BYTES. Small, because rows
 * are often a power of two apart ([16, 1M] f32: 4 MiB), so the same column
 * of every row maps to the same cache set, and a block must stay in cache
 * with only a few ways per set (measured best at 256 f32 columns of 16 rows
 * against 64 .. 8192, on a 2-core AMD EPYC VM). Columns that all have the
 * same length need no block: runs of them are copied row by row, up to
 * UNIFORM_MAX_COLS at once (long runs keep the prefetchers ahead). Mixed
 * blocks are first packed into BLOCK_BYTES on the stack. */
#define BLOCK_BYTES ((uint64_t)16 * 1024)
#define BLOCK_MAX_COLS 1024u
#define UNIFORM_MAX_COLS ((uint64_t)1 << 16)

static uint64_t block_cols(uint64_t axis_size, uint64_t E)
{
    uint64_t cols = BLOCK_BYTES / (axis_size * E);
    cols = cols < 8 ? 8 : cols > BLOCK_MAX_COLS ? BLOCK_MAX_COLS : cols;
    return cols / 8 * 8;
}

/* For the select kernels: whole 64-byte vectors of columns, so that only the
 * last block of a row leaves columns to the portable loop (T <= 64: at least
 * one vector fits). */
static uint64_t select_block_cols(uint64_t axis_size, uint64_t E)
{
    const uint64_t lanes = 64 / E, cols = BLOCK_BYTES / (axis_size * E) / lanes * lanes;
    return cols > BLOCK_MAX_COLS ? BLOCK_MAX_COLS : cols;
}

/* The clamped length at lengths element `index` (cpu_lengths.h). axis_size
 * is a tensor size, so it fits in 32 bits. */
ALWAYS_INLINE uint32_t clamped_length(const byte* lengths, int64_t index, size_t LS, uint64_t axis_size)
{
    return (uint32_t)dml_cpu_read_length(lengths, index, LS, axis_size);
}

/* L[k] = the clamped length of column k, for count columns from lengths
 * element `at`, ls apart. Contiguous lengths are clamped a vector at a time:
 * 1-byte columns have 4 or 8 bytes of length each, and a branch per random
 * length cost more than the selects. */
ALWAYS_INLINE void clamp_lengths(uint32_t* L, const byte* lengths, int64_t at, int64_t ls, uint64_t count,
    uint64_t axis_size, size_t LS)
{
    if (ls == 1) {
        const byte* from = lengths + at * (int64_t)LS;
        uint64_t k = 0;
#ifdef DML_CPU_AVX2
        if (have_avx512())
            k = dml_cpu_clamp_lengths_avx512(L, from, count, (uint32_t)axis_size, LS);
        else if (have_avx2())
            k = dml_cpu_clamp_lengths_avx2(L, from, count, (uint32_t)axis_size, LS);
#endif
        for (; k < count; k++)
            L[k] = clamped_length(from, (int64_t)k, LS, axis_size);
        return;
    }
    for (uint64_t k = 0; k < count; k++)
        L[k] = clamped_length(lengths, at + (int64_t)k * ls, LS, axis_size);
}

/* The block's geometry, in elements of the tensor each offset indexes. */
typedef struct block {
    int64_t in, out;     /* row 0, column 0 of the block */
    int64_t is_a, os_a;  /* strides along the axis */
    int64_t is, os;      /* strides along the row */
    const uint32_t* L;   /* clamped lengths of the block's columns */
    uint64_t cols;
} block;

/* Output row a of the block, element by element. */
ALWAYS_INLINE void row_portable(const block* b, const byte* in, byte* out, uint64_t a, uint64_t k0, size_t E)
{
    const int64_t e = (int64_t)E, ai = (int64_t)a;
    for (uint64_t k = k0; k < b->cols; k++) {
        /* r = a < L ? L - 1 - a : a, without a branch: lengths vary from
         * column to column, and a mispredicted branch per element cost 4x. */
        const int64_t L = (int64_t)b->L[k], take = -(int64_t)(ai < L);
        const int64_t r = ai ^ ((ai ^ (L - 1 - ai)) & take);
        const int64_t ki = (int64_t)k;
        memcpy(out + (b->out + ai * b->os_a + ki * b->os) * e, in + (b->in + r * b->is_a + ki * b->is) * e, E);
    }
}

#ifdef DML_CPU_AVX2

/* Output row a of a block with contiguous rows (is == os == 1), 4- or 8-byte
 * elements, and row offsets that fit the gather's signed 32-bit indices.
 * Returns the columns done (whole groups of 8). */
DML_TARGET_AVX2 static uint64_t row_avx2(const block* b, const byte* in, byte* out, uint64_t a,
    size_t E)
{
    const __m256i va = _mm256_set1_epi32((int)a), one = _mm256_set1_epi32(1);
    const __m256i is_a = _mm256_set1_epi32((int)b->is_a);
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    const byte* in0 = in + b->in * (int64_t)E;
    byte* dst = out + (b->out + (int64_t)a * b->os_a) * (int64_t)E;
    const byte* straight = in0 + (int64_t)a * b->is_a * (int64_t)E;
    uint64_t k = 0;
    for (; k + 8 <= b->cols; k += 8) {
        const __m256i L = _mm256_loadu_si256((const __m256i*)(const void*)(b->L + k));
        /* Lengths are at most the axis size (< 2^31 here): signed compares hold. */
        const __m256i reversed = _mm256_cmpgt_epi32(L, va);
        const int any = _mm256_movemask_ps(_mm256_castsi256_ps(reversed));
        const byte* src = NULL;
        if (any == 0) {
            src = straight + k * E;
        } else if (any == 0xFF) {
            const __m256i first = _mm256_permutevar8x32_epi32(L, _mm256_setzero_si256());
            if (_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(L, first))) == 0xFF)
                src = in0 + ((int64_t)(b->L[k] - 1 - a) * b->is_a + (int64_t)k) * (int64_t)E;
        }
        if (src) {
            if (E == 4) {
                _mm256_storeu_si256((__m256i*)(void*)(dst + k * 4), _mm256_loadu_si256((const __m256i*)(const void*)src));
            } else {
                _mm256_storeu_si256((__m256i*)(void*)(dst + k * 8), _mm256_loadu_si256((const __m256i*)(const void*)src));
                _mm256_storeu_si256((__m256i*)(void*)(dst + k * 8 + 32),
                    _mm256_loadu_si256((const __m256i*)(const void*)(src + 32)));
            }
            continue;
        }
        /* row = a < L ? L - 1 - a : a; index = row * is_a + column */
        const __m256i row = _mm256_blendv_epi8(va, _mm256_sub_epi32(_mm256_sub_epi32(L, one), va), reversed);
        const __m256i index = _mm256_add_epi32(_mm256_mullo_epi32(row, is_a), _mm256_add_epi32(lane, _mm256_set1_epi32((int)k)));
        if (E == 4) {
            __m256i v = _mm256_i32gather_epi32((const int*)(const void*)in0, index, 4);
            _mm256_storeu_si256((__m256i*)(void*)(dst + k * 4), v);
        } else {
            __m256i lo = _mm256_i32gather_epi64((const long long*)(const void*)in0, _mm256_castsi256_si128(index), 8);
            __m256i hi = _mm256_i32gather_epi64((const long long*)(const void*)in0, _mm256_extracti128_si256(index, 1), 8);
            _mm256_storeu_si256((__m256i*)(void*)(dst + k * 8), lo);
            _mm256_storeu_si256((__m256i*)(void*)(dst + k * 8 + 32), hi);
        }
    }
    return k;
}

static uint64_t abs64(int64_t v)
{
    return v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
}

/* Whether every gather index (row * is_a + column, rows < axis_size, columns
 * < cols) fits in int32 and the lengths compare as signed. */
static int gather_fits(const block* b, uint64_t axis_size)
{
    uint64_t reach;
    return axis_size < INT32_MAX && !__builtin_mul_overflow(axis_size, abs64(b->is_a), &reach) &&
        reach + b->cols < INT32_MAX;
}
#endif

/* Asks the caches for the block of `cols` columns at input element `at`
 * (T rows) and its lengths, one block before it is read: the block's rows
 * are T streams a large power of two apart, more than the hardware's
 * prefetchers follow, so without it the packing waits on memory ([16, 4M]
 * 1-byte, random lengths, one thread: 0.57-0.79x memcpy without, 0.89-0.97x
 * with). Only for outputs of PREFETCH_MIN_BYTES and more: below, the
 * tensor stays in L2 or close to it, and the prefetches cost more time than
 * they save (1 MiB ran about 10% slower with them, 4 MiB 5% faster). */
#define PREFETCH_MIN_BYTES ((uint64_t)4 << 20)
ALWAYS_INLINE void prefetch_block(const byte* in, int64_t at, int64_t is_a, uint64_t T, const byte* lengths,
    int64_t len_at, int64_t ls, uint64_t cols, size_t E, size_t LS)
{
    const int64_t e = (int64_t)E;
    for (uint64_t r = 0; r < T; r++) {
        const byte* row = in + (at + (int64_t)r * is_a) * e;
        for (uint64_t x = 0; x < cols * E; x += 64)
            __builtin_prefetch(row + x, 0, 2);
    }
    if (ls == 1)
        for (uint64_t x = 0; x < cols * LS; x += 64)
            __builtin_prefetch(lengths + len_at * (int64_t)LS + (int64_t)x, 0, 2);
}

/* Whether every column of the block has the same length. */
static int uniform(const uint32_t* L, uint64_t cols)
{
    for (uint64_t k = 1; k < cols; k++)
        if (L[k] != L[0])
            return 0;
    return 1;
}

ALWAYS_INLINE void reverse_block(const dml_plan* p, const dml_plan_args* args, const dml_cpu_block_origin* o,
    uint64_t a_begin, uint64_t a_end, uint64_t j_begin, uint64_t j_end, size_t E, size_t LS, int stream)
{
    const int inner = (int)p->rank - 1, axis = p->axis;
    const byte* in = args->input;
    byte* out = args->output;
    const byte* lengths = args->lengths;
    const int64_t ls = p->len_strides[inner], e = (int64_t)E;
    const uint64_t T = p->axis_size;
    uint32_t L[BLOCK_MAX_COLS];
    const block whole = { .is_a = p->in_strides[axis], .os_a = p->out_strides[axis], .is = p->in_strides[inner],
        .os = p->out_strides[inner], .L = L };
    const int contiguous = whole.is == 1 && whole.os == 1;
    const int prefetch = contiguous && p->element_count * E >= PREFETCH_MIN_BYTES;
#ifdef DML_CPU_AVX2
    /* Short axes, all rows (a range split inside the axis takes the loops
     * below): vector selects, which pack the block themselves. */
    const int selects = contiguous && T <= DML_CPU_SELECT_MAX_T && a_begin == 0 && a_end == T && have_avx2();
#else
    const int selects = 0;
#endif
    const uint64_t step = selects ? select_block_cols(T, E) : block_cols(T, E);
    _Alignas(64) byte scratch[BLOCK_BYTES];
    _Static_assert(BLOCK_BYTES >= DML_CPU_SELECT_SCRATCH_BYTES, "the select kernels pack into scratch");
    block b = whole;
    for (uint64_t j = j_begin; j < j_end; j += b.cols) {
        b.cols = j_end - j < step ? j_end - j : step;
        b.is_a = whole.is_a; /* a packed block changed it */
        const int64_t ji = (int64_t)j;
        b.in = o->in + ji * b.is;
        b.out = o->out + ji * b.os;
        if (prefetch && j + b.cols < j_end) {
            const uint64_t next = j + b.cols, cols = j_end - next < step ? j_end - next : step;
            prefetch_block(in, o->in + (int64_t)next, b.is_a, T, lengths, o->len + (int64_t)next * ls, ls, cols, E, LS);
        }
        clamp_lengths(L, lengths, o->len + ji * ls, ls, b.cols, T, LS);
        if (contiguous && uniform(L, b.cols)) {
            /* One source row per output row: straight copies, as long as
             * the next columns keep the same length. */
            while (j + b.cols < j_end && b.cols < UNIFORM_MAX_COLS) {
                /* 64 columns at a time, without branches (vectorised). */
                const uint64_t next = j_end - j - b.cols < 64 ? j_end - j - b.cols : 64;
                const int64_t at = o->len + (ji + (int64_t)b.cols) * ls;
                unsigned differ = 0;
                for (uint64_t k = 0; k < next; k++)
                    differ |= clamped_length(lengths, at + (int64_t)k * ls, LS, T) != L[0];
                if (differ)
                    break;
                b.cols += next;
            }
            for (uint64_t a = a_begin; a < a_end; a++) {
                const int64_t r = a < L[0] ? (int64_t)(L[0] - 1 - a) : (int64_t)a;
                memcpy(out + (b.out + (int64_t)a * b.os_a) * e, in + (b.in + r * b.is_a) * e, b.cols * E);
            }
            continue;
        }
#ifdef DML_CPU_AVX2
        if (selects) {
            const dml_cpu_select_block kernel = { in + b.in * e, b.is_a * e, out + b.out * e, b.os_a * e, L, T,
                b.cols, scratch, stream };
            const uint64_t done = have_avx512() ? dml_cpu_select_avx512(&kernel, E)
                                                : dml_cpu_select_avx2(&kernel, E);
            if (done < b.cols)
                for (uint64_t a = a_begin; a < a_end; a++)
                    row_portable(&b, in, out, a, done, E);
            continue;
        }
#endif
        const byte* source = in;
        if (contiguous && T * b.cols * E <= sizeof scratch) {
            /* The block's rows, packed: read in place, rows a power of two
             * apart share cache sets and evict each other on every access
             * (1-byte elements ran 0.05x memcpy that way). Every row of the
             * group may be a source, and all lie inside the input tensor. */
            for (uint64_t r = 0; r < T; r++)
                memcpy(scratch + r * b.cols * E, in + (b.in + (int64_t)r * b.is_a) * e, b.cols * E);
            source = scratch;
            b.in = 0;
            b.is_a = (int64_t)b.cols;
        }
#ifdef DML_CPU_AVX2
        if ((E == 4 || E == 8) && contiguous && gather_fits(&b, T) && have_avx2()) {
            for (uint64_t a = a_begin; a < a_end; a++)
                row_portable(&b, source, out, a, row_avx2(&b, source, out, a, E), E);
            continue;
        }
#endif
        for (uint64_t a = a_begin; a < a_end; a++)
            row_portable(&b, source, out, a, 0, E);
    }
}

#define DEFINE_BLOCK(E, LS)                                                                                       \
    static void reverse_block_##E##_##LS(const dml_plan* p, const dml_plan_args* args,                           \
        const dml_cpu_block_origin* o, uint64_t a0, uint64_t a1, uint64_t j0, uint64_t j1, int stream)            \
    {                                                                                                             \
        reverse_block(p, args, o, a0, a1, j0, j1, E, LS, stream);                                                 \
    }
DEFINE_BLOCK(1, 4)
DEFINE_BLOCK(2, 4)
DEFINE_BLOCK(4, 4)
DEFINE_BLOCK(8, 4)
DEFINE_BLOCK(1, 8)
DEFINE_BLOCK(2, 8)
DEFINE_BLOCK(4, 8)
DEFINE_BLOCK(8, 8)

int dml_cpu_reverse_block_applies(const dml_plan* p)
{
    const int inner = (int)p->rank - 1;
    /* The blocks walk every row of the axis: a composed plan (a graph's) may
     * cover only part of an axis whose lengths clamp to its whole size. */
    return p->kind == DML_PLAN_REVERSE_SUBSEQUENCES && inner >= 1 && p->axis == inner - 1 &&
        p->len_strides[inner] != 0 && p->axis_size == p->sizes[p->axis];
}

void dml_cpu_reverse_block(const dml_plan* p, const dml_plan_args* args, const dml_cpu_block_origin* origin,
    uint64_t a_begin, uint64_t a_end, uint64_t j_begin, uint64_t j_end, int stream)
{
    if (a_begin >= a_end || j_begin >= j_end)
        return;
    const int wide = p->lengths_element_size == 8;
    void (*run)(const dml_plan*, const dml_plan_args*, const dml_cpu_block_origin*, uint64_t, uint64_t, uint64_t,
        uint64_t, int);
    switch (p->element_size) {
    case 1: run = wide ? reverse_block_1_8 : reverse_block_1_4; break;
    case 2: run = wide ? reverse_block_2_8 : reverse_block_2_4; break;
    case 4: run = wide ? reverse_block_4_8 : reverse_block_4_4; break;
    case 8: run = wide ? reverse_block_8_8 : reverse_block_8_4; break;
    default: return;
    }
    run(p, args, origin, a_begin, a_end, j_begin, j_end, stream);
#ifdef DML_CPU_AVX2
    if (stream) /* non-temporal stores are visible to other threads after the fence */
        _mm_sfence();
#endif
}

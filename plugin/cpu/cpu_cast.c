#include "cpu_cast.h"

#include <string.h>

#include "core/cast.h"
#include "cpu_execute.h"
#include "cpu_simd.h"

/* dst[k * ds] = convert(src[k * ss]) for k < n, strides in elements. */
typedef void (*cast_row_fn)(unsigned char* dst, int64_t ds, const unsigned char* src, int64_t ss, uint64_t n);

typedef struct cast_rows {
    cast_row_fn portable, avx2;
} cast_rows;

/* The eleven types with their sizes, for the pair table below. */
#define CAST_OUT_TYPES(X, IN, IS) \
    X(IN, IS, FLOAT32, 4) X(IN, IS, FLOAT16, 2) X(IN, IS, UINT32, 4) X(IN, IS, UINT16, 2) X(IN, IS, UINT8, 1) \
    X(IN, IS, INT32, 4) X(IN, IS, INT16, 2) X(IN, IS, INT8, 1) X(IN, IS, FLOAT64, 8) X(IN, IS, UINT64, 8)   \
    X(IN, IS, INT64, 8)
#define CAST_IN_TYPES(X) \
    X(FLOAT32, 4) X(FLOAT16, 2) X(UINT32, 4) X(UINT16, 2) X(UINT8, 1) X(INT32, 4) X(INT16, 2) X(INT8, 1) \
    X(FLOAT64, 8) X(UINT64, 8) X(INT64, 8)

/* One element through locals (buffers are element-aligned, but memcpy keeps
 * the loop free of alignment and aliasing assumptions at no cost). */
#define CAST_ONE(IN, IS, OUT, OS, dst, src)                                              \
    do {                                                                                 \
        dml_scalar x_, y_;                                                               \
        memcpy(&x_, (src), IS);                                                          \
        dml_cast_element(DML_TENSOR_DATA_TYPE_##OUT, &y_, DML_TENSOR_DATA_TYPE_##IN, &x_); \
        memcpy((dst), &y_, OS);                                                          \
    } while (0)

/* The contiguous row, compiled for the baseline and for AVX2 (wider
 * vectors; the conversions are the same integer and IEEE operations). */
#define CAST_ROW_CONTIGUOUS(IN, IS, OUT, OS, suffix, attribute)                                          \
    attribute static void cast_row_##IN##_##OUT##_##suffix(unsigned char* dst, int64_t ds,              \
        const unsigned char* src, int64_t ss, uint64_t n)                                               \
    {                                                                                                    \
        if (ds != 1 || ss != 1) {                                                                        \
            for (uint64_t k = 0; k < n; ++k)                                                             \
                CAST_ONE(IN, IS, OUT, OS, dst + (int64_t)k * ds * OS, src + (int64_t)k * ss * IS);       \
            return;                                                                                      \
        }                                                                                                \
        for (uint64_t k = 0; k < n; ++k)                                                                 \
            CAST_ONE(IN, IS, OUT, OS, dst + k * OS, src + k * IS);                                       \
    }

#if defined(__x86_64__)
#define CAST_AVX2 __attribute__((target("avx2")))
#define CAST_PAIR(IN, IS, OUT, OS)                                           \
    CAST_ROW_CONTIGUOUS(IN, IS, OUT, OS, portable, )                         \
    CAST_ROW_CONTIGUOUS(IN, IS, OUT, OS, avx2, CAST_AVX2)
#define CAST_ENTRY(IN, IS, OUT, OS) \
    [DML_TENSOR_DATA_TYPE_##IN][DML_TENSOR_DATA_TYPE_##OUT] = { cast_row_##IN##_##OUT##_portable, cast_row_##IN##_##OUT##_avx2 },
#else
#define CAST_PAIR(IN, IS, OUT, OS) CAST_ROW_CONTIGUOUS(IN, IS, OUT, OS, portable, )
#define CAST_ENTRY(IN, IS, OUT, OS) \
    [DML_TENSOR_DATA_TYPE_##IN][DML_TENSOR_DATA_TYPE_##OUT] = { cast_row_##IN##_##OUT##_portable, NULL },
#endif

#define CAST_PAIRS_OF(IN, IS) CAST_OUT_TYPES(CAST_PAIR, IN, IS)
#define CAST_ENTRIES_OF(IN, IS) CAST_OUT_TYPES(CAST_ENTRY, IN, IS)

CAST_IN_TYPES(CAST_PAIRS_OF)

#define CAST_TYPE_SLOTS (DML_TENSOR_DATA_TYPE_INT64 + 1)
static const cast_rows rows_table[CAST_TYPE_SLOTS][CAST_TYPE_SLOTS] = { CAST_IN_TYPES(CAST_ENTRIES_OF) };

#ifdef DML_CPU_AVX512
/* float32 to float16 with AVX-512F's vcvtps2ph: round to nearest even, and
 * a NaN keeps its sign and the top of its payload, quieted, exactly as
 * cast.h's dml_cast_float_to_half (the branch-free rounding vectorised ran
 * at half memcpy's speed at 64 MiB). The input is asked for 1 KiB ahead
 * into L2: the loop waited on its loads (64 MiB out, one thread's CPU time:
 * 0.67-0.70x memcpy of the same traffic without, 0.82-0.91x with). */
#define PREFETCH_BYTES 1024
#define ALWAYS_INLINE static inline __attribute__((always_inline))

/* The elements before a streamed row's first `align`-byte boundary of
 * output (at most n), written with ordinary stores; UINT64_MAX where the
 * row cannot stream (not contiguous, or dst off its element alignment). */
static uint64_t stream_head(const unsigned char* dst, int64_t ds, int64_t ss, uint64_t n, uintptr_t align,
    uint64_t out_size)
{
    if (ds != 1 || ss != 1 || (uintptr_t)dst % out_size)
        return UINT64_MAX;
    const uint64_t head = ((align - (uintptr_t)dst % align) % align) / out_size;
    return head < n ? head : n;
}

ALWAYS_INLINE DML_TARGET_AVX512 void f32_f16_row(unsigned char* dst, int64_t ds, const unsigned char* src,
    int64_t ss, uint64_t n, int stream)
{
    uint64_t k = 0;
    if (stream) { /* 32-byte non-temporal stores from the first 32-byte boundary on */
        k = stream_head(dst, ds, ss, n, 32, 2);
        stream = k != UINT64_MAX;
        k = stream ? k : 0;
        cast_row_FLOAT32_FLOAT16_portable(dst, 1, src, 1, k);
    }
    if (ds == 1 && ss == 1)
        for (; k + 16 <= n; k += 16) {
            if (k + PREFETCH_BYTES / 4 < n) /* inside the row */
                _mm_prefetch((const char*)(src + 4 * k + PREFETCH_BYTES), _MM_HINT_T1);
            const __m512 f = _mm512_loadu_ps((const void*)(src + 4 * k));
            const __m256i h = _mm512_cvtps_ph(f, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
            if (stream)
                _mm256_stream_si256((__m256i*)(void*)(dst + 2 * k), h);
            else
                _mm256_storeu_si256((__m256i*)(void*)(dst + 2 * k), h);
        }
    cast_row_FLOAT32_FLOAT16_portable(dst + (int64_t)k * ds * 2, ds, src + (int64_t)k * ss * 4, ss, n - k);
}

DML_TARGET_AVX512 static void cast_row_FLOAT32_FLOAT16_avx512(unsigned char* dst, int64_t ds,
    const unsigned char* src, int64_t ss, uint64_t n)
{
    f32_f16_row(dst, ds, src, ss, n, 0);
}

DML_TARGET_AVX512 static void cast_row_FLOAT32_FLOAT16_avx512_stream(unsigned char* dst, int64_t ds,
    const unsigned char* src, int64_t ss, uint64_t n)
{
    f32_f16_row(dst, ds, src, ss, n, 1);
}

/* float32 to int32 with AVX-512F: vcvttps2dq truncates toward zero and
 * gives INT32_MIN for NaN and for every value outside the range; cast.h
 * saturates the top to INT32_MAX and makes NaN 0, done with two masks
 * (1 MiB in cache, one thread's CPU time: 1.45x faster than the AVX2
 * loop the compiler makes of cast.h). Its input is prefetched as
 * float32 -> float16's is (64 MiB, `dmlbench --case cast_f32_i32`, three
 * in-process A/B runs: 0.98-1.15x memcpy on two threads -> 1.24-1.27x).
 * uint8 to float32 the same way gained nothing over that loop. */
ALWAYS_INLINE DML_TARGET_AVX512 void f32_i32_row(unsigned char* dst, int64_t ds, const unsigned char* src,
    int64_t ss, uint64_t n, int stream)
{
    uint64_t k = 0;
    const __m512 top = _mm512_set1_ps(2147483648.0f);
    const __m512i max = _mm512_set1_epi32(INT32_MAX);
    if (stream) { /* 64-byte non-temporal stores from the first line boundary on */
        k = stream_head(dst, ds, ss, n, 64, 4);
        stream = k != UINT64_MAX;
        k = stream ? k : 0;
        cast_row_FLOAT32_INT32_portable(dst, 1, src, 1, k);
    }
    if (ds == 1 && ss == 1)
        for (; k + 16 <= n; k += 16) {
            if (k + PREFETCH_BYTES / 4 < n) /* inside the row */
                _mm_prefetch((const char*)(src + 4 * k + PREFETCH_BYTES), _MM_HINT_T1);
            const __m512 f = _mm512_loadu_ps((const void*)(src + 4 * k));
            __m512i i = _mm512_cvttps_epi32(f);
            i = _mm512_mask_mov_epi32(i, _mm512_cmp_ps_mask(f, top, _CMP_GE_OQ), max);
            i = _mm512_maskz_mov_epi32(_mm512_cmp_ps_mask(f, f, _CMP_ORD_Q), i);
            if (stream)
                _mm512_stream_si512((void*)(dst + 4 * k), i);
            else
                _mm512_storeu_si512((void*)(dst + 4 * k), i);
        }
    cast_row_FLOAT32_INT32_portable(dst + (int64_t)k * ds * 4, ds, src + (int64_t)k * ss * 4, ss, n - k);
}

DML_TARGET_AVX512 static void cast_row_FLOAT32_INT32_avx512(unsigned char* dst, int64_t ds, const unsigned char* src,
    int64_t ss, uint64_t n)
{
    f32_i32_row(dst, ds, src, ss, n, 0);
}

DML_TARGET_AVX512 static void cast_row_FLOAT32_INT32_avx512_stream(unsigned char* dst, int64_t ds,
    const unsigned char* src, int64_t ss, uint64_t n)
{
    f32_i32_row(dst, ds, src, ss, n, 1);
}

/* uint8 to float32, streamed (every uint8 is a float32 exactly): 16 bytes
 * widened to a line of 16 floats and stored non-temporally, the input
 * prefetched as the pairs above do. Its cached rows keep the compiler's
 * AVX2 loop, which this one did not beat in cache; streamed through the L1
 * buffer instead, the loads stopped while each piece went out. */
DML_TARGET_AVX512 static void cast_row_UINT8_FLOAT32_avx512_stream(unsigned char* dst, int64_t ds,
    const unsigned char* src, int64_t ss, uint64_t n)
{
    uint64_t k = stream_head(dst, ds, ss, n, 64, 4);
    if (k == UINT64_MAX) {
        cast_row_UINT8_FLOAT32_avx2(dst, ds, src, ss, n);
        return;
    }
    cast_row_UINT8_FLOAT32_portable(dst, 1, src, 1, k);
    for (; k + 16 <= n; k += 16) {
        if (k + PREFETCH_BYTES < n) /* inside the row */
            _mm_prefetch((const char*)(src + k + PREFETCH_BYTES), _MM_HINT_T1);
        const __m128i b = _mm_loadu_si128((const void*)(src + k));
        _mm512_stream_ps((void*)(dst + 4 * k), _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(b)));
    }
    cast_row_UINT8_FLOAT32_portable(dst + 4 * k, 1, src + k, 1, n - k);
}
#endif

/* The row loop for the plan's pair: where `stream`, one that streams its
 * own contiguous rows (NULL if the pair has none: its rows are staged). */
static cast_row_fn pick_row(const dml_plan* p, int stream)
{
    if (p->in_data_type >= CAST_TYPE_SLOTS || p->data_type >= CAST_TYPE_SLOTS)
        return NULL;
#ifdef DML_CPU_AVX512
    if (p->in_data_type == DML_TENSOR_DATA_TYPE_FLOAT32 && p->data_type == DML_TENSOR_DATA_TYPE_FLOAT16 &&
        have_avx512())
        return stream ? cast_row_FLOAT32_FLOAT16_avx512_stream : cast_row_FLOAT32_FLOAT16_avx512;
    if (p->in_data_type == DML_TENSOR_DATA_TYPE_FLOAT32 && p->data_type == DML_TENSOR_DATA_TYPE_INT32 &&
        have_avx512())
        return stream ? cast_row_FLOAT32_INT32_avx512_stream : cast_row_FLOAT32_INT32_avx512;
    if (p->in_data_type == DML_TENSOR_DATA_TYPE_UINT8 && p->data_type == DML_TENSOR_DATA_TYPE_FLOAT32 && stream &&
        have_avx512())
        return cast_row_UINT8_FLOAT32_avx512_stream;
#endif
    if (stream)
        return NULL;
    const cast_rows* r = &rows_table[p->in_data_type][p->data_type];
    return r->avx2 && dml_cpu_isa() >= DML_CPU_ISA_AVX2 ? r->avx2 : r->portable;
}

int dml_cpu_cast_supports(const dml_plan* plan)
{
    return pick_row(plan, 0) != NULL;
}

/* Flat output indices [begin, end), each row by `row`. */
static void cast_range_with(const dml_plan* p, const dml_plan_args* args, uint64_t begin, uint64_t end,
    cast_row_fn row)
{
    if (!row || begin >= end)
        return;
    const unsigned char* in = args->input;
    unsigned char* out = args->output;
    const int64_t ie = p->in_element_size, oe = p->element_size;
    const uint32_t last = p->rank - 1;
    const uint64_t n = p->sizes[last];
    /* The outer coordinates of `begin`, and the offsets of its row's element 0. */
    uint64_t c[DML_PLAN_MAX_RANK], rest = begin / n, j0 = begin % n;
    int64_t src = p->in_offset, dst = p->out_offset;
    for (uint32_t d = last; d-- > 0;) {
        c[d] = rest % p->sizes[d];
        rest /= p->sizes[d];
        src += (int64_t)c[d] * p->in_strides[d];
        dst += (int64_t)c[d] * p->out_strides[d];
    }
    const int64_t is = p->in_strides[last], os = p->out_strides[last];
    for (uint64_t left = end - begin;;) {
        const uint64_t count = n - j0 < left ? n - j0 : left;
        row(out + (dst + (int64_t)j0 * os) * oe, os, in + (src + (int64_t)j0 * is) * ie, is, count);
        left -= count;
        if (left == 0)
            return;
        j0 = 0;
        for (uint32_t d = last; d-- > 0;) { /* the next row */
            src += p->in_strides[d];
            dst += p->out_strides[d];
            if (++c[d] < p->sizes[d])
                break;
            src -= (int64_t)p->sizes[d] * p->in_strides[d];
            dst -= (int64_t)p->sizes[d] * p->out_strides[d];
            c[d] = 0;
        }
    }
}

static void cast_range_cached(const dml_plan* p, const dml_plan_args* args, uint64_t begin, uint64_t end)
{
    cast_range_with(p, args, begin, end, pick_row(p, 0));
}

/* Streamed outputs (dml_cpu_run_split_streaming): the pairs with a
 * streaming row loop write their own rows, the others go through the L1
 * buffer. Staged, the loads stop while each piece goes out: float32 ->
 * float16 / int32 took 4.5-4.8 / 2.8-3.2 ms at 64 MiB against 3.6-3.9 /
 * 2.5-2.7 ms streamed by their rows, 16 MiB 0.8-0.9x the time as well
 * (`dmlbench --case cast_f32_i32,cast_f32_f16 --size 16M,64M`, three runs
 * alternating, best thread count, 2-core AMD EPYC VM). */
static void cast_range(const dml_plan* p, const dml_plan_args* args, uint64_t begin, uint64_t end)
{
    if (!dml_cpu_plan_streams(p, args)) {
        cast_range_cached(p, args, begin, end);
        return;
    }
    const cast_row_fn streamed = pick_row(p, 1);
    if (streamed)
        cast_range_with(p, args, begin, end, streamed);
    else
        dml_cpu_run_range_staged(p, args, begin, end, cast_range_cached);
}

unsigned dml_cpu_cast(cpu_pool* pool, const dml_cpu_cost_model* model, unsigned max_threads, const dml_plan* plan,
    const dml_plan_args* args)
{
    /* The bytes moved: both tensors' (a conversion costs about a copy's time
     * per byte on the common pairs). */
    const uint64_t bytes = plan->element_count * (plan->element_size + plan->in_element_size);
    return dml_cpu_run_split_streaming(pool, model, max_threads, plan, args, bytes, cast_range);
}

#include "cpu_fill.h"

#include <string.h>

#include <dml/dml.h>

#include "core/cast.h"
#include "core/fill.h"
#include "cpu_execute.h"
#include "cpu_simd.h"

#define ALWAYS_INLINE static inline __attribute__((always_inline))

typedef unsigned char byte;

/* The plan's value parameters, widened once. */
typedef struct fill_values {
    uint32_t data_type, e;
    uint64_t start, delta;
    float delta32, start16, delta16; /* FLOAT32's delta; FLOAT16's start and delta widened */
    double delta64;
} fill_values;

static fill_values values_of(const dml_plan* p)
{
    fill_values v;
    memset(&v, 0, sizeof v);
    v.data_type = p->data_type;
    v.e = p->element_size;
    v.start = p->fill_start.u64;
    v.delta = p->fill_delta.u64;
    v.delta32 = p->fill_delta.f32;
    v.delta64 = p->fill_delta.f64;
    v.start16 = dml_half_to_float(p->fill_start.u16);
    v.delta16 = dml_half_to_float(p->fill_delta.u16);
    return v;
}

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* Bytes [0, bytes) of a contiguous row of one e-byte value: the value
 * replicated over 64 bytes (every e-aligned address starts an element, so
 * every 64-byte-aligned one starts the pattern), stored a line at a time
 * with AVX-512 (a third of the time of 16-byte stores at 4 MiB: the
 * stores were the loop's limit), 16 bytes at a time without, the ends
 * element by element. (Large outputs are streamed out by
 * dml_cpu_run_split, or by their own rows: sequence_row_streamed.) */
#ifdef DML_CPU_AVX512
DML_TARGET_AVX512 static void fill_lines_avx512(byte* out, uint64_t lines, const byte* line)
{
    const __m512i v = _mm512_loadu_si512((const void*)line);
    for (uint64_t k = 0; k < lines; ++k)
        _mm512_store_si512((void*)(out + 64 * k), v);
}
#endif

static void fill_pattern(byte* out, uint64_t bytes, uint32_t e, uint64_t value)
{
    byte line[64];
    for (uint32_t b = 0; b < 64; b += e)
        memcpy(line + b, &value, e); /* little-endian: the element's bytes */
#ifdef DML_CPU_AVX512
    if (bytes >= 128 && have_avx512()) {
        const uint64_t head = (64 - ((uintptr_t)out & 63)) & 63; /* a multiple of e: the pattern from an element */
        memcpy(out, line, (size_t)head);
        out += head, bytes -= head;
        fill_lines_avx512(out, bytes / 64, line);
        out += bytes / 64 * 64, bytes %= 64;
        memcpy(out, line, (size_t)bytes);
        return;
    }
#endif
    uint64_t head = (16 - ((uintptr_t)out & 15)) & 15;
    head = head < bytes ? head : bytes;
    memcpy(out, line, (size_t)head);
    out += head, bytes -= head;
#if defined(__SSE2__)
    const __m128i v = _mm_loadu_si128((const __m128i*)(const void*)line);
    for (; bytes >= 16; bytes -= 16, out += 16)
        _mm_store_si128((__m128i*)(void*)out, v);
#else
    for (; bytes >= 16; bytes -= 16, out += 16)
        memcpy(out, line, 16);
#endif
    memcpy(out, line, (size_t)bytes);
}

/* n elements of one value at stride os: memset when its bytes are all
 * equal and the row is contiguous, else the pattern's 16-byte stores, or a
 * store loop for strided rows. */
static void fill_constant(byte* out, int64_t os, uint64_t n, uint32_t e, uint64_t value)
{
    if (os == 1) {
        uint64_t byte_pattern = (value & 0xFF) * 0x0101010101010101ull;
        uint64_t mask = e == 8 ? ~0ull : ((1ull << (8 * e)) - 1);
        if (((value ^ byte_pattern) & mask) == 0)
            memset(out, (int)(value & 0xFF), (size_t)(n * e));
        else
            fill_pattern(out, n * e, e, value);
        return;
    }
    const int64_t step = os * (int64_t)e;
    for (uint64_t j = 0; j < n; ++j)
        memcpy(out + (int64_t)j * step, &value, e); /* little-endian: the type's low bytes */
}

/* Integers: the value itself steps, by ks * delta (start + k * delta
 * modulo 2^bits advances exactly so). */
#define INTEGER_SEQUENCE(T)                                                      \
    do {                                                                         \
        T v = (T)(f->start + (uint64_t)k0 * f->delta);                          \
        const T step = (T)((uint64_t)(int64_t)ks * f->delta);                   \
        for (uint64_t j = 0; j < n; ++j, v = (T)(v + step))                     \
            memcpy(out + j * sizeof(T), &v, sizeof(T));                          \
    } while (0)

/* Contiguous rows whose positions k0 + j * ks all lie in [0, 2^31): loops
 * the compiler vectorises, each an induction. Floats step the position as
 * an int32 (rounded to float, the same value as from the uint64) and
 * compute fill.h's start + (float)k * delta without its k = 0 test (a
 * select the loop would not vectorise through): position 0 is at most one
 * end of the row, written after. float16 rounds by cast.h's branch-free
 * dml_cast_float_to_half, bit for bit half.h's dml_float_to_half
 * (tests/core/test_cast_half.c) that fill.h names. */
ALWAYS_INLINE void sequence_row_body(const fill_values* f, byte* out, uint64_t n, int32_t k0, int32_t ks)
{
    uint32_t k = (uint32_t)k0; /* unsigned: the step past the row's end may leave int32 */
    switch (f->data_type) {
    case DML_TENSOR_DATA_TYPE_FLOAT32: {
        float start;
        const uint32_t start_bits = (uint32_t)f->start;
        memcpy(&start, &start_bits, 4);
        for (uint64_t j = 0; j < n; ++j, k += (uint32_t)ks) {
            float r = dml_fill_canonical_f32(dml_fill_mul_add_f32(start, (float)(int32_t)k, f->delta32));
            memcpy(out + 4 * j, &r, 4);
        }
        break;
    }
    case DML_TENSOR_DATA_TYPE_FLOAT64: {
        double start;
        memcpy(&start, &f->start, 8);
        for (uint64_t j = 0; j < n; ++j, k += (uint32_t)ks) {
            double r = dml_fill_canonical_f64(dml_fill_mul_add_f64(start, (double)(int32_t)k, f->delta64));
            memcpy(out + 8 * j, &r, 8);
        }
        break;
    }
    case DML_TENSOR_DATA_TYPE_FLOAT16: {
        const float start16 = f->start16, delta16 = f->delta16;
        for (uint64_t j = 0; j < n; ++j, k += (uint32_t)ks) {
            float r = dml_fill_mul_add_f32(start16, (float)(int32_t)k, delta16);
            const uint32_t nan = dml_cast_mask(r != r); /* masks: a ?: here stays a branch */
            const uint16_t h = (uint16_t)((dml_cast_float_to_half(r) & ~nan) | (DML_FILL_NAN16 & nan));
            memcpy(out + 2 * j, &h, 2);
        }
        break;
    }
    default:
        switch (f->e) {
        case 1: INTEGER_SEQUENCE(uint8_t); return;
        case 2: INTEGER_SEQUENCE(uint16_t); return;
        case 4: INTEGER_SEQUENCE(uint32_t); return;
        default: INTEGER_SEQUENCE(uint64_t); return;
        }
    }
    if (k0 == 0) /* position 0 is the start's bits, unchanged (fill.h) */
        memcpy(out, &f->start, f->e);
    else if (k0 + (int64_t)(n - 1) * ks == 0)
        memcpy(out + (n - 1) * f->e, &f->start, f->e);
}

/* The loops compiled for the baseline and for AVX2 (wider vectors, and
 * the conversions and 32-bit multiplies SSE2 lacks). */
static void sequence_row_portable(const fill_values* f, byte* out, uint64_t n, int32_t k0, int32_t ks)
{
    sequence_row_body(f, out, n, k0, ks);
}

#ifdef DML_CPU_AVX2
DML_TARGET_AVX2 static void sequence_row_avx2(const fill_values* f, byte* out, uint64_t n, int32_t k0, int32_t ks)
{
    sequence_row_body(f, out, n, k0, ks);
}
#endif

#ifdef DML_CPU_AVX512
/* float16 rows 16 elements at a time with AVX-512F's vcvtps2ph (round to
 * nearest even, as half.h: 4x faster than the branch-free rounding above),
 * NaNs replaced as fill.h says. Returns the elements written. */
DML_TARGET_AVX512 static uint64_t f16_sequence_avx512(const fill_values* f, byte* out, uint64_t n, int32_t k0,
    int32_t ks)
{
    const __m512i lanes = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    const __m512i step = _mm512_set1_epi32((int32_t)(16u * (uint32_t)ks));
    const __m512 start = _mm512_set1_ps(f->start16), delta = _mm512_set1_ps(f->delta16);
    const __m256i nan = _mm256_set1_epi16((short)DML_FILL_NAN16);
    __m512i k = _mm512_add_epi32(_mm512_set1_epi32(k0), _mm512_mullo_epi32(_mm512_set1_epi32(ks), lanes));
    uint64_t j = 0;
    for (; j + 16 <= n; j += 16, k = _mm512_add_epi32(k, step)) {
        const __m512 r = _mm512_add_ps(start, _mm512_mul_ps(_mm512_cvtepi32_ps(k), delta)); /* two roundings */
        __m256i h = _mm512_cvtps_ph(r, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
        h = _mm256_mask_mov_epi16(h, _mm512_cmp_ps_mask(r, r, _CMP_UNORD_Q), nan);
        _mm256_storeu_si256((__m256i*)(void*)(out + 2 * j), h);
    }
    return j;
}
#endif

static void sequence_row_small(const fill_values* f, byte* out, uint64_t n, int32_t k0, int32_t ks)
{
#ifdef DML_CPU_AVX512
    if (f->data_type == DML_TENSOR_DATA_TYPE_FLOAT16 && have_avx512()) {
        const uint64_t j = f16_sequence_avx512(f, out, n, k0, ks);
        if (k0 == 0) /* position 0 is the start's bits, unchanged (fill.h) */
            memcpy(out, &f->start, 2);
        else if (k0 + (int64_t)(n - 1) * ks == 0 && j == n)
            memcpy(out + (n - 1) * 2, &f->start, 2);
        if (j == n)
            return;
        out += 2 * j;
        k0 += (int32_t)j * ks;
        n -= j;
    }
#endif
#ifdef DML_CPU_AVX2
    if (have_avx2()) {
        sequence_row_avx2(f, out, n, k0, ks);
        return;
    }
#endif
    sequence_row_portable(f, out, n, k0, ks);
}

#ifdef DML_CPU_AVX512
/* Streamed sequence rows: each 64-byte line computed in a register and
 * stored non-temporally. Staged through the L1 buffer instead, the stores
 * that computed each piece waited behind the previous piece's non-temporal
 * ones: 0.73-0.81 of the write-only rate at 16 and 64 MiB, where a constant
 * fill (computed once) ran at 0.98-1.05 (2-core Intel Xeon VM, `dmlbench
 * --case fill_sequence,fill_constant --size 16M,64M`). Integers step each
 * lane by the line's elements times the step, modulo 2^bits, as
 * INTEGER_SEQUENCE does; float32 and float64 compute start + (float)k *
 * delta per lane, rounded twice and NaN made canonical, as fill.h does
 * (position 0, whose value is the start's bits, is never in these lines:
 * sequence_row_streamed keeps a row's first and last elements out).
 * float16 is not here (its rows stay staged). */
static int sequence_streams(uint32_t data_type)
{
    return data_type != DML_TENSOR_DATA_TYPE_FLOAT16;
}

DML_TARGET_AVX512 static void sequence_lines_avx512(const fill_values* f, byte* out, uint64_t lines, int32_t k0,
    int32_t ks)
{
    const uint32_t e = f->e, per_line = 64 / e;
    if (f->data_type == DML_TENSOR_DATA_TYPE_FLOAT32 || f->data_type == DML_TENSOR_DATA_TYPE_FLOAT64) {
        const __m512i lanes = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
        const __m512i step = _mm512_set1_epi32((int32_t)(per_line * (uint32_t)ks));
        __m512i k = _mm512_add_epi32(_mm512_set1_epi32(k0), _mm512_mullo_epi32(_mm512_set1_epi32(ks), lanes));
        if (f->data_type == DML_TENSOR_DATA_TYPE_FLOAT32) {
            float start;
            const uint32_t start_bits = (uint32_t)f->start;
            memcpy(&start, &start_bits, 4);
            const __m512 s = _mm512_set1_ps(start), d = _mm512_set1_ps(f->delta32);
            const __m512 nan = _mm512_castsi512_ps(_mm512_set1_epi32((int32_t)DML_FILL_NAN32));
            for (uint64_t m = 0; m < lines; ++m, k = _mm512_add_epi32(k, step)) {
                const __m512 r = _mm512_add_ps(s, _mm512_mul_ps(_mm512_cvtepi32_ps(k), d));
                const __mmask16 is_nan = _mm512_cmp_ps_mask(r, r, _CMP_UNORD_Q);
                _mm512_stream_ps((void*)(out + 64 * m), _mm512_mask_mov_ps(r, is_nan, nan));
            }
            return;
        }
        double start;
        memcpy(&start, &f->start, 8);
        const __m512d s = _mm512_set1_pd(start), d = _mm512_set1_pd(f->delta64);
        const __m512d nan = _mm512_castsi512_pd(_mm512_set1_epi64((long long)DML_FILL_NAN64));
        for (uint64_t m = 0; m < lines; ++m, k = _mm512_add_epi32(k, step)) {
            const __m512d r = _mm512_add_pd(s, _mm512_mul_pd(_mm512_cvtepi32_pd(_mm512_castsi512_si256(k)), d));
            const __mmask8 is_nan = _mm512_cmp_pd_mask(r, r, _CMP_UNORD_Q);
            _mm512_stream_pd((void*)(out + 64 * m), _mm512_mask_mov_pd(r, is_nan, nan));
        }
        return;
    }
    /* integers: the first line's lanes, then each line's by a per-lane add */
    _Alignas(64) byte first[64] = { 0 }, add[64] = { 0 }; /* every byte written below; gcc cannot tell */
    const uint64_t line_step = (uint64_t)(int64_t)((int64_t)per_line * ks) * f->delta;
    for (uint32_t i = 0; i < per_line; ++i) {
        const uint64_t v = f->start + (uint64_t)((int64_t)k0 + (int64_t)i * ks) * f->delta;
        memcpy(first + i * e, &v, e); /* little-endian: the low bytes */
        memcpy(add + i * e, &line_step, e);
    }
    __m512i v = _mm512_load_si512((const void*)first);
    const __m512i a = _mm512_load_si512((const void*)add);
    for (uint64_t m = 0; m < lines; ++m) {
        _mm512_stream_si512((void*)(out + 64 * m), v);
        v = e == 1 ? _mm512_add_epi8(v, a) : e == 2 ? _mm512_add_epi16(v, a) : e == 4 ? _mm512_add_epi32(v, a)
                                                                                      : _mm512_add_epi64(v, a);
    }
}

/* A contiguous row of a streamed output (positions in [0, 2^31)): ordinary
 * stores up to the first line boundary past its first element and from the
 * last one before its last element, whole lines between. */
static void sequence_row_streamed(const fill_values* f, byte* out, uint64_t n, int32_t k0, int32_t ks)
{
    const uint32_t e = f->e;
    const uint64_t head = ((64 - ((uintptr_t)(out + e) & 63)) & 63) / e + 1;
    if ((uintptr_t)out % e || n < head + 64 / e + 1) {
        sequence_row_small(f, out, n, k0, ks);
        return;
    }
    const uint64_t lines = (n - head - 1) * e / 64, body = lines * 64 / e;
    sequence_row_small(f, out, head, k0, ks);
    sequence_lines_avx512(f, out + head * e, lines, k0 + (int32_t)head * ks, ks);
    sequence_row_small(f, out + (head + body) * e, n - head - body, k0 + (int32_t)(head + body) * ks, ks);
}
#endif

/* n elements at stride os, the j-th at position k0 + j * ks; streamed:
 * sequence rows with sequence_row_streamed where it applies. */
static void fill_row(const fill_values* f, byte* out, int64_t os, uint64_t n, int64_t k0, int64_t ks, int stream)
{
    if (ks == 0 || n == 1) {
        fill_constant(out, os, n, f->e, dml_fill_value(f->data_type, f->start, f->delta, (uint64_t)k0));
        return;
    }
    const int64_t k_last = k0 + (int64_t)(n - 1) * ks; /* positions of the plan: no overflow */
    if (os == 1 && k0 >= 0 && k0 <= INT32_MAX && k_last >= 0 && k_last <= INT32_MAX) {
#ifdef DML_CPU_AVX512
        if (stream) {
            sequence_row_streamed(f, out, n, (int32_t)k0, (int32_t)ks);
            return;
        }
#endif
        sequence_row_small(f, out, n, (int32_t)k0, (int32_t)ks);
        return;
    }
    (void)stream;
    const int64_t step = os * (int64_t)f->e;
    for (uint64_t j = 0; j < n; ++j) {
        uint64_t v = dml_fill_value(f->data_type, f->start, f->delta, (uint64_t)(k0 + (int64_t)j * ks));
        memcpy(out + (int64_t)j * step, &v, f->e); /* little-endian: the type's low bytes */
    }
}

static void fill_range(const dml_plan* p, const dml_plan_args* args, uint64_t begin, uint64_t end, int stream)
{
    if (begin >= end)
        return;
    const fill_values f = values_of(p);
    byte* out = args->output;
    const uint32_t inner = p->rank - 1;
    const uint64_t row = p->sizes[inner];
    /* The coordinates of `begin`, and the offsets of its row's element 0. */
    uint64_t c[DML_PLAN_MAX_RANK], rest = begin;
    int64_t k = p->in_offset, o = p->out_offset;
    for (uint32_t d = p->rank; d-- > 0;) {
        c[d] = rest % p->sizes[d];
        rest /= p->sizes[d];
        if (d != inner) {
            k += (int64_t)c[d] * p->in_strides[d];
            o += (int64_t)c[d] * p->out_strides[d];
        }
    }
    const int64_t ks = p->in_strides[inner], os = p->out_strides[inner];
    uint64_t index = begin, j = c[inner];
    while (index < end) {
        uint64_t n = row - j;
        if (n > end - index)
            n = end - index;
        fill_row(&f, out + (o + (int64_t)j * os) * (int64_t)f.e, os, n, k + (int64_t)j * ks, ks, stream);
        index += n;
        j = 0;
        for (uint32_t d = inner; d-- > 0;) { /* the next row */
            k += p->in_strides[d];
            o += p->out_strides[d];
            if (++c[d] < p->sizes[d])
                break;
            k -= (int64_t)p->sizes[d] * p->in_strides[d];
            o -= (int64_t)p->sizes[d] * p->out_strides[d];
            c[d] = 0;
        }
    }
}

void dml_cpu_fill_range(const dml_plan* p, const dml_plan_args* args, uint64_t begin, uint64_t end)
{
    fill_range(p, args, begin, end, 0);
}

/* Whether a streamed output's rows stream themselves: sequences along
 * contiguous rows, with AVX-512 (the rest go through the L1 buffer). */
static int rows_stream_themselves(const dml_plan* p)
{
#ifdef DML_CPU_AVX512
    const uint32_t inner = p->rank - 1;
    return p->in_strides[inner] != 0 && p->out_strides[inner] == 1 && sequence_streams(p->data_type) &&
        have_avx512();
#else
    (void)p;
    return 0;
#endif
}

/* dml_cpu_run_split_streaming's range for plans whose rows stream themselves. */
static void fill_range_own_streaming(const dml_plan* p, const dml_plan_args* args, uint64_t begin, uint64_t end)
{
    fill_range(p, args, begin, end, dml_cpu_plan_streams(p, args));
}

unsigned dml_cpu_fill(cpu_pool* pool, const dml_cpu_cost_model* model, unsigned max_threads, const dml_plan* plan,
    const dml_plan_args* args)
{
    const uint64_t bytes = plan->element_count * plan->element_size;
    if (rows_stream_themselves(plan))
        return dml_cpu_run_split_streaming(pool, model, max_threads, plan, args, bytes, fill_range_own_streaming);
    return dml_cpu_run_split(pool, model, max_threads, plan, args, bytes, dml_cpu_fill_range);
}

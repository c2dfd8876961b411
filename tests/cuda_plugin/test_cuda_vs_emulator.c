/*
 * test_cuda_vs_emulator.c — the real kernels (cuda/kernels.cu on the GPU)
 * against the host emulator (cuda/emulator.c) on the same random plans and
 * the same launch decisions, byte for byte, and both against the independent
 * reference (tests/cpu/cpu_test_util.c, sentinels included). Each plan runs
 * with the GPU's SM count and with 1 SM (the grid-stride loop).
 *
 * Every kernel variant must be reached: a variant is what selects a kernel in
 * kernels.cu (element size, mode, index width, REVERSE_SUBSEQUENCES, outer
 * rank), read from the launch (launch.h), so new modes are counted without
 * changes here; the sweep repeats with new random plans until the number of
 * variants seen equals dml_cuda_kernel_count().
 *
 *   test_cuda_vs_emulator                 the sweep; outputs with 256 sentinel bytes on each side
 *   test_cuda_vs_emulator --quick         one plan per variant, exact-size allocations (for
 *                                         compute-sanitizer: an access past a buffer is an error)
 *   test_cuda_vs_emulator --large         the sweep, then two plans above 2^31 elements (64-bit
 *                                         indexing; vector-reversed and scalar), checked against
 *                                         their closed form, sentinels around the output
 *   test_cuda_vs_emulator --emulator-only no GPU needed: the emulator against the reference and
 *                                         the variant coverage (CI runs this)
 *
 * Then the CAST and PAD kernels (cast.cu, pad.cu), which have launches of
 * their own, on hand-made plans (vs_emulator_kinds.c), the same three ways,
 * and the grouped kernels (group.cu) on JOINs and SPLITs
 * (vs_emulator_group.c), and the data-dependent kinds' kernels (indexed.cu)
 * on random INDEXED, SCATTER, SELECT and ONE_HOT plans with hostile indices
 * (vs_emulator_indexed.c), every buffer of its exact size.
 *
 * Needs a GPU except with --emulator-only: exits 77 (skipped) without one.
 * DML_TEST_SEED replays a seed.
 */
#include <cuda_runtime_api.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/ops/op.h"
#include "cpu_test_util.h"
#include "emulator.h"
#include "kernels.h"
#include "launch.h"
#include "reference.h" /* tests/api: FILL's reference */
#include "vs_emulator_group.h"
#include "vs_emulator_kinds.h"
#include "vs_emulator_indexed.h"

#define SKIP 77
#define GUARD 256 /* sentinel bytes each side of an output; keeps cudaMalloc's 256-byte alignment */
#define MAX_VARIANTS 1024
#define MAX_ROUNDS 64

static int failures;
static int on_gpu = 1, quick;

#define CHECK_CUDA(call)                                                                             \
    do {                                                                                             \
        cudaError_t e_ = (call);                                                                     \
        if (e_ != cudaSuccess) {                                                                     \
            fprintf(stderr, "%s:%d: %s: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorName(e_), \
                cudaGetErrorString(e_));                                                             \
            exit(1);                                                                                 \
        }                                                                                            \
    } while (0)

/* ---- kernel variants ------------------------------------------------------- */

typedef struct variant {
    uint32_t element_size;
    int mode, wide, reverse, outer_rank;
} variant;

static variant seen[MAX_VARIANTS];
static int seen_count;

static variant variant_of(const dml_cuda_launch* l)
{
    variant v = { l->element_size, l->mode, l->wide, l->reverse, l->outer_rank };
    return v;
}

/* Records the launch's variant; 1 when it is new. */
static int record_variant(const dml_cuda_launch* l)
{
    if (l->is_copy || l->grid == 0)
        return 0;
    variant v = variant_of(l);
    for (int i = 0; i < seen_count; i++)
        if (!memcmp(&seen[i], &v, sizeof v))
            return 0;
    if (seen_count < MAX_VARIANTS)
        seen[seen_count++] = v;
    return 1;
}

/* ---- one plan -------------------------------------------------------------- */

static void describe(const test_case* t, const dml_cuda_launch* l, uint32_t sms, char* text, size_t size)
{
    const dml_plan* p = &t->plan;
    int n = snprintf(text, size, "kind %u rank %u esize %u index32 %u axis %d count %" PRIu64 " sms %u -> %s mode %d wide %d "
                     "outer_rank %d grid %u; sizes",
        p->kind, p->rank, p->element_size, p->index32, p->axis, p->element_count, sms, l->is_copy ? "copy" : "kernel",
        l->mode, l->wide, l->outer_rank, l->grid);
    for (uint32_t d = 0; d < p->rank && n > 0 && (size_t)n < size; d++)
        n += snprintf(text + n, size - (size_t)n, " %" PRIu64 "(in %" PRId64 ", out %" PRId64 ")", p->sizes[d],
            p->in_strides[d], p->out_strides[d]);
}

static void* device_copy(const void* host, size_t bytes)
{
    void* p = NULL;
    CHECK_CUDA(cudaMalloc(&p, bytes ? bytes : 1));
    if (bytes)
        CHECK_CUDA(cudaMemcpy(p, host, bytes, cudaMemcpyHostToDevice));
    return p;
}

/* The plan on the GPU: the output bytes it leaves, sentinels included, in got
 * (output_bytes). Outside --quick the output has GUARD sentinel bytes on each
 * side, checked here; with --quick every buffer has exactly its size. */
static void run_on_gpu(test_case* t, uint32_t sms, dml_cuda_launch* launch, uint8_t* got, const char* text)
{
    size_t guard = quick ? 0 : GUARD;
    uint8_t* framed = malloc(t->output_bytes + 2 * guard);
    if (!framed)
        abort();
    memset(framed, 0xC3, guard);
    memcpy(framed + guard, t->sentinel, t->output_bytes);
    memset(framed + guard + t->output_bytes, 0x3C, guard);
    void* input = device_copy(t->input, t->input_bytes);
    void* lengths = t->lengths_bytes ? device_copy(t->lengths, t->lengths_bytes) : NULL;
    uint8_t* output = device_copy(framed, t->output_bytes + 2 * guard);
    dml_plan_args device_args = { input, lengths, output + guard, t->input_bytes, t->lengths_bytes, t->output_bytes, NULL, 0 };
    dml_cuda_prepare(&t->plan, &device_args, sms, launch);
    CHECK_CUDA(dml_cuda_launch_gather(launch, 0));
    CHECK_CUDA(cudaDeviceSynchronize());
    CHECK_CUDA(cudaMemcpy(framed, output, t->output_bytes + 2 * guard, cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < guard; i++) {
        if (framed[i] != 0xC3 || framed[guard + t->output_bytes + i] != 0x3C) {
            fprintf(stderr, "FAIL: the GPU wrote a sentinel byte %s the output: %s\n",
                framed[i] != 0xC3 ? "before" : "after", text);
            failures++;
            break;
        }
    }
    memcpy(got, framed + guard, t->output_bytes);
    cudaFree(input);
    cudaFree(output);
    cudaFree(lengths);
    free(framed);
}

/* One plan in the emulator and (unless --emulator-only) on the GPU; every
 * byte compared with each other and the reference. */
static void run_case(test_case* t, uint32_t sms)
{
    case_reset_output(t);
    dml_plan_args host_args = case_args(t);
    dml_cuda_launch host_launch;
    dml_cuda_prepare(&t->plan, &host_args, sms, &host_launch);
    if (dml_cuda_emulate(&host_launch, NULL) != 0) {
        fprintf(stderr, "the emulator refused the launch: %s\n", dml_cuda_emulator_violation());
        exit(1);
    }
    record_variant(&host_launch);

    char text[1024];
    describe(t, &host_launch, sms, text, sizeof text);
    const char* emulated = case_compare(t); /* the emulator's output against the reference */
    if (*emulated) {
        fprintf(stderr, "FAIL: emulator != reference: %s: %s\n", emulated, text);
        failures++;
    }
    if (!on_gpu)
        return;

    uint8_t* got = malloc(t->output_bytes ? t->output_bytes : 1);
    if (!got)
        abort();
    dml_cuda_launch launch;
    run_on_gpu(t, sms, &launch, got, text);
    if (launch.is_copy != host_launch.is_copy || launch.mode != host_launch.mode || launch.wide != host_launch.wide ||
        launch.grid != host_launch.grid || launch.outer_rank != host_launch.outer_rank) {
        fprintf(stderr, "FAIL: different launches for host and device buffers: %s\n", text);
        failures++;
    }
    for (size_t i = 0; i < t->output_bytes; i++) {
        if (got[i] != t->output[i] || got[i] != t->expected[i]) {
            fprintf(stderr, "FAIL: byte %zu: GPU 0x%02x, emulator 0x%02x, reference 0x%02x: %s\n", i, got[i],
                t->output[i], t->expected[i], text);
            failures++;
            break;
        }
    }
    free(got);
}

/* ---- the sweep --------------------------------------------------------------- */

/* Kernels compiled but never launched: a rank-1 forward row is a copy
 * (launch.c), so VECTOR at outer rank 0 never happens. */
static int unreachable_kernels(void) { return 4; }

/* One round over kinds, ranks, element sizes and layouts. --quick runs only
 * plans whose variant is new (and those at 1 SM too). Returns plans run. */
static int sweep(rng* r, uint32_t sms, int round)
{
    static const layout outs[] = { LAYOUT_PACKED, LAYOUT_PADDED, LAYOUT_PERMUTED, LAYOUT_NEGATIVE };
    static const layout ins[] = { LAYOUT_PACKED, LAYOUT_PADDED, LAYOUT_PERMUTED, LAYOUT_NEGATIVE, LAYOUT_RANDOM,
        LAYOUT_REVERSED, LAYOUT_BROADCAST };
    static const uint32_t esizes[] = { 1, 2, 4, 8 };
    int cases = 0;
    for (uint32_t kind = 0; kind <= 1; kind++)
        for (uint32_t rank = 1; rank <= 8; rank++)
            for (size_t e_i = 0; e_i < 4; e_i++)
                for (size_t o = 0; o < sizeof outs / sizeof *outs; o++)
                    for (size_t in = 0; in < sizeof ins / sizeof *ins; in++) {
                        /* mostly small plans; every 16th large enough for the grid-stride loop at 1 SM */
                        uint64_t max = (cases % 16 == 15 && !quick) ? (1u << 20) : 4096;
                        case_spec spec = { .kind = kind, .rank = rank, .element_size = esizes[e_i],
                            .max_elements = max, .in_layout = ins[in], .out_layout = outs[o], .axis = -1,
                            .lengths_element_size = (cases & 1) ? 8 : 4, .len_inner = 2 };
                        test_case t;
                        case_make(&t, r, &spec);
                        /* case_make plans are 64-bit indexed; these buffers fit 32 bits, so half the cases
                         * take the narrow kernels. */
                        t.plan.index32 = (uint32_t)(rng_next(r) & 1);
                        dml_plan_args args = case_args(&t);
                        dml_cuda_launch l;
                        dml_cuda_prepare(&t.plan, &args, sms, &l);
                        if (quick || round > 0) {
                            /* Only plans that reach a variant not yet run. */
                            int is_new = !l.is_copy && l.grid > 0;
                            variant v = variant_of(&l);
                            for (int i = 0; is_new && i < seen_count; i++)
                                is_new = memcmp(&seen[i], &v, sizeof v) != 0;
                            if (!is_new) {
                                case_free(&t);
                                continue;
                            }
                        }
                        run_case(&t, sms);
                        run_case(&t, 1);
                        case_free(&t);
                        cases++;
                    }
    return cases;
}

/* ---- flat staged tiles ---------------------------------------------------------- */

/* DEPTH_TO_SPACE's and SPACE_TO_DEPTH's permutations (DCR), blocks 2 to 4,
 * every element size: the staged tiles' flat store and flat load
 * (tile_staged.h), which the random sweep seldom reaches. Returns plans run. */
static int flat_sweep(rng* r, uint32_t sms)
{
    int cases = 0;
    for (uint64_t b = 2; b <= 4; b++)
        for (uint32_t e = 1; e <= 8; e *= 2)
            for (int to_space = 0; to_space <= 1; to_space++) {
                const uint64_t c = 3, h = 5, w = 37, hw = h * w, space_w = w * b;
                /* DEPTH_TO_SPACE: output [C, H, by, W, bx] of input [by, bx, C, H, W];
                 * SPACE_TO_DEPTH: output [by, bx, C, H, W] of input [C, H, by, W, bx] */
                const uint64_t d2s_sizes[5] = { c, h, b, w, b }, s2d_sizes[5] = { b, b, c, h, w };
                const int64_t d2s_strides[5] = { (int64_t)hw, (int64_t)w, (int64_t)(b * c * hw), 1,
                    (int64_t)(c * hw) };
                const int64_t s2d_strides[5] = { (int64_t)space_w, 1, (int64_t)(h * b * space_w),
                    (int64_t)(b * space_w), (int64_t)b };
                case_spec spec = { .kind = 0, .rank = 5, .element_size = e, .sizes = to_space ? d2s_sizes : s2d_sizes,
                    .in_layout = LAYOUT_PACKED, .out_layout = LAYOUT_PACKED,
                    .in_strides = to_space ? d2s_strides : s2d_strides, .axis = -1, .lengths_element_size = 4 };
                test_case t;
                case_make(&t, r, &spec);
                t.plan.index32 = (uint32_t)(rng_next(r) & 1);
                dml_plan_args args = case_args(&t);
                dml_cuda_launch l;
                dml_cuda_prepare(&t.plan, &args, sms, &l);
                if (!(to_space ? l.params.stage_flat_store : l.params.stage_flat_load)) {
                    fprintf(stderr, "FAIL: %s e=%u block %u: no flat %s\n", to_space ? "DEPTH_TO_SPACE" : "SPACE_TO_DEPTH",
                        e, (unsigned)b, to_space ? "store" : "load");
                    failures++;
                }
                run_case(&t, sms);
                run_case(&t, 1);
                case_free(&t);
                cases++;
            }
    return cases;
}

/* ---- fills ------------------------------------------------------------------------ */

/* One fill plan of `type` (random rank, sizes, layout, value bits) in the
 * emulator and on the GPU, both against tests/api's reference, GUARD
 * sentinel bytes on each side (none with --quick). A desc the runtime
 * refuses is a test bug: it exits. */
static void fill_case(rng* r, DML_TENSOR_DATA_TYPE type, uint32_t e, uint32_t sms, int sequence, uint64_t max_elements)
{
    uint32_t rank = (uint32_t)rng_range(r, 1, 8), sizes[8], strides[8], stride = 1, perm[8];
    uint64_t count = 1;
    for (uint32_t i = 0; i < rank; i++) {
        uint64_t most = max_elements / count;
        sizes[i] = (uint32_t)rng_range(r, 1, (int64_t)(most < 64 ? (most ? most : 1) : 64));
        count *= sizes[i];
        perm[i] = rank - 1 - i;
    }
    int shape = (int)rng_range(r, 0, 2); /* packed, padded, permuted and padded */
    if (shape == 2)
        for (uint32_t i = rank; i > 1; i--) {
            uint32_t j = (uint32_t)rng_range(r, 0, i - 1), t = perm[i - 1];
            perm[i - 1] = perm[j];
            perm[j] = t;
        }
    for (uint32_t i = 0; i < rank; i++) {
        strides[perm[i]] = stride;
        stride *= sizes[perm[i]] + (shape ? (uint32_t)rng_range(r, 0, 2) : 0);
    }
    uint64_t bytes;
    if (!dml_calc_buffer_tensor_size(type, rank, sizes, strides, &bytes))
        abort();
    DML_BUFFER_TENSOR_DESC buffer = { type, DML_TENSOR_FLAG_NONE, rank, sizes, strides, bytes, 0 };
    DML_TENSOR_DESC tensor = { DML_TENSOR_TYPE_BUFFER, &buffer };
    uint64_t start = rng_next(r), delta = rng_next(r), mask = e == 8 ? ~0ull : (1ull << (8 * e)) - 1;
    if (rng_next(r) & 1) { /* small numbers too */
        double d = (double)rng_range(r, -100, 100) / 4;
        float f = (float)d;
        uint16_t h = (uint16_t)(0x3C00 + rng_range(r, -512, 512));
        start = 0;
        if (type == DML_TENSOR_DATA_TYPE_FLOAT64)
            memcpy(&start, &d, 8);
        else if (type == DML_TENSOR_DATA_TYPE_FLOAT32)
            memcpy(&start, &f, 4);
        else if (type == DML_TENSOR_DATA_TYPE_FLOAT16)
            memcpy(&start, &h, 2);
        else
            start = (uint64_t)(int64_t)d;
    }
    DML_SCALAR_UNION su, du;
    memcpy(su.Bytes, &start, 8);
    memcpy(du.Bytes, &delta, 8);
    DML_FILL_VALUE_CONSTANT_OPERATOR_DESC constant = { &tensor, type, su };
    DML_FILL_VALUE_SEQUENCE_OPERATOR_DESC seq = { &tensor, type, su, du };
    DML_OPERATOR_DESC desc = { sequence ? DML_OPERATOR_FILL_VALUE_SEQUENCE : DML_OPERATOR_FILL_VALUE_CONSTANT,
        sequence ? (const void*)&seq : (const void*)&constant };
    dml_plan plan;
    if (dml_plan_from_desc(&desc, &plan) < 0) {
        fprintf(stderr, "fill case refused: %s\n", dml_error_last());
        exit(1);
    }
    size_t guard = quick ? 0 : GUARD;
    uint8_t* expected = malloc(bytes + 2 * guard);
    uint8_t* emulated = malloc(bytes + 2 * guard);
    if (!expected || !emulated)
        abort();
    for (size_t i = 0; i < bytes + 2 * guard; i++)
        expected[i] = (uint8_t)(i * 37 + 11);
    memcpy(emulated, expected, bytes + 2 * guard);
    ref_view v = { e, rank, sizes, strides, expected + guard, bytes };
    ref_fill(&v, (uint32_t)type, start & mask, delta & mask, sequence);
    char text[256];
    snprintf(text, sizeof text, "%s type %d rank %u layout %d, %" PRIu64 " elements, start 0x%" PRIx64
        " delta 0x%" PRIx64 ", %u SMs", sequence ? "FILL_VALUE_SEQUENCE" : "FILL_VALUE_CONSTANT", (int)type, rank,
        shape, count, start & mask, delta & mask, sms);

    dml_plan_args host_args = { NULL, NULL, emulated + guard, 0, 0, bytes, NULL, 0 };
    dml_cuda_launch host_launch;
    dml_cuda_prepare(&plan, &host_args, sms, &host_launch);
    if (dml_cuda_emulate(&host_launch, NULL) != 0) {
        fprintf(stderr, "FAIL: the emulator refused a fill: %s: %s\n", dml_cuda_emulator_violation(), text);
        failures++;
    } else if (memcmp(emulated, expected, bytes + 2 * guard) != 0) {
        fprintf(stderr, "FAIL: emulator != reference: %s\n", text);
        failures++;
    }
    if (on_gpu) {
        uint8_t* framed = malloc(bytes + 2 * guard);
        if (!framed)
            abort();
        for (size_t i = 0; i < bytes + 2 * guard; i++)
            framed[i] = (uint8_t)(i * 37 + 11);
        uint8_t* device = device_copy(framed, bytes + 2 * guard);
        dml_plan_args device_args = { NULL, NULL, device + guard, 0, 0, bytes, NULL, 0 };
        dml_cuda_launch launch;
        dml_cuda_prepare(&plan, &device_args, sms, &launch);
        CHECK_CUDA(dml_cuda_launch_gather(&launch, 0));
        CHECK_CUDA(cudaDeviceSynchronize());
        CHECK_CUDA(cudaMemcpy(framed, device, bytes + 2 * guard, cudaMemcpyDeviceToHost));
        for (size_t i = 0; i < bytes + 2 * guard; i++)
            if (framed[i] != expected[i]) {
                fprintf(stderr, "FAIL: GPU byte %zd (of the output) 0x%02x, reference 0x%02x: %s\n",
                    (ptrdiff_t)i - (ptrdiff_t)guard, framed[i], expected[i], text);
                failures++;
                break;
            }
        cudaFree(device);
        free(framed);
    }
    free(expected);
    free(emulated);
}

/* Every data type, both operators, at the GPU's SM count and at 1 SM;
 * every 8th case large enough for the grid-stride loop. Returns cases run. */
static int fill_sweep(rng* r, uint32_t sms)
{
    static const DML_TENSOR_DATA_TYPE types[] = { DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_FLOAT16,
        DML_TENSOR_DATA_TYPE_UINT32, DML_TENSOR_DATA_TYPE_UINT16, DML_TENSOR_DATA_TYPE_UINT8,
        DML_TENSOR_DATA_TYPE_INT32, DML_TENSOR_DATA_TYPE_INT16, DML_TENSOR_DATA_TYPE_INT8,
        DML_TENSOR_DATA_TYPE_FLOAT64, DML_TENSOR_DATA_TYPE_UINT64, DML_TENSOR_DATA_TYPE_INT64 };
    static const uint32_t sizes[] = { 4, 2, 4, 2, 1, 4, 2, 1, 8, 8, 8 };
    int cases = 0;
    for (int round = 0; round < (quick ? 1 : 4); round++)
        for (size_t t = 0; t < sizeof types / sizeof types[0]; t++)
            for (int sequence = 0; sequence < 2; sequence++) {
                uint64_t max = (cases % 8 == 7 && !quick) ? (1u << 18) : 4096;
                rng copy = *r;
                fill_case(r, types[t], sizes[t], sms, sequence, max);
                fill_case(&copy, types[t], sizes[t], 1, sequence, max);
                cases++;
            }
    return cases;
}

/* ---- above 2^31 elements ------------------------------------------------------ */

static uint8_t pattern_byte(uint64_t i) { return (uint8_t)(i * 131u + (i >> 11) + 7u); }

/* A plan of more than 2^31 one-byte elements, on the GPU only (the emulator
 * would take minutes), against the closed form expected(j), GUARD sentinel
 * bytes each side of the output. */
static void large_case(const char* name, const dml_plan* plan, uint64_t input_bytes, uint32_t sms,
    uint8_t (*expected)(uint64_t j))
{
    uint64_t n = plan->element_count;
    uint8_t* host = malloc(input_bytes > n + 2 * GUARD ? input_bytes : n + 2 * GUARD);
    if (!host)
        abort();
    for (uint64_t i = 0; i < input_bytes; i++)
        host[i] = pattern_byte(i);
    void* input = device_copy(host, input_bytes);
    uint8_t* output = NULL;
    CHECK_CUDA(cudaMalloc((void**)&output, n + 2 * GUARD));
    CHECK_CUDA(cudaMemset(output, 0xC3, n + 2 * GUARD));
    dml_plan_args args = { input, NULL, output + GUARD, input_bytes, 0, n, NULL, 0 };
    dml_cuda_launch launch;
    dml_cuda_prepare(plan, &args, sms, &launch);
    record_variant(&launch);
    CHECK_CUDA(dml_cuda_launch_gather(&launch, 0));
    CHECK_CUDA(cudaDeviceSynchronize());
    CHECK_CUDA(cudaMemcpy(host, output, n + 2 * GUARD, cudaMemcpyDeviceToHost));
    uint64_t bad = 0, first = 0;
    for (uint64_t i = 0; i < GUARD; i++)
        if (host[i] != 0xC3 || host[GUARD + n + i] != 0xC3)
            bad++;
    if (bad)
        fprintf(stderr, "FAIL: large %s: %" PRIu64 " sentinel byte(s) overwritten\n", name, bad);
    uint64_t wrong = 0;
    for (uint64_t j = 0; j < n; j++)
        if (host[GUARD + j] != expected(j) && wrong++ == 0)
            first = j;
    if (wrong)
        fprintf(stderr, "FAIL: large %s: %" PRIu64 " wrong byte(s), the first at %" PRIu64 ": 0x%02x, expected 0x%02x\n",
            name, wrong, first, host[GUARD + first], expected(first));
    failures += (bad || wrong);
    printf("large %s: %" PRIu64 " elements, mode %d wide %d grid %u x %u: %s\n", name, n, launch.mode, launch.wide,
        launch.grid, launch.block, bad || wrong ? "FAILED" : "ok");
    cudaFree(input);
    cudaFree(output);
    free(host);
}

#define LARGE_N ((1ull << 31) + 4099)         /* reversal: odd, so rows end misaligned */
#define LARGE_C ((1ull << 30) + 3)            /* transpose: 2 x C elements */
static uint8_t reversed_byte(uint64_t j) { return pattern_byte(LARGE_N - 1 - j); }
static uint8_t transposed_byte(uint64_t j) { return pattern_byte((j % LARGE_C) * 2 + j / LARGE_C); }

static void large_cases(uint32_t sms)
{
    dml_plan p;
    memset(&p, 0, sizeof p);
    p.kind = DML_PLAN_GATHER;
    p.element_size = 1;
    p.axis = -1;
    p.rank = 1; /* out[j] = in[N - 1 - j] */
    p.element_count = p.sizes[0] = LARGE_N;
    p.in_offset = (int64_t)LARGE_N - 1;
    p.in_strides[0] = -1;
    p.out_strides[0] = 1;
    large_case("reversal", &p, LARGE_N, sms, reversed_byte);
    p.rank = 2; /* out[r][c] = in[c][r], in: C x 2 */
    p.in_offset = 0;
    p.sizes[0] = 2;
    p.sizes[1] = LARGE_C;
    p.element_count = 2 * LARGE_C;
    p.in_strides[0] = 1;
    p.in_strides[1] = 2;
    p.out_strides[0] = (int64_t)LARGE_C;
    p.out_strides[1] = 1;
    large_case("transpose", &p, 2 * LARGE_C, sms, transposed_byte);
}

int main(int argc, char** argv)
{
    int large = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick"))
            quick = 1;
        else if (!strcmp(argv[i], "--large"))
            large = 1;
        else if (!strcmp(argv[i], "--emulator-only"))
            on_gpu = 0;
        else {
            fprintf(stderr, "usage: %s [--quick] [--large] [--emulator-only]\n", argv[0]);
            return 2;
        }
    }
    uint32_t sms = 132; /* an H100's, without a GPU */
    if (on_gpu) {
        int devices = 0;
        cudaError_t e = cudaGetDeviceCount(&devices);
        if (e != cudaSuccess || devices == 0) {
            printf("SKIPPED: needs a CUDA GPU: %s\n", e != cudaSuccess ? cudaGetErrorString(e) : "no CUDA-capable device");
            return SKIP;
        }
        int sm_attr = 0;
        CHECK_CUDA(cudaSetDevice(0));
        CHECK_CUDA(cudaDeviceGetAttribute(&sm_attr, cudaDevAttrMultiProcessorCount, 0));
        sms = (uint32_t)sm_attr;
    }

    uint64_t seed = 0x9E3779B97F4A7C15ull;
    const char* env = getenv("DML_TEST_SEED");
    if (env && *env)
        seed = strtoull(env, NULL, 0);
    printf("seed %" PRIu64 " (DML_TEST_SEED replays it), %u SMs%s%s\n", seed, sms, on_gpu ? "" : ", emulator only",
        quick ? ", one plan per kernel variant, exact-size allocations" : "");
    rng r = { seed };

    const int kernels = dml_cuda_kernel_count() - unreachable_kernels();
    int cases = 0, rounds = 0;
    while (rounds < MAX_ROUNDS && (rounds == 0 || seen_count < kernels))
        cases += sweep(&r, sms, rounds++);
    printf("kernel variants reached: %d of %d launchable, in %d round(s)\n", seen_count, kernels, rounds);
    if (seen_count != kernels) {
        fprintf(stderr, "FAIL: %d kernel variant(s) never reached; reached:", kernels - seen_count);
        for (int i = 0; i < seen_count; i++)
            fprintf(stderr, " e%u/m%d/w%d/r%d/o%d", seen[i].element_size, seen[i].mode, seen[i].wide,
                seen[i].reverse, seen[i].outer_rank);
        fprintf(stderr, "\n");
        failures++;
    }
    rng flat_rng = { seed ^ 0xF1A7ull }; /* its own stream: the fills' plans stay those of the seed */
    const int flat = flat_sweep(&flat_rng, sms);
    printf("flat staged tiles: %d depth/space plans, each at %u SMs and at 1 SM\n", flat, sms);
    int fills = fill_sweep(&r, sms);
    printf("fills: %d plans against the reference, each at %u SMs and at 1 SM\n", fills, sms);
    failures += vs_emulator_kinds(&r, sms, on_gpu, quick ? 0 : GUARD, quick);
    failures += vs_emulator_group(sms, on_gpu);
    failures += vs_emulator_indexed(seed, sms, on_gpu, quick);
    if (large && on_gpu)
        large_cases(sms);
    printf("%d plans, each at %u SMs and at 1 SM%s: %d failure(s)\n", cases, sms,
        on_gpu ? " on the GPU and in the emulator" : " in the emulator", failures);
    return failures ? 1 : 0;
}

/*
 * vs_emulator_kinds.c — DML_PLAN_CAST and DML_PLAN_PAD for
 * test_cuda_vs_emulator: hand-made plans (packed, transposed, reversed,
 * broadcast, gapped output rows; NCHW pads on H and W, pads several times
 * the input, a one-element input), each with 32- and 64-bit indexing, run in
 * the emulator and on the GPU on the same launch, at the GPU's SM count and
 * at 1 SM (the grid-stride loop), every output byte compared with each other
 * and with a naive reference walking plan.h's formula coordinate by
 * coordinate. The reference converts with core/cast.h (the one definition
 * of CAST's rules, checked on all 121 pairs by its own tests) and folds PAD
 * coordinates with its own modulo form of plan.h's rule.
 */
#include "vs_emulator_kinds.h"

#include <cuda_runtime_api.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cast.h"
#include "core/data_type.h"
#include "core/pad_fold.h"
#include "emulator.h"
#include "kernels.h"
#include "launch.h"

#define SENTINEL 0xA5

typedef struct kind_case {
    dml_plan plan;
    const char* name;
    uint8_t* input;
    size_t input_bytes, output_bytes;
    uint8_t* expected; /* the reference's output, sentinels where nothing is written */
} kind_case;

static int failures;

static void check_cuda(cudaError_t e, const char* what)
{
    if (e != cudaSuccess) {
        fprintf(stderr, "%s: %s: %s\n", what, cudaGetErrorName(e), cudaGetErrorString(e));
        exit(1);
    }
}

static void* checked_malloc(size_t bytes)
{
    void* p = malloc(bytes ? bytes : 1);
    if (!p)
        abort();
    return p;
}

/* ---- the reference ---------------------------------------------------------- */

/* plan.h's PAD fold, written as the definition reads: j mod the period,
 * mirrored (REFLECTION, SYMMETRIC), clamped (EDGE), or -1 outside (CONSTANT). */
static int64_t reference_fold(int64_t j, int64_t n, uint32_t mode)
{
    if (j >= 0 && j < n)
        return j;
    if (mode == DML_PADDING_MODE_EDGE)
        return j < 0 ? 0 : n - 1;
    if (mode == DML_PADDING_MODE_REFLECTION || mode == DML_PADDING_MODE_SYMMETRIC) {
        const int64_t period = mode == DML_PADDING_MODE_REFLECTION ? 2 * (n - 1) : 2 * n;
        if (period == 0)
            return 0;
        const int64_t m = ((j % period) + period) % period;
        return m < n ? m : (mode == DML_PADDING_MODE_REFLECTION ? period - m : period - 1 - m);
    }
    return -1;
}

/* Every output coordinate, outermost first, written as plan.h says. */
static void reference(kind_case* k)
{
    const dml_plan* p = &k->plan;
    const uint32_t in_size = p->kind == DML_PLAN_CAST ? p->in_element_size : p->element_size;
    uint64_t c[DML_PLAN_MAX_RANK] = { 0 };
    for (uint64_t n = 0; n < p->element_count; n++) {
        int64_t src = p->in_offset, dst = p->out_offset;
        int inside = 1;
        for (uint32_t d = 0; d < p->rank; d++) {
            int64_t j = (int64_t)c[d];
            if (p->kind == DML_PLAN_PAD && p->pad_extent[d]) {
                j = reference_fold(j + p->pad_origin[d], (int64_t)p->pad_extent[d], p->pad_mode);
                inside = inside && j >= 0;
            }
            src += j * p->in_strides[d];
            dst += (int64_t)c[d] * p->out_strides[d];
        }
        uint8_t* to = k->expected + dst * (int64_t)p->element_size;
        if (p->kind == DML_PLAN_CAST)
            dml_cast_element(p->data_type, to, p->in_data_type, k->input + src * (int64_t)in_size);
        else if (inside)
            memcpy(to, k->input + src * (int64_t)in_size, p->element_size);
        else
            memcpy(to, p->fill_start.bytes, p->element_size);
        for (uint32_t d = p->rank; d-- > 0;) { /* the odometer */
            if (++c[d] < p->sizes[d])
                break;
            c[d] = 0;
        }
    }
}

/* ---- plans ------------------------------------------------------------------- */

/* The output bytes: one past its farthest element (strides never negative here). */
static size_t output_bytes_of(const dml_plan* p)
{
    int64_t last = p->out_offset;
    for (uint32_t d = 0; d < p->rank; d++)
        last += (int64_t)(p->sizes[d] - 1) * p->out_strides[d];
    return (size_t)(last + 1) * p->element_size;
}

static void set_shape(dml_plan* p, uint32_t rank, const uint64_t* sizes, const int64_t* in_strides,
    const int64_t* out_strides)
{
    p->rank = rank;
    p->element_count = 1;
    for (uint32_t d = 0; d < rank; d++) {
        p->sizes[d] = sizes[d];
        p->in_strides[d] = in_strides[d];
        p->out_strides[d] = out_strides[d];
        p->element_count *= sizes[d];
    }
}

/* Row-major strides of sizes (with row_gap extra elements per innermost row). */
static void packed(uint32_t rank, const uint64_t* sizes, int64_t row_gap, int64_t* strides)
{
    int64_t s = 1;
    for (uint32_t d = rank; d-- > 0;) {
        strides[d] = s;
        s *= (int64_t)sizes[d] + (d == rank - 1 ? row_gap : 0);
    }
}

/* Values a cast must get right (rounding ties, ranges' edges, specials),
 * as doubles; a float input element takes one of these or a random one. */
static const double interesting[] = { 0.0, -0.0, 0.5, 1.5, 2.5, -2.5, 127.5, 128.0, -128.5, -129.0, 255.5, 256.0,
    32767.5, 65504.0, 65520.0, 4294967295.5, 9.2233720368547758e18, 1.8446744073709552e19, -9.2233720368547758e18,
    1e-8, 6e-5, 3e38, 1e300, 4.9e-324, INFINITY, -INFINITY, NAN };

static void fill_input(kind_case* k, rng* r, uint32_t in_type, uint32_t in_size, uint64_t elements)
{
    k->input_bytes = (size_t)elements * in_size;
    k->input = checked_malloc(k->input_bytes);
    for (size_t i = 0; i < k->input_bytes; i++)
        k->input[i] = (uint8_t)rng_next(r);
    if (!dml_data_type_is_float((DML_TENSOR_DATA_TYPE)in_type))
        return;
    const size_t table = sizeof interesting / sizeof *interesting;
    for (uint64_t i = 0; i < elements; i++) {
        uint64_t pick = rng_next(r) % (table + 8);
        if (pick >= table + 4)
            continue; /* random bits: NaN payloads, subnormals */
        double v = pick < table ? interesting[pick] : (double)rng_range(r, -70000, 70000) / 8.0;
        dml_cast_element(in_type, k->input + i * in_size, DML_TENSOR_DATA_TYPE_FLOAT64, &v);
    }
}

static void finish_case(kind_case* k)
{
    k->output_bytes = output_bytes_of(&k->plan);
    k->expected = checked_malloc(k->output_bytes);
    memset(k->expected, SENTINEL, k->output_bytes);
    reference(k);
}

typedef struct cast_pair {
    uint32_t in, out;
} cast_pair;

/* Layout `shape` of CAST plan: 0 packed rank 1 (grid-stride at 1 SM), 1 a
 * transposed input, 2 a reversed input into gapped output rows, 3 a
 * broadcast input. */
static void make_cast(kind_case* k, rng* r, cast_pair pair, int shape)
{
    memset(k, 0, sizeof *k);
    dml_plan* p = &k->plan;
    p->kind = DML_PLAN_CAST;
    p->axis = -1;
    p->in_data_type = pair.in;
    p->in_element_size = dml_data_type_size((DML_TENSOR_DATA_TYPE)pair.in);
    p->data_type = pair.out;
    p->element_size = dml_data_type_size((DML_TENSOR_DATA_TYPE)pair.out);
    uint64_t elements = 0;
    if (shape == 0) {
        const uint64_t sizes[] = { 5003 };
        const int64_t one[] = { 1 };
        set_shape(p, 1, sizes, one, one);
        elements = 5003;
        k->name = "cast packed";
    } else if (shape == 1) { /* out[a][b][c] = in[a][c][b] */
        const uint64_t sizes[] = { 7, 13, 33 };
        const int64_t in[] = { 13 * 33, 1, 13 }, out[] = { 13 * 33, 33, 1 };
        set_shape(p, 3, sizes, in, out);
        elements = 7 * 13 * 33;
        k->name = "cast transposed";
    } else if (shape == 2) { /* rows reversed, output rows 32 apart */
        const uint64_t sizes[] = { 37, 29 };
        const int64_t in[] = { 29, -1 }, out[] = { 32, 1 };
        set_shape(p, 2, sizes, in, out);
        p->in_offset = 28;
        elements = 37 * 29;
        k->name = "cast reversed rows";
    } else { /* every row the same 64 elements */
        const uint64_t sizes[] = { 17, 64 };
        const int64_t in[] = { 0, 1 }, out[] = { 64, 1 };
        set_shape(p, 2, sizes, in, out);
        elements = 64;
        k->name = "cast broadcast";
    }
    fill_input(k, r, pair.in, p->in_element_size, elements);
    finish_case(k);
}

/* PAD plan `shape` in `mode`, elements of `e` bytes:
 * 0 NCHW [2,3,5,6] padded on H by 2/3 and W by 4/1;
 * 1 [2,3] padded by 7/5 and 10/9 (pads several times the input), output rows 24 apart;
 * 2 one element padded by 4/3;
 * 3 [3,40,50] padded by 1 on every side of H and W (grid-stride at 1 SM);
 * 4 [5,37] padded by 1/2 and 3/40, output rows 3 apart (the row path, cuda/
 *   pad_rows_thread.h: rows off their windows, borders beyond their reach);
 * 5 one row of 2500 padded by 5/7 (the row path's segments). */
#define PAD_SHAPES 6
static void make_pad(kind_case* k, rng* r, uint32_t mode, uint32_t e, int shape)
{
    static const struct {
        uint32_t rank;
        uint64_t in[4];
        int64_t before[4], after[4];
        int64_t row_gap;
        const char* name;
    } shapes[] = {
        { 4, { 2, 3, 5, 6 }, { 0, 0, 2, 4 }, { 0, 0, 3, 1 }, 0, "pad NCHW" },
        { 2, { 2, 3 }, { 7, 10 }, { 5, 9 }, 2, "pad many times the input" },
        { 1, { 1 }, { 4 }, { 3 }, 0, "pad one element" },
        { 3, { 3, 40, 50 }, { 0, 1, 1 }, { 0, 1, 1 }, 0, "pad rows" },
        { 2, { 5, 37 }, { 1, 3 }, { 2, 40 }, 3, "pad rows off their windows" },
        { 1, { 2500 }, { 5 }, { 7 }, 0, "pad a row of segments" },
    };
    memset(k, 0, sizeof *k);
    dml_plan* p = &k->plan;
    p->kind = DML_PLAN_PAD;
    p->axis = -1;
    p->element_size = e;
    p->pad_mode = mode;
    const uint32_t rank = shapes[shape].rank;
    uint64_t out_sizes[4];
    int64_t in_strides[4], out_strides[4];
    uint64_t elements = 1;
    for (uint32_t d = 0; d < rank; d++) {
        out_sizes[d] = shapes[shape].in[d] + (uint64_t)(shapes[shape].before[d] + shapes[shape].after[d]);
        elements *= shapes[shape].in[d];
        if (shapes[shape].before[d] || shapes[shape].after[d]) {
            p->pad_origin[d] = -shapes[shape].before[d];
            p->pad_extent[d] = shapes[shape].in[d];
        }
    }
    packed(rank, shapes[shape].in, 0, in_strides);
    packed(rank, out_sizes, shapes[shape].row_gap, out_strides);
    set_shape(p, rank, out_sizes, in_strides, out_strides);
    for (uint32_t i = 0; i < e; i++)
        p->fill_start.bytes[i] = (unsigned char)rng_next(r);
    k->name = shapes[shape].name;
    fill_input(k, r, DML_TENSOR_DATA_TYPE_UNKNOWN, e, elements);
    finish_case(k);
}

/* ---- running a plan ---------------------------------------------------------- */

static void describe(const kind_case* k, uint32_t sms, char* text, size_t size)
{
    const dml_plan* p = &k->plan;
    if (p->kind == DML_PLAN_CAST)
        snprintf(text, size, "%s %s -> %s, index32 %u, %u SMs", k->name,
            dml_data_type_name((DML_TENSOR_DATA_TYPE)p->in_data_type),
            dml_data_type_name((DML_TENSOR_DATA_TYPE)p->data_type), p->index32, sms);
    else
        snprintf(text, size, "%s, mode %u, %u-byte elements, index32 %u, %u SMs", k->name, p->pad_mode,
            p->element_size, p->index32, sms);
}

static void compare(const uint8_t* got, const kind_case* k, const char* who, const char* text)
{
    for (size_t i = 0; i < k->output_bytes; i++)
        if (got[i] != k->expected[i]) {
            fprintf(stderr, "FAIL: %s: byte %zu of %zu: 0x%02x, reference 0x%02x: %s\n", who, i, k->output_bytes,
                got[i], k->expected[i], text);
            failures++;
            return;
        }
}

/* The plan's launch; 0 when the launcher picked the kind's own kernel. */
static int check_launch(const dml_cuda_launch* l, const dml_plan* p, const char* text)
{
    if ((p->kind == DML_PLAN_CAST ? l->cast : l->pad) && !l->is_copy && l->grid > 0)
        return 0;
    fprintf(stderr, "FAIL: the launcher did not pick the %s kernel: %s\n", p->kind == DML_PLAN_CAST ? "CAST" : "PAD",
        text);
    failures++;
    return 1;
}

static void* device_copy(const void* host, size_t bytes)
{
    void* p = NULL;
    check_cuda(cudaMalloc(&p, bytes ? bytes : 1), "cudaMalloc");
    if (bytes)
        check_cuda(cudaMemcpy(p, host, bytes, cudaMemcpyHostToDevice), "cudaMemcpy to the GPU");
    return p;
}

/* The plan on the GPU, its output framed by guard sentinel bytes each side;
 * leaves the output in got and the launch in launch. */
static void run_on_gpu(const kind_case* k, uint32_t sms, size_t guard, uint8_t* got, dml_cuda_launch* launch,
    const char* text)
{
    const size_t framed_bytes = k->output_bytes + 2 * guard;
    uint8_t* framed = checked_malloc(framed_bytes);
    memset(framed, SENTINEL, framed_bytes);
    void* input = device_copy(k->input, k->input_bytes);
    uint8_t* output = device_copy(framed, framed_bytes);
    dml_plan_args args = { input, NULL, output + guard, k->input_bytes, 0, k->output_bytes, NULL, 0 };
    dml_cuda_prepare(&k->plan, &args, sms, launch);
    check_cuda(dml_cuda_launch_gather(launch, 0), text);
    check_cuda(cudaDeviceSynchronize(), text);
    check_cuda(cudaMemcpy(framed, output, framed_bytes, cudaMemcpyDeviceToHost), "cudaMemcpy from the GPU");
    for (size_t i = 0; i < guard; i++)
        if (framed[i] != SENTINEL || framed[guard + k->output_bytes + i] != SENTINEL) {
            fprintf(stderr, "FAIL: the GPU wrote a sentinel byte %s the output: %s\n",
                framed[i] != SENTINEL ? "before" : "after", text);
            failures++;
            break;
        }
    memcpy(got, framed + guard, k->output_bytes);
    cudaFree(input);
    cudaFree(output);
    free(framed);
}

static void run_kind_case(const kind_case* k, uint32_t sms, int on_gpu, size_t guard)
{
    char text[256];
    describe(k, sms, text, sizeof text);
    uint8_t* emulated = checked_malloc(k->output_bytes);
    memset(emulated, SENTINEL, k->output_bytes);
    dml_plan_args host_args = { k->input, NULL, emulated, k->input_bytes, 0, k->output_bytes, NULL, 0 };
    dml_cuda_launch host_launch;
    dml_cuda_prepare(&k->plan, &host_args, sms, &host_launch);
    if (check_launch(&host_launch, &k->plan, text) == 0) {
        if (dml_cuda_emulate(&host_launch, NULL) != 0) {
            fprintf(stderr, "FAIL: the emulator refused the launch: %s: %s\n", dml_cuda_emulator_violation(), text);
            failures++;
        } else {
            compare(emulated, k, "emulator != reference", text);
        }
    }
    if (on_gpu) {
        uint8_t* got = checked_malloc(k->output_bytes);
        dml_cuda_launch launch;
        run_on_gpu(k, sms, guard, got, &launch, text);
        if (launch.grid != host_launch.grid || launch.wide != host_launch.wide || launch.cast != host_launch.cast ||
            launch.pad != host_launch.pad) {
            fprintf(stderr, "FAIL: different launches for host and device buffers: %s\n", text);
            failures++;
        }
        compare(got, k, "GPU != reference", text);
        for (size_t i = 0; i < k->output_bytes; i++)
            if (got[i] != emulated[i]) {
                fprintf(stderr, "FAIL: GPU != emulator at byte %zu: 0x%02x, 0x%02x: %s\n", i, got[i], emulated[i], text);
                failures++;
                break;
            }
        free(got);
    }
    free(emulated);
}

/* Both index widths, at sms SMs and at 1; or (quick) the n-th plan once,
 * its index width and SM count picked by n's two low bits. Returns the runs. */
static int run_all_ways(kind_case* k, uint32_t sms, int on_gpu, size_t guard, int quick, int n)
{
    int runs = 0;
    for (uint32_t index32 = 0; index32 <= 1; index32++)
        for (int one_sm = 0; one_sm <= 1; one_sm++) {
            if (quick && (index32 != (uint32_t)(n & 1) || one_sm != ((n >> 1) & 1)))
                continue;
            k->plan.index32 = index32;
            run_kind_case(k, one_sm ? 1 : sms, on_gpu, guard);
            runs++;
        }
    free(k->input);
    free(k->expected);
    return runs;
}

int vs_emulator_kinds(rng* r, uint32_t sms, int on_gpu, size_t guard, int quick)
{
    static const cast_pair pairs[] = {
        { DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_FLOAT16 },
        { DML_TENSOR_DATA_TYPE_FLOAT64, DML_TENSOR_DATA_TYPE_INT8 },
        { DML_TENSOR_DATA_TYPE_INT64, DML_TENSOR_DATA_TYPE_FLOAT32 },
        { DML_TENSOR_DATA_TYPE_UINT8, DML_TENSOR_DATA_TYPE_FLOAT64 },
        { DML_TENSOR_DATA_TYPE_FLOAT16, DML_TENSOR_DATA_TYPE_FLOAT32 },
        { DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_INT32 },
        { DML_TENSOR_DATA_TYPE_UINT64, DML_TENSOR_DATA_TYPE_FLOAT16 },
        { DML_TENSOR_DATA_TYPE_INT16, DML_TENSOR_DATA_TYPE_UINT32 },
        { DML_TENSOR_DATA_TYPE_FLOAT64, DML_TENSOR_DATA_TYPE_UINT64 },
    };
    static const uint32_t modes[] = { DML_PADDING_MODE_CONSTANT, DML_PADDING_MODE_EDGE, DML_PADDING_MODE_REFLECTION, DML_PADDING_MODE_SYMMETRIC };
    static const uint32_t esizes[] = { 1, 2, 4, 8 };
    failures = 0;
    int runs = 0, plans = 0;
    kind_case k;
    for (size_t i = 0; i < sizeof pairs / sizeof *pairs; i++)
        for (int shape = 0; shape < 4; shape++) {
            make_cast(&k, r, pairs[i], shape);
            runs += run_all_ways(&k, sms, on_gpu, guard, quick, plans++);
        }
    for (size_t m = 0; m < sizeof modes / sizeof *modes; m++)
        for (int shape = 0; shape < PAD_SHAPES; shape++) {
            make_pad(&k, r, modes[m], esizes[(m + (size_t)shape) % 4], shape);
            runs += run_all_ways(&k, sms, on_gpu, guard, quick, plans++);
        }
    printf("CAST (%zu type pairs) and PAD (every mode): %d runs%s: %d failure(s)\n", sizeof pairs / sizeof *pairs,
        runs, on_gpu ? " on the GPU and in the emulator" : " in the emulator", failures);
    return failures;
}

/*
 * test_cuda_vs_emulator.c — the real kernels (cuda/kernels.cu on the GPU)
 * against the host emulator (cuda/emulator.c) on the same random plans and
 * the same launch decisions, byte for byte, and both against the independent
 * reference (tests/cpu/cpu_test_util.c, sentinels included). Each plan runs
 * with the GPU's SM count and with 1 SM (the grid-stride loop).
 *
 * Needs a GPU: exits 77 (skipped) without one. DML_TEST_SEED replays a seed.
 */
#include <cuda_runtime_api.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_test_util.h"
#include "emulator.h"
#include "kernels.h"
#include "launch.h"

#define SKIP 77

static int failures;

#define CHECK_CUDA(call)                                                                             \
    do {                                                                                             \
        cudaError_t e_ = (call);                                                                     \
        if (e_ != cudaSuccess) {                                                                     \
            fprintf(stderr, "%s:%d: %s: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorName(e_), \
                cudaGetErrorString(e_));                                                             \
            exit(1);                                                                                 \
        }                                                                                            \
    } while (0)

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

/* One plan on the GPU and in the emulator; every byte compared. */
static void run_case(test_case* t, uint32_t sms)
{
    /* the emulator, on the host buffers */
    case_reset_output(t);
    dml_plan_args host_args = case_args(t);
    dml_cuda_launch host_launch;
    dml_cuda_prepare(&t->plan, &host_args, sms, &host_launch);
    if (dml_cuda_emulate(&host_launch, NULL) != 0) {
        fprintf(stderr, "the emulator refused the launch: %s\n", dml_cuda_emulator_violation());
        exit(1);
    }

    /* the GPU, on device copies (cudaMalloc: 256-byte aligned, as the host
     * buffers are 64-byte aligned: the same vectorisation decisions) */
    void *input = NULL, *output = NULL, *lengths = NULL;
    CHECK_CUDA(cudaMalloc(&input, t->input_bytes ? t->input_bytes : 1));
    CHECK_CUDA(cudaMalloc(&output, t->output_bytes ? t->output_bytes : 1));
    if (t->lengths_bytes) {
        CHECK_CUDA(cudaMalloc(&lengths, t->lengths_bytes));
        CHECK_CUDA(cudaMemcpy(lengths, t->lengths, t->lengths_bytes, cudaMemcpyHostToDevice));
    }
    CHECK_CUDA(cudaMemcpy(input, t->input, t->input_bytes, cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(output, t->sentinel, t->output_bytes, cudaMemcpyHostToDevice));
    dml_plan_args device_args = { input, lengths, output, t->input_bytes, t->lengths_bytes, t->output_bytes };
    dml_cuda_launch launch;
    dml_cuda_prepare(&t->plan, &device_args, sms, &launch);
    CHECK_CUDA(dml_cuda_launch_gather(&launch, 0));
    CHECK_CUDA(cudaDeviceSynchronize());
    uint8_t* got = malloc(t->output_bytes ? t->output_bytes : 1);
    CHECK_CUDA(cudaMemcpy(got, output, t->output_bytes, cudaMemcpyDeviceToHost));
    cudaFree(input);
    cudaFree(output);
    cudaFree(lengths);

    char text[1024];
    describe(t, &launch, sms, text, sizeof text);
    if (launch.is_copy != host_launch.is_copy || launch.mode != host_launch.mode || launch.wide != host_launch.wide ||
        launch.grid != host_launch.grid || launch.outer_rank != host_launch.outer_rank) {
        fprintf(stderr, "FAIL: different launches for host and device buffers: %s\n", text);
        failures++;
    }
    const char* emulated = case_compare(t); /* the emulator's output against the reference */
    if (*emulated) {
        fprintf(stderr, "FAIL: emulator != reference: %s: %s\n", emulated, text);
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

int main(void)
{
    int devices = 0;
    cudaError_t e = cudaGetDeviceCount(&devices);
    if (e != cudaSuccess || devices == 0) {
        printf("SKIPPED: needs a CUDA GPU: %s\n", e != cudaSuccess ? cudaGetErrorString(e) : "no CUDA-capable device");
        return SKIP;
    }
    int sm_attr = 0;
    CHECK_CUDA(cudaSetDevice(0));
    CHECK_CUDA(cudaDeviceGetAttribute(&sm_attr, cudaDevAttrMultiProcessorCount, 0));
    uint32_t sms = (uint32_t)sm_attr;

    uint64_t seed = 0x9E3779B97F4A7C15ull;
    const char* env = getenv("DML_TEST_SEED");
    if (env && *env)
        seed = strtoull(env, NULL, 0);
    printf("seed %" PRIu64 " (DML_TEST_SEED replays it), %u SMs\n", seed, sms);
    rng r = { seed };

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
                        uint64_t max = (cases % 16 == 15) ? (1u << 20) : 4096;
                        case_spec spec = { .kind = kind, .rank = rank, .element_size = esizes[e_i],
                            .max_elements = max, .in_layout = ins[in], .out_layout = outs[o], .axis = -1,
                            .lengths_element_size = (cases & 1) ? 8 : 4, .len_inner = 2 };
                        test_case t;
                        case_make(&t, &r, &spec);
                        /* case_make plans are 64-bit indexed; these buffers fit 32 bits, so half the cases
                         * take the narrow kernels. */
                        t.plan.index32 = (uint32_t)(rng_next(&r) & 1);
                        run_case(&t, sms);
                        run_case(&t, 1);
                        case_free(&t);
                        cases++;
                    }
    printf("%d plans, each at %u SMs and at 1 SM: %d failure(s)\n", cases, sms, failures);
    return failures ? 1 : 0;
}

/*
 * dmlcoalesce — how well the CUDA gather kernels coalesce their memory
 * accesses, measured without a GPU: each case is compiled to a plan as
 * CompileOperator does, given to the CUDA launcher (cuda/launch.c) for a GPU
 * with --sm multiprocessors, and run by the emulator (cuda/emulator.c), which
 * executes the kernels' per-thread code over the exact grid and counts, per
 * warp and per memory instruction, the distinct 32-byte sectors touched
 * against the bytes requested.
 *
 *   dmlcoalesce [--csv] [--bytes N] [--row-bytes N] [--sm N]
 *
 * Cases: SLICE1, SLICE and REVERSE_SUBSEQUENCES x element size 1, 2, 4, 8 x
 * the patterns of gather_cases.h (those that apply to the operator); then
 * PADDING (its own kernel, pad.cu) x element size x NCHW {2, 4, H, W}
 * padded by 1 and by 2 on H and W x each mode (pattern "<mode>-hw<pad>");
 * CAST (cast.cu) of packed rows, f32->f16, f16->f32, u8->f32, f64->f32
 * (element size: the output's); JOIN and SPLIT of two parts along the
 * inner axis (halves, and uneven: one element off) and the outer one
 * (coalescing_kinds.c: every part's gather, summed); each with
 * an output of about --bytes (default 256 KiB) in rows of --row-bytes
 * (default 1024), buffers 64-byte aligned, random sequence lengths from a
 * fixed seed, for a GPU of --sm multiprocessors (default 132, an H100 SXM).
 *
 * Columns: the launch (copy: one cudaMemcpyAsync; else the mode scalar,
 * vector or vector-reversed, the index width, grid x block), load and store
 * sector efficiency (bytes requested / bytes of sectors touched; a copy
 * counts as 1.00; a broadcast load can exceed 1), and the warp-level load and
 * store instructions. The sequence-length loads of REVERSE_SUBSEQUENCES are
 * counted apart (len reqs: their warp instructions; mostly broadcasts of one
 * length to the whole warp). --csv adds loads in flight: the fewest loads
 * a thread with a full first pass issues before its first store, the
 * fewest 16-byte ones among the threads whose first pass stored the most
 * vectors, and the most loads a thread issued after a store of the same
 * pass (0 for every scalar and vector launch); and the launch geometry: the
 * resident blocks per SM the grid is sized to, a block's shared memory, and
 * for tiled launches the tiles and their shape (inner x across elements).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "coalescing_kinds.h"
#include "coalescing_indexed.h"
#include "core/ops/op.h" /* dml_plan_from_desc */
#include "emulator.h"
#include "fill_cases.h"
#include "gather_cases.h"
#include "launch.h"

static const char* mode_name(const dml_cuda_launch* l)
{
    if (l->is_copy)
        return "copy";
    switch (l->mode) {
    case DML_CUDA_MODE_VECTOR: return "vector";
    case DML_CUDA_MODE_VECTOR_REVERSED: return "vector-reversed";
    case DML_CUDA_MODE_TILED: return "tiled";
    default: return "scalar";
    }
}

static void usage(FILE* out)
{
    fprintf(out,
        "usage: dmlcoalesce [--csv] [--bytes N] [--row-bytes N] [--sm N]\n"
        "Emulates the CUDA launches of a fixed set of gathers on the CPU and prints\n"
        "their memory coalescing (bytes used / bytes of 32-byte sectors touched).\n"
        "  --bytes N      output bytes per case, 1024 to 64 MiB (default 262144)\n"
        "  --row-bytes N  bytes per row of the row patterns, 16 to 1 MiB (default 1024)\n"
        "  --sm N         SM count the grid is sized for (default 132, an H100)\n"
        "  --csv          comma-separated output\n");
}

/* FILL_VALUE_CONSTANT and FILL_VALUE_SEQUENCE: stores only (load columns
 * 1.00 and 0), the launch named fill-vector (16-byte windows of contiguous
 * rows) or fill-scalar. Returns the cases that failed. */
static int fill_rows(int csv, uint64_t bytes, uint32_t row_bytes, uint32_t sm_count)
{
    static const uint32_t sizes[] = { 1, 2, 4, 8 };
    int failures = 0;
    for (int sequence = 0; sequence < 2; ++sequence)
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; ++s)
            for (int pattern = 0; pattern < FILL_PATTERN_COUNT; ++pattern) {
                const char* name = sequence ? "FILL_VALUE_SEQUENCE" : "FILL_VALUE_CONSTANT";
                dml_plan plan;
                uint64_t out_bytes;
                unsigned char* out;
                if (fill_case_plan(sequence, sizes[s], pattern, bytes, row_bytes, &plan, &out_bytes) < 0) {
                    fprintf(stderr, "dmlcoalesce: %s %s: %s\n", name, fill_pattern_name(pattern), dml_error_last());
                    ++failures;
                    continue;
                }
                if (posix_memalign((void**)&out, 64, out_bytes)) {
                    fprintf(stderr, "dmlcoalesce: out of memory\n");
                    return failures + 1;
                }
                dml_plan_args args = { NULL, NULL, out, 0, 0, out_bytes, NULL, 0 };
                dml_cuda_launch launch;
                dml_cuda_prepare(&plan, &args, sm_count, &launch);
                dml_coalescing stats;
                int emulated = dml_cuda_emulate(&launch, &stats);
                free(out);
                if (emulated < 0) {
                    fprintf(stderr, "dmlcoalesce: %s %s: %s\n", name, fill_pattern_name(pattern),
                        emulated == DML_EMULATE_VIOLATION ? dml_cuda_emulator_violation() : "out of memory");
                    ++failures;
                    continue;
                }
                const char* mode = launch.fill_params.vector ? "fill-vector" : "fill-scalar";
                const char* bits = "64";
                double store = dml_coalescing_store_efficiency(&stats);
                uint64_t data_bytes = plan.element_count * plan.element_size;
                if (csv)
                    printf("%s,%u,%s,%llu,%s,%s,%u,%u,1.0000,%.4f,0,%llu,0,0,0,0,0.000,%u,0,0,0,0\n", name, sizes[s],
                        fill_pattern_name(pattern), (unsigned long long)data_bytes, mode, bits, launch.grid,
                        launch.block, store, (unsigned long long)stats.store_requests, launch.blocks_per_sm);
                else {
                    char what[64];
                    snprintf(what, sizeof what, "%s/%s %ux%u", mode, bits, launch.grid, launch.block);
                    printf("%-20s %4u %-16s %9llu  %-27s %6.3f %6.3f %8u %8llu %8u %6.3f\n", name, sizes[s],
                        fill_pattern_name(pattern), (unsigned long long)data_bytes, what, 1.0, store, 0u,
                        (unsigned long long)stats.store_requests, 0u, 0.0);
                }
            }
    return failures;
}

/* A wrong command line: say what was wrong, then the usage, exit status 2. */
_Noreturn static void bad_usage(const char* what, const char* arg)
{
    fprintf(stderr, "dmlcoalesce: %s '%s' (try --help)\n", what, arg);
    usage(stderr);
    exit(2);
}

/* PADDING rows: NCHW {2, 4, H, W} of `e`-byte elements padded by `pad` on H
 * and W, W chosen so an input row is about row_bytes and H so the output is
 * about `bytes`, in each mode. Returns 0, or 1 on a failure (printed). */
static int padding_row(int csv, uint64_t bytes, uint32_t row_bytes, uint32_t sm_count, uint32_t e, uint32_t pad,
    uint32_t mode)
{
    static const char* const modes[4] = { "constant", "edge", "reflection", "symmetric" };
    static const DML_TENSOR_DATA_TYPE types[9] = { [1] = DML_TENSOR_DATA_TYPE_UINT8, [2] = DML_TENSOR_DATA_TYPE_UINT16,
        [4] = DML_TENSOR_DATA_TYPE_FLOAT32, [8] = DML_TENSOR_DATA_TYPE_FLOAT64 };
    uint32_t w = row_bytes / e > 2 ? row_bytes / e : 2;
    uint64_t h64 = bytes / (8ull * (w + 2 * pad) * e);
    uint32_t h = h64 > 2 ? (uint32_t)h64 - 2 * pad : 2;
    const uint32_t in_sizes[4] = { 2, 4, h, w }, out_sizes[4] = { 2, 4, h + 2 * pad, w + 2 * pad };
    const uint32_t start[4] = { 0, 0, pad, pad };
    DML_BUFFER_TENSOR_DESC ib = { types[e], DML_TENSOR_FLAG_NONE, 4, in_sizes, NULL, 8ull * h * w * e, 0 };
    DML_BUFFER_TENSOR_DESC ob = { types[e], DML_TENSOR_FLAG_NONE, 4, out_sizes, NULL,
        8ull * out_sizes[2] * out_sizes[3] * e, 0 };
    DML_TENSOR_DESC it = { DML_TENSOR_TYPE_BUFFER, &ib }, ot = { DML_TENSOR_TYPE_BUFFER, &ob };
    DML_PADDING_OPERATOR_DESC d = { &it, &ot, (DML_PADDING_MODE)mode, 0.0f, 4, start, start };
    DML_OPERATOR_DESC od = { DML_OPERATOR_PADDING, &d };
    dml_plan plan;
    if (dml_plan_from_desc(&od, &plan) < 0) {
        fprintf(stderr, "dmlcoalesce: PADDING %s: %s\n", modes[mode], dml_error_last());
        return 1;
    }
    const uint64_t in_bytes = ib.TotalTensorSizeInBytes, out_bytes = ob.TotalTensorSizeInBytes;
    unsigned char* in = aligned_alloc(64, (in_bytes + 63) / 64 * 64);
    unsigned char* out = aligned_alloc(64, (out_bytes + 63) / 64 * 64);
    if (!in || !out) {
        free(in);
        free(out);
        fprintf(stderr, "dmlcoalesce: out of memory\n");
        return 1;
    }
    memset(in, 0x5A, in_bytes);
    dml_plan_args args = { in, NULL, out, in_bytes, 0, out_bytes, NULL, 0 };
    dml_cuda_launch launch;
    dml_cuda_prepare(&plan, &args, sm_count, &launch);
    dml_coalescing stats;
    int emulated = dml_cuda_emulate(&launch, &stats);
    free(in);
    free(out);
    if (emulated < 0) {
        fprintf(stderr, "dmlcoalesce: PADDING %s: %s\n", modes[mode],
            emulated == DML_EMULATE_VIOLATION ? dml_cuda_emulator_violation() : "tracing ran out of memory");
        return 1;
    }
    char pattern[32], what[64];
    snprintf(pattern, sizeof pattern, "%s-hw%u", modes[mode], pad);
    const char* path = launch.pad_params.rows ? "pad-rows" : "pad"; /* pad.c's choice */
    snprintf(what, sizeof what, "%s/%s %ux%u", path, launch.wide ? "64" : "32", launch.grid, launch.block);
    const double load = dml_coalescing_load_efficiency(&stats), store = dml_coalescing_store_efficiency(&stats);
    if (csv)
        printf("PADDING,%u,%s,%llu,%s,%s,%u,%u,%.4f,%.4f,%llu,%llu,0,,,,,%u,0,0,0,0\n", e, pattern,
            (unsigned long long)out_bytes, path, launch.wide ? "64" : "32", launch.grid, launch.block, load, store,
            (unsigned long long)stats.load_requests, (unsigned long long)stats.store_requests, launch.blocks_per_sm);
    else
        printf("%-20s %4u %-16s %9llu  %-27s %6.3f %6.3f %8llu %8llu %8u %6s\n", "PADDING", e, pattern,
            (unsigned long long)out_bytes, what, load, store, (unsigned long long)stats.load_requests,
            (unsigned long long)stats.store_requests, 0u, "-");
    return 0;
}

int main(int argc, char** argv)
{
    int csv = 0;
    uint64_t bytes = 256 * 1024;
    uint32_t sm_count = 132, row_bytes = 1024;
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(argv[i], "--csv"))
            csv = 1;
        else if (!strcmp(argv[i], "--bytes") && i + 1 < argc)
            bytes = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--row-bytes") && i + 1 < argc)
            row_bytes = (uint32_t)strtoul(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--sm") && i + 1 < argc)
            sm_count = (uint32_t)strtoul(argv[++i], NULL, 0);
        else
            bad_usage("unknown option, or an option without its value:", argv[i]);
    }
    if (bytes < 1024 || bytes > (64u << 20))
        bad_usage("--bytes out of range (1024 to 67108864):", "--bytes");
    if (sm_count == 0)
        bad_usage("--sm out of range (at least 1):", "--sm");
    if (row_bytes < 16 || row_bytes > (1u << 20))
        bad_usage("--row-bytes out of range (16 to 1048576):", "--row-bytes");

    static const DML_OPERATOR_TYPE types[] = { DML_OPERATOR_SLICE1, DML_OPERATOR_SLICE,
        DML_OPERATOR_REVERSE_SUBSEQUENCES };
    static const uint32_t sizes[] = { 1, 2, 4, 8 };
    if (csv)
        printf("operator,element_size,pattern,output_bytes,mode,index_bits,grid,block,load_efficiency,"
               "store_efficiency,load_requests,store_requests,length_requests,min_loads_before_store,"
               "min_vector_loads_before_store,max_loads_after_store,bank_conflicts,blocks_per_sm,shared_bytes,"
               "tiles,tile_inner,tile_across\n");
    else
        printf("%-20s %4s %-16s %9s  %-27s %6s %6s %8s %8s %8s %6s\n", "operator", "elem", "pattern", "out bytes",
            "launch", "load", "store", "ld reqs", "st reqs", "len reqs", "banks");
    int failures = 0;
    for (size_t t = 0; t < sizeof types / sizeof types[0]; ++t) {
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; ++s) {
            for (int pattern = 0; pattern < PATTERN_COUNT; ++pattern) {
                gather_case c;
                if (!gather_pattern_case(types[t], sizes[s], pattern, bytes, row_bytes, &c))
                    continue;
                dml_plan plan;
                if (gather_case_compile(&c, &plan) < 0) {
                    fprintf(stderr, "dmlcoalesce: %s %s: %s\n", gather_operator_name(c.type),
                        gather_pattern_name(pattern), dml_error_last());
                    ++failures;
                    continue;
                }
                gather_buffers b;
                const uint32_t offsets[3] = { 0, 0, 0 };
                if (gather_buffers_alloc(&c, offsets, 1, &b) < 0) {
                    fprintf(stderr, "dmlcoalesce: out of memory\n");
                    return 1;
                }
                dml_plan_args args = { b.base[0], b.base[1], b.base[2], b.bytes[0], b.bytes[1], b.bytes[2], NULL, 0 };
                dml_cuda_launch launch;
                dml_cuda_prepare(&plan, &args, sm_count, &launch);
                dml_coalescing stats;
                int emulated = dml_cuda_emulate(&launch, &stats);
                if (emulated == DML_EMULATE_VIOLATION) {
                    fprintf(stderr, "dmlcoalesce: %s %s: %s\n", gather_operator_name(c.type),
                        gather_pattern_name(pattern), dml_cuda_emulator_violation());
                    return 1;
                }
                if (emulated < 0) {
                    fprintf(stderr, "dmlcoalesce: tracing ran out of memory\n");
                    return 1;
                }
                uint64_t out_bytes = plan.element_count * plan.element_size;
                double load = dml_coalescing_load_efficiency(&stats), store = dml_coalescing_store_efficiency(&stats);
                const char* bits = launch.is_copy ? "-" : launch.wide ? "64" : "32";
                if (csv) {
                    const int tiled = !launch.is_copy && launch.mode == DML_CUDA_MODE_TILED;
                    printf("%s,%u,%s,%llu,%s,%s,%u,%u,%.4f,%.4f,%llu,%llu,%llu,%llu,%llu,%llu,%.3f,%u,%u,%llu,%u,%u\n",
                        gather_operator_name(c.type), sizes[s], gather_pattern_name(pattern),
                        (unsigned long long)out_bytes, mode_name(&launch), bits, launch.grid, launch.block, load,
                        store, (unsigned long long)stats.load_requests, (unsigned long long)stats.store_requests,
                        (unsigned long long)stats.length_requests, (unsigned long long)stats.min_loads_before_store,
                        (unsigned long long)stats.min_vector_loads_before_store,
                        (unsigned long long)stats.max_loads_after_store, dml_coalescing_bank_conflicts(&stats),
                        launch.blocks_per_sm, launch.shared_bytes, tiled ? (unsigned long long)launch.params.count : 0ull,
                        tiled ? launch.params.tile_inner : 0, tiled ? launch.params.tile_across : 0);
                } else {
                    char what[64];
                    if (launch.is_copy)
                        snprintf(what, sizeof what, "copy");
                    else
                        snprintf(what, sizeof what, "%s/%s %ux%u", mode_name(&launch), bits, launch.grid,
                            launch.block);
                    printf("%-20s %4u %-16s %9llu  %-27s %6.3f %6.3f %8llu %8llu %8llu %6.3f\n",
                        gather_operator_name(c.type), sizes[s], gather_pattern_name(pattern),
                        (unsigned long long)out_bytes, what, load, store, (unsigned long long)stats.load_requests,
                        (unsigned long long)stats.store_requests, (unsigned long long)stats.length_requests,
                        dml_coalescing_bank_conflicts(&stats));
                }
                gather_buffers_free(&b);
            }
        }
    }
    /* PADDING (DML_PLAN_PAD): NCHW padded on H and W by 1 and by 2, each mode. */
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; ++s)
        for (uint32_t pad = 1; pad <= 2; ++pad)
            for (uint32_t mode = 0; mode < 4; ++mode)
                failures += padding_row(csv, bytes, row_bytes, sm_count, sizes[s], pad, mode);
    failures += fill_rows(csv, bytes, row_bytes, sm_count);
    failures += coalescing_cast_rows(csv, bytes, row_bytes, sm_count);
    failures += coalescing_join_split_rows(csv, bytes, row_bytes, sm_count);
    failures += coalescing_affine_rows(csv, bytes, row_bytes, sm_count);
    failures += coalescing_indexed_rows(csv, bytes, sm_count);
    return failures ? 1 : 0;
}

/*
 * dmlbench — benchmarks of the runtime through its public API.
 *
 *   dmlbench [--backend NAME] [--case NAME[,NAME...]] [--size BYTES[,BYTES...]]
 *            [--type-size 1,2,4,8] [--repetitions N] [--warmup N] [--csv]
 *   dmlbench --overhead [--backend NAME] [--repetitions N]
 *   dmlbench --graph [--backend NAME] [--size BYTES] [--repetitions N] [--warmup N]
 *
 * This file parses the options and runs one mode, each in a file of its
 * own: the throughput table (the default, and --cpu-table) in
 * bench_throughput.c, --overhead in bench_overhead.c, --graph in
 * bench_graph.c, --gpu-table in bench_cuda.c. What they share is dmlbench.h.
 */
#include "dmlbench.h"

#include "bench_graph.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef DML_BENCH_CUDA
#include "bench_cuda.h" /* --gpu-table */
#endif

static void usage(FILE* out)
{
    fprintf(out,
        "usage: dmlbench [--backend NAME] [--case NAME,...] [--size BYTES,...] [--type-size 1,2,4,8]\n"
        "                [--threads N,...|all] [--repetitions N] [--warmup N] [--csv]\n"
        "       dmlbench --cpu-table [options]   (= --backend cpu --size 256K,4M,64M --threads all)\n"
        "       dmlbench --overhead [--backend NAME] [--repetitions N]\n"
        "       dmlbench --graph [--backend NAME] [--size BYTES] [--repetitions N] [--warmup N]\n"
        "       dmlbench --gpu-table [--gpu-case OPERATOR:ELEMENT_SIZE:PATTERN] [--size 64M,1G] [--type-size ...]\n"
        "                [--repetitions N (20..)] [--warmup N] [--csv]   (profiling/bench_cuda.c)\n"
        "       dmlbench --gpu-table tensorflow [--gpu-case NAME] [--size 64M] [--csv]   (the TensorFlow plugin's ops)\n"
        "Times each case as GB/s and as a ratio to a copy of the same bytes measured in\n"
        "the same run; --overhead times the host cost of the API calls.\n"
        "cases:");
    for (size_t k = 0; k < BENCH_CASE_COUNT; ++k)
        fprintf(out, " %s", bench_cases[k].name);
    fprintf(out, "\n");
}

/* A wrong command line: say what was wrong, then the usage, exit status 2. */
static int bad_usage(const char* what, const char* arg)
{
    fprintf(stderr, "dmlbench: %s '%s' (try --help)\n", what, arg);
    usage(stderr);
    return 2;
}

int main(int argc, char** argv)
{
    bench_options o = { NULL, -1, 2, 0, 0 };
    const char *case_list = NULL, *size_list = NULL, *type_list = NULL, *thread_list = NULL, *gpu_case = NULL;
    int mode_overhead = 0, mode_gpu = 0, mode_graph = 0, gpu_tensorflow = 0;
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(argv[i], "--overhead"))
            mode_overhead = 1;
        else if (!strcmp(argv[i], "--graph"))
            mode_graph = 1;
        else if (!strcmp(argv[i], "--gpu-table")) {
            mode_gpu = 1;
            if (i + 1 < argc && !strcmp(argv[i + 1], "tensorflow")) /* the selection: the TensorFlow plugin's ops */
                gpu_tensorflow = 1, i++;
        }
        else if (!strcmp(argv[i], "--gpu-case") && i + 1 < argc)
            mode_gpu = 1, gpu_case = argv[++i];
        else if (!strcmp(argv[i], "--csv"))
            o.csv = 1;
        else if (!strcmp(argv[i], "--backend") && i + 1 < argc)
            o.backend = argv[++i];
        else if (!strcmp(argv[i], "--repetitions") && i + 1 < argc)
            o.repetitions = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--warmup") && i + 1 < argc)
            o.warmup = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--case") && i + 1 < argc)
            case_list = argv[++i];
        else if (!strcmp(argv[i], "--size") && i + 1 < argc)
            size_list = argv[++i];
        else if (!strcmp(argv[i], "--type-size") && i + 1 < argc)
            type_list = argv[++i];
        else if (!strcmp(argv[i], "--threads") && i + 1 < argc)
            thread_list = argv[++i];
        else if (!strcmp(argv[i], "--cpu-table")) {
            /* The CPU table of profiling/README.md: later options override. */
            o.backend = "cpu";
            size_list = "256K,4M,64M";
            thread_list = "all";
        } else
            return bad_usage("unknown option, or an option without its value:", argv[i]);
    }
    if (mode_gpu) {
#ifdef DML_BENCH_CUDA
        bench_cuda_options g = { gpu_case, size_list, type_list, o.repetitions == -1 ? 20 : o.repetitions, o.warmup,
            o.csv };
        return gpu_tensorflow ? bench_cuda_tensorflow(&g) : bench_cuda_table(&g);
#else
        (void)gpu_case; /* parsed either way, so that the option is known */
        (void)gpu_tensorflow;
        fprintf(stderr, "dmlbench: --gpu-table needs a build with the CUDA toolkit\n");
        return 2;
#endif
    }
    if (o.repetitions == -1)
        o.repetitions = mode_overhead ? 10000 : 11;
    if (o.repetitions < 1 || o.warmup < 0)
        return bad_usage("out of range (--repetitions >= 1, --warmup >= 0):",
            o.repetitions < 1 ? "--repetitions" : "--warmup");
    if (mode_overhead)
        return bench_overhead(o.backend, o.repetitions);
    if (mode_graph)
        return bench_graph(o.backend, size_list ? parse_size(size_list) : (uint64_t)64 << 20, o.repetitions, o.warmup);
    return bench_throughput(&o, case_list, size_list, type_list, thread_list);
}

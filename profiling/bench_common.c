/*
 * bench_common.c — what every dmlbench mode uses (dmlbench.h): a monotonic
 * clock, the median and 90th percentile of samples, the exit on a failed API
 * call, and sizes as the options write them.
 */
#include "dmlbench.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int compare_double(const void* a, const void* b)
{
    double x = *(const double*)a, y = *(const double*)b;
    return (x > y) - (x < y);
}

void check(DML_RESULT r, const char* what)
{
    if (DML_FAILED(r)) {
        fprintf(stderr, "dmlbench: %s failed: %s\n", what, dmlGetLastErrorMessage());
        exit(2);
    }
}

timing summarize(double* samples, int n)
{
    qsort(samples, (size_t)n, sizeof *samples, compare_double);
    timing t = { samples[n / 2], samples[(n * 9) / 10] };
    return t;
}

uint64_t parse_size(const char* text)
{
    char* end;
    double value = strtod(text, &end);
    switch (*end) {
    case 'k': case 'K': value *= 1024; break;
    case 'm': case 'M': value *= 1024 * 1024; break;
    case 'g': case 'G': value *= 1024.0 * 1024 * 1024; break;
    default: break;
    }
    return (uint64_t)value;
}

/*
 * bench_throughput.c — dmlbench's default mode (and --cpu-table).
 *
 * It runs a fixed set of cases (throughput_cases.c, profiling/README.md) for
 * element sizes 1, 2, 4 and 8 bytes and output sizes 4 KiB, 64 KiB, 1 MiB,
 * 16 MiB, 64 MiB and 256 MiB (BYTES takes K, M, G suffixes). For each it
 * reports the median time of RecordDispatch + Synchronize over the
 * repetitions after the warm-up runs, the throughput in GB/s counting the
 * bytes the operator reads plus the bytes it writes, and the ratio to a plain
 * copy of the same traffic measured in the same run: a copy of (read +
 * written) / 2 bytes — on the CPU memcpy split across as many threads as the
 * CPU backend uses (one below its parallel threshold, 256 KiB), on CUDA
 * cudaMemcpyAsync device to device timed with CUDA events (copy_baseline.c).
 * Small gathers are also timed against the best plain-C loop
 * (plain_baseline.c).
 */
#include "dmlbench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int on_cuda_backend(const char* backend)
{
    return backend && !strncmp(backend, "cuda", 4) && strcmp(backend, "cudaemu") != 0;
}

typedef struct result {
    double seconds, copy_seconds;
    double write_seconds; /* writing the output's bytes alone (copy_pool_fill); <= 0: not measured */
    double plain_seconds; /* the best plain-C loop (plain_gather.h); <= 0: not measured */
    uint64_t bytes_read, bytes_written;
} result;

static int run_case(DMLDevice device, DMLCommandQueue queue, DMLCommandRecorder recorder, copy_pool* pool,
    const bench_options* o, const case_entry* entry, unsigned element_size, uint64_t bytes, result* res)
{
    built_case c;
    if (build_case(&c, entry, element_size, bytes) != 0)
        return -1;

    const uint64_t in_bytes = (c.in.buffer.TotalTensorSizeInBytes + 255) & ~(uint64_t)255;
    const uint64_t len_bytes = c.inputs >= 2 ? (c.lengths.buffer.TotalTensorSizeInBytes + 255) & ~(uint64_t)255 : 0;
    /* A third input (in3) sits after the outputs, filled like the first. */
    const uint64_t in3_bytes = c.inputs == 3 ? (c.in3.buffer.TotalTensorSizeInBytes + 255) & ~(uint64_t)255 : 0;
    const uint64_t out_bytes = c.out.buffer.TotalTensorSizeInBytes;
    const uint64_t out_padded = (out_bytes + 255) & ~(uint64_t)255;
    const uint64_t out2_bytes = c.outputs == 2 ? c.out2.buffer.TotalTensorSizeInBytes : 0;
    DMLBuffer buffer;
    DMLOperator op;
    DMLCompiledOperator compiled;
    DMLBindingTable table;
    const uint64_t in3_at = in_bytes + len_bytes + out_padded + ((out2_bytes + 255) & ~(uint64_t)255);
    check(dmlDeviceCreateBuffer(device,
              in3_bytes ? in3_at + in3_bytes : in_bytes + len_bytes + (out2_bytes ? out_padded : 0) + out_bytes + out2_bytes,
              &buffer),
        "CreateBuffer");
    dmlSetName(buffer, entry->name);
    /* Input: a byte pattern, written in 16 MiB pieces. */
    {
        const uint64_t piece = 16u << 20;
        unsigned char* host = malloc(piece);
        for (uint64_t i = 0; i < piece; ++i)
            host[i] = (unsigned char)(i * 131u + 7u);
        for (uint64_t at = 0; at < in_bytes; at += piece)
            check(dmlCommandQueueWriteBuffer(queue, buffer, at, host, in_bytes - at < piece ? in_bytes - at : piece),
                "WriteBuffer");
        for (uint64_t at = 0; at < in3_bytes; at += piece)
            check(dmlCommandQueueWriteBuffer(queue, buffer, in3_at + at, host,
                      in3_bytes - at < piece ? in3_bytes - at : piece),
                "WriteBuffer");
        free(host);
    }
    if (c.inputs >= 2)
        check(dmlCommandQueueWriteBuffer(queue, buffer, in_bytes, c.lengths_data,
                  c.lengths.buffer.TotalTensorSizeInBytes),
            "WriteBuffer");
    check(dmlDeviceCreateOperator(device, &c.desc, &op), "CreateOperator");
    dmlSetName(op, entry->name);
    check(dmlDeviceCompileOperator(device, op, DML_EXECUTION_FLAG_NONE, &compiled), "CompileOperator");
    DML_BINDING_TABLE_DESC td = { compiled };
    check(dmlDeviceCreateBindingTable(device, &td, &table), "CreateBindingTable");
    DML_BUFFER_BINDING in[3] = { { buffer, 0, c.in.buffer.TotalTensorSizeInBytes },
        { buffer, in_bytes, c.lengths.buffer.TotalTensorSizeInBytes },
        { buffer, in3_at, c.in3.buffer.TotalTensorSizeInBytes } };
    if (c.lengths_first) { /* ELEMENT_WISE_IF: condition, A, B */
        DML_BUFFER_BINDING first = in[1];
        in[1] = in[0];
        in[0] = first;
    }
    DML_BUFFER_BINDING out[2] = { { buffer, in_bytes + len_bytes, out_bytes },
        { buffer, in_bytes + len_bytes + out_padded, out2_bytes } };
    DML_BINDING_DESC in_desc[3] = { { DML_BINDING_TYPE_BUFFER, &in[0] }, { DML_BINDING_TYPE_BUFFER, &in[1] },
        { DML_BINDING_TYPE_BUFFER, &in[2] } };
    DML_BINDING_DESC out_desc[2] = { { DML_BINDING_TYPE_BUFFER, &out[0] }, { DML_BINDING_TYPE_BUFFER, &out[1] } };
    check(dmlBindingTableBindInputs(table, c.inputs, in_desc), "BindInputs");
    check(dmlBindingTableBindOutputs(table, c.outputs, out_desc), "BindOutputs");

    /* The copy baseline, same traffic: (read + written) / 2 bytes each way.
     * On the CPU its repetitions alternate with the operator's, so both see
     * the same machine state (frequency, neighbours), and it is the faster
     * of memcpy on one thread and memcpy split over the row's threads (below
     * a few hundred KiB waking threads costs more than it saves). */
    const uint64_t copy_bytes = (c.bytes_read + c.bytes_written) / 2;
    const int on_cuda = on_cuda_backend(o->backend);
    /* The one-thread memcpy has buffers of its own: on the threaded copy's,
     * its timed run would follow three passes over them where every other
     * timed run follows one, and at sizes that half fit in L3 (4-16 MiB on
     * the 2-core VM) a third pass still brings lines back, which ran the
     * baseline up to 2.5x faster than a second pass does. */
    unsigned char *src = NULL, *dst = NULL, *single_src = NULL, *single_dst = NULL, *written = NULL;
    if (!on_cuda) {
        src = copy_buffer_alloc(copy_bytes);
        dst = copy_buffer_alloc(copy_bytes);
        single_src = copy_buffer_alloc(copy_bytes);
        single_dst = copy_buffer_alloc(copy_bytes);
        if (!single_src || !single_dst) {
            free(single_src);
            free(single_dst);
            single_src = single_dst = NULL;
        }
        if (src && dst) {
            memset(src, 1, copy_bytes);
            memset(dst, 2, copy_bytes);
        }
        if (single_src) {
            memset(single_src, 1, copy_bytes);
            memset(single_dst, 2, copy_bytes);
        }
        /* The write-only baseline: the machine's rate for the output alone. */
        written = c.bytes_written ? copy_buffer_alloc(c.bytes_written) : NULL;
        if (written)
            memset(written, 3, c.bytes_written);
    }
    const unsigned copy_threads = o->threads ? o->threads : pool->threads;
    /* Small gathers only: the goal is for them, and the naive loop of a
     * large one would cost more bench time than the table. */
    plain_bench plain;
    const int with_plain = !on_cuda && bytes <= PLAIN_MAX_BYTES && plain_prepare(&plain, &c, element_size,
        o->repetitions);
    double* samples = calloc((size_t)o->repetitions, sizeof(double));
    double* copy_samples = calloc((size_t)o->repetitions, sizeof(double));
    double* single_samples = calloc((size_t)o->repetitions, sizeof(double));
    double* memset_samples = calloc((size_t)o->repetitions, sizeof(double));
    double* stream_samples = calloc((size_t)o->repetitions, sizeof(double));
    double* store_samples = calloc((size_t)o->repetitions, sizeof(double));
    /* Each timed run follows an untimed run of the same work: interleaved,
     * the copies would evict the operator's data (and it theirs) from a
     * shared L3 at sizes of a few MiB, and the timed run would read from
     * memory where a host's repeated dispatch reads from cache. */
    for (int i = 0; i < o->warmup + o->repetitions; ++i) {
        check(dmlCommandRecorderRecordDispatch(recorder, queue, compiled, table), "RecordDispatch");
        check(dmlCommandQueueSynchronize(queue), "Synchronize");
        double t0 = now_ns();
        check(dmlCommandRecorderRecordDispatch(recorder, queue, compiled, table), "RecordDispatch");
        check(dmlCommandQueueSynchronize(queue), "Synchronize");
        const double op_ns = now_ns() - t0;
        double threaded_ns = 0, single_ns = 0;
        if (src && dst) {
            copy_pool_copy(pool, dst, src, copy_bytes, copy_threads);
            t0 = now_ns();
            copy_pool_copy(pool, dst, src, copy_bytes, copy_threads);
            threaded_ns = now_ns() - t0;
            if (single_src) {
                memcpy(single_dst, single_src, copy_bytes);
                t0 = now_ns();
                memcpy(single_dst, single_src, copy_bytes);
                single_ns = now_ns() - t0;
            }
        }
        double memset_ns = 0, stream_ns = 0, store_ns = 0;
        if (written) { /* each timed after an untimed run too */
            copy_pool_fill(pool, written, c.bytes_written, 1, COPY_FILL_MEMSET); /* one thread: waking more costs */
            t0 = now_ns();
            copy_pool_fill(pool, written, c.bytes_written, 1, COPY_FILL_MEMSET);
            memset_ns = now_ns() - t0;
            copy_pool_fill(pool, written, c.bytes_written, copy_threads, COPY_FILL_STREAM);
            t0 = now_ns();
            copy_pool_fill(pool, written, c.bytes_written, copy_threads, COPY_FILL_STREAM);
            stream_ns = now_ns() - t0;
            copy_pool_fill(pool, written, c.bytes_written, copy_threads, COPY_FILL_STORES);
            t0 = now_ns();
            copy_pool_fill(pool, written, c.bytes_written, copy_threads, COPY_FILL_STORES);
            store_ns = now_ns() - t0;
        }
        if (with_plain)
            plain_repeat(&plain, i - o->warmup);
        if (i >= o->warmup) {
            samples[i - o->warmup] = op_ns;
            copy_samples[i - o->warmup] = threaded_ns;
            single_samples[i - o->warmup] = single_ns;
            memset_samples[i - o->warmup] = memset_ns;
            stream_samples[i - o->warmup] = stream_ns;
            store_samples[i - o->warmup] = store_ns;
        }
    }
    res->seconds = summarize(samples, o->repetitions).median * 1e-9;
    if (src && dst) {
        const double threaded = summarize(copy_samples, o->repetitions).median;
        const double single = single_src ? summarize(single_samples, o->repetitions).median : threaded;
        res->copy_seconds = (threaded < single ? threaded : single) * 1e-9;
    } else {
        res->copy_seconds = -1;
    }
    res->write_seconds = 0;
    if (written) {
        const double set = summarize(memset_samples, o->repetitions).median;
        const double streamed = summarize(stream_samples, o->repetitions).median;
        const double stored = summarize(store_samples, o->repetitions).median;
        const double faster = set < streamed ? set : streamed;
        res->write_seconds = (faster < stored ? faster : stored) * 1e-9;
    }
    free(src);
    free(dst);
    free(single_src);
    free(single_dst);
    free(written);
    free(copy_samples);
    free(single_samples);
    free(memset_samples);
    free(stream_samples);
    free(store_samples);
    if (on_cuda) {
#ifdef DML_BENCH_CUDA
        double ms = cuda_copy_ms(copy_bytes, o->warmup, o->repetitions);
        res->copy_seconds = ms < 0 ? -1 : ms * 1e-3;
#endif
    }
    res->plain_seconds = 0;
    if (with_plain) {
        res->plain_seconds = plain_seconds(&plain, queue, buffer, in_bytes + len_bytes, o->repetitions);
        plain_free(&plain);
    }
    res->bytes_read = c.bytes_read;
    res->bytes_written = c.bytes_written;
    free(samples);
    dmlRelease(table);
    dmlRelease(compiled);
    dmlRelease(op);
    dmlRelease(buffer);
    free(c.lengths_data);
    return 0;
}

static void format_size(char* out, size_t size, uint64_t bytes)
{
    if (bytes >= (1u << 20) && bytes % (1u << 20) == 0)
        snprintf(out, size, "%lluM", (unsigned long long)(bytes >> 20));
    else if (bytes >= 1024 && bytes % 1024 == 0)
        snprintf(out, size, "%lluK", (unsigned long long)(bytes >> 10));
    else
        snprintf(out, size, "%llu", (unsigned long long)bytes);
}

/* The machine line of a table: the adapter, and the copy bandwidth the
 * ratios are relative to, at 64 MiB on 1 .. N threads (bytes read + written). */
static void print_machine(DMLDevice device, copy_pool* pool, int csv)
{
    DML_ADAPTER_INFO info;
    memset(&info, 0, sizeof info);
    info.Size = sizeof info;
    dmlDeviceGetAdapterInfo(device, &info);
    const uint64_t bytes = 64u << 20;
    unsigned char* src = copy_buffer_alloc(bytes);
    unsigned char* dst = copy_buffer_alloc(bytes);
    if (!src || !dst) {
        free(src);
        free(dst);
        return;
    }
    memset(src, 1, bytes);
    memset(dst, 2, bytes);
    printf("%smachine: %s, %ld CPUs online; memcpy of 64 MiB, GB/s read + written:", csv ? "# " : "",
        info.Description, sysconf(_SC_NPROCESSORS_ONLN));
    for (unsigned k = 1; k <= pool->threads; ++k) {
        double samples[7];
        for (int i = 0; i < 8; ++i) {
            double t0 = now_ns();
            copy_pool_copy(pool, dst, src, bytes, k);
            if (i > 0)
                samples[i - 1] = now_ns() - t0;
        }
        printf(" %u thread%s %.1f", k, k == 1 ? "" : "s", 2.0 * (double)bytes / summarize(samples, 7).median);
    }
    printf("\n");
    free(src);
    free(dst);
}

int bench_throughput(bench_options* o, const char* case_list, const char* size_list, const char* type_list,
    const char* thread_list)
{
    uint64_t sizes[32];
    int size_count = 0;
    if (size_list) {
        char* copy = strdup(size_list);
        for (char* tok = strtok(copy, ","); tok && size_count < 32; tok = strtok(NULL, ","))
            sizes[size_count++] = parse_size(tok);
        free(copy);
    } else {
        const uint64_t defaults[] = { 4u << 10, 64u << 10, 1u << 20, 16u << 20, 64u << 20, 256u << 20 };
        for (size_t i = 0; i < sizeof defaults / sizeof defaults[0]; ++i)
            sizes[size_count++] = defaults[i];
    }
    unsigned types[4] = { 1, 2, 4, 8 };
    int type_count = 4;
    if (type_list) {
        type_count = 0;
        char* copy = strdup(type_list);
        for (char* tok = strtok(copy, ","); tok && type_count < 4; tok = strtok(NULL, ",")) {
            unsigned t = (unsigned)atoi(tok);
            if (t == 1 || t == 2 || t == 4 || t == 8)
                types[type_count++] = t;
        }
        free(copy);
    }
    int selected[BENCH_CASE_COUNT];
    for (size_t i = 0; i < BENCH_CASE_COUNT; ++i)
        selected[i] = case_list == NULL;
    if (case_list) {
        char* copy = strdup(case_list);
        for (char* tok = strtok(copy, ","); tok; tok = strtok(NULL, ",")) {
            size_t i = 0;
            while (i < BENCH_CASE_COUNT && strcmp(bench_cases[i].name, tok) != 0)
                ++i;
            if (i == BENCH_CASE_COUNT) {
                fprintf(stderr, "dmlbench: unknown case '%s'; cases:", tok);
                for (size_t k = 0; k < BENCH_CASE_COUNT; ++k)
                    fprintf(stderr, " %s", bench_cases[k].name);
                fprintf(stderr, "\n");
                free(copy);
                return 2;
            }
            selected[i] = 1;
        }
        free(copy);
    }

    DML_DEVICE_DESC device_desc = { sizeof(DML_DEVICE_DESC), o->backend, 0, DML_CREATE_DEVICE_FLAG_NONE,
        DML_FEATURE_LEVEL_5_0 };
    DMLDevice device;
    DMLCommandQueue queue;
    DMLCommandRecorder recorder;
    check(dmlCreateDevice(&device_desc, &device), "CreateDevice");
    check(dmlDeviceCreateCommandQueue(device, NULL, &queue), "CreateCommandQueue");
    check(dmlDeviceCreateCommandRecorder(device, &recorder), "CreateCommandRecorder");
    copy_pool pool;
    copy_pool_start(&pool);
    /* Thread caps: "all" is 1 .. the backend's count; none given: the
     * backend's default (rows say 0 when the backend has no cap). */
    unsigned caps[MAX_COPY_THREADS];
    int cap_count = 0;
    uint32_t in_use = 0;
    const int cappable = DML_SUCCEEDED(dmlDeviceSetThreadLimit(device, 0, &in_use));
    if (thread_list && cappable && !strcmp(thread_list, "all")) {
        for (unsigned k = 1; k <= in_use && cap_count < MAX_COPY_THREADS; ++k)
            caps[cap_count++] = k;
    } else if (thread_list && cappable) {
        char* copy = strdup(thread_list);
        for (char* tok = strtok(copy, ","); tok && cap_count < MAX_COPY_THREADS; tok = strtok(NULL, ","))
            if (atoi(tok) > 0)
                caps[cap_count++] = (unsigned)atoi(tok);
        free(copy);
    }
    if (cap_count == 0)
        caps[cap_count++] = 0;
    const char* backend = o->backend ? o->backend : "default";
    if (!on_cuda_backend(o->backend))
        print_machine(device, &pool, o->csv);
    if (o->csv)
        printf("backend,case,element_size,bytes,threads,median_us,gbps,copy_gbps,ratio,plain_c_ratio,write_ratio\n");
    else
        printf("dmlbench: backend %s, median of %d after %d warm-up; copy baseline: the faster of memcpy on 1 thread\n"
               "and memcpy split over the row's threads (thr), same run; vs_C: time over the best plain-C loop's\n"
               "(a naive per-element loop, a per-row memcpy loop; sizes <= 4 MiB), same run (goal <= 1.2 at <= 256K);\n"
               "vs_write: the time to write the output's bytes alone (the fastest of memset on 1 thread, and\n"
               "non-temporal or ordinary stores on thr threads) over the case's, same run: 1.0 = as fast as the\n"
               "machine writes\n"
               "%-17s %4s %6s %3s %12s %9s %9s %7s %6s %8s\n",
            backend, o->repetitions, o->warmup, "case", "elem", "size", "thr", "median_us", "GB/s", "copyGB/s",
            "ratio", "vs_C", "vs_write");
    for (size_t k = 0; k < BENCH_CASE_COUNT; ++k) {
        if (!selected[k])
            continue;
        for (int t = 0; t < type_count; ++t) {
            for (int s = 0; s < size_count; ++s)
                for (int h = 0; h < cap_count; ++h) {
                result r;
                o->threads = caps[h] ? caps[h] : in_use; /* 0: the backend's own count (0 on CUDA) */
                if (caps[h])
                    check(dmlDeviceSetThreadLimit(device, caps[h], &o->threads), "SetThreadLimit");
                if (run_case(device, queue, recorder, &pool, o, &bench_cases[k], types[t], sizes[s], &r) != 0)
                    continue;
                const double traffic = (double)(r.bytes_read + r.bytes_written);
                const double gbps = traffic / r.seconds * 1e-9;
                const double copy_gbps = r.copy_seconds > 0 ? traffic / r.copy_seconds * 1e-9 : 0;
                const double ratio = copy_gbps > 0 ? gbps / copy_gbps : 0;
                char size_text[32];
                format_size(size_text, sizeof size_text, sizes[s]);
                const double vs_c = r.plain_seconds > 0 ? r.seconds / r.plain_seconds : 0;
                char vs_c_text[16] = "-", vs_write_text[16] = "-";
                if (vs_c > 0)
                    snprintf(vs_c_text, sizeof vs_c_text, "%.2f", vs_c);
                const double vs_write = r.write_seconds > 0 ? r.write_seconds / r.seconds : 0;
                if (vs_write > 0)
                    snprintf(vs_write_text, sizeof vs_write_text, "%.2f", vs_write);
                if (o->csv)
                    printf("%s,%s,%u,%llu,%u,%.3f,%.3f,%.3f,%.3f,%s,%s\n", backend, bench_cases[k].name, types[t],
                        (unsigned long long)sizes[s], o->threads, r.seconds * 1e6, gbps, copy_gbps, ratio,
                        vs_c > 0 ? vs_c_text : "", vs_write > 0 ? vs_write_text : "");
                else if (copy_gbps > 0)
                    printf("%-17s %4u %6s %3u %12.1f %9.2f %9.2f %7.2f %6s %8s\n", bench_cases[k].name, types[t],
                        size_text, o->threads, r.seconds * 1e6, gbps, copy_gbps, ratio, vs_c_text, vs_write_text);
                else
                    printf("%-17s %4u %6s %3u %12.1f %9.2f %9s %7s %6s %8s\n", bench_cases[k].name, types[t],
                        size_text, o->threads, r.seconds * 1e6, gbps, "n/a", "n/a", vs_c_text, vs_write_text);
                fflush(stdout);
            }
        }
    }
    copy_pool_stop(&pool);
    dmlRelease(recorder);
    dmlRelease(queue);
    dmlRelease(device);
    return 0;
}

/*
 * test_onnx_node.c — ONNX's own backend node tests (Debian's libonnx-testdata):
 * every test_reversesequence_*, test_slice_*, test_tile*, test_depthtospace_*, test_spacetodepth*, test_concat_*
 * and test_split_* case (not test_split_to_sequence_*: another operator), every Pad case (test_constant_pad,
 * test_edge_pad, test_reflect_pad, test_wrap_pad where present), every test_cast_* and test_castlike_* case
 * (not the *_expanded ones: those are CastLike's function body, other operators), test_constantofshape_*,
 * test_range_* (single-node) and test_expand_dim_* case, mapped to DML by
 * onnx_to_dml.c and run on the "cpu" and "cudaemu" backends, compared bit-exactly
 * with output_0.pb.
 *
 * The data directory is ONNX_NODE_TESTDATA (set by CMake when the package is
 * found). Without it the suite exits 77 (CTest: skipped) after one
 * "SKIPPED: ..." line saying why.
 * Each case prints one line:  "onnx-node <case> [<backend>]: pass" or ": skip (<why>)", or for a Cast
 * whose expected values ONNX leaves undefined and DirectML's rules define (NaN or out-of-range float into
 * an integer; docs/onnx.md) ": known difference (<which>)" after every other element matched exactly.
 */
#include "conf_runner.h"
#include "onnx_to_dml.h"
#include "tensorproto.h"

#include <check.h>
#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CASES 128
static char g_dir[1024];
static char g_cases[MAX_CASES][256];
static int g_case_count;
static const char* const g_backends[] = { "cpu", "cudaemu" };

static int cmp_str(const void* a, const void* b)
{
    return strcmp(a, b);
}

/* Lists the cases; false when there is no data directory to list. */
static bool discover(void)
{
    const char* dir = getenv("ONNX_NODE_TESTDATA");
    if (!dir || !*dir)
        return false;
    snprintf(g_dir, sizeof g_dir, "%s", dir);
    DIR* dp = opendir(dir);
    if (!dp)
        return false;
    struct dirent* e;
    while ((e = readdir(dp)) && g_case_count < MAX_CASES) {
        if (!strncmp(e->d_name, "test_reversesequence_", 21) || !strcmp(e->d_name, "test_slice") ||
            !strncmp(e->d_name, "test_slice_", 11) || !strcmp(e->d_name, "test_tile") ||
            !strncmp(e->d_name, "test_tile_", 10) ||
            !strncmp(e->d_name, "test_depthtospace_", 18) || !strncmp(e->d_name, "test_spacetodepth", 17) ||
            !strcmp(e->d_name, "test_constant_pad") || !strncmp(e->d_name, "test_constant_pad_", 18) ||
            !strcmp(e->d_name, "test_edge_pad") || !strcmp(e->d_name, "test_reflect_pad") ||
            !strcmp(e->d_name, "test_wrap_pad") ||
            !strncmp(e->d_name, "test_concat_", 12) ||
            (!strncmp(e->d_name, "test_split_", 11) && strncmp(e->d_name, "test_split_to_sequence", 22)) ||
            !strncmp(e->d_name, "test_constantofshape_", 21) || !strncmp(e->d_name, "test_expand_dim_", 16) ||
            (!strncmp(e->d_name, "test_range_", 11) && !strstr(e->d_name, "_expanded")) ||
            ((!strncmp(e->d_name, "test_cast_", 10) || !strncmp(e->d_name, "test_castlike_", 14)) &&
             !strstr(e->d_name, "_expanded")))
            snprintf(g_cases[g_case_count++], sizeof g_cases[0], "%s", e->d_name);
    }
    closedir(dp);
    qsort(g_cases, (size_t)g_case_count, sizeof g_cases[0], cmp_str);
    return true;
}

/* The tensor feeding node input `k`: a graph input (input_N.pb) or an initializer.
 * Returns 0 (loaded into *t, caller frees), 1 when the optional input is omitted. */
static int node_input(const char* casedir, const tp_model* m, uint32_t k, tp_tensor* t)
{
    char err[256], path[1400];
    if (k >= m->input_count || !m->inputs[k][0])
        return 1;
    const tp_tensor* init = tp_model_initializer(m, m->inputs[k]);
    if (init) {
        *t = *init;
        t->data = malloc(init->count * init->elem_size + 1);
        ck_assert_ptr_nonnull(t->data);
        memcpy(t->data, init->data, init->count * init->elem_size);
        return 0;
    }
    int idx = tp_graph_input_index(m, m->inputs[k]);
    ck_assert_msg(idx >= 0, "%s: node input %s is neither a graph input nor an initializer", casedir,
                  m->inputs[k]);
    snprintf(path, sizeof path, "%s/test_data_set_0/input_%d.pb", casedir, idx);
    ck_assert_msg(tp_load_tensor(path, t, err, sizeof err) == 0, "%s", err);
    return 0;
}

static void to_i64(const tp_tensor* t, int64_t* out, uint32_t cap)
{
    ck_assert_uint_le(t->count, cap);
    for (uint64_t i = 0; i < t->count; ++i)
        out[i] = tp_get_i64(t, i);
}

static void report(const char* name, const char* backend, const char* verdict)
{
    printf("onnx-node %s [%s]: %s\n", name, backend, verdict);
    fflush(stdout);
}

/* How many output_N.pb the case has (Split: one per node output). */
static uint32_t output_file_count(const char* casedir)
{
    char path[1400];
    uint32_t n = 0;
    for (;; ++n) {
        ck_assert_msg(snprintf(path, sizeof path, "%s/test_data_set_0/output_%u.pb", casedir, n) < (int)sizeof path,
            "path too long");
        FILE* f = fopen(path, "rb");
        if (!f)
            return n;
        fclose(f);
    }
}

static void check_bytes(const char* name, const char* backend, uint32_t k, const uint8_t* got, const tp_tensor* want)
{
    for (uint64_t i = 0; i < want->count * want->elem_size; ++i)
        ck_assert_msg(got[i] == want->data[i], "%s [%s]: part %u byte %llu = 0x%02x, expected 0x%02x", name,
                      backend, k, (unsigned long long)i, got[i], want->data[i]);
}

/* The part k's dims per the mapping: the whole's with its axis size. */
static void check_part_dims(const char* name, const otd_join_split* js, uint32_t k, const tp_tensor* t)
{
    ck_assert_uint_eq(t->rank, js->rank);
    for (uint32_t i = 0; i < js->rank; ++i) {
        int64_t want = i == js->axis ? js->part_axis_sizes[k] : js->whole_sizes[i];
        ck_assert_msg(t->dims[i] == want, "%s: part %u dim %u = %lld, the mapping says %lld", name, k, i,
                      (long long)t->dims[i], (long long)want);
    }
}

/* Concat: every node input, one output. */
static void run_concat(const char* name, const char* backend, const char* casedir, const tp_model* m,
                       conf_device* dev, DML_TENSOR_DATA_TYPE type, const tp_tensor* expected)
{
    char err[512];
    static tp_tensor inputs[OTD_MAX_PARTS];
    uint32_t ranks[OTD_MAX_PARTS];
    const int64_t* dims[OTD_MAX_PARTS];
    const void* data[OTD_MAX_PARTS];
    uint32_t n = m->input_count;
    ck_assert_uint_le(n, OTD_MAX_PARTS);
    for (uint32_t k = 0; k < n; ++k) {
        ck_assert_int_eq(node_input(casedir, m, k, &inputs[k]), 0);
        ck_assert_int_eq(inputs[k].data_type, expected->data_type);
        ranks[k] = inputs[k].rank;
        dims[k] = inputs[k].dims;
        data[k] = inputs[k].data;
    }
    const tp_attr* a = tp_model_attr(m, "axis");
    ck_assert_msg(a || m->opset < 4, "%s: Concat-%lld needs an axis", name, (long long)m->opset);
    otd_join_split js;
    int r = otd_map_concat(n, ranks, dims, a ? a->i : 1 /* Concat-1's default */, &js, err, sizeof err);
    if (expected->count == 0) {
        ck_assert_msg(r == OTD_EMPTY, "%s: expected an empty output, the mapping gave %d", name, r);
        report(name, backend, "skip (the expected output is empty: DML has no zero-size tensors)");
    } else {
        ck_assert_msg(r == OTD_OK, "%s: mapping failed (%d): %s", name, r, err);
        for (uint32_t i = 0; i < js.rank; ++i)
            ck_assert_msg(js.whole_sizes[i] == expected->dims[i], "%s: output dim %u = %u, ONNX says %lld", name, i,
                          js.whole_sizes[i], (long long)expected->dims[i]);
        uint8_t* out = malloc(expected->count * expected->elem_size + 1);
        ck_assert_ptr_nonnull(out);
        DML_RESULT dr = conf_join(dev, type, &js, data, out);
        ck_assert_msg(DML_SUCCEEDED(dr), "%s [%s]: 0x%08x %s", name, backend, (unsigned)dr, dev->message);
        check_bytes(name, backend, 0, out, expected);
        free(out);
        report(name, backend, "pass");
    }
    for (uint32_t k = 0; k < n; ++k)
        tp_tensor_free(&inputs[k]);
}

/* Split: the 'split' attribute (opset < 13) or input, num_outputs (opset 18),
 * one output_N.pb per node output. */
static void run_split(const char* name, const char* backend, const char* casedir, const tp_model* m,
                      conf_device* dev, DML_TENSOR_DATA_TYPE type, const tp_tensor* data)
{
    char err[512], path[1400];
    static tp_tensor expected[OTD_MAX_PARTS];
    void* outs[OTD_MAX_PARTS];
    int64_t split[OTD_MAX_PARTS];
    uint64_t split_count = 0;
    const int64_t* split_values = NULL;
    const tp_attr* sa = tp_model_attr(m, "split");
    tp_tensor t;
    if (sa) {
        split_count = sa->ints_count;
        memcpy(split, sa->ints, split_count * sizeof *split);
        split_values = split;
    } else if (node_input(casedir, m, 1, &t) == 0) {
        ck_assert_int_eq(t.data_type, TP_INT64);
        to_i64(&t, split, OTD_MAX_PARTS);
        split_count = t.count;
        split_values = split;
        tp_tensor_free(&t);
    }
    const tp_attr* aa = tp_model_attr(m, "axis");
    const tp_attr* na = tp_model_attr(m, "num_outputs");
    uint32_t n = output_file_count(casedir);
    ck_assert_uint_le(n, OTD_MAX_PARTS);
    otd_join_split js;
    int r = otd_map_split(data->rank, data->dims, aa ? aa->i : 0, n, split_values, split_count, na ? na->i : 0,
                          &js, err, sizeof err);
    if (r == OTD_EMPTY) {
        report(name, backend, "skip (the input is empty: DML has no zero-size tensors)");
        return;
    }
    ck_assert_msg(r == OTD_OK, "%s: mapping failed (%d): %s", name, r, err);
    for (uint32_t k = 0; k < n; ++k) {
        ck_assert(snprintf(path, sizeof path, "%s/test_data_set_0/output_%u.pb", casedir, k) < (int)sizeof path);
        ck_assert_msg(tp_load_tensor(path, &expected[k], err, sizeof err) == 0, "%s: %s", name, err);
        check_part_dims(name, &js, k, &expected[k]);
        outs[k] = malloc(expected[k].count * expected[k].elem_size + 1);
        ck_assert_ptr_nonnull(outs[k]);
    }
    DML_RESULT dr = conf_split(dev, type, &js, data->data, outs);
    ck_assert_msg(DML_SUCCEEDED(dr), "%s [%s]: 0x%08x %s", name, backend, (unsigned)dr, dev->message);
    for (uint32_t k = 0; k < n; ++k) {
        check_bytes(name, backend, k, outs[k], &expected[k]);
        free(outs[k]);
        tp_tensor_free(&expected[k]);
    }
    report(name, backend, "pass");
}


/* The element type the model declares for node input k (the data files
 * store BFLOAT16 as UINT16: the declaration is the truth). */
static int32_t declared_input_type(const char* name, const tp_model* m, uint32_t k)
{
    ck_assert_msg(k < m->input_count && m->inputs[k][0], "%s: no node input %u", name, k);
    int idx = tp_graph_input_index(m, m->inputs[k]);
    ck_assert_msg(idx >= 0, "%s: node input %s is not a graph input", name, m->inputs[k]);
    ck_assert_msg(m->graph_input_types[idx] != TP_UNDEFINED, "%s: input %u has no declared type", name, k);
    return m->graph_input_types[idx];
}

/* Cast / CastLike: the types as the model declares them (`to`, or
 * target_type's type); types DirectML lacks are skipped as unsupported;
 * elements whose ONNX result is undefined (otd_cast_onnx_undefined) may
 * differ and are then reported as a known difference, not a pass. */
static void run_cast(const char* name, const char* backend, const char* casedir, const tp_model* m)
{
    char err[512], why[700], path[1400];
    int32_t in_type = declared_input_type(name, m, 0), to;
    if (!strcmp(m->op_type, "CastLike")) {
        to = declared_input_type(name, m, 1);
    } else {
        const tp_attr* ta = tp_model_attr(m, "to");
        ck_assert_msg(ta && ta->has_i, "%s: Cast without 'to'", name);
        to = (int32_t)ta->i;
    }
    ck_assert_int_eq(m->graph_output_type, to);
    otd_cast mc;
    const int64_t one = 1;
    if (otd_map_cast(1, &one, in_type, to, &mc, err, sizeof err) == OTD_UNREPRESENTABLE) {
        snprintf(why, sizeof why, "skip (unsupported: %s)", err);
        report(name, backend, why);
        return;
    }
    tp_tensor data, expected;
    ck_assert_int_eq(node_input(casedir, m, 0, &data), 0);
    ck_assert_int_eq(data.data_type, in_type);
    int r = otd_map_cast(data.rank, data.dims, in_type, to, &mc, err, sizeof err);
    if (r == OTD_EMPTY) {
        report(name, backend, "skip (the input is empty: DML has no zero-size tensors)");
        tp_tensor_free(&data);
        return;
    }
    ck_assert_msg(r == OTD_OK, "%s: mapping failed (%d): %s", name, r, err);
    ck_assert_msg(snprintf(path, sizeof path, "%s/test_data_set_0/output_0.pb", casedir) < (int)sizeof path,
        "path too long");
    ck_assert_msg(tp_load_tensor(path, &expected, err, sizeof err) == 0, "%s: %s", name, err);
    ck_assert_int_eq(expected.data_type, to);
    ck_assert_uint_eq(expected.count, data.count);

    conf_device dev;
    DML_RESULT dr = conf_device_open(&dev, backend);
    ck_assert_msg(DML_SUCCEEDED(dr), "%s: %s", backend, dev.message);
    uint8_t* out = malloc(expected.count * expected.elem_size + 1);
    ck_assert_ptr_nonnull(out);
    dr = conf_cast(&dev, &mc, data.data, out);
    ck_assert_msg(DML_SUCCEEDED(dr), "%s [%s]: 0x%08x %s", name, backend, (unsigned)dr, dev.message);
    uint64_t differing = 0;
    for (uint64_t i = 0; i < expected.count; ++i) {
        int same = !memcmp(out + i * expected.elem_size, expected.data + i * expected.elem_size, expected.elem_size);
        if (otd_cast_onnx_undefined(&mc, data.data + i * data.elem_size))
            differing += !same;
        else
            ck_assert_msg(same, "%s [%s]: element %llu differs from ONNX's", name, backend, (unsigned long long)i);
    }
    if (differing) {
        snprintf(why, sizeof why, "known difference (%llu of %llu elements are NaN or out of range into an integer: "
                 "undefined in ONNX, NaN -> 0 and saturation here; docs/onnx.md)", (unsigned long long)differing,
                 (unsigned long long)expected.count);
        report(name, backend, why);
    } else {
        report(name, backend, "pass");
    }
    free(out);
    conf_device_close(&dev);
    tp_tensor_free(&data);
    tp_tensor_free(&expected);
}

START_TEST(onnx_case)
{
    const char* name = g_cases[_i / 2];
    const char* backend = g_backends[_i % 2];
    char casedir[1200], path[1400], err[512];
    /* Checked, not silently truncated: the paths come from the file system. */
    ck_assert_msg(snprintf(casedir, sizeof casedir, "%s/%s", g_dir, name) < (int)sizeof casedir, "path too long");
    ck_assert_msg(snprintf(path, sizeof path, "%s/model.onnx", casedir) < (int)sizeof path, "path too long");
    tp_model m;
    ck_assert_msg(tp_load_model(path, &m, err, sizeof err) == 0, "%s: %s", name, err);
    if (!strcmp(m.op_type, "Cast") || !strcmp(m.op_type, "CastLike")) {
        run_cast(name, backend, casedir, &m);
        tp_model_free(&m);
        return;
    }

    tp_tensor data, expected;
    ck_assert_int_eq(node_input(casedir, &m, 0, &data), 0);
    ck_assert_msg(snprintf(path, sizeof path, "%s/test_data_set_0/output_0.pb", casedir) < (int)sizeof path,
        "path too long");
    ck_assert_msg(tp_load_tensor(path, &expected, err, sizeof err) == 0, "%s: %s", name, err);
    /* ConstantOfShape's input is a shape; its output takes the value's type. */
    if (strcmp(m.op_type, "ConstantOfShape"))
        ck_assert_int_eq(expected.data_type, data.data_type);

    if (expected.count == 0) {
        char why[160];
        snprintf(why, sizeof why, "skip (the expected output is empty: DML has no zero-size tensors)");
        if (strcmp(m.op_type, "Concat") && strcmp(m.op_type, "Split")) /* they report for themselves */
            report(name, backend, why);
        /* The mapping must still agree that there is nothing to dispatch. */
        if (!strcmp(m.op_type, "Slice") || !strcmp(m.op_type, "Tile") || !strcmp(m.op_type, "Concat") ||
            !strcmp(m.op_type, "Split") || !strcmp(m.op_type, "ConstantOfShape") || !strcmp(m.op_type, "Range") ||
            !strcmp(m.op_type, "Expand")) {
            /* checked below through the mapping's OTD_EMPTY */
        } else {
            goto out;
        }
    }

    DML_TENSOR_DATA_TYPE type;
    ck_assert_int_eq(otd_map_dtype(expected.data_type, &type), OTD_OK);

    conf_device dev;
    DML_RESULT dr = conf_device_open(&dev, backend);
    ck_assert_msg(DML_SUCCEEDED(dr), "%s: %s", backend, dev.message);
    uint8_t* out = malloc(expected.count * expected.elem_size + 1);
    ck_assert_ptr_nonnull(out);

    if (!strcmp(m.op_type, "Concat") || !strcmp(m.op_type, "Split")) {
        if (!strcmp(m.op_type, "Concat"))
            run_concat(name, backend, casedir, &m, &dev, type, &expected);
        else
            run_split(name, backend, casedir, &m, &dev, type, &data);
        free(out);
        conf_device_close(&dev);
        goto out;
    } else if (!strcmp(m.op_type, "ReverseSequence")) {
        const tp_attr* ta = tp_model_attr(&m, "time_axis");
        const tp_attr* ba = tp_model_attr(&m, "batch_axis");
        int64_t time_axis = ta ? ta->i : 0, batch_axis = ba ? ba->i : 1; /* ONNX defaults */
        tp_tensor lens;
        ck_assert_int_eq(node_input(casedir, &m, 1, &lens), 0);
        ck_assert_int_eq(lens.data_type, TP_INT64);
        otd_reverse_sequence rs;
        int r = otd_map_reverse_sequence(data.rank, data.dims, time_axis, batch_axis, lens.count, 1,
                                         &rs, err, sizeof err);
        ck_assert_msg(r == OTD_OK, "%s: mapping failed (%d): %s", name, r, err);
        dr = conf_reverse_sequence(&dev, type, &rs, data.data, lens.data, out);
        ck_assert_msg(DML_SUCCEEDED(dr), "%s [%s]: 0x%08x %s", name, backend, (unsigned)dr, dev.message);
        tp_tensor_free(&lens);
    } else if (!strcmp(m.op_type, "Slice")) {
        int64_t starts[16], ends[16], axes[16], steps[16];
        uint32_t n;
        int have_axes = 0, have_steps = 0;
        if (m.opset >= 10) {
            tp_tensor t;
            ck_assert_int_eq(node_input(casedir, &m, 1, &t), 0);
            n = (uint32_t)t.count;
            to_i64(&t, starts, 16);
            tp_tensor_free(&t);
            ck_assert_int_eq(node_input(casedir, &m, 2, &t), 0);
            ck_assert_uint_eq(t.count, n);
            to_i64(&t, ends, 16);
            tp_tensor_free(&t);
            if (node_input(casedir, &m, 3, &t) == 0) {
                ck_assert_uint_eq(t.count, n);
                to_i64(&t, axes, 16);
                tp_tensor_free(&t);
                have_axes = 1;
            }
            if (node_input(casedir, &m, 4, &t) == 0) {
                ck_assert_uint_eq(t.count, n);
                to_i64(&t, steps, 16);
                tp_tensor_free(&t);
                have_steps = 1;
            }
        } else { /* Slice-1: attributes */
            const tp_attr* s = tp_model_attr(&m, "starts");
            const tp_attr* e = tp_model_attr(&m, "ends");
            const tp_attr* a = tp_model_attr(&m, "axes");
            ck_assert_ptr_nonnull(s);
            ck_assert_ptr_nonnull(e);
            n = s->ints_count;
            memcpy(starts, s->ints, n * sizeof *starts);
            memcpy(ends, e->ints, n * sizeof *ends);
            if (a) {
                memcpy(axes, a->ints, n * sizeof *axes);
                have_axes = 1;
            }
        }
        otd_slice sl;
        int r = otd_map_slice(data.rank, data.dims, n, starts, ends, have_axes ? axes : NULL,
                              have_steps ? steps : NULL, &sl, err, sizeof err);
        if (expected.count == 0) {
            ck_assert_msg(r == OTD_EMPTY, "%s: expected an empty output, the mapping gave %d", name, r);
            for (uint32_t i = 0; i < expected.rank; ++i)
                ck_assert_int_eq(sl.output_sizes[i], expected.dims[i]);
            free(out);
            conf_device_close(&dev);
            goto out;
        }
        ck_assert_msg(r == OTD_OK, "%s: mapping failed (%d): %s", name, r, err);
        ck_assert_uint_eq(sl.rank, expected.rank);
        for (uint32_t i = 0; i < expected.rank; ++i)
            ck_assert_msg(sl.output_sizes[i] == expected.dims[i], "%s: output dim %u = %u, ONNX says %lld",
                          name, i, sl.output_sizes[i], (long long)expected.dims[i]);
        dr = conf_slice1(&dev, type, &sl, data.data, out);
        ck_assert_msg(DML_SUCCEEDED(dr), "%s [%s]: 0x%08x %s", name, backend, (unsigned)dr, dev.message);
    } else if (!strcmp(m.op_type, "Tile")) {
        tp_tensor t;
        int64_t repeats[16];
        ck_assert_int_eq(node_input(casedir, &m, 1, &t), 0);
        ck_assert_int_eq(t.data_type, TP_INT64);
        to_i64(&t, repeats, 16);
        uint64_t repeats_count = t.count;
        tp_tensor_free(&t);
        otd_tile tl;
        int r = otd_map_tile(data.rank, data.dims, repeats_count, repeats, &tl, err, sizeof err);
        if (expected.count == 0) {
            ck_assert_msg(r == OTD_EMPTY, "%s: expected an empty output, the mapping gave %d", name, r);
            free(out);
            conf_device_close(&dev);
            goto out;
        }
        ck_assert_msg(r == OTD_OK, "%s: mapping failed (%d): %s", name, r, err);
        ck_assert_uint_eq(tl.rank, expected.rank);
        for (uint32_t i = 0; i < expected.rank; ++i)
            ck_assert_msg(tl.output_sizes[i] == expected.dims[i], "%s: output dim %u = %u, ONNX says %lld",
                          name, i, tl.output_sizes[i], (long long)expected.dims[i]);
        dr = conf_tile(&dev, type, &tl, data.data, out);
        ck_assert_msg(DML_SUCCEEDED(dr), "%s [%s]: 0x%08x %s", name, backend, (unsigned)dr, dev.message);
    } else if (!strcmp(m.op_type, "Pad")) {
        int64_t pads[32], axes[16];
        uint64_t pads_count = 0, axes_count = 0;
        int have_axes = 0;
        tp_tensor t, value;
        int have_value = 0;
        if (m.opset >= 11) {
            ck_assert_int_eq(node_input(casedir, &m, 1, &t), 0);
            to_i64(&t, pads, 32);
            pads_count = t.count;
            tp_tensor_free(&t);
            have_value = node_input(casedir, &m, 2, &value) == 0;
            if (node_input(casedir, &m, 3, &t) == 0) {
                to_i64(&t, axes, 16);
                axes_count = t.count;
                have_axes = 1;
                tp_tensor_free(&t);
            }
        } else { /* Pad-2: attributes */
            const tp_attr* pa = tp_model_attr(&m, "pads");
            ck_assert_ptr_nonnull(pa);
            pads_count = pa->ints_count;
            memcpy(pads, pa->ints, pads_count * sizeof *pads);
        }
        const tp_attr* ma = tp_model_attr(&m, "mode");
        otd_pad pd;
        int r = otd_map_pad(data.rank, data.dims, pads_count, pads, axes_count, have_axes ? axes : NULL,
                            ma && ma->has_s ? ma->s : NULL, &pd, err, sizeof err);
        if (r == OTD_UNREPRESENTABLE) { /* wrap, negative pads: reported as unsupported */
            char why[600];
            snprintf(why, sizeof why, "skip (unsupported: %s)", err);
            report(name, backend, why);
            if (have_value)
                tp_tensor_free(&value);
            free(out);
            conf_device_close(&dev);
            goto out;
        }
        ck_assert_msg(r == OTD_OK, "%s: mapping failed (%d): %s", name, r, err);
        ck_assert_uint_eq(pd.rank, expected.rank);
        for (uint32_t i = 0; i < expected.rank; ++i)
            ck_assert_msg(pd.output_sizes[i] == expected.dims[i], "%s: output dim %u = %u, ONNX says %lld",
                          name, i, pd.output_sizes[i], (long long)expected.dims[i]);
        if (have_value)
            ck_assert_int_eq(value.data_type, data.data_type);
        dr = conf_pad(&dev, type, &pd, data.data, have_value ? value.data : NULL, out);
        if (have_value)
            tp_tensor_free(&value);
        ck_assert_msg(DML_SUCCEEDED(dr), "%s [%s]: 0x%08x %s", name, backend, (unsigned)dr, dev.message);
    } else if (!strcmp(m.op_type, "DepthToSpace") || !strcmp(m.op_type, "SpaceToDepth")) {
        const tp_attr* ba = tp_model_attr(&m, "blocksize");
        const tp_attr* ma = tp_model_attr(&m, "mode");
        ck_assert_msg(ba && ba->has_i, "%s: no blocksize attribute", name);
        otd_depth_space ds;
        int r = otd_map_depth_space(!strcmp(m.op_type, "DepthToSpace"), data.rank, data.dims, ba->i,
                                    ma && ma->has_s ? ma->s : NULL, &ds, err, sizeof err);
        ck_assert_msg(r == OTD_OK, "%s: mapping failed (%d): %s", name, r, err);
        ck_assert_uint_eq(expected.rank, 4);
        for (uint32_t i = 0; i < 4; ++i)
            ck_assert_msg(ds.output_sizes[i] == expected.dims[i], "%s: output dim %u = %u, ONNX says %lld",
                          name, i, ds.output_sizes[i], (long long)expected.dims[i]);
        dr = conf_depth_space(&dev, type, &ds, data.data, out);
        ck_assert_msg(DML_SUCCEEDED(dr), "%s [%s]: 0x%08x %s", name, backend, (unsigned)dr, dev.message);
    } else if (!strcmp(m.op_type, "ConstantOfShape") || !strcmp(m.op_type, "Range")) {
        otd_fill fl;
        int r;
        if (m.op_type[0] == 'C') {
            int64_t shape[16];
            to_i64(&data, shape, 16);
            const tp_attr* va = tp_model_attr(&m, "value");
            r = otd_map_constant_of_shape(data.count, shape, va && va->has_t ? va->t.data_type : TP_FLOAT,
                                          va && va->has_t ? va->t.data : NULL, &fl, err, sizeof err);
        } else {
            tp_tensor limit, delta;
            ck_assert_int_eq(node_input(casedir, &m, 1, &limit), 0);
            ck_assert_int_eq(node_input(casedir, &m, 2, &delta), 0);
            r = otd_map_range(data.data_type, data.data, limit.data, delta.data, &fl, err, sizeof err);
            tp_tensor_free(&limit);
            tp_tensor_free(&delta);
        }
        if (expected.count == 0) {
            ck_assert_msg(r == OTD_EMPTY, "%s: expected an empty output, the mapping gave %d", name, r);
            free(out);
            conf_device_close(&dev);
            goto out;
        }
        ck_assert_msg(r == OTD_OK, "%s: mapping failed (%d): %s", name, r, err);
        ck_assert_int_eq(fl.type, type);
        ck_assert_uint_eq(fl.rank, expected.rank ? expected.rank : 1);
        for (uint32_t i = 0; i < expected.rank; ++i)
            ck_assert_msg(fl.output_sizes[i] == expected.dims[i], "%s: output dim %u = %u, ONNX says %lld",
                          name, i, fl.output_sizes[i], (long long)expected.dims[i]);
        dr = conf_fill(&dev, &fl, out);
        ck_assert_msg(DML_SUCCEEDED(dr), "%s [%s]: 0x%08x %s", name, backend, (unsigned)dr, dev.message);
    } else if (!strcmp(m.op_type, "Expand")) {
        tp_tensor t;
        int64_t shape[16];
        ck_assert_int_eq(node_input(casedir, &m, 1, &t), 0);
        to_i64(&t, shape, 16);
        uint64_t shape_count = t.count;
        tp_tensor_free(&t);
        otd_expand ex;
        int r = otd_map_expand(data.rank, data.dims, shape_count, shape, &ex, err, sizeof err);
        if (expected.count == 0) {
            ck_assert_msg(r == OTD_EMPTY, "%s: expected an empty output, the mapping gave %d", name, r);
            free(out);
            conf_device_close(&dev);
            goto out;
        }
        ck_assert_msg(r == OTD_OK, "%s: mapping failed (%d): %s", name, r, err);
        ck_assert_uint_eq(ex.rank, expected.rank);
        for (uint32_t i = 0; i < expected.rank; ++i)
            ck_assert_msg(ex.output_sizes[i] == expected.dims[i], "%s: output dim %u = %u, ONNX says %lld",
                          name, i, ex.output_sizes[i], (long long)expected.dims[i]);
        dr = conf_expand(&dev, type, &ex, data.data, out);
        ck_assert_msg(DML_SUCCEEDED(dr), "%s [%s]: 0x%08x %s", name, backend, (unsigned)dr, dev.message);
    } else {
        ck_abort_msg("%s: unexpected op_type %s", name, m.op_type);
    }
    for (uint64_t i = 0; i < expected.count * expected.elem_size; ++i)
        ck_assert_msg(out[i] == expected.data[i], "%s [%s]: byte %llu = 0x%02x, expected 0x%02x", name,
                      backend, (unsigned long long)i, out[i], expected.data[i]);
    report(name, backend, "pass");
    free(out);
    conf_device_close(&dev);
out:
    tp_tensor_free(&data);
    tp_tensor_free(&expected);
    tp_model_free(&m);
}
END_TEST

/* The suite must find what the brief promises: both ReverseSequence cases, the
 * slice ones, both Tile ones, the four DepthToSpace, both SpaceToDepth, the
 * Pad, Concat and Split ones, the three ConstantOfShape, both Range and both Expand. */
START_TEST(found_cases)
{
    int rev = 0, slice = 0, tile = 0, d2s = 0, s2d = 0, pad = 0, concat = 0, split = 0, cos = 0, range = 0, expand = 0,
        cast = 0, castlike = 0;
    for (int i = 0; i < g_case_count; ++i) {
        rev += !strncmp(g_cases[i], "test_reversesequence_", 21);
        slice += !strncmp(g_cases[i], "test_slice", 10);
        tile += !strncmp(g_cases[i], "test_tile", 9);
        d2s += !strncmp(g_cases[i], "test_depthtospace_", 18);
        s2d += !strncmp(g_cases[i], "test_spacetodepth", 17);
        pad += strstr(g_cases[i], "_pad") != NULL;
        concat += !strncmp(g_cases[i], "test_concat_", 12);
        split += !strncmp(g_cases[i], "test_split_", 11);
        cos += !strncmp(g_cases[i], "test_constantofshape_", 21);
        range += !strncmp(g_cases[i], "test_range_", 11);
        expand += !strncmp(g_cases[i], "test_expand_dim_", 16);
        cast += !strncmp(g_cases[i], "test_cast_", 10);
        castlike += !strncmp(g_cases[i], "test_castlike_", 14);
    }
    ck_assert_int_ge(rev, 2);
    ck_assert_int_ge(slice, 8);
    ck_assert_int_ge(tile, 2);
    ck_assert_int_ge(d2s, 4); /* example, crd_mode_example, dcr_mode, crd_mode */
    ck_assert_int_ge(s2d, 2); /* test_spacetodepth, test_spacetodepth_example */
    ck_assert_int_ge(pad, 3); /* test_constant_pad, test_edge_pad, test_reflect_pad */
    ck_assert_int_ge(concat, 12); /* 1d to 3d, every axis, negative ones */
    ck_assert_int_ge(split, 7);   /* equal and variable parts, default axis, zero-size splits */
    ck_assert_int_ge(cos, 3);    /* float_ones, int_zeros, int_shape_zero */
    ck_assert_int_ge(range, 2);  /* float_type_positive_delta, int32_type_negative_delta */
    ck_assert_int_ge(expand, 2); /* dim_changed, dim_unchanged */
    ck_assert_int_ge(cast, 10);   /* the float pairs, BFLOAT16 and STRING (skipped) */
    ck_assert_int_ge(castlike, 10);
}
END_TEST

int main(void)
{
    if (!discover()) {
        printf("SKIPPED: onnx-node: libonnx-testdata not found (ONNX_NODE_TESTDATA=%s); "
               "install it with .ci/install-deps\n",
               getenv("ONNX_NODE_TESTDATA") ? getenv("ONNX_NODE_TESTDATA") : "(unset)");
        return 77;
    }
    Suite* s = suite_create("conformance_onnx_node");
    TCase* tc = tcase_create("node");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, found_cases);
    tcase_add_loop_test(tc, onnx_case, 0, 2 * g_case_count);
    suite_add_tcase(s, tc);
    SRunner* sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

/* indexing.c — see indexing.h. */
#include "indexing.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

harness H;

void ix_setup(void) { h_init(&H); }
void ix_teardown(void) { h_fini(&H); }

uint64_t ix_seed(uint64_t suite_default)
{
    const char* s = getenv("DML_TEST_SEED");
    return s && *s ? strtoull(s, NULL, 0) : suite_default;
}

int ix_quick(void)
{
    const char* q = getenv("DML_TEST_QUICK");
    return q && *q == '1';
}

uint64_t ix_below(rng* r, uint64_t n) { return rnext(r) % n; }
int ix_chance(rng* r, unsigned percent) { return ix_below(r, 100) < percent; }

const DML_TENSOR_DATA_TYPE IX_INDEX_TYPES[4] = { DML_TENSOR_DATA_TYPE_INT32, DML_TENSOR_DATA_TYPE_INT64,
    DML_TENSOR_DATA_TYPE_UINT32, DML_TENSOR_DATA_TYPE_UINT64 };

int ix_index_signed(DML_TENSOR_DATA_TYPE type)
{
    return type == DML_TENSOR_DATA_TYPE_INT32 || type == DML_TENSOR_DATA_TYPE_INT64;
}

const uint64_t* ix_hostile_values(uint64_t n, uint32_t* count)
{
    static uint64_t v[10];
    v[0] = (uint64_t)0 - n - 1;          /* -n-1: one before the first from the end */
    v[1] = n;                            /* one past the end */
    v[2] = (uint64_t)INT64_MIN;          /* also 2^63 unsigned */
    v[3] = UINT64_MAX;                   /* -1 when signed */
    v[4] = (uint64_t)1 << 32;            /* 0 in a 32-bit index */
    v[5] = 0xFFFFFFFF80000000ull;        /* INT32_MIN (sign-extended) */
    v[6] = 0x80000000ull;                /* INT32_MIN as 32 bits, 2^31 unsigned */
    v[7] = 0x7FFFFFFFFFFFFFFFull;        /* huge positive */
    v[8] = 0xFFFFFFFFull;                /* UINT32_MAX: -1 in a signed 32-bit index */
    v[9] = (uint64_t)0 - n;              /* -n: the first, from the end */
    *count = 10;
    return v;
}

uint64_t ix_index_bits(rng* r, uint64_t n, int is_signed, unsigned hostile)
{
    if (ix_chance(r, hostile)) {
        uint32_t count;
        const uint64_t* v = ix_hostile_values(n, &count);
        return v[ix_below(r, count)];
    }
    uint64_t p = ix_below(r, n);
    return is_signed && ix_chance(r, 30) ? p - n : p; /* p - n: the same element, from the end */
}

uint64_t ix_elements(uint32_t rank, const uint32_t* sizes)
{
    uint64_t n = 1;
    for (uint32_t i = 0; i < rank; ++i)
        n *= sizes[i];
    return n;
}

/* Packed, padded or permuted strides; broadcast dimensions when allowed. */
static int random_strides(rng* r, uint32_t rank, const uint32_t* sizes, uint32_t* strides, unsigned flags)
{
    uint32_t layout = (uint32_t)ix_below(r, flags & IX_BROADCAST ? 5 : 4);
    if (layout == 0)
        return 0;
    uint32_t order[8];
    for (uint32_t i = 0; i < rank; ++i)
        order[i] = i;
    if (layout == 3)
        for (uint32_t i = rank; i > 1; --i) {
            uint32_t j = (uint32_t)ix_below(r, i), t = order[i - 1];
            order[i - 1] = order[j];
            order[j] = t;
        }
    uint64_t reach = 0;
    for (uint32_t k = rank; k-- > 0;) {
        uint32_t d = order[k];
        uint64_t s = reach + 1 + (layout >= 2 ? ix_below(r, 3) : 0);
        strides[d] = (uint32_t)s;
        reach += (uint64_t)(sizes[d] - 1) * s;
    }
    if (layout == 4)
        for (uint32_t i = 0; i < rank; ++i)
            if (ix_chance(r, 40))
                strides[i] = 0;
    return 1;
}

static void operand_alloc(ix_operand* o, uint64_t offset, uint64_t slack)
{
    o->bytes = o->t.buf.TotalTensorSizeInBytes;
    ck_assert_uint_gt(o->bytes, 0);
    o->offset = offset;
    o->total = offset + o->bytes + slack;
    o->host = malloc(o->total);
    ck_assert_ptr_nonnull(o->host);
}

void ix_operand_make(rng* r, ix_operand* o, DML_TENSOR_DATA_TYPE type, uint32_t rank, const uint32_t* sizes,
                     unsigned flags)
{
    uint32_t strides[8];
    memset(o, 0, sizeof *o);
    o->type = type;
    o->rank = rank;
    o->has_strides = flags & (IX_STRIDED | IX_BROADCAST) ? random_strides(r, rank, sizes, strides, flags) : 0;
    h_tensor_init(&o->t, type, rank, sizes, o->has_strides ? strides : NULL);
    const int exact = (flags & IX_EXACT) || ix_chance(r, 30);
    operand_alloc(o, exact ? 0 : 16 * ix_below(r, 3), exact ? 0 : 32);
    for (uint64_t i = 0; i < o->total; ++i)
        o->host[i] = (uint8_t)rnext(r);
}

void ix_operand_fixed(ix_operand* o, DML_TENSOR_DATA_TYPE type, uint32_t rank, const uint32_t* sizes,
                      const uint32_t* strides, const void* data)
{
    memset(o, 0, sizeof *o);
    o->type = type;
    o->rank = rank;
    o->has_strides = strides != NULL;
    h_tensor_init(&o->t, type, rank, sizes, strides);
    operand_alloc(o, 0, 0);
    memset(o->host, 0, o->total);
    if (data) {
        /* data holds the elements packed, in row-major order of sizes. */
        const uint32_t es = h_elem_size(type);
        uint32_t packed[8];
        ref_packed_strides(rank, sizes, packed);
        const uint32_t* s = strides ? strides : packed;
        uint64_t c[8] = { 0 }, n = ix_elements(rank, sizes);
        for (uint64_t k = 0; k < n; ++k) {
            uint64_t rem = k, at = 0;
            for (uint32_t i = rank; i-- > 0;) {
                c[i] = rem % sizes[i];
                rem /= sizes[i];
                at += c[i] * s[i];
            }
            memcpy(o->host + at * es, (const uint8_t*)data + k * es, es);
        }
    }
}

void ix_operand_fill_indices(rng* r, ix_operand* o, const uint64_t* n_by_last, uint64_t n, unsigned hostile)
{
    const uint32_t es = h_elem_size(o->type);
    const int is_signed = ix_index_signed(o->type);
    uint32_t packed[8];
    ref_packed_strides(o->rank, o->t.sizes, packed);
    const uint32_t* s = o->has_strides ? o->t.strides : packed;
    uint64_t count = ix_elements(o->rank, o->t.sizes);
    for (uint64_t k = 0; k < count; ++k) {
        uint64_t rem = k, at = 0, last = 0;
        for (uint32_t i = o->rank; i-- > 0;) {
            uint64_t c = rem % o->t.sizes[i];
            rem /= o->t.sizes[i];
            at += c * s[i];
            if (i == o->rank - 1)
                last = c;
        }
        uint64_t bits = ix_index_bits(r, n_by_last ? n_by_last[last] : n, is_signed, hostile);
        memcpy(o->host + o->offset + at * es, &bits, es); /* little-endian: the low bytes */
    }
}

void ix_operand_free(ix_operand* o)
{
    free(o->host);
    o->host = NULL;
}

ref_view ix_view(ix_operand* o)
{
    ref_view v = { h_elem_size(o->type), o->rank, o->t.sizes, o->has_strides ? o->t.strides : NULL,
        o->host + o->offset, o->bytes };
    return v;
}

void ix_dump(const char* name, const ix_operand* o)
{
    fprintf(stderr, "  %s: %s rank %u at +%" PRIu64 " (%" PRIu64 " bytes of %" PRIu64 "), sizes {", name,
        h_type_name(o->type), o->rank, o->offset, o->bytes, o->total);
    for (uint32_t i = 0; i < o->rank; ++i)
        fprintf(stderr, "%s%u", i ? "," : "", o->t.sizes[i]);
    fprintf(stderr, "}");
    if (o->has_strides) {
        fprintf(stderr, " strides {");
        for (uint32_t i = 0; i < o->rank; ++i)
            fprintf(stderr, "%s%u", i ? "," : "", o->t.strides[i]);
        fprintf(stderr, "}");
    }
    fprintf(stderr, "\n");
}

int ix_is_kind_refusal(DML_RESULT r, const char* message)
{
    return r == DML_E_NOTIMPL && strstr(message, "plan, which the") != NULL &&
        strstr(message, "backend does not execute") != NULL;
}

int ix_run(const DML_OPERATOR_DESC* desc, ix_operand* const* inputs, uint32_t input_count, ix_operand* output,
           void* got)
{
    h_bind in[8];
    ck_assert_uint_le(input_count, 8);
    for (uint32_t i = 0; i < input_count; ++i)
        in[i] = (h_bind){ h_buffer(&H, inputs[i]->total, inputs[i]->host), inputs[i]->offset, inputs[i]->bytes, 0 };
    h_bind out = { h_buffer(&H, output->total, output->host), output->offset, output->bytes, 0 };
    DML_RESULT r = run_operator(&H, desc, DML_EXECUTION_FLAG_NONE, input_count, in, &out, got, output->total);
    for (uint32_t i = 0; i < input_count; ++i)
        dmlRelease(in[i].buffer);
    dmlRelease(out.buffer);
    if (ix_is_kind_refusal(r, H.message))
        return 0;
    ck_assert_msg(r == DML_S_OK, "%s failed: %s: %s", H.stage, h_result_name(r), H.message);
    return 1;
}

int ix_same_bytes(const uint8_t* got, const uint8_t* want, uint64_t total, const char* what)
{
    uint64_t first = UINT64_MAX, count = 0;
    for (uint64_t b = 0; b < total; ++b)
        if (got[b] != want[b]) {
            first = first == UINT64_MAX ? b : first;
            ++count;
        }
    if (count)
        fprintf(stderr, "%s: %" PRIu64 " bytes differ from the reference, first at %" PRIu64
            " (got 0x%02x, want 0x%02x)\n", what, count, first, got[first], want[first]);
    return count == 0;
}

static char g_primed[1024];

static void prime(void)
{
    DMLBuffer b = NULL;
    ck_assert(dmlDeviceCreateBuffer(NULL, 64, &b) == DML_E_INVALIDARG);
    snprintf(g_primed, sizeof g_primed, "%s", dmlGetLastErrorMessage());
}

void ix_expect_invalid(const DML_OPERATOR_DESC* desc, const char* call, const char* what, const char* word1,
                       const char* word2)
{
    prime();
    DMLOperator op = NULL;
    DML_RESULT r = dmlDeviceCreateOperator(H.device, desc, &op);
    if (DML_SUCCEEDED(r))
        dmlRelease(op);
    ck_assert_msg(r == DML_E_INVALIDARG, "%s: returned %s, expected DML_E_INVALIDARG", what, h_result_name(r));
    ck_assert_ptr_null(op);
    const char* m = dmlGetLastErrorMessage();
    ck_assert_msg(strcmp(m, g_primed) != 0, "%s: no message of its own", what);
    ck_assert_msg(strstr(m, "dmlDeviceCreateOperator") && strstr(m, call), "%s: \"%s\" does not name %s", what, m,
        call);
    ck_assert_msg(!word1 || strstr(m, word1), "%s: \"%s\" does not mention \"%s\"", what, m, word1);
    ck_assert_msg(!word2 || strstr(m, word2), "%s: \"%s\" does not mention \"%s\"", what, m, word2);
}

void ix_expect_valid(const DML_OPERATOR_DESC* desc, const char* what)
{
    DMLOperator op = NULL;
    DML_RESULT r = dmlDeviceCreateOperator(H.device, desc, &op);
    ck_assert_msg(r == DML_S_OK, "%s: returned %s: %s", what, h_result_name(r), dmlGetLastErrorMessage());
    dmlRelease(op);
}

void ix_plain_tensor(h_tensor* t, DML_TENSOR_DATA_TYPE type, uint32_t n)
{
    memset(t, 0, sizeof *t);
    t->sizes[0] = n;
    t->buf.DataType = type;
    t->buf.DimensionCount = 1;
    t->buf.Sizes = t->sizes;
    t->buf.TotalTensorSizeInBytes = ((uint64_t)n * h_elem_size(type) + 3) & ~(uint64_t)3;
    t->desc.Type = DML_TENSOR_TYPE_BUFFER;
    t->desc.Desc = &t->buf;
}

uint32_t ix_probe(const DML_OPERATOR_DESC* const* descs, const char* const* names, uint32_t count)
{
    DML_DEVICE_DESC dd = h_device_desc();
    DMLDevice device = NULL;
    if (dmlCreateDevice(&dd, &device) != DML_S_OK) {
        printf("cannot create a '%s' device: %s\n", h_backend(), dmlGetLastErrorMessage());
        return count;
    }
    uint32_t refused = 0;
    for (uint32_t i = 0; i < count; ++i) {
        DMLOperator op = NULL;
        DMLCompiledOperator co = NULL;
        DML_RESULT r = dmlDeviceCreateOperator(device, descs[i], &op);
        if (r == DML_S_OK)
            r = dmlDeviceCompileOperator(device, op, DML_EXECUTION_FLAG_NONE, &co);
        if (ix_is_kind_refusal(r, dmlGetLastErrorMessage())) {
            printf("SKIP (execution): %s: %s\n", names[i], dmlGetLastErrorMessage());
            ++refused;
        } else if (r != DML_S_OK) {
            printf("probe of %s: %s: %s\n", names[i], h_result_name(r), dmlGetLastErrorMessage());
        }
        dmlRelease(co);
        dmlRelease(op);
    }
    dmlRelease(device);
    return refused;
}

int ix_exit_code(int failed, uint32_t refused, const char* suite)
{
    if (failed)
        return EXIT_FAILURE;
    if (refused) {
        printf("%s: skipped: the '%s' backend does not execute %u of the operators, so their random, hostile, "
            "in-place and graph cases checked nothing (validation passed)\n", suite, h_backend(), refused);
        return 77;
    }
    return EXIT_SUCCESS;
}

int ix_run_graph(const DML_GRAPH_DESC* graph, ix_operand* const* ins, uint32_t input_count, ix_operand* out,
                 void* got)
{
    DMLCompiledOperator co = NULL;
    DML_RESULT r = dmlDeviceCompileGraph(H.device, graph, DML_EXECUTION_FLAG_NONE, &co);
    if (ix_is_kind_refusal(r, dmlGetLastErrorMessage()))
        return 0;
    ck_assert_msg(r == DML_S_OK, "dmlDeviceCompileGraph: %s: %s", h_result_name(r), dmlGetLastErrorMessage());
    DML_BINDING_PROPERTIES p = dmlDispatchableGetBindingProperties(co);
    ck_assert_uint_eq(p.PersistentResourceSize, 0);
    DMLBuffer bufs[8], bout = h_buffer(&H, out->total, out->host), btemp = NULL;
    DML_BUFFER_BINDING bb[8], ob = { bout, out->offset, out->bytes }, tb;
    DML_BINDING_DESC bd[8], od = { DML_BINDING_TYPE_BUFFER, &ob };
    ck_assert_uint_le(input_count, 8);
    for (uint32_t i = 0; i < input_count; ++i) {
        bufs[i] = h_buffer(&H, ins[i]->total, ins[i]->host);
        bb[i] = (DML_BUFFER_BINDING){ bufs[i], ins[i]->offset, ins[i]->bytes };
        bd[i] = (DML_BINDING_DESC){ DML_BINDING_TYPE_BUFFER, &bb[i] };
    }
    DMLBindingTable table = NULL;
    DML_BINDING_TABLE_DESC td = { co };
    h_assert_ok(dmlDeviceCreateBindingTable(H.device, &td, &table));
    h_assert_ok(dmlBindingTableBindInputs(table, input_count, bd));
    h_assert_ok(dmlBindingTableBindOutputs(table, 1, &od));
    if (p.TemporaryResourceSize) {
        btemp = h_buffer(&H, p.TemporaryResourceSize, NULL);
        tb = (DML_BUFFER_BINDING){ btemp, 0, p.TemporaryResourceSize };
        DML_BINDING_DESC t = { DML_BINDING_TYPE_BUFFER, &tb };
        h_assert_ok(dmlBindingTableBindTemporaryResource(table, &t));
    }
    h_assert_ok(dmlCommandRecorderRecordDispatch(H.recorder, H.queue, co, table));
    h_assert_ok(dmlCommandQueueSynchronize(H.queue));
    h_read(&H, bout, 0, got, out->total);
    dmlRelease(table);
    for (uint32_t i = 0; i < input_count; ++i)
        dmlRelease(bufs[i]);
    dmlRelease(bout);
    dmlRelease(btemp);
    dmlRelease(co);
    return 1;
}

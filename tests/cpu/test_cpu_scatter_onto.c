/*
 * test_cpu_scatter_onto.c — a scatter's copy and updates in one pass
 * (cpu_scatter_onto.c) against a naive reference written here from plan.h:
 * the copy element by element, then every update element in the updates'
 * row-major order, its index tuple through dml_index_resolve (an update
 * with any component out of range dropped), so the last update to an
 * element wins.
 *
 * SCATTER_ND of rows (one index), of cells picked by a pair of indices, and
 * of rows under an outer dimension the index does not cover; cells of 1 to
 * 40 elements of 1, 2, 4 and 8 bytes; indices of 4 and 8 bytes, signed and
 * not, hostile values included; up to three times as many updates as
 * cells (duplicates); outputs with bytes before and after the copied range
 * that must stay as they were, every buffer ending at a guard page; 1 to 16
 * threads, ordinary and non-temporal stores; and outputs of more than one
 * block of cells (DML_CPU_ONTO_BLOCK_CELLS), so that blocks and threads cut
 * through runs of duplicates. Plans outside the one pass (updates off the
 * cells' grid, updates overlapping the output) must take the two steps and
 * give the same result. DML_TEST_QUICK=1 (valgrind) runs a quarter of the
 * random cases and one large one on 1, 5, 9 and 13 threads.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "core/plan.h"
#include "cpu_execute.h"
#include "cpu_pool.h"
#include "cpu_scatter_onto.h"
#include "guarded.h"

typedef unsigned char byte;

/* A cost model under which splitting always pays. */
static const dml_cpu_cost_model split_always = { .wake_ns = 0.0, .bytes_per_ns = 1.0 };

static uint64_t next(uint64_t* s)
{
    *s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
    return *s;
}

static uint64_t below(uint64_t* s, uint64_t n)
{
    return next(s) % n;
}

/* A guarded buffer of random bytes. */
static void random_guarded(guarded* g, size_t bytes, uint64_t* s)
{
    guarded_make(g, bytes);
    for (size_t i = 0; i < bytes; ++i)
        g->data[i] = (byte)next(s);
}

typedef struct onto_case {
    dml_plan copy, scatter;
    guarded in, upd, idx, out;
    byte* expected;
} onto_case;

static uint64_t index_value(uint64_t* s, uint64_t n, int is_signed)
{
    static const uint64_t hostile[] = { UINT64_MAX, (uint64_t)1 << 63, (uint64_t)INT64_MAX, 0xFFFFFFFFu, 0x80000000u };
    switch (below(s, 12)) {
    case 0: return n; /* one past: dropped */
    case 1: return is_signed ? (uint64_t)0 - (1 + below(s, n)) : n + below(s, 5); /* from the end, or out */
    case 2: return is_signed ? (uint64_t)0 - n - 1 : hostile[below(s, 5)];
    case 3: return hostile[below(s, 5)];
    default: return below(s, n);
    }
}

/* Advances coordinates row-major over sizes; 0 after the last. */
static int coords_next(const dml_plan* p, uint64_t* coords)
{
    for (uint32_t d = p->rank; d-- > 0;) {
        if (++coords[d] < p->sizes[d])
            return 1;
        coords[d] = 0;
    }
    return 0;
}

/* The naive result: the copy, then every update element in order. */
static void reference(onto_case* t, const byte* in, byte* out)
{
    const dml_plan* c = &t->copy;
    const dml_plan* p = &t->scatter;
    const size_t E = p->element_size;
    uint64_t coords[DML_PLAN_MAX_RANK] = { 0 };
    do {
        int64_t src = c->in_offset, dst = c->out_offset;
        for (uint32_t d = 0; d < c->rank; ++d) {
            src += (int64_t)coords[d] * c->in_strides[d];
            dst += (int64_t)coords[d] * c->out_strides[d];
        }
        memcpy(out + dst * (int64_t)E, in + src * (int64_t)E, E);
    } while (coords_next(c, coords));
    for (uint64_t n = 0; n < p->element_count; ++n) {
        int64_t src = p->in_offset, dst = p->out_offset, at = p->len_offset;
        for (uint32_t d = 0; d < p->rank; ++d) {
            src += (int64_t)coords[d] * p->in_strides[d];
            dst += (int64_t)coords[d] * p->out_strides[d];
            at += (int64_t)coords[d] * p->len_strides[d];
        }
        int keep = 1;
        for (uint32_t k = 0; k < p->index_count; ++k) {
            uint64_t position;
            const uint64_t v =
                dml_index_load(t->idx.data, at + (int64_t)k * p->index_step, p->lengths_element_size, p->index_signed);
            if (dml_index_resolve(v, p->index_signed, p->index_sizes[k], &position))
                dst += (int64_t)position * p->index_strides[k];
            else
                keep = 0;
        }
        if (keep)
            memcpy(out + dst * (int64_t)E, t->upd.data + src * (int64_t)E, E);
        coords_next(p, coords);
    }
}

/* The expected output from the output's present bytes. */
static void expect(onto_case* t)
{
    memcpy(t->expected, t->out.data, t->out.bytes);
    reference(t, t->in.data, t->expected);
}

/* form 0: rows of [T, W] by one index; 1: cells of [A, B, W] by a pair;
 * 2: rows of [D, T, W] by one index per (d, u). width, cells and updates:
 * the counts wanted (0: random). */
static void case_make(onto_case* t, uint64_t* s, int form, uint32_t E, uint64_t width, uint64_t cells,
    uint64_t updates)
{
    memset(t, 0, sizeof *t);
    const uint64_t W = width ? width : below(s, 3) ? 1 + below(s, 40) : 64 / E * (1 + below(s, 2));
    cells = cells ? cells : 1 + below(s, 300);
    updates = updates ? updates : 1 + below(s, 3 * cells);
    dml_plan* p = &t->scatter;
    p->kind = DML_PLAN_SCATTER;
    p->element_size = E;
    p->axis = -1;
    p->lengths_element_size = below(s, 2) ? 8 : 4;
    p->index_signed = (uint32_t)below(s, 2);
    p->index_count = 1;
    uint64_t index_elements = updates;
    if (form == 0) {
        p->rank = 2;
        p->sizes[0] = updates, p->sizes[1] = W;
        p->in_strides[0] = (int64_t)W, p->in_strides[1] = 1;
        p->out_strides[1] = 1;
        p->len_strides[0] = 1;
        p->index_sizes[0] = cells;
        p->index_strides[0] = (int64_t)W;
    } else if (form == 1) {
        const uint64_t A = 1 + below(s, 12), B = (cells + A - 1) / A;
        cells = A * B;
        p->rank = 2;
        p->sizes[0] = updates, p->sizes[1] = W;
        p->in_strides[0] = (int64_t)W, p->in_strides[1] = 1;
        p->out_strides[1] = 1;
        p->len_strides[0] = 2;
        p->index_step = 1;
        p->index_count = 2;
        p->index_sizes[0] = A, p->index_sizes[1] = B;
        p->index_strides[0] = (int64_t)(B * W), p->index_strides[1] = (int64_t)W;
        index_elements = 2 * updates;
    } else {
        const uint64_t D = 1 + below(s, 4), T = (cells + D - 1) / D;
        cells = D * T;
        p->rank = 3;
        p->sizes[0] = D, p->sizes[1] = updates, p->sizes[2] = W;
        p->in_strides[0] = (int64_t)(updates * W), p->in_strides[1] = (int64_t)W, p->in_strides[2] = 1;
        p->out_strides[0] = (int64_t)(T * W), p->out_strides[2] = 1;
        p->len_strides[0] = (int64_t)updates, p->len_strides[1] = 1;
        p->index_sizes[0] = T;
        p->index_strides[0] = (int64_t)W;
        index_elements = D * updates;
    }
    p->element_count = 1;
    for (uint32_t d = 0; d < p->rank; ++d)
        p->element_count *= p->sizes[d];
    /* The copied range sits anywhere in the output buffer, its source anywhere in the input's. */
    const uint64_t count = cells * W, before = below(s, 3) ? 0 : below(s, 70), after = below(s, 2) ? 0 : below(s, 70);
    const uint64_t in_before = below(s, 2) ? 0 : below(s, 50);
    dml_plan* c = &t->copy;
    c->kind = DML_PLAN_GATHER;
    c->element_size = E;
    c->axis = -1;
    c->rank = 1;
    c->sizes[0] = c->element_count = count;
    c->in_strides[0] = c->out_strides[0] = 1;
    c->in_offset = (int64_t)in_before;
    c->out_offset = (int64_t)before;
    p->out_offset = (int64_t)before;
    p->in_offset = (int64_t)below(s, 20);
    random_guarded(&t->in, (in_before + count) * E, s);
    random_guarded(&t->upd, ((uint64_t)p->in_offset + p->element_count) * E, s);
    random_guarded(&t->out, (before + count + after) * E, s);
    random_guarded(&t->idx, index_elements * p->lengths_element_size, s);
    const uint64_t bound = form == 1 ? 0 : p->index_sizes[0];
    for (uint64_t i = 0; i < index_elements; ++i) {
        const uint64_t n = form == 1 ? p->index_sizes[i % 2] : bound;
        const uint64_t v = index_value(s, n, (int)p->index_signed);
        memcpy(t->idx.data + i * p->lengths_element_size, &v, p->lengths_element_size);
    }
    t->expected = malloc(t->out.bytes);
    expect(t);
}

static void case_free(onto_case* t)
{
    guarded_free(&t->in);
    guarded_free(&t->upd);
    guarded_free(&t->idx);
    guarded_free(&t->out);
    free(t->expected);
}

static dml_plan_args copy_args(const onto_case* t)
{
    return (dml_plan_args){ .input = t->in.data, .input_bytes = t->in.bytes, .output = t->out.data,
        .output_bytes = t->out.bytes };
}

static dml_plan_args scatter_args(const onto_case* t)
{
    return (dml_plan_args){ .input = t->upd.data, .input_bytes = t->upd.bytes, .lengths = t->idx.data,
        .lengths_bytes = t->idx.bytes, .output = t->out.data, .output_bytes = t->out.bytes };
}

/* Runs the case on `threads` threads from a fresh output and compares. */
static void run_and_compare(onto_case* t, cpu_pool* pool, unsigned threads, const char* what, int seed)
{
    byte* initial = malloc(t->out.bytes);
    memcpy(initial, t->out.data, t->out.bytes);
    const dml_plan_args ca = copy_args(t), sa = scatter_args(t);
    dml_cpu_scatter_onto(pool, &split_always, threads, &t->copy, &ca, &t->scatter, &sa);
    for (size_t i = 0; i < t->out.bytes; ++i)
        if (t->out.data[i] != t->expected[i])
            ck_abort_msg("%s, case %d, %u threads: byte %zu of %zu is %u, expected %u", what, seed, threads, i,
                t->out.bytes, t->out.data[i], t->expected[i]);
    memcpy(t->out.data, initial, t->out.bytes);
    free(initial);
}

static int quick(void)
{
    const char* q = getenv("DML_TEST_QUICK");
    return q && *q && strcmp(q, "0") != 0;
}

/* Random small cases of every form, each on 1 to 16 threads, half of them streamed. */
START_TEST(random_cases)
{
    cpu_pool* pool = cpu_pool_create(16);
    ck_assert_ptr_nonnull(pool);
    const int count = quick() ? 30 : 120;
    for (int k = 0; k < count; ++k) {
        uint64_t s = 0x0A70 + (uint64_t)k * 7919;
        onto_case t;
        case_make(&t, &s, k % 3, 1u << (k / 3 % 4), 0, 0, 0);
        const dml_plan_args ca = copy_args(&t), sa = scatter_args(&t);
        ck_assert_msg(dml_cpu_scatter_onto_applies(&t.copy, &ca, &t.scatter, &sa), "case %d takes the one pass", k);
        const uint64_t previous = dml_cpu_stream_min_bytes(k % 2 ? 0 : UINT64_MAX);
        for (unsigned threads = 1; threads <= 16; threads += threads < 4 ? 1 : 6)
            run_and_compare(&t, pool, threads, "random", k);
        dml_cpu_stream_min_bytes(previous);
        case_free(&t);
    }
    cpu_pool_destroy(pool);
}
END_TEST

/* More cells than one block, with many duplicates: blocks and threads cut
 * through the cells, and each must still find the last update. */
START_TEST(blocks_and_threads)
{
    cpu_pool* pool = cpu_pool_create(16);
    ck_assert_ptr_nonnull(pool);
    for (int k = 0; k < (quick() ? 1 : 3); ++k) {
        uint64_t s = 0xB10C + (uint64_t)k;
        onto_case t;
        const uint64_t cells = 2 * DML_CPU_ONTO_BLOCK_CELLS + 777 - (uint64_t)k * 400;
        /* one-element cells of one byte: many cells for few bytes */
        case_make(&t, &s, 0, 1, 1, cells, cells + 5000);
        const dml_plan_args ca = copy_args(&t), sa = scatter_args(&t);
        ck_assert(dml_cpu_scatter_onto_applies(&t.copy, &ca, &t.scatter, &sa));
        for (unsigned threads = 1; threads <= 16; threads = quick() ? threads + 4 : threads * 2 + (threads == 2))
            run_and_compare(&t, pool, threads, "blocks", k);
        case_free(&t);
    }
    cpu_pool_destroy(pool);
}
END_TEST

/* Plans the one pass refuses run the two steps, with the same result:
 * updates off the cells' grid, updates reaching past the copied range, a
 * copy that is not dense. */
START_TEST(outside_the_one_pass)
{
    cpu_pool* pool = cpu_pool_create(4);
    ck_assert_ptr_nonnull(pool);
    for (int k = 0; k < 12; ++k) {
        uint64_t s = 0x0FF + (uint64_t)k;
        onto_case t;
        case_make(&t, &s, 0, 4, 0, 40, 90);
        dml_plan* c = &t.copy;
        if (k % 3 == 0) { /* every update one element further: off the grid unless cells have one element */
            if (t.scatter.sizes[1] == 1) {
                case_free(&t);
                continue;
            }
            t.scatter.out_offset += 1;
            t.scatter.index_sizes[0] -= 1;
        } else if (k % 3 == 1) { /* the copy covers the first 20 cells of 40 */
            c->sizes[0] = c->element_count = c->element_count / 2;
        } else { /* the copy takes the input's two halves swapped */
            const uint64_t half = c->element_count / 2;
            c->rank = 2;
            c->sizes[0] = 2, c->sizes[1] = half;
            c->out_strides[0] = (int64_t)half, c->out_strides[1] = 1;
            c->in_strides[0] = -(int64_t)half, c->in_strides[1] = 1;
            c->in_offset += (int64_t)half;
        }
        expect(&t);
        const dml_plan_args ca = copy_args(&t), sa = scatter_args(&t);
        ck_assert_msg(!dml_cpu_scatter_onto_applies(c, &ca, &t.scatter, &sa), "case %d refused", k);
        run_and_compare(&t, pool, 1 + (unsigned)k % 4, "two steps", k);
        case_free(&t);
    }
    cpu_pool_destroy(pool);
}
END_TEST

int main(void)
{
    dml_cpu_onto_min_cell_bytes(1); /* every cell size takes the one pass */
    Suite* s = suite_create("cpu_scatter_onto");
    TCase* tc = tcase_create("onto");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, random_cases);
    tcase_add_test(tc, blocks_and_threads);
    tcase_add_test(tc, outside_the_one_pass);
    suite_add_tcase(s, tc);
    SRunner* sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

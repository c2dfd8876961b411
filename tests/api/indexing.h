/*
 * indexing.h — what the suites of the data-dependent operators share
 * (test_gather.c, test_scatter.c, test_select.c): random operands with
 * packed / padded / permuted / broadcast layouts, index values including
 * hostile ones, a run that tells "the backend does not execute this plan
 * kind yet" (a skip, never a pass) from a failure, and the validation
 * check (DML_E_INVALIDARG, a message of its own naming the call and field).
 */
#ifndef DML_TESTS_API_INDEXING_H
#define DML_TESTS_API_INDEXING_H

#include "harness.h"
#include "reference.h"

#include <stdint.h>

extern harness H;

void ix_setup(void);
void ix_teardown(void);

uint64_t ix_seed(uint64_t suite_default);
int ix_quick(void); /* DML_TEST_QUICK=1 (valgrind): fewer random cases */
uint64_t ix_below(rng* r, uint64_t n);
int ix_chance(rng* r, unsigned percent);

/* The four index types, and whether one is signed. */
extern const DML_TENSOR_DATA_TYPE IX_INDEX_TYPES[4];
int ix_index_signed(DML_TENSOR_DATA_TYPE type);

/* A random index for a dimension of n, as the bits stored (the low 4 bytes
 * for a 32-bit type): mostly in range, negative from the end when signed,
 * and in `hostile` percent of cases one of -n-1, n, INT64_MIN, UINT64_MAX,
 * 2^63, 2^32, INT32_MIN, a huge positive. */
uint64_t ix_index_bits(rng* r, uint64_t n, int is_signed, unsigned hostile);

/* Every hostile value, for the exhaustive tests (count in *count). */
const uint64_t* ix_hostile_values(uint64_t n, uint32_t* count);

/* One operand of a case: its desc, its buffer's host image (`total` bytes,
 * the tensor `offset` bytes in, TotalTensorSizeInBytes `bytes`). */
typedef struct ix_operand {
    h_tensor t;
    DML_TENSOR_DATA_TYPE type;
    uint32_t rank;
    int has_strides;
    uint64_t offset, bytes, total;
    uint8_t* host;
} ix_operand;

/* Layouts: IX_PACKED (no strides), else random among packed / padded /
 * permuted, plus broadcast (stride 0) dimensions when IX_BROADCAST. */
enum { IX_PACKED = 0, IX_STRIDED = 1, IX_BROADCAST = 2, IX_EXACT = 4 /* offset 0, buffer = bytes */ };

/* Sizes, a layout as `flags` allow, random bytes everywhere. */
void ix_operand_make(rng* r, ix_operand* o, DML_TENSOR_DATA_TYPE type, uint32_t rank, const uint32_t* sizes,
                     unsigned flags);
/* With explicit strides (NULL: packed), offset 0, exact size. */
void ix_operand_fixed(ix_operand* o, DML_TENSOR_DATA_TYPE type, uint32_t rank, const uint32_t* sizes,
                      const uint32_t* strides, const void* data);
/* Every element of an index operand written with ix_index_bits for a
 * dimension of n, or of n_by_last[c] where c is the element's coordinate on
 * the last dimension (an ND tuple's component) when n_by_last is not NULL. */
void ix_operand_fill_indices(rng* r, ix_operand* o, const uint64_t* n_by_last, uint64_t n, unsigned hostile);
void ix_operand_free(ix_operand* o);
ref_view ix_view(ix_operand* o);
void ix_dump(const char* name, const ix_operand* o);

/* The elements of sizes[0..rank). */
uint64_t ix_elements(uint32_t rank, const uint32_t* sizes);

/* Runs desc with `inputs` (their own buffers) and `output`; on success
 * copies the whole output buffer into got (output->total bytes) and returns
 * 1. Returns 0 when the backend does not execute one of the operator's plan
 * kinds (DML_E_NOTIMPL at compile, the message naming the kind): a skip,
 * recorded by ix_note_skip. Any other failure fails the test. */
int ix_run(const DML_OPERATOR_DESC* desc, ix_operand* const* inputs, uint32_t input_count, ix_operand* output,
           void* got);

/* Compiles graph and runs it with graph input i bound to ins[i] and its
 * one output to out, as ix_run (0: a plan kind refused). */
int ix_run_graph(const DML_GRAPH_DESC* graph, ix_operand* const* ins, uint32_t input_count, ix_operand* out,
                 void* got);

/* Whether a result/message pair is the backend refusing a plan kind. */
int ix_is_kind_refusal(DML_RESULT r, const char* message);

/* Compares got with want over `total` bytes; on a difference prints where
 * and returns 0. */
int ix_same_bytes(const uint8_t* got, const uint8_t* want, uint64_t total, const char* what);

/* Creating desc fails with DML_E_INVALIDARG and no operator, with a new
 * message naming `call` (e.g. "(GATHER)") and each non-NULL word. */
void ix_expect_invalid(const DML_OPERATOR_DESC* desc, const char* call, const char* what, const char* word1,
                       const char* word2);
void ix_expect_valid(const DML_OPERATOR_DESC* desc, const char* what);

/* A packed 1-D tensor of n elements, without Check's asserts (usable in
 * main(), before any test runs). */
void ix_plain_tensor(h_tensor* t, DML_TENSOR_DATA_TYPE type, uint32_t n);

/* main(): whether the backend executes each of `descs` (compiling them):
 * prints one line per operator it cannot run. Returns the count refused. */
uint32_t ix_probe(const DML_OPERATOR_DESC* const* descs, const char* const* names, uint32_t count);

/* main()'s end: EXIT_FAILURE when a test failed, else 77 (skipped, with
 * its reason) when `refused` operators could not execute, else 0. */
int ix_exit_code(int failed, uint32_t refused, const char* suite);

#endif

/*
 * harness.h — shared setup for the public-API suites (tests/api).
 *
 * Uses only <dml/dml.h>. The backend comes from DML_TEST_BACKEND (default "cpu"),
 * so the same suites run against every plugin.
 */
#ifndef DML_TESTS_API_HARNESS_H
#define DML_TESTS_API_HARNESS_H

#include <dml/dml.h>

#include <check.h>
#include <stdint.h>

/* The byte run_operator() writes over an OWNED_BY_DML input's source range after
 * the initializer has run (so a result can only come from the persistent copy). */
#define H_CLOBBER_BYTE 0xEE

typedef struct harness {
    DMLDevice device;
    DMLCommandQueue queue;
    DMLCommandRecorder recorder;
    const char* stage;    /* the step run_operator() failed at ("" when none) */
    char message[1024];   /* dmlGetLastErrorMessage() at that failure */
} harness;

/* A tensor desc with its arrays inside. Do not copy after h_tensor_init (it
 * points into itself). TotalTensorSizeInBytes is computed by the reference's
 * formula, independently of DMLCalcBufferTensorSize. */
typedef struct h_tensor {
    DML_BUFFER_TENSOR_DESC buf;
    DML_TENSOR_DESC desc;
    uint32_t sizes[8];
    uint32_t strides[8];
} h_tensor;

/* One tensor's binding for run_operator(). */
typedef struct h_bind {
    DMLBuffer buffer;
    uint64_t offset;
    uint64_t size;
    int owned; /* OWNED_BY_DML: bound at the initializer, NONE at execution */
} h_bind;

const char* h_backend(void);
DML_DEVICE_DESC h_device_desc(void);
uint32_t h_elem_size(DML_TENSOR_DATA_TYPE type); /* 0 for an invalid type */
const char* h_type_name(DML_TENSOR_DATA_TYPE type);
const char* h_result_name(DML_RESULT r);

/* Device, queue and recorder; ck_assert on failure. */
void h_init(harness* h);
void h_fini(harness* h);

void h_tensor_init(h_tensor* t, DML_TENSOR_DATA_TYPE type, uint32_t rank,
                   const uint32_t* sizes, const uint32_t* strides);

/* A device buffer of `size` bytes holding `init` (zeros when NULL); asserts. */
DMLBuffer h_buffer(harness* h, uint64_t size, const void* init);
void h_write(harness* h, DMLBuffer b, uint64_t offset, const void* src, uint64_t size);
void h_read(harness* h, DMLBuffer b, uint64_t offset, void* dst, uint64_t size);

/*
 * create -> compile -> initializer (dispatched; owned inputs bound through one
 * DML_BUFFER_ARRAY_BINDING, the persistent resource as its output; nothing
 * bound when there is nothing to bind) -> owned source ranges overwritten with
 * H_CLOBBER_BYTE -> execution binding table (owned inputs as NONE, persistent
 * and temporary resources when their sizes are > 0) -> RecordDispatch ->
 * ReadBuffer of output->buffer bytes [0, dst_size) into dst.
 * Returns the first failing result (h->stage / h->message say where), else S_OK.
 */
DML_RESULT run_operator(harness* h, const DML_OPERATOR_DESC* desc, DML_EXECUTION_FLAGS flags,
                        uint32_t input_count, const h_bind* inputs, const h_bind* output,
                        void* dst, uint64_t dst_size);

/* run_operator for an operator with several outputs (SPLIT): output i's
 * buffer bytes [0, dst_sizes[i]) are read into dsts[i] (when not NULL). At
 * most 16 inputs and 16 outputs. */
DML_RESULT run_operator_outputs(harness* h, const DML_OPERATOR_DESC* desc, DML_EXECUTION_FLAGS flags,
                                uint32_t input_count, const h_bind* inputs, uint32_t output_count,
                                const h_bind* outputs, void* const* dsts, const uint64_t* dst_sizes);

/* ck_assert that r == expected, printing the names and the last error message. */
#define h_assert_result(r, expected)                                                       \
    do {                                                                                   \
        DML_RESULT h_r_ = (r), h_e_ = (expected);                                          \
        ck_assert_msg(h_r_ == h_e_, "%s returned %s (0x%08x), expected %s; message: %s", #r, \
                      h_result_name(h_r_), (unsigned)h_r_, h_result_name(h_e_),            \
                      dmlGetLastErrorMessage());                                           \
    } while (0)

#define h_assert_ok(r) h_assert_result((r), DML_S_OK)

/* Reproducible random numbers for the randomised suites (splitmix64). */
typedef struct rng {
    uint64_t s;
} rng;

static inline uint64_t rnext(rng* r)
{
    uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

#endif

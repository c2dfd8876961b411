/*
 * dmlrun.h — what dmlrun's operator entries (dmlrun_ops.c) and its driver
 * (dmlrun.c) share.
 *
 * An operator is one dmlrun_op: its command-line name, its options, a
 * function that builds the DML_OPERATOR_DESC from the parsed options, and
 * its documented examples (run and checked by `dmlrun --examples`). The
 * driver parses the command line against the entry's options, creates the
 * input tensor (--type, --sizes, --input) unless the entry creates its
 * inputs itself, lets the entry build the rest (more inputs, one or more
 * outputs), runs the operator through the public API and prints everything.
 */
#ifndef DML_TOOLS_DMLRUN_H
#define DML_TOOLS_DMLRUN_H

#include "common.h"

#include <stdint.h>

#define DMLRUN_MAX_RANK DML_TENSOR_DIMENSION_COUNT_MAX1
#define DMLRUN_MAX_OPTIONS 8 /* an operator's own options */
#define DMLRUN_MAX_INPUTS 8
#define DMLRUN_MAX_OUTPUTS 8
#define DMLRUN_MAX_COUNTS DMLRUN_MAX_RANK /* values of a DMLRUN_COUNTS option: one per input or output */

/* ---- Host tensors (packed) ----------------------------------------------- */

typedef struct host_tensor {
    DML_TENSOR_DATA_TYPE type;
    uint32_t rank;
    uint32_t sizes[DMLRUN_MAX_RANK];
    uint64_t count;
    DML_BUFFER_TENSOR_DESC buffer_desc;
    DML_TENSOR_DESC desc; /* points into the struct: do not copy once initialised */
    unsigned char* data;  /* packed, buffer_desc.TotalTensorSizeInBytes bytes, zeroed */
} host_tensor;

void host_tensor_init(host_tensor* t, DML_TENSOR_DATA_TYPE type, uint32_t rank, const uint32_t* sizes);
void host_tensor_free(host_tensor* t);
/* Fills t from "v,v,..." (exactly t->count values), or with 1..N when text is
 * NULL; a wrong value is fatal, naming `option`. */
void host_tensor_fill(host_tensor* t, const char* text, const char* option);
/* The same over several tensors in turn: text holds all their values, one
 * after the other; without text they hold 1..N continued from one to the next. */
void host_tensors_fill(host_tensor* tensors, uint32_t count, const char* text, const char* option);
void host_tensor_print(const char* title, const host_tensor* t);

/* ---- Options ------------------------------------------------------------- */

typedef enum dmlrun_kind {
    DMLRUN_LIST,        /* unsigned 32-bit integers, one per dimension */
    DMLRUN_SIGNED_LIST, /* signed 32-bit integers, one per dimension */
    DMLRUN_ONE,         /* one unsigned 32-bit integer */
    DMLRUN_TYPE,        /* a data type: float32, uint64, ... */
    DMLRUN_VALUES,      /* "v,v,...": elements, parsed once their tensor exists */
    DMLRUN_WORD,        /* one word ("dcr"), checked by the entry */
    DMLRUN_COUNTS,      /* 1 to DMLRUN_MAX_COUNTS unsigned 32-bit integers, any number (one per part) */
} dmlrun_kind;

typedef struct dmlrun_option {
    const char* name; /* "--offsets" */
    dmlrun_kind kind;
    bool required;
} dmlrun_option;

typedef struct dmlrun_value {
    bool given;
    uint32_t u[DMLRUN_MAX_RANK]; /* LIST, COUNTS; ONE in u[0] */
    uint32_t count;              /* COUNTS: how many values */
    int32_t i[DMLRUN_MAX_RANK];  /* SIGNED_LIST */
    DML_TENSOR_DATA_TYPE type;   /* TYPE */
    const char* text;            /* VALUES */
} dmlrun_value;

struct dmlrun_op;

/* A parsed command line (or example). Every per-dimension list has `rank`
 * values: the first one given sets it. */
typedef struct dmlrun_args {
    const struct dmlrun_op* op;
    DML_TENSOR_DATA_TYPE type; /* --type, default float32 */
    uint32_t rank;
    uint32_t sizes[DMLRUN_MAX_RANK]; /* --sizes: the input's */
    bool have_sizes;
    const char* input; /* --input, or NULL for 1..N */
    dmlrun_value values[DMLRUN_MAX_OPTIONS]; /* op->options[k]'s */
} dmlrun_args;

/* The value of one of the operator's options (by name; an unknown name is a bug). */
const dmlrun_value* dmlrun_value_of(const dmlrun_args* args, const char* option);

/* ---- Building a call ----------------------------------------------------- */

/* What an entry's build fills: the desc, the outputs and any inputs besides
 * the first (the request's, already created and filled, unless the entry
 * has own_inputs). */
typedef struct dmlrun_call {
    DML_OPERATOR_DESC desc;
    void* desc_storage; /* the operator's desc struct (dmlrun_desc) */
    host_tensor tensors[DMLRUN_MAX_INPUTS]; /* the inputs, in binding order */
    const char* titles[DMLRUN_MAX_INPUTS];  /* as printed: "input", "sequence lengths" */
    uint32_t input_count;
    host_tensor outputs[DMLRUN_MAX_OUTPUTS]; /* in binding order */
    const char* output_titles[DMLRUN_MAX_OUTPUTS]; /* as printed: "output", "output 1" */
    uint32_t output_count;
} dmlrun_call;

/* The operator's desc struct, zeroed, owned by the call; sets call->desc. */
void* dmlrun_desc(dmlrun_call* call, DML_OPERATOR_TYPE type, size_t size);
/* Another input, in binding order, printed under title. */
host_tensor* dmlrun_add_input(dmlrun_call* call, const char* title, DML_TENSOR_DATA_TYPE type, uint32_t rank,
    const uint32_t* sizes);
/* Another output (packed, zeroed), in binding order, printed under title. */
host_tensor* dmlrun_add_output(dmlrun_call* call, const char* title, DML_TENSOR_DATA_TYPE type, uint32_t rank,
    const uint32_t* sizes);
/* The output of a one-output operator: dmlrun_add_output titled "output". */
host_tensor* dmlrun_set_output(dmlrun_call* call, DML_TENSOR_DATA_TYPE type, uint32_t rank, const uint32_t* sizes);
/* "input 0", "output 3", ...: titles of numbered parts (k < 8). */
const char* dmlrun_part_title(bool output, uint32_t k);

/* Parameter lines under "operator NAME": "  InputWindowOffsets {0,0,0,1}". */
void dmlrun_print_u(const char* name, uint32_t rank, const uint32_t* values);
void dmlrun_print_i(const char* name, uint32_t rank, const int32_t* values);

/* ---- Operators ----------------------------------------------------------- */

/* A documented example: the options as on the command line (the input is
 * 1, 2, ..., N in float32 unless they say otherwise) and the expected output,
 * row-major, as values of the output's type (several outputs: one after the other). */
typedef struct dmlrun_example {
    const char* title;
    const char* options;
    const char* expected;
} dmlrun_example;

typedef struct dmlrun_op {
    const char* name;  /* on the command line: "slice1" */
    const char* alias; /* another accepted name, or NULL */
    const char* title; /* DirectML's: "SLICE1" */
    const char* usage; /* --help: the options, then an optional second line */
    const char* notes;
    bool no_input;     /* the operator reads nothing (the fills): --sizes are the output's */
    dmlrun_option options[DMLRUN_MAX_OPTIONS]; /* up to a NULL name */
    /* The entry's build creates and fills every input itself (--sizes and
     * --input then describe them as its usage says); else the driver creates
     * the first from --type, --sizes and --input. */
    bool own_inputs;
    /* Checks beyond the options' syntax that the tool must make itself
     * (fatal: tool_fail); NULL when the runtime checks everything. */
    void (*check)(const dmlrun_args* args);
    /* Creates the output and other inputs, fills the desc, prints the
     * operator's parameters. */
    void (*build)(const dmlrun_args* args, dmlrun_call* call);
    const dmlrun_example* examples; /* up to a NULL title */
} dmlrun_op;

/* The data-dependent operators' entries (dmlrun_ops_indexed.c). */
extern const dmlrun_op dmlrun_op_gather, dmlrun_op_gather_elements, dmlrun_op_gather_nd, dmlrun_op_scatter,
    dmlrun_op_scatter_nd, dmlrun_op_one_hot, dmlrun_op_element_wise_if;

/* The operators, in --help and --examples order (dmlrun_ops.c). */
extern const dmlrun_op* const dmlrun_ops[];
extern const uint32_t dmlrun_op_count;

#endif /* DML_TOOLS_DMLRUN_H */

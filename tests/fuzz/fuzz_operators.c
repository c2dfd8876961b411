/*
 * fuzz_operators.c — libFuzzer target: bytes -> operator desc -> the whole API.
 *
 * The input is decoded into one DML_OPERATOR_DESC (REVERSE_SUBSEQUENCES, SLICE1,
 * SLICE, TILE, CAST, PADDING, or another/unknown operator type), with random
 * ranks, sizes, strides,
 * data types, flags (OWNED_BY_DML), sizes in bytes, alignments, window
 * parameters and sequence-length values. Then, on the "cpu" and "cudaemu"
 * backends:
 *   - CreateOperator is always called (even on huge descs);
 *   - rejected: the result must be DML_E_INVALIDARG (DML_E_NOTIMPL for a valid
 *     unimplemented operator type) with a non-empty message;
 *   - accepted and small (every tensor <= FZ_MAX_BYTES): compile, initialize
 *     (owned inputs), bind, dispatch, read back, and compare with the naive
 *     reference (tests/api/reference.c) byte for byte, including the output
 *     bytes the tensor does not address (they must be left untouched).
 *   - "repair" mode (first byte's low bit): the decoder clamps everything into
 *     the spec's valid range, and the desc must then be accepted.
 *   - the "cudaemu" device is a DML_CREATE_DEVICE_FLAG_DEBUG device, one per
 *     input: after each case one of the handles just released is used again,
 *     at an entry point the input chooses, and must be reported as released.
 * Any violation aborts (a crash for libFuzzer, a failed case for the replay).
 */
#include <dml/dml.h>

#include "api/reference.h"
#include "core/data_type.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Per tensor; larger descs are only created. 16 KiB executes 96% of the
 * cases 64 KiB did, in 60% of the time. */
#define FZ_MAX_BYTES ((uint64_t)1 << 14)

/* The oracle and the buffer plumbing are not what is fuzzed: without
 * libFuzzer's comparison tracing there (FZ_ORACLE), the fuzzer spends its
 * time in the library and the decoder. */
#if defined(__clang__)
#define FZ_ORACLE __attribute__((no_sanitize("coverage")))
#else
#define FZ_ORACLE
#endif

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
void fuzz_operators_cleanup(void);
/* How many (backend, input) pairs were executed and compared so far. */
unsigned long fuzz_operators_executed(void);

/* ---- byte reader ------------------------------------------------------------ */

typedef struct fz_reader {
    const uint8_t* data;
    size_t size, pos;
} fz_reader;

static uint8_t u8(fz_reader* r)
{
    return r->pos < r->size ? r->data[r->pos++] : 0;
}

static uint32_t u32(fz_reader* r)
{
    uint32_t v = 0;
    for (int i = 0; i < 4; i++)
        v |= (uint32_t)u8(r) << (8 * i);
    return v;
}

/* Mostly small values, sometimes the interesting edges. */
static uint32_t small_or_edge(fz_reader* r, uint32_t small_max)
{
    static const uint32_t edges[] = { 0, 1, 2, 3, 0x7fffffffu, 0x80000000u, 0xffffffffu, 0xfffffffeu, 65536, 65537,
        0x40000000u, 0x100 };
    uint8_t b = u8(r);
    if (b < 224)
        return b % (small_max + 1);
    if (b < 248)
        return edges[b % (sizeof edges / sizeof edges[0])];
    return u32(r);
}

/* ---- small helpers ------------------------------------------------------------ */

static void fz_fail(const char* what, const char* backend, DML_RESULT r)
{
    fprintf(stderr, "fuzz_operators [%s]: %s (result 0x%08x, message '%s')\n", backend, what, (unsigned)r,
        dmlGetLastErrorMessage());
    abort();
}

typedef struct fz_tensor {
    DML_BUFFER_TENSOR_DESC buf;
    DML_TENSOR_DESC desc;
    uint32_t sizes[8], strides[8];
    bool has_strides;
} fz_tensor;

static void tensor_link(fz_tensor* t)
{
    t->buf.Sizes = t->sizes;
    t->buf.Strides = t->has_strides ? t->strides : NULL;
    t->desc.Type = DML_TENSOR_TYPE_BUFFER;
    t->desc.Desc = &t->buf;
}

/* Sizes in bytes: usually exact, sometimes off by a little, sometimes random. */
static void tensor_bytes(fz_reader* r, fz_tensor* t, bool repair)
{
    uint64_t need = ref_calc_buffer_tensor_size(dml_data_type_size(t->buf.DataType), t->buf.DimensionCount, t->sizes,
        t->has_strides ? t->strides : NULL);
    uint8_t mode = u8(r);
    if (repair || mode < 200)
        t->buf.TotalTensorSizeInBytes = need + (repair ? (mode % 4) * 4 : 0);
    else if (mode < 220)
        t->buf.TotalTensorSizeInBytes = need - 1;
    else if (mode < 235)
        t->buf.TotalTensorSizeInBytes = need & 0xffffffffu; /* a 32-bit truncation */
    else
        t->buf.TotalTensorSizeInBytes = ((uint64_t)u32(r) << 32) | u32(r);
    uint8_t a = u8(r);
    t->buf.GuaranteedBaseOffsetAlignment = (repair || a < 200) ? 0 : (a < 240 ? 1u << (a % 10) : u32(r));
}

/* Decodes a tensor with the given rank and data type (sizes from the reader
 * unless given). Output tensors in repair mode get packed strides. */
static void tensor_decode(fz_reader* r, fz_tensor* t, uint32_t rank, uint32_t type, const uint32_t* sizes,
    bool repair, bool output)
{
    memset(t, 0, sizeof *t);
    t->buf.DataType = (DML_TENSOR_DATA_TYPE)type;
    t->buf.DimensionCount = rank;
    uint32_t n = rank <= 8 ? rank : 8;
    for (uint32_t i = 0; i < n; i++) {
        t->sizes[i] = sizes ? sizes[i] : small_or_edge(r, 5);
        if (repair && (t->sizes[i] == 0 || (!sizes && t->sizes[i] > 6))) /* given sizes: derived from repaired ones */
            t->sizes[i] = 1 + t->sizes[i] % 6;
    }
    uint8_t s = u8(r);
    t->has_strides = s & 1;
    if (t->has_strides) {
        if (repair && output) {
            ref_packed_strides(n, t->sizes, t->strides);
            if (s & 2) /* padded rows */
                for (uint32_t i = 0; i + 1 < n; i++)
                    t->strides[i] *= 2;
        } else {
            for (uint32_t i = 0; i < n; i++) {
                t->strides[i] = small_or_edge(r, 40);
                if (repair && t->strides[i] > 64)
                    t->strides[i] %= 64;
            }
        }
    }
    uint8_t f = u8(r);
    t->buf.Flags = (DML_TENSOR_FLAGS)(f < 230 ? 0 : (f < 250 ? 1 : f));
    if (repair && (output || t->buf.Flags > 1))
        t->buf.Flags = DML_TENSOR_FLAG_NONE;
    tensor_link(t);
    tensor_bytes(r, t, repair);
}

static uint32_t data_type(fz_reader* r, bool repair)
{
    uint8_t b = u8(r);
    uint32_t t = b < 240 ? b % 12 : (b < 250 ? b : u32(r));
    if (repair && !dml_data_type_size(t))
        t = 1 + b % 11;
    return t;
}

/* ---- the case ------------------------------------------------------------------ */

typedef struct fz_case {
    uint32_t kind; /* 0 reverse, 1 slice1, 2 slice, 3 other type, 4 tile, 5 cast, 6 padding */
    bool repair;
    DML_OPERATOR_DESC op;
    DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC reverse;
    DML_SLICE1_OPERATOR_DESC slice1;
    DML_SLICE_OPERATOR_DESC slice;
    DML_TILE_OPERATOR_DESC tile;
    DML_CAST_OPERATOR_DESC cast;
    DML_PADDING_OPERATOR_DESC padding;
    fz_tensor in, lengths, out;
    uint32_t offsets[8], window[8], ustrides[8];
    int32_t strides[8];
    uint32_t param_count;
    uint64_t seed;
} fz_case;

/* Whether the runtime implements operator type t, asked once of the runtime
 * itself (a desc with a NULL Desc: NOTIMPL before any field is read), so
 * that the fuzzer never hands one operator's desc struct to another that is
 * implemented, and learns every new operator without an edit here. */
static bool implemented_type(uint32_t t)
{
    static bool known, implemented[DML_OPERATOR_TYPE_LAST + 1];
    if (!known) {
        DML_DEVICE_DESC desc = { sizeof(DML_DEVICE_DESC), "cpu", 0, DML_CREATE_DEVICE_FLAG_NONE,
            DML_FEATURE_LEVEL_5_0 };
        DMLDevice device = NULL;
        if (dmlCreateDevice(&desc, &device) < 0)
            abort();
        for (uint32_t k = 1; k <= DML_OPERATOR_TYPE_LAST; ++k) {
            DML_OPERATOR_DESC probe = { (DML_OPERATOR_TYPE)k, NULL };
            DMLOperator op = NULL;
            implemented[k] = dmlDeviceCreateOperator(device, &probe, &op) != DML_E_NOTIMPL;
        }
        dmlRelease(device);
        known = true;
    }
    return t >= 1 && t <= DML_OPERATOR_TYPE_LAST && implemented[t];
}

static void decode(fz_reader* r, fz_case* c)
{
    memset(c, 0, sizeof *c);
    uint8_t head = u8(r);
    c->repair = head & 1;
    c->kind = (head >> 1) % 7;
    if (c->repair && c->kind == 3)
        c->kind = head % 3;
    uint32_t rank = 1 + u8(r) % 8;
    if (!c->repair && u8(r) >= 240)
        rank = u8(r) % 12; /* 0, or above 8 */
    uint32_t type = data_type(r, c->repair);
    tensor_decode(r, &c->in, rank, type, NULL, c->repair, false);
    uint32_t n = rank <= 8 ? rank : 8;

    if (c->kind >= 4) {
        /* TILE: repeats in ustrides; PADDING: StartPadding in offsets,
         * EndPadding in window; CAST: another output type. */
        uint32_t osizes[8], otype = type;
        c->param_count = rank;
        if (!c->repair && u8(r) >= 250)
            c->param_count = u8(r) % 10;
        if (c->kind == 5)
            otype = data_type(r, c->repair);
        for (uint32_t i = 0; i < 8; i++) {
            uint32_t in_size = c->in.sizes[i] ? c->in.sizes[i] : 1;
            c->ustrides[i] = small_or_edge(r, 3);
            c->offsets[i] = small_or_edge(r, 4);
            c->window[i] = small_or_edge(r, 4);
            if (c->repair) {
                c->ustrides[i] = 1 + c->ustrides[i] % 3;
                c->offsets[i] %= 5;
                c->window[i] %= 5;
            }
            uint64_t o = c->kind == 4 ? (uint64_t)in_size * c->ustrides[i]
                : c->kind == 6 ? (uint64_t)in_size + c->offsets[i] + c->window[i] : in_size;
            osizes[i] = o > UINT32_MAX || (!c->repair && u8(r) >= 250) ? small_or_edge(r, 9) : (uint32_t)o;
        }
        tensor_decode(r, &c->out, rank, otype, osizes, c->repair, true);
        if (c->kind == 4) {
            c->tile = (DML_TILE_OPERATOR_DESC){ &c->in.desc, &c->out.desc, c->param_count, c->ustrides };
            c->op = (DML_OPERATOR_DESC){ DML_OPERATOR_TILE, &c->tile };
        } else if (c->kind == 5) {
            c->cast = (DML_CAST_OPERATOR_DESC){ &c->in.desc, &c->out.desc };
            c->op = (DML_OPERATOR_DESC){ DML_OPERATOR_CAST, &c->cast };
        } else {
            uint32_t mode = u8(r);
            float value = (float)(int8_t)u8(r) / 4.0f;
            c->padding = (DML_PADDING_OPERATOR_DESC){ &c->in.desc, &c->out.desc,
                (DML_PADDING_MODE)(c->repair ? mode % 4 : (mode < 240 ? mode % 4 : mode)), value, c->param_count,
                c->offsets, c->window };
            c->op = (DML_OPERATOR_DESC){ DML_OPERATOR_PADDING, &c->padding };
        }
    } else if (c->kind == 0 || c->kind == 3) {
        uint32_t axis = small_or_edge(r, 8);
        if (c->repair)
            axis %= rank;
        uint32_t lsizes[8];
        memcpy(lsizes, c->in.sizes, sizeof lsizes);
        if (axis < n)
            lsizes[axis] = 1;
        uint8_t lt = u8(r);
        if (c->repair)
            lt %= 240;
        uint32_t ltype = lt < 120 ? DML_TENSOR_DATA_TYPE_UINT32
                                  : (lt < 240 ? DML_TENSOR_DATA_TYPE_UINT64 : (uint32_t)(lt % 12));
        uint32_t lrank = rank;
        if (!c->repair && u8(r) >= 250)
            lrank = u8(r) % 10;
        bool perturb = !c->repair && u8(r) >= 245;
        tensor_decode(r, &c->lengths, lrank, ltype, perturb ? NULL : lsizes, c->repair, false);
        uint32_t otype = (!c->repair && u8(r) >= 250) ? data_type(r, false) : type;
        bool operturb = !c->repair && u8(r) >= 250;
        tensor_decode(r, &c->out, rank, otype, operturb ? NULL : c->in.sizes, c->repair, true);
        c->reverse.InputTensor = &c->in.desc;
        c->reverse.SequenceLengthsTensor = &c->lengths.desc;
        c->reverse.OutputTensor = &c->out.desc;
        c->reverse.Axis = axis;
        c->op.Type = DML_OPERATOR_REVERSE_SUBSEQUENCES;
        c->op.Desc = &c->reverse;
        if (c->kind == 3) { /* same desc, another type: NOTIMPL or INVALIDARG */
            uint8_t t = u8(r);
            c->op.Type = (DML_OPERATOR_TYPE)(t < 200 ? t % 180 : u32(r));
            if (implemented_type((uint32_t)c->op.Type))
                c->op.Type = DML_OPERATOR_INVALID;
        }
    } else {
        uint32_t osizes[8];
        c->param_count = rank;
        if (!c->repair && u8(r) >= 250)
            c->param_count = u8(r) % 10;
        for (uint32_t i = 0; i < 8; i++) {
            uint32_t in_size = c->in.sizes[i] ? c->in.sizes[i] : 1;
            c->offsets[i] = small_or_edge(r, 6);
            c->window[i] = small_or_edge(r, 7);
            uint32_t s = small_or_edge(r, 6);
            c->strides[i] = (int32_t)((u8(r) & 1) ? 0u - s : s); /* wraps: INT32_MIN and friends */
            if (c->repair) {
                c->offsets[i] %= in_size;
                c->window[i] = 1 + c->window[i] % (in_size - c->offsets[i]);
                if (c->strides[i] == 0 || c->strides[i] > 8 || c->strides[i] < -8)
                    c->strides[i] = 1 + (int32_t)(s % 3);
                if (c->kind == 2) { /* SLICE: positive strides, reads inside the input */
                    if (c->strides[i] < 0)
                        c->strides[i] = -c->strides[i];
                }
            }
            c->ustrides[i] = (uint32_t)c->strides[i];
            uint32_t mag = c->strides[i] < 0 ? (uint32_t)(-(int64_t)c->strides[i]) : (uint32_t)c->strides[i];
            uint32_t maxo = mag && c->window[i] ? 1 + (c->window[i] - 1) / mag : 1;
            uint32_t o = small_or_edge(r, 4);
            osizes[i] = c->repair ? 1 + o % maxo : (u8(r) < 200 ? maxo : o);
            if (c->kind == 2 && c->repair) /* window from the output sizes */
                c->window[i] = (osizes[i] - 1) * (uint32_t)c->strides[i] + 1;
        }
        uint32_t otype = (!c->repair && u8(r) >= 250) ? data_type(r, false) : type;
        uint32_t orank = (!c->repair && u8(r) >= 250) ? u8(r) % 10 : rank;
        tensor_decode(r, &c->out, orank, otype, osizes, c->repair, true);
        if (c->kind == 1) {
            c->slice1 = (DML_SLICE1_OPERATOR_DESC){ &c->in.desc, &c->out.desc, c->param_count, c->offsets, c->window,
                c->strides };
            c->op.Type = DML_OPERATOR_SLICE1;
            c->op.Desc = &c->slice1;
        } else {
            c->slice = (DML_SLICE_OPERATOR_DESC){ &c->in.desc, &c->out.desc, c->param_count, c->offsets, osizes,
                c->ustrides };
            /* osizes is on the stack: copy into window (unused by SLICE) */
            memcpy(c->window, osizes, sizeof osizes);
            c->slice.Sizes = c->window;
            c->op.Type = DML_OPERATOR_SLICE;
            c->op.Desc = &c->slice;
        }
    }
    /* Rare structural damage: NULL pointers and bad tensor types. */
    if (!c->repair) {
        uint8_t d = u8(r);
        if (d == 255)
            c->op.Desc = NULL;
        else if (d == 254)
            c->in.desc.Type = DML_TENSOR_TYPE_INVALID;
        else if (d == 253)
            c->in.buf.Sizes = NULL;
        else if (d == 252)
            c->out.desc.Desc = NULL;
    }
    c->seed = ((uint64_t)u32(r) << 32) | u32(r) | 1;
}

/* ---- execution and the oracle ---------------------------------------------------- */

FZ_ORACLE static uint64_t rng(uint64_t* s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

typedef struct fz_device {
    const char* backend;
    bool debug;
    DMLDevice device;
    DMLCommandQueue queue;
    DMLCommandRecorder recorder;
} fz_device;

static fz_device g_devices[] = { { "cpu", false, NULL, NULL, NULL }, { "cudaemu", true, NULL, NULL, NULL } };
#define FZ_DEVICES (sizeof g_devices / sizeof g_devices[0])

/* The debug device's messages (one per rejected desc) would flood stderr. */
static void ignore_message(DML_MESSAGE_SEVERITY severity, const char* message, void* context)
{
    (void)severity, (void)message, (void)context;
}

static void device_open(fz_device* d)
{
    DML_DEVICE_DESC desc = { sizeof(DML_DEVICE_DESC), d->backend, 0,
        d->debug ? DML_CREATE_DEVICE_FLAG_DEBUG : DML_CREATE_DEVICE_FLAG_NONE, DML_FEATURE_LEVEL_5_0 };
    DML_RESULT r = dmlCreateDevice(&desc, &d->device);
    if (r < 0)
        fz_fail("dmlCreateDevice", d->backend, r);
    if ((r = dmlDeviceCreateCommandQueue(d->device, NULL, &d->queue)) < 0)
        fz_fail("dmlDeviceCreateCommandQueue", d->backend, r);
    if ((r = dmlDeviceCreateCommandRecorder(d->device, &d->recorder)) < 0)
        fz_fail("dmlDeviceCreateCommandRecorder", d->backend, r);
}

static void device_close(fz_device* d)
{
    dmlRelease(d->recorder);
    dmlRelease(d->queue);
    dmlRelease(d->device);
    d->recorder = NULL;
    d->queue = NULL;
    d->device = NULL;
}

/* The debug device lives for one input: its quarantine (what the input
 * released) is freed when it closes, so every input frees what it allocates
 * (libFuzzer re-runs, and leak-checks, any input that does not). */
static void devices_open(void)
{
    if (!g_devices[0].device)
        dmlSetMessageCallback(ignore_message, NULL);
    for (size_t i = 0; i < FZ_DEVICES; i++)
        if (!g_devices[i].device)
            device_open(&g_devices[i]);
}

static void debug_devices_close(void)
{
    for (size_t i = 0; i < FZ_DEVICES; i++)
        if (g_devices[i].debug)
            device_close(&g_devices[i]);
}

void fuzz_operators_cleanup(void)
{
    for (size_t i = 0; i < FZ_DEVICES; i++)
        device_close(&g_devices[i]);
    dmlSetMessageCallback(NULL, NULL);
}

typedef enum fz_stale {
    FZ_STALE_OPERATOR,
    FZ_STALE_COMPILED,
    FZ_STALE_INITIALIZER,
    FZ_STALE_TABLE,
    FZ_STALE_BUFFER,
} fz_stale;

/* On a debug device: one use of a handle just released (the entry point
 * chosen by `pick`) must fail with DML_E_INVALIDARG naming it as released. */
FZ_ORACLE static void use_stale(const fz_device* dev, void* handle, fz_stale kind, uint64_t pick)
{
    if (!dev->debug || !handle)
        return;
    DML_RESULT r = DML_E_INVALIDARG;
    void* out = NULL;
    uint8_t byte = 0;
    switch (pick % 4) {
    case 0: r = dmlSetName(handle, "stale"); break;
    case 1: r = dmlAddRef(handle) == 0 ? DML_E_INVALIDARG : DML_S_OK; break;
    case 2: r = dmlRelease(handle) == 0 ? DML_E_INVALIDARG : DML_S_OK; break;
    default:
        switch (kind) {
        case FZ_STALE_OPERATOR:
            r = dmlDeviceCompileOperator(dev->device, handle, DML_EXECUTION_FLAG_NONE, (DMLCompiledOperator*)&out);
            break;
        case FZ_STALE_COMPILED:
        case FZ_STALE_INITIALIZER: {
            DML_BINDING_TABLE_DESC td = { handle };
            r = dmlDeviceCreateBindingTable(dev->device, &td, (DMLBindingTable*)&out);
            break;
        }
        case FZ_STALE_TABLE: r = dmlBindingTableBindInputs(handle, 0, NULL); break;
        case FZ_STALE_BUFFER: r = dmlCommandQueueWriteBuffer(dev->queue, handle, 0, &byte, 1); break;
        }
    }
    if (r != DML_E_INVALIDARG || out || !strstr(dmlGetLastErrorMessage(), "is a released "))
        fz_fail("a stale handle on the debug device was not reported as released", dev->backend, r);
}

static unsigned long g_executed;

unsigned long fuzz_operators_executed(void)
{
    return g_executed;
}

static bool is_known_type(uint32_t t)
{
    return t >= 1 && t <= DML_OPERATOR_TYPE_LAST;
}

#define CHECK(call, what)                                                                                  \
    do {                                                                                                   \
        DML_RESULT r_ = (call);                                                                            \
        if (r_ < 0)                                                                                        \
            fz_fail(what, dev->backend, r_);                                                               \
    } while (0)

static DML_BUFFER_BINDING bb(DMLBuffer b, uint64_t offset, uint64_t size)
{
    DML_BUFFER_BINDING x = { b, offset, size };
    return x;
}

/* Runs an accepted, small operator and compares with the reference. */
FZ_ORACLE static void execute(fz_device* dev, fz_case* c, DMLOperator op)
{
    const bool reverse = c->op.Type == DML_OPERATOR_REVERSE_SUBSEQUENCES;
    fz_tensor* ins[2] = { &c->in, reverse ? &c->lengths : NULL };
    const uint32_t nin = reverse ? 2 : 1;
    uint64_t sizes[3] = { c->in.buf.TotalTensorSizeInBytes, reverse ? c->lengths.buf.TotalTensorSizeInBytes : 0,
        c->out.buf.TotalTensorSizeInBytes };
    uint8_t* host[3] = { NULL, NULL, NULL };
    uint64_t seed = c->seed;
    for (int i = 0; i < 3; i++) {
        host[i] = malloc(sizes[i] ? sizes[i] : 1);
        if (!host[i])
            abort();
        for (uint64_t b = 0; b < sizes[i]; b++)
            host[i][b] = (uint8_t)rng(&seed);
    }
    if (reverse && (seed & 3)) { /* mostly meaningful lengths: 0 .. axis+2, sometimes huge */
        uint32_t ls = dml_data_type_size(c->lengths.buf.DataType);
        uint32_t axis_size = c->in.sizes[c->reverse.Axis];
        for (uint64_t b = 0; b + ls <= sizes[1]; b += ls) {
            uint64_t v = rng(&seed);
            uint64_t len = (v & 0xf0) == 0xf0 ? (ls == 4 ? UINT32_MAX : UINT64_MAX) : v % (axis_size + 3);
            memcpy(host[1] + b, &len, ls); /* little-endian */
        }
    }
    /* One buffer, three ranges aligned to 256 or the largest GuaranteedBaseOffsetAlignment. */
    uint64_t align = 256;
    for (int i = 0; i < 3; i++) {
        const fz_tensor* t = i == 0 ? &c->in : (i == 1 ? (reverse ? &c->lengths : NULL) : &c->out);
        if (t && t->buf.GuaranteedBaseOffsetAlignment > align)
            align = t->buf.GuaranteedBaseOffsetAlignment; /* accepted, so a power of two; capped by small_enough */
    }
    uint64_t offs[3], total = 0;
    for (int i = 0; i < 3; i++) {
        offs[i] = total;
        total += (sizes[i] + align - 1) & ~(align - 1);
    }
    DMLBuffer buffer = NULL, persistent = NULL;
    DMLCompiledOperator compiled = NULL;
    DMLOperatorInitializer init = NULL;
    DMLBindingTable table = NULL;
    CHECK(dmlDeviceCreateBuffer(dev->device, total ? total : 1, &buffer), "CreateBuffer");
    for (int i = 0; i < 3; i++)
        if (sizes[i])
            CHECK(dmlCommandQueueWriteBuffer(dev->queue, buffer, offs[i], host[i], sizes[i]), "WriteBuffer");
    CHECK(dmlDeviceCompileOperator(dev->device, op, DML_EXECUTION_FLAG_NONE, &compiled), "CompileOperator");

    bool any_owned = false;
    for (uint32_t i = 0; i < nin; i++)
        any_owned |= (ins[i]->buf.Flags & DML_TENSOR_FLAG_OWNED_BY_DML) != 0;
    DML_BINDING_PROPERTIES props = dmlDispatchableGetBindingProperties(compiled);
    if (any_owned != (props.PersistentResourceSize > 0))
        fz_fail("PersistentResourceSize disagrees with OWNED_BY_DML", dev->backend, 0);
    if (props.PersistentResourceSize)
        CHECK(dmlDeviceCreateBuffer(dev->device, props.PersistentResourceSize, &persistent), "CreateBuffer(p)");
    DML_BUFFER_BINDING b[3];
    DML_BINDING_DESC d[3];
    if (any_owned) {
        CHECK(dmlDeviceCreateOperatorInitializer(dev->device, 1, &compiled, &init), "CreateOperatorInitializer");
        DML_BINDING_TABLE_DESC td = { init };
        CHECK(dmlDeviceCreateBindingTable(dev->device, &td, &table), "CreateBindingTable(init)");
        for (uint32_t i = 0; i < nin; i++)
            b[i] = (ins[i]->buf.Flags & DML_TENSOR_FLAG_OWNED_BY_DML) ? bb(buffer, offs[i], sizes[i]) : bb(NULL, 0, 0);
        DML_BUFFER_ARRAY_BINDING array = { nin, b };
        DML_BINDING_DESC one = { DML_BINDING_TYPE_BUFFER_ARRAY, &array };
        CHECK(dmlBindingTableBindInputs(table, 1, &one), "BindInputs(init)");
        DML_BUFFER_BINDING p = bb(persistent, 0, props.PersistentResourceSize);
        DML_BINDING_DESC po = { DML_BINDING_TYPE_BUFFER, &p };
        CHECK(dmlBindingTableBindOutputs(table, 1, &po), "BindOutputs(init)");
        CHECK(dmlCommandRecorderRecordDispatch(dev->recorder, dev->queue, init, table), "RecordDispatch(init)");
        dmlRelease(table);
        table = NULL;
        /* Clobber the owned sources: the result must come from the persistent copy. */
        for (uint32_t i = 0; i < nin; i++) {
            if (!(ins[i]->buf.Flags & DML_TENSOR_FLAG_OWNED_BY_DML) || !sizes[i])
                continue;
            uint8_t* junk = malloc(sizes[i]);
            if (!junk)
                abort();
            memset(junk, 0xEE, sizes[i]);
            CHECK(dmlCommandQueueWriteBuffer(dev->queue, buffer, offs[i], junk, sizes[i]), "WriteBuffer(clobber)");
            free(junk);
        }
    }
    DML_BINDING_TABLE_DESC td = { compiled };
    CHECK(dmlDeviceCreateBindingTable(dev->device, &td, &table), "CreateBindingTable");
    for (uint32_t i = 0; i < nin; i++) {
        bool owned = (ins[i]->buf.Flags & DML_TENSOR_FLAG_OWNED_BY_DML) != 0;
        b[i] = bb(buffer, offs[i], sizes[i]);
        d[i].Type = owned ? DML_BINDING_TYPE_NONE : DML_BINDING_TYPE_BUFFER;
        d[i].Desc = owned ? NULL : &b[i];
    }
    CHECK(dmlBindingTableBindInputs(table, nin, d), "BindInputs");
    b[2] = bb(buffer, offs[2], sizes[2]);
    d[2].Type = DML_BINDING_TYPE_BUFFER;
    d[2].Desc = &b[2];
    CHECK(dmlBindingTableBindOutputs(table, 1, &d[2]), "BindOutputs");
    if (persistent) {
        DML_BUFFER_BINDING p = bb(persistent, 0, props.PersistentResourceSize);
        DML_BINDING_DESC po = { DML_BINDING_TYPE_BUFFER, &p };
        CHECK(dmlBindingTableBindPersistentResource(table, &po), "BindPersistentResource");
    }
    CHECK(dmlCommandRecorderRecordDispatch(dev->recorder, dev->queue, compiled, table), "RecordDispatch");
    uint8_t* got = malloc(sizes[2] ? sizes[2] : 1);
    if (!got)
        abort();
    CHECK(dmlCommandQueueReadBuffer(dev->queue, buffer, offs[2], got, sizes[2]), "ReadBuffer");
    CHECK(dmlCommandQueueSynchronize(dev->queue), "Synchronize");

    /* The reference, on host copies (out starts as the same random bytes). */
    ref_view vin = { dml_data_type_size(c->in.buf.DataType), c->in.buf.DimensionCount, c->in.sizes, c->in.buf.Strides, host[0],
        sizes[0] };
    ref_view vout = { dml_data_type_size(c->out.buf.DataType), c->out.buf.DimensionCount, c->out.sizes, c->out.buf.Strides,
        host[2], sizes[2] };
    if (reverse) {
        ref_view vl = { dml_data_type_size(c->lengths.buf.DataType), c->lengths.buf.DimensionCount, c->lengths.sizes,
            c->lengths.buf.Strides, host[1], sizes[1] };
        ref_reverse_subsequences(&vin, &vl, &vout, c->reverse.Axis);
    } else if (c->op.Type == DML_OPERATOR_SLICE1) {
        ref_slice1(&vin, &vout, c->offsets, c->window, c->strides);
    } else if (c->op.Type == DML_OPERATOR_TILE) {
        ref_tile(&vin, &vout);
    } else if (c->op.Type == DML_OPERATOR_CAST) {
        ref_cast(&vin, c->in.buf.DataType, &vout, c->out.buf.DataType);
    } else if (c->op.Type == DML_OPERATOR_PADDING) {
        uint8_t value[8];
        ref_cast_element(c->out.buf.DataType, value, DML_TENSOR_DATA_TYPE_FLOAT32, &c->padding.PaddingValue);
        ref_padding(&vin, &vout, c->padding.PaddingMode, value, c->offsets);
    } else {
        ref_slice(&vin, &vout, c->offsets, c->ustrides);
    }
    if (memcmp(got, host[2], sizes[2]) != 0) {
        for (uint64_t i = 0; i < sizes[2]; i++)
            if (got[i] != host[2][i]) {
                fprintf(stderr, "fuzz_operators [%s]: output byte %llu is 0x%02x, reference 0x%02x\n", dev->backend,
                    (unsigned long long)i, got[i], host[2][i]);
                break;
            }
        fz_fail("result differs from the reference", dev->backend, 0);
    }
    free(got);
    g_executed++;
    dmlRelease(table);
    dmlRelease(init);
    dmlRelease(persistent);
    dmlRelease(compiled);
    dmlRelease(buffer);
    switch (rng(&seed) % 5) { /* all of them are destroyed now */
    case 0: use_stale(dev, table, FZ_STALE_TABLE, seed >> 8); break;
    case 1: use_stale(dev, init, FZ_STALE_INITIALIZER, seed >> 8); break;
    case 2: use_stale(dev, persistent, FZ_STALE_BUFFER, seed >> 8); break;
    case 3: use_stale(dev, compiled, FZ_STALE_COMPILED, seed >> 8); break;
    default: use_stale(dev, buffer, FZ_STALE_BUFFER, seed >> 8); break;
    }
    for (int i = 0; i < 3; i++)
        free(host[i]);
}

static bool small_enough(const fz_case* c)
{
    if (c->in.buf.TotalTensorSizeInBytes > FZ_MAX_BYTES || c->out.buf.TotalTensorSizeInBytes > FZ_MAX_BYTES)
        return false;
    if (c->op.Type == DML_OPERATOR_REVERSE_SUBSEQUENCES && c->lengths.buf.TotalTensorSizeInBytes > FZ_MAX_BYTES)
        return false;
    if (c->in.buf.GuaranteedBaseOffsetAlignment > FZ_MAX_BYTES || c->out.buf.GuaranteedBaseOffsetAlignment > FZ_MAX_BYTES ||
        (c->op.Type == DML_OPERATOR_REVERSE_SUBSEQUENCES && c->lengths.buf.GuaranteedBaseOffsetAlignment > FZ_MAX_BYTES))
        return false;
    /* The work is the output's element count: bounded by its bytes only when
     * packed-ish, so bound it directly (each size is >= 1 here). */
    uint64_t n = 1;
    for (uint32_t i = 0; i < c->out.buf.DimensionCount && i < 8; i++) {
        n *= c->out.sizes[i];
        if (n > FZ_MAX_BYTES)
            return false;
    }
    return true;
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    fz_reader reader = { data, size, 0 };
    fz_case c;
    decode(&reader, &c);
    devices_open();
    for (size_t k = 0; k < FZ_DEVICES; k++) {
        fz_device* dev = &g_devices[k];
        DMLOperator op = NULL;
        DML_RESULT r = dmlDeviceCreateOperator(dev->device, &c.op, &op);
        if (r < 0) {
            const char* m = dmlGetLastErrorMessage();
            if (op != NULL)
                fz_fail("a failing CreateOperator wrote its out-parameter", dev->backend, r);
            if (!m || !m[0])
                fz_fail("rejected without a message", dev->backend, r);
            const bool known_other = c.kind == 3 && is_known_type((uint32_t)c.op.Type);
            if (r == DML_E_NOTIMPL) {
                if (!known_other)
                    fz_fail("DML_E_NOTIMPL for an implemented or an invalid operator type", dev->backend, r);
            } else if (r != DML_E_INVALIDARG) {
                fz_fail("rejected with a code other than DML_E_INVALIDARG", dev->backend, r);
            } else if (known_other && c.op.Desc) {
                fz_fail("a valid unimplemented operator type gave DML_E_INVALIDARG, not NOTIMPL", dev->backend, r);
            }
            if (c.repair)
                fz_fail("a desc repaired into the valid range was rejected", dev->backend, r);
            continue;
        }
        if (c.kind == 3)
            fz_fail("an unimplemented operator type was accepted", dev->backend, r);
        if (small_enough(&c))
            execute(dev, &c, op);
        dmlRelease(op);
        use_stale(dev, op, FZ_STALE_OPERATOR, c.seed >> 3);
    }
    debug_devices_close();
    return 0;
}

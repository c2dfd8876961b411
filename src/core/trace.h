/*
 * trace.h — NVTX3 ranges around the core's API entry points, in the "DML"
 * domain, so Nsight Systems (or any NVTX tool) shows each CreateOperator,
 * CompileOperator, RecordDispatch, WriteBuffer and ReadBuffer with the
 * operator type, the object's name, data type and shapes, e.g.
 *
 *   RecordDispatch SLICE1 'myop' float32 [1,1,4,4]->[1,1,2,2]
 *
 * Built with DML_HAVE_NVTX (CMake defines it when nvtx3/nvToolsExt.h is
 * found); otherwise every helper is an empty inline function.
 *
 * Cost without a tool: NVTX initialises once (it looks for
 * NVTX_INJECTION64_PATH); with no tool attached nvtxDomainCreateA returns
 * NULL, so dml_trace_active() is false and no message is ever formatted:
 * a push or pop is then one predictable branch on a cached flag.
 */
#ifndef DML_CORE_TRACE_H
#define DML_CORE_TRACE_H

#include <stdbool.h>
#include <stdint.h>

#include "ops/op.h"

#ifdef DML_HAVE_NVTX
/* True when an NVTX tool is attached (the first call initialises NVTX). */
bool dml_trace_active(void);
/* "<what> <TYPE> '<name>' <dtype> [in sizes],...->[out sizes]"; name may be NULL or "". */
void dml_trace_push_operator(const char* what, const dml_op* op, const char* name);
/* "<what> '<name>' <size> bytes at <offset>". */
void dml_trace_push_transfer(const char* what, const char* name, uint64_t offset, uint64_t size);
/* Any message. */
void dml_trace_push(const char* message);
void dml_trace_pop(void);

/* Every push is paired with DML_TRACE_POP() on every return path; the
 * helpers check the flag themselves, but callers test dml_trace_active()
 * first so nothing is evaluated for a message nobody reads. */
#define DML_TRACE_PUSH_OPERATOR(what, op, name)                 \
    do {                                                        \
        if (dml_trace_active())                                 \
            dml_trace_push_operator((what), (op), (name));      \
    } while (0)
#define DML_TRACE_PUSH_TRANSFER(what, name, offset, size)                \
    do {                                                                 \
        if (dml_trace_active())                                          \
            dml_trace_push_transfer((what), (name), (offset), (size));  \
    } while (0)
#define DML_TRACE_PUSH(message)          \
    do {                                 \
        if (dml_trace_active())          \
            dml_trace_push(message);     \
    } while (0)
#define DML_TRACE_POP()                  \
    do {                                 \
        if (dml_trace_active())          \
            dml_trace_pop();             \
    } while (0)
#else
#define DML_TRACE_PUSH_OPERATOR(what, op, name) ((void)0)
#define DML_TRACE_PUSH_TRANSFER(what, name, offset, size) ((void)0)
#define DML_TRACE_PUSH(message) ((void)0)
#define DML_TRACE_POP() ((void)0)
#endif

#endif /* DML_CORE_TRACE_H */

/*
 * trace.c — see trace.h. NVTX3 is header-only: its implementation is
 * compiled into this translation unit (hidden, one copy per plugin).
 */
#include "trace.h"

#ifdef DML_HAVE_NVTX

#include <nvtx3/nvToolsExt.h>
#include <ctype.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static pthread_once_t trace_once = PTHREAD_ONCE_INIT;
static nvtxDomainHandle_t trace_domain;
static bool trace_on;

/* nvtxDomainCreateA initialises NVTX (loading NVTX_INJECTION64_PATH's tool
 * if set); without a tool it is the no-op implementation, which returns NULL. */
static void trace_init(void)
{
    trace_domain = nvtxDomainCreateA("DML");
    trace_on = trace_domain != NULL;
}

bool dml_trace_active(void)
{
    pthread_once(&trace_once, trace_init);
    return trace_on;
}

void dml_trace_push(const char* message)
{
    if (!dml_trace_active())
        return;
    nvtxEventAttributes_t attributes;
    memset(&attributes, 0, sizeof attributes);
    attributes.version = NVTX_VERSION;
    attributes.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    attributes.messageType = NVTX_MESSAGE_TYPE_ASCII;
    attributes.message.ascii = message;
    nvtxDomainRangePushEx(trace_domain, &attributes);
}

void dml_trace_pop(void)
{
    if (dml_trace_active())
        nvtxDomainRangePop(trace_domain);
}

/* Appends with snprintf semantics, never past the end. */
typedef struct text {
    char buffer[512];
    size_t used;
} text;

static void append(text* t, const char* format, ...) __attribute__((format(printf, 2, 3)));
static void append(text* t, const char* format, ...)
{
    if (t->used >= sizeof t->buffer - 1)
        return;
    va_list args;
    va_start(args, format);
    int n = vsnprintf(t->buffer + t->used, sizeof t->buffer - t->used, format, args);
    va_end(args);
    if (n > 0)
        t->used += (size_t)n < sizeof t->buffer - t->used ? (size_t)n : sizeof t->buffer - 1 - t->used;
}

static void append_sizes(text* t, const dml_tensor* tensor)
{
    append(t, "[");
    for (uint32_t i = 0; i < tensor->rank; ++i)
        append(t, i ? ",%u" : "%u", tensor->sizes[i]);
    append(t, "]");
}

void dml_trace_push_operator(const char* what, const dml_op* op, const char* name)
{
    if (!dml_trace_active())
        return;
    text t = { .used = 0 };
    t.buffer[0] = '\0';
    append(&t, "%s %s", what, op->entry->name);
    if (name && name[0])
        append(&t, " '%s'", name);
    char type[16];
    const char* upper = dml_data_type_name(op->outputs[0].data_type);
    size_t k = 0;
    for (; upper[k] && k < sizeof type - 1; ++k)
        type[k] = (char)tolower((unsigned char)upper[k]);
    type[k] = '\0';
    append(&t, " %s ", type);
    for (uint32_t i = 0; i < op->input_count; ++i) {
        if (i)
            append(&t, ",");
        append_sizes(&t, &op->inputs[i]);
    }
    append(&t, "->");
    for (uint32_t j = 0; j < op->output_count; ++j) {
        if (j)
            append(&t, ",");
        append_sizes(&t, &op->outputs[j]);
    }
    dml_trace_push(t.buffer);
}

void dml_trace_push_transfer(const char* what, const char* name, uint64_t offset, uint64_t size)
{
    if (!dml_trace_active())
        return;
    char buffer[256];
    snprintf(buffer, sizeof buffer, "%s%s%s%s %llu bytes at %llu", what, name && name[0] ? " '" : "",
        name && name[0] ? name : "", name && name[0] ? "'" : "", (unsigned long long)size,
        (unsigned long long)offset);
    dml_trace_push(buffer);
}

#endif /* DML_HAVE_NVTX */

/*
 * host.c — the services every plugin borrows from the dispatcher, so that the
 * whole process shares one thread-local error message and one message sink.
 */
#include "dispatcher.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define DMLD_MESSAGE_SIZE 1024

static _Thread_local char t_last_error[DMLD_MESSAGE_SIZE];

/* The callback and its context change together, so a mutex guards the pair;
 * emitters copy it out and call it unlocked, so a callback may itself call
 * dmlSetMessageCallback without deadlocking. */
static pthread_mutex_t g_callback_lock = PTHREAD_MUTEX_INITIALIZER;
static DML_MESSAGE_CALLBACK g_callback;
static void* g_callback_context;

static void host_set_last_error(const char* message)
{
    snprintf(t_last_error, sizeof t_last_error, "%s", message ? message : "");
}

static const char* severity_name(DML_MESSAGE_SEVERITY severity)
{
    switch (severity) {
    case DML_MESSAGE_SEVERITY_ERROR: return "error";
    case DML_MESSAGE_SEVERITY_WARNING: return "warning";
    case DML_MESSAGE_SEVERITY_INFO: return "info";
    }
    return "message";
}

static void host_emit_message(DML_MESSAGE_SEVERITY severity, const char* message)
{
    DML_MESSAGE_CALLBACK callback;
    void* context;
    pthread_mutex_lock(&g_callback_lock);
    callback = g_callback;
    context = g_callback_context;
    pthread_mutex_unlock(&g_callback_lock);

    if (!message)
        message = "";
    if (callback)
        callback(severity, message, context);
    else
        fprintf(stderr, "dml: %s: %s\n", severity_name(severity), message);
}

static const DMLHostServices g_host = {
    .StructSize = sizeof(DMLHostServices),
    .SetLastError = host_set_last_error,
    .EmitMessage = host_emit_message,
};

const DMLHostServices* dmld_host_services(void)
{
    return &g_host;
}

DML_RESULT dmld_error(DML_RESULT result, const char* format, ...)
{
    va_list args;
    va_start(args, format);
    vsnprintf(t_last_error, sizeof t_last_error, format, args);
    va_end(args);
    return result;
}

void dmld_emit_last_error(void)
{
    host_emit_message(DML_MESSAGE_SEVERITY_ERROR, t_last_error);
}

void dmld_save_error(char* saved, size_t size)
{
    snprintf(saved, size, "%s", t_last_error);
}

void dmld_restore_error(const char* saved)
{
    host_set_last_error(saved);
}

DML_API const char* dmlGetLastErrorMessage(void)
{
    return t_last_error;
}

DML_API void dmlSetMessageCallback(DML_MESSAGE_CALLBACK callback, void* context)
{
    pthread_mutex_lock(&g_callback_lock);
    g_callback = callback;
    g_callback_context = callback ? context : NULL;
    pthread_mutex_unlock(&g_callback_lock);
}

#include "error.h"

#include <stdarg.h>
#include <stdio.h>

#define DML_MESSAGE_SIZE 1024

/* Set once by dmlPluginGetTable, before any object exists. */
static const DMLHostServices* g_host;
static _Thread_local char t_last_error[DML_MESSAGE_SIZE];

void dml_error_set_host(const DMLHostServices* host)
{
    g_host = host;
}

const char* dml_error_last(void)
{
    return t_last_error;
}

DML_RESULT dml_set_error(DML_RESULT result, const char* format, ...)
{
    va_list args;
    va_start(args, format);
    vsnprintf(t_last_error, sizeof t_last_error, format, args);
    va_end(args);
    if (g_host && g_host->SetLastError)
        g_host->SetLastError(t_last_error);
    return result;
}

void dml_error_emit_last(void)
{
    if (g_host && g_host->EmitMessage)
        g_host->EmitMessage(DML_MESSAGE_SEVERITY_ERROR, t_last_error);
    else
        fprintf(stderr, "dml: error: %s\n", t_last_error);
}

void dml_emit_info(const char* message)
{
    if (g_host && g_host->EmitMessage)
        g_host->EmitMessage(DML_MESSAGE_SEVERITY_INFO, message);
    else
        fprintf(stderr, "dml: info: %s\n", message);
}

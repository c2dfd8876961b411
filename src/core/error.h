/*
 * error.h — failing calls set one thread-local message (through the
 * dispatcher's host services when loaded by libdml, and locally) and, for
 * devices created with DML_CREATE_DEVICE_FLAG_DEBUG, emit it as a message.
 */
#ifndef DML_CORE_ERROR_H
#define DML_CORE_ERROR_H

#include <dml/dml_plugin.h>

#include "result.h" /* dml_result_name */

#define DML_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))

/* Formats the message, stores it as this thread's last error and returns
 * result, so a failing path reads: return dml_set_error(DML_E_INVALIDARG, "...", ...). */
DML_RESULT dml_set_error(DML_RESULT result, const char* format, ...) DML_PRINTF(2, 3);

/* Emits this thread's last message (set by dml_set_error) to the host's
 * message callback or stderr: what DML_CREATE_DEVICE_FLAG_DEBUG devices do. */
void dml_error_emit_last(void);

/* Emits an informational message (DEBUG devices: what a graph compiled to). */
void dml_emit_info(const char* message);

/* Host services given by the dispatcher (NULL when used without it). */
void dml_error_set_host(const DMLHostServices* host);

/* This thread's last message set through this copy of the core ("" if none). */
const char* dml_error_last(void);

#endif /* DML_CORE_ERROR_H */

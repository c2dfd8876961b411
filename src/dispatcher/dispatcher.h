/*
 * dispatcher.h — internals of libdml.so, shared by its sources:
 *   host.c      the services lent to plugins: last-error message, message callback
 *   registry.c  plugin discovery, probing, backend selection, enumeration
 *   api.c       the dml* object functions: a handle check, then one forward
 *   version.c   dmlGetVersion: the runtime's release and ABI version
 */
#ifndef DML_DISPATCHER_H
#define DML_DISPATCHER_H

#include <dml/dml_plugin.h>

#define DMLD_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))

/* ---- host.c ---- */

/* The table handed to every plugin's entry point; valid for the process. */
const DMLHostServices* dmld_host_services(void);

/* Formats this thread's last error message and returns result, so that a
 * failing path reads: return dmld_error(DML_E_INVALIDARG, "...", ...). */
DML_RESULT dmld_error(DML_RESULT result, const char* format, ...) DMLD_PRINTF(2, 3);

/* Emits this thread's last error message as a debug device's messages go:
 * to the message callback, else stderr. For failures the dispatcher finds
 * itself on a debug device's behalf (a handle it quarantined). */
void dmld_emit_last_error(void);

/* Discovery runs inside some unrelated successful call; these keep that
 * call from changing the caller's last error message. */
void dmld_save_error(char* saved, size_t size);
void dmld_restore_error(const char* saved);

#endif /* DML_DISPATCHER_H */

/*
 * cpu_backend.h — the CPU backend the shared core drives (core/backend.h).
 * Kept apart from the plugin entry point so tests can drive it directly.
 */
#ifndef DML_CPU_BACKEND_H
#define DML_CPU_BACKEND_H

#include "core/backend.h"

extern const dml_backend dml_cpu_backend;

#endif /* DML_CPU_BACKEND_H */

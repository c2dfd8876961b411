/*
 * result.h — the one list of DML_RESULT codes and their names, header-only so
 * that the core, the tools and the tests (which link only libdml.so) share
 * it. python/dml/_lib.py's RESULT_NAMES mirrors it; the CTest
 * python_mirrors_c (tests/core/check_python_mirrors.py) compares the two.
 */
#ifndef DML_CORE_RESULT_H
#define DML_CORE_RESULT_H

#include <dml/dml.h>

/* X(code), every DML_RESULT of include/dml/dml.h. */
#define DML_RESULTS(X)      \
    X(DML_S_OK)             \
    X(DML_E_INVALIDARG)     \
    X(DML_E_OUTOFMEMORY)    \
    X(DML_E_NOTIMPL)        \
    X(DML_E_INVALID_CALL)   \
    X(DML_E_UNSUPPORTED)    \
    X(DML_E_DEVICE_REMOVED)

/* "DML_E_INVALIDARG"; "unknown DML_RESULT" for a value outside the list. */
static inline const char* dml_result_name(DML_RESULT result)
{
    switch (result) {
#define DML_RESULT_CASE_(code) \
    case code: return #code;
        DML_RESULTS(DML_RESULT_CASE_)
#undef DML_RESULT_CASE_
    }
    return "unknown DML_RESULT";
}

#endif /* DML_CORE_RESULT_H */

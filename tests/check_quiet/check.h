/*
 * tests/check_quiet/check.h — what `#include <check.h>` finds in the suites
 * built by dml_add_check_test (tests/CMakeLists.txt puts this directory
 * first): Check's own header, then one change.
 *
 * Check's ck_assert_msg, and every ck_assert_* built on it, records its
 * location when it passes (_mark_point: a message written to the runner's
 * temporary file) so that a case which crashes later can name the last
 * assertion it passed. The suites assert per element inside loops: under
 * valgrind those writes and their read-back were most of test_core's time
 * (148 s against 8 s without them). Here a passing assertion costs its
 * comparison only; a failing one fails its case with the same message as
 * before, and a crash still fails its case (valgrind and ASan print where).
 */
#ifndef DML_TESTS_CHECK_QUIET_H
#define DML_TESTS_CHECK_QUIET_H

#include_next <check.h>

#undef ck_assert_msg
#define ck_assert_msg(expr, ...) \
    ((expr) ? (void)0 : _ck_assert_failed(__FILE__, __LINE__, "Assertion '" #expr "' failed", ##__VA_ARGS__))

#endif

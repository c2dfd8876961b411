/*
 * test_growable.c — the Size rules of dml.h's growable structs (docs/contract.md,
 * "Growable structs"): DML_DEVICE_DESC read by dmlCreateDevice, DML_ADAPTER_INFO
 * written by dmlDeviceGetAdapterInfo (the plugin applies the rules) and
 * dmlEnumerateAdapters (the dispatcher), DML_PLUGIN_INFO by dmlEnumeratePlugins.
 * A refused Size gives DML_E_INVALIDARG naming the call, the field and the
 * rule, writes nothing and changes nothing; a newer host's larger struct is
 * accepted (a zero tail on input, a zeroed tail on output, Size kept); arrays
 * use the entries' Size as their stride.
 * Backend: DML_TEST_BACKEND (default "cpu"); CMake also runs it on "cudaemu".
 */
#include "api/harness.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A host built against a later dml.h: the same struct with members appended. */
#define NEWER 64u
typedef struct newer_desc {
    DML_DEVICE_DESC v1;
    unsigned char appended[NEWER];
} newer_desc;

#define POISON 0x5A

static void expect_message(const char* prefix, const char* also)
{
    const char* message = dmlGetLastErrorMessage();
    ck_assert_msg(strncmp(message, prefix, strlen(prefix)) == 0, "message \"%s\" does not start \"%s\"", message,
        prefix);
    if (also)
        ck_assert_msg(strstr(message, also) != NULL, "message \"%s\" lacks \"%s\"", message, also);
}

static void expect_refused_desc(const void* desc, const char* prefix, const char* also)
{
    DMLDevice device = (DMLDevice)(void*)&device; /* a sentinel: must stay */
    DMLDevice sentinel = device;
    h_assert_result(dmlCreateDevice(desc, &device), DML_E_INVALIDARG);
    ck_assert_ptr_eq(device, sentinel);
    expect_message(prefix, also);
}

static void expect_created(const void* desc)
{
    DMLDevice device = NULL;
    h_assert_ok(dmlCreateDevice(desc, &device));
    ck_assert_ptr_nonnull(device);
    ck_assert_uint_eq(dmlRelease(device), 0);
}

START_TEST(device_desc_size)
{
    ck_assert_uint_eq(sizeof(DML_DEVICE_DESC), 32);
    DML_DEVICE_DESC d = h_device_desc();
    ck_assert_uint_eq(d.Size, sizeof d);
    expect_created(&d);

    static const uint32_t refused[] = { 0, 4, 24, 31, 36, 40 + 2, DML_STRUCT_SIZE_MAX + 8, UINT32_MAX };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; ++i) {
        /* Large sizes would make the runtime read past d: give it room. */
        static _Alignas(8) unsigned char room[DML_STRUCT_SIZE_MAX + 64];
        memset(room, 0, sizeof room);
        d = h_device_desc();
        d.Size = refused[i];
        memcpy(room, &d, sizeof d);
        char prefix[96];
        snprintf(prefix, sizeof prefix, "dmlCreateDevice: desc->Size = %u; must be sizeof(DML_DEVICE_DESC) = 32",
            refused[i]);
        expect_refused_desc(room, prefix, "DML_STRUCT_SIZE_MAX = 4096, in multiples of 8");
    }

    /* A newer host: Size covers members this runtime lacks. Zero: accepted. */
    newer_desc n;
    memset(&n, 0, sizeof n);
    n.v1 = h_device_desc();
    n.v1.Size = sizeof n;
    expect_created(&n);
    /* Set: refused, naming the first byte that is not zero. */
    n.appended[9] = 1;
    n.appended[20] = 1;
    char also[64];
    snprintf(also, sizeof also, "byte %u of them is not zero", (unsigned)(sizeof n.v1 + 9));
    expect_refused_desc(&n, "dmlCreateDevice: desc->Size = 96 covers members of a newer dml.h", also);
    /* The largest Size accepted, zero tail. */
    static _Alignas(8) unsigned char largest[DML_STRUCT_SIZE_MAX];
    memset(largest, 0, sizeof largest);
    d = h_device_desc();
    d.Size = DML_STRUCT_SIZE_MAX;
    memcpy(largest, &d, sizeof d);
    expect_created(largest);
}
END_TEST

/* The adapter of a device written into an info of `size` bytes (>= sizeof). */
static void adapter_info_into(DMLDevice device, unsigned char* buffer, uint32_t size)
{
    memset(buffer, POISON, size);
    memcpy(buffer, &size, sizeof size);
    h_assert_ok(dmlDeviceGetAdapterInfo(device, (DML_ADAPTER_INFO*)(void*)buffer));
}

typedef struct captured {
    unsigned errors;
    char last[1024];
} captured;

static void capture(DML_MESSAGE_SEVERITY severity, const char* message, void* context)
{
    captured* c = context;
    if (severity == DML_MESSAGE_SEVERITY_ERROR) {
        ++c->errors;
        snprintf(c->last, sizeof c->last, "%s", message);
    }
}

START_TEST(adapter_info_size)
{
    ck_assert_uint_eq(sizeof(DML_ADAPTER_INFO), 296);
    captured got = { 0, "" };
    dmlSetMessageCallback(capture, &got);
    DML_DEVICE_DESC d = h_device_desc();
    d.Flags = DML_CREATE_DEVICE_FLAG_DEBUG;
    DMLDevice device = NULL;
    h_assert_ok(dmlCreateDevice(&d, &device));

    DML_ADAPTER_INFO info;
    memset(&info, 0, sizeof info);
    info.Size = sizeof info;
    h_assert_ok(dmlDeviceGetAdapterInfo(device, &info));
    ck_assert_uint_eq(info.Size, sizeof info);
    ck_assert_str_eq(info.Backend, h_backend());

    /* Refused: nothing written, and the debug device says so to the callback. */
    static const uint32_t refused[] = { 0, 8, 295, 300, DML_STRUCT_SIZE_MAX + 8 };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; ++i) {
        DML_ADAPTER_INFO bad, untouched;
        memset(&bad, POISON, sizeof bad);
        bad.Size = refused[i];
        untouched = bad;
        unsigned errors = got.errors;
        h_assert_result(dmlDeviceGetAdapterInfo(device, &bad), DML_E_INVALIDARG);
        ck_assert_msg(memcmp(&bad, &untouched, sizeof bad) == 0, "Size %u: the info was written", refused[i]);
        char prefix[112];
        snprintf(prefix, sizeof prefix,
            "dmlDeviceGetAdapterInfo: info->Size = %u; must be sizeof(DML_ADAPTER_INFO) = 296", refused[i]);
        expect_message(prefix, NULL);
        ck_assert_uint_eq(got.errors, errors + 1);
        ck_assert_str_eq(got.last, dmlGetLastErrorMessage());
    }

    /* A newer host's larger info: the same members, the rest zeroed, Size kept. */
    _Alignas(8) unsigned char larger[sizeof(DML_ADAPTER_INFO) + NEWER];
    adapter_info_into(device, larger, sizeof larger);
    uint32_t size;
    memcpy(&size, larger, sizeof size);
    ck_assert_uint_eq(size, sizeof larger);
    ck_assert(memcmp(larger + 4, (unsigned char*)&info + 4, sizeof info - 4) == 0);
    for (size_t i = sizeof info; i < sizeof larger; ++i)
        ck_assert_msg(larger[i] == 0, "byte %zu past this runtime's DML_ADAPTER_INFO is not zeroed", i);

    dmlRelease(device);
    dmlSetMessageCallback(NULL, NULL);
}
END_TEST

/* An array of `count` entries of `stride` bytes, each with that Size, the rest POISON. */
static unsigned char* sized_array(uint32_t count, uint32_t stride)
{
    unsigned char* a = malloc((size_t)count * stride);
    ck_assert_ptr_nonnull(a);
    memset(a, POISON, (size_t)count * stride);
    for (uint32_t i = 0; i < count; ++i)
        memcpy(a + (size_t)i * stride, &stride, sizeof stride);
    return a;
}

START_TEST(adapter_array_sizes)
{
    uint32_t total = 0;
    h_assert_ok(dmlEnumerateAdapters(&total, NULL));
    ck_assert_uint_ge(total, 1);

    DML_ADAPTER_INFO* plain = (DML_ADAPTER_INFO*)(void*)sized_array(total, sizeof(DML_ADAPTER_INFO));
    uint32_t count = total;
    h_assert_ok(dmlEnumerateAdapters(&count, plain));
    ck_assert_uint_eq(count, total);

    /* A newer host's stride: the same entries, each tail zeroed, each Size kept. */
    const uint32_t stride = sizeof(DML_ADAPTER_INFO) + NEWER;
    unsigned char* wide = sized_array(total + 1, stride);
    count = total + 1;
    h_assert_ok(dmlEnumerateAdapters(&count, (DML_ADAPTER_INFO*)(void*)wide));
    ck_assert_uint_eq(count, total);
    for (uint32_t i = 0; i < total; ++i) {
        const unsigned char* e = wide + (size_t)i * stride;
        uint32_t size;
        memcpy(&size, e, sizeof size);
        ck_assert_uint_eq(size, stride);
        ck_assert_msg(memcmp(e + 4, (const unsigned char*)&plain[i] + 4, sizeof(DML_ADAPTER_INFO) - 4) == 0,
            "entry %u differs at stride %u", i, stride);
        for (uint32_t b = sizeof(DML_ADAPTER_INFO); b < stride; ++b)
            ck_assert_msg(e[b] == 0, "entry %u: byte %u not zeroed", i, b);
    }
    ck_assert_uint_eq(wide[(size_t)total * stride + 4], POISON); /* past the last entry written */
    free(wide);

    /* Refused: entry 0's Size, or another entry's that differs; nothing written, count kept. */
    unsigned char* bad = sized_array(total, sizeof(DML_ADAPTER_INFO));
    uint32_t zero = 0;
    memcpy(bad, &zero, sizeof zero);
    unsigned char* copy = malloc((size_t)total * sizeof(DML_ADAPTER_INFO));
    ck_assert_ptr_nonnull(copy);
    memcpy(copy, bad, (size_t)total * sizeof(DML_ADAPTER_INFO));
    count = total;
    h_assert_result(dmlEnumerateAdapters(&count, (DML_ADAPTER_INFO*)(void*)bad), DML_E_INVALIDARG);
    ck_assert_uint_eq(count, total);
    ck_assert(memcmp(bad, copy, (size_t)total * sizeof(DML_ADAPTER_INFO)) == 0);
    expect_message("dmlEnumerateAdapters: adapters[0].Size = 0; must be sizeof(DML_ADAPTER_INFO) = 296", NULL);
    if (total >= 2) {
        free(bad);
        bad = sized_array(total, sizeof(DML_ADAPTER_INFO));
        uint32_t other = sizeof(DML_ADAPTER_INFO) + 8;
        memcpy(bad + sizeof(DML_ADAPTER_INFO), &other, sizeof other);
        memcpy(copy, bad, (size_t)total * sizeof(DML_ADAPTER_INFO));
        count = total;
        h_assert_result(dmlEnumerateAdapters(&count, (DML_ADAPTER_INFO*)(void*)bad), DML_E_INVALIDARG);
        ck_assert_uint_eq(count, total);
        ck_assert(memcmp(bad, copy, (size_t)total * sizeof(DML_ADAPTER_INFO)) == 0);
        expect_message("dmlEnumerateAdapters: adapters[1].Size = 304; must equal adapters[0].Size = 296",
            "the array's stride");
    }
    /* Only the entries to be written are read: one slot, the next one garbage. */
    if (total >= 2)
        plain[1].Size = 0xFFFF;
    count = 1;
    h_assert_ok(dmlEnumerateAdapters(&count, (DML_ADAPTER_INFO*)(void*)plain));
    free(copy);
    free(bad);
    free(plain);
}
END_TEST

START_TEST(plugin_array_sizes)
{
    ck_assert_uint_eq(sizeof(DML_PLUGIN_INFO), 804);
    uint32_t total = 0;
    h_assert_ok(dmlEnumeratePlugins(&total, NULL));
    ck_assert_uint_ge(total, 1);
    DML_PLUGIN_INFO* plain = (DML_PLUGIN_INFO*)(void*)sized_array(total, sizeof(DML_PLUGIN_INFO));
    uint32_t count = total;
    h_assert_ok(dmlEnumeratePlugins(&count, plain));

    const uint32_t stride = sizeof(DML_PLUGIN_INFO) + NEWER;
    unsigned char* wide = sized_array(total, stride);
    count = total;
    h_assert_ok(dmlEnumeratePlugins(&count, (DML_PLUGIN_INFO*)(void*)wide));
    for (uint32_t i = 0; i < total; ++i) {
        const unsigned char* e = wide + (size_t)i * stride;
        ck_assert(memcmp(e + 4, (const unsigned char*)&plain[i] + 4, sizeof(DML_PLUGIN_INFO) - 4) == 0);
        for (uint32_t b = sizeof(DML_PLUGIN_INFO); b < stride; ++b)
            ck_assert_msg(e[b] == 0, "entry %u: byte %u not zeroed", i, b);
    }
    free(wide);

    DML_PLUGIN_INFO bad = { .Size = 12 };
    count = 1;
    h_assert_result(dmlEnumeratePlugins(&count, &bad), DML_E_INVALIDARG);
    ck_assert_uint_eq(count, 1);
    ck_assert_uint_eq(bad.Size, 12);
    expect_message("dmlEnumeratePlugins: plugins[0].Size = 12; must be sizeof(DML_PLUGIN_INFO) = 804",
        "in multiples of 4");
    free(plain);
}
END_TEST

int main(void)
{
    Suite* s = suite_create("growable");
    TCase* tc = tcase_create("growable");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, device_desc_size);
    tcase_add_test(tc, adapter_info_size);
    tcase_add_test(tc, adapter_array_sizes);
    tcase_add_test(tc, plugin_array_sizes);
    suite_add_tcase(s, tc);
    SRunner* sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

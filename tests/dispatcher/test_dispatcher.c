/*
 * test_dispatcher.c — libdml.so's own behaviour: discovery, selection,
 * enumeration, handle checks, host services, DMLCalcBufferTensorSize.
 *
 * Discovery happens once per process, so every case runs in its own forked
 * child (forced below, whatever CK_FORK says) and sets DML_PLUGIN_PATH /
 * DML_BACKEND itself before its first dml call. The stub plugins live in
 * DML_STUB_ROOT/<scenario>/ (see CMakeLists.txt and stub_plugin.c); the
 * built-in directory (lib/dml next to libdml.so) holds the real cpu plugin.
 */
#include <check.h>
#include <dml/dml_plugin.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define STUB_DIR(name) DML_STUB_ROOT "/" name

static void use_plugin_path(const char* path)
{
    ck_assert_int_eq(setenv("DML_PLUGIN_PATH", path, 1), 0);
    unsetenv("DML_BACKEND");
}

/* The backend whose plugin made this object (every object starts with its header). */
static const char* backend_of(void* object)
{
    return ((DMLObjectHeader*)object)->Dispatch->Backend;
}

static DML_RESULT create(const char* backend, DMLDevice* device)
{
    DML_DEVICE_DESC desc = { sizeof(DML_DEVICE_DESC), backend, 0, DML_CREATE_DEVICE_FLAG_NONE, DML_FEATURE_LEVEL_5_0 };
    return dmlCreateDevice(&desc, device);
}

static DML_PLUGIN_INFO* plugins(uint32_t* count)
{
    ck_assert_int_eq(dmlEnumeratePlugins(count, NULL), DML_S_OK);
    DML_PLUGIN_INFO* all = calloc(*count + 1, sizeof *all);
    ck_assert_ptr_nonnull(all);
    for (uint32_t i = 0; i <= *count; i++)
        all[i].Size = sizeof all[i];
    ck_assert_int_eq(dmlEnumeratePlugins(count, all), DML_S_OK);
    return all;
}

/* The record whose Path ends with suffix; fails the test if none. */
static DML_PLUGIN_INFO find_plugin(const char* suffix)
{
    uint32_t count = 0;
    DML_PLUGIN_INFO* all = plugins(&count);
    DML_PLUGIN_INFO found;
    memset(&found, 0, sizeof found);
    bool ok = false;
    for (uint32_t i = 0; i < count && !ok; i++) {
        size_t n = strlen(all[i].Path), m = strlen(suffix);
        if (n >= m && strcmp(all[i].Path + n - m, suffix) == 0) {
            found = all[i];
            ok = true;
        }
    }
    free(all);
    ck_assert_msg(ok, "no plugin record ends with %s", suffix);
    return found;
}

/* ---- Selection ------------------------------------------------------------ */

START_TEST(default_picks_highest_score)
{
    use_plugin_path(STUB_DIR("good"));
    DMLDevice device = NULL;
    ck_assert_int_eq(create(NULL, &device), DML_S_OK);
    ck_assert_str_eq(backend_of(device), "fakegpu"); /* 1000000 beats lowscore 5 and cpu; offline is unavailable */
    ck_assert_uint_eq(dmlRelease(device), 0);
}
END_TEST

START_TEST(empty_backend_picks_best_and_ignores_env)
{
    use_plugin_path(STUB_DIR("good"));
    setenv("DML_BACKEND", "lowscore", 1); /* overrides only a NULL Backend */
    DMLDevice device = NULL;
    ck_assert_int_eq(create("", &device), DML_S_OK);
    ck_assert_str_eq(backend_of(device), "fakegpu");
    dmlRelease(device);
}
END_TEST

START_TEST(ties_go_to_discovery_order)
{
    use_plugin_path(STUB_DIR("tie"));
    DMLDevice device = NULL;
    ck_assert_int_eq(create(NULL, &device), DML_S_OK);
    ck_assert_str_eq(backend_of(device), "tiea");
    dmlRelease(device);
}
END_TEST

START_TEST(named_backend_is_forced)
{
    use_plugin_path(STUB_DIR("good"));
    DMLDevice device = NULL;
    ck_assert_int_eq(create("lowscore", &device), DML_S_OK);
    ck_assert_str_eq(backend_of(device), "lowscore");
    dmlRelease(device);
}
END_TEST

START_TEST(cpu_is_forced)
{
    use_plugin_path(STUB_DIR("good"));
    DMLDevice device = NULL;
    ck_assert_msg(create("cpu", &device) == DML_S_OK, "%s", dmlGetLastErrorMessage());
    ck_assert_str_eq(backend_of(device), "cpu");
    dmlRelease(device);
}
END_TEST

START_TEST(env_overrides_null_backend)
{
    use_plugin_path(STUB_DIR("good"));
    setenv("DML_BACKEND", "cpu", 1);
    DMLDevice device = NULL;
    ck_assert_msg(create(NULL, &device) == DML_S_OK, "%s", dmlGetLastErrorMessage());
    ck_assert_str_eq(backend_of(device), "cpu");
    dmlRelease(device);
}
END_TEST

START_TEST(env_names_a_stub)
{
    use_plugin_path(STUB_DIR("good"));
    setenv("DML_BACKEND", "lowscore", 1);
    DMLDevice device = NULL;
    ck_assert_int_eq(create(NULL, &device), DML_S_OK);
    ck_assert_str_eq(backend_of(device), "lowscore");
    dmlRelease(device);
}
END_TEST

START_TEST(explicit_backend_beats_env)
{
    use_plugin_path(STUB_DIR("good"));
    setenv("DML_BACKEND", "lowscore", 1);
    DMLDevice device = NULL;
    ck_assert_int_eq(create("fakegpu", &device), DML_S_OK);
    ck_assert_str_eq(backend_of(device), "fakegpu");
    dmlRelease(device);
}
END_TEST

START_TEST(missing_backend_is_unsupported)
{
    use_plugin_path(STUB_DIR("good"));
    DMLDevice device = (DMLDevice)(uintptr_t)0x1234; /* must stay untouched */
    ck_assert_int_eq(create("nosuch", &device), DML_E_UNSUPPORTED);
    ck_assert_ptr_eq(device, (DMLDevice)(uintptr_t)0x1234);
    const char* message = dmlGetLastErrorMessage();
    ck_assert_ptr_nonnull(strstr(message, "'nosuch'"));
    ck_assert_ptr_nonnull(strstr(message, STUB_DIR("good"))); /* the searched directories */
}
END_TEST

START_TEST(missing_backend_from_env_says_so)
{
    use_plugin_path(STUB_DIR("good"));
    setenv("DML_BACKEND", "nosuch", 1);
    DMLDevice device = NULL;
    ck_assert_int_eq(create(NULL, &device), DML_E_UNSUPPORTED);
    ck_assert_ptr_null(device);
    ck_assert_ptr_nonnull(strstr(dmlGetLastErrorMessage(), "DML_BACKEND"));
}
END_TEST

START_TEST(unavailable_backend_gives_probe_reason)
{
    use_plugin_path(STUB_DIR("good"));
    DMLDevice device = NULL;
    ck_assert_int_eq(create("offline", &device), DML_E_UNSUPPORTED);
    ck_assert_ptr_null(device);
    ck_assert_ptr_nonnull(strstr(dmlGetLastErrorMessage(), "no offline accelerator is attached"));
    DML_PLUGIN_INFO info = find_plugin("/libdml_offline.so");
    ck_assert(info.Loaded);
    ck_assert(!info.Available);
    ck_assert_str_eq(info.Reason, "no offline accelerator is attached");
}
END_TEST

START_TEST(failed_plugin_file_is_named_when_its_backend_is_asked_for)
{
    use_plugin_path(STUB_DIR("bad"));
    DMLDevice device = NULL;
    ck_assert_int_eq(create("junk", &device), DML_E_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(dmlGetLastErrorMessage(), "libdml_junk.so"));
}
END_TEST

START_TEST(path_plugins_win_over_builtin)
{
    use_plugin_path(STUB_DIR("shadow"));
    DMLDevice device = NULL;
    ck_assert_int_eq(create("cpu", &device), DML_S_OK);
    ck_assert_ptr_nonnull(strstr(((DMLObjectHeader*)device)->Dispatch->Backend, "cpu"));
    DML_ADAPTER_INFO adapters[16];
    for (int i = 0; i < 16; i++)
        adapters[i].Size = sizeof adapters[i];
    uint32_t count = 16;
    ck_assert_int_eq(dmlEnumerateAdapters(&count, adapters), DML_S_OK);
    int cpu = 0;
    for (uint32_t i = 0; i < count; i++) {
        if (strcmp(adapters[i].Backend, "cpu") == 0) {
            ck_assert_str_eq(adapters[i].Description, "Fake cpu adapter 0"); /* the stub, not the real one */
            cpu++;
        }
    }
    ck_assert_int_eq(cpu, 1);
    dmlRelease(device);
}
END_TEST

START_TEST(builtin_cpu_is_shadowed_with_a_reason)
{
    use_plugin_path(STUB_DIR("shadow"));
    DML_PLUGIN_INFO info = find_plugin("/lib/dml/libdml_cpu.so");
    ck_assert(!info.Loaded);
    ck_assert_ptr_nonnull(strstr(info.Reason, "already provided by"));
}
END_TEST

/* ---- Refused plugin files ------------------------------------------------ */

/* A private copy of a stub plugin in a fresh directory under DML_STUB_ROOT,
 * with the given modes: suites run concurrently (plain and under valgrind),
 * so nothing shared is chmod-ed. Fills dir and returns the copy's path. */
static void make_scratch_plugin(const char* source, const char* name, mode_t file_mode, mode_t dir_mode,
    char* dir, char* path)
{
    snprintf(dir, PATH_MAX, "%s/scratch.XXXXXX", DML_STUB_ROOT);
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(path, PATH_MAX, "%s/%s", dir, name);
    FILE* in = fopen(source, "rb");
    FILE* out = fopen(path, "wb");
    ck_assert_ptr_nonnull(in);
    ck_assert_ptr_nonnull(out);
    char buffer[4096];
    size_t n;
    while ((n = fread(buffer, 1, sizeof buffer, in)) > 0)
        ck_assert_uint_eq(fwrite(buffer, 1, n, out), n);
    fclose(in);
    fclose(out);
    ck_assert_int_eq(chmod(path, file_mode), 0);
    ck_assert_int_eq(chmod(dir, dir_mode), 0);
}

static void remove_scratch_plugin(const char* dir, const char* path)
{
    unlink(path);
    rmdir(dir);
}

static void expect_refused(const char* file, const char* reason_part)
{
    DML_PLUGIN_INFO info = find_plugin(file);
    ck_assert_msg(!info.Loaded, "%s should not be loaded", file);
    ck_assert_msg(!info.Available, "%s should not be available", file);
    ck_assert_msg(strstr(info.Reason, reason_part) != NULL, "%s: reason '%s' lacks '%s'", file, info.Reason,
        reason_part);
}

START_TEST(bad_plugins_are_skipped_with_reasons)
{
    char dir[PATH_MAX], writable[PATH_MAX], path[PATH_MAX * 3];
    make_scratch_plugin(STUB_DIR("spare/libdml_spare.so"), "libdml_wwfile.so", 0777, 0755, dir, writable);
    snprintf(path, sizeof path, "%s:%s:%s", STUB_DIR("good"), STUB_DIR("bad"), dir);
    use_plugin_path(path);

    expect_refused("/libdml_badabi.so", "ABI version 99");
    expect_refused("/libdml_dup.so", "already provided by");
    expect_refused("/libdml_noentry.so", "no entry point dmlPluginGetTable");
    expect_refused("/libdml_noname.so", "names no backend");
    expect_refused("/libdml_nulltable.so", "returned NULL");
    expect_refused("/libdml_shortsize.so", "16 bytes");
    expect_refused("/libdml_junk.so", "cannot load");
    expect_refused("/libdml_wwfile.so", "world-writable");
    remove_scratch_plugin(dir, writable);

    /* The good ones are unaffected. */
    DMLDevice device = NULL;
    ck_assert_int_eq(create(NULL, &device), DML_S_OK);
    ck_assert_str_eq(backend_of(device), "fakegpu");
    dmlRelease(device);
    ck_assert_int_eq(create("badabi", &device), DML_E_UNSUPPORTED);
    ck_assert_int_eq(create("spare", &device), DML_E_UNSUPPORTED);
}
END_TEST

START_TEST(world_writable_directory_is_refused)
{
    char dir[PATH_MAX], plugin[PATH_MAX];
    make_scratch_plugin(STUB_DIR("spare/libdml_spare.so"), "libdml_spare.so", 0755, 0777, dir, plugin);
    use_plugin_path(dir);
    DML_PLUGIN_INFO info = find_plugin(strrchr(dir, '/'));
    remove_scratch_plugin(dir, plugin);
    ck_assert_ptr_nonnull(strstr(info.Reason, "world-writable"));
    DMLDevice device = NULL;
    ck_assert_int_eq(create("spare", &device), DML_E_UNSUPPORTED);
}
END_TEST

START_TEST(spare_plugin_loads_from_a_private_directory)
{
    /* The control for the two cases above: the same copy, safe modes, loads. */
    char dir[PATH_MAX], plugin[PATH_MAX];
    make_scratch_plugin(STUB_DIR("spare/libdml_spare.so"), "libdml_spare.so", 0755, 0755, dir, plugin);
    use_plugin_path(dir);
    DMLDevice device = NULL;
    DML_RESULT r = create("spare", &device);
    remove_scratch_plugin(dir, plugin); /* loaded plugins stay mapped */
    ck_assert_int_eq(r, DML_S_OK);
    ck_assert_str_eq(backend_of(device), "spare");
    dmlRelease(device);
}
END_TEST

START_TEST(relative_path_entries_are_ignored)
{
    /* "good" would resolve from here; it must not be searched. */
    ck_assert_int_eq(chdir(DML_STUB_ROOT), 0);
    use_plugin_path("good::./tie");
    DML_PLUGIN_INFO info = find_plugin("good");
    ck_assert(!info.Loaded);
    ck_assert_ptr_nonnull(strstr(info.Reason, "absolute"));
    info = find_plugin("./tie");
    ck_assert_ptr_nonnull(strstr(info.Reason, "absolute"));
    DMLDevice device = NULL;
    ck_assert_int_eq(create("fakegpu", &device), DML_E_UNSUPPORTED);
    ck_assert_int_eq(create("tiea", &device), DML_E_UNSUPPORTED);
}
END_TEST

START_TEST(directory_named_twice_is_searched_once)
{
    use_plugin_path(STUB_DIR("good") ":" STUB_DIR("good") "/");
    uint32_t count = 0;
    DML_PLUGIN_INFO* all = plugins(&count);
    uint32_t fakegpu = 0;
    for (uint32_t i = 0; i < count; i++)
        fakegpu += strstr(all[i].Path, "libdml_fakegpu.so") != NULL;
    free(all);
    ck_assert_uint_eq(fakegpu, 1);
}
END_TEST

/* ---- Enumeration ----------------------------------------------------------- */

START_TEST(adapters_best_backend_first)
{
    use_plugin_path(STUB_DIR("good"));
    ck_assert_int_eq(dmlEnumerateAdapters(NULL, NULL), DML_E_INVALIDARG);
    uint32_t total = 0;
    ck_assert_int_eq(dmlEnumerateAdapters(&total, NULL), DML_S_OK);
    ck_assert_uint_ge(total, 3); /* fakegpu x2, lowscore, then the cpu plugin's */

    DML_ADAPTER_INFO* all = calloc(total, sizeof *all);
    ck_assert_ptr_nonnull(all);
    for (uint32_t i = 0; i < total; i++)
        all[i].Size = sizeof all[i];
    uint32_t count = total;
    ck_assert_int_eq(dmlEnumerateAdapters(&count, all), DML_S_OK);
    ck_assert_uint_eq(count, total);
    ck_assert_str_eq(all[0].Backend, "fakegpu");
    ck_assert_uint_eq(all[0].AdapterIndex, 0);
    ck_assert_str_eq(all[1].Backend, "fakegpu");
    ck_assert_uint_eq(all[1].AdapterIndex, 1);
    ck_assert_str_eq(all[1].Description, "Fake fakegpu adapter 1");
    /* Backends in non-increasing score order; the unavailable one absent. */
    uint32_t plugin_count = 0;
    DML_PLUGIN_INFO* infos = plugins(&plugin_count);
    int32_t previous = INT32_MAX;
    for (uint32_t i = 0; i < total; i++) {
        ck_assert_str_ne(all[i].Backend, "offline");
        int32_t score = INT32_MIN;
        for (uint32_t j = 0; j < plugin_count; j++)
            if (infos[j].Loaded && strcmp(infos[j].Backend, all[i].Backend) == 0)
                score = infos[j].Score;
        ck_assert_int_le(score, previous);
        previous = score;
    }
    free(infos);
    free(all);
}
END_TEST

START_TEST(adapters_short_array_is_filled_and_ok)
{
    use_plugin_path(STUB_DIR("good"));
    DML_ADAPTER_INFO adapters[2];
    memset(adapters, 0xAB, sizeof adapters);
    adapters[0].Size = sizeof adapters[0];
    uint32_t count = 1;
    ck_assert_int_eq(dmlEnumerateAdapters(&count, adapters), DML_S_OK);
    ck_assert_uint_eq(count, 1);
    ck_assert_str_eq(adapters[0].Backend, "fakegpu");
    ck_assert_uint_eq(((unsigned char*)&adapters[1])[0], 0xAB); /* nothing past *count written */
    count = 0;
    ck_assert_int_eq(dmlEnumerateAdapters(&count, adapters), DML_S_OK);
    ck_assert_uint_eq(count, 0);
}
END_TEST

START_TEST(plugins_count_convention)
{
    use_plugin_path(STUB_DIR("good"));
    ck_assert_int_eq(dmlEnumeratePlugins(NULL, NULL), DML_E_INVALIDARG);
    uint32_t total = 0;
    ck_assert_int_eq(dmlEnumeratePlugins(&total, NULL), DML_S_OK);
    ck_assert_uint_ge(total, 3);
    DML_PLUGIN_INFO first[2] = { { .Size = sizeof first[0] }, { .Size = sizeof first[1] } };
    uint32_t count = 2;
    ck_assert_int_eq(dmlEnumeratePlugins(&count, first), DML_S_OK);
    ck_assert_uint_eq(count, 2);
    /* Sorted by file name within good/: fakegpu, lowscore, offline. */
    ck_assert_str_eq(first[0].Backend, "fakegpu");
    ck_assert(first[0].Loaded && first[0].Available);
    ck_assert_int_eq(first[0].Score, 1000000);
    ck_assert_uint_eq(first[0].AdapterCount, 2);
    ck_assert_str_eq(first[0].Reason, "");
    ck_assert_str_eq(first[1].Backend, "lowscore");
}
END_TEST

static void* enumerate_in_thread(void* arg)
{
    uint32_t* count = arg;
    dmlEnumerateAdapters(count, NULL);
    return NULL;
}

START_TEST(concurrent_first_calls_discover_once)
{
    use_plugin_path(STUB_DIR("good"));
    enum { N = 8 };
    pthread_t threads[N];
    uint32_t counts[N];
    for (int i = 0; i < N; i++)
        ck_assert_int_eq(pthread_create(&threads[i], NULL, enumerate_in_thread, &counts[i]), 0);
    for (int i = 0; i < N; i++)
        pthread_join(threads[i], NULL);
    for (int i = 1; i < N; i++)
        ck_assert_uint_eq(counts[i], counts[0]);
    uint32_t fakegpu = 0, count = 0;
    DML_PLUGIN_INFO* all = plugins(&count);
    for (uint32_t i = 0; i < count; i++)
        fakegpu += strcmp(all[i].Backend, "fakegpu") == 0;
    free(all);
    ck_assert_uint_eq(fakegpu, 1);
}
END_TEST

/* ---- Handles ---------------------------------------------------------------- */

START_TEST(null_handles_are_invalidarg)
{
    use_plugin_path(STUB_DIR("good"));
    DML_BINDING_TABLE_DESC table_desc = { NULL };
    ck_assert_int_eq(dmlDeviceCreateOperator(NULL, NULL, NULL), DML_E_INVALIDARG);
    ck_assert_str_eq(dmlGetLastErrorMessage(), "dmlDeviceCreateOperator: device is NULL, not a valid DMLDevice");
    ck_assert_int_eq(dmlDeviceGetDeviceRemovedReason(NULL), DML_E_INVALIDARG);
    ck_assert_int_eq(dmlDeviceCheckFeatureSupport(NULL, DML_FEATURE_FEATURE_LEVELS, 0, NULL, 0, NULL), DML_E_INVALIDARG);
    ck_assert_int_eq(dmlDeviceCompileOperator(NULL, NULL, DML_EXECUTION_FLAG_NONE, NULL), DML_E_INVALIDARG);
    ck_assert_int_eq(dmlDeviceCreateOperatorInitializer(NULL, 0, NULL, NULL), DML_E_INVALIDARG);
    ck_assert_int_eq(dmlDeviceCreateBindingTable(NULL, &table_desc, NULL), DML_E_INVALIDARG);
    ck_assert_int_eq(dmlBindingTableBindInputs(NULL, 0, NULL), DML_E_INVALIDARG);
    ck_assert_int_eq(dmlBindingTableBindOutputs(NULL, 0, NULL), DML_E_INVALIDARG);
    ck_assert_int_eq(dmlBindingTableBindTemporaryResource(NULL, NULL), DML_E_INVALIDARG);
    ck_assert_int_eq(dmlBindingTableBindPersistentResource(NULL, NULL), DML_E_INVALIDARG);
    ck_assert_int_eq(dmlBindingTableReset(NULL, NULL), DML_E_INVALIDARG);
    ck_assert_int_eq(dmlDeviceCreateCommandRecorder(NULL, NULL), DML_E_INVALIDARG);
    ck_assert_int_eq(dmlDeviceCreateCommandQueue(NULL, NULL, NULL), DML_E_INVALIDARG);
    ck_assert_int_eq(dmlCommandRecorderRecordDispatch(NULL, NULL, NULL, NULL), DML_E_INVALIDARG);
    ck_assert_str_eq(dmlGetLastErrorMessage(),
        "dmlCommandRecorderRecordDispatch: recorder is NULL, not a valid DMLCommandRecorder");
    ck_assert_int_eq(dmlCommandQueueSynchronize(NULL), DML_E_INVALIDARG);
    ck_assert_int_eq(dmlDeviceCreateBuffer(NULL, 16, NULL), DML_E_INVALIDARG);
    ck_assert_int_eq(dmlDeviceWrapBuffer(NULL, NULL, 16, NULL), DML_E_INVALIDARG);
    ck_assert_int_eq(dmlCommandQueueWriteBuffer(NULL, NULL, 0, NULL, 0), DML_E_INVALIDARG);
    ck_assert_int_eq(dmlCommandQueueReadBuffer(NULL, NULL, 0, NULL, 0), DML_E_INVALIDARG);
    ck_assert_int_eq(dmlSetName(NULL, "x"), DML_E_INVALIDARG);
    ck_assert_ptr_null(dmlBufferGetNativePointer(NULL));
    DML_BINDING_PROPERTIES props = dmlDispatchableGetBindingProperties(NULL);
    ck_assert_uint_eq(props.RequiredDescriptorCount + props.TemporaryResourceSize + props.PersistentResourceSize, 0);
    ck_assert_ptr_nonnull(strstr(dmlGetLastErrorMessage(), "dmlDispatchableGetBindingProperties: dispatchable is NULL"));
    ck_assert_uint_eq(dmlRelease(NULL), 0);
    ck_assert_uint_eq(dmlAddRef(NULL), 0);
    ck_assert_int_eq(dmlCreateDevice(NULL, NULL), DML_E_INVALIDARG);
    DML_DEVICE_DESC desc = { sizeof(DML_DEVICE_DESC), NULL, 0, 0, 0 };
    ck_assert_int_eq(dmlCreateDevice(&desc, NULL), DML_E_INVALIDARG);
}
END_TEST

START_TEST(dead_and_foreign_handles_are_invalidarg)
{
    use_plugin_path(STUB_DIR("good"));
    /* Zeroed memory: no magic. */
    DMLObjectHeader zero;
    memset(&zero, 0, sizeof zero);
    ck_assert_int_eq(dmlDeviceCreateCommandRecorder((DMLDevice)&zero, NULL), DML_E_INVALIDARG);
    ck_assert_ptr_nonnull(strstr(dmlGetLastErrorMessage(), "not a live DML object"));
    ck_assert_uint_eq(dmlRelease(&zero), 0);
    ck_assert_uint_eq(dmlAddRef(&zero), 0);
    ck_assert_int_eq(dmlSetName(&zero, "x"), DML_E_INVALIDARG);

    /* The magic but no dispatch table. */
    DMLObjectHeader no_table = { NULL, DML_OBJECT_MAGIC, DML_OBJECT_TYPE_DEVICE };
    ck_assert_int_eq(dmlDeviceGetDeviceRemovedReason((DMLDevice)&no_table), DML_E_INVALIDARG);

    /* Misaligned. */
    _Alignas(16) unsigned char bytes[64] = { 0 };
    ck_assert_int_eq(dmlDeviceGetDeviceRemovedReason((DMLDevice)(bytes + 1)), DML_E_INVALIDARG);
}
END_TEST

START_TEST(wrong_type_is_invalidarg)
{
    use_plugin_path(STUB_DIR("good"));
    DMLDevice device = NULL;
    ck_assert_int_eq(create("fakegpu", &device), DML_S_OK);

    ck_assert_int_eq(dmlCommandQueueSynchronize((DMLCommandQueue)(void*)device), DML_E_INVALIDARG);
    ck_assert_str_eq(dmlGetLastErrorMessage(),
        "dmlCommandQueueSynchronize: queue is not a valid DMLCommandQueue (it is a DMLDevice)");
    ck_assert_int_eq(dmlBindingTableReset((DMLBindingTable)(void*)device, NULL), DML_E_INVALIDARG);
    ck_assert_ptr_null(dmlBufferGetNativePointer((DMLBuffer)(void*)device));
    ck_assert_ptr_nonnull(strstr(dmlGetLastErrorMessage(), "buffer is not a valid DMLBuffer"));
    DML_BINDING_PROPERTIES props = dmlDispatchableGetBindingProperties(device);
    ck_assert_uint_eq(props.TemporaryResourceSize + props.PersistentResourceSize, 0);
    ck_assert_ptr_nonnull(strstr(dmlGetLastErrorMessage(), "(it is a DMLDevice)"));

    /* Any type is fine for the lifetime functions. */
    ck_assert_int_eq(dmlSetName(device, "named"), DML_S_OK);
    ck_assert_uint_eq(dmlAddRef(device), 2);
    ck_assert_uint_eq(dmlRelease(device), 1);
    ck_assert_uint_eq(dmlRelease(device), 0);
}
END_TEST

START_TEST(missing_entry_is_notimpl)
{
    use_plugin_path(STUB_DIR("good"));
    DMLDevice device = NULL;
    ck_assert_int_eq(create("fakegpu", &device), DML_S_OK);
    DMLOperator op = NULL;
    ck_assert_int_eq(dmlDeviceCreateOperator(device, NULL, &op), DML_E_NOTIMPL);
    ck_assert_str_eq(dmlGetLastErrorMessage(),
        "dmlDeviceCreateOperator: backend 'fakegpu' does not implement this call");
    ck_assert_ptr_null(op);
    dmlRelease(device);
}
END_TEST

/* ---- Host services ------------------------------------------------------------ */

START_TEST(last_error_is_set_kept_and_hidden_from_discovery)
{
    use_plugin_path(STUB_DIR("good")); /* offline's probe sets an error during discovery */
    ck_assert_str_eq(dmlGetLastErrorMessage(), "");
    ck_assert_int_eq(dmlDeviceGetDeviceRemovedReason(NULL), DML_E_INVALIDARG); /* before discovery */
    char before[1024];
    snprintf(before, sizeof before, "%s", dmlGetLastErrorMessage());
    ck_assert_str_ne(before, "");
    uint32_t count = 0;
    ck_assert_int_eq(dmlEnumerateAdapters(&count, NULL), DML_S_OK); /* discovery happens here */
    ck_assert_str_eq(dmlGetLastErrorMessage(), before);              /* successful calls keep it */
}
END_TEST

static void* read_error_in_thread(void* arg)
{
    *(const char**)arg = dmlGetLastErrorMessage();
    return NULL;
}

START_TEST(plugin_errors_go_to_the_shared_thread_local_message)
{
    use_plugin_path(STUB_DIR("good"));
    DMLDevice device = NULL;
    ck_assert_int_eq(create("fakegpu", &device), DML_S_OK);
    ck_assert_int_eq(dmlDeviceCheckFeatureSupport(device, DML_FEATURE_FEATURE_LEVELS, 0, NULL, 0, NULL),
        DML_E_UNSUPPORTED);
    ck_assert_str_eq(dmlGetLastErrorMessage(), "fakegpu: feature queries are not implemented by this stub");

    const char* other = NULL;
    pthread_t thread;
    ck_assert_int_eq(pthread_create(&thread, NULL, read_error_in_thread, &other), 0);
    pthread_join(thread, NULL);
    ck_assert_str_eq(other, ""); /* per thread */
    dmlRelease(device);
}
END_TEST

typedef struct captured {
    int calls;
    DML_MESSAGE_SEVERITY severity;
    char message[1024];
} captured;

static void capture(DML_MESSAGE_SEVERITY severity, const char* message, void* context)
{
    captured* c = context;
    c->calls++;
    c->severity = severity;
    snprintf(c->message, sizeof c->message, "%s", message);
}

START_TEST(message_callback_receives_plugin_messages)
{
    use_plugin_path(STUB_DIR("good"));
    captured seen = { 0 };
    dmlSetMessageCallback(capture, &seen);
    DML_DEVICE_DESC desc = { sizeof(DML_DEVICE_DESC), "fakegpu", 0, DML_CREATE_DEVICE_FLAG_DEBUG,
        DML_FEATURE_LEVEL_5_0 };
    DMLDevice device = NULL;
    ck_assert_int_eq(dmlCreateDevice(&desc, &device), DML_S_OK);
    ck_assert_int_eq(seen.calls, 1);
    ck_assert_int_eq(seen.severity, DML_MESSAGE_SEVERITY_INFO);
    ck_assert_str_eq(seen.message, "fakegpu: debug device created");
    dmlRelease(device);

    dmlSetMessageCallback(NULL, NULL); /* back to stderr */
    ck_assert_int_eq(dmlCreateDevice(&desc, &device), DML_S_OK);
    ck_assert_int_eq(seen.calls, 1);
    dmlRelease(device);
}
END_TEST

START_TEST(debug_cpu_device_reports_errors_to_the_callback)
{
    use_plugin_path("");
    captured seen = { 0 };
    dmlSetMessageCallback(capture, &seen);
    DML_DEVICE_DESC desc = { sizeof(DML_DEVICE_DESC), "cpu", 0, DML_CREATE_DEVICE_FLAG_DEBUG, DML_FEATURE_LEVEL_5_0 };
    DMLDevice device = NULL;
    ck_assert_msg(dmlCreateDevice(&desc, &device) == DML_S_OK, "%s", dmlGetLastErrorMessage());
    int before = seen.calls;
    DMLOperator op = NULL;
    ck_assert_int_eq(dmlDeviceCreateOperator(device, NULL, &op), DML_E_INVALIDARG);
    ck_assert_int_gt(seen.calls, before);
    ck_assert_int_eq(seen.severity, DML_MESSAGE_SEVERITY_ERROR);
    ck_assert_str_eq(seen.message, dmlGetLastErrorMessage());
    ck_assert_ptr_nonnull(strstr(seen.message, "dmlDeviceCreateOperator"));
    dmlRelease(device);
    dmlSetMessageCallback(NULL, NULL);
}
END_TEST

/* ---- dmlGetVersion -------------------------------------------------------------- */

/* The runtime's versions are the ones its headers and the project declare; the
 * Size rules of a growable struct apply; no plugin is loaded for it. */
START_TEST(version_is_the_headers_and_the_projects)
{
    DML_VERSION_INFO v;
    memset(&v, 0xAB, sizeof v);
    v.Size = sizeof v;
    ck_assert_int_eq(dmlGetVersion(&v), DML_S_OK);
    ck_assert_uint_eq(v.Size, sizeof v);
    ck_assert_uint_eq(v.AbiMajor, DML_ABI_VERSION_MAJOR);
    ck_assert_uint_eq(v.AbiMinor, DML_ABI_VERSION_MINOR);
    ck_assert_uint_eq(v.PluginAbiVersion, DML_PLUGIN_ABI_VERSION);
    char text[DML_RUNTIME_VERSION_SIZE];
    snprintf(text, sizeof text, "%u.%u.%u", v.RuntimeMajor, v.RuntimeMinor, v.RuntimePatch);
    ck_assert_str_eq(v.Runtime, text);
    ck_assert_str_eq(v.Runtime, DML_TEST_PROJECT_VERSION);
    for (size_t i = strlen(v.Runtime); i < sizeof v.Runtime; i++)
        ck_assert_int_eq(v.Runtime[i], 0);

    /* Refused: the message names call, field and rule; nothing written. */
    ck_assert_int_eq(dmlGetVersion(NULL), DML_E_INVALIDARG);
    ck_assert_str_eq(dmlGetLastErrorMessage(), "dmlGetVersion: info is NULL");
    static const uint32_t refused[] = { 0, 56, 62, DML_STRUCT_SIZE_MAX + 4 };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        DML_VERSION_INFO bad, untouched;
        memset(&bad, 0xCD, sizeof bad);
        bad.Size = refused[i];
        untouched = bad;
        ck_assert_int_eq(dmlGetVersion(&bad), DML_E_INVALIDARG);
        ck_assert(memcmp(&bad, &untouched, sizeof bad) == 0);
        char prefix[96];
        snprintf(prefix, sizeof prefix, "dmlGetVersion: info->Size = %u; must be sizeof(DML_VERSION_INFO) = 60",
            refused[i]);
        ck_assert_msg(strncmp(dmlGetLastErrorMessage(), prefix, strlen(prefix)) == 0, "%s",
            dmlGetLastErrorMessage());
    }
    /* A successful call leaves the last message as it was. */
    ck_assert_int_eq(dmlGetVersion(&v), DML_S_OK);
    ck_assert_ptr_nonnull(strstr(dmlGetLastErrorMessage(), "must be sizeof(DML_VERSION_INFO)"));

    /* A newer host's larger struct: the same members, the rest zeroed, its Size kept. */
    _Alignas(4) unsigned char larger[sizeof(DML_VERSION_INFO) + 16];
    memset(larger, 0xAB, sizeof larger);
    uint32_t size = sizeof larger;
    memcpy(larger, &size, sizeof size);
    ck_assert_int_eq(dmlGetVersion((DML_VERSION_INFO*)(void*)larger), DML_S_OK);
    ck_assert(memcmp(larger, &size, sizeof size) == 0);
    ck_assert(memcmp(larger + 4, (unsigned char*)&v + 4, sizeof v - 4) == 0);
    for (size_t i = sizeof v; i < sizeof larger; i++)
        ck_assert_int_eq(larger[i], 0);

    /* Nothing was discovered: a plugin path set now is still the one searched. */
    use_plugin_path(STUB_DIR("good"));
    DMLDevice device = NULL;
    ck_assert_int_eq(create("fakegpu", &device), DML_S_OK);
    dmlRelease(device);
}
END_TEST

/* ---- DMLCalcBufferTensorSize (spec formula, no plugin involved) -------------- */

START_TEST(calc_buffer_tensor_size)
{
    const uint32_t s1134[] = { 1, 1, 3, 4 };
    ck_assert_uint_eq(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_FLOAT32, 4, s1134, NULL), 48);
    const uint32_t s3[] = { 3 };
    ck_assert_uint_eq(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_FLOAT16, 1, s3, NULL), 8); /* 6 -> 8 */
    const uint32_t s5[] = { 5 };
    ck_assert_uint_eq(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_UINT8, 1, s5, NULL), 8);
    /* Broadcast: last index = 1*0 + 2*1 + 3*0 ... */
    const uint32_t s23[] = { 2, 3 }, broadcast[] = { 0, 1 };
    ck_assert_uint_eq(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_FLOAT32, 2, s23, broadcast), 12);
    const uint32_t all_zero[] = { 0, 0 };
    ck_assert_uint_eq(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_FLOAT64, 2, s23, all_zero), 8);
    const uint32_t padded[] = { 8, 1 }; /* last = 1*8 + 2 = 10 -> 11 int16 = 22 -> 24 */
    ck_assert_uint_eq(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_INT16, 2, s23, padded), 24);
    ck_assert_uint_eq(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_INT64, 2, s23, NULL), 48);

    /* Invalid arguments and overflow give 0. */
    const uint32_t huge[] = { UINT32_MAX, UINT32_MAX, UINT32_MAX };
    ck_assert_uint_eq(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_FLOAT64, 3, huge, NULL), 0);
    ck_assert_uint_eq(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_FLOAT64, 3, huge, huge), 0);
    ck_assert_uint_eq(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_FLOAT32, 4, NULL, NULL), 0);
    ck_assert_uint_eq(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_FLOAT32, 0, s1134, NULL), 0);
    ck_assert_uint_eq(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_UNKNOWN, 4, s1134, NULL), 0);
    ck_assert_uint_eq(DMLCalcBufferTensorSize((DML_TENSOR_DATA_TYPE)99, 4, s1134, NULL), 0);
    const uint32_t nine[9] = { 1, 1, 1, 1, 1, 1, 1, 1, 1 };
    ck_assert_uint_eq(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_FLOAT32, 9, nine, NULL), 0);
}
END_TEST

static Suite* dispatcher_suite(void)
{
    Suite* s = suite_create("dispatcher");
    TCase* selection = tcase_create("selection");
    tcase_add_test(selection, default_picks_highest_score);
    tcase_add_test(selection, empty_backend_picks_best_and_ignores_env);
    tcase_add_test(selection, ties_go_to_discovery_order);
    tcase_add_test(selection, named_backend_is_forced);
    tcase_add_test(selection, cpu_is_forced);
    tcase_add_test(selection, env_overrides_null_backend);
    tcase_add_test(selection, env_names_a_stub);
    tcase_add_test(selection, explicit_backend_beats_env);
    tcase_add_test(selection, missing_backend_is_unsupported);
    tcase_add_test(selection, missing_backend_from_env_says_so);
    tcase_add_test(selection, unavailable_backend_gives_probe_reason);
    tcase_add_test(selection, failed_plugin_file_is_named_when_its_backend_is_asked_for);
    tcase_add_test(selection, path_plugins_win_over_builtin);
    tcase_add_test(selection, builtin_cpu_is_shadowed_with_a_reason);
    suite_add_tcase(s, selection);

    TCase* discovery = tcase_create("discovery");
    tcase_add_test(discovery, bad_plugins_are_skipped_with_reasons);
    tcase_add_test(discovery, world_writable_directory_is_refused);
    tcase_add_test(discovery, spare_plugin_loads_from_a_private_directory);
    tcase_add_test(discovery, relative_path_entries_are_ignored);
    tcase_add_test(discovery, directory_named_twice_is_searched_once);
    tcase_add_test(discovery, adapters_best_backend_first);
    tcase_add_test(discovery, adapters_short_array_is_filled_and_ok);
    tcase_add_test(discovery, plugins_count_convention);
    tcase_add_test(discovery, concurrent_first_calls_discover_once);
    suite_add_tcase(s, discovery);

    TCase* handles = tcase_create("handles");
    tcase_add_test(handles, null_handles_are_invalidarg);
    tcase_add_test(handles, dead_and_foreign_handles_are_invalidarg);
    tcase_add_test(handles, wrong_type_is_invalidarg);
    tcase_add_test(handles, missing_entry_is_notimpl);
    suite_add_tcase(s, handles);

    TCase* host = tcase_create("host");
    tcase_add_test(host, last_error_is_set_kept_and_hidden_from_discovery);
    tcase_add_test(host, plugin_errors_go_to_the_shared_thread_local_message);
    tcase_add_test(host, message_callback_receives_plugin_messages);
    tcase_add_test(host, debug_cpu_device_reports_errors_to_the_callback);
    tcase_add_test(host, calc_buffer_tensor_size);
    tcase_add_test(host, version_is_the_headers_and_the_projects);
    suite_add_tcase(s, host);
    return s;
}

int main(void)
{
    SRunner* runner = srunner_create(dispatcher_suite());
    /* Discovery is once per process: each case needs its own child. */
    srunner_set_fork_status(runner, CK_FORK);
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

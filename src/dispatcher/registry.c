/*
 * registry.c — finding, loading and probing the backend plugins, choosing one
 * for dmlCreateDevice, and reporting what was found.
 *
 * Discovery runs once per process, on the first call that needs it. It looks
 * in the absolute directories of DML_PLUGIN_PATH, then in dml/ next to
 * libdml.so, for files named libdml_*.so (sorted by name in each directory).
 * It never searches the current directory or a relative path, and refuses
 * world-writable files and directories: loading a plugin runs its code.
 * The first plugin to provide a backend name wins, so DML_PLUGIN_PATH can
 * replace a built-in plugin. Plugins stay loaded for the life of the process.
 *
 * Everything here is written once under pthread_once and read-only after, so
 * no lock is needed. Records live in static storage (no heap to free at exit);
 * files beyond DMLD_MAX_PLUGINS are ignored.
 */
#include "dispatcher.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/struct_size.h"

#define DMLD_MAX_PLUGINS 128
#define DMLD_MAX_DIRECTORIES 64
#define DMLD_SEARCHED_SIZE 2048

typedef struct dmld_plugin {
    DML_PLUGIN_INFO info;
    const DMLPluginTable* table; /* set when info.Loaded */
} dmld_plugin;

static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static dmld_plugin g_plugins[DMLD_MAX_PLUGINS];
static uint32_t g_plugin_count;
/* Indices of the available plugins, highest Score first, ties in discovery order. */
static uint32_t g_ranked[DMLD_MAX_PLUGINS];
static uint32_t g_ranked_count;
/* The directories searched, colon-separated, for error messages. */
static char g_searched[DMLD_SEARCHED_SIZE];

/* ---- Recording ---------------------------------------------------------- */

static dmld_plugin* new_record(const char* path)
{
    if (g_plugin_count == DMLD_MAX_PLUGINS)
        return NULL;
    dmld_plugin* p = &g_plugins[g_plugin_count++];
    /* Only for display (loading uses the full path): keep the end, which names the file. */
    size_t length = strlen(path), room = sizeof p->info.Path - 1;
    memcpy(p->info.Path, length > room ? path + (length - room) : path, (length > room ? room : length) + 1);
    if (length > room)
        memcpy(p->info.Path, "...", 3);
    return p;
}

static void vset_reason(dmld_plugin* p, const char* format, va_list args)
{
    vsnprintf(p->info.Reason, sizeof p->info.Reason, format, args);
}

static void set_reason(dmld_plugin* p, const char* format, ...) DMLD_PRINTF(2, 3);
static void set_reason(dmld_plugin* p, const char* format, ...)
{
    va_list args;
    va_start(args, format);
    vset_reason(p, format, args);
    va_end(args);
}

/* A path that could not even be examined (a directory, or an entry of DML_PLUGIN_PATH). */
static void record_rejected(const char* path, const char* format, ...) DMLD_PRINTF(2, 3);
static void record_rejected(const char* path, const char* format, ...)
{
    dmld_plugin* p = new_record(path);
    if (!p)
        return;
    va_list args;
    va_start(args, format);
    vset_reason(p, format, args);
    va_end(args);
}

static const dmld_plugin* find_loaded(const char* backend)
{
    for (uint32_t i = 0; i < g_plugin_count; i++) {
        if (g_plugins[i].info.Loaded && strcmp(g_plugins[i].info.Backend, backend) == 0)
            return &g_plugins[i];
    }
    return NULL;
}

/* ---- Loading one plugin file ------------------------------------------- */

/* Validates the table a plugin returned; NULL if fine, else why not. */
static const char* table_problem(const DMLPluginTable* t, char* buffer, size_t size)
{
    if (!t)
        return "dmlPluginGetTable returned NULL (the plugin cannot serve this plugin ABI version)";
    if (t->AbiVersion != DML_PLUGIN_ABI_VERSION) {
        snprintf(buffer, size, "plugin ABI version %u, this dispatcher needs %u", t->AbiVersion,
            DML_PLUGIN_ABI_VERSION);
        return buffer;
    }
    if (t->StructSize < DML_PLUGIN_TABLE_MIN_SIZE) {
        snprintf(buffer, size, "plugin table is %u bytes, ABI version %u needs at least %zu", t->StructSize,
            DML_PLUGIN_ABI_VERSION, (size_t)DML_PLUGIN_TABLE_MIN_SIZE);
        return buffer;
    }
    if (!t->Backend || !t->Backend[0])
        return "plugin table names no backend";
    if (strlen(t->Backend) >= DML_BACKEND_NAME_SIZE)
        return "plugin backend name is too long";
    /* Entries the dispatcher calls before any object exists. The others are
     * checked when called, so a partial plugin still works for what it has. */
    if (!t->Probe || !t->GetAdapterInfo || !t->CreateDevice || !t->AddRef || !t->Release)
        return "plugin table lacks one of Probe, GetAdapterInfo, CreateDevice, AddRef, Release";
    return NULL;
}

static void probe(dmld_plugin* p)
{
    DML_PLUGIN_PROBE result;
    memset(&result, 0, sizeof result);
    DML_RESULT r = p->table->Probe(&result);
    result.Reason[sizeof result.Reason - 1] = '\0';

    p->info.Available = DML_SUCCEEDED(r) && result.Available;
    p->info.AdapterCount = result.AdapterCount;
    p->info.Score = result.Score;
    if (DML_FAILED(r)) {
        char saved[DML_PLUGIN_REASON_SIZE];
        dmld_save_error(saved, sizeof saved);
        set_reason(p, "probe failed (0x%08X): %s", (unsigned)r, result.Reason[0] ? result.Reason : saved);
    } else if (!result.Available) {
        set_reason(p, "%s", result.Reason[0] ? result.Reason : "the probe found no usable hardware");
    } else if (result.AdapterCount == 0) {
        p->info.Available = 0;
        set_reason(p, "the probe reported the backend available but with no adapters");
    }
}

/* Records one file: loaded and probed, or the reason it was skipped. */
static void examine_file(const char* path)
{
    dmld_plugin* p = new_record(path);
    if (!p)
        return;

    struct stat st;
    if (stat(path, &st) != 0) {
        set_reason(p, "cannot stat: %s", strerror(errno));
        return;
    }
    if (!S_ISREG(st.st_mode)) {
        set_reason(p, "not a regular file");
        return;
    }
    if (st.st_mode & S_IWOTH) {
        set_reason(p, "refused: the file is world-writable");
        return;
    }

    void* handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char* error = dlerror();
        set_reason(p, "cannot load: %s", error ? error : "unknown dlopen error");
        return;
    }
    PFN_dmlPluginGetTable get_table = (PFN_dmlPluginGetTable)dlsym(handle, DML_PLUGIN_ENTRY_POINT);
    if (!get_table) {
        dlclose(handle); /* none of its code has run: safe to unload */
        set_reason(p, "no entry point %s", DML_PLUGIN_ENTRY_POINT);
        return;
    }

    /* From here the plugin's code has run (it may have started threads or
     * registered handlers), so it stays loaded whatever happens. */
    const DMLPluginTable* table = get_table(DML_PLUGIN_ABI_VERSION, dmld_host_services());
    char buffer[DML_PLUGIN_REASON_SIZE];
    const char* problem = table_problem(table, buffer, sizeof buffer);
    if (problem) {
        set_reason(p, "%s", problem);
        return;
    }
    snprintf(p->info.Backend, sizeof p->info.Backend, "%s", table->Backend);
    const dmld_plugin* earlier = find_loaded(table->Backend);
    if (earlier) {
        set_reason(p, "backend '%s' is already provided by %s", table->Backend, earlier->info.Path);
        return;
    }

    p->table = table;
    p->info.Loaded = 1;
    probe(p);
}

/* ---- Directories -------------------------------------------------------- */

static int is_plugin_name(const struct dirent* entry)
{
    return fnmatch("libdml_*.so", entry->d_name, 0) == 0;
}

static void append_searched(const char* directory)
{
    size_t used = strlen(g_searched);
    snprintf(g_searched + used, sizeof g_searched - used, "%s%s", used ? ":" : "", directory);
}

/* Loads from the canonical path, so what was checked is what gets loaded,
 * whatever symlinks the named directory went through. */
static void scan_files(const char* directory, const char* canonical)
{
    struct stat st;
    if (stat(canonical, &st) != 0 || !S_ISDIR(st.st_mode)) {
        record_rejected(directory, "not a directory");
        return;
    }
    if (st.st_mode & S_IWOTH) {
        record_rejected(directory, "refused: the plugin directory is world-writable");
        return;
    }
    struct dirent** names = NULL;
    int n = scandir(canonical, &names, is_plugin_name, alphasort);
    if (n < 0) {
        record_rejected(directory, "cannot read plugin directory: %s", strerror(errno));
        return;
    }
    for (int i = 0; i < n; i++) {
        char path[PATH_MAX];
        int length = snprintf(path, sizeof path, "%s/%s", canonical, names[i]->d_name);
        if (length > 0 && (size_t)length < sizeof path)
            examine_file(path);
        free(names[i]);
    }
    free(names);
}

/* seen: canonical paths already searched, so a directory named twice (or
 * both in DML_PLUGIN_PATH and as the built-in one) is searched once. */
static void scan_directory(const char* directory, char** seen, uint32_t* seen_count)
{
    char* canonical = realpath(directory, NULL);
    if (!canonical) {
        append_searched(directory);
        record_rejected(directory, "cannot open plugin directory: %s", strerror(errno));
        return;
    }
    for (uint32_t i = 0; i < *seen_count; i++) {
        if (strcmp(seen[i], canonical) == 0) {
            free(canonical);
            return;
        }
    }
    append_searched(directory);
    scan_files(directory, canonical);
    if (*seen_count < DMLD_MAX_DIRECTORIES)
        seen[(*seen_count)++] = canonical; /* freed by discover() */
    else
        free(canonical);
}

/* dml/ in the directory that holds libdml.so itself, so an installed tree
 * keeps working when moved. dladdr may report the path the library was
 * loaded under, which can be relative: resolve it. */
static bool builtin_directory(char* out, size_t size)
{
    Dl_info info;
    if (!dladdr(&g_once, &info) || !info.dli_fname)
        return false;
    char* library = realpath(info.dli_fname, NULL);
    if (!library)
        return false;
    char* slash = strrchr(library, '/');
    if (slash)
        *slash = '\0';
    int length = snprintf(out, size, "%s/dml", library);
    free(library);
    return length > 0 && (size_t)length < size;
}

static void rank_available(void)
{
    for (uint32_t i = 0; i < g_plugin_count; i++) {
        if (!g_plugins[i].info.Available)
            continue;
        /* Insertion keeping discovery order among equal scores. */
        uint32_t at = g_ranked_count++;
        while (at > 0 && g_plugins[g_ranked[at - 1]].info.Score < g_plugins[i].info.Score) {
            g_ranked[at] = g_ranked[at - 1];
            at--;
        }
        g_ranked[at] = i;
    }
}

static void discover(void)
{
    /* Discovery happens inside whatever call came first; that call must not
     * see the messages plugins set while being probed. */
    char saved[1024];
    dmld_save_error(saved, sizeof saved);

    char* seen[DMLD_MAX_DIRECTORIES];
    uint32_t seen_count = 0;

    /* secure_getenv: a setuid host must not load plugins named by its caller. */
    const char* env = secure_getenv("DML_PLUGIN_PATH");
    char* list = env ? strdup(env) : NULL;
    if (list) {
        char* cursor = NULL;
        for (char* entry = strtok_r(list, ":", &cursor); entry; entry = strtok_r(NULL, ":", &cursor)) {
            if (entry[0] == '/')
                scan_directory(entry, seen, &seen_count);
            else
                record_rejected(entry, "ignored: DML_PLUGIN_PATH entries must be absolute directories");
        }
        free(list);
    }

    char builtin[PATH_MAX];
    if (builtin_directory(builtin, sizeof builtin))
        scan_directory(builtin, seen, &seen_count);
    else
        record_rejected("(dml/ next to libdml.so)", "cannot locate libdml.so to find its plugin directory");

    for (uint32_t i = 0; i < seen_count; i++)
        free(seen[i]);
    rank_available();
    dmld_restore_error(saved);
}

static void ensure_discovered(void)
{
    pthread_once(&g_once, discover);
}

/* ---- Public entry points ------------------------------------------------ */

/* "name: reason; ..." of the plugins not available, for "nothing available". */
static void describe_unavailable(char* out, size_t size)
{
    size_t used = 0;
    out[0] = '\0';
    for (uint32_t i = 0; i < g_plugin_count && used < size; i++) {
        const DML_PLUGIN_INFO* info = &g_plugins[i].info;
        int n = snprintf(out + used, size - used, "%s%s: %s", used ? "; " : "",
            info->Backend[0] ? info->Backend : info->Path, info->Reason);
        if (n < 0)
            break;
        used += (size_t)n;
    }
}

/* Why a named backend was not found: maybe its file exists but failed to load. */
static const dmld_plugin* find_failed_file(const char* backend)
{
    char name[DML_BACKEND_NAME_SIZE + 16];
    snprintf(name, sizeof name, "libdml_%s.so", backend);
    for (uint32_t i = 0; i < g_plugin_count; i++) {
        const char* slash = strrchr(g_plugins[i].info.Path, '/');
        if (!g_plugins[i].info.Loaded && slash && strcmp(slash + 1, name) == 0)
            return &g_plugins[i];
    }
    return NULL;
}

/* The entries [0, n) of a host's array of growable structs (n > 0): entry 0's
 * Size valid, every other entry's the same, which is the array's stride. */
static DML_RESULT check_array_sizes(const char* call, const char* array, const void* entries, uint32_t n,
    dml_struct_layout layout, uint32_t* stride)
{
    char what[32], problem[512];
    snprintf(what, sizeof what, "%s[0].", array);
    uint32_t size = dml_struct_size_of(entries);
    if (dml_struct_size_problem(size, layout, what, problem, sizeof problem))
        return dmld_error(DML_E_INVALIDARG, "%s: %s", call, problem);
    for (uint32_t i = 1; i < n; i++) {
        uint32_t other = dml_struct_size_of((const unsigned char*)entries + (size_t)i * size);
        if (other != size)
            return dmld_error(DML_E_INVALIDARG,
                "%s: %s[%u].Size = %u; must equal %s[0].Size = %u (each entry to be written has its Size set, "
                "the same in all: it is the array's stride)",
                call, array, i, other, array, size);
    }
    *stride = size;
    return DML_S_OK;
}

DML_API DML_RESULT dmlCreateDevice(const DML_DEVICE_DESC* host_desc, DMLDevice* device)
{
    if (!host_desc)
        return dmld_error(DML_E_INVALIDARG, "dmlCreateDevice: desc is NULL");
    if (!device)
        return dmld_error(DML_E_INVALIDARG, "dmlCreateDevice: device (the out-parameter) is NULL");
    /* Checked here, before its Backend is read; the plugin gets the host's
     * desc as it is and applies the same rules (dml_plugin.h). */
    char problem[512];
    if (dml_struct_size_problem(host_desc->Size, DML_DEVICE_DESC_LAYOUT, "desc->", problem, sizeof problem) ||
        dml_struct_tail_problem(host_desc, DML_DEVICE_DESC_LAYOUT, "desc->", problem, sizeof problem))
        return dmld_error(DML_E_INVALIDARG, "dmlCreateDevice: %s", problem);
    DML_DEVICE_DESC desc;
    dml_struct_read(&desc, host_desc, DML_DEVICE_DESC_LAYOUT);
    ensure_discovered();

    const char* backend = desc.Backend;
    const char* source = "DML_DEVICE_DESC.Backend";
    if (!backend) {
        backend = secure_getenv("DML_BACKEND");
        source = "the environment variable DML_BACKEND";
    }

    const dmld_plugin* chosen;
    if (!backend || !backend[0]) {
        if (g_ranked_count == 0) {
            char why[1024];
            describe_unavailable(why, sizeof why);
            return dmld_error(DML_E_UNSUPPORTED, "dmlCreateDevice: no backend is available (searched %s)%s%s",
                g_searched[0] ? g_searched : "no directory", why[0] ? ": " : "", why);
        }
        chosen = &g_plugins[g_ranked[0]];
    } else {
        chosen = find_loaded(backend);
        if (!chosen) {
            const dmld_plugin* failed = find_failed_file(backend);
            return dmld_error(DML_E_UNSUPPORTED, "dmlCreateDevice: backend '%s' (from %s) not found; searched %s%s%s%s%s",
                backend, source, g_searched[0] ? g_searched : "no directory", failed ? "; " : "",
                failed ? failed->info.Path : "", failed ? ": " : "", failed ? failed->info.Reason : "");
        }
        if (!chosen->info.Available)
            return dmld_error(DML_E_UNSUPPORTED, "dmlCreateDevice: backend '%s' (from %s) is unavailable: %s",
                backend, source, chosen->info.Reason);
    }
    return chosen->table->CreateDevice(host_desc, device);
}

/* Adapters of every available backend, best backend first. If *count is
 * smaller than the total, the first *count are written and DML_S_OK returned
 * (call with adapters NULL to learn the total). The entries to be written
 * carry their Size (dml.h's growable structs), the array's stride. */
DML_API DML_RESULT dmlEnumerateAdapters(uint32_t* count, DML_ADAPTER_INFO* adapters)
{
    if (!count)
        return dmld_error(DML_E_INVALIDARG, "dmlEnumerateAdapters: count is NULL");
    ensure_discovered();

    uint64_t total = 0;
    for (uint32_t r = 0; r < g_ranked_count; r++)
        total += g_plugins[g_ranked[r]].info.AdapterCount;
    if (total > UINT32_MAX)
        total = UINT32_MAX;
    if (!adapters) {
        *count = (uint32_t)total;
        return DML_S_OK;
    }

    uint32_t wanted = *count < total ? *count : (uint32_t)total;
    uint32_t stride = 0;
    if (wanted) {
        DML_RESULT checked =
            check_array_sizes("dmlEnumerateAdapters", "adapters", adapters, wanted, DML_ADAPTER_INFO_LAYOUT, &stride);
        if (DML_FAILED(checked))
            return checked;
    }
    /* Fill a copy first: a failing plugin must leave the caller's array untouched. */
    DML_ADAPTER_INFO* filled = wanted ? calloc(wanted, sizeof *filled) : NULL;
    if (wanted && !filled)
        return dmld_error(DML_E_OUTOFMEMORY, "dmlEnumerateAdapters: out of host memory");
    uint32_t n = 0;
    for (uint32_t r = 0; r < g_ranked_count && n < wanted; r++) {
        const dmld_plugin* p = &g_plugins[g_ranked[r]];
        for (uint32_t a = 0; a < p->info.AdapterCount && n < wanted; a++, n++) {
            filled[n].Size = sizeof filled[n]; /* the plugin writes by the Size rules */
            DML_RESULT result = p->table->GetAdapterInfo(a, &filled[n]);
            if (DML_FAILED(result)) {
                free(filled);
                return result;
            }
            /* The dispatcher's view wins: the name it selects by, the index within it. */
            snprintf(filled[n].Backend, sizeof filled[n].Backend, "%s", p->info.Backend);
            filled[n].AdapterIndex = a;
            filled[n].Description[sizeof filled[n].Description - 1] = '\0';
        }
    }
    for (uint32_t i = 0; i < n; i++)
        dml_struct_write((unsigned char*)adapters + (size_t)i * stride, &filled[i], DML_ADAPTER_INFO_LAYOUT);
    free(filled);
    *count = n;
    return DML_S_OK;
}

/* Every file (and rejected directory) examined, in discovery order; same
 * count convention as dmlEnumerateAdapters. */
DML_API DML_RESULT dmlEnumeratePlugins(uint32_t* count, DML_PLUGIN_INFO* plugins)
{
    if (!count)
        return dmld_error(DML_E_INVALIDARG, "dmlEnumeratePlugins: count is NULL");
    ensure_discovered();
    if (!plugins) {
        *count = g_plugin_count;
        return DML_S_OK;
    }
    uint32_t n = *count < g_plugin_count ? *count : g_plugin_count;
    uint32_t stride = 0;
    if (n) {
        DML_RESULT checked =
            check_array_sizes("dmlEnumeratePlugins", "plugins", plugins, n, DML_PLUGIN_INFO_LAYOUT, &stride);
        if (DML_FAILED(checked))
            return checked;
    }
    for (uint32_t i = 0; i < n; i++)
        dml_struct_write((unsigned char*)plugins + (size_t)i * stride, &g_plugins[i].info, DML_PLUGIN_INFO_LAYOUT);
    *count = n;
    return DML_S_OK;
}

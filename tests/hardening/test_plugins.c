/*
 * test_plugins.c — plugin-loading cases that tests/dispatcher does not cover:
 * a failing probe (and one with no adapters, a too-long name, no Probe entry)
 * does not stop the other plugins; a symlink to a world-writable plugin file,
 * a symlink to a world-writable directory, a directory named like a plugin,
 * an empty file and a truncated ELF are all refused with a reason.
 * Discovery runs once per process: every case runs in its own forked child
 * and sets DML_PLUGIN_PATH before its first call.
 *
 * Not tested here: that DML_PLUGIN_PATH / DML_BACKEND are ignored in setuid
 * and setgid processes (secure_getenv). That needs a setuid binary run by
 * another user; see SECURITY.md.
 */
#include <check.h>
#include <dml/dml_plugin.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PROBE_DIR DML_HARDENING_PLUGINS "/probe"

static DML_PLUGIN_INFO find_plugin(const char* suffix)
{
    uint32_t count = 0;
    ck_assert_int_eq(dmlEnumeratePlugins(&count, NULL), DML_S_OK);
    DML_PLUGIN_INFO* all = calloc(count + 1, sizeof *all);
    for (uint32_t i = 0; i <= count; i++)
        all[i].Size = sizeof all[i];
    ck_assert_int_eq(dmlEnumeratePlugins(&count, all), DML_S_OK);
    DML_PLUGIN_INFO found;
    memset(&found, 0, sizeof found);
    int ok = 0;
    for (uint32_t i = 0; i < count && !ok; i++) {
        size_t n = strlen(all[i].Path), m = strlen(suffix);
        if (n >= m && strcmp(all[i].Path + n - m, suffix) == 0) {
            found = all[i];
            ok = 1;
        }
    }
    free(all);
    ck_assert_msg(ok, "no plugin record ends with %s", suffix);
    return found;
}

static DML_RESULT create(const char* backend, DMLDevice* device)
{
    DML_DEVICE_DESC desc = { sizeof(DML_DEVICE_DESC), backend, 0, DML_CREATE_DEVICE_FLAG_NONE, DML_FEATURE_LEVEL_5_0 };
    return dmlCreateDevice(&desc, device);
}

static void use_path(const char* path)
{
    setenv("DML_PLUGIN_PATH", path, 1);
    unsetenv("DML_BACKEND");
}

START_TEST(failing_probe_does_not_stop_the_others)
{
    use_path(PROBE_DIR);
    DML_PLUGIN_INFO fail = find_plugin("/libdml_aprobefail.so");
    ck_assert(fail.Loaded);
    ck_assert(!fail.Available);
    ck_assert_msg(strstr(fail.Reason, "probe failed") && strstr(fail.Reason, "crashed into a wall"), "%s",
        fail.Reason);
    DML_PLUGIN_INFO zero = find_plugin("/libdml_bzero.so");
    ck_assert(zero.Loaded && !zero.Available);
    ck_assert_ptr_nonnull(strstr(zero.Reason, "no adapters"));
    DML_PLUGIN_INFO longname = find_plugin("/libdml_clong.so");
    ck_assert(!longname.Loaded);
    ck_assert_ptr_nonnull(strstr(longname.Reason, "too long"));
    DML_PLUGIN_INFO noprobe = find_plugin("/libdml_dnoprobe.so");
    ck_assert(!noprobe.Loaded);
    ck_assert_ptr_nonnull(strstr(noprobe.Reason, "lacks"));
    DML_PLUGIN_INFO good = find_plugin("/libdml_hgood.so");
    ck_assert(good.Loaded && good.Available);

    DMLDevice device = NULL;
    ck_assert_int_eq(create("hgood", &device), DML_S_OK);
    dmlRelease(device);
    device = NULL;
    /* The huge scores of the failing ones do not make them the default. */
    ck_assert_int_eq(create(NULL, &device), DML_S_OK);
    ck_assert_str_eq(((DMLObjectHeader*)device)->Dispatch->Backend, "cpu");
    dmlRelease(device);
    device = NULL;
    ck_assert_int_eq(create("aprobefail", &device), DML_E_UNSUPPORTED);
    ck_assert_ptr_null(device);
    ck_assert_ptr_nonnull(strstr(dmlGetLastErrorMessage(), "crashed into a wall"));
    ck_assert_int_eq(create("bzero", &device), DML_E_UNSUPPORTED);
    /* Adapters list only what is available. */
    DML_ADAPTER_INFO adapters[16];
    for (int i = 0; i < 16; i++)
        adapters[i].Size = sizeof adapters[i];
    uint32_t count = 16, hgood = 0;
    ck_assert_int_eq(dmlEnumerateAdapters(&count, adapters), DML_S_OK);
    for (uint32_t i = 0; i < count; i++) {
        ck_assert_str_ne(adapters[i].Backend, "aprobefail");
        ck_assert_str_ne(adapters[i].Backend, "bzero");
        hgood += strcmp(adapters[i].Backend, "hgood") == 0;
    }
    ck_assert_uint_eq(hgood, 1);
}
END_TEST

/* A fresh private directory under the build tree. */
static void scratch(char* dir)
{
    snprintf(dir, PATH_MAX, "%s/scratch.XXXXXX", DML_HARDENING_PLUGINS);
    ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void copy_file(const char* from, const char* to, size_t limit)
{
    FILE* in = fopen(from, "rb");
    FILE* out = fopen(to, "wb");
    ck_assert_ptr_nonnull(in);
    ck_assert_ptr_nonnull(out);
    char buffer[4096];
    size_t n, total = 0;
    while (total < limit && (n = fread(buffer, 1, sizeof buffer, in)) > 0) {
        if (n > limit - total)
            n = limit - total;
        ck_assert_uint_eq(fwrite(buffer, 1, n, out), n);
        total += n;
    }
    fclose(in);
    fclose(out);
}

START_TEST(symlinks_to_world_writable_targets_are_refused)
{
    char safe[PATH_MAX], open_dir[PATH_MAX], path[PATH_MAX + 64], target[PATH_MAX + 64];
    scratch(safe);
    scratch(open_dir);
    /* safe/libdml_wwlink.so -> open_dir/libdml_wwtarget.so (mode 0777) */
    snprintf(target, sizeof target, "%s/libdml_hgood.so", open_dir);
    copy_file(PROBE_DIR "/libdml_hgood.so", target, SIZE_MAX);
    ck_assert_int_eq(chmod(target, 0777), 0);
    snprintf(path, sizeof path, "%s/libdml_wwlink.so", safe);
    ck_assert_int_eq(symlink(target, path), 0);
    /* safe/linkdir -> open_dir, made world-writable */
    char linkdir[PATH_MAX + 64];
    snprintf(linkdir, sizeof linkdir, "%s/linkdir", safe);
    ck_assert_int_eq(symlink(open_dir, linkdir), 0);
    ck_assert_int_eq(chmod(open_dir, 0777), 0);
    char list[3 * PATH_MAX];
    snprintf(list, sizeof list, "%s:%s", safe, linkdir);
    use_path(list);
    DML_PLUGIN_INFO file = find_plugin("/libdml_wwlink.so");
    DML_PLUGIN_INFO dir = find_plugin("/linkdir");
    unlink(path);
    unlink(linkdir);
    unlink(target);
    rmdir(safe);
    rmdir(open_dir);
    ck_assert(!file.Loaded);
    ck_assert_msg(strstr(file.Reason, "world-writable") != NULL, "%s", file.Reason);
    ck_assert(!dir.Loaded);
    ck_assert_msg(strstr(dir.Reason, "world-writable") != NULL, "%s", dir.Reason);
    DMLDevice device = NULL;
    ck_assert_int_eq(create("hgood", &device), DML_E_UNSUPPORTED);
}
END_TEST

START_TEST(odd_files_are_refused_with_a_reason)
{
    char dir[PATH_MAX], a[PATH_MAX + 64], b[PATH_MAX + 64], c[PATH_MAX + 64];
    scratch(dir);
    snprintf(a, sizeof a, "%s/libdml_adir.so", dir);
    ck_assert_int_eq(mkdir(a, 0755), 0);
    snprintf(b, sizeof b, "%s/libdml_bempty.so", dir);
    copy_file(PROBE_DIR "/libdml_hgood.so", b, 0);
    snprintf(c, sizeof c, "%s/libdml_ctruncated.so", dir);
    copy_file(PROBE_DIR "/libdml_hgood.so", c, 200); /* an ELF header and nothing else */
    use_path(dir);
    DML_PLUGIN_INFO ia = find_plugin("/libdml_adir.so");
    DML_PLUGIN_INFO ib = find_plugin("/libdml_bempty.so");
    DML_PLUGIN_INFO ic = find_plugin("/libdml_ctruncated.so");
    rmdir(a);
    unlink(b);
    unlink(c);
    rmdir(dir);
    ck_assert(!ia.Loaded && !ib.Loaded && !ic.Loaded);
    ck_assert_msg(strstr(ia.Reason, "not a regular file") != NULL, "%s", ia.Reason);
    ck_assert_msg(strstr(ib.Reason, "cannot load") != NULL, "%s", ib.Reason);
    ck_assert_msg(strstr(ic.Reason, "cannot load") != NULL, "%s", ic.Reason);
    DMLDevice device = NULL;
    ck_assert_int_eq(create("cpu", &device), DML_S_OK); /* the built-in one still loads */
    dmlRelease(device);
}
END_TEST

int main(void)
{
    Suite* s = suite_create("plugins");
    TCase* tc = tcase_create("plugins");
    tcase_add_test(tc, failing_probe_does_not_stop_the_others);
    tcase_add_test(tc, symlinks_to_world_writable_targets_are_refused);
    tcase_add_test(tc, odd_files_are_refused_with_a_reason);
    suite_add_tcase(s, tc);
    SRunner* sr = srunner_create(s);
    srunner_set_fork_status(sr, CK_FORK); /* discovery is once per process */
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}

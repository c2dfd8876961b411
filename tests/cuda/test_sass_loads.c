/*
 * Loads in flight, shown from the compiled code: the SASS of every gather
 * kernel (cuobjdump -sass on cuda/kernels.cu's object, every architecture it
 * holds), where the global loads (LDG) of a kernel's main loop that come
 * before its first global store (STG) must reach the floor of its path,
 * dml_loads_in_flight_floor (gather_thread.h), which test_coalescing.c
 * asserts in the emulator too: 16-byte loads (LDG.E.128) for the vector
 * paths, loads of any width for the scalar ones, an element per item (4) and
 * with REVERSE_SUBSEQUENCES its sequence length (8); the tiled kernels load
 * their 4 tile rows before the barrier.
 *
 * The main loop is the grid-stride loop: it begins at the lowest target of a
 * backward branch after the first store (the loop's back edge), so loads of
 * the prologue are not counted. The count is static: the load instructions
 * laid out between the loop's head and its first store. Code the compiler
 * moved out of line (the rare paths: partial vectors at a row's ends,
 * misaligned halves it placed after the loop) is not counted, so the count is
 * a lower bound of what the common path has in flight; a store moved between
 * two loads ends it at the first (the kernels before the loads-in-flight
 * work had no 16-byte load before their first store: an edge element's).
 *
 * The per-element kernels (CAST: cast.cu, PAD: pad.cu) have no loads in
 * flight to count: each thread loads one element and stores one per pass
 * (PAD's row kernels, pad_rows_thread.h, an element of each of 4 windows
 * before storing 4), and a warp's consecutive lanes take consecutive
 * elements (coalescing is the emulator's to measure: dmlcoalesce). What their SASS can show is checked instead
 * (per_element_kernels_access_one_element): every kernel the launcher can
 * pick is in the object (121 CAST pairs, 2 PAD index widths x 2 paths, per
 * architecture); no local memory (LDL/STL: a spill, or an array the
 * compiler could not keep in registers, such as PAD's fill value copied by
 * its runtime size); no generic LD/ST (a pointer the compiler lost track
 * of); and no global access wider than an element: a CAST kernel's
 * stores exactly as wide as its output type (not split into bytes), its
 * loads at most as wide as its input type (never a vector reaching past the
 * element; narrower where a conversion keeps only the low bytes: INT64 to
 * INT8 loads 2 of the 8), PAD's of 1, 2, 4 or 8 bytes; PAD's row kernels
 * (pad_rows_thread.h) exchange the windows they load by warp shuffles
 * (SHFL), the flat ones have none. ptxas's spill
 * report (cuda_ptxas_no_spills) covers only kernels.cu.
 *
 * Environment: DML_CUOBJDUMP (cuobjdump; nvdisasm on PATH),
 * DML_KERNELS_OBJECT (kernels.cu's object), DML_CAST_OBJECT,
 * DML_PAD_OBJECT, DML_GROUP_OBJECT, DML_INDEXED_OBJECT, set by tests/cuda/CMakeLists.txt.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DML_CUDA_EMULATION 1 /* as the emulator compiles it (see test_divisor.c) */
#include "gather_thread.h"
#include "group_kernel.h"
#include "kernels.h"

enum { OTHER, LOAD, LOAD128, STORE, BRANCH, LOCAL, GENERIC, SHUFFLE };

typedef struct instruction {
    unsigned long address, target;
    int kind;
    int bytes; /* LOAD, LOAD128, STORE: the access's width */
} instruction;

typedef struct function {
    char arch[16];
    char name[256];
    instruction* code;
    size_t count, capacity;
} function;

static function* functions;
static size_t function_count, function_capacity;

static void add_instruction(function* f, unsigned long address, int kind, unsigned long target, int bytes)
{
    if (f->count == f->capacity) {
        f->capacity = f->capacity ? 2 * f->capacity : 1024;
        f->code = realloc(f->code, f->capacity * sizeof *f->code);
        ck_assert_ptr_nonnull(f->code);
    }
    f->code[f->count++] = (instruction) { address, target, kind, bytes };
}

/* The width of a memory instruction from its opcode's modifiers
 * (LDG.E.U8, STG.E.64, LDG.E.128.CONSTANT; none: 4 bytes). */
static int access_bytes(const char* opcode)
{
    if (strstr(opcode, ".128"))
        return 16;
    if (strstr(opcode, ".64"))
        return 8;
    if (strstr(opcode, ".U16") || strstr(opcode, ".S16"))
        return 2;
    if (strstr(opcode, ".U8") || strstr(opcode, ".S8"))
        return 1;
    return 4;
}

static int starts_with_opcode(const char* op, const char* name)
{
    const size_t n = strlen(name);
    return !strncmp(op, name, n) && (op[n] == '.' || op[n] == ' ');
}

/* One line of cuobjdump's listing: the address between comment marks, an
 * optional predicate (@P0, @!P0), the opcode with its modifiers
 * (LDG.E.128.CONSTANT), operands (a branch's target in hex). */
static void parse_instruction(function* f, const char* line)
{
    const char* open = strstr(line, "/*");
    if (!open)
        return;
    char* end;
    unsigned long address = strtoul(open + 2, &end, 16);
    if (end == open + 2 || strncmp(end, "*/", 2) != 0)
        return;
    const char* op = end + 2;
    while (*op == ' ' || *op == '\t')
        op++;
    if (*op == '@') /* predicate */
        while (*op && *op != ' ')
            op++;
    while (*op == ' ')
        op++;
    int kind = OTHER;
    unsigned long target = 0;
    char opcode[64];
    snprintf(opcode, sizeof opcode, "%s", op);
    opcode[strcspn(opcode, " ")] = 0;
    if (starts_with_opcode(op, "LDG")) {
        kind = strstr(opcode, ".128") ? LOAD128 : LOAD;
    } else if (starts_with_opcode(op, "STG")) {
        kind = STORE;
    } else if (starts_with_opcode(op, "SHFL")) {
        kind = SHUFFLE;
    } else if (starts_with_opcode(op, "LDL") || starts_with_opcode(op, "STL")) {
        kind = LOCAL;
    } else if (starts_with_opcode(op, "LD") || starts_with_opcode(op, "ST")) {
        kind = GENERIC;
    } else if (!strncmp(op, "BRA ", 4) || !strncmp(op, "BRA.", 4)) {
        const char* hex = strstr(op, "0x");
        if (hex) {
            kind = BRANCH;
            target = strtoul(hex, NULL, 16);
        }
    }
    if (kind != OTHER)
        add_instruction(f, address, kind, target, access_bytes(opcode));
}

static void forget_functions(void)
{
    for (size_t i = 0; i < function_count; i++)
        free(functions[i].code);
    free(functions);
    functions = NULL;
    function_count = function_capacity = 0;
}

/* Reads the SASS of every kernel of the object named by the environment
 * variable object_variable, per architecture. */
static void disassemble(const char* object_variable)
{
    forget_functions();
    const char* cuobjdump = getenv("DML_CUOBJDUMP");
    const char* object = getenv(object_variable);
    ck_assert_msg(cuobjdump && *cuobjdump && object && *object, "DML_CUOBJDUMP and %s must be set", object_variable);
    char command[4096];
    snprintf(command, sizeof command, "'%s' -sass '%s'", cuobjdump, object);
    FILE* pipe = popen(command, "r");
    ck_assert_msg(pipe != NULL, "cannot run %s", command);
    char line[4096], arch[16] = "";
    function* f = NULL;
    while (fgets(line, sizeof line, pipe)) {
        const char* at;
        if ((at = strstr(line, "arch = ")) != NULL) {
            snprintf(arch, sizeof arch, "%s", at + 7);
            arch[strcspn(arch, " \r\n")] = 0;
        } else if ((at = strstr(line, "Function : ")) != NULL) {
            if (function_count == function_capacity) {
                function_capacity = function_capacity ? 2 * function_capacity : 256;
                functions = realloc(functions, function_capacity * sizeof *functions);
                ck_assert_ptr_nonnull(functions);
            }
            f = &functions[function_count++];
            memset(f, 0, sizeof *f);
            snprintf(f->arch, sizeof f->arch, "%s", arch);
            snprintf(f->name, sizeof f->name, "%s", at + 11);
            f->name[strcspn(f->name, " \r\n")] = 0;
        } else if (f) {
            parse_instruction(f, line);
        }
    }
    int status = pclose(pipe);
    ck_assert_msg(status == 0, "%s failed (status %d)", command, status);
    ck_assert_msg(function_count > 0, "%s: no kernels", command);
}

/* Template arguments of a kernel's mangled name, e.g.
 * _Z17dml_gather_kernelILi8ELi1ELi0ELi2ELin1EEv17dml_gather_params -> 8 1 0 2 -1
 * (Lj: unsigned).
 * Returns how many. */
static int template_arguments(const char* name, int* values, int most)
{
    int n = 0;
    for (const char* at = strchr(name, 'L'); at && n < most; at = strchr(at, 'L')) {
        if (at[1] != 'i' && at[1] != 'j') { /* int or unsigned int */
            at++;
            continue;
        }
        at += 2;
        int negative = *at == 'n';
        char* end;
        long v = strtol(at + negative, &end, 10);
        if (end == at + negative || *end != 'E')
            continue;
        values[n++] = (int)(negative ? -v : v);
        at = end;
    }
    return n;
}

typedef struct loop_loads {
    size_t loads, loads128;
    int has_store;
} loop_loads;

/* Loads of the main loop before its first store. */
static loop_loads count_loads(const function* f)
{
    loop_loads r = { 0, 0, 0 };
    size_t first_store = 0;
    while (first_store < f->count && f->code[first_store].kind != STORE)
        first_store++;
    if (first_store == f->count)
        return r;
    r.has_store = 1;
    const unsigned long store_address = f->code[first_store].address;
    unsigned long head = store_address;
    for (size_t i = first_store; i < f->count; i++)
        if (f->code[i].kind == BRANCH && f->code[i].target < head)
            head = f->code[i].target;
    if (head == store_address)
        head = 0; /* no loop around the store: the whole kernel */
    for (size_t i = 0; i < first_store; i++) {
        if (f->code[i].address < head)
            continue;
        r.loads += f->code[i].kind == LOAD || f->code[i].kind == LOAD128;
        r.loads128 += f->code[i].kind == LOAD128;
    }
    return r;
}

static const char* mode_name(int mode)
{
    return mode == DML_CUDA_MODE_VECTOR ? "vector" : mode == DML_CUDA_MODE_VECTOR_REVERSED ? "vector-reversed"
        : mode == DML_CUDA_MODE_TILED                                                  ? "tiled"
                                                                                       : "scalar";
}

START_TEST(loads_before_first_store_reach_the_floor)
{
    disassemble("DML_KERNELS_OBJECT");
    int failures = 0, per_arch = 0;
    char first_arch[16] = "";
    printf("%-8s %-22s %-16s %6s %10s %6s\n", "arch", "kernel <E,M,W,R,O>", "path", "loads", "16-byte", "floor");
    for (size_t i = 0; i < function_count; i++) {
        const function* f = &functions[i];
        int a[5];
        const int tiled = strstr(f->name, "dml_tiled_kernel") != NULL;
        const int gather = strstr(f->name, "dml_gather_kernel") != NULL;
        ck_assert_msg(tiled || gather, "%s: unknown kernel %s", f->arch, f->name);
        const int n = template_arguments(f->name, a, 5);
        ck_assert_msg(n == (tiled ? 2 : 5), "%s: %d template arguments in %s", f->arch, n, f->name);
        if (!first_arch[0])
            snprintf(first_arch, sizeof first_arch, "%s", f->arch);
        per_arch += !strcmp(f->arch, first_arch);
        const int mode = tiled ? DML_CUDA_MODE_TILED : a[1];
        const int wide = tiled ? a[1] : a[2], reverse = tiled ? DML_CUDA_REVERSE_NONE : a[3];
        const loop_loads l = count_loads(f);
        ck_assert_msg(l.has_store, "%s %s: no global store", f->arch, f->name);
        const int vector = mode == DML_CUDA_MODE_VECTOR || mode == DML_CUDA_MODE_VECTOR_REVERSED;
        const size_t floor = tiled ? DML_CUDA_ITEMS : dml_loads_in_flight_floor((uint32_t)a[0], mode, wide, reverse);
        const size_t counted = vector ? l.loads128 : l.loads;
        char kernel[64];
        if (tiled)
            snprintf(kernel, sizeof kernel, "tiled <%d,%d>", a[0], a[1]);
        else
            snprintf(kernel, sizeof kernel, "gather <%d,%d,%d,%d,%d>", a[0], a[1], a[2], a[3], a[4]);
        printf("%-8s %-22s %-16s %6zu %10zu %6zu%s\n", f->arch, kernel, mode_name(mode), l.loads, l.loads128, floor,
            counted < floor ? "  BELOW THE FLOOR" : "");
        failures += counted < floor;
    }
    ck_assert_msg(failures == 0, "%d kernel(s) issue fewer loads before their first store than their floor", failures);
    ck_assert_msg(per_arch == dml_cuda_kernel_count(), "%s: %d kernels disassembled, kernels.cu has %d", first_arch,
        per_arch, dml_cuda_kernel_count());
    ck_assert_msg(function_count % (size_t)dml_cuda_kernel_count() == 0, "%zu kernels over the architectures",
        function_count);
    forget_functions();
}
END_TEST

/* Which of the object's kernels is function f, and the widths its global
 * accesses may have: stores exactly the store width, loads at most the load
 * width; 0: any element width (1, 2, 4, 8). */
typedef struct element_kernel {
    const char* name;     /* in the mangled name */
    int template_count;   /* its template arguments */
    int load_index;       /* the argument holding the load width, or -1 */
    int store_index;      /* the argument holding the store width, or -1 */
    int shuffle_index;    /* the argument saying whether it must shuffle (else it must not), or -1 */
} element_kernel;

/* Checks every kernel of one object; returns how many were seen in the
 * first architecture. */
static int check_element_kernels(const char* object_variable, const element_kernel* k)
{
    disassemble(object_variable);
    int failures = 0, per_arch = 0;
    char first_arch[16] = "";
    for (size_t i = 0; i < function_count; i++) {
        const function* f = &functions[i];
        ck_assert_msg(strstr(f->name, k->name) != NULL, "%s: unknown kernel %s", f->arch, f->name);
        int a[8];
        const int n = template_arguments(f->name, a, 8);
        ck_assert_msg(n == k->template_count, "%s: %d template arguments in %s", f->arch, n, f->name);
        if (!first_arch[0])
            snprintf(first_arch, sizeof first_arch, "%s", f->arch);
        per_arch += !strcmp(f->arch, first_arch);
        const int load_bytes = k->load_index >= 0 ? a[k->load_index] : 0;
        const int store_bytes = k->store_index >= 0 ? a[k->store_index] : 0;
        size_t loads = 0, stores = 0, shuffles = 0;
        for (size_t j = 0; j < f->count; j++) {
            const instruction* in = &f->code[j];
            const int is_store = in->kind == STORE, is_load = in->kind == LOAD || in->kind == LOAD128;
            const int want = is_store ? store_bytes : load_bytes;
            const char* wrong = in->kind == LOCAL ? "local memory (LDL/STL)"
                : in->kind == GENERIC             ? "a generic LD/ST"
                : (is_load || is_store) && (!want ? in->bytes > 8 : is_store ? in->bytes != want : in->bytes > want)
                ? "a global access not one element wide"
                : NULL;
            loads += is_load;
            stores += is_store;
            shuffles += in->kind == SHUFFLE;
            if (wrong) {
                printf("%s %s: %s at /*%04lx*/ (%d bytes)\n", f->arch, f->name, wrong, in->address, in->bytes);
                failures++;
            }
        }
        if (k->shuffle_index >= 0 && (shuffles != 0) != (a[k->shuffle_index] != 0)) {
            printf("%s %s: %zu shuffle(s) (SHFL)\n", f->arch, f->name, shuffles);
            failures++;
        }
        if (!stores || (!loads && k->load_index >= 0)) {
            printf("%s %s: %zu global load(s), %zu store(s)\n", f->arch, f->name, loads, stores);
            failures++;
        }
    }
    printf("%s: %zu kernels over the architectures, %d in %s, %d problem(s)\n", object_variable, function_count,
        per_arch, first_arch, failures);
    ck_assert_msg(failures == 0, "%s: %d problem(s) in the per-element kernels' SASS", object_variable, failures);
    ck_assert_msg(function_count % (size_t)per_arch == 0, "%s: %zu kernels over the architectures", object_variable,
        function_count);
    forget_functions();
    return per_arch;
}

START_TEST(per_element_kernels_access_one_element)
{
    /* dml_cast_kernel<IN, IN_SIZE, OUT, OUT_SIZE>: one per pair of the 11 types */
    static const element_kernel cast = { "dml_cast_kernel", 4, 1, 3, -1 };
    /* dml_pad_kernel<Wide, Rows>: the element size is a parameter */
    static const element_kernel pad = { "dml_pad_kernel", 2, -1, -1, 1 };
    ck_assert_int_eq(check_element_kernels("DML_CAST_OBJECT", &cast), 11 * 11);
    ck_assert_int_eq(check_element_kernels("DML_PAD_OBJECT", &pad), 4);
}
END_TEST

/* The fill kernels (fill.cu, DML_FILL_OBJECT): every one has a 16-byte
 * store (STG.E.128: its windows) and no fused multiply-add (FFMA, DFMA;
 * float16 is computed in float32): core/fill.h's start + k * delta rounds
 * twice, as on the CPU. */
START_TEST(fill_kernels_store_vectors_and_never_fuse)
{
    const char* cuobjdump = getenv("DML_CUOBJDUMP");
    const char* object = getenv("DML_FILL_OBJECT");
    ck_assert_msg(cuobjdump && *cuobjdump && object && *object, "DML_CUOBJDUMP and DML_FILL_OBJECT must be set");
    char command[4096], line[4096], name[256] = "";
    snprintf(command, sizeof command, "'%s' -sass '%s'", cuobjdump, object);
    FILE* pipe = popen(command, "r");
    ck_assert_msg(pipe != NULL, "cannot run %s", command);
    int kernels = 0, vector_store = 1, multiplies = 0;
    while (fgets(line, sizeof line, pipe)) {
        const char* at = strstr(line, "Function : ");
        if (at) {
            ck_assert_msg(vector_store, "%s: no STG.E.128", name);
            snprintf(name, sizeof name, "%s", at + 11);
            name[strcspn(name, " \r\n")] = 0;
            kernels++;
            vector_store = 0;
            continue;
        }
        /* HFMA2.MMA Rn, -RZ, RZ, c, c is ptxas's way of loading a constant, not arithmetic. */
        ck_assert_msg(!strstr(line, "FFMA") && !strstr(line, "DFMA"), "%s: a fused multiply-add: %s", name, line);
        vector_store |= strstr(line, "STG.E.128") != NULL;
        multiplies += strstr(line, "FMUL") != NULL || strstr(line, "DMUL") != NULL;
    }
    ck_assert_msg(vector_store, "%s: no STG.E.128", name);
    int status = pclose(pipe);
    ck_assert_msg(status == 0, "%s failed (status %d)", command, status);
    ck_assert_msg(kernels >= 4, "%s: %d kernels, expected one per element size", command, kernels);
    ck_assert_msg(multiplies > 0, "%s: no FMUL or DMUL at all: is this the fill object?", command);
    printf("fill kernels: %d (every architecture), each with STG.E.128, no FFMA/DFMA\n", kernels);
}
END_TEST

/* The grouped kernels (group.cu, DML_GROUP_OBJECT): every variant the
 * launcher can pick is in the object (dml_cuda_group_kernel_count per
 * architecture); none uses local memory (LDL/STL), so the 32 KiB
 * __grid_constant__ parameter is read where the launch put it, never
 * copied per thread, and nothing spills (the joined-row and flat SPLIT
 * paths, group_join.h and group_split.h, share the kernel's register
 * budget with the gather paths: a spill here is theirs as much as the
 * gathers'); each has the gather's 16-byte loads and stores (its vector
 * paths). Their loads in flight are those of the gather paths they inline
 * (checked above on kernels.cu) and, per launch, in the emulator. */
START_TEST(grouped_kernels_read_their_parameter_in_place)
{
    disassemble("DML_GROUP_OBJECT");
    int failures = 0;
    size_t per_arch = 0;
    for (size_t i = 0; i < function_count; i++) {
        const function* f = &functions[i];
        ck_assert_msg(strstr(f->name, "dml_group_kernel") != NULL, "%s: unknown kernel %s", f->arch, f->name);
        per_arch += !strcmp(f->arch, functions[0].arch);
        size_t local = 0, loads128 = 0, stores128 = 0;
        for (size_t j = 0; j < f->count; j++) {
            local += f->code[j].kind == LOCAL;
            loads128 += f->code[j].kind == LOAD128;
            stores128 += f->code[j].kind == STORE && f->code[j].bytes == 16;
        }
        if (local || !loads128 || !stores128) {
            printf("%s %s: %zu local, %zu 16-byte loads, %zu 16-byte stores\n", f->arch, f->name, local, loads128,
                stores128);
            failures++;
        }
    }
    printf("grouped kernels: %zu over the architectures, %zu in %s, %d problem(s)\n", function_count, per_arch,
        functions[0].arch, failures);
    ck_assert_int_eq(failures, 0);
    ck_assert_uint_eq(per_arch, (size_t)dml_cuda_group_kernel_count());
    ck_assert_uint_eq(function_count % per_arch, 0);
    forget_functions();
}
END_TEST

/* The data-dependent kinds' kernels (indexed.cu, DML_INDEXED_OBJECT):
 * dml_indexed_kernel<Wide, Path>, both index widths of its five paths
 * (INDEXED flat, INDEXED rows, SCATTER, SELECT, ONE_HOT) in every
 * architecture; none uses local memory (a spill, or an array the compiler
 * could not keep in registers: the groups of DML_INDEXED_GROUP loads) or
 * generic accesses; the row path (1) copies 16-byte lines (LDG.E.128 and
 * STG.E.128), the others move one element at a time (no access wider than
 * 8 bytes), every one loads and stores. */
START_TEST(indexed_kernels_keep_registers_and_vectorise_rows)
{
    disassemble("DML_INDEXED_OBJECT");
    int failures = 0;
    size_t per_arch = 0;
    for (size_t i = 0; i < function_count; i++) {
        const function* f = &functions[i];
        ck_assert_msg(strstr(f->name, "dml_indexed_kernel") != NULL, "%s: unknown kernel %s", f->arch, f->name);
        int a[4];
        ck_assert_int_eq(template_arguments(f->name, a, 4), 2);
        per_arch += !strcmp(f->arch, functions[0].arch);
        size_t local = 0, generic = 0, loads = 0, stores = 0, loads128 = 0, stores128 = 0;
        for (size_t j = 0; j < f->count; j++) {
            const instruction* in = &f->code[j];
            local += in->kind == LOCAL;
            generic += in->kind == GENERIC;
            loads += in->kind == LOAD || in->kind == LOAD128;
            stores += in->kind == STORE;
            loads128 += in->kind == LOAD128;
            stores128 += in->kind == STORE && in->bytes == 16;
        }
        const int rows = a[1] == 1;
        if (local || generic || !loads || !stores || (rows ? !loads128 || !stores128 : loads128 || stores128)) {
            printf("%s %s: %zu local, %zu generic, %zu loads (%zu of 16 bytes), %zu stores (%zu of 16 bytes)\n",
                f->arch, f->name, local, generic, loads, loads128, stores, stores128);
            failures++;
        }
    }
    printf("indexed kernels: %zu over the architectures, %zu in %s, %d problem(s)\n", function_count, per_arch,
        function_count ? functions[0].arch : "-", failures);
    ck_assert_int_eq(failures, 0);
    ck_assert_uint_eq(per_arch, 10);
    ck_assert_uint_eq(function_count % per_arch, 0);
    forget_functions();
}
END_TEST

int main(void)
{
    /* A case per object disassembled: CTest runs them side by side
     * (tests/cuda/CMakeLists.txt's CASES), cuobjdump being their time. */
    const struct {
        const char* name;
        const TTest* test;
    } cases[] = {
        { "gather", loads_before_first_store_reach_the_floor },
        { "fill", fill_kernels_store_vectors_and_never_fuse },
        { "per_element", per_element_kernels_access_one_element },
        { "group", grouped_kernels_read_their_parameter_in_place },
        { "indexed", indexed_kernels_keep_registers_and_vectorise_rows },
    };
    Suite* s = suite_create("cuda_sass_loads");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        TCase* tc = tcase_create(cases[i].name);
        tcase_set_timeout(tc, 600);
        tcase_add_test(tc, cases[i].test);
        suite_add_tcase(s, tc);
    }
    SRunner* runner = srunner_create(s);
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

/*
 * nvtx_record.c — a minimal NVTX injection library for tests: what Nsight
 * Systems does when it attaches, minus the GUI. Loaded by NVTX3 through
 * NVTX_INJECTION64_PATH; it implements DomainCreateA, DomainRangePushEx and
 * DomainRangePop, and appends one line per event to the file named by
 * DML_NVTX_RECORD:
 *
 *   push <domain> <depth> <message>
 *   pop <domain> <depth>
 *
 * depth is the per-thread nesting depth before the push / after the pop.
 */
#include <nvtx3/nvToolsExt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static _Thread_local int depth;

/* Domains are handles to a copy of their name, in a static table (nothing
 * to free, nothing for valgrind to call lost). */
static char domains[32][64];
static int domain_count;

static nvtxDomainHandle_t NVTX_API domain_create(const char* name)
{
    pthread_mutex_lock(&lock);
    char* slot = domains[domain_count < 31 ? domain_count++ : 31];
    snprintf(slot, sizeof domains[0], "%s", name ? name : "");
    pthread_mutex_unlock(&lock);
    return (nvtxDomainHandle_t)slot;
}

static void record(const char* line)
{
    const char* path = getenv("DML_NVTX_RECORD");
    if (!path)
        return;
    pthread_mutex_lock(&lock);
    FILE* f = fopen(path, "a");
    if (f) {
        fputs(line, f);
        fclose(f);
    }
    pthread_mutex_unlock(&lock);
}

static int NVTX_API range_push(nvtxDomainHandle_t domain, const nvtxEventAttributes_t* attributes)
{
    char line[1024];
    const char* message = attributes && attributes->messageType == NVTX_MESSAGE_TYPE_ASCII
        ? attributes->message.ascii : "?";
    snprintf(line, sizeof line, "push %s %d %s\n", domain ? (const char*)domain : "-", depth, message);
    record(line);
    return depth++;
}

static int NVTX_API range_pop(nvtxDomainHandle_t domain)
{
    char line[256];
    --depth;
    snprintf(line, sizeof line, "pop %s %d\n", domain ? (const char*)domain : "-", depth);
    record(line);
    return depth;
}

EXPORT int NVTX_API InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get_export_table)
{
    const NvtxExportTableCallbacks* callbacks = get_export_table(NVTX_ETID_CALLBACKS);
    if (!callbacks || callbacks->struct_size < sizeof *callbacks)
        return 0;
    NvtxFunctionTable table = NULL;
    unsigned int size = 0;
    if (!callbacks->GetModuleFunctionTable(NVTX_CB_MODULE_CORE2, &table, &size) || !table ||
        size <= NVTX_CBID_CORE2_DomainCreateA)
        return 0;
    *table[NVTX_CBID_CORE2_DomainCreateA] = (NvtxFunctionPointer)domain_create;
    *table[NVTX_CBID_CORE2_DomainRangePushEx] = (NvtxFunctionPointer)range_push;
    *table[NVTX_CBID_CORE2_DomainRangePop] = (NvtxFunctionPointer)range_pop;
    return 1; /* success */
}

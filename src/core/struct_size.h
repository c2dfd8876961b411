/*
 * struct_size.h — the Size rules of dml.h's growable structs (DML_DEVICE_DESC,
 * DML_ADAPTER_INFO, DML_PLUGIN_INFO, DML_VERSION_INFO; docs/contract.md,
 * "Growable structs"), shared by the dispatcher and the core so that both
 * apply them alike and word them alike:
 * "<call>: desc->Size = 12; must be sizeof(DML_DEVICE_DESC) = 32 ...".
 *
 * Header-only: each user formats the message with its own error function.
 */
#ifndef DML_CORE_STRUCT_SIZE_H
#define DML_CORE_STRUCT_SIZE_H

#include <dml/dml.h>

#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* A growable struct as this build declares it. minimum: its sizeof in the ABI
 * version that introduced it, the smallest Size an older host can pass. */
typedef struct dml_struct_layout {
    const char* name;
    uint32_t minimum;
    uint32_t size;
    uint32_t align;
} dml_struct_layout;

/* The sizes each struct had when introduced. Never change these: a host built
 * then passes them. An append adds the struct's size in the new ABI version
 * below and moves its sizeof assert to it (DML_ABI_VERSION_MINOR, dml.h). */
#define DML_DEVICE_DESC_SIZE_1_0 32u
#define DML_ADAPTER_INFO_SIZE_1_0 296u
#define DML_PLUGIN_INFO_SIZE_1_0 804u
#define DML_VERSION_INFO_SIZE_1_1 60u

#define DML_STRUCT_LAYOUT(type, minimum) \
    ((dml_struct_layout){ #type, (minimum), (uint32_t)sizeof(type), (uint32_t)_Alignof(type) })
#define DML_DEVICE_DESC_LAYOUT DML_STRUCT_LAYOUT(DML_DEVICE_DESC, DML_DEVICE_DESC_SIZE_1_0)
#define DML_ADAPTER_INFO_LAYOUT DML_STRUCT_LAYOUT(DML_ADAPTER_INFO, DML_ADAPTER_INFO_SIZE_1_0)
#define DML_PLUGIN_INFO_LAYOUT DML_STRUCT_LAYOUT(DML_PLUGIN_INFO, DML_PLUGIN_INFO_SIZE_1_0)
#define DML_VERSION_INFO_LAYOUT DML_STRUCT_LAYOUT(DML_VERSION_INFO, DML_VERSION_INFO_SIZE_1_1)

/* The layouts are ABI (as ONNX Runtime guards OrtApi's): Size first, each
 * member where its version put it, and sizeof the latest recorded size (a
 * member appended without a DML_ABI_VERSION_MINOR bump fails here). */
_Static_assert(offsetof(DML_DEVICE_DESC, Size) == 0 && offsetof(DML_DEVICE_DESC, Backend) == 8 &&
        offsetof(DML_DEVICE_DESC, AdapterIndex) == 16 && offsetof(DML_DEVICE_DESC, Flags) == 20 &&
        offsetof(DML_DEVICE_DESC, MinimumFeatureLevel) == 24 && sizeof(DML_DEVICE_DESC) == DML_DEVICE_DESC_SIZE_1_0,
    "DML_DEVICE_DESC layout of ABI 1.0");
_Static_assert(offsetof(DML_ADAPTER_INFO, Size) == 0 && offsetof(DML_ADAPTER_INFO, Backend) == 4 &&
        offsetof(DML_ADAPTER_INFO, AdapterIndex) == 20 && offsetof(DML_ADAPTER_INFO, Description) == 24 &&
        offsetof(DML_ADAPTER_INFO, MemorySizeInBytes) == 280 && offsetof(DML_ADAPTER_INFO, IsSoftware) == 288 &&
        offsetof(DML_ADAPTER_INFO, MaxFeatureLevel) == 292 && sizeof(DML_ADAPTER_INFO) == DML_ADAPTER_INFO_SIZE_1_0,
    "DML_ADAPTER_INFO layout of ABI 1.0");
_Static_assert(offsetof(DML_PLUGIN_INFO, Size) == 0 && offsetof(DML_PLUGIN_INFO, Backend) == 4 &&
        offsetof(DML_PLUGIN_INFO, Path) == 20 && offsetof(DML_PLUGIN_INFO, Loaded) == 532 &&
        offsetof(DML_PLUGIN_INFO, Available) == 536 && offsetof(DML_PLUGIN_INFO, AdapterCount) == 540 &&
        offsetof(DML_PLUGIN_INFO, Score) == 544 && offsetof(DML_PLUGIN_INFO, Reason) == 548 &&
        sizeof(DML_PLUGIN_INFO) == DML_PLUGIN_INFO_SIZE_1_0,
    "DML_PLUGIN_INFO layout of ABI 1.0");
_Static_assert(offsetof(DML_VERSION_INFO, Size) == 0 && offsetof(DML_VERSION_INFO, AbiMajor) == 4 &&
        offsetof(DML_VERSION_INFO, AbiMinor) == 8 && offsetof(DML_VERSION_INFO, PluginAbiVersion) == 12 &&
        offsetof(DML_VERSION_INFO, RuntimeMajor) == 16 && offsetof(DML_VERSION_INFO, RuntimeMinor) == 20 &&
        offsetof(DML_VERSION_INFO, RuntimePatch) == 24 && offsetof(DML_VERSION_INFO, Runtime) == 28 &&
        sizeof(DML_VERSION_INFO) == DML_VERSION_INFO_SIZE_1_1,
    "DML_VERSION_INFO layout of ABI 1.1");

/* The Size member of the struct at p (read bytewise: p may be any entry of a
 * host's array, whose stride is that Size). */
static inline uint32_t dml_struct_size_of(const void* p)
{
    uint32_t size;
    memcpy(&size, p, sizeof size);
    return size;
}

/* NULL when `size` is a valid Size for `layout`, else the message
 * "<what>.Size = N; must be ..." in buffer. what: "desc->", "adapters[0]."... */
static inline const char* dml_struct_size_problem(uint32_t size, dml_struct_layout layout, const char* what,
    char* buffer, size_t buffer_size)
{
    if (size >= layout.minimum && size <= DML_STRUCT_SIZE_MAX && size % layout.align == 0)
        return NULL;
    char older[64] = "";
    if (layout.minimum < layout.size)
        snprintf(older, sizeof older, " (an older dml.h's, from %u, is accepted)", layout.minimum);
    snprintf(buffer, buffer_size,
        "%sSize = %u; must be sizeof(%s) = %u%s, set by the host (a newer dml.h's larger size is accepted up to "
        "DML_STRUCT_SIZE_MAX = %u, in multiples of %u)",
        what, size, layout.name, layout.size, older, (unsigned)DML_STRUCT_SIZE_MAX, layout.align);
    return buffer;
}

/* For a struct the runtime reads, with a valid Size: NULL when every byte past
 * this build's struct is zero, else the message naming the first that is not. */
static inline const char* dml_struct_tail_problem(const void* p, dml_struct_layout layout, const char* what,
    char* buffer, size_t buffer_size)
{
    uint32_t size = dml_struct_size_of(p);
    const unsigned char* bytes = (const unsigned char*)p;
    for (uint32_t i = layout.size; i < size; ++i) {
        if (bytes[i] != 0) {
            snprintf(buffer, buffer_size,
                "%sSize = %u covers members of a newer dml.h that this runtime's %s (%u bytes, ABI %u.%u) does "
                "not have, and byte %u of them is not zero: members this runtime cannot honour must be left zero",
                what, size, layout.name, layout.size, (unsigned)DML_ABI_VERSION_MAJOR,
                (unsigned)DML_ABI_VERSION_MINOR, i);
            return buffer;
        }
    }
    return NULL;
}

/* Copies a host's struct (valid Size) into this build's: members past its
 * Size count as zero. */
static inline void dml_struct_read(void* target, const void* source, dml_struct_layout layout)
{
    uint32_t size = dml_struct_size_of(source);
    memset(target, 0, layout.size);
    memcpy(target, source, size < layout.size ? size : layout.size);
}

/* Writes this build's struct into a host's (valid Size): the members its Size
 * covers, zeros past this build's struct; the host's Size stays. */
static inline void dml_struct_write(void* target, const void* source, dml_struct_layout layout)
{
    uint32_t size = dml_struct_size_of(target);
    uint32_t common = size < layout.size ? size : layout.size;
    memcpy((unsigned char*)target + sizeof(uint32_t), (const unsigned char*)source + sizeof(uint32_t),
        common - sizeof(uint32_t));
    if (size > layout.size)
        memset((unsigned char*)target + layout.size, 0, size - layout.size);
}

#endif /* DML_CORE_STRUCT_SIZE_H */

#include "guarded.h"

#include <check.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#define GUARDED_BEFORE 64

static unsigned char pattern(size_t i)
{
    return (unsigned char)(i * 29 + 3);
}

void guarded_make(guarded* g, size_t bytes)
{
    const size_t page = (size_t)sysconf(_SC_PAGESIZE);
    const size_t pages = (bytes + GUARDED_BEFORE + page - 1) / page;
    g->map_bytes = (pages + 1) * page;
    g->map = mmap(NULL, g->map_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ck_assert(g->map != MAP_FAILED);
    unsigned char* guard = g->map + pages * page;
    ck_assert_int_eq(mprotect(guard, page, PROT_NONE), 0);
    g->data = guard - bytes;
    g->bytes = bytes;
    g->before = GUARDED_BEFORE;
    for (size_t i = 0; i < g->before + bytes; ++i)
        g->data[(ptrdiff_t)i - (ptrdiff_t)g->before] = pattern(i);
}

void guarded_check_before(const guarded* g, const char* what)
{
    for (size_t i = 0; i < g->before; ++i)
        ck_assert_msg(g->data[(ptrdiff_t)i - (ptrdiff_t)g->before] == pattern(i),
            "%s: byte %zu before the buffer was written", what, g->before - i);
}

void guarded_free(guarded* g)
{
    munmap(g->map, g->map_bytes);
}

/*
 * plain_gather.c — see plain_gather.h. Loops are instantiated per element
 * size so each element move is a constant-size memcpy, as a host writing the
 * loop for its own type would get.
 */
#include "plain_gather.h"

#include <string.h>

/* Pads to rank 4 with leading dimensions of size 1. */
static plain_gather padded(const plain_gather* g)
{
    plain_gather p = *g;
    const unsigned shift = PLAIN_MAX_RANK - g->rank;
    for (unsigned d = 0; d < PLAIN_MAX_RANK; ++d) {
        const int inside = d >= shift;
        p.sizes[d] = inside ? g->sizes[d - shift] : 1;
        p.in_strides[d] = inside ? g->in_strides[d - shift] : 0;
        p.len_strides[d] = inside ? g->len_strides[d - shift] : 0;
    }
    p.rank = PLAIN_MAX_RANK;
    p.reverse_axis = g->reverse_axis < 0 ? -1 : g->reverse_axis + (int)shift;
    return p;
}

/* The sequence length for output coordinates c (c[axis] ignored). */
static inline uint64_t length_at(const plain_gather* p, const uint64_t* c)
{
    int64_t at = 0;
    for (int d = 0; d < PLAIN_MAX_RANK; ++d)
        if (d != p->reverse_axis)
            at += (int64_t)c[d] * p->len_strides[d];
    const uint64_t length = p->lengths[at];
    return length < p->sizes[p->reverse_axis] ? length : p->sizes[p->reverse_axis];
}

/* Input offset of coordinates c, c[axis] replaced by k on the reversed axis. */
static inline int64_t source_of(const plain_gather* p, const uint64_t* c, int axis, uint64_t k)
{
    int64_t at = p->in_offset;
    for (int d = 0; d < PLAIN_MAX_RANK; ++d)
        at += (int64_t)(d == axis ? k : c[d]) * p->in_strides[d];
    return at;
}

/* The reversed coordinate: the first L entries backwards. */
static inline uint64_t reversed(uint64_t a, uint64_t length)
{
    return a < length ? length - 1 - a : a;
}

/* What a host would write for its own row loop: the row's base and length
 * once per row, then one element at a time. */
#define DEFINE_NAIVE(E)                                                                                         \
    static void naive_##E(const plain_gather* p, unsigned char* out, const unsigned char* in)                  \
    {                                                                                                           \
        const int axis = p->reverse_axis, inner = PLAIN_MAX_RANK - 1;                                           \
        const uint64_t n = p->sizes[inner];                                                                     \
        const int64_t s = p->in_strides[inner] * (E);                                                           \
        uint64_t c[4] = { 0, 0, 0, 0 };                                                                         \
        for (c[0] = 0; c[0] < p->sizes[0]; ++c[0])                                                              \
            for (c[1] = 0; c[1] < p->sizes[1]; ++c[1])                                                          \
                for (c[2] = 0; c[2] < p->sizes[2]; ++c[2], out += n * (E)) {                                    \
                    if (axis < 0) {                                                                             \
                        const unsigned char* src = in + source_of(p, c, -1, 0) * (E);                           \
                        for (uint64_t k = 0; k < n; ++k)                                                        \
                            memcpy(out + k * (E), src + (int64_t)k * s, (E));                                   \
                    } else if (axis == inner) {                                                                 \
                        const uint64_t length = length_at(p, c);                                                \
                        const unsigned char* src = in + source_of(p, c, -1, 0) * (E);                           \
                        for (uint64_t k = 0; k < n; ++k)                                                        \
                            memcpy(out + k * (E), src + (int64_t)reversed(k, length) * s, (E));                 \
                    } else if (p->len_strides[inner] == 0) {                                                    \
                        const uint64_t k_axis = reversed(c[axis], length_at(p, c));                             \
                        const unsigned char* src = in + source_of(p, c, axis, k_axis) * (E);                    \
                        for (uint64_t k = 0; k < n; ++k)                                                        \
                            memcpy(out + k * (E), src + (int64_t)k * s, (E));                                   \
                    } else { /* a length per element */                                                         \
                        const unsigned char* src = in + source_of(p, c, axis, 0) * (E);                         \
                        const int64_t sa = p->in_strides[axis] * (E);                                           \
                        for (c[3] = 0; c[3] < n; ++c[3]) {                                                      \
                            const uint64_t k_axis = reversed(c[axis], length_at(p, c));                         \
                            memcpy(out + c[3] * (E), src + (int64_t)c[3] * s + (int64_t)k_axis * sa, (E));      \
                        }                                                                                       \
                        c[3] = 0;                                                                               \
                    }                                                                                           \
                }                                                                                               \
    }
DEFINE_NAIVE(1)
DEFINE_NAIVE(2)
DEFINE_NAIVE(4)
DEFINE_NAIVE(8)

void plain_gather_naive(const plain_gather* g, void* out, const void* in)
{
    const plain_gather p = padded(g);
    switch (g->element_size) {
    case 1: naive_1(&p, out, in); break;
    case 2: naive_2(&p, out, in); break;
    case 4: naive_4(&p, out, in); break;
    default: naive_8(&p, out, in); break;
    }
}

int plain_gather_rows(const plain_gather* g, void* out, const void* in)
{
    const plain_gather p = padded(g);
    const int inner = PLAIN_MAX_RANK - 1;
    if (p.in_strides[inner] != 1 || p.reverse_axis == inner || (p.reverse_axis >= 0 && p.len_strides[inner] != 0))
        return 0;
    const size_t row = p.sizes[inner] * p.element_size;
    unsigned char* o = out;
    uint64_t c[4] = { 0, 0, 0, 0 };
    for (c[0] = 0; c[0] < p.sizes[0]; ++c[0])
        for (c[1] = 0; c[1] < p.sizes[1]; ++c[1])
            for (c[2] = 0; c[2] < p.sizes[2]; ++c[2], o += row) {
                const int axis = p.reverse_axis;
                const uint64_t k_axis = axis < 0 ? 0 : reversed(c[axis], length_at(&p, c));
                memcpy(o, (const unsigned char*)in + source_of(&p, c, axis, k_axis) * (int64_t)p.element_size, row);
            }
    return 1;
}

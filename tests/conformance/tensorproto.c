/* tensorproto.c — see tensorproto.h. */
#include "tensorproto.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct pb {
    const uint8_t* p;
    const uint8_t* end;
} pb;

static int fail(char* err, size_t errlen, const char* fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return -1;
}

static int pb_varint(pb* s, uint64_t* v)
{
    uint64_t r = 0;
    for (unsigned shift = 0; shift < 64; shift += 7) {
        if (s->p >= s->end)
            return -1;
        uint8_t b = *s->p++;
        r |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *v = r;
            return 0;
        }
    }
    return -1;
}

/* One field: number, wire type; for LEN the payload span, for VARINT/I64/I32 the value. */
typedef struct pb_field {
    uint32_t num;
    uint32_t wire;
    uint64_t v;
    const uint8_t* data;
    size_t len;
} pb_field;

static int pb_next(pb* s, pb_field* f)
{
    uint64_t key;
    if (pb_varint(s, &key))
        return -1;
    f->num = (uint32_t)(key >> 3);
    f->wire = (uint32_t)(key & 7);
    f->data = NULL;
    f->len = 0;
    f->v = 0;
    switch (f->wire) {
    case 0: return pb_varint(s, &f->v);
    case 1:
        if (s->end - s->p < 8)
            return -1;
        for (int i = 7; i >= 0; --i)
            f->v = (f->v << 8) | s->p[i];
        f->data = s->p;
        s->p += 8;
        return 0;
    case 2: {
        uint64_t n;
        if (pb_varint(s, &n) || n > (uint64_t)(s->end - s->p))
            return -1;
        f->data = s->p;
        f->len = (size_t)n;
        s->p += n;
        return 0;
    }
    case 5:
        if (s->end - s->p < 4)
            return -1;
        f->v = (uint64_t)s->p[0] | (uint64_t)s->p[1] << 8 | (uint64_t)s->p[2] << 16 |
               (uint64_t)s->p[3] << 24;
        f->data = s->p;
        s->p += 4;
        return 0;
    default: return -1;
    }
}

static void copy_str(char* dst, size_t cap, const uint8_t* src, size_t len)
{
    if (len >= cap)
        len = cap - 1;
    memcpy(dst, src, len);
    dst[len] = '\0';
}

uint32_t tp_elem_size(int32_t t)
{
    switch (t) {
    case TP_UINT8: case TP_INT8: case TP_BOOL: return 1;
    case TP_UINT16: case TP_INT16: case TP_FLOAT16: return 2;
    case TP_FLOAT: case TP_INT32: case TP_UINT32: return 4;
    case TP_INT64: case TP_DOUBLE: case TP_UINT64: return 8;
    default: return 0;
    }
}

/* Appends one typed-field element (already decoded to its bit pattern) to the tensor. */
static void put_elem(tp_tensor* t, uint64_t idx, uint64_t bits)
{
    uint8_t* d = t->data + idx * t->elem_size;
    for (uint32_t b = 0; b < t->elem_size; ++b)
        d[b] = (uint8_t)(bits >> (8 * b));
}

int tp_parse_tensor(const uint8_t* buf, size_t len, tp_tensor* out, char* err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    pb s = { buf, buf + len };
    pb_field f;
    const uint8_t* raw = NULL;
    size_t raw_len = 0;
    int have_raw = 0;
    /* First pass: dims, type, name, raw_data. */
    while (s.p < s.end) {
        if (pb_next(&s, &f))
            return fail(err, errlen, "TensorProto: malformed wire data");
        if (f.num == 1 && f.wire == 0) {
            if (out->rank >= TP_MAX_DIMS)
                return fail(err, errlen, "TensorProto: too many dims");
            out->dims[out->rank++] = (int64_t)f.v;
        } else if (f.num == 1 && f.wire == 2) {
            pb d = { f.data, f.data + f.len };
            while (d.p < d.end) {
                uint64_t v;
                if (pb_varint(&d, &v) || out->rank >= TP_MAX_DIMS)
                    return fail(err, errlen, "TensorProto: bad packed dims");
                out->dims[out->rank++] = (int64_t)v;
            }
        } else if (f.num == 2 && f.wire == 0) {
            out->data_type = (int32_t)f.v;
        } else if (f.num == 8 && f.wire == 2) {
            copy_str(out->name, sizeof out->name, f.data, f.len);
        } else if (f.num == 9 && f.wire == 2) {
            raw = f.data;
            raw_len = f.len;
            have_raw = 1;
        }
    }
    out->elem_size = tp_elem_size(out->data_type);
    if (!out->elem_size)
        return fail(err, errlen, "TensorProto: unsupported data_type %d", out->data_type);
    out->count = 1;
    for (uint32_t i = 0; i < out->rank; ++i) {
        if (out->dims[i] < 0)
            return fail(err, errlen, "TensorProto: negative dim");
        out->count *= (uint64_t)out->dims[i];
    }
    if (out->count > ((uint64_t)1 << 32))
        return fail(err, errlen, "TensorProto: too large");
    out->data = calloc(out->count ? out->count : 1, out->elem_size);
    if (!out->data)
        return fail(err, errlen, "TensorProto: out of memory");
    if (have_raw) {
        if (raw_len != out->count * out->elem_size) {
            tp_tensor_free(out);
            return fail(err, errlen, "TensorProto: raw_data has %zu bytes, expected %llu", raw_len,
                        (unsigned long long)(out->count * out->elem_size));
        }
        memcpy(out->data, raw, raw_len);
        return 0;
    }
    /* Second pass: the typed repeated field (packed or not). Which field holds which
     * type follows onnx.proto: float_data(4) FLOAT; int32_data(5) INT32, INT16, INT8,
     * UINT16, UINT8, BOOL, FLOAT16 (bits); int64_data(7) INT64; double_data(10) DOUBLE;
     * uint64_data(11) UINT32, UINT64. */
    uint32_t want;
    switch (out->data_type) {
    case TP_FLOAT: want = 4; break;
    case TP_INT64: want = 7; break;
    case TP_DOUBLE: want = 10; break;
    case TP_UINT32: case TP_UINT64: want = 11; break;
    default: want = 5; break;
    }
    uint64_t n = 0;
    s.p = buf;
    while (s.p < s.end) {
        if (pb_next(&s, &f))
            break;
        if (f.num != want)
            continue;
        if (f.wire == 2) { /* packed */
            pb d = { f.data, f.data + f.len };
            while (d.p < d.end) {
                uint64_t v;
                if (want == 4) {
                    if (d.end - d.p < 4)
                        goto bad;
                    v = (uint64_t)d.p[0] | (uint64_t)d.p[1] << 8 | (uint64_t)d.p[2] << 16 |
                        (uint64_t)d.p[3] << 24;
                    d.p += 4;
                } else if (want == 10) {
                    if (d.end - d.p < 8)
                        goto bad;
                    v = 0;
                    for (int i = 7; i >= 0; --i)
                        v = (v << 8) | d.p[i];
                    d.p += 8;
                } else if (pb_varint(&d, &v)) {
                    goto bad;
                }
                if (n >= out->count)
                    goto bad;
                put_elem(out, n++, v);
            }
        } else {
            if (n >= out->count)
                goto bad;
            put_elem(out, n++, f.v);
        }
    }
    if (n != out->count && !(n == 0 && out->count == 0))
        goto bad;
    return 0;
bad:
    tp_tensor_free(out);
    return fail(err, errlen, "TensorProto: typed data does not match dims");
}

static uint8_t* read_file(const char* path, size_t* len, char* err, size_t errlen)
{
    FILE* fp = fopen(path, "rb");
    if (!fp) {
        fail(err, errlen, "cannot open %s", path);
        return NULL;
    }
    fseek(fp, 0, SEEK_END);
    long n = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    uint8_t* b = malloc(n > 0 ? (size_t)n : 1);
    if (!b || (n > 0 && fread(b, 1, (size_t)n, fp) != (size_t)n)) {
        free(b);
        fclose(fp);
        fail(err, errlen, "cannot read %s", path);
        return NULL;
    }
    fclose(fp);
    *len = (size_t)n;
    return b;
}

int tp_load_tensor(const char* path, tp_tensor* out, char* err, size_t errlen)
{
    size_t n;
    uint8_t* b = read_file(path, &n, err, errlen);
    if (!b) {
        memset(out, 0, sizeof *out);
        return -1;
    }
    int r = tp_parse_tensor(b, n, out, err, errlen);
    free(b);
    return r;
}

void tp_tensor_free(tp_tensor* t)
{
    free(t->data);
    t->data = NULL;
}

int64_t tp_get_i64(const tp_tensor* t, uint64_t i)
{
    const uint8_t* d = t->data + i * t->elem_size;
    uint64_t v = 0;
    for (uint32_t b = 0; b < t->elem_size; ++b)
        v |= (uint64_t)d[b] << (8 * b);
    switch (t->data_type) {
    case TP_INT8: return (int8_t)v;
    case TP_INT16: return (int16_t)v;
    case TP_INT32: return (int32_t)v;
    default: return (int64_t)v;
    }
}

/* ---- ModelProto ---------------------------------------------------------- */

static int parse_attr(const uint8_t* p, size_t len, tp_attr* a)
{
    memset(a, 0, sizeof *a);
    pb s = { p, p + len };
    pb_field f;
    while (s.p < s.end) {
        if (pb_next(&s, &f))
            return -1;
        if (f.num == 1 && f.wire == 2)
            copy_str(a->name, sizeof a->name, f.data, f.len);
        else if (f.num == 4 && f.wire == 2) {
            a->has_s = 1;
            copy_str(a->s, sizeof a->s, f.data, f.len);
        } else if (f.num == 5 && f.wire == 2 && !a->has_t) {
            char err[128];
            if (tp_parse_tensor(f.data, f.len, &a->t, err, sizeof err))
                return -1;
            a->has_t = 1;
        } else if (f.num == 3 && f.wire == 0) {
            a->has_i = 1;
            a->i = (int64_t)f.v;
        } else if (f.num == 8 && f.wire == 0) {
            if (a->ints_count < TP_MAX_INTS)
                a->ints[a->ints_count++] = (int64_t)f.v;
        } else if (f.num == 8 && f.wire == 2) {
            pb d = { f.data, f.data + f.len };
            uint64_t v;
            while (d.p < d.end && !pb_varint(&d, &v))
                if (a->ints_count < TP_MAX_INTS)
                    a->ints[a->ints_count++] = (int64_t)v;
        }
    }
    return 0;
}

static int parse_node(const uint8_t* p, size_t len, tp_model* m)
{
    pb s = { p, p + len };
    pb_field f;
    while (s.p < s.end) {
        if (pb_next(&s, &f))
            return -1;
        if (f.num == 1 && f.wire == 2 && m->input_count < TP_MAX_IO)
            copy_str(m->inputs[m->input_count++], sizeof m->inputs[0], f.data, f.len);
        else if (f.num == 4 && f.wire == 2)
            copy_str(m->op_type, sizeof m->op_type, f.data, f.len);
        else if (f.num == 5 && f.wire == 2 && m->attr_count < TP_MAX_ATTRS) {
            if (parse_attr(f.data, f.len, &m->attrs[m->attr_count]))
                return -1;
            m->attr_count++;
        }
    }
    return 0;
}

/* ValueInfoProto.type.tensor_type.elem_type (fields 2, 1, 1), or TP_UNDEFINED. */
static int32_t value_info_elem_type(const uint8_t* p, size_t len)
{
    pb v = { p, p + len };
    pb_field g;
    for (int depth = 0; depth < 3; ++depth) {
        int found = 0;
        while (v.p < v.end && !pb_next(&v, &g)) {
            if (g.num == (depth == 0 ? 2 : 1) && (depth < 2 ? g.wire == 2 : g.wire == 0)) {
                found = 1;
                break;
            }
        }
        if (!found)
            return TP_UNDEFINED;
        if (depth == 2)
            return (int32_t)g.v;
        v = (pb){ g.data, g.data + g.len };
    }
    return TP_UNDEFINED;
}

static int parse_graph(const uint8_t* p, size_t len, tp_model* m, char* err, size_t errlen)
{
    pb s = { p, p + len };
    pb_field f;
    int nodes = 0;
    while (s.p < s.end) {
        if (pb_next(&s, &f))
            return fail(err, errlen, "GraphProto: malformed");
        if (f.num == 1 && f.wire == 2) { /* node */
            if (nodes++ == 0 && parse_node(f.data, f.len, m))
                return fail(err, errlen, "NodeProto: malformed");
        } else if (f.num == 5 && f.wire == 2 && m->initializer_count < TP_MAX_IO) { /* initializer */
            if (tp_parse_tensor(f.data, f.len, &m->initializers[m->initializer_count], err, errlen))
                return -1;
            m->initializer_count++;
        } else if (f.num == 11 && f.wire == 2 && m->graph_input_count < TP_MAX_IO) { /* input */
            pb v = { f.data, f.data + f.len };
            pb_field g;
            while (v.p < v.end && !pb_next(&v, &g))
                if (g.num == 1 && g.wire == 2)
                    copy_str(m->graph_inputs[m->graph_input_count], sizeof m->graph_inputs[0],
                             g.data, g.len);
            m->graph_input_types[m->graph_input_count] = value_info_elem_type(f.data, f.len);
            m->graph_input_count++;
        } else if (f.num == 12 && f.wire == 2 && !m->graph_output_count++) { /* output */
            m->graph_output_type = value_info_elem_type(f.data, f.len);
        }
    }
    if (nodes != 1)
        return fail(err, errlen, "GraphProto: expected 1 node, found %d", nodes);
    return 0;
}

int tp_parse_model(const uint8_t* b, size_t n, tp_model* m, char* err, size_t errlen)
{
    memset(m, 0, sizeof *m);
    pb s = { b, b + n };
    pb_field f;
    int r = 0, have_graph = 0;
    while (s.p < s.end && r == 0) {
        if (pb_next(&s, &f)) {
            r = fail(err, errlen, "ModelProto: malformed");
            break;
        }
        if (f.num == 7 && f.wire == 2) {
            have_graph = 1;
            r = parse_graph(f.data, f.len, m, err, errlen);
        } else if (f.num == 8 && f.wire == 2) { /* opset_import: domain 1, version 2 */
            pb o = { f.data, f.data + f.len };
            pb_field g;
            int default_domain = 1;
            int64_t version = 0;
            while (o.p < o.end && !pb_next(&o, &g)) {
                if (g.num == 1 && g.wire == 2 && g.len > 0 &&
                    !(g.len == 7 && !memcmp(g.data, "ai.onnx", 7)))
                    default_domain = 0;
                else if (g.num == 2 && g.wire == 0)
                    version = (int64_t)g.v;
            }
            if (default_domain)
                m->opset = version;
        }
    }
    if (r == 0 && !have_graph)
        r = fail(err, errlen, "ModelProto: no graph");
    if (r)
        tp_model_free(m);
    return r;
}

int tp_load_model(const char* path, tp_model* m, char* err, size_t errlen)
{
    size_t n;
    uint8_t* b = read_file(path, &n, err, errlen);
    if (!b) {
        memset(m, 0, sizeof *m);
        return -1;
    }
    int r = tp_parse_model(b, n, m, err, errlen);
    free(b);
    return r;
}

void tp_model_free(tp_model* m)
{
    for (uint32_t i = 0; i < m->attr_count; ++i)
        if (m->attrs[i].has_t) {
            tp_tensor_free(&m->attrs[i].t);
            m->attrs[i].has_t = 0;
        }
    for (uint32_t i = 0; i < m->initializer_count; ++i)
        tp_tensor_free(&m->initializers[i]);
    m->initializer_count = 0;
}

const tp_attr* tp_model_attr(const tp_model* m, const char* name)
{
    for (uint32_t i = 0; i < m->attr_count; ++i)
        if (!strcmp(m->attrs[i].name, name))
            return &m->attrs[i];
    return NULL;
}

int tp_graph_input_index(const tp_model* m, const char* name)
{
    for (uint32_t i = 0; i < m->graph_input_count; ++i)
        if (!strcmp(m->graph_inputs[i], name))
            return (int)i;
    return -1;
}

const tp_tensor* tp_model_initializer(const tp_model* m, const char* name)
{
    for (uint32_t i = 0; i < m->initializer_count; ++i)
        if (!strcmp(m->initializers[i].name, name))
            return &m->initializers[i];
    return NULL;
}

#include "cpu_scale_bias.h"

#include "core/scale_bias.h"
#include "cpu_execute.h"

typedef struct sb_split {
    const dml_plan* plan;
    const dml_plan_args* args;
    uint64_t chunk;
} sb_split;

/* Flat output indices [begin, end): the offsets of the first by division,
 * the rest by stepping an odometer. */
static void run_range(const dml_plan* p, const dml_plan_args* args, uint64_t begin, uint64_t end)
{
    const unsigned char* in = args->input;
    unsigned char* out = args->output;
    const int64_t e = p->element_size;
    uint64_t c[DML_PLAN_MAX_RANK], rest = begin;
    for (uint32_t d = p->rank; d-- > 0;) {
        c[d] = rest % p->sizes[d];
        rest /= p->sizes[d];
    }
    int64_t src, dst;
    DML_SCALE_BIAS_OFFSETS(p, begin, src, dst);
    for (uint64_t item = begin; item < end; ++item) {
        dml_scale_bias_element(p->data_type, p->scale, p->bias, in + src * e, out + dst * e);
        for (uint32_t d = p->rank; d-- > 0;) { /* next coordinate */
            src += p->in_strides[d];
            dst += p->out_strides[d];
            if (++c[d] < p->sizes[d])
                break;
            src -= (int64_t)p->sizes[d] * p->in_strides[d];
            dst -= (int64_t)p->sizes[d] * p->out_strides[d];
            c[d] = 0;
        }
    }
}

static void run_chunk(void* context, unsigned task)
{
    const sb_split* s = context;
    uint64_t begin = (uint64_t)task * s->chunk, count = s->plan->element_count;
    run_range(s->plan, s->args, begin, count - begin < s->chunk ? count : begin + s->chunk);
}

unsigned dml_cpu_scale_bias(cpu_pool* pool, const dml_cpu_cost_model* model, unsigned max_threads, const dml_plan* plan,
    const dml_plan_args* args)
{
    const uint64_t count = plan->element_count;
    unsigned limit = pool ? cpu_pool_threads(pool) : 1;
    if (max_threads < limit)
        limit = max_threads ? max_threads : 1;
    const dml_cpu_cost_model fallback = dml_cpu_cost_default();
    const unsigned threads = dml_cpu_cost_threads(model ? model : &fallback, count * plan->element_size, limit);
    if (threads < 2 || count < threads) {
        run_range(plan, args, 0, count);
        return 1;
    }
    sb_split s = { plan, args, (count + threads - 1) / threads };
    cpu_pool_run(pool, run_chunk, &s, (unsigned)((count + s.chunk - 1) / s.chunk));
    return threads;
}

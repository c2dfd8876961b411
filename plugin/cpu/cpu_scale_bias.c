#include "cpu_scale_bias.h"

#include "core/scale_bias.h"
#include "cpu_execute.h"


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

unsigned dml_cpu_scale_bias(cpu_pool* pool, const dml_cpu_cost_model* model, unsigned max_threads, const dml_plan* plan,
    const dml_plan_args* args)
{
    return dml_cpu_run_split(pool, model, max_threads, plan, args, plan->element_count * plan->element_size,
        run_range);
}

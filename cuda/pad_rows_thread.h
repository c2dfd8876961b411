/*
 * pad_rows_thread.h — the row path of a DML_PLAN_PAD launch (pad.c picks
 * it: the innermost dimension contiguous in both tensors, at least two
 * windows wide, with an interior). A warp takes a segment of an output row and
 * walks it in passes of DML_PAD_WINDOW elements, one per lane, each pass
 * a window aligned to the output's own alignment (each store sector is
 * one instruction's). The interior's values, a run of the input row that
 * starts anywhere in a sector, are not loaded where they are needed: each
 * pass loads the next window of the input ALIGNED to the input (each lane
 * an element, each sector once), keeps the window it loaded in the pass
 * before, and every lane takes its value from whichever lane holds it, by
 * one warp shuffle. It loads the windows of DML_PAD_GROUP passes before
 * it stores (loads in flight). A border element (a folded coordinate)
 * whose source falls in the two windows is taken the same way; other
 * borders load their element (DML_SITE_EDGE_LOAD) or, under CONSTANT, are
 * the value.
 * Nothing is loaded outside the sources of the segment's interior, so no
 * byte outside the input tensor is read.
 *
 * Control flow is the warp's (tasks, segments, passes depend only on the
 * warp), so every lane reaches every shuffle. The emulator runs a warp's
 * lanes one after the other: its shuffle (dml_pad_exchange) computes what
 * the source lane sent, from memory, under the same predicate as that
 * lane's load, checked as that load is (not counted: it is a register
 * move).
 */
#ifndef DML_CUDA_PAD_ROWS_THREAD_H
#define DML_CUDA_PAD_ROWS_THREAD_H

/* Included by pad_thread.h (dml_pad_offsets, dml_pad_fill_value). */

#if defined(DML_CUDA_EMULATION) && !defined(__CUDA_ARCH__)
void dml_emulator_shuffled_load(const void* address, unsigned bytes);
#define DML_SHUFFLED_LOAD(address, bytes) dml_emulator_shuffled_load(address, bytes)
#else
#define DML_SHUFFLED_LOAD(address, bytes) ((void)(address), (void)(bytes))
#endif

/* A warp's windows over the input during one pass: lane m holds element m
 * of the window loaded in the previous pass (at `start`) if m >= shift,
 * else element m of the one loaded in this pass (start + DML_PAD_WINDOW);
 * an element is loaded only where it is in [need_begin, need_end). */
typedef struct dml_pad_windows {
    const unsigned char* in;
    int64_t start;
    int64_t need_begin, need_end;
    uint32_t shift, element_size;
} dml_pad_windows;

DML_HD bool dml_pad_needed(const dml_pad_windows* w, int64_t at)
{
    return at >= w->need_begin && at < w->need_end;
}

/* The input element at `at`, loaded if needed (else 0, as a lane's
 * register holds when it loads nothing). */
DML_HD uint64_t dml_pad_window_load(const dml_pad_windows* w, int64_t at)
{
    const uint32_t e = w->element_size;
    return dml_pad_needed(w, at) ? dml_load_element(w->in + at * (int64_t)e, e, DML_SITE_LOAD) : 0;
}

/* What lane `source` holds for this pass (the emulator's shuffle). */
DML_HD uint64_t dml_pad_held(const dml_pad_windows* w, uint32_t source)
{
    const int64_t at = (source >= w->shift ? w->start : w->start + DML_PAD_WINDOW) + source;
    if (!dml_pad_needed(w, at))
        return 0;
    const unsigned char* address = w->in + at * (int64_t)w->element_size;
    DML_SHUFFLED_LOAD(address, w->element_size);
    switch (w->element_size) {
    case 1: return dml_load8(address);
    case 2: return dml_load16(address);
    case 4: return dml_load32(address);
    default: return dml_load64(address);
    }
}

/* Lane `lane` receives what lane `source` holds (every lane of the warp
 * takes part). */
DML_HD uint64_t dml_pad_exchange(const dml_pad_windows* w, uint64_t previous, uint64_t current, uint32_t lane,
    uint32_t source)
{
#if defined(__CUDA_ARCH__)
    const uint64_t held = lane >= w->shift ? previous : current;
    if (w->element_size == 8)
        return __shfl_sync(0xFFFFFFFFu, (unsigned long long)held, (int)source);
    return __shfl_sync(0xFFFFFFFFu, (unsigned)held, (int)source);
#else
    (void)previous;
    (void)current;
    (void)lane;
    return dml_pad_held(w, source);
#endif
}

/* One task's row and segment: where its outputs are, where its interior's
 * sources are, which passes are its. */
typedef struct dml_pad_segment {
    int64_t row;            /* the output offset of the row's first element */
    int64_t delta;          /* an interior element's source offset - its output offset */
    int64_t in_row;         /* the source offset of the input row's first element (a folded row's) */
    uint64_t first, end;    /* its passes, of the row's: pass q starts at row - head + q * DML_PAD_WINDOW */
    uint32_t head;          /* the row's first element's place in its window */
    bool inside;            /* false: CONSTANT with the row outside the input (every element the value) */
} dml_pad_segment;

/* Segment `task` of the launch; false when the row has fewer passes. */
DML_HD bool dml_pad_segment_of(const dml_pad_params* p, uint64_t task, uint32_t out_align, int wide,
    dml_pad_segment* s, int64_t* need_begin, int64_t* need_end)
{
    /* index32: tasks, like elements, below 2^31 (no 64-bit division) */
    const uint64_t row = wide ? task / p->segments_per_row : (uint32_t)task / (uint32_t)p->segments_per_row;
    const uint64_t segment = task - row * p->segments_per_row;
    int64_t src, dst;
    s->inside = dml_pad_offsets(&p->plan, row * p->width + p->interior_begin, wide, &src, &dst);
    s->row = dst - (int64_t)p->interior_begin;
    s->delta = src - dst;
    s->in_row = src - (int64_t)p->interior_begin - p->plan.pad_origin[p->plan.rank - 1];
    s->head = (uint32_t)(((uint64_t)s->row + out_align) % DML_PAD_WINDOW);
    const uint64_t passes = (s->head + p->width + DML_PAD_WINDOW - 1) / DML_PAD_WINDOW;
    s->first = segment * p->segment_passes;
    s->end = s->first + p->segment_passes < passes ? s->first + p->segment_passes : passes;
    if (s->first >= passes)
        return false;
    /* The segment's interior columns: its passes' within [interior_begin, interior_end). */
    const int64_t from = (int64_t)(s->first * DML_PAD_WINDOW) - (int64_t)s->head;
    const int64_t to = (int64_t)(s->end * DML_PAD_WINDOW) - (int64_t)s->head;
    const int64_t begin = from > (int64_t)p->interior_begin ? from : (int64_t)p->interior_begin;
    const int64_t end = to < (int64_t)p->interior_end ? to : (int64_t)p->interior_end;
    *need_begin = *need_end = 0;
    if (s->inside && begin < end) {
        *need_begin = s->row + begin + s->delta;
        *need_end = s->row + end + s->delta;
    }
    return true;
}

/* Lane `lane`'s element of a pass starting at output offset `pass`: stored
 * unless outside the row; its value from the windows (lane *source) or,
 * when *source is DML_PAD_WINDOW, `value` (loaded or the fill). */
DML_HD bool dml_pad_lane_element(const dml_pad_params* p, const dml_pad_segment* s, const dml_pad_windows* w,
    int64_t pass, uint32_t lane, uint64_t* value, uint32_t* source)
{
    const dml_plan* plan = &p->plan;
    const int64_t column = pass + lane - s->row;
    *source = DML_PAD_WINDOW;
    if (column < 0 || column >= (int64_t)p->width)
        return false;
    int64_t at = pass + lane + s->delta; /* an interior element's source */
    if (column < (int64_t)p->interior_begin || column >= (int64_t)p->interior_end) {
        /* a border: only the innermost coordinate folds (the row's others did in in_row) */
        const uint32_t last = plan->rank - 1;
        const int64_t j = dml_pad_fold(column + plan->pad_origin[last], plan->pad_extent[last], plan->pad_mode);
        if (j < 0)
            return true; /* CONSTANT: the value */
        at = s->in_row + j;
    } else if (!s->inside) {
        return true;
    }
    const int64_t place = at - w->start; /* in the two windows, if in [shift, shift + DML_PAD_WINDOW) */
    if (dml_pad_needed(w, at) && place >= (int64_t)w->shift && place < (int64_t)w->shift + DML_PAD_WINDOW)
        *source = (uint32_t)place % DML_PAD_WINDOW;
    else
        *value = dml_load_element(w->in + at * (int64_t)plan->element_size, plan->element_size, DML_SITE_EDGE_LOAD);
    return true;
}

/* One pass of a warp: each lane's element stored, from the windows
 * `previous` and `current` hold (the pass's windows, w) or its own case. */
DML_HD void dml_pad_rows_pass(const dml_pad_params* p, const dml_pad_segment* s, const dml_pad_windows* w,
    int64_t pass, uint32_t lane, uint64_t previous, uint64_t current, uint64_t fill)
{
    const uint32_t e = p->plan.element_size;
    uint64_t value = fill;
    uint32_t source = (lane + w->shift) % DML_PAD_WINDOW;
    /* A pass inside the interior (most of a long row's) needs no per-lane case. */
    const int64_t column = pass - s->row;
    const bool interior = s->inside && column >= (int64_t)p->interior_begin &&
        column + DML_PAD_WINDOW <= (int64_t)p->interior_end;
    const bool stored = interior || dml_pad_lane_element(p, s, w, pass, lane, &value, &source);
    const uint64_t held = dml_pad_exchange(w, previous, current, lane, source % DML_PAD_WINDOW);
    if (source < DML_PAD_WINDOW)
        value = held;
    if (stored)
        dml_store_element((unsigned char*)p->out + (pass + lane) * (int64_t)e, value, e, DML_SITE_STORE);
}

/* Passes a warp loads the windows of before it stores: loads in flight. */
#define DML_PAD_GROUP 4
#if defined(__CUDACC__)
#define DML_PAD_ONE_BY_ONE _Pragma("unroll 1") /* one copy of a pass's code */
#else
#define DML_PAD_ONE_BY_ONE
#endif

DML_HD void dml_pad_rows_thread(const dml_pad_params* p, uint64_t block_index, uint32_t thread_index, uint64_t grid_dim,
    uint32_t block_dim, int wide)
{
    const uint32_t e = p->plan.element_size, lane = thread_index % DML_PAD_WINDOW;
    const uint64_t fill = dml_pad_fill_value(&p->plan.fill_start, e);
    /* Windows are aligned to the tensors' own alignment, in elements. */
    const uint32_t in_align = (uint32_t)((unsigned long long)p->in / e % DML_PAD_WINDOW);
    const uint32_t out_align = (uint32_t)((unsigned long long)p->out / e % DML_PAD_WINDOW);
    const uint64_t warps = grid_dim * (block_dim / DML_PAD_WINDOW);
    uint32_t instruction = 0;
    for (uint64_t task = block_index * (block_dim / DML_PAD_WINDOW) + thread_index / DML_PAD_WINDOW; task < p->tasks;
         task += warps) {
        dml_pad_segment s;
        dml_pad_windows w = { (const unsigned char*)p->in, 0, 0, 0, 0, e };
        if (!dml_pad_segment_of(p, task, out_align, wide, &s, &w.need_begin, &w.need_end))
            continue;
        int64_t pass = s.row - s.head + (int64_t)(s.first * DML_PAD_WINDOW);
        /* The window holding the pass's first interior source (pass + delta) starts `shift` before it. */
        w.shift = (uint32_t)(((uint64_t)s.delta + in_align + DML_PAD_WINDOW - out_align) % DML_PAD_WINDOW);
        w.start = pass + s.delta - w.shift;
        DML_INSTRUCTION(instruction++);
        uint64_t carried = dml_pad_window_load(&w, w.start + lane);
        for (uint64_t q = s.first; q < s.end; q += DML_PAD_GROUP, instruction += DML_PAD_GROUP) {
            uint64_t loaded[DML_PAD_GROUP];
            DML_UNROLL
            for (uint32_t g = 0; g < DML_PAD_GROUP; ++g) {
                DML_INSTRUCTION(instruction + g);
                const int64_t at = w.start + (int64_t)(g + 1) * DML_PAD_WINDOW + lane;
                loaded[g] = q + g < s.end ? dml_pad_window_load(&w, at) : 0;
            }
            /* loaded[0] is the pass's window: the others move down after it */
            DML_PAD_ONE_BY_ONE
            for (uint32_t g = 0; g < DML_PAD_GROUP && q + g < s.end;
                 ++g, pass += DML_PAD_WINDOW, w.start += DML_PAD_WINDOW) {
                DML_INSTRUCTION(instruction + g);
                dml_pad_rows_pass(p, &s, &w, pass, lane, carried, loaded[0], fill);
                carried = loaded[0];
                DML_UNROLL
                for (uint32_t k = 0; k + 1 < DML_PAD_GROUP; ++k)
                    loaded[k] = loaded[k + 1];
            }
        }
    }
}

#endif /* DML_CUDA_PAD_ROWS_THREAD_H */

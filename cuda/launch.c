#include "launch.h"

#include "pad.h"
#include "cast_launch.h"
#include "fill.h"
#include "indexed.h"
#include "scale_bias.h"

#include <string.h>

dml_divisor32 dml_divisor32_make(uint32_t d)
{
    dml_divisor32 r = { d, 0, 0 };
    while (r.shift < 32 && (1ull << r.shift) < d)
        r.shift++;
    /* multiplier = floor(2^32 * (2^shift - d) / d) + 1 */
    r.multiplier = (uint32_t)((((1ull << r.shift) - d) << 32) / d + 1);
    return r;
}

/* Rows of the plan's inner dimension: outer dimensions and inner strides. */
static void scalar_params(const dml_plan* plan, dml_gather_params* p)
{
    uint32_t inner = plan->rank - 1;
    memset(p, 0, sizeof *p);
    p->count = plan->element_count;
    p->row_items = plan->sizes[inner];
    p->outer_rank = inner;
    p->element_size = plan->element_size;
    p->axis = plan->kind == DML_PLAN_REVERSE_SUBSEQUENCES ? plan->axis : -1;
    p->lengths_size = plan->lengths_element_size;
    p->axis_size = plan->axis_size;
    p->in_offset = plan->in_offset;
    p->out_offset = plan->out_offset;
    p->len_offset = plan->len_offset;
    p->in_inner = plan->in_strides[inner];
    p->out_inner = plan->out_strides[inner];
    p->len_inner = plan->len_strides[inner];
    for (uint32_t d = 0; d < inner; ++d) {
        p->outer_sizes[d] = plan->sizes[d];
        p->in_strides[d] = plan->in_strides[d];
        p->out_strides[d] = plan->out_strides[d];
        p->len_strides[d] = plan->len_strides[d];
    }
}

/* 16-byte vectors along rows: output rows contiguous and input rows at +1
 * or -1, at least one vector long. Each row finds its own head, tail and
 * input alignment at run time, so pitches and relative alignment don't
 * matter. A reversal on an outer axis must have its length constant along
 * the row; one along the row is handled inside the vector path. */
static int try_vectorize(const dml_plan* plan, dml_gather_params* p)
{
    uint32_t e = plan->element_size;
    if (e >= DML_CUDA_VECTOR_BYTES || p->out_inner != 1 || (p->in_inner != 1 && p->in_inner != -1))
        return 0;
    if (p->axis >= 0 && (uint32_t)p->axis != p->outer_rank && p->len_inner != 0)
        return 0;
    /* The vector path reverses a row's prefix reading forward (+1) over the
     * whole axis; composed plans (core/plan_compose.c) may walk it backward or
     * a part of it: those rows take the scalar path. */
    if (p->axis >= 0 && (uint32_t)p->axis == p->outer_rank && (p->in_inner != 1 || plan->axis_size != p->row_items))
        return 0;
    uint32_t lanes = DML_CUDA_VECTOR_BYTES / e;
    uint64_t n = p->row_items;
    if (n < lanes)
        return 0;
    p->lanes = lanes;
    p->row_length = n;
    /* An item per body vector, and at least one per edge element, so that
     * each item loads at most one edge element with its vector and stores it
     * after (gather_thread.h). A row's head h < lanes elements (its output
     * alignment, any) leave a tail of (n - h) % lanes: with r = n % lanes,
     * h <= r gives r edge elements, h > r gives r + lanes. */
    const uint64_t rest = n % lanes, most_edges = rest + 1 < lanes ? rest + lanes : rest;
    const uint64_t max_edges = most_edges < n ? most_edges : n;
    p->row_items = n / lanes > max_edges ? n / lanes : max_edges;
    p->count = p->count / n * p->row_items;
    return p->in_inner < 0 ? DML_CUDA_MODE_VECTOR_REVERSED : DML_CUDA_MODE_VECTOR;
}

/* Blocks of a tiled launch resident per SM with `shared` bytes of shared
 * memory each: the least of the tiled kernels' register bound
 * (DML_TILE_BLOCKS_PER_SM, their __launch_bounds__) and what the SM's shared
 * memory holds (each block also takes the system's reserve); at least 1,
 * since a tile never takes more than a block may have. */
static uint32_t tiled_blocks_per_sm(uint64_t shared, const dml_cuda_limits* limits)
{
    const uint64_t fit = limits->shared_per_sm / (shared + limits->shared_reserved_per_block);
    return fit < 1 ? 1 : fit < DML_TILE_BLOCKS_PER_SM ? (uint32_t)fit : DML_TILE_BLOCKS_PER_SM;
}

/* What a staged tile's shape is chosen for: `across` of across_size
 * elements of e bytes, tiles `inner` output-row elements tall, `most` the
 * longest tile row a block's shared memory holds, tiles_per_piece the
 * batches times the tiles along the inner dimension. */
typedef struct staged_problem {
    uint64_t across_size, inner, most, tiles_per_piece;
    uint32_t e;
    const dml_cuda_limits* limits;
} staged_problem;

/* A staged tile of across cut into `pieces`: its length along across, shared
 * row pitch (odd, in words: consecutive shared rows start in different
 * banks; a row's bytes from its 4-byte aligned start), shared bytes, tiles
 * in all and resident blocks per SM. A cut is even, its length rounded up
 * to whole 32-byte sectors where that still fits: tiles of rows that start
 * on a sector then start on one too (a sector across two tiles is read by
 * both), and there may be fewer pieces than asked. */
typedef struct staged_shape {
    uint64_t across, pitch, shared, tiles;
    uint32_t blocks_per_sm;
} staged_shape;

static staged_shape staged_shape_of(const staged_problem* q, uint64_t pieces)
{
    const uint64_t sector = 32 / q->e;
    staged_shape s;
    s.across = (q->across_size + pieces - 1) / pieces;
    const uint64_t whole_sectors = (s.across + sector - 1) / sector * sector;
    if (pieces > 1 && whole_sectors <= q->most)
        s.across = whole_sectors;
    s.pitch = (s.across * q->e + 3 + 3) / 4;
    s.pitch += s.pitch % 2 == 0;
    s.shared = q->inner * s.pitch * 4;
    s.tiles = q->tiles_per_piece * ((q->across_size + s.across - 1) / s.across);
    s.blocks_per_sm = tiled_blocks_per_sm(s.shared, q->limits);
    return s;
}

/* Resident blocks of the GPU for a shape. */
static uint64_t staged_slots(const staged_problem* q, const staged_shape* s)
{
    return (uint64_t)q->limits->sm_count * s->blocks_per_sm;
}

/* The slots of the tiles' waves (passes of the grid over the resident
 * blocks) that no tile fills: fewer than the slots of one wave, < 2^18. */
static uint64_t wave_waste(const staged_problem* q, const staged_shape* s)
{
    const uint64_t slots = staged_slots(q, s), rest = s->tiles % slots;
    return rest ? slots - rest : 0;
}

/* Whether the tiles fill their waves to within DML_TILE_WAVE_SLACK percent
 * (past 2^64 / 100 tiles, waste < 2^18 is far within). */
static int whole_waves(const staged_problem* q, const staged_shape* s)
{
    const uint64_t waste = wave_waste(q, s), total = s->tiles + waste;
    return total > UINT64_MAX / 100 || waste * 100 <= DML_TILE_WAVE_SLACK * total;
}

/* The fraction of their waves the tiles leave empty, in parts per 2^20
 * (the less the better). */
static uint64_t wave_emptiness(const staged_problem* q, const staged_shape* s)
{
    const uint64_t waste = wave_waste(q, s);
    return (waste << 20) / (s->tiles + waste);
}

/* The fewest elements (of e bytes) a staged tile row may be cut to, when the
 * longest that shared memory holds is `most`: DML_TILE_MIN_ROW_BYTES of
 * input, or half the longest if that is shorter (1- to 8-byte elements: 189,
 * 380, 764, 768 bytes with 48 KiB tiles), so that 1- and 2-byte elements,
 * whose tiles are 128 and 64 rows tall, can still be cut for more tiles. */
uint64_t dml_tile_shortest_row(uint64_t most, uint32_t e)
{
    const uint64_t minimum = (DML_TILE_MIN_ROW_BYTES + e - 1) / e, half = (most + 1) / 2;
    const uint64_t shortest = half < minimum ? half : minimum;
    return shortest > 2 ? shortest : 2;
}

/* How many pieces a staged tile cuts `across` into: the tile shape with the
 * grid in view. A tile is `inner` elements along the output rows (a warp's
 * 128 bytes: its stores' width, fixed); along across:
 *   1. at most what the shared memory a block may have holds (the fewest
 *      pieces, p_min): long tile rows lose little at a misaligned start;
 *   2. when that leaves resident blocks without a tile (tiles < SMs x blocks
 *      per SM), the fewest pieces that give every one a tile, but no piece
 *      shorter than dml_tile_shortest_row (p_max): below it a misaligned
 *      row's partial sectors cost its loads more than idle SMs are worth at
 *      these sizes;
 *   3. when there are tiles for several waves, the fewest pieces from there
 *      (up to DML_TILE_WAVE_SEARCH more, within p_max) whose tile count fills
 *      its last wave to within DML_TILE_WAVE_SLACK percent, else the one
 *      that fills it best: a wave of 4.04 runs as long as 5 full ones. */
static uint64_t staged_pieces(const staged_problem* q)
{
    const uint64_t p_min = (q->across_size + q->most - 1) / q->most;
    /* the most pieces whose length, ceil(across_size / pieces), is at
     * least `shortest` elements (> shortest - 1: shortest > 1 always) */
    const uint64_t shortest = dml_tile_shortest_row(q->most, q->e);
    const uint64_t longest_cut = (q->across_size - 1) / (shortest - 1);
    const uint64_t p_max = longest_cut > p_min ? longest_cut : p_min;
    staged_shape s = staged_shape_of(q, p_min);
    if (s.tiles >= staged_slots(q, &s) && whole_waves(q, &s))
        return p_min;
    uint64_t p = p_min;
    if (s.tiles < staged_slots(q, &s)) {
        /* 2: the fewest pieces that fill the GPU (tiles grow with pieces
         * faster than the slots do, which only the shared memory changes) */
        s = staged_shape_of(q, p_max);
        if (s.tiles < staged_slots(q, &s))
            return p_max;
        uint64_t lo = p_min, hi = p_max; /* tiles(lo) < slots(lo), tiles(hi) >= slots(hi) */
        while (hi - lo > 1) {
            const uint64_t mid = lo + (hi - lo) / 2;
            s = staged_shape_of(q, mid);
            if (s.tiles < staged_slots(q, &s))
                lo = mid;
            else
                hi = mid;
        }
        p = hi;
    }
    /* 3: whole waves */
    uint64_t best = p, least = UINT64_MAX;
    const uint64_t last = p_max - p > DML_TILE_WAVE_SEARCH ? p + DML_TILE_WAVE_SEARCH : p_max;
    for (uint64_t k = p; k <= last; ++k) {
        s = staged_shape_of(q, k);
        if (whole_waves(q, &s))
            return k;
        const uint64_t emptiness = wave_emptiness(q, &s);
        if (emptiness < least) {
            least = emptiness;
            best = k;
        }
    }
    return best;
}

/* A flat load (tile_staged.h) when nothing reverses and the tile rows'
 * input pieces, across whole, are adjacent and short (a warp's width of
 * rows within DML_TILE_FLAT_LOAD_BYTES: SPACE_TO_DEPTH's blocks):
 * the tile spans across, and is tall enough along the output rows, in
 * warps' 128 (256) bytes of them, for DML_TILE_FLAT_LOAD_BYTES of input,
 * halved while that leaves resident blocks without a tile (down to one
 * warp's width). Returns the tile's height, 0 for no flat load. */
static uint64_t flat_load_inner(const dml_gather_params* p, uint32_t e, uint64_t batches, uint64_t inner,
    const dml_cuda_limits* limits)
{
    if (p->axis >= 0 || p->across_size >= DML_TILE_MIN_ROW_BYTES / e ||
        p->in_inner != (int64_t)p->across_size * p->in_across)
        return 0;
    const uint64_t row_bytes = p->across_size * e;
    uint64_t tall = DML_TILE_FLAT_LOAD_BYTES / (inner * row_bytes);
    if (tall < 1)
        return 0; /* pieces of 32 bytes or more: rows load well enough */
    for (; tall > 1; tall /= 2) {
        const uint64_t height = inner * tall, shared = (height * row_bytes + 6) / 4 * 4;
        const uint64_t tiles = batches * ((p->row_length + height - 1) / height);
        if (tiles >= (uint64_t)limits->sm_count * tiled_blocks_per_sm(shared, limits))
            break;
    }
    return inner * tall < p->row_length ? inner * tall : p->row_length;
}

/* A flat load's shape: the tile spans across; one shared row of the
 * range's words from its 4-byte aligned start. */
static void stage_flat_load(dml_gather_params* p, uint32_t e, uint64_t inner)
{
    const uint64_t bytes = inner * p->across_size * e;
    p->tile_inner = (uint32_t)inner;
    p->tile_across = (uint32_t)p->across_size;
    p->stage_pitch = (uint32_t)((bytes + 3 + 3) / 4);
    p->stage_loads = (uint32_t)(((31 + bytes + 3) / 4 + 31) / 32);
    p->stage_flat_load = 1;
}

/* Phase 2's instructions, once the tile's shape is set: per output row
 * piece, or a flat store's over the tile's output (the tile spans the
 * output rows, which are adjacent, and nothing reverses); units from the
 * aligned start to the last byte. */
static void stage_stores(dml_gather_params* p, uint32_t e)
{
    const uint32_t unit = e < 4 ? 4 : e;
    p->stage_flat_store = p->axis < 0 && p->tile_inner == p->row_length && p->out_across == (int64_t)p->row_length;
    const uint64_t bytes = (uint64_t)p->tile_inner * e * (p->stage_flat_store ? p->tile_across : 1);
    p->stage_stores = (uint32_t)(((unit - e + bytes + unit - 1) / unit + 31) / 32);
    p->tile_staged = 1;
}

/* Staged tiles (tile_staged.h) when the output rows are contiguous, each
 * tile row reads one input row and each output row of a tile is one output
 * row (a reversal's lengths do not change along the side it would split).
 * The shape: tile_inner elements along the output rows, 128 bytes of them
 * (256 for 8-byte elements; fewer when the rows are shorter), so that an
 * output row's piece is a warp's words; along across, even pieces of it
 * (staged_pieces), or a flat load's shape (flat_load_inner). */
static int stage_tiles(dml_gather_params* p, uint32_t e, uint64_t batches, const dml_cuda_limits* limits)
{
    if (p->out_inner != 1)
        return 0;
    if (p->axis == DML_TILE_AXIS_ACROSS(p))
        return 0; /* reversed along the input rows */
    if (p->axis == DML_TILE_AXIS_ACROSS_STORED(p) && p->len_inner != 0)
        return 0; /* a unit's elements would go to different output rows */
    if (p->axis >= 0 && p->axis != DML_TILE_AXIS_ACROSS_STORED(p) && p->len_across != 0)
        return 0; /* a tile row would read several input rows */
    uint64_t inner = (e < 8 ? 128 : 256) / e;
    if (inner > p->row_length)
        inner = p->row_length;
    const uint64_t flat_inner = flat_load_inner(p, e, batches, inner, limits);
    if (flat_inner) {
        stage_flat_load(p, e, flat_inner);
        stage_stores(p, e);
        return 1;
    }
    uint64_t pitch = DML_TILE_MAX_SHARED_BYTES / 4 / inner;
    pitch -= pitch % 2 == 0;
    const staged_problem q = { p->across_size, inner, (4 * pitch - 3) / e, /* a row's elements, from any alignment */
        batches * ((p->row_length + inner - 1) / inner), e, limits };
    const staged_shape s = staged_shape_of(&q, staged_pieces(&q));
    const uint64_t across = s.across;
    p->tile_inner = (uint32_t)inner;
    p->tile_across = (uint32_t)across;
    p->stage_pitch = (uint32_t)s.pitch;
    /* words from a row's sector-aligned window start to its last byte */
    p->stage_loads = (uint32_t)(((31 + across * e + 3) / 4 + 31) / 32);
    stage_stores(p, e);
    return 1;
}

/* A 2-D transpose inside the plan: the inner dimension reads the input at
 * a stride other than +-1 while an outer dimension reads it at +-1. That
 * dimension becomes the tile's `across` side and leaves the outer (batch)
 * dimensions; the grid walks tiles. REVERSE_SUBSEQUENCES goes through the
 * tile's index maps (tile_thread.h), its axis renumbered among the batch
 * dimensions or named as one of the tile's sides. */
static int try_tile(const dml_plan* plan, dml_gather_params* p, const dml_cuda_limits* limits)
{
    if (plan->kind == DML_PLAN_SCALE_BIAS || plan->rank < 2 || p->in_inner == 1 || p->in_inner == -1)
        return 0;
    int across = -1;
    for (int d = (int)plan->rank - 2; d >= 0 && across < 0; --d)
        if (plan->in_strides[d] == 1 || plan->in_strides[d] == -1)
            across = d;
    if (across < 0)
        return 0;
    const int inner = (int)plan->rank - 1;
    p->row_length = plan->sizes[inner];
    p->across_size = plan->sizes[across];
    p->in_across = plan->in_strides[across];
    p->out_across = plan->out_strides[across];
    p->len_across = plan->len_strides[across];
    uint32_t batch_rank = 0;
    uint64_t batches = 1;
    int axis = -1;
    for (uint32_t d = 0; d < p->outer_rank; ++d) {
        if ((int)d == across)
            continue;
        if ((int)d == p->axis)
            axis = (int)batch_rank;
        p->outer_sizes[batch_rank] = p->outer_sizes[d];
        p->in_strides[batch_rank] = p->in_strides[d];
        p->out_strides[batch_rank] = p->out_strides[d];
        p->len_strides[batch_rank] = p->len_strides[d];
        batches *= p->outer_sizes[d];
        batch_rank++;
    }
    p->outer_rank = batch_rank;
    if (p->axis == inner)
        axis = DML_TILE_AXIS_INNER(p);
    else if (p->axis == across)
        axis = plan->axis_size == p->across_size ? DML_TILE_AXIS_ACROSS_STORED(p) : DML_TILE_AXIS_ACROSS(p);
    p->axis = axis;
    if (!stage_tiles(p, plan->element_size, batches, limits)) {
        p->tile_inner = p->tile_across = DML_TILE;
        p->tile_staged = 0;
    }
    p->inner_tiles = (p->row_length + p->tile_inner - 1) / p->tile_inner;
    p->row_items = p->inner_tiles * ((p->across_size + p->tile_across - 1) / p->tile_across);
    /* Every tile holds at least one element, so count <= element_count:
     * an index32 plan's tile numbers fit 32 bits too. */
    p->count = batches * p->row_items;
    return DML_CUDA_MODE_TILED;
}

static void narrow(dml_gather_params* p)
{
    p->inner_tiles_divisor = dml_divisor32_make(p->inner_tiles ? (uint32_t)p->inner_tiles : 1);
    p->row_divisor = dml_divisor32_make((uint32_t)p->row_items);
    for (uint32_t d = 0; d < p->outer_rank; ++d) {
        p->outer_divisors[d] = dml_divisor32_make((uint32_t)p->outer_sizes[d]);
        p->in_strides32[d] = (int32_t)p->in_strides[d];
        p->out_strides32[d] = (int32_t)p->out_strides[d];
        p->len_strides32[d] = (int32_t)p->len_strides[d];
    }
}

dml_cuda_limits dml_cuda_h100_limits(uint32_t sm_count)
{
    const dml_cuda_limits h100 = { sm_count, 228 * 1024, 48 * 1024, 1024 };
    return h100;
}

/* The limits as the launcher uses them: 1 to 2^16 SMs (far more than any
 * GPU: a grid-stride step then stays below 2^31, so 32-bit item numbers
 * below count < 2^31 never wrap, gather_thread.h's narrow loop), and at
 * least DML_TILE_MAX_SHARED_BYTES per block and per SM (every GPU the
 * kernels are built for has it), so that every tile fits. */
static dml_cuda_limits sane_limits(const dml_cuda_limits* limits)
{
    dml_cuda_limits l = *limits;
    l.sm_count = l.sm_count == 0 ? 1 : l.sm_count < 65536 ? l.sm_count : 65536;
    if (l.shared_per_block < DML_TILE_MAX_SHARED_BYTES)
        l.shared_per_block = DML_TILE_MAX_SHARED_BYTES;
    if (l.shared_reserved_per_block > 64 * 1024)
        l.shared_reserved_per_block = 64 * 1024;
    if (l.shared_per_sm < DML_TILE_MAX_SHARED_BYTES + l.shared_reserved_per_block)
        l.shared_per_sm = DML_TILE_MAX_SHARED_BYTES + l.shared_reserved_per_block;
    return l;
}

/* TILED: the block's shared memory is its tile's; as many blocks per SM as
 * registers and shared memory allow, one tile per block per pass, full
 * blocks (a tile needs them all). */
static void plan_tiled_grid(dml_cuda_launch* launch, const dml_cuda_limits* limits)
{
    const dml_gather_params* p = &launch->params;
    const uint32_t word = launch->element_size == 8 ? 8 : 4;
    const uint32_t shared_rows = p->stage_flat_load ? 1 : p->tile_inner;
    launch->shared_bytes = p->tile_staged ? shared_rows * p->stage_pitch * 4 : DML_TILE_WORDS * word;
    launch->blocks_per_sm = tiled_blocks_per_sm(launch->shared_bytes, limits);
    const uint64_t resident = (uint64_t)limits->sm_count * launch->blocks_per_sm;
    launch->outer_rank = -1;
    launch->block = DML_CUDA_BLOCK;
    launch->grid = (uint32_t)(p->count < resident ? p->count : resident);
}

/* The launch of a plan; allow_copy 0: a kernel even for a plain copy
 * (a grouped launch's part, group.c). */
static void plan_launch(const dml_plan* plan, const dml_cuda_limits* given, dml_cuda_launch* launch, int allow_copy)
{
    const dml_cuda_limits limits = sane_limits(given);
    if (plan->kind == DML_PLAN_SCALE_BIAS) {
        dml_cuda_plan_scale_bias(plan, limits.sm_count, launch);
        return;
    }
    if (plan->kind == DML_PLAN_PAD) {
        dml_cuda_plan_pad(plan, limits.sm_count, launch);
        return;
    }
    if (plan->kind == DML_PLAN_CAST) {
        dml_cuda_plan_cast(plan, limits.sm_count, launch);
        return;
    }
    if (plan->kind == DML_PLAN_FILL) {
        dml_cuda_plan_fill(plan, limits.sm_count, launch);
        return;
    }
    if (dml_cuda_is_indexed_kind(plan->kind)) {
        dml_cuda_plan_indexed(plan, limits.sm_count, launch);
        return;
    }
    memset(launch, 0, sizeof *launch);
    uint32_t e = plan->element_size;
    if (allow_copy && plan->kind == DML_PLAN_GATHER && plan->rank == 1 && plan->out_strides[0] == 1 &&
        (plan->in_strides[0] == 1 || plan->sizes[0] == 1)) {
        launch->is_copy = 1;
        launch->copy_source_offset = plan->in_offset * (int64_t)e;
        launch->copy_destination_offset = plan->out_offset * (int64_t)e;
        launch->copy_bytes = plan->element_count * e;
        return;
    }
    dml_gather_params* p = &launch->params;
    scalar_params(plan, p);
    launch->element_size = e;
    launch->mode = try_tile(plan, p, &limits);
    if (!launch->mode)
        launch->mode = try_vectorize(plan, p);
    /* The tiled kernels read the reversal from the params. */
    launch->reverse = plan->kind != DML_PLAN_REVERSE_SUBSEQUENCES || launch->mode == DML_CUDA_MODE_TILED
        ? DML_CUDA_REVERSE_NONE
        : (uint32_t)p->axis == p->outer_rank                      ? DML_CUDA_REVERSE_ROW
                                                                  : DML_CUDA_REVERSE_OUTER;
    launch->wide = !plan->index32;
    if (!launch->wide)
        narrow(p);
    if (launch->mode == DML_CUDA_MODE_TILED) {
        plan_tiled_grid(launch, &limits);
        return;
    }
    const uint64_t sms = limits.sm_count;
    launch->blocks_per_sm = DML_GATHER_BLOCKS_PER_SM(launch->mode, e, launch->wide, launch->reverse);
    const uint64_t resident = sms * launch->blocks_per_sm;
    /* Kernels are specialised for small outer ranks on the common path. */
    launch->outer_rank = !launch->wide && !launch->reverse && p->outer_rank <= 2 ? (int)p->outer_rank : -1;

    /* Blocks of 256 threads, each thread DML_CUDA_ITEMS items; a launch too
     * small to give every SM two blocks uses smaller blocks instead, down to
     * two warps, so small tensors still spread over the GPU. */
    uint32_t block = DML_CUDA_BLOCK;
    while (block > 64 && (p->count + (uint64_t)block * DML_CUDA_ITEMS - 1) / ((uint64_t)block * DML_CUDA_ITEMS) < 2 * sms)
        block /= 2;
    launch->block = block;
    uint64_t per_block = (uint64_t)block * DML_CUDA_ITEMS;
    uint64_t blocks = (p->count + per_block - 1) / per_block;
    launch->grid = (uint32_t)(blocks < resident ? blocks : resident);
}

void dml_cuda_plan_launch_on(const dml_plan* plan, const dml_cuda_limits* limits, dml_cuda_launch* launch)
{
    plan_launch(plan, limits, launch, 1);
}

void dml_cuda_plan_kernel_on(const dml_plan* plan, const dml_cuda_limits* limits, dml_cuda_launch* launch)
{
    plan_launch(plan, limits, launch, 0);
}

void dml_cuda_plan_launch(const dml_plan* plan, uint32_t sm_count, dml_cuda_launch* launch)
{
    const dml_cuda_limits limits = dml_cuda_h100_limits(sm_count);
    dml_cuda_plan_launch_on(plan, &limits, launch);
}

void dml_cuda_bind_launch(dml_cuda_launch* launch, const dml_plan_args* args)
{
    launch->bound[0] = args->input;
    launch->bound[1] = args->lengths;
    launch->bound[2] = args->output;
    launch->bound_bytes[0] = args->input_bytes;
    launch->bound_bytes[1] = args->lengths_bytes;
    launch->bound_bytes[2] = args->output_bytes;
    launch->bound[3] = args->input2;
    launch->bound_bytes[3] = args->input2_bytes;
    launch->scale_bias_params.in = args->input;
    launch->scale_bias_params.out = args->output;
    launch->pad_params.in = args->input;
    launch->pad_params.out = args->output;
    launch->cast_params.in = args->input;
    launch->cast_params.out = args->output;
    launch->fill_params.out = args->output;
    launch->indexed_params.in = args->input;
    launch->indexed_params.indices = args->lengths;
    launch->indexed_params.in2 = args->input2;
    launch->indexed_params.out = args->output;
    if (launch->is_copy) {
        launch->copy_source = (const unsigned char*)args->input + launch->copy_source_offset;
        launch->copy_destination = (unsigned char*)args->output + launch->copy_destination_offset;
        return;
    }
    launch->params.in = args->input;
    launch->params.out = args->output;
    launch->params.lengths = args->lengths;
}

void dml_cuda_prepare(const dml_plan* plan, const dml_plan_args* args, uint32_t sm_count, dml_cuda_launch* launch)
{
    dml_cuda_plan_launch(plan, sm_count, launch);
    dml_cuda_bind_launch(launch, args);
}

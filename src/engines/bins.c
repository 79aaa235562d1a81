/* bins.c - hash bins on (comm, source, tag), Flajslik et al. (ISC 2016).
 *
 * The bins, their placement and their search order are in bins_part.h
 * (shared with `adaptive` and `auto`); this engine allocates them once, at
 * creation. */
#include "engines/bins_part.h"
#include "enter.h"

enum { P_BINS, P_SEED };
static const mm_param_info bins_params[] = {
    [P_BINS] = {"bins", "number of hash bins for each of the PRQ and the UMQ", 256, 1, 1 << 20},
    [P_SEED] = {"seed", "seed of the key hash that picks a bin: 0 draws a secret one from the "
                "OS at creation (the default: senders cannot aim keys at one bin); N >= 1 fixes "
                "it, for reproducible depths", 0, 0, INT64_MAX},
};

static void bins_fini(mm_engine *e)
{
    mm_bins *B = e->impl;
    mm_bins_free(e, B);
    mm_mem_free(&e->mem, B, sizeof *B);
}

static int bins_init(mm_engine *e, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    mm_bins *B = mm_mem_calloc(&e->mem, 1, sizeof *B);
    if (!B)
        return MM_ENOMEM;
    mm_queue_init(&B->umq_all, 1);
    B->seed = mm_seed_pick(e->param[P_SEED]);
    if (mm_bins_alloc(e, B, (uint32_t)e->param[P_BINS]) != 0) {
        mm_mem_free(&e->mem, B, sizeof *B);
        return MM_ENOMEM;
    }
    mm_stat_queues(&e->st.umq, 1); /* umq_all */
    e->impl = B;
    return 0;
}

static int bins_post(mm_engine *e, mm_elem *r, mm_elem **partner)
{
    return mm_bins_post(e, e->impl, r, partner);
}

static int bins_arrive(mm_engine *e, mm_elem *m, mm_elem **partner)
{
    return mm_bins_arrive(e, e->impl, m, partner);
}

static mm_elem *bins_probe(mm_engine *e, const mm_key *k, int remove)
{
    return mm_bins_probe(e, e->impl, k, remove);
}

static void bins_cancel(mm_engine *e, mm_elem *r)
{
    mm_bins_cancel(e->impl, r);
}

/* A search reads the seq of queued elements only (the wildcard merge). */
MM_ENGINE_ENTER_LEAN(bins, bins_post, bins_arrive, 1, MM_ENTER_LATE_SEQ)

static const mm_engine_ops bins_ops = {
    .nlinks = 2,        /* a message sits in its bin (link 0) and in umq_all (link 1) */
    .nlinks_recv = 1,   /* a receive sits in its bin or the wildcard list: 48-byte receives */
    .init = bins_init, .fini = bins_fini,
    .post = bins_post, .arrive = bins_arrive,
    .enter_post = bins_enter_post, .enter_arrive = bins_enter_arrive,
    .probe = bins_probe, .cancel = bins_cancel,
};

const mm_engine_def mm_engine_bins = {
    .info = {
        .name = "bins",
        .summary = "hash bins on (comm, source, tag); wildcard receives in their own list, "
                   "order kept by sequence numbers",
        .origin = "Flajslik, Dinan, Underwood: Mitigating MPI message matching misery (ISC 2016)",
        .params = bins_params,
        .nparams = sizeof bins_params / sizeof bins_params[0],
    },
    .ops = &bins_ops,
};

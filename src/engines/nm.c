/* nm.c - NewMadeleine's four structures: constant time with wildcards.
 *
 * The tables, their filing and search are nm_part.h (shared with `auto`):
 * posted receives by wildcard pattern in four keyed tables, (src,tag),
 * (src,*), (*,tag), (*,*), each FIFO's head its earliest match; unexpected
 * messages under all four projections of their key. Paper 002, section II
 * and Table I. The tables hash with one secret seed (parameter seed). */
#include "engines/nm_part.h"
#include "enter.h"

enum { P_SEED };
static const mm_param_info nm_params[] = {
    [P_SEED] = {"seed", "seed of the key hash: 0 draws a secret one from the OS at creation "
                "(the default: senders cannot aim keys at one probe run); N >= 1 fixes it, "
                "for reproducible layouts and probe counts", 0, 0, INT64_MAX},
};

static void nm_fini(mm_engine *e)
{
    mm_nm_fini(e->impl);
    mm_mem_free(&e->mem, e->impl, sizeof(mm_nm));
}

static int nm_init(mm_engine *e, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    mm_nm *N = mm_mem_calloc(&e->mem, 1, sizeof *N);
    if (!N)
        return MM_ENOMEM;
    if (mm_nm_init(e, N, mm_seed_pick(e->param[P_SEED]), 16, 16) != 0) {
        mm_mem_free(&e->mem, N, sizeof *N);
        return MM_ENOMEM;
    }
    e->impl = N;
    return 0;
}

static int nm_post(mm_engine *e, mm_elem *r, mm_elem **partner)
{
    return mm_nm_post(e, e->impl, r, partner);
}

static int nm_arrive(mm_engine *e, mm_elem *m, mm_elem **partner)
{
    return mm_nm_arrive(e, e->impl, m, partner);
}

static mm_elem *nm_probe(mm_engine *e, const mm_key *k, int remove)
{
    return mm_nm_probe(e, e->impl, k, remove);
}

static void nm_cancel(mm_engine *e, mm_elem *r)
{
    mm_nm_cancel(e, e->impl, r);
}

MM_ENGINE_ENTER(nm, nm_post, nm_arrive, 1)

static const mm_engine_ops nm_ops = {
    .nlinks = MM_NM_NPAT,
    .nlinks_recv = 1,   /* a receive sits in one table: 48-byte receives, not 96 */
    .init = nm_init, .fini = nm_fini,
    .post = nm_post, .arrive = nm_arrive,
    .enter_post = nm_enter_post, .enter_arrive = nm_enter_arrive,
    .probe = nm_probe, .cancel = nm_cancel,
};

const mm_engine_def mm_engine_nm = {
    .info = {
        .name = "nm",
        .summary = "four keyed tables for (src,tag), (src,*), (*,tag), (*,*) with sequence "
                   "numbers: constant time even with wildcards",
        .origin = "NewMadeleine (pm2 nmad), as the MPI 4.0 hints matching paper describes it (section II, Table I)",
        .params = nm_params,
        .nparams = sizeof nm_params / sizeof nm_params[0],
    },
    .ops = &nm_ops,
};

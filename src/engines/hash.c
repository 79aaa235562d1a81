/* hash.c - one hash table on (comm, source, tag) with a FIFO per key.
 *
 * Paper 002, Algorithm 1: with the MPI 4.0 assertions no_any_source and
 * no_any_tag every receive names one key, so the earliest partner is always
 * the head of one FIFO: a lookup, no search. The engine refuses to be
 * created without both hints, and the API refuses wildcard operations on it,
 * so it can never match wrongly. Nor can a key then have receives and
 * messages queued at once, so one table files both sides' keys. The table
 * and its search are hash_part.h (shared with `auto`); it hashes with a
 * secret seed per engine (parameter seed). */
#include "engines/hash_part.h"
#include "enter.h"

enum { P_CAPACITY, P_SEED };
static const mm_param_info hash_params[] = {
    [P_CAPACITY] = {"capacity", "initial slots of the table, which files both sides' keys "
                    "(grows by doubling at half load)", 1024, 16, MM_FTABLE_MAX_CAP},
    [P_SEED] = {"seed", "seed of the key hash: 0 draws a secret one from the OS at creation "
                "(the default: senders cannot aim keys at one probe run); N >= 1 fixes it, "
                "for reproducible layouts and probe counts", 0, 0, INT64_MAX},
};

static int hash_init(mm_engine *e, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    mm_hash *H = mm_mem_alloc(&e->mem, sizeof *H);
    if (!H)
        return MM_ENOMEM;
    uint32_t cap = (uint32_t)e->param[P_CAPACITY];
    if (mm_hash_init(e, H, cap, mm_seed_pick(e->param[P_SEED])) != 0) {
        mm_mem_free(&e->mem, H, sizeof *H);
        return MM_ENOMEM;
    }
    e->impl = H;
    return 0;
}

static void hash_fini(mm_engine *e)
{
    mm_hash_fini(e, e->impl);
    mm_mem_free(&e->mem, e->impl, sizeof(mm_hash));
}

static int hash_post(mm_engine *e, mm_elem *r, mm_elem **partner)
{
    return mm_hash_post(e, e->impl, r, partner);
}

static int hash_arrive(mm_engine *e, mm_elem *m, mm_elem **partner)
{
    return mm_hash_arrive(e, e->impl, m, partner);
}

static int hash_post_try(mm_engine *e, mm_elem *r, mm_elem **partner, uint32_t *how)
{
    return mm_hash_post_try(e, e->impl, r, partner, how);
}

static int hash_arrive_try(mm_engine *e, mm_elem *m, mm_elem **partner, uint32_t *how)
{
    return mm_hash_arrive_try(e, e->impl, m, partner, how);
}

static int hash_post_resume(mm_engine *e, mm_elem *r, mm_elem **partner, uint32_t how)
{
    return mm_hash_post_resume(e, e->impl, r, partner, how);
}

static int hash_arrive_resume(mm_engine *e, mm_elem *m, mm_elem **partner, uint32_t how)
{
    return mm_hash_arrive_resume(e, e->impl, m, partner, how);
}

static mm_elem *hash_probe(mm_engine *e, const mm_key *k, int remove)
{
    return mm_hash_probe(e, e->impl, k, remove);
}

static void hash_cancel(mm_engine *e, mm_elem *r)
{
    mm_hash_cancel(e, e->impl, r);
}

/* may_fail 0: a failed post or arrival (out of memory for the table) leaves
 * only the search count and miss that mm_enter takes back (hash_part.h).
 * One pool (nlinks 1, no nlinks_recv), and neither post nor arrive reads
 * the new element's seq (the table keys on comm, src, tag; a FIFO's order is
 * its order of appends): the lean entry's two promises hold. The first try
 * (a key in its home slot or the memo) is inline; a probe run or a new key
 * resumes out of line with the try's hash (hash_part.h, mm_hash_enter). */
MM_ENGINE_ENTER_RESUME(hash, hash_post_try, hash_arrive_try, hash_post_resume,
                       hash_arrive_resume, hash_post, hash_arrive, 0,
                       MM_ENTER_ONE_POOL | MM_ENTER_LATE_SEQ)

static const mm_engine_ops hash_ops = {
    .nlinks = 1,
    .init = hash_init, .fini = hash_fini,
    .post = hash_post, .arrive = hash_arrive,
    .enter_post = hash_enter_post, .enter_arrive = hash_enter_arrive,
    .probe = hash_probe, .cancel = hash_cancel,
};

const mm_engine_def mm_engine_hash = {
    .info = {
        .name = "hash",
        .summary = "one seeded hash table on (comm, source, tag), the FIFO of each key in its "
                   "slot; no wildcards",
        .origin = "Hint-driven MPI matching with the MPI 4.0 assertions (MPC-MPI), Algorithm 1",
        .hints_required = MM_HINT_NO_ANY_SOURCE | MM_HINT_NO_ANY_TAG,
        .params = hash_params,
        .nparams = sizeof hash_params / sizeof hash_params[0],
    },
    .ops = &hash_ops,
};

/* adaptive.c - a list that turns into hash bins under load, and back.
 *
 * Bayatpour, Subramoni, Chakraborty, Panda: "Adaptive and Dynamic Design for
 * MPI Tag Matching" (IEEE CLUSTER 2016, MVAPICH2): start with the plain
 * lists; when the running average of elements traversed per search exceeds
 * a threshold, switch to hash bins (bins_part.h, as the `bins` engine).
 *
 * Every queued element is always on one of two ordered lists, threaded
 * through link 1: prq_all (receives, posting order) and umq_all (messages,
 * arrival order). In the list phase they are the PRQ and the UMQ and
 * searches walk them as `list` does. Switching to bins walks both lists once
 * and appends each element to its bin or to the wildcard list (link 0):
 * because the walk is in sequence order, every bin is a FIFO in sequence
 * order, which is all the bins' merged search needs. Switching back frees
 * the bins: the link-1 lists are still there, in order, so it moves nothing.
 *
 * Switching back (our choice; the paper switches towards bins): when at most
 * `low` elements are queued on both sides together, no list search can walk
 * more than `low` elements, so the bins' hashing and extra unlinking no
 * longer pay. With low < threshold the two conditions leave a band in which
 * neither fires (hysteresis), so the engine does not flap. */
#include "engines/bins_part.h"
#include "enter.h"

enum { P_THRESHOLD, P_BINS, P_LOW, P_SEED };
static const mm_param_info adaptive_params[] = {
    [P_THRESHOLD] = {"threshold", "switch to bins when the running average of elements traversed "
                     "per search (last ~16 searches) exceeds this", 32, 1, 1 << 20},
    [P_BINS] = {"bins", "number of hash bins for each of the PRQ and the UMQ in the bins phase",
                256, 1, 1 << 20},
    [P_LOW] = {"low", "switch back to the lists when at most this many elements are queued "
               "(PRQ and UMQ together); -1: never switch back", 8, -1, 1 << 20},
    [P_SEED] = {"seed", "seed of the key hash that picks a bin: 0 draws a secret one from the "
                "OS at creation (the default: senders cannot aim keys at one bin); N >= 1 fixes "
                "it, for reproducible depths", 0, 0, INT64_MAX},
};

/* The running average is an exponentially weighted mean over about
 * 2^WINDOW_SHIFT searches, kept scaled by 2^WINDOW_SHIFT in integers. */
enum { WINDOW_SHIFT = 4 };

typedef struct adaptive_impl {
    mm_bins  B;         /* B.prq == NULL in the list phase; B.umq_all always */
    mm_queue prq_all;   /* every queued receive, posting order (link 1) */
    uint64_t avg;       /* running average depth << WINDOW_SHIFT (list phase) */
    uint64_t limit;     /* threshold << WINDOW_SHIFT */
    int64_t  low;
    uint32_t nbins;
} adaptive_impl;

static int adaptive_init(mm_engine *e, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    adaptive_impl *A = mm_mem_calloc(&e->mem, 1, sizeof *A);
    if (!A)
        return MM_ENOMEM;
    mm_queue_init(&A->prq_all, 1);
    mm_queue_init(&A->B.umq_all, 1);
    A->limit = (uint64_t)e->param[P_THRESHOLD] << WINDOW_SHIFT;
    A->nbins = (uint32_t)e->param[P_BINS];
    A->low = e->param[P_LOW];
    A->B.seed = mm_seed_pick(e->param[P_SEED]);
    mm_stat_queues(&e->st.prq, 1);
    mm_stat_queues(&e->st.umq, 1);
    e->impl = A;
    return 0;
}

static void adaptive_fini(mm_engine *e)
{
    adaptive_impl *A = e->impl;
    mm_bins_free(e, &A->B);
    mm_mem_free(&e->mem, A, sizeof *A);
}

static inline int in_bins(const adaptive_impl *A)
{
    return A->B.prq != NULL;
}

/* List phase -> bins phase: allocate the bins (timed as allocation), then
 * file every queued element, in sequence order (timed as the switch). */
static void to_bins(mm_engine *e, adaptive_impl *A)
{
    uint64_t t0 = mm_now_ns();
    int rc = mm_bins_alloc(e, &A->B, A->nbins);
    mm_overhead_add(e, &e->st.overhead.alloc_ns, t0);
    A->avg = 0; /* on failure, stay a list and retry after a new window */
    if (rc != 0)
        return;
    t0 = mm_now_ns();
    mm_queue_foreach(r, &A->prq_all)
        mm_bins_queue_recv(&A->B, r);
    mm_queue_foreach(m, &A->B.umq_all)
        mm_bins_bin_message(&A->B, m);
    mm_overhead_add(e, &e->st.overhead.extract_ns, t0);
}

/* Bins phase -> list phase: the link-1 lists already hold everything in
 * order; the bins' links are dropped with the bins. */
static void to_list(mm_engine *e, adaptive_impl *A)
{
    uint64_t t0 = mm_now_ns();
    mm_bins_free(e, &A->B);
    A->avg = 0;
    mm_overhead_add(e, &e->st.overhead.extract_ns, t0);
}

/* Called before every search: two compares in the steady state. */
static inline void adapt(mm_engine *e, adaptive_impl *A)
{
    if (!in_bins(A)) {
        if (A->avg > A->limit)
            to_bins(e, A);
    } else if (A->low >= 0 && e->st.prq.length + e->st.umq.length <= (uint64_t)A->low) {
        to_list(e, A);
    }
}

/* A list-phase search of q; its depth feeds the running average. */
static mm_elem *list_find(adaptive_impl *A, const mm_queue *q, const mm_key *k, int recv_key,
                          mm_qstats *st)
{
    uint64_t depth = 0;
    mm_elem *x = mm_queue_find(q, k, recv_key, MM_SEQ_NONE, &depth);
    mm_stat_search(st, depth, x != NULL);
    A->avg = A->avg - (A->avg >> WINDOW_SHIFT) + depth;
    return x;
}

static mm_elem *find_message(mm_engine *e, adaptive_impl *A, const mm_key *k)
{
    if (in_bins(A))
        return mm_bins_find_message(e, &A->B, k);
    return list_find(A, &A->B.umq_all, k, 1, &e->st.umq);
}

static void unlink_message(adaptive_impl *A, mm_elem *m)
{
    if (in_bins(A))
        mm_bins_unlink_message(&A->B, m);
    else
        mm_queue_remove(&A->B.umq_all, m);
}

/* Unlink receive r: in the bins phase from bin `from` (NULL: the wildcard
 * list), as mm_bins_find_recv found it. */
static void unlink_recv(adaptive_impl *A, mm_elem *r, mm_hqueue *from)
{
    if (in_bins(A))
        mm_bins_unlink_recv_from(&A->B, r, from);
    mm_queue_remove(&A->prq_all, r);
}

/* Would x find a partner? The link-1 lists hold every element in order in
 * both phases; a look at them changes nothing (no switch, no average), so
 * an element that cannot be queued (mm_may_queue) and has no partner leaves
 * the engine as it was. */
static int has_partner(adaptive_impl *A, const mm_elem *x, int x_is_recv)
{
    uint64_t depth = 0;
    const mm_queue *q = x_is_recv ? &A->B.umq_all : &A->prq_all;
    return mm_queue_find(q, &x->key, x_is_recv, MM_SEQ_NONE, &depth) != NULL;
}

static int adaptive_post(mm_engine *e, mm_elem *r, mm_elem **partner)
{
    adaptive_impl *A = e->impl;
    if (!mm_may_queue(r) && !has_partner(A, r, 1))
        return MM_ENOMEM;
    adapt(e, A);
    mm_elem *m = find_message(e, A, &r->key);
    if (m) {
        unlink_message(A, m);
        *partner = m;
        return MM_MATCHED;
    }
    if (in_bins(A))
        mm_bins_queue_recv(&A->B, r);
    mm_queue_push(&A->prq_all, r);
    return MM_QUEUED;
}

static int adaptive_arrive(mm_engine *e, mm_elem *m, mm_elem **partner)
{
    adaptive_impl *A = e->impl;
    if (!mm_may_queue(m) && !has_partner(A, m, 0))
        return MM_ENOMEM;
    adapt(e, A);
    mm_hqueue *from = NULL;
    mm_elem *r = in_bins(A) ? mm_bins_find_recv(e, &A->B, m, &from)
                            : list_find(A, &A->prq_all, &m->key, 0, &e->st.prq);
    if (r) {
        unlink_recv(A, r, from);
        *partner = r;
        return MM_MATCHED;
    }
    if (in_bins(A))
        mm_bins_queue_message(&A->B, m);
    else
        mm_queue_push(&A->B.umq_all, m);
    return MM_QUEUED;
}

static mm_elem *adaptive_probe(mm_engine *e, const mm_key *k, int remove)
{
    adaptive_impl *A = e->impl;
    adapt(e, A);
    mm_elem *m = find_message(e, A, k);
    if (m && remove)
        unlink_message(A, m);
    return m;
}

static void adaptive_cancel(mm_engine *e, mm_elem *r)
{
    adaptive_impl *A = e->impl;
    if (in_bins(A))
        mm_bins_unlink_recv(&A->B, r);
    mm_queue_remove(&A->prq_all, r);
}

MM_ENGINE_ENTER(adaptive, adaptive_post, adaptive_arrive, 1)

static const mm_engine_ops adaptive_ops = {
    .nlinks = 2,
    .init = adaptive_init, .fini = adaptive_fini,
    .post = adaptive_post, .arrive = adaptive_arrive,
    .enter_post = adaptive_enter_post, .enter_arrive = adaptive_enter_arrive,
    .probe = adaptive_probe, .cancel = adaptive_cancel,
};

const mm_engine_def mm_engine_adaptive = {
    .info = {
        .name = "adaptive",
        .summary = "plain lists until the running average search depth passes a threshold, "
                   "then hash bins; back to lists when the queues run nearly empty",
        .origin = "Bayatpour, Subramoni, Chakraborty, Panda: Adaptive and dynamic design for "
                  "MPI tag matching (IEEE CLUSTER 2016, MVAPICH2)",
        .params = adaptive_params,
        .nparams = sizeof adaptive_params / sizeof adaptive_params[0],
    },
    .ops = &adaptive_ops,
};

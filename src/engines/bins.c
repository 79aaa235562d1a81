/* bins.c - hash bins on (comm, source, tag), Flajslik et al. (ISC 2016).
 *
 * A fixed number of bins, each a FIFO holding elements of every key that
 * hashes there. Fully specified receives go to their bin; receives with a
 * wildcard go to one wildcard list, and an arrival searches its bin and the
 * wildcard list merged by sequence number. Unexpected messages sit in their
 * bin (link 0) and also in one arrival-ordered list of all unexpected
 * messages (link 1), which is what a wildcard receive walks. */
#include "engine.h"
#include "core/queue.h"

typedef struct bins_impl {
    uint32_t  nbins;
    mm_queue *prq;      /* [nbins] specific receives   */
    mm_queue *umq;      /* [nbins] unexpected messages */
    mm_queue  wild;     /* receives with a wildcard    */
    mm_queue  umq_all;  /* every unexpected message, in arrival order (link 1) */
} bins_impl;

enum { P_BINS };
static const mm_param_info bins_params[] = {
    [P_BINS] = {"bins", "number of hash bins for each of the PRQ and the UMQ", 256, 1, 1 << 20},
};

static inline uint32_t bin_of(const bins_impl *B, const mm_key *k)
{
    return (uint32_t)(((uint64_t)mm_key_hash(k) * B->nbins) >> 32);
}

static void bins_fini(mm_engine *e)
{
    bins_impl *B = e->impl;
    mm_mem_free(&e->prq_mem, B->prq, B->nbins * sizeof(mm_queue));
    mm_mem_free(&e->umq_mem, B->umq, B->nbins * sizeof(mm_queue));
    mm_mem_free(&e->mem, B, sizeof *B);
}

static int bins_init(mm_engine *e, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    uint32_t n = (uint32_t)e->param[P_BINS];
    bins_impl *B = mm_mem_calloc(&e->mem, 1, sizeof *B);
    if (!B)
        return MM_ENOMEM;
    B->nbins = n;
    e->impl = B;
    B->prq = mm_mem_alloc(&e->prq_mem, n * sizeof(mm_queue));
    B->umq = mm_mem_alloc(&e->umq_mem, n * sizeof(mm_queue));
    if (!B->prq || !B->umq) {
        bins_fini(e);
        return MM_ENOMEM;
    }
    for (uint32_t i = 0; i < n; i++) {
        mm_queue_init(&B->prq[i], 0);
        mm_queue_init(&B->umq[i], 0);
    }
    mm_queue_init(&B->wild, 0);
    mm_queue_init(&B->umq_all, 1);
    mm_stat_queues(&e->st.prq, n + 1);
    mm_stat_queues(&e->st.umq, n + 1);
    return 0;
}

static mm_elem *find_message(mm_engine *e, const mm_key *k)
{
    bins_impl *B = e->impl;
    uint64_t depth = 0;
    mm_queue *q = mm_key_wild(k) ? &B->umq_all : &B->umq[bin_of(B, k)];
    mm_elem *m = mm_queue_find(q, k, 1, MM_SEQ_NONE, &depth);
    mm_stat_search(&e->st.umq, depth, m != NULL);
    return m;
}

static void unlink_message(bins_impl *B, mm_elem *m)
{
    mm_queue_remove(&B->umq[bin_of(B, &m->key)], m);
    mm_queue_remove(&B->umq_all, m);
}

static inline mm_queue *recv_queue(bins_impl *B, const mm_key *k)
{
    return mm_key_wild(k) ? &B->wild : &B->prq[bin_of(B, k)];
}

static int bins_post(mm_engine *e, mm_elem *r, mm_elem **partner)
{
    bins_impl *B = e->impl;
    mm_elem *m = find_message(e, &r->key);
    if (m) {
        unlink_message(B, m);
        *partner = m;
        return MM_MATCHED;
    }
    mm_queue_push(recv_queue(B, &r->key), r);
    return MM_QUEUED;
}

static int bins_arrive(mm_engine *e, mm_elem *m, mm_elem **partner)
{
    bins_impl *B = e->impl;
    uint32_t b = bin_of(B, &m->key);
    uint64_t depth = 0;
    mm_queue *from = &B->prq[b];
    mm_elem *best = mm_queue_find(from, &m->key, 0, MM_SEQ_NONE, &depth);
    mm_elem *w = mm_queue_find(&B->wild, &m->key, 0, best ? best->seq : MM_SEQ_NONE, &depth);
    if (w) {
        best = w;
        from = &B->wild;
    }
    mm_stat_search(&e->st.prq, depth, best != NULL);
    if (best) {
        mm_queue_remove(from, best);
        *partner = best;
        return MM_MATCHED;
    }
    mm_queue_push(&B->umq[b], m);
    mm_queue_push(&B->umq_all, m);
    return MM_QUEUED;
}

static mm_elem *bins_probe(mm_engine *e, const mm_key *k, int remove)
{
    mm_elem *m = find_message(e, k);
    if (m && remove)
        unlink_message(e->impl, m);
    return m;
}

static void bins_cancel(mm_engine *e, mm_elem *r)
{
    mm_queue_remove(recv_queue(e->impl, &r->key), r);
}

static const mm_engine_ops bins_ops = {
    .nlinks = 2,
    .init = bins_init, .fini = bins_fini,
    .post = bins_post, .arrive = bins_arrive,
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

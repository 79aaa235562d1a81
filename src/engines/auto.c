/* auto.c - starts as a list and moves, online, to the structure the
 * workload's features call for: list, bins, nm, or hash (the last only when
 * both MPI 4.0 assertions, no_any_source and no_any_tag, hold), and back.
 *
 * The structures are the engines' own parts (list_part.h, bins_part.h,
 * nm_part.h, hash_part.h): one of them holds every queued element at a time.
 * A switch collects the queued elements of each side in sequence order (the
 * list's own queues; from another structure, the API's pools, where every
 * queued element is marked MM_ELEM_QUEUED, sorted by sequence number) and
 * files them, in that order, into the new structure:
 * every structure keeps each of its FIFOs in sequence order and merges them
 * by sequence number, so the same calls give the same matches whichever
 * structure answers them. A structure that cannot be built (out of memory)
 * leaves the engine a list, which needs no allocation.
 *
 * The rule (docs/engines.md, "auto", says where the numbers come from): the
 * calls are cut into windows of `window` calls (post, arrive, probe), and a
 * window starts again at every switch, so there is at most one switch per
 * window. Features of a window:
 *   D     elements traversed per search (the searches' total depth over
 *         their number): in the list phase what the list costs, in the bins
 *         phase what bins costs;
 *   Dnm   in the nm phase, what bins would traverse per call, at most: an
 *         arrival its bin (queued receives / bins) and the queued wildcard
 *         receives (bins' wildcard list); a receive its bin of messages
 *         (queued messages / bins), or with a wildcard every queued message
 *         (bins' arrival list);
 *   Wq    wildcard receives queued (nm phase, at the window's end);
 *   Lmax  the largest number of queued elements (PRQ + UMQ) at a call.
 * List -> keyed as soon as the traversal of at most `window` searches
 * exceeds up x window, that is when D over a window would exceed `up`, or
 * a single search walks more than that, or, when the evidence is clear
 * sooner, the searches of one side since the last check point walked more
 * than 4 x `up` each and at least a step in all. The list phase's only
 * per-call work is one compare of the search's walk with 1, in a register;
 * a search that walked more takes its walk from a credit of a step (an
 * eighth of that budget), and one that exhausts it has the next call decide
 * with the statistics' counters (list_window: the window slides at each
 * check point), so a deep queue costs a step or two of list searches (a
 * receive's empty searches, in the other side, do not dilute what the
 * arrivals walk), and searches that walk at most one element (every match
 * at a head), which cannot call for a switch, touch nothing. Keyed is,
 * with both hints, hash (its move, in bulk, costs about what the move into
 * bins does, and its calls are faster at every queue length: branch
 * auto18k); without, nm when bins would traverse more than `nm` per search
 * (receives per bin plus the wildcard receives), else bins. Without both
 * hints, bins' tables are allocated (and emptied) at creation and kept
 * outside the hash phase, so a switch to bins allocates nothing; the
 * list's elements are relinked straight from its queues into bins, and
 * with both hints into hash (its one table, at most half full, as
 * `hash`'s own at their peak, and no larger: hash_slots; the first one
 * made at creation, later ones at the switch). With both hints the engine
 * is in bins or nm only by `force`. Bins -> nm when D over the last HOLD
 * (4) windows exceeds `nm`; nm ->
 * bins when Dnm over the last HOLD windows is at most nm / 2, Wq <= `down`,
 * and the most elements queued since the switch, per bin, at most nm / 2
 * (wildcard traffic comes in bursts and phases: receives posted in one
 * window, matched in the next; a queue drains within a round and fills in
 * the next).
 * Keyed -> list at the end of a window whose Lmax <= `down`: no list search
 * can then walk more than `down` elements. With down < up, the band between
 * them is the hysteresis: a window with Lmax <= down has D <= down < up, so
 * it cannot send the engine back up.
 *
 * For tests, `force` = N >= 1 replaces the rule by switches at random
 * points: after about one post or arrive in N, to a structure drawn at
 * random (seeded by `seed`). */
#include <stdlib.h>
#include <string.h>
#include "engines/list_part.h"
#include "engines/bins_part.h"
#include "engines/nm_part.h"
#include "engines/hash_part.h"
#include "enter.h"

enum { PH_LIST, PH_BINS, PH_NM, PH_HASH, NPHASE };
enum { PH_KEYED = NPHASE }; /* leaving the list: the keyed structure for the queues moved */
enum { HOLD = 4 }; /* windows over which bins <-> nm is decided */

enum { P_WINDOW, P_UP, P_DOWN, P_NM, P_BINS, P_SEED, P_FORCE };
static const mm_param_info auto_params[] = {
    [P_WINDOW] = {"window", "calls (post, arrive, probe) per window: the features are measured "
                  "over a window, and the engine switches at most once per window", 64, 1,
                  1 << 24},
    [P_UP] = {"up", "leave the list (for hash with both hints, else bins or nm) when the "
              "elements traversed per search over a window exceed this",
              6, 1, 1 << 20},
    [P_DOWN] = {"down", "go back to the list after a window in which at most this many elements "
                "were queued (PRQ and UMQ together) at every call; -1: never", 4, -1, 1 << 20},
    [P_NM] = {"nm", "leave the list for nm instead of bins when bins would traverse more than "
              "this per search (the queued receives per bin plus the queued wildcard "
              "receives); leave bins for nm when the elements traversed per search over 4 "
              "windows exceed it; back to bins when bins would traverse at most half of it, "
              "at the nm phase's peak too, and at most `down` wildcard receives are queued",
              24, 1, 1 << 20},
    [P_BINS] = {"bins", "number of hash bins of each side in the bins structure (which the "
                "rule takes without both hints only)",
                256, 1, 1 << 20},
    [P_SEED] = {"seed", "seed of the key hash of bins, nm and hash (and of the forced switches): "
                "0 draws a secret one from the OS at creation; N >= 1 fixes it", 0, 0, INT64_MAX},
    [P_FORCE] = {"force", "0: switch by the rule; N >= 1: for testing, switch after about one post "
                 "or arrive in N, at random, to a structure drawn at random", 0, 0, 1 << 30},
};

typedef struct auto_impl {
    /* What the list phase reads at every call: the list's two queues first,
     * at the engine's impl pointer itself (as `list`'s, whose impl is its
     * mm_list: the lean entries address the PRQ with no offset, one
     * instruction less per call), and, after the union (1 KB in: nm's
     * tables), the phase and the trip point, on a cache line of their own. */
    union {
        mm_list L;
        mm_bins B;
        mm_nm   N;
        mm_hash H;
    } u;
    int      phase;
    uint32_t left;                  /* keyed phases: calls left in the window (1 under force) */
    uint64_t trip;                  /* list phase: the next check point (0 under force): a
                                       traversal reaching it calls list_window (generic
                                       entries; the lean ones count `credit`) */
    uint64_t credit;                /* list phase, lean entries: what the searches that walk
                                       more than one element may still walk before the next
                                       check point */
    uint64_t walked;                /* list phase: a search of the lean entries that walked
                                       this many (> 1) elements reached the check point, and
                                       the next call runs list_window (0: none) */
    /* the current window */
    uint64_t est;                   /* nm phase: what bins would traverse, over HOLD windows */
    uint64_t wq;                    /* nm phase: wildcard receives queued */
    /* bins <-> nm is decided over HOLD windows: */
    uint32_t lwin;                  /* windows since the last decision */
    uint64_t lt0;                   /* elements traversed at its start */
    uint64_t lmax;                  /* most elements queued at a call (keyed phases) */
    uint64_t peak;                  /* the same since the last switch */
    uint64_t t0;                    /* elements traversed (both sides) at its start */
    uint64_t s0;                    /* searches (both sides) at its start */
    uint64_t cp[2][2];              /* list phase: each side's (PRQ, UMQ) traversed and
                                       searches at the last check point */
    uint64_t budget;                /* up x window */
    uint64_t up;
    uint64_t step;                  /* list phase: traversal between checks, budget / 8 */
    uint64_t nm_budget;             /* nm x window */
    uint64_t nm_depth;              /* nm */
    /* parameters */
    uint32_t window, nbins;
    int64_t  down;
    uint64_t seed, force, rng;
    int      hinted;                /* both hints: hash allowed (and no wildcards) */
    int      own_entries;           /* e->enter_post, enter_arrive are auto's (set_entries;
                                       -1 in auto_init until set_entries looks) */
    /* bins' tables, allocated at creation and kept but in the hash phase
     * (warm_make, warm_drop): a switch to bins only empties them (NULL:
     * allocated at the switch) */
    mm_hqueue *warm_prq, *warm_umq;
    int       warm_dirty;           /* some queue of them may be non-empty */
    /* with both hints, the hash phase's first table (`hash`'s own start,
     * HASH_START slots), made empty at creation as `hash` makes its own,
     * for the first switch to hash that it is large enough for (hash_open) */
    mm_hash   warm_hash;
    int       warm_hash_ok;         /* warm_hash is made and unused */
} auto_impl;

_Static_assert(offsetof(auto_impl, u.L) == 0,
               "the list phase's queues are at e->impl: list's own entries and probe serve it");

static uint64_t traversed(const mm_engine *e)
{
    return e->st.prq.traversed + e->st.umq.traversed;
}

static uint64_t searches(const mm_engine *e)
{
    return e->st.prq.searches + e->st.umq.searches;
}

static void checkpoint(const mm_engine *e, auto_impl *A)
{
    A->cp[0][0] = e->st.prq.traversed;
    A->cp[0][1] = e->st.prq.searches;
    A->cp[1][0] = e->st.umq.traversed;
    A->cp[1][1] = e->st.umq.searches;
}

/* Since the last check point, did one side's searches walk more than 4 x
 * `up` per search, and at least a step (budget / 8) in all? */
static int clearly_deep(const mm_engine *e, const auto_impl *A)
{
    const mm_qstats *side[2] = {&e->st.prq, &e->st.umq};
    for (int i = 0; i < 2; i++) {
        uint64_t dt = side[i]->traversed - A->cp[i][0], ds = side[i]->searches - A->cp[i][1];
        if (side[i]->traversed >= A->cp[i][0] && side[i]->searches >= A->cp[i][1] &&
            dt >= A->step && dt > 4 * A->up * ds)
            return 1;
    }
    return 0;
}

static void window_start(mm_engine *e, auto_impl *A)
{
    A->left = A->force ? 1 : A->window;
    A->lmax = 0;
    A->t0 = traversed(e);
    A->s0 = searches(e);
    A->trip = A->force ? 0 : A->t0 + A->step;
    A->credit = A->step;
    checkpoint(e, A);
}

/* ---- the structures ---- */

/* Bins' warm tables (2 x `bins` queue heads): made empty at creation and
 * kept while the engine may go to bins without a move through the hash
 * phase, dropped for the hash phase (which never files into them) before
 * its tables are allocated, so that the two are never held together at
 * the hash phase's peak, and made again when the engine leaves it. On
 * failure they stay NULL (bins then allocates its tables at the switch), as
 * they do with both hints, where the rule never takes bins (only `force`
 * does). */
static void warm_make(mm_engine *e, auto_impl *A)
{
    if (A->warm_prq || A->hinted) /* (with both hints the rule never takes bins) */
        return;
    (void)mm_bins_tables_alloc(e, A->nbins, &A->warm_prq, &A->warm_umq); /* (NULL on failure) */
    A->warm_dirty = 0;
}

/* (not while the bins phase holds them) */
static void warm_drop(mm_engine *e, auto_impl *A)
{
    size_t tb = mm_bins_table_bytes(A->nbins);
    mm_mem_free(&e->prq_mem, A->warm_prq, tb);
    mm_mem_free(&e->umq_mem, A->warm_umq, tb);
    A->warm_prq = A->warm_umq = NULL;
    A->warm_dirty = 0;
}

/* The hash phase's table for n queued elements (both sides): the next
 * power of two of 4 slots per element up to `hash`'s own start (its
 * parameter capacity, 1024), of 2 slots per element beyond, so at most
 * half full after the move, as `hash`'s own table after its growth (none
 * while they are filed), and never larger than `hash`'s. `shuffle` n=256
 * moved 256 receives into 512 slots, half full, where a call's key was not
 * in its home slot one time in four and a call inspected 1.37 slots,
 * against one in nine and 1.13 in `hash`'s 1024; but a table of 1024 for
 * a small queue is 12 KB to clear at the switch (16 KB with the 16-byte
 * slots of the measurement: `shuffle` n=32, about 4 ns per event). Branch
 * auto18k. */
enum { HASH_START = 1024 };
static uint32_t hash_slots(size_t n)
{
    if (n >= MM_FTABLE_MAX_CAP / 2)
        return MM_FTABLE_MAX_CAP;
    uint32_t two = 2 * (uint32_t)n, four = 2 * two;
    return two >= HASH_START ? two : four < HASH_START ? four : HASH_START;
}

/* The hash phase's empty table H for n elements (hash_slots): the warm one
 * made at creation when it is large enough (nothing allocated, nothing to
 * clear: the first switch to hash of `shuffle` n=64 to 256), else a new
 * one (the warm one, too small, released first). 0 or MM_ENOMEM (nothing
 * held). */
static int hash_open(mm_engine *e, auto_impl *A, mm_hash *H, size_t n)
{
    if (A->warm_hash_ok) {
        A->warm_hash_ok = 0;
        if (hash_slots(n) <= A->warm_hash.t.mask + 1) {
            *H = A->warm_hash;
            return 0;
        }
        mm_hash_fini(e, &A->warm_hash);
    }
    return mm_hash_init(e, H, hash_slots(n), A->seed);
}

static mm_elem *auto_probe(mm_engine *e, const mm_key *k, int remove);

/* Enter phase p: the phase, and the probe that serves it (e->probe: in the
 * list phase list.c's, which takes e->impl for its mm_list). */
static void set_phase(mm_engine *e, auto_impl *A, int p)
{
    A->phase = p;
    e->probe = p == PH_LIST ? mm_engine_list.ops->probe : auto_probe;
}

/* An empty structure of phase p, its tables sized for nr receives and nm
 * messages: 0 or MM_ENOMEM (nothing held). */
static int open_phase(mm_engine *e, auto_impl *A, int p, size_t nr, size_t nm)
{
    /* nm: 2 slots per element (the next power of two), at most half full,
     * as `nm`'s own tables after their growth: no growth while the
     * elements are filed; hash: hash_slots */
    uint32_t cr = nr < (1u << 28) ? 2 * (uint32_t)nr : 1u << 30;
    uint32_t cm = nm < (1u << 28) ? 2 * (uint32_t)nm : 1u << 30;
    memset(&A->u, 0, sizeof A->u);
    set_phase(e, A, p);
    switch (p) {
    case PH_BINS:
        mm_queue_init(&A->u.B.umq_all, 1);
        A->u.B.seed = A->seed;
        if (A->warm_prq) {
            mm_bins_attach(e, &A->u.B, A->warm_prq, A->warm_umq, A->nbins, !A->warm_dirty);
            A->warm_dirty = 1;
        }
        else if (mm_bins_alloc(e, &A->u.B, A->nbins) != 0)
            return MM_ENOMEM;
        mm_stat_queues(&e->st.umq, 1); /* umq_all */
        return 0;
    case PH_NM:
        return mm_nm_init(e, &A->u.N, A->seed, cr, cm);
    case PH_HASH: /* (one table for both sides) */
        return hash_open(e, A, &A->u.H, nr + nm);
    default:
        mm_list_init(e, &A->u.L);
        return 0;
    }
}

/* Release the structure (the elements stay where they are). */
static void close_phase(mm_engine *e, auto_impl *A)
{
    switch (A->phase) {
    case PH_BINS:
        if (A->u.B.prq && A->u.B.prq == A->warm_prq)
            mm_bins_detach(e, &A->u.B);
        else
            mm_bins_free(e, &A->u.B);
        mm_stat_queues(&e->st.umq, -1);
        break;
    case PH_NM:
        mm_nm_drop(e, &A->u.N);
        break;
    case PH_HASH:
        mm_hash_drop(e, &A->u.H);
        break;
    default:
        mm_list_drop(e, &A->u.L);
    }
}

/* File queued element x (no partner among the queued) as the last of its
 * side: MM_QUEUED or MM_ENOMEM. */
static int file(mm_engine *e, auto_impl *A, mm_elem *x)
{
    int recv = (x->flags & MM_ELEM_RECV) != 0;
    switch (A->phase) {
    case PH_BINS:
        if (recv)
            mm_bins_queue_recv(&A->u.B, x);
        else
            mm_bins_queue_message(&A->u.B, x);
        return MM_QUEUED;
    case PH_NM:
        return recv ? mm_nm_queue_recv(e, &A->u.N, x) : mm_nm_queue_message(e, &A->u.N, x);
    case PH_HASH:
        return mm_hash_queue(e, &A->u.H, x);
    default:
        mm_queue_push(recv ? &A->u.L.prq : &A->u.L.umq, x);
        return MM_QUEUED;
    }
}

/* ---- switching ---- */

/* A queued element and its sequence number, sorted by the latter. */
typedef struct seqd {
    uint64_t seq;
    mm_elem *x;
} seqd;

typedef struct gather {
    seqd          *v;
    size_t         n, cap;
    const mm_elem *skip;
    uint8_t        want; /* MM_ELEM_RECV or 0 */
} gather;

static void gather_take(void *obj, void *arg)
{
    mm_elem *x = obj;
    gather *g = arg;
    if ((x->flags & MM_ELEM_QUEUED) && (x->flags & MM_ELEM_RECV) == g->want && x != g->skip &&
        g->n < g->cap)
        g->v[g->n++] = (seqd){x->seq, x};
}

static int by_seq(const void *a, const void *b)
{
    uint64_t x = ((const seqd *)a)->seq, y = ((const seqd *)b)->seq;
    return (x > y) - (x < y);
}

/* The queued elements of one side, in sequence order, into v (room for
 * cap): the list's own queue as it is, else the pool's queued elements
 * sorted. The call that switches has already done its work: skip is the
 * partner it unlinked (still marked queued until the API releases it), add
 * the element it queued (not yet marked); both may be NULL. */
static size_t gather_side(mm_engine *e, auto_impl *A, int recv, seqd *v, size_t cap,
                          const mm_elem *skip, mm_elem *add)
{
    if (A->phase == PH_LIST) { /* the structure holds exactly the queued, in order */
        size_t n = 0;
        mm_queue_foreach(x, recv ? &A->u.L.prq : &A->u.L.umq)
            if (n < cap)
                v[n++] = (seqd){x->seq, x};
        return n;
    }
    gather g = {v, 0, cap, skip, recv ? MM_ELEM_RECV : 0};
    mm_pool *p = recv ? e->recv_pool : &e->msgs;
    mm_pool_foreach(p, gather_take, &g);
    if (add && ((add->flags & MM_ELEM_RECV) != 0) == recv && g.n < cap)
        v[g.n++] = (seqd){add->seq, add};
    qsort(v, g.n, sizeof *v, by_seq);
    return g.n;
}

/* Leaving the list, the keyed structure for the queues it holds (nr
 * receives, wild of them with a wildcard, nm messages): with both hints,
 * hash (docs/engines.md, "auto": from branch auto18i to auto18k bins while
 * nr + nm <= `bins` / 2, when the move into hash cost about 9 ns per
 * element against 4 into bins; in bulk it costs about 4); else nm
 * when bins would traverse more than `nm` per search at the
 * start (an arrival its bin of receives and every wildcard receive, a
 * receive its bin of messages; with more live keys than bins, or many
 * wildcard receives, bins searches like a list), else bins. Deciding here
 * saves the HOLD windows of deep bins searches and a second move of every
 * queued element (any n=16384: list, bins, nm in each round before). */
static int keyed_for(const auto_impl *A, size_t nr, size_t nm, uint64_t wild)
{
    if (A->hinted)
        return PH_HASH;
    uint64_t arrive = nr / A->nbins + wild, post = nm / A->nbins;
    uint64_t d = arrive > post ? arrive : post;
    return d > A->nm_depth ? PH_NM : PH_BINS;
}

static void set_entries(mm_engine *e, auto_impl *A);

/* The elements of a list queue, from link `first` up to (not including) the
 * sentinel at address `end` (never read: its memory may be another
 * structure's by now), filed in that order in the hash phase's table H on
 * their side (recv), which has room for all of them without growing: the
 * table's bulk insertion (mm_ftable_fill: no memo, the FIFO's head written
 * in place, nothing out of line but a re-seed), and the side's
 * statistics once for the queue: the slots inspected (in all, and the most
 * by one element) and the FIFOs opened, as mm_hash_file would have counted
 * them element by element. */
static void hash_relink(mm_engine *e, mm_hash *H, mm_link *first, const mm_link *end,
                        unsigned li, int recv)
{
    mm_qstats *st = recv ? &e->st.prq : &e->st.umq;
    mm_ftable_filled f;
    /* (cannot fail: no growth, and a failed re-seed leaves the table as it is) */
    (void)mm_ftable_fill(&H->t, first, end, li, recv ? MM_HASH_RECV : MM_HASH_MSG, &f);
    st->probes += f.probes;
    if (f.max_probes > st->max_probes)
        st->max_probes = f.max_probes;
    mm_stat_queues(st, (int64_t)f.opened);
    mm_hash_charge(e, H); /* (a re-seed rebuilds the table: the same bytes) */
}

/* Leaving the list for hash (both hints): bins' warm tables are freed and
 * the hash table (both sides) allocated (hash_slots: at most half full
 * after the move, so nothing in it can grow or fail), and the elements are
 * relinked, in order, straight from the list's queues (no array, no sort),
 * in bulk (hash_relink). 0 when the table cannot
 * be allocated (nothing done: switch_to's general path tries, and leaves a
 * list if it cannot either). */
static int list_to_hash(mm_engine *e, auto_impl *A)
{
    mm_queue prq = A->u.L.prq, umq = A->u.L.umq; /* heads (the sentinels stay in A->u) */
    const mm_link *rend = &A->u.L.prq.head, *mend = &A->u.L.umq.head;
    if (prq.len >= (1u << 28) || umq.len >= (1u << 28))
        return 0;
    mm_hash H;
    uint64_t ta = mm_now_ns();
    warm_drop(e, A); /* (the list holds none of bins' tables) */
    if (hash_open(e, A, &H, prq.len + umq.len) != 0) {
        warm_make(e, A);
        return 0;
    }
    mm_overhead_add(e, &e->st.overhead.alloc_ns, ta);
    close_phase(e, A);
    set_phase(e, A, PH_HASH);
    A->u.H = H;
    hash_relink(e, &A->u.H, prq.head.next, rend, prq.li, 1);
    hash_relink(e, &A->u.H, umq.head.next, mend, umq.li, 0);
    return 1;
}

/* Leaving the list for bins with its warm tables: nothing to allocate and
 * nothing that can fail, and each list queue is in sequence order already,
 * so the elements are relinked, in order, straight from the list's queues
 * into bins (no array, no sort). *p: the phase wanted (PH_KEYED: keyed_for's
 * choice, which is set there); *wild: the wildcard receives. 0 when the move
 * is not of that kind (nothing done: switch_to's general path moves it). */
static int list_to_bins(mm_engine *e, auto_impl *A, int *p, uint64_t *wild)
{
    mm_queue prq = A->u.L.prq, umq = A->u.L.umq; /* heads (the sentinels stay in A->u) */
    const mm_link *rend = &A->u.L.prq.head, *mend = &A->u.L.umq.head;
    uint64_t w = 0;
    if (!A->hinted) /* (with both hints no receive has a wildcard) */
        mm_queue_foreach(x, &A->u.L.prq)
            w += (uint64_t)mm_key_wild(&x->key);
    if (*p == PH_KEYED)
        *p = keyed_for(A, prq.len, umq.len, w);
    if (*p == PH_HASH)
        return list_to_hash(e, A);
    if (*p != PH_BINS || !A->warm_prq)
        return 0;
    close_phase(e, A);
    open_phase(e, A, PH_BINS, prq.len, umq.len); /* cannot fail with its tables warm */
    e->st.overhead.events++;                     /* its alloc_ns: 0, nothing allocated */
    /* Each element's next link is read before the element is relinked; the
     * loop ends at the old sentinel's address, which it never reads. */
    for (mm_link *l = prq.head.next; l != rend;) {
        mm_elem *x = mm_elem_of(l, prq.li);
        l = l->next;
        mm_bins_queue_recv(&A->u.B, x);
    }
    for (mm_link *l = umq.head.next; l != mend;) {
        mm_elem *x = mm_elem_of(l, umq.li);
        l = l->next;
        mm_bins_queue_message(&A->u.B, x);
    }
    *wild = w;
    return 1;
}

/* Any other move: the queued elements of each side gathered in sequence
 * order into an array, filed into phase p (PH_KEYED: keyed_for's choice).
 * MM_ENOMEM (nothing changed) when the array cannot be allocated; on failure
 * to build p, the engine becomes a list. *wild: the wildcard receives. */
static int move_sorted(mm_engine *e, auto_impl *A, int p, const mm_elem *skip, mm_elem *add,
                       uint64_t *wild)
{
    size_t cr = (size_t)e->st.prq.length + 1, cm = (size_t)e->st.umq.length + 1;
    seqd *v = mm_mem_alloc(&e->mem, (cr + cm) * sizeof *v);
    if (!v)
        return MM_ENOMEM;
    size_t nr = gather_side(e, A, 1, v, cr, skip, add);
    size_t nm = gather_side(e, A, 0, v + nr, cr + cm - nr, skip, add);
    *wild = 0;
    for (size_t i = 0; i < nr; i++)
        *wild += (uint64_t)mm_key_wild(&v[i].x->key);
    if (p == PH_KEYED)
        p = keyed_for(A, nr, nm, *wild);
    if (A->phase == PH_BINS && A->u.B.prq == A->warm_prq && nr + nm < A->nbins) {
        /* empty the warm tables now: only the bins of the elements leaving
         * them are not empty (cheaper than all 2 x nbins when few) */
        for (size_t i = 0; i < nr + nm; i++)
            mm_bins_clear_bin_of(&A->u.B, v[i].x);
        A->warm_dirty = 0;
    }
    close_phase(e, A);
    uint64_t ta = mm_now_ns();
    if (p == PH_HASH)
        warm_drop(e, A);
    else
        warm_make(e, A);
    int rc = open_phase(e, A, p, nr, nm), opened = rc == 0;
    mm_overhead_add(e, &e->st.overhead.alloc_ns, ta);
    for (size_t i = 0; rc == 0 && i < nr + nm; i++)
        rc = file(e, A, v[i].x) == MM_QUEUED ? 0 : MM_ENOMEM;
    if (rc != 0) {
        if (opened)
            close_phase(e, A);
        warm_make(e, A);
        open_phase(e, A, PH_LIST, 0, 0);
        for (size_t i = 0; i < nr + nm; i++)
            file(e, A, v[i].x);
    }
    mm_mem_free(&e->mem, v, (cr + cm) * sizeof *v);
    return 0;
}

/* Move every queued element into a new structure of phase p (PH_KEYED:
 * keyed_for's choice), in sequence order. If the move cannot be made (no
 * memory for move_sorted's array), nothing changes and the rule tries again
 * after a window. */
static MM_COLD void switch_to(mm_engine *e, auto_impl *A, int p, const mm_elem *skip,
                              mm_elem *add)
{
    uint64_t t0 = mm_now_ns(), wild = 0;
    if (!(A->phase == PH_LIST && list_to_bins(e, A, &p, &wild)) &&
        move_sorted(e, A, p, skip, add, &wild) != 0) {
        window_start(e, A);
        return;
    }
    A->wq = wild;
    A->peak = 0;
    A->lwin = 0;
    A->lt0 = traversed(e);
    A->est = 0;
    window_start(e, A);
    set_entries(e, A);
    mm_overhead_add(e, &e->st.overhead.extract_ns, t0);
}

/* At the end of a keyed window (HOLD of them), the keyed structure the
 * features call for: with both hints, hash (the only keyed structure the
 * rule takes then); else bins, except that bins
 * searching deeper than `nm` per search (wildcard receives on its wildcard
 * list or searching its arrival list, or more keys than bins) calls for nm.
 * In nm, what bins would traverse is estimated (Dnm, an upper bound); nm
 * stays unless that is at most half of `nm` per call, at most `down`
 * wildcard receives are queued, and bins would have been that shallow at
 * the nm phase's peak too (peak / bins <= nm / 2): a queue that drains
 * within a round stays in nm until the round's end sends it to the list,
 * instead of moving to bins and back when the next round fills it. */
static int keyed(const mm_engine *e, const auto_impl *A)
{
    switch (A->phase) {
    case PH_BINS: { /* (not after a reset of the statistics) */
        uint64_t t = traversed(e);
        if (A->hinted)
            return PH_HASH;
        return t >= A->lt0 && t - A->lt0 > HOLD * A->nm_budget ? PH_NM : PH_BINS;
    }
    case PH_HASH:
        return PH_HASH;
    default: /* PH_NM */
        return 2 * A->est <= HOLD * A->nm_budget && A->wq <= (uint64_t)A->down &&
                       2 * (A->peak / A->nbins) <= A->nm_depth
                   ? PH_BINS
                   : PH_NM;
    }
}

static uint64_t rng_next(auto_impl *A)
{
    uint64_t x = A->rng;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return A->rng = x;
}

/* The forced schedule (parameter force), at every call: after about one in
 * force, a switch to another structure drawn at random. */
static void forced(mm_engine *e, auto_impl *A, const mm_elem *skip, mm_elem *add)
{
    A->left = 1;
    if (rng_next(A) % A->force != 0)
        return;
    int p = (int)(rng_next(A) % (A->hinted ? NPHASE - 1 : NPHASE - 2));
    switch_to(e, A, p >= A->phase ? p + 1 : p, skip, add);
}

/* The list phase, at every step (budget / 8, budget = up x window)
 * traversed: leave for the keyed structure if the window's traversal exceeds
 * the budget within at most `window` searches (D over a window exceeds up),
 * or if the last search alone walked more than the budget (`last`, or the
 * lean entries' search that deferred the check here, A->walked, if deeper:
 * `excess`), or if one side's searches since the last check point walked
 * more than 4 x up each (clearly_deep); else slide the window to its last
 * half (at the old one's mean depth, or `excess`, if deeper) and check again
 * a step on. A list phase whose searches walk at most one element each
 * never comes here from the lean entries: it has nothing to decide. */
static MM_COLD void list_window(mm_engine *e, auto_impl *A, const mm_elem *skip, mm_elem *add,
                                uint64_t last)
{
    uint64_t t = traversed(e), s = searches(e), excess = A->walked > last ? A->walked : last;
    A->walked = 0;
    if (A->force) {
        forced(e, A, skip, add);
        return;
    }
    if (t < A->t0 || s < A->s0 || t < A->trip) { /* (counters reset without the hook: shards) */
        window_start(e, A);
        set_entries(e, A);
        return;
    }
    uint64_t delta = t - A->t0, span = s - A->s0;
    if ((span <= A->window && delta > A->budget) || excess > A->budget || clearly_deep(e, A)) {
        switch_to(e, A, PH_KEYED, skip, add);
        return;
    }
    if (span > A->window) {
        uint64_t keep = A->window / 2, recent = delta * keep / span;
        if (recent < excess)
            recent = excess;
        A->t0 = t - recent;
        A->s0 = s - keep;
    }
    A->trip = t + A->step;
    A->credit = A->step;
    checkpoint(e, A);
    set_entries(e, A); /* the lean entries again, if a deep search deferred to here */
}

/* After a list-phase post or arrive of the generic entries (auto_post,
 * auto_arrive), whose search walked `last` elements: one compare, of the
 * statistics' own counters (no count of its own), or the lean entries'
 * deferred check. */
MM_INLINE void list_check(mm_engine *e, auto_impl *A, const mm_elem *skip, mm_elem *add,
                          uint64_t last)
{
    if (MM_UNLIKELY(traversed(e) >= A->trip || A->walked))
        list_window(e, A, skip, add, last);
}

/* A keyed phase at the end of its window: back to the list when at most
 * `down` elements were queued at every call, else the keyed structure the
 * features call for. */
static MM_COLD void keyed_window(mm_engine *e, auto_impl *A, const mm_elem *skip, mm_elem *add)
{
    if (A->force) {
        forced(e, A, skip, add);
        return;
    }
    int p = A->phase;
    if (A->down >= 0 && A->lmax <= (uint64_t)A->down) {
        p = PH_LIST;
    } else if (++A->lwin >= HOLD) { /* bins <-> nm, over HOLD windows */
        p = keyed(e, A);
        A->lwin = 0;
        A->lt0 = traversed(e);
        A->est = 0;
    }
    if (p != A->phase) {
        switch_to(e, A, p, skip, add);
    } else {
        window_start(e, A);
        set_entries(e, A); /* the bins phase's lean entries again (bins_lean_call) */
    }
}

/* After a keyed-phase post or arrive. The window's last call is the one
 * that finds at most one call left (the bins phase's lean entries, which
 * leave the last call to these, may have counted down to 0 after a call of
 * the slow path). */
MM_INLINE void keyed_check(mm_engine *e, auto_impl *A, const mm_elem *skip, mm_elem *add)
{
    uint64_t len = e->st.prq.length + e->st.umq.length;
    if (len > A->lmax) {
        A->lmax = len;
        if (len > A->peak)
            A->peak = len;
    }
    if (MM_UNLIKELY(A->left <= 1)) {
        A->left = 0;
        keyed_window(e, A, skip, add);
    } else {
        A->left--;
    }
}

/* ---- the engine ---- */

static int auto_init(mm_engine *e, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    auto_impl *A = mm_mem_calloc(&e->mem, 1, sizeof *A);
    if (!A)
        return MM_ENOMEM;
    A->window = (uint32_t)e->param[P_WINDOW];
    A->up = (uint64_t)e->param[P_UP];
    A->budget = A->up * A->window;
    A->step = A->budget / 8 ? A->budget / 8 : 1;
    A->nm_depth = (uint64_t)e->param[P_NM];
    A->nm_budget = A->nm_depth * A->window;
    A->down = e->param[P_DOWN];
    A->nbins = (uint32_t)e->param[P_BINS];
    A->seed = mm_seed_pick(e->param[P_SEED]);
    A->force = (uint64_t)e->param[P_FORCE];
    A->rng = A->seed | 1;
    A->hinted = (e->hints & (MM_HINT_NO_ANY_SOURCE | MM_HINT_NO_ANY_TAG)) ==
                (MM_HINT_NO_ANY_SOURCE | MM_HINT_NO_ANY_TAG);
    warm_make(e, A); /* bins' tables, empty, untimed (without both hints) */
    /* with both, the hash phase's first table, untimed (on failure, made at
     * the switch) */
    A->warm_hash_ok = A->hinted && mm_hash_init(e, &A->warm_hash, HASH_START, A->seed) == 0;
    /* The messages' first slab, as bins' tables, at creation (untimed): auto
     * keeps two pools (receives of one link, messages of four), and without
     * this its first calls grow both where `list`, one pool, grows one (at
     * n = 64, 2 rounds, most of the gap: a 7 KB slab zeroed in a 256-event
     * run). On failure the pool grows at its first message, as any. */
    (void)mm_pool_grow(&e->msgs);
    open_phase(e, A, PH_LIST, 0, 0);
    window_start(e, A);
    e->impl = A;
    A->own_entries = -1; /* set_entries finds out */
    set_entries(e, A);
    return 0;
}

/* mm_reset_stats zeroed the counters the windows start from. */
static void auto_stats_reset(mm_engine *e)
{
    auto_impl *A = e->impl;
    window_start(e, A);
    A->lt0 = 0;
    A->walked = 0;
    set_entries(e, A); /* (a deferred check is void) */
}

static void auto_fini(mm_engine *e)
{
    auto_impl *A = e->impl;
    switch (A->phase) {
    case PH_BINS:
        if (A->u.B.prq != A->warm_prq)
            mm_bins_free(e, &A->u.B);
        break;
    case PH_NM:
        mm_nm_fini(&A->u.N);
        break;
    case PH_HASH:
        mm_hash_fini(e, &A->u.H);
        break;
    default:
        break;
    }
    warm_drop(e, A);
    if (A->warm_hash_ok)
        mm_hash_fini(e, &A->warm_hash);
    mm_mem_free(&e->mem, A, sizeof *A);
}

/* Each phase's post and arrive. The list's and bins' fail only for an
 * element they may not queue (which the API's entry never hands them), so
 * they need not save the counters a failed call gives back; nm's and hash's
 * may also fail to allocate where they queue. */
MM_INLINE int phase_call(mm_engine *e, mm_elem *x, mm_elem **partner, const int is_recv,
                         const int phase)
{
    auto_impl *A = e->impl;
    uint64_t walked = 0;
    int rc = phase == PH_BINS   ? (is_recv ? mm_bins_post(e, &A->u.B, x, partner)
                                           : mm_bins_arrive(e, &A->u.B, x, partner))
             : phase == PH_HASH ? (is_recv ? mm_hash_post(e, &A->u.H, x, partner)
                                           : mm_hash_arrive(e, &A->u.H, x, partner))
                                : (is_recv ? mm_list_post_walked(e, &A->u.L, x, partner, &walked)
                                           : mm_list_arrive_walked(e, &A->u.L, x, partner,
                                                                   &walked));
    if (MM_UNLIKELY(rc < 0))
        return rc; /* a failed call leaves no trace (hash: but its searches and misses,
                      which the API takes back) */
    mm_elem *skip = rc == MM_MATCHED ? *partner : NULL, *add = rc == MM_QUEUED ? x : NULL;
    if (phase != PH_LIST)
        keyed_check(e, A, skip, add);
    else
        list_check(e, A, skip, add, walked);
    return rc;
}

MM_INLINE int list_phase_post(mm_engine *e, mm_elem *r, mm_elem **partner)
{
    return phase_call(e, r, partner, 1, PH_LIST);
}

MM_INLINE int list_phase_arrive(mm_engine *e, mm_elem *m, mm_elem **partner)
{
    return phase_call(e, m, partner, 0, PH_LIST);
}

MM_INLINE int bins_phase_post(mm_engine *e, mm_elem *r, mm_elem **partner)
{
    return phase_call(e, r, partner, 1, PH_BINS);
}

MM_INLINE int bins_phase_arrive(mm_engine *e, mm_elem *m, mm_elem **partner)
{
    return phase_call(e, m, partner, 0, PH_BINS);
}

/* The nm phase's features after a successful post (receive x) or arrive
 * (message x), answered rc: Dnm's estimate, what bins would have traversed
 * (a receive its bin of messages, or with a wildcard every queued message;
 * a message its bin of receives and every queued wildcard receive), and
 * Wq, the wildcard receives queued. */
MM_INLINE void nm_count(const mm_engine *e, auto_impl *A, const mm_elem *x, mm_elem **partner,
                        int rc, const int is_recv)
{
    if (is_recv) {
        int wild = mm_key_wild(&x->key);
        A->est += wild ? e->st.umq.length : e->st.umq.length / A->nbins;
        A->wq += (uint64_t)(wild && rc == MM_QUEUED);
    } else {
        A->est += A->wq + e->st.prq.length / A->nbins;
        A->wq -= rc == MM_MATCHED && mm_key_wild(&(*partner)->key);
    }
}

/* The nm phase's post and arrive, for its entries (auto_nm_enter_*, which
 * save and restore the searched side's counters around a failed call). */
MM_INLINE int nm_phase_call(mm_engine *e, mm_elem *x, mm_elem **partner, const int is_recv)
{
    auto_impl *A = e->impl;
    int rc = is_recv ? mm_nm_post(e, &A->u.N, x, partner) : mm_nm_arrive(e, &A->u.N, x, partner);
    if (MM_UNLIKELY(rc < 0))
        return rc;
    nm_count(e, A, x, partner, rc, is_recv);
    keyed_check(e, A, rc == MM_MATCHED ? *partner : NULL, rc == MM_QUEUED ? x : NULL);
    return rc;
}

static int nm_phase_post(mm_engine *e, mm_elem *r, mm_elem **partner)
{
    return nm_phase_call(e, r, partner, 1);
}

static int nm_phase_arrive(mm_engine *e, mm_elem *m, mm_elem **partner)
{
    return nm_phase_call(e, m, partner, 0);
}

static MM_NOINLINE int keyed_post(mm_engine *e, auto_impl *A, mm_elem *r, mm_elem **partner)
{
    int rc;
    mm_enter_undo_save(e, &e->st.umq);
    if (A->phase == PH_NM)
        rc = mm_nm_post(e, &A->u.N, r, partner);
    else
        rc = mm_hash_post(e, &A->u.H, r, partner);
    if (MM_UNLIKELY(rc < 0)) {
        mm_enter_undo_restore(e, &e->st.umq); /* the API takes back the rest */
        return rc;
    }
    if (A->phase == PH_NM)
        nm_count(e, A, r, partner, rc, 1);
    keyed_check(e, A, rc == MM_MATCHED ? *partner : NULL, rc == MM_QUEUED ? r : NULL);
    return rc;
}

static MM_NOINLINE int keyed_arrive(mm_engine *e, auto_impl *A, mm_elem *m, mm_elem **partner)
{
    int rc;
    mm_enter_undo_save(e, &e->st.prq);
    if (A->phase == PH_NM)
        rc = mm_nm_arrive(e, &A->u.N, m, partner);
    else
        rc = mm_hash_arrive(e, &A->u.H, m, partner);
    if (MM_UNLIKELY(rc < 0)) {
        mm_enter_undo_restore(e, &e->st.prq);
        return rc;
    }
    if (A->phase == PH_NM)
        nm_count(e, A, m, partner, rc, 0);
    keyed_check(e, A, rc == MM_MATCHED ? *partner : NULL, rc == MM_QUEUED ? m : NULL);
    return rc;
}

/* Any phase (the engine's post and arrive, and the entries of a locked or
 * sharded engine, of the call after a deferred check, and of a bins- or
 * hash-phase window's last call). */
static int auto_post(mm_engine *e, mm_elem *r, mm_elem **partner)
{
    auto_impl *A = e->impl;
    if (MM_LIKELY(A->phase == PH_LIST))
        return list_phase_post(e, r, partner);
    if (A->phase == PH_BINS)
        return bins_phase_post(e, r, partner);
    return keyed_post(e, A, r, partner);
}

static int auto_arrive(mm_engine *e, mm_elem *m, mm_elem **partner)
{
    auto_impl *A = e->impl;
    if (MM_LIKELY(A->phase == PH_LIST))
        return list_phase_arrive(e, m, partner);
    if (A->phase == PH_BINS)
        return bins_phase_arrive(e, m, partner);
    return keyed_arrive(e, A, m, partner);
}

/* A probe's depth counts towards the window's, but a probe never switches
 * (the shard layer peeks with it). The probes: e->probe is the current
 * phase's (set_phase). In the list phase it is `list`'s own function (the
 * list sits at e->impl itself), so a probe tests no phase and runs the very
 * code `list` runs: MPI_Iprobe polling (HPCC under MPICH is 99% probes) cost
 * the same instructions through a copy of list's probe inlined here, yet ran
 * 6-13% slower than `list` (code placement). In the keyed phases it is
 * auto_probe, out of line (their searches need registers), which tests the
 * phase (it is the ops' too: creation sets e->probe to it before
 * auto_init's first phase). */
static MM_NOINLINE mm_elem *auto_probe(mm_engine *e, const mm_key *k, int remove)
{
    auto_impl *A = e->impl;
    switch (A->phase) {
    case PH_LIST: return mm_list_probe(e, &A->u.L, k, remove);
    case PH_BINS: return mm_bins_probe(e, &A->u.B, k, remove);
    case PH_NM:   return mm_nm_probe(e, &A->u.N, k, remove);
    default:      return mm_hash_probe(e, &A->u.H, k, remove);
    }
}

static void auto_cancel(mm_engine *e, mm_elem *r)
{
    auto_impl *A = e->impl;
    switch (A->phase) {
    case PH_LIST: mm_list_cancel(&A->u.L, r); break;
    case PH_BINS: mm_bins_cancel(&A->u.B, r); break;
    case PH_NM:
        mm_nm_cancel(e, &A->u.N, r);
        A->wq -= (uint64_t)mm_key_wild(&r->key);
        break;
    default:      mm_hash_cancel(e, &A->u.H, r); break;
    }
}

static int auto_enter_post(mm_engine *e, const mm_entry *x, mm_handle *h, uintptr_t *partner);
static int auto_enter_arrive(mm_engine *e, const mm_entry *x, uintptr_t *partner);
/* (volatile: read where the rare branch needs them, not hoisted into the
 * path and combined there, as the compiler does with constants) */
static int (*const volatile generic_post)(mm_engine *, const mm_entry *, mm_handle *,
                                          uintptr_t *) = auto_enter_post;
static int (*const volatile generic_arrive)(mm_engine *, const mm_entry *,
                                            uintptr_t *) = auto_enter_arrive;

/* The list phase's lean entries (auto_list_enter_*): `list`'s path (the
 * element numbered once queued: the list's search never reads it) plus one
 * compare, of the search's walk with 1, in a register. A window whose
 * searches each walk at most one element cannot call for a switch (D <= 1
 * <= up, no search longer than the budget, no side deeper than 4 x up), so
 * only a search that walked more counts, its walk taken from A->credit (a
 * step from each check point: the statistics' counters are not read, and
 * the path updates them as `list`'s does); the search that exhausts it
 * points the engine's entries at the generic ones (auto_enter_*) until the
 * next call has run list_window (list_check) with that search's walk: the
 * window is decided as between two calls, with nothing in flight, and the
 * path keeps `list`'s registers (no call). The compare sits between the
 * list's search and its unlink or queue (list_part.h: mm_list_search,
 * mm_list_take_or_queue), once on each outcome's path: the compiler then
 * keeps `list`'s code for both (the statistics' updates apart for a hit
 * and a miss), and drops the compare where the walk is known, as for the
 * search of an empty queue (walked 0). A post or arrive then costs what
 * `list`'s does, plus a compare and branch on a search that found its
 * element (callgrind, tags n=16384: the same instructions per post as
 * `list`, 2 more per arrive). */
MM_INLINE void list_lean_count(mm_engine *e, auto_impl *A, uint64_t walked)
{
    if (MM_UNLIKELY(walked > 1)) {
        if (walked < A->credit) {
            A->credit -= walked;
        } else {
            A->walked = walked;
            e->enter_post = generic_post;
            e->enter_arrive = generic_arrive;
        }
    }
}

MM_INLINE int list_lean_call(mm_engine *e, mm_elem *x, mm_elem **partner, const int is_recv)
{
    auto_impl *A = e->impl;
    mm_queue *q = is_recv ? &A->u.L.umq : &A->u.L.prq;
    mm_queue *other = is_recv ? &A->u.L.prq : &A->u.L.umq;
    uint64_t walked;
    mm_elem *hit = mm_list_search(q, is_recv ? &e->st.umq : &e->st.prq, x, is_recv, &walked);
    if (hit) {
        list_lean_count(e, A, walked);
        return mm_list_take_or_queue(q, hit, x, other, partner);
    }
    list_lean_count(e, A, walked);
    return mm_list_take_or_queue(q, NULL, x, other, partner);
}

/* The keyed phases' lean entries that count the window's calls only
 * (auto_binsc_enter_*, auto_hashc_enter_*), for the rest of a window that
 * can no longer go back to the list: a call of it has found more than
 * `down` elements queued (or down is -1). In the bins and hash phases Lmax
 * is read for that test alone (keyed_window; the peak is the nm phase's,
 * reset at every switch), so once it is over `down` its count is dropped:
 * in a window of deep queues the first call counts Lmax and the others
 * only the calls left. (Indexed by LEAN_BINS, LEAN_HASH; volatile as
 * generic_post.) */
enum { LEAN_BINS, LEAN_HASH };
static int auto_binsc_enter_post(mm_engine *e, const mm_entry *x, mm_handle *h,
                                 uintptr_t *partner);
static int auto_binsc_enter_arrive(mm_engine *e, const mm_entry *x, uintptr_t *partner);
static int auto_hashc_enter_post(mm_engine *e, const mm_entry *x, mm_handle *h,
                                 uintptr_t *partner);
static int auto_hashc_enter_arrive(mm_engine *e, const mm_entry *x, uintptr_t *partner);
static int (*const volatile counting_post[2])(mm_engine *, const mm_entry *, mm_handle *,
                                              uintptr_t *) = {auto_binsc_enter_post,
                                                              auto_hashc_enter_post};
static int (*const volatile counting_arrive[2])(mm_engine *, const mm_entry *, uintptr_t *) = {
    auto_binsc_enter_arrive, auto_hashc_enter_arrive};

/* A lean phase entry's window bookkeeping after its call: with track, the
 * longest queue seen (both sides' lengths: the engine's call has not
 * changed them, the API's end of the call does), and once it is over
 * `down`, the engine's entries become the counting ones (which of: LEAN_*);
 * then one call fewer in the window; with one call left, the engine's
 * entries become the generic ones for it (the window's last call may
 * switch). */
MM_INLINE void lean_window_step(mm_engine *e, auto_impl *A, const int track, const int which)
{
    if (track) {
        uint64_t len = e->st.prq.length + e->st.umq.length;
        if (MM_UNLIKELY(len > A->lmax)) {
            A->lmax = len;
            if (A->down < 0 || len > (uint64_t)A->down) {
                e->enter_post = counting_post[which];
                e->enter_arrive = counting_arrive[which];
            }
        }
    }
    if (MM_UNLIKELY(--A->left <= 1)) {
        e->enter_post = generic_post;
        e->enter_arrive = generic_arrive;
    }
}

/* The bins phase's lean entries (auto_bins_enter_*): `bins`' path (the
 * element numbered once queued: bins' searches read the numbers of queued
 * elements only), receives from their own pool, plus the window's count
 * (Lmax, with track, and the calls left). The window's last call, which may
 * switch (moving the new element, which must then be numbered), is left to
 * the generic entries: the call that leaves one call in the window points
 * the engine's entries at them, and keyed_window points them back
 * (set_entries). A window of one call (window=1, or `force`) runs the
 * generic entries only. */
MM_INLINE int bins_lean_call(mm_engine *e, mm_elem *x, mm_elem **partner, const int is_recv,
                             const int track)
{
    auto_impl *A = e->impl;
    int rc = is_recv ? mm_bins_post(e, &A->u.B, x, partner) : mm_bins_arrive(e, &A->u.B, x, partner);
    lean_window_step(e, A, track, LEAN_BINS);
    return rc;
}

MM_INLINE int bins_lean_post(mm_engine *e, mm_elem *r, mm_elem **partner)
{
    return bins_lean_call(e, r, partner, 1, 1);
}

MM_INLINE int bins_lean_arrive(mm_engine *e, mm_elem *m, mm_elem **partner)
{
    return bins_lean_call(e, m, partner, 0, 1);
}

MM_INLINE int bins_count_post(mm_engine *e, mm_elem *r, mm_elem **partner)
{
    return bins_lean_call(e, r, partner, 1, 0);
}

MM_INLINE int bins_count_arrive(mm_engine *e, mm_elem *m, mm_elem **partner)
{
    return bins_lean_call(e, m, partner, 0, 0);
}

MM_INLINE int list_lean_post(mm_engine *e, mm_elem *r, mm_elem **partner)
{
    return list_lean_call(e, r, partner, 1);
}

MM_INLINE int list_lean_arrive(mm_engine *e, mm_elem *m, mm_elem **partner)
{
    return list_lean_call(e, m, partner, 0);
}

/* The matching path with auto's post and arrive compiled in (enter.h).
 * may_fail 0: the list fails only for an element it may not queue; the keyed
 * structures, which may also fail to allocate where they queue, give back
 * their search's counters themselves (keyed_post, keyed_arrive). */
MM_ENGINE_ENTER(auto, auto_post, auto_arrive, 0)
/* The list phase's: late numbers (the list's search never reads the new
 * element's, and no switch happens inside the call), receives in their own
 * pool (ops.nlinks_recv 1 below nlinks 4: recv_pool is &recvs). */
MM_ENGINE_ENTER_LEAN(auto_list, list_lean_post, list_lean_arrive, 0,
                     MM_ENTER_LATE_SEQ | MM_ENTER_OWN_RECVS)
/* The bins phase's: late numbers and receives in their own pool, as the
 * list phase's (bins_lean_call: the window's last call on the generic
 * entries). */
MM_ENGINE_ENTER_LEAN(auto_bins, bins_lean_post, bins_lean_arrive, 0,
                     MM_ENTER_LATE_SEQ | MM_ENTER_OWN_RECVS)
/* (the same counting the window's calls only: lean_window_step) */
MM_ENGINE_ENTER_LEAN(auto_binsc, bins_count_post, bins_count_arrive, 0,
                     MM_ENTER_LATE_SEQ | MM_ENTER_OWN_RECVS)
/* The nm phase's: `nm`'s path (the searched side's counters saved for a
 * failed call, may_fail 1, as `nm`'s entries do) plus the features and the
 * window's count, receives in their own pool; numbered early, so that the
 * window's last call may switch inside the call. */
MM_ENGINE_ENTER_LEAN(auto_nm, nm_phase_post, nm_phase_arrive, 1, MM_ENTER_OWN_RECVS)
/* The hash phase's lean entries (auto_hash_enter_*): `hash`'s path plus
 * the window's count (Lmax and the calls left; the peak is read by the nm
 * phase alone, and reset at every switch), with `hash`'s promises: late
 * numbers (neither `hash`'s search nor the count reads the new element's,
 * and no switch happens inside these calls), the key copied as words,
 * receives in their own pool. The first try is `hash`'s inline one
 * (mm_hash_*_try: a key in its home slot or the memo); a new key or a
 * probe run answers MM_ENTER_RETRY, having changed nothing but the key's
 * hash in how, and the call resumes from there out of line, as `hash`'s
 * (MM_ENGINE_ENTER_RESUME: no second fill, hash or memo compare; until
 * branch auto18k it ran the whole call again). The window's last call, which may
 * switch (moving the new element, which must then be numbered), is left to
 * the generic entries, as in the bins phase (bins_lean_call); under `force`
 * every call is a window's last: always the generic entries. */
MM_INLINE int hash_lean_call(mm_engine *e, mm_elem *x, mm_elem **partner, const int is_recv,
                             const int mode, uint32_t *how, const int track)
{
    auto_impl *A = e->impl;
    int rc = mode == MM_HASH_FAST      ? (is_recv ? mm_hash_post_try(e, &A->u.H, x, partner, how)
                                                  : mm_hash_arrive_try(e, &A->u.H, x, partner, how))
             : mode == MM_HASH_RESUMED ? (is_recv ? mm_hash_post_resume(e, &A->u.H, x, partner, *how)
                                                  : mm_hash_arrive_resume(e, &A->u.H, x, partner,
                                                                          *how))
                                       : (is_recv ? mm_hash_post(e, &A->u.H, x, partner)
                                                  : mm_hash_arrive(e, &A->u.H, x, partner));
    if ((mode == MM_HASH_FAST && rc == MM_ENTER_RETRY) || MM_UNLIKELY(rc < 0))
        return rc; /* (a failed call: no trace but its searches and misses, which the
                      API takes back, and it does not count in the window) */
    lean_window_step(e, A, track, LEAN_HASH);
    return rc;
}

/* NAME_enter_*: the hash phase's lean entries over plain static functions
 * (as hash.c's: the entries, flattened, inline them), TRACK as in
 * lean_window_step; a retried call resumes as `hash`'s does (the full path
 * only for an empty pool); (hash_part.h: a failure counts nothing but its
 * search and miss, so may_fail 0, as `hash`'s). */
#define AUTO_HASH_ENTRIES(NAME, TRACK)                                                       \
    static int NAME##_try_post(mm_engine *e, mm_elem *r, mm_elem **partner, uint32_t *how)  \
    {                                                                                        \
        return hash_lean_call(e, r, partner, 1, MM_HASH_FAST, how, TRACK);                   \
    }                                                                                        \
    static int NAME##_try_arrive(mm_engine *e, mm_elem *m, mm_elem **partner, uint32_t *how) \
    {                                                                                        \
        return hash_lean_call(e, m, partner, 0, MM_HASH_FAST, how, TRACK);                   \
    }                                                                                        \
    static int NAME##_resume_post(mm_engine *e, mm_elem *r, mm_elem **partner, uint32_t how) \
    {                                                                                        \
        return hash_lean_call(e, r, partner, 1, MM_HASH_RESUMED, &how, TRACK);               \
    }                                                                                        \
    static int NAME##_resume_arrive(mm_engine *e, mm_elem *m, mm_elem **partner,            \
                                    uint32_t how)                                            \
    {                                                                                        \
        return hash_lean_call(e, m, partner, 0, MM_HASH_RESUMED, &how, TRACK);               \
    }                                                                                        \
    static int NAME##_lean_post(mm_engine *e, mm_elem *r, mm_elem **partner)                \
    {                                                                                        \
        return hash_lean_call(e, r, partner, 1, MM_HASH_FULL, NULL, TRACK);                  \
    }                                                                                        \
    static int NAME##_lean_arrive(mm_engine *e, mm_elem *m, mm_elem **partner)              \
    {                                                                                        \
        return hash_lean_call(e, m, partner, 0, MM_HASH_FULL, NULL, TRACK);                  \
    }                                                                                        \
    MM_ENGINE_ENTER_RESUME(NAME, NAME##_try_post, NAME##_try_arrive, NAME##_resume_post,     \
                           NAME##_resume_arrive, NAME##_lean_post, NAME##_lean_arrive, 0,    \
                           MM_ENTER_LATE_SEQ | MM_ENTER_OWN_RECVS)
AUTO_HASH_ENTRIES(auto_hash, 1)
/* (the same counting the window's calls only: lean_window_step) */
AUTO_HASH_ENTRIES(auto_hashc, 0)

/* The entries the API calls (e->enter_post, enter_arrive), while they are
 * auto's own (not the API's wrappers of a locked or sharded engine, which
 * call the ops' auto_enter_*): those of the phase, set at every switch, so
 * that the list phase runs `list`'s path plus the rule's one compare, the
 * bins phase `bins`' path plus its count, the nm phase `nm`'s plus its
 * features and count, and the hash phase `hash`'s plus its count, none
 * testing the phase. The generic ones: in the list phase for the call after
 * a deep search that exhausted the credit (list_lean_call), in the bins
 * and hash phases for a window's last call (bins_lean_call,
 * hash_lean_call), and in all three under `force` (whose schedule counts
 * every call). */
static void set_entries(mm_engine *e, auto_impl *A)
{
    if (A->own_entries < 0) /* at creation */
        A->own_entries = e->enter_post == auto_enter_post && e->enter_arrive == auto_enter_arrive;
    if (!A->own_entries)
        return;
    switch (A->phase) {
    case PH_LIST:
        if (A->force) /* the forced schedule counts every call: the generic entries */
            goto generic;
        e->enter_post = auto_list_enter_post;
        e->enter_arrive = auto_list_enter_arrive;
        break;
    case PH_BINS:
        if (A->left <= 1) /* (a window of one call, or force: bins_lean_call) */
            goto generic;
        /* (down -1: no window goes back to the list, none counts Lmax) */
        e->enter_post = A->down < 0 ? auto_binsc_enter_post : auto_bins_enter_post;
        e->enter_arrive = A->down < 0 ? auto_binsc_enter_arrive : auto_bins_enter_arrive;
        break;
    case PH_NM:
        e->enter_post = auto_nm_enter_post;
        e->enter_arrive = auto_nm_enter_arrive;
        break;
    case PH_HASH:
        if (A->left <= 1) /* (a window of one call, or force: hash_lean_call) */
            goto generic;
        e->enter_post = A->down < 0 ? auto_hashc_enter_post : auto_hash_enter_post;
        e->enter_arrive = A->down < 0 ? auto_hashc_enter_arrive : auto_hash_enter_arrive;
        break;
    default:
    generic:
        e->enter_post = auto_enter_post;
        e->enter_arrive = auto_enter_arrive;
    }
}

static const mm_engine_ops auto_ops = {
    .nlinks = MM_NM_NPAT, /* the most any structure needs: nm's messages */
    .nlinks_recv = 1,     /* every structure files a receive through link 0 */
    .init = auto_init, .fini = auto_fini,
    .post = auto_post, .arrive = auto_arrive,
    .enter_post = auto_enter_post, .enter_arrive = auto_enter_arrive,
    .probe = auto_probe, .cancel = auto_cancel,
    .stats_reset = auto_stats_reset,
};

const mm_engine_def mm_engine_auto = {
    .info = {
        .name = "auto",
        .summary = "starts as lists; switches online between list, bins, nm and (with both "
                   "hints) hash by a rule on measured features: search depth, queue length, "
                   "wildcards",
        .origin = "beyond the papers: chooses among the engines, as the MPI 4.0 hints matching "
                  "paper's classifier (section V) does offline",
        .params = auto_params,
        .nparams = sizeof auto_params / sizeof auto_params[0],
    },
    .ops = &auto_ops,
};

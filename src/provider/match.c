/*
 * match.c - matching glue: libfabric's (address, tag, ignore) receives and
 * arriving messages go through the endpoint's libmpimatch engine.
 *
 * libfabric matches a receive (A, T, I) and a message from address a with
 * tag M when (A is FI_ADDR_UNSPEC or A == a) and ((T ^ M) & ~I) == 0, the
 * earliest posted receive first, the earliest arrived message first. The
 * engine matches keys (comm, src, tag) with ANY_SOURCE and ANY_TAG (tags >= 0)
 * under the same ordering. One rule decides (decode_recv): a receive is
 * keyed when its ignore mask has the shape of Open MPI's tag layout with
 * remote CQ data (the layout mtl ofi picks for this provider):
 *
 *   bits 63..34 cid, 33 ACK, 32 SYNC, 31..0 MPI tag      (mtl_ofi_types.h)
 *
 *   - every cid bit and the ACK bit compared;
 *   - ACK = 0: SYNC ignored (a receive takes both standard and synchronous
 *     sends); ACK = 1 (synchronous-send acknowledgement): SYNC compared, 0;
 *   - tag bits all compared (specific tag, not 0x80000000), or bits 30..0
 *     ignored and bit 31 compared to 0 (MPI_ANY_TAG: tags >= 0 only);
 *   - the cid is not all ones (that value is the untagged queue's room).
 *
 * key = (comm = 1 + (cid << 1 | ACK), src = fi_addr or ANY_SOURCE, tag or
 * ANY_TAG); untagged operations use comm 0, tag 0. A message is keyed the
 * same way unless ACK and SYNC are both set or its tag field is 0x80000000;
 * such a message can match no keyed receive, so it only waits in the
 * unexpected list. Under these rules the engine's answer is exactly
 * libfabric's: a keyed receive matches precisely the messages whose keys the
 * engine pairs it with (docs/provider.md works it through).
 *
 * Any other receive (another layout, an exact mask on a standard tag, ...)
 * switches the endpoint to the generic path for good: the engine is drained
 * in arrival and post order (exact keys, so exactly those elements leave)
 * and from then on the provider compares masks itself, in order. An engine
 * cannot express an arbitrary mask; the switch keeps one order for all.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "mmfi.h"

int mmfi_engine_create(const mmfi_settings *s, int32_t nprocs, mm_engine **out,
                       char *err, size_t errlen);

#define L_ACK    MMFI_L_ACK
#define L_SYNC   MMFI_L_SYNC
#define L_TAG    MMFI_L_TAG
#define L_ANYTAG MMFI_L_ANYTAG
#define L_CIDMAX MMFI_L_CIDMAX

/* A new record on the free list (mmfi_rec_spare when the list is empty). */
mmfi_rec *mmfi_rec_grow(mmfi_ep *ep)
{
    mmfi_rec *r = malloc(sizeof *r);
    if (!r)
        return NULL;
    r->owned = r->inl = 0;
    r->payload = NULL;
    mmfi_list_push_front(&ep->free_recs, &r->link);
    return r;
}

void mmfi_rec_free(mmfi_ep *ep, mmfi_rec *r)
{
    if (r->owned && !r->inl)
        free(r->payload);
    r->payload = NULL;
    r->owned = 0;
    r->inl = 0;
    r->state = REC_NONE;
    mmfi_list_push_front(&ep->free_recs, &r->link); /* the next one taken: warm in the cache */
}

int mmfi_rec_match(const mmfi_rec *r, const mmfi_rec *m)
{
    return r->tagged == m->tagged && (r->addr == FI_ADDR_UNSPEC || r->addr == m->addr) &&
           (!r->tagged || ((r->tag ^ m->tag) & ~r->ignore) == 0);
}

MM_INLINE int decode_recv(const mmfi_ep *ep, const mmfi_rec *r, mm_entry *key)
{
    *key = (mm_entry){0};
    if (r->addr != FI_ADDR_UNSPEC && r->addr >= (fi_addr_t)(ep->eng_nprocs - 1))
        return 0;
    key->src = r->addr == FI_ADDR_UNSPEC ? MM_ANY_SOURCE : (int32_t)r->addr;
    if (!r->tagged)
        return 1; /* comm 0, tag 0 */
    if (ep->dom->set.layout != MMFI_LAYOUT_OMPI)
        return 0;
    uint64_t T = r->tag, I = r->ignore;
    if (I & ~(L_SYNC | L_ANYTAG))
        return 0;
    uint64_t ack = T & L_ACK;
    if (ack ? (I & L_SYNC) || (T & L_SYNC) : !(I & L_SYNC))
        return 0;
    uint64_t low = I & L_TAG;
    if (low == 0) {
        if ((T & L_TAG) == 0x80000000ull)
            return 0;
        key->tag = (int32_t)(uint32_t)(T & L_TAG);
    } else if (low == L_ANYTAG && !(T & 0x80000000ull))
        key->tag = MM_ANY_TAG;
    else
        return 0;
    uint64_t cid = T >> 34;
    if (cid == L_CIDMAX)
        return 0;
    key->comm = (int32_t)(1 + ((cid << 1) | (ack ? 1 : 0)));
    return 1;
}

int mmfi_decode_msg(const mmfi_ep *ep, const mmfi_rec *m, mm_entry *key)
{
    return mmfi_decode_msg_fields(ep, m->tagged, m->tag, m->addr, m->len, key);
}

int mmfi_match_open(mmfi_ep *ep)
{
    size_t n = ep->av->cap > ep->av->count ? ep->av->cap : ep->av->count;
    if (n > (size_t)INT32_MAX - 2)
        n = (size_t)INT32_MAX - 2;
    ep->eng_nprocs = (int32_t)n + 1; /* the last source: senders not in the AV */
    char err[256];
    int rc = mmfi_engine_create(&ep->dom->set, ep->eng_nprocs, &ep->eng, err, sizeof err);
    if (rc < 0) {
        MMFI_WARN(FI_LOG_EP_CTRL, "FI_MPIMATCH_ENGINE=%s: %s\n", ep->dom->set.engine, err);
        return rc == MM_ENOMEM ? -FI_ENOMEM : -FI_EINVAL;
    }
    return 0;
}

void mmfi_match_close(mmfi_ep *ep)
{
    mmfi_link *lists[] = {&ep->posted, &ep->unexp, &ep->active, &ep->claimed};
    for (size_t i = 0; i < 4; i++)
        while (!mmfi_list_empty(lists[i])) {
            mmfi_rec *r = (mmfi_rec *)lists[i]->next;
            mmfi_list_del(&r->link);
            mmfi_rec_free(ep, r);
        }
    while (!mmfi_list_empty(&ep->free_recs)) {
        mmfi_link *l = ep->free_recs.next;
        mmfi_list_del(l);
        free(l);
    }
    if (ep->eng)
        mm_destroy(ep->eng);
    ep->eng = NULL;
    mmfi_profile_close(ep);
}

/* Leave the engine for the generic path: messages in arrival order (each an
 * exact key, so the engine gives back exactly the earliest such element: this
 * one), receives by handle. */
/* Take queued message m out of the engine: its exact key gives back the
 * earliest such element, which is m when the caller goes through the
 * unexpected list in arrival order. 0, or -FI_EOTHER (warned) if the engine
 * gave back another one. */
static int take_from_engine(mmfi_ep *ep, mmfi_rec *m)
{
    uintptr_t found = 0;
    int rc = mm_mprobe(ep->eng, m->key.comm, m->key.src, m->key.tag, &found);
    if (rc != MM_MATCHED || found != (uintptr_t)m) {
        MMFI_WARN(FI_LOG_EP_DATA, "internal: the engine gave back another message (%s)\n",
                  mm_strerror(rc));
        return -FI_EOTHER;
    }
    m->in_engine = 0;
    return 0;
}

static int enter_generic(mmfi_ep *ep)
{
    for (mmfi_link *l = ep->unexp.next; l != &ep->unexp; l = l->next) {
        mmfi_rec *m = (mmfi_rec *)l;
        if (m->in_engine && take_from_engine(ep, m))
            return -FI_EOTHER;
    }
    for (mmfi_link *l = ep->posted.next; l != &ep->posted; l = l->next) {
        mmfi_rec *r = (mmfi_rec *)l;
        if (r->in_engine && mm_cancel(ep->eng, r->h) != MM_MATCHED) {
            MMFI_WARN(FI_LOG_EP_DATA, "internal: a posted receive was not in the engine\n");
            return -FI_EOTHER;
        }
        r->in_engine = 0;
    }
    ep->generic = 1;
    mmfi_profile_note(ep, "the generic path from here on: no further operation recorded");
    FI_INFO(&mmfi_prov, FI_LOG_EP_DATA, "a receive mask outside the MPI layout: generic path\n");
    return 0;
}

static mmfi_rec *generic_find(mmfi_link *list, const mmfi_rec *x, int x_is_recv)
{
    for (mmfi_link *l = list->next; l != list; l = l->next) {
        mmfi_rec *y = (mmfi_rec *)l;
        if (x_is_recv ? mmfi_rec_match(x, y) : mmfi_rec_match(y, x))
            return y;
    }
    return NULL;
}

static void fail_recv(mmfi_ep *ep, mmfi_rec *r, int err)
{
    mmfi_report_recv(ep, r, 0, r->tag, 0, 0, FI_ADDR_NOTAVAIL, err, 0);
    mmfi_rec_free(ep, r);
}

/* An engine refusal of a receive or probe: a wildcard under asserted hints
 * completes with an error entry (never a wrong match); other errors are the
 * call's. 1: the answer was rc >= 0 and the caller goes on. */
static int engine_refused(mmfi_ep *ep, mmfi_rec *r, int rc, int *ret)
{
    if (rc >= 0)
        return 0;
    if (rc == MM_EHINT) {
        ep->c.wildcard_refused++;
        MMFI_WARN(FI_LOG_EP_DATA, "a wildcard receive or probe under FI_MPIMATCH_HINTS "
                  "(engine %s): refused with FI_EINVAL\n", ep->dom->set.engine);
        fail_recv(ep, r, FI_EINVAL);
        *ret = 0;
    } else {
        mmfi_rec_free(ep, r);
        *ret = rc == MM_ENOMEM ? -FI_EAGAIN : -FI_EINVAL;
    }
    return 1;
}

/* FI_PEEK (+ FI_CLAIM or FI_DISCARD). */
static int peek(mmfi_ep *ep, mmfi_rec *r, int keyed, const mm_entry *key)
{
    uint64_t f = r->flags;
    int take = !!(f & (FI_CLAIM | FI_DISCARD));
    mmfi_rec *m = NULL;
    ep->c.peeks++;
    if (keyed) {
        uintptr_t found = 0;
        int rc = take ? mm_mprobe(ep->eng, key->comm, key->src, key->tag, &found)
                      : mm_probe(ep->eng, key->comm, key->src, key->tag, &found);
        int ret;
        if (engine_refused(ep, r, rc, &ret))
            return ret;
        mmfi_profile(ep, take ? 'X' : 'P', key, 0);
        if (rc == MM_MATCHED) {
            m = (mmfi_rec *)found;
            if (take)
                m->in_engine = 0;
        }
    } else
        m = generic_find(&ep->unexp, r, 1);
    if (take)
        *(m ? &ep->c.mpeek_hits : &ep->c.mpeek_misses) += 1;
    else
        *(m ? &ep->c.peek_hits : &ep->c.peek_misses) += 1;
    if (!m) {
        mmfi_report_recv(ep, r, 0, r->tag, 0, 0, FI_ADDR_NOTAVAIL, FI_ENOMSG, 0);
        mmfi_rec_free(ep, r);
        return 0;
    }
    mmfi_report_recv(ep, r, m->len, m->tag, m->data, m->has_data, m->addr, 0, 0);
    if (take) {
        mmfi_list_del(&m->link);
        if (f & FI_CLAIM) {
            ep->c.claims++;
            m->state = REC_CLAIMED;
            mmfi_list_push(&ep->claimed, &m->link);
            ((struct fi_context *)r->context)->internal[0] = m;
        } else {
            ep->c.discards++;
            mmfi_discard_msg(ep, m);
        }
    }
    mmfi_rec_free(ep, r);
    return 0;
}

int mmfi_match_post(mmfi_ep *ep, mmfi_rec *r)
{
    uint64_t f = r->flags;
    ep->c.posts++;
    if (ep->timed)
        r->t_ns = mmfi_now_ns();
    if (f & FI_CLAIM && !(f & FI_PEEK)) {
        /* The message a FI_PEEK | FI_CLAIM with this context took. */
        mmfi_rec *m = r->context ? ((struct fi_context *)r->context)->internal[0] : NULL;
        if (!m || m->kind != REC_MSG || m->state != REC_CLAIMED) {
            mmfi_rec_free(ep, r);
            return -FI_EINVAL;
        }
        ((struct fi_context *)r->context)->internal[0] = NULL;
        mmfi_list_del(&m->link);
        if (f & FI_DISCARD) {
            ep->c.discards++;
            mmfi_report_recv(ep, r, 0, m->tag, m->data, m->has_data, m->addr, 0, 0);
            mmfi_discard_msg(ep, m);
            mmfi_rec_free(ep, r);
        } else
            mmfi_deliver(ep, r, m);
        return 0;
    }
    mm_entry key;
    int keyed = !ep->generic && decode_recv(ep, r, &key);
    if (!keyed && !ep->generic) {
        int rc = enter_generic(ep);
        if (rc) {
            mmfi_rec_free(ep, r);
            return rc;
        }
    }
    if (!keyed)
        ep->c.generic_ops++;
    if (f & FI_PEEK)
        return peek(ep, r, keyed, &key);
    mmfi_rec *m = NULL;
    if (keyed) {
        uintptr_t partner = 0;
        key.cookie = (uintptr_t)r;
        key.bytes = r->cap;
        int rc = mm_post(ep->eng, &key, &r->h, &partner);
        int ret;
        if (engine_refused(ep, r, rc, &ret))
            return ret;
        r->prof_id = mmfi_profile(ep, 'R', &key, r->cap);
        if (rc == MM_MATCHED) {
            m = (mmfi_rec *)partner;
            m->in_engine = 0;
        } else
            r->in_engine = 1; /* (its key is not kept: a receive leaves the engine by handle) */
    } else
        m = generic_find(&ep->unexp, r, 1);
    if (m) {
        mmfi_list_del(&m->link);
        mmfi_deliver(ep, r, m);
    } else {
        r->state = REC_POSTED;
        mmfi_list_push(&ep->posted, &r->link);
    }
    return 0;
}

/* Message m through the engine under its key: 1 (the receive it matched, taken
 * off the posted list, in *recv_out), 0 (queued in the engine: m->key kept),
 * 2 (no key: m goes to the unexpected list only), or a libfabric error. */
MM_INLINE int engine_arrive(mmfi_ep *ep, mmfi_rec *m, mmfi_rec **recv_out)
{
    mm_entry key;
    if (!mmfi_decode_msg(ep, m, &key))
        return 2;
    uintptr_t partner = 0;
    key.cookie = (uintptr_t)m;
    int rc = mm_arrive(ep->eng, &key, &partner);
    if (rc < 0)
        return rc == MM_ENOMEM ? -FI_ENOMEM : -FI_EINVAL;
    mmfi_profile(ep, 'M', &key, m->len);
    if (rc == MM_MATCHED) {
        mmfi_rec *r = (mmfi_rec *)partner;
        r->in_engine = 0;
        mmfi_list_del(&r->link);
        *recv_out = r;
        return 1;
    }
    m->key = key;
    m->in_engine = 1;
    m->keyable = 1;
    return 0;
}

int mmfi_match_arrive(mmfi_ep *ep, mmfi_rec *m, mmfi_rec **recv_out)
{
    ep->c.arrivals++;
    *recv_out = NULL;
    if (ep->timed)
        m->t_ns = mmfi_now_ns();
    if (!ep->generic) {
        int rc = engine_arrive(ep, m, recv_out);
        if (rc < 0 || rc == 1)
            return rc;
        if (rc == 2)
            ep->c.keyless_msgs++;
    } else {
        ep->c.generic_ops++;
        mmfi_rec *r = generic_find(&ep->posted, m, 0);
        if (r) {
            mmfi_list_del(&r->link);
            *recv_out = r;
            return 1;
        }
    }
    m->state = REC_UNEXP;
    mmfi_list_push(&ep->unexp, &m->link);
    return 0;
}

/* Messages that arrived from a peer before the AV had its address were keyed
 * with the source "not in the AV" (src_of: the engine's last source), so a
 * receive directed at the peer's new fi_addr could never meet them. Open MPI
 * inserts a peer on another host only when it first communicates with it
 * (add_procs at first use), so the peer's first messages routinely arrive
 * first: across two hosts p2p's all-to-all took a round's message from the
 * next round and hung (test_provider lateav). Called when the AV gives a
 * connection its fi_addr: every message still keyed "not in the AV" leaves
 * the engine in arrival order (exact keys, so the engine gives back exactly
 * that element, as in enter_generic) and comes back under its connection's
 * fi_addr now, in the same order. One sender's messages keep their order
 * (all of them were keyed "not in the AV"; none arrives in between), and
 * MPI does not order messages of different senders. No posted receive can
 * take one of them (it would have at its post or at the arrival), except
 * one directed at the new fi_addr, which is then served here. */
void mmfi_match_rekey(mmfi_ep *ep)
{
    mmfi_link moved;
    mmfi_list_init(&moved);
    for (mmfi_link *l = ep->unexp.next, *next; l != &ep->unexp; l = next) {
        next = l->next;
        mmfi_rec *m = (mmfi_rec *)l;
        fi_addr_t a = m->addr == FI_ADDR_NOTAVAIL ? ep->conns[m->conn].fiaddr : m->addr;
        if (!m->in_engine) { /* the generic path compares addresses itself */
            m->addr = a;
            continue;
        }
        /* the whole "not in the AV" source, so that an exact key gives back this one */
        if (m->key.src != ep->eng_nprocs - 1)
            continue;
        if (take_from_engine(ep, m))
            break; /* those taken out so far still go back */
        mmfi_profile(ep, 'X', &(mm_entry){.comm = m->key.comm, .src = m->key.src,
                                          .tag = m->key.tag}, 0);
        m->addr = a;
        mmfi_list_del(&m->link);
        mmfi_list_push(&moved, &m->link);
    }
    while (!mmfi_list_empty(&moved)) {
        mmfi_rec *m = (mmfi_rec *)moved.next, *r = NULL;
        mmfi_list_del(&m->link);
        int rc = engine_arrive(ep, m, &r); /* keyed before, so keyed now */
        if (rc == 1) {
            mmfi_deliver(ep, r, m);
            continue;
        }
        if (rc < 0) /* out of memory: it waits keyless, for the generic path only */
            MMFI_WARN(FI_LOG_EP_DATA, "re-keying a message: %s\n", fi_strerror(-rc));
        mmfi_list_push(&ep->unexp, &m->link);
    }
}

int mmfi_match_cancel(mmfi_ep *ep, void *context)
{
    for (mmfi_link *l = ep->posted.next; l != &ep->posted; l = l->next) {
        mmfi_rec *r = (mmfi_rec *)l;
        if (r->context != context)
            continue;
        if (r->in_engine && mm_cancel(ep->eng, r->h) != MM_MATCHED)
            return -FI_ENOENT;
        if (r->in_engine)
            mmfi_profile_cancel(ep, r->prof_id);
        r->in_engine = 0;
        mmfi_list_del(&r->link);
        ep->c.cancels++;
        mmfi_report_recv(ep, r, 0, r->tag, 0, 0, FI_ADDR_NOTAVAIL, FI_ECANCELED, 0);
        mmfi_rec_free(ep, r);
        return 0;
    }
    ep->c.cancel_miss++;
    return -FI_ENOENT;
}

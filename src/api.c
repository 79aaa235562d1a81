/* api.c - the public calls: validate, lock, sequence, pool, dispatch.
 *
 * Everything common to all engines lives here so that an engine file holds
 * only its placement and search order. A call that fails leaves the engine's
 * queues as they were. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "engine.h"

#define LOCK(e)   do { if ((e)->locked) pthread_mutex_lock(&(e)->lock); } while (0)
#define UNLOCK(e) do { if ((e)->locked) pthread_mutex_unlock(&(e)->lock); } while (0)

static void set_err(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
    if (!err || !errlen)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

const char *mm_strerror(int status)
{
    switch (status) {
    case MM_QUEUED:    return "queued";
    case MM_MATCHED:   return "matched";
    case MM_NOTFOUND:  return "not found";
    case MM_EINVAL:    return "invalid argument";
    case MM_ENOMEM:    return "out of memory";
    case MM_EHINT:     return "operation or engine conflicts with the asserted hints";
    case MM_ENOENGINE: return "no such engine";
    case MM_EPARAM:    return "unknown parameter or value out of range";
    case MM_EHANDLE:   return "handle does not belong to this engine";
    default:           return "unknown status";
    }
}

static size_t list_names(char *buf, size_t len, const char *const *names, size_t n)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n && used < len; i++) {
        int w = snprintf(buf + used, len - used, "%s%s", i ? ", " : "", names[i]);
        if (w < 0)
            break;
        used += (size_t)w;
    }
    return used;
}

static int unknown_engine(const char *name, char *err, size_t errlen)
{
    const char *names[64];
    size_t n = 0;
    for (size_t i = 0; i < mm_engine_count() && n < 64; i++)
        names[n++] = mm_engine_at(i)->name;
    char buf[512];
    list_names(buf, sizeof buf, names, n);
    set_err(err, errlen, "unknown engine '%s'; valid engines: %s", name ? name : "(null)", buf);
    return MM_ENOENGINE;
}

static void hint_names(uint32_t hints, char *buf, size_t len)
{
    snprintf(buf, len, "%s%s%s",
             hints & MM_HINT_NO_ANY_SOURCE ? "no_any_source" : "",
             (hints & MM_HINT_NO_ANY_SOURCE) && (hints & MM_HINT_NO_ANY_TAG) ? "," : "",
             hints & MM_HINT_NO_ANY_TAG ? "no_any_tag" : "");
}

/* Parse "key=value" parameters against the engine's table into e->param. */
static void free_params(mm_engine *e)
{
    for (size_t i = 0; i < MM_MAX_PARAMS; i++)
        if (e->param_str[i]) {
            mm_mem_free(&e->mem, e->param_str[i], strlen(e->param_str[i]) + 1);
            e->param_str[i] = NULL;
        }
}

static int parse_params(mm_engine *e, const mm_config *cfg, char *err, size_t errlen)
{
    const mm_engine_info *info = &e->def->info;
    int seen[MM_MAX_PARAMS] = {0};
    for (size_t i = 0; i < info->nparams; i++)
        e->param[i] = info->params[i].def;
    for (size_t i = 0; i < cfg->nparams; i++) {
        const char *kv = cfg->params ? cfg->params[i] : NULL;
        const char *eq = kv ? strchr(kv, '=') : NULL;
        if (!eq || eq == kv) {
            set_err(err, errlen, "parameter '%s' is not of the form key=value", kv ? kv : "(null)");
            return MM_EPARAM;
        }
        size_t klen = (size_t)(eq - kv);
        size_t p = 0;
        while (p < info->nparams &&
               !(strlen(info->params[p].name) == klen && strncmp(info->params[p].name, kv, klen) == 0))
            p++;
        if (p == info->nparams) {
            const char *names[MM_MAX_PARAMS];
            for (size_t j = 0; j < info->nparams; j++)
                names[j] = info->params[j].name;
            char buf[256];
            list_names(buf, sizeof buf, names, info->nparams);
            set_err(err, errlen, "engine '%s' has no parameter '%.*s'; %s%s", info->name,
                    (int)klen, kv, info->nparams ? "valid parameters: " : "it takes no parameters",
                    buf);
            return MM_EPARAM;
        }
        if (seen[p]++) {
            set_err(err, errlen, "parameter '%s' given twice", info->params[p].name);
            return MM_EPARAM;
        }
        if (info->params[p].type == MM_PARAM_FILE) {
            if (eq[1] == '\0') {
                set_err(err, errlen, "parameter %s of engine '%s' needs a file name",
                        info->params[p].name, info->name);
                return MM_EPARAM;
            }
            size_t n = strlen(eq + 1) + 1;
            e->param_str[p] = mm_mem_alloc(&e->mem, n);
            if (!e->param_str[p]) {
                set_err(err, errlen, "out of memory");
                return MM_ENOMEM;
            }
            memcpy(e->param_str[p], eq + 1, n);
            continue;
        }
        char *end;
        errno = 0;
        long long v = strtoll(eq + 1, &end, 10);
        if (eq[1] == '\0' || *end != '\0' || errno == ERANGE ||
            v < info->params[p].min || v > info->params[p].max) {
            set_err(err, errlen, "parameter %s=%s of engine '%s' is out of range: "
                    "an integer from %" PRId64 " to %" PRId64 " is allowed",
                    info->params[p].name, eq + 1, info->name,
                    info->params[p].min, info->params[p].max);
            return MM_EPARAM;
        }
        e->param[p] = v;
    }
    return 0;
}

int mm_create(mm_engine **out, const char *name, const mm_config *cfg, char *err, size_t errlen)
{
    set_err(err, errlen, "%s", "");
    if (!out) {
        set_err(err, errlen, "out must not be NULL");
        return MM_EINVAL;
    }
    *out = NULL;
    const mm_engine_def *def = mm_engine_def_find(name);
    if (!def)
        return unknown_engine(name, err, errlen);
    if (!cfg || cfg->nprocs < 1) {
        set_err(err, errlen, "the configuration needs nprocs >= 1");
        return MM_EINVAL;
    }
    if (cfg->hints & ~(uint32_t)(MM_HINT_NO_ANY_SOURCE | MM_HINT_NO_ANY_TAG) ||
        cfg->flags & ~(uint32_t)MM_CFG_THREAD_SAFE || (cfg->nparams && !cfg->params)) {
        set_err(err, errlen, "unknown hint or flag bits, or params missing");
        return MM_EINVAL;
    }
    uint32_t missing = def->info.hints_required & ~cfg->hints;
    if (missing) {
        char buf[64];
        hint_names(missing, buf, sizeof buf);
        set_err(err, errlen, "engine '%s' requires the hints %s (MPI 4.0 "
                "mpi_assert_no_any_source / mpi_assert_no_any_tag): it cannot match wildcards",
                def->info.name, buf);
        return MM_EHINT;
    }
    mm_mem mem = {0};
    mm_engine *e = mm_mem_calloc(&mem, 1, sizeof *e);
    if (!e) {
        set_err(err, errlen, "out of memory");
        return MM_ENOMEM;
    }
    e->mem = mem;
    e->prq_mem.parent = e->umq_mem.parent = &e->mem;
    e->def = def;
    e->nprocs = cfg->nprocs;
    e->hints = cfg->hints;
    int rc = parse_params(e, cfg, err, errlen);
    if (rc != 0) {
        free_params(e);
        free(e);
        return rc;
    }
    unsigned rlinks = def->ops->nlinks_recv ? def->ops->nlinks_recv : def->ops->nlinks;
    mm_pool_init(&e->msgs, mm_elem_size(def->ops->nlinks), &e->mem);
    mm_pool_init(&e->recvs, mm_elem_size(rlinks), &e->mem);  /* allocates nothing yet */
    e->recv_pool = rlinks < def->ops->nlinks ? &e->recvs : &e->msgs;
    if (cfg->flags & MM_CFG_THREAD_SAFE) {
        if (pthread_mutex_init(&e->lock, NULL) != 0) {
            free_params(e);
            free(e);
            set_err(err, errlen, "cannot create the engine lock");
            return MM_ENOMEM;
        }
        e->locked = 1;
    }
    rc = def->ops->init(e, err, errlen);
    if (rc != 0) {
        mm_pool_destroy(&e->recvs);
        mm_pool_destroy(&e->msgs);
        if (e->locked)
            pthread_mutex_destroy(&e->lock);
        free_params(e);
        free(e);
        return rc;
    }
    *out = e;
    return 0;
}

void mm_destroy(mm_engine *e)
{
    if (!e)
        return;
    e->def->ops->fini(e);
    mm_pool_destroy(&e->recvs);
    mm_pool_destroy(&e->msgs);
    if (e->locked)
        pthread_mutex_destroy(&e->lock);
    free_params(e);
    free(e);
}

const char *mm_engine_name(const mm_engine *e)
{
    return e ? e->def->info.name : NULL;
}

/* ---- argument checks ---- */

/* kind, coll_op and reserved share one 32-bit word, zero for every
 * point-to-point entry: one compare accepts the common case. */
_Static_assert(offsetof(mm_entry, coll_op) == offsetof(mm_entry, kind) + 1 &&
               offsetof(mm_entry, reserved) == offsetof(mm_entry, kind) + 2 &&
               sizeof(((mm_entry *)0)->reserved) == 2 && MM_KIND_P2P == 0 && MM_COLL_NONE == 0,
               "the point-to-point fast path reads kind, coll_op, reserved as one word");

static int check_entry(const mm_entry *x)
{
    uint32_t annot;
    memcpy(&annot, &x->kind, sizeof annot);
    if (annot == 0)
        return x->comm < 0 ? MM_EINVAL : 0;
    if (x->comm < 0 || x->kind > MM_KIND_COLL || x->coll_op >= MM_COLL_OP_COUNT || x->reserved)
        return MM_EINVAL;
    if ((x->kind == MM_KIND_COLL) != (x->coll_op != MM_COLL_NONE))
        return MM_EINVAL;
    return 0;
}

static int check_recv_key(const mm_engine *e, int32_t comm, int32_t src, int32_t tag)
{
    /* Every int32 is a tag (INT32_MIN is ANY_TAG); only hints restrict it. */
    if (comm < 0 || (src != MM_ANY_SOURCE && (src < 0 || src >= e->nprocs)))
        return MM_EINVAL;
    if ((e->hints & MM_HINT_NO_ANY_SOURCE) && src == MM_ANY_SOURCE)
        return MM_EHINT;
    if ((e->hints & MM_HINT_NO_ANY_TAG) && tag == MM_ANY_TAG)
        return MM_EHINT;
    return 0;
}

static void fill(mm_elem *x, const mm_entry *d, uint64_t seq, uint8_t flags)
{
    x->seq = seq;
    x->key.comm = d->comm;
    x->key.src = d->src;
    x->key.tag = d->tag;
    x->kind = d->kind;
    x->coll_op = d->coll_op;
    x->flags = flags;
    x->slot = 0;
    x->cookie = d->cookie;
    x->bytes = d->bytes;
    x->comm_size = d->comm_size;
    x->call = d->call;
}

static inline mm_pool *pool_of(mm_engine *e, int is_recv)
{
    return is_recv ? e->recv_pool : &e->msgs;
}

/* Return x to its pool p (pool_of its side). */
static inline void release(mm_pool *p, mm_elem *x)
{
    x->flags = 0;
    mm_pool_put(p, x);
}

/* An element joins or leaves side q (with its byte account m); the side's
 * elements come from pool p. */
static inline void side_add(mm_qstats *q, mm_mem *m, const mm_pool *p)
{
    if (++q->length > q->max_length)
        q->max_length = q->length;
    mm_mem_charge(m, p->obj_size);
}

static inline void side_del(mm_qstats *q, mm_mem *m, const mm_pool *p)
{
    q->length--;
    mm_mem_uncharge(m, p->obj_size);
}

/* ---- operations ---- */

/* Posting a receive and delivering a message are one path with the roles
 * swapped: search the other side, take the earliest partner or queue self. */
static int enter(mm_engine *e, const mm_entry *x, int is_recv, mm_handle *h, uintptr_t *partner)
{
    mm_pool *mine_pool = pool_of(e, is_recv), *their_pool = pool_of(e, !is_recv);
    LOCK(e);
    mm_elem *self = mm_pool_get(mine_pool);
    if (!self) {
        UNLOCK(e);
        return MM_ENOMEM;
    }
    fill(self, x, ++e->seq, is_recv ? MM_ELEM_RECV : 0);
    mm_elem *other = NULL;
    int rc = is_recv ? e->def->ops->post(e, self, &other) : e->def->ops->arrive(e, self, &other);
    mm_qstats *mine = is_recv ? &e->st.prq : &e->st.umq;
    mm_qstats *theirs = is_recv ? &e->st.umq : &e->st.prq;
    mm_mem *mine_mem = is_recv ? &e->prq_mem : &e->umq_mem;
    mm_mem *theirs_mem = is_recv ? &e->umq_mem : &e->prq_mem;
    uintptr_t cookie = 0;
    mm_handle queued = {NULL, 0};
    if (rc == MM_MATCHED) {
        cookie = other->cookie;
        release(their_pool, other);
        release(mine_pool, self);
        side_del(theirs, theirs_mem, their_pool);
    } else if (rc == MM_QUEUED) {
        self->flags |= MM_ELEM_QUEUED;
        side_add(mine, mine_mem, mine_pool);
        queued = (mm_handle){self, self->seq};
    } else {
        release(mine_pool, self);
    }
    UNLOCK(e);
    if (rc >= 0 && h)
        *h = queued;
    if (rc == MM_MATCHED && partner)
        *partner = cookie;
    return rc;
}

int mm_post(mm_engine *e, const mm_entry *recv, mm_handle *h, uintptr_t *partner)
{
    if (!e || !recv || check_entry(recv))
        return MM_EINVAL;
    int rc = check_recv_key(e, recv->comm, recv->src, recv->tag);
    return rc ? rc : enter(e, recv, 1, h, partner);
}

int mm_arrive(mm_engine *e, const mm_entry *msg, uintptr_t *partner)
{
    if (!e || !msg || check_entry(msg))
        return MM_EINVAL;
    if (msg->src < 0 || msg->src >= e->nprocs || msg->tag == MM_ANY_TAG)
        return MM_EINVAL;
    return enter(e, msg, 0, NULL, partner);
}

static int probe(mm_engine *e, int32_t comm, int32_t src, int32_t tag, uintptr_t *found, int remove)
{
    if (!e)
        return MM_EINVAL;
    int rc = check_recv_key(e, comm, src, tag);
    if (rc)
        return rc;
    mm_key k = {comm, src, tag};
    LOCK(e);
    mm_elem *m = e->def->ops->probe(e, &k, remove);
    uintptr_t cookie = m ? m->cookie : 0;
    if (m && remove) {
        release(&e->msgs, m);
        side_del(&e->st.umq, &e->umq_mem, &e->msgs);
    }
    UNLOCK(e);
    if (m && found)
        *found = cookie;
    return m ? MM_MATCHED : MM_NOTFOUND;
}

int mm_probe(mm_engine *e, int32_t comm, int32_t src, int32_t tag, uintptr_t *found)
{
    return probe(e, comm, src, tag, found, 0);
}

int mm_mprobe(mm_engine *e, int32_t comm, int32_t src, int32_t tag, uintptr_t *found)
{
    return probe(e, comm, src, tag, found, 1);
}

int mm_cancel(mm_engine *e, mm_handle h)
{
    if (!e || !h.elem)
        return MM_EINVAL;
    LOCK(e);
    int rc;
    mm_elem *r = h.elem;
    if (!mm_pool_owns(e->recv_pool, r)) {
        rc = MM_EHANDLE;
    } else if ((r->flags & (MM_ELEM_RECV | MM_ELEM_QUEUED)) != (MM_ELEM_RECV | MM_ELEM_QUEUED) ||
               r->seq != h.seq) {
        rc = MM_NOTFOUND; /* matched or cancelled already */
    } else {
        e->def->ops->cancel(e, r);
        release(e->recv_pool, r);
        side_del(&e->st.prq, &e->prq_mem, e->recv_pool);
        e->st.cancels++;
        rc = MM_MATCHED;
    }
    UNLOCK(e);
    return rc;
}

int mm_get_stats(mm_engine *e, mm_stats *out)
{
    if (!e || !out)
        return MM_EINVAL;
    LOCK(e);
    *out = e->st;
    out->prq.bytes = e->prq_mem.bytes;
    out->prq.peak_bytes = e->prq_mem.peak;
    out->umq.bytes = e->umq_mem.bytes;
    out->umq.peak_bytes = e->umq_mem.peak;
    out->bytes = e->mem.bytes;
    out->peak_bytes = e->mem.peak;
    UNLOCK(e);
    return 0;
}

static void reset_side(mm_qstats *q)
{
    q->searches = q->hits = q->misses = q->traversed = q->max_depth = 0;
    q->probes = q->max_probes = 0;
    q->max_length = q->length;
    q->max_queues = q->queues;
}

void mm_reset_stats(mm_engine *e)
{
    if (!e)
        return;
    LOCK(e);
    reset_side(&e->st.prq);
    reset_side(&e->st.umq);
    e->st.cancels = 0;
    e->st.overhead = (mm_overhead){0, 0, 0, 0};
    e->mem.peak = e->mem.bytes;
    e->prq_mem.peak = e->prq_mem.bytes;
    e->umq_mem.peak = e->umq_mem.bytes;
    UNLOCK(e);
}

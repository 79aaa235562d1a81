/* api.c - the public calls: validate, lock, sequence, pool, dispatch.
 *
 * Everything common to all engines lives here so that an engine file holds
 * only its placement and search order. A call that fails leaves the engine's
 * queues and statistics as they were (see enter). */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "engine.h"
#include "enter.h"
#include "shard.h"
#include "core/compiler.h"

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

static int generic_enter_post(mm_engine *e, const mm_entry *x, mm_handle *h, uintptr_t *partner);
static int generic_enter_arrive(mm_engine *e, const mm_entry *x, uintptr_t *partner);
static int locked_enter_post(mm_engine *e, const mm_entry *x, mm_handle *h, uintptr_t *partner);
static int locked_enter_arrive(mm_engine *e, const mm_entry *x, uintptr_t *partner);

/* mm_create and mm_create_from: def is the engine (NULL: unknown name). */
static int create(mm_engine **out, const mm_engine_def *def, const char *name,
                  const mm_config *cfg, char *err, size_t errlen)
{
    set_err(err, errlen, "%s", "");
    if (!out) {
        set_err(err, errlen, "out must not be NULL");
        return MM_EINVAL;
    }
    *out = NULL;
    if (!def)
        return unknown_engine(name, err, errlen);
    if (!cfg || cfg->nprocs < 1) {
        set_err(err, errlen, "the configuration needs nprocs >= 1");
        return MM_EINVAL;
    }
    if (cfg->hints & ~(uint32_t)(MM_HINT_NO_ANY_SOURCE | MM_HINT_NO_ANY_TAG) ||
        cfg->flags & ~(uint32_t)(MM_CFG_THREAD_SAFE | MM_CFG_CONCURRENT) || (cfg->nparams && !cfg->params)) {
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
    if (cfg->flags & MM_CFG_CONCURRENT) {
        int rc = mm_shards_create(out, def, cfg, err, errlen);
        if (rc == 0) {
            (*out)->enter_post = locked_enter_post;
            (*out)->enter_arrive = locked_enter_arrive;
        }
        return rc;
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
    e->post = def->ops->post;
    e->arrive = def->ops->arrive;
    e->probe = def->ops->probe;
    e->enter_post = def->ops->enter_post ? def->ops->enter_post : generic_enter_post;
    e->enter_arrive = def->ops->enter_arrive ? def->ops->enter_arrive : generic_enter_arrive;
    e->nprocs = cfg->nprocs;
    e->hints = cfg->hints;
    int rc = parse_params(e, cfg, err, errlen);
    if (rc != 0) {
        free_params(e);
        free(e);
        return rc;
    }
    unsigned rlinks = def->ops->nlinks_recv ? def->ops->nlinks_recv : def->ops->nlinks;
    if (def->ops->nlinks > MM_MAX_LINKS) { /* search_only's element has no room */
        free_params(e);
        free(e);
        set_err(err, errlen, "engine '%s' uses more than %d links", def->info.name, MM_MAX_LINKS);
        return MM_EINVAL;
    }
    mm_pool_init(&e->msgs, mm_elem_size(def->ops->nlinks), &e->mem);
    mm_pool_init(&e->recvs, mm_elem_size(rlinks), &e->mem);  /* allocates nothing yet */
    e->recv_pool = rlinks < def->ops->nlinks ? &e->recvs : &e->msgs;
    e->msg_size = (uint32_t)e->msgs.obj_size;
    e->recv_size = (uint32_t)e->recv_pool->obj_size;
    /* Each side's account counts its queued elements (mem.h). */
    mm_mem_count(&e->prq_mem, &e->st.prq.length, &e->st.prq.max_length, e->recv_size);
    mm_mem_count(&e->umq_mem, &e->st.umq.length, &e->st.umq.max_length, e->msg_size);
    if (cfg->flags & MM_CFG_THREAD_SAFE) {
        if (pthread_mutex_init(&e->lock, NULL) != 0) {
            free_params(e);
            free(e);
            set_err(err, errlen, "cannot create the engine lock");
            return MM_ENOMEM;
        }
        e->locked = 1;
        e->enter_post = locked_enter_post;
        e->enter_arrive = locked_enter_arrive;
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

int mm_create(mm_engine **out, const char *name, const mm_config *cfg, char *err, size_t errlen)
{
    return create(out, mm_engine_def_find(name), name, cfg, err, errlen);
}

int mm_create_from(mm_engine **out, const mm_engine_info *info, const mm_config *cfg,
                   char *err, size_t errlen)
{
    return create(out, mm_engine_def_of(info), info ? info->name : NULL, cfg, err, errlen);
}

int mm_get_param(const mm_engine *e, size_t i, int64_t *value)
{
    if (!e || !value || i >= e->def->info.nparams || e->def->info.params[i].type != MM_PARAM_INT)
        return MM_EINVAL;
    *value = e->param[i];
    return 0;
}

void mm_destroy(mm_engine *e)
{
    if (!e)
        return;
    if (e->shards) {
        mm_shards_destroy(e);
        return;
    }
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

/* kind, coll_op and reserved are all zero in a point-to-point entry: one
 * test of their or accepts the common case. Three loads, each its field's
 * width, not one 32-bit load over the three: a caller that sets the fields
 * one by one just before the call would make that load wait for its stores
 * to reach the cache (enter.h, mm_enter_fill_entry). */
_Static_assert(MM_KIND_P2P == 0 && MM_COLL_NONE == 0,
               "the point-to-point fast path tests kind | coll_op | reserved");

MM_INLINE uint32_t annotations(const mm_entry *x)
{
    uint32_t kind = x->kind, op = x->coll_op, reserved = x->reserved;
    MM_OPAQUE(op);
    return kind | op | reserved;
}

static MM_COLD int check_annotations(const mm_entry *x)
{
    if (x->kind > MM_KIND_COLL || x->coll_op >= MM_COLL_OP_COUNT || x->reserved)
        return MM_EINVAL;
    if ((x->kind == MM_KIND_COLL) != (x->coll_op != MM_COLL_NONE))
        return MM_EINVAL;
    return 0;
}

MM_INLINE int check_entry(const mm_entry *x)
{
    if (MM_UNLIKELY(annotations(x) != 0) && check_annotations(x))
        return MM_EINVAL;
    return x->comm < 0 ? MM_EINVAL : 0;
}

/* A receive or probe key (comm already checked for posts). Every int32 is a
 * tag (INT32_MIN is ANY_TAG); only hints restrict it. */
MM_INLINE int check_recv_key(const mm_engine *e, int32_t comm, int32_t src, int32_t tag)
{
    if (comm < 0)
        return MM_EINVAL;
    /* One unsigned compare accepts a source in range; ANY_SOURCE (-1) is
     * then told apart from a bad source. */
    if (MM_UNLIKELY((uint32_t)src >= (uint32_t)e->nprocs)) {
        if (src != MM_ANY_SOURCE)
            return MM_EINVAL;
        if (e->hints & MM_HINT_NO_ANY_SOURCE)
            return MM_EHINT;
    }
    if (MM_UNLIKELY(tag == MM_ANY_TAG) && (e->hints & MM_HINT_NO_ANY_TAG))
        return MM_EHINT;
    return 0;
}

/* The matching path's helpers (mm_enter_fill, _pool, _release, _side_*)
 * are in enter.h, shared with the engines' own entries. */
static inline void side_del(mm_qstats *q)
{
    mm_enter_side_del(q);
}

/* ---- operations ---- */

/* Posting a receive and delivering a message are one path with the roles
 * swapped (mm_enter, enter.h): search the other side, take the earliest
 * partner or queue self. The matching path: the element from the pool's
 * free list, filled with one copy, the engine's search, the books kept;
 * locking, pool growth and failure are out of line. mm_post and mm_arrive
 * check their arguments and call the engine's entry (ops->enter_post,
 * enter_arrive: the path with the engine's search compiled in), or, for an
 * engine without entries, the path below that calls post and arrive
 * through the handle. When the pool cannot grow, search_only runs the call
 * with an element on the stack that the engine may not queue: a receive
 * still takes a queued message (search first, allocate only to queue). */
MM_INLINE int enter(mm_engine *e, const mm_entry *x, const int is_recv, mm_handle *h,
                    uintptr_t *partner, const uint8_t xflags, uint8_t *const pflags)
{
    return mm_enter(e, x, is_recv, h, partner, xflags, pflags, e->post, e->arrive, 1);
}

static int generic_enter_post(mm_engine *e, const mm_entry *x, mm_handle *h, uintptr_t *partner)
{
    return enter(e, x, 1, h, partner, 0, NULL);
}

static int generic_enter_arrive(mm_engine *e, const mm_entry *x, uintptr_t *partner)
{
    return enter(e, x, 0, NULL, partner, 0, NULL);
}

/* Search with an element the engine may not queue (the pool cannot grow). */
static int search_only(mm_engine *e, const mm_entry *x, int is_recv, mm_handle *h,
                       uintptr_t *partner, uint8_t xflags, uint8_t *pflags)
{
    _Alignas(max_align_t) unsigned char room[sizeof(mm_elem) + MM_MAX_LINKS * sizeof(mm_link)];
    mm_elem *self = (mm_elem *)(void *)room;
    mm_stats saved = e->st;
    mm_enter_fill(self, x, ++e->seq,
                  (uint8_t)((is_recv ? MM_ELEM_RECV : 0) | MM_ELEM_NOQUEUE | xflags));
    mm_elem *other = NULL;
    int rc = is_recv ? e->post(e, self, &other) : e->arrive(e, self, &other);
    if (rc == MM_MATCHED) {
        mm_pool *tp = mm_enter_pool(e, !is_recv);
        uintptr_t cookie = other->cookie;
        if (pflags)
            *pflags = other->flags;
        mm_enter_release(tp, other);
        side_del(is_recv ? &e->st.umq : &e->st.prq);
        if (h)
            *h = (mm_handle){NULL, 0};
        if (partner)
            *partner = cookie;
        return rc;
    }
    /* MM_QUEUED cannot happen (the engine may not queue self). */
    e->st = saved;
    e->seq--;
    return MM_ENOMEM;
}

/* The pool is empty: grow it and go on, or search only. */
MM_COLD int mm_enter_slow(mm_engine *e, const mm_entry *x, unsigned mode, mm_handle *h,
                          uintptr_t *partner, uint8_t *pflags)
{
    const int is_recv = (int)(mode & 1);
    const uint8_t xflags = (uint8_t)(mode >> 8);
    if (mm_pool_grow(mm_enter_pool(e, is_recv)) != 0)
        return search_only(e, x, is_recv, h, partner, xflags, pflags);
    return is_recv ? enter(e, x, 1, h, partner, xflags, pflags)
                   : enter(e, x, 0, h, partner, xflags, pflags);
}

/* The argument checks of a receive or message, point-to-point or not. */
static int check_post(const mm_engine *e, const mm_entry *x)
{
    return check_entry(x) ? MM_EINVAL : check_recv_key(e, x->comm, x->src, x->tag);
}

static int check_arrive(const mm_engine *e, const mm_entry *x)
{
    if (check_entry(x) || (uint32_t)x->src >= (uint32_t)e->nprocs || x->tag == MM_ANY_TAG)
        return MM_EINVAL;
    return 0;
}

/* The engine's own entry (or the API's generic path), without lock or shards. */
static inline int own_enter_post(mm_engine *e, const mm_entry *x, mm_handle *h, uintptr_t *partner)
{
    const mm_engine_ops *ops = e->def->ops;
    return ops->enter_post ? ops->enter_post(e, x, h, partner)
                           : generic_enter_post(e, x, h, partner);
}

static inline int own_enter_arrive(mm_engine *e, const mm_entry *x, uintptr_t *partner)
{
    const mm_engine_ops *ops = e->def->ops;
    return ops->enter_arrive ? ops->enter_arrive(e, x, partner)
                             : generic_enter_arrive(e, x, partner);
}

/* The entries of an engine whose calls take its lock (MM_CFG_THREAD_SAFE)
 * or go through its shards (MM_CFG_CONCURRENT): create() puts them in
 * e->enter_post and enter_arrive, so the unlocked fast path of mm_post and
 * mm_arrive never tests for either. Called with checked arguments. */
static int locked_enter_post(mm_engine *e, const mm_entry *x, mm_handle *h, uintptr_t *partner)
{
    if (e->shards)
        return mm_shards_enter(e, x, 1, h, partner);
    pthread_mutex_lock(&e->lock);
    int rc = own_enter_post(e, x, h, partner);
    pthread_mutex_unlock(&e->lock);
    return rc;
}

static int locked_enter_arrive(mm_engine *e, const mm_entry *x, uintptr_t *partner)
{
    if (e->shards)
        return mm_shards_enter(e, x, 0, NULL, partner);
    pthread_mutex_lock(&e->lock);
    int rc = own_enter_arrive(e, x, partner);
    pthread_mutex_unlock(&e->lock);
    return rc;
}

/* A checked call with collective annotations on a shard's engine (its
 * shard's lock held, mm_enter_internal): the engine sees the entry in
 * e->coll_entry while the call runs (elements do not keep comm_size, call
 * and bytes). */
static MM_COLD int coll_enter(mm_engine *e, const mm_entry *x, int is_recv, uint8_t xflags,
                              mm_handle *h, uintptr_t *partner, uint8_t *pflags)
{
    e->coll_entry = x;
    int rc = is_recv ? enter(e, x, 1, h, partner, xflags, pflags)
                     : enter(e, x, 0, h, partner, xflags, pflags);
    e->coll_entry = NULL;
    return rc;
}

/* A checked call with collective annotations on an engine with a lock
 * (e->enter_post is then locked_enter_post): the engine's own entry with
 * the lock held, the entry in e->coll_entry while it runs. */
static MM_COLD int locked_coll_call(mm_engine *e, const mm_entry *x, int is_recv, mm_handle *h,
                                    uintptr_t *partner)
{
    pthread_mutex_lock(&e->lock);
    e->coll_entry = x;
    int rc = is_recv ? own_enter_post(e, x, h, partner) : own_enter_arrive(e, x, partner);
    e->coll_entry = NULL;
    pthread_mutex_unlock(&e->lock);
    return rc;
}

/* The same without lock or shards: the engine's current entry (auto changes
 * e->enter_post), the entry in e->coll_entry while it runs. A function of
 * its own, so that enter_other's checks keep no registers across the call. */
static MM_COLD int coll_call(mm_engine *e, const mm_entry *x, int is_recv, mm_handle *h,
                             uintptr_t *partner)
{
    e->coll_entry = x;
    int rc = is_recv ? e->enter_post(e, x, h, partner) : e->enter_arrive(e, x, partner);
    e->coll_entry = NULL;
    return rc;
}

/* Everything but the common case: collective annotations (checked in full).
 * The call takes the lock or the shards if the engine has them (a shard's
 * call sets the shard's coll_entry, mm_enter_internal). */
static MM_COLD int enter_other(mm_engine *e, const mm_entry *x, int is_recv, mm_handle *h,
                               uintptr_t *partner)
{
    int rc = is_recv ? check_post(e, x) : check_arrive(e, x);
    if (rc)
        return rc;
    if (e->shards)
        return mm_shards_enter(e, x, is_recv, h, partner);
    if (e->locked)
        return locked_coll_call(e, x, is_recv, h, partner);
    return coll_call(e, x, is_recv, h, partner);
}

int mm_post(mm_engine *e, const mm_entry *recv, mm_handle *h, uintptr_t *partner)
{
    if (MM_UNLIKELY(!e || !recv))
        return MM_EINVAL;
    if (MM_UNLIKELY(annotations(recv)))
        return enter_other(e, recv, 1, h, partner);
    int rc = check_recv_key(e, recv->comm, recv->src, recv->tag);
    return MM_LIKELY(rc == 0) ? e->enter_post(e, recv, h, partner) : rc;
}

int mm_arrive(mm_engine *e, const mm_entry *msg, uintptr_t *partner)
{
    if (MM_UNLIKELY(!e || !msg))
        return MM_EINVAL;
    if (MM_UNLIKELY(annotations(msg)))
        return enter_other(e, msg, 0, NULL, partner);
    if (msg->comm < 0 || (uint32_t)msg->src >= (uint32_t)e->nprocs || msg->tag == MM_ANY_TAG)
        return MM_EINVAL;
    return e->enter_arrive(e, msg, partner);
}

int mm_enter_internal(mm_engine *e, const mm_entry *x, int is_recv, uint8_t xflags,
                      mm_handle *h, uintptr_t *partner, uint8_t *pflags)
{
    int rc = is_recv ? check_post(e, x) : check_arrive(e, x);
    if (rc)
        return rc;
    if (MM_UNLIKELY(annotations(x)))
        return coll_enter(e, x, is_recv, xflags, h, partner, pflags);
    return is_recv ? enter(e, x, 1, h, partner, xflags, pflags)
                   : enter(e, x, 0, h, partner, xflags, pflags);
}

static int probe(mm_engine *e, int32_t comm, int32_t src, int32_t tag, uintptr_t *found, int remove)
{
    if (!e)
        return MM_EINVAL;
    int rc = check_recv_key(e, comm, src, tag);
    if (rc)
        return rc;
    if (e->shards)
        return mm_shards_probe(e, comm, src, tag, found, remove);
    mm_key k = {comm, src, tag};
    LOCK(e);
    mm_elem *m = e->probe(e, &k, remove);
    uintptr_t cookie = m ? m->cookie : 0;
    if (m && remove) {
        mm_enter_release(&e->msgs, m);
        side_del(&e->st.umq);
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
    if (!e)
        return MM_EINVAL;
    if (!h.elem)
        return MM_NOTFOUND; /* the handle of a receive matched at post time */
    if (e->shards)
        return mm_shards_cancel(e, h);
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
        mm_enter_release(e->recv_pool, r);
        side_del(&e->st.prq);
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
    if (e->shards) {
        mm_shards_stats(e, out);
        return 0;
    }
    LOCK(e);
    *out = e->st;
    /* An engine may leave max_probes 0 while its operations inspected one
     * slot each (hash_part.h, mm_hash_probes): the most is then 1. */
    if (out->prq.probes && !out->prq.max_probes)
        out->prq.max_probes = 1;
    if (out->umq.probes && !out->umq.max_probes)
        out->umq.max_probes = 1;
    out->prq.bytes = mm_mem_total(&e->prq_mem);
    out->prq.peak_bytes = e->prq_mem.peak;
    out->umq.bytes = mm_mem_total(&e->umq_mem);
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
    if (e->shards) {
        mm_shards_reset(e);
        return;
    }
    LOCK(e);
    reset_side(&e->st.prq);
    reset_side(&e->st.umq);
    e->st.cancels = 0;
    e->st.overhead = (mm_overhead){0, 0, 0, 0};
    e->mem.peak = e->mem.bytes;
    mm_mem_reset_peak(&e->prq_mem); /* after reset_side: max_length = length */
    mm_mem_reset_peak(&e->umq_mem);
    if (e->def->ops->stats_reset)
        e->def->ops->stats_reset(e);
    UNLOCK(e);
}

/* ---- mm_walk: the queued elements of one side ----
 *
 * The API hands every queued element to the engine from its pools and marks
 * it MM_ELEM_QUEUED while it is linked (release clears the flags; a new
 * slab's objects start zeroed), so the pools hold every side's elements
 * whatever structures the engine links them into: one walk for all engines,
 * in sequence order, which is the order matching honours. */
typedef struct walk_buf {
    mm_queued *q;
    size_t     n, cap;
    uint8_t    want;  /* MM_ELEM_RECV or 0 */
} walk_buf;

static void walk_take(void *obj, void *arg)
{
    const mm_elem *x = obj;
    walk_buf *b = arg;
    if (!(x->flags & MM_ELEM_QUEUED) || (x->flags & MM_ELEM_RECV) != b->want || b->n == b->cap)
        return;
    mm_queued *q = &b->q[b->n++];
    memset(q, 0, sizeof *q); /* comm_size, call, bytes: not kept (elem.h), reported as 0 */
    q->entry.comm = x->key.comm;
    q->entry.src = x->key.src;
    q->entry.tag = x->key.tag;
    q->entry.kind = x->kind;
    q->entry.coll_op = x->coll_op;
    q->entry.cookie = x->cookie;
    q->seq = x->seq;
}

int mm_queued_by_seq(const void *a, const void *b)
{
    uint64_t x = ((const mm_queued *)a)->seq, y = ((const mm_queued *)b)->seq;
    return (x > y) - (x < y);
}

int mm_walk_collect(mm_engine *e, int side, mm_queued **out, size_t *n)
{
    uint64_t len = side == MM_SIDE_PRQ ? e->st.prq.length : e->st.umq.length;
    walk_buf b = {NULL, 0, (size_t)len, side == MM_SIDE_PRQ ? MM_ELEM_RECV : 0};
    *out = NULL;
    *n = 0;
    if (len == 0)
        return 0;
    if (len > SIZE_MAX / sizeof *b.q || !(b.q = malloc((size_t)len * sizeof *b.q)))
        return MM_ENOMEM;
    mm_pool_foreach(side == MM_SIDE_PRQ ? e->recv_pool : &e->msgs, walk_take, &b);
    qsort(b.q, b.n, sizeof *b.q, mm_queued_by_seq);
    *out = b.q;
    *n = b.n;
    return 0;
}

int mm_walk(mm_engine *e, int side, mm_walk_fn fn, void *arg)
{
    if (!e || !fn || (side != MM_SIDE_PRQ && side != MM_SIDE_UMQ))
        return MM_EINVAL;
    if (e->shards)
        return mm_shards_walk(e, side, fn, arg);
    mm_queued *q;
    size_t n;
    LOCK(e);
    int rc = mm_walk_collect(e, side, &q, &n);
    UNLOCK(e);
    for (size_t i = 0; rc == 0 && i < n && !fn(&q[i], arg); i++)
        ;
    free(q);
    return rc;
}

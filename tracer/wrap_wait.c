/*
 * wrap_wait.c - completions: MPI_Wait, Waitany, Waitall, Waitsome, Test,
 * Testany, Testall, Testsome. Each request that completes and was issued
 * by a traced call gets a COMPLETE record; for receives it carries the
 * actual source and tag from the status, which is how wildcard receives
 * are resolved. The request handles are copied before the call (MPI resets
 * them to MPI_REQUEST_NULL), and when the caller ignores statuses the
 * wrapper passes its own array. A persistent request stays allocated and
 * becomes inactive (tr_req_done); completing an inactive one records nothing.
 */
#include <stdlib.h>

#include "tracer.h"

/* Copies of the handles and room for the statuses: on the stack for the
 * usual small counts, on the heap for large ones. */
enum { SMALL = 32 };
typedef struct scratch {
    uint64_t keys_small[SMALL];
    MPI_Status st_small[SMALL];
    uint64_t *keys;
    MPI_Status *st;       /* where statuses go                     */
    int heap_keys, heap_st;
} scratch;

/* 0, or -1 when out of memory (then the call is passed through untraced). */
static int scratch_init(scratch *s, int n, const MPI_Request *reqs, MPI_Status *user)
{
    s->heap_keys = s->heap_st = 0;
    s->keys = s->keys_small;
    s->st = user;
    if (n > SMALL) {
        s->keys = malloc((size_t)n * sizeof *s->keys);
        if (!s->keys)
            return -1;
        s->heap_keys = 1;
    }
    if (user == MPI_STATUSES_IGNORE) {
        s->st = s->st_small;
        if (n > SMALL) {
            s->st = malloc((size_t)n * sizeof *s->st);
            if (!s->st) {
                free(s->keys);
                return -1;
            }
            s->heap_st = 1;
        }
    }
    for (int i = 0; i < n; i++)
        s->keys[i] = TR_KEY(reqs[i]);
    return 0;
}

static void scratch_free(scratch *s)
{
    if (s->heap_keys)
        free(s->keys);
    if (s->heap_st)
        free(s->st);
}

/* The request with key completed (lock held). */
static void completed(uint64_t key, const MPI_Status *st, int index, uint64_t t0, uint64_t t1)
{
    tr_entry e;
    if (!tr_req_done(key, &e))
        return;
    mmt_record r = tr_rec(MMT_COMPLETE, t0, t1);
    r.sub = e.type;
    r.req = e.id;
    r.n = (uint32_t)index;
    tr_set_comm(&r, e.comm);
    if (e.type != MMT_ICOLL) {
        int cancelled = 0;
        PMPI_Test_cancelled(st, &cancelled);
        if (cancelled)
            r.flags |= MMT_F_CANCELLED;
        else if (e.type != MMT_ISEND)
            r.bytes = tr_set_status(&r, e.comm, st);
    }
    tr_emit(&r);
    if (!e.tmpl) /* a persistent request keeps it until MPI_Request_free */
        tr_comm_unref(e.comm);
}

/* `n` requests completed: those at indices idx[0..n-1], or 0..n-1 when
 * idx is NULL; status i belongs to the i-th completed one. */
static void completed_many(const scratch *s, int n, const int *idx, uint64_t t0)
{
    uint64_t t1 = tr_now();
    tr_lock();
    for (int i = 0; i < n; i++) {
        int k = idx ? idx[i] : i;
        completed(s->keys[k], &s->st[idx ? i : k], k, t0, t1);
    }
    tr_unlock();
}

static void completed_one(uint64_t key, const MPI_Status *st, int index, uint64_t t0)
{
    uint64_t t1 = tr_now();
    tr_lock();
    completed(key, st, index, t0, t1);
    tr_unlock();
}

TR_API int MPI_Wait(MPI_Request *req, MPI_Status *status)
{
    if (!tr.on)
        return PMPI_Wait(req, status);
    MPI_Status mine, *st = status == MPI_STATUS_IGNORE ? &mine : status;
    uint64_t key = TR_KEY(*req), t0 = tr_now();
    int rc = PMPI_Wait(req, st);
    if (rc == MPI_SUCCESS)
        completed_one(key, st, 0, t0);
    return rc;
}

TR_API int MPI_Test(MPI_Request *req, int *flag, MPI_Status *status)
{
    if (!tr.on)
        return PMPI_Test(req, flag, status);
    MPI_Status mine, *st = status == MPI_STATUS_IGNORE ? &mine : status;
    uint64_t key = TR_KEY(*req), t0 = tr_now();
    int rc = PMPI_Test(req, flag, st);
    if (rc == MPI_SUCCESS && *flag)
        completed_one(key, st, 0, t0);
    return rc;
}

/* Waitany and Testany: flag is NULL for Waitany. */
static int any(int n, MPI_Request reqs[], int *index, int *flag, MPI_Status *status)
{
    scratch s;
    MPI_Status mine, *st = status == MPI_STATUS_IGNORE ? &mine : status;
    if (!tr.on || scratch_init(&s, n, reqs, st))
        return flag ? PMPI_Testany(n, reqs, index, flag, status) : PMPI_Waitany(n, reqs, index, status);
    uint64_t t0 = tr_now();
    int rc = flag ? PMPI_Testany(n, reqs, index, flag, st) : PMPI_Waitany(n, reqs, index, st);
    if (rc == MPI_SUCCESS && (!flag || *flag) && *index != MPI_UNDEFINED)
        completed_one(s.keys[*index], st, *index, t0);
    scratch_free(&s);
    return rc;
}

TR_API int MPI_Waitany(int n, MPI_Request reqs[], int *index, MPI_Status *status)
{
    return any(n, reqs, index, NULL, status);
}

TR_API int MPI_Testany(int n, MPI_Request reqs[], int *index, int *flag, MPI_Status *status)
{
    return any(n, reqs, index, flag, status);
}

/* Waitall and Testall: flag is NULL for Waitall. */
static int all(int n, MPI_Request reqs[], int *flag, MPI_Status statuses[])
{
    scratch s;
    if (!tr.on || scratch_init(&s, n, reqs, statuses))
        return flag ? PMPI_Testall(n, reqs, flag, statuses) : PMPI_Waitall(n, reqs, statuses);
    uint64_t t0 = tr_now();
    int rc = flag ? PMPI_Testall(n, reqs, flag, s.st) : PMPI_Waitall(n, reqs, s.st);
    if (rc == MPI_SUCCESS && (!flag || *flag))
        completed_many(&s, n, NULL, t0);
    scratch_free(&s);
    return rc;
}

TR_API int MPI_Waitall(int n, MPI_Request reqs[], MPI_Status statuses[])
{
    return all(n, reqs, NULL, statuses);
}

TR_API int MPI_Testall(int n, MPI_Request reqs[], int *flag, MPI_Status statuses[])
{
    return all(n, reqs, flag, statuses);
}

/* Waitsome and Testsome. */
static int some(int test, int n, MPI_Request reqs[], int *outcount, int indices[],
                MPI_Status statuses[])
{
    scratch s;
    if (!tr.on || scratch_init(&s, n, reqs, statuses))
        return test ? PMPI_Testsome(n, reqs, outcount, indices, statuses)
                    : PMPI_Waitsome(n, reqs, outcount, indices, statuses);
    uint64_t t0 = tr_now();
    int rc = test ? PMPI_Testsome(n, reqs, outcount, indices, s.st)
                  : PMPI_Waitsome(n, reqs, outcount, indices, s.st);
    if (rc == MPI_SUCCESS && *outcount != MPI_UNDEFINED && *outcount > 0)
        completed_many(&s, *outcount, indices, t0);
    scratch_free(&s);
    return rc;
}

TR_API int MPI_Waitsome(int n, MPI_Request reqs[], int *outcount, int indices[],
                        MPI_Status statuses[])
{
    return some(0, n, reqs, outcount, indices, statuses);
}

TR_API int MPI_Testsome(int n, MPI_Request reqs[], int *outcount, int indices[],
                        MPI_Status statuses[])
{
    return some(1, n, reqs, outcount, indices, statuses);
}

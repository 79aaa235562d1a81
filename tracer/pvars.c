/*
 * pvars.c - samples of the MPI library's own matching-queue lengths
 * through the MPI tool interface (MPI_T), when it exposes them: Open MPI's
 * ob1 PML has pml_ob1_unexpected_msgq_length and
 * pml_ob1_posted_recvq_length, bound to a communicator, one unsigned value
 * per peer. Sampled on MPI_COMM_WORLD, summed over the peers.
 */
#include <stdlib.h>

#include "tracer.h"

static const char *const names[MMT_PV_MAX + 1] = {
    [MMT_PV_UNEXPECTED] = "pml_ob1_unexpected_msgq_length",
    [MMT_PV_POSTED] = "pml_ob1_posted_recvq_length",
};

static struct {
    int inited, has_session, ready;
    MPI_T_pvar_session session;
    MPI_T_pvar_handle handle[MMT_PV_MAX + 1];
    int have[MMT_PV_MAX + 1];
    int count[MMT_PV_MAX + 1];
    int is_ull[MMT_PV_MAX + 1]; /* unsigned long long, else unsigned */
    void *values;               /* room for the largest count        */
} pv;

/* Index of the first pvar called `want` with a type we can read, or -1. */
static int find(const char *want, int n, int *is_ull)
{
    for (int i = 0; i < n; i++) {
        char name[256], desc[8];
        int nl = sizeof name, dl = sizeof desc, verb, cls, bind, ro, cont, atomic;
        MPI_Datatype dt;
        MPI_T_enum en;
        if (MPI_T_pvar_get_info(i, name, &nl, &verb, &cls, &dt, &en, desc, &dl, &bind, &ro, &cont,
                                &atomic) != MPI_SUCCESS || strcmp(name, want) != 0)
            continue;
        if (bind != MPI_T_BIND_MPI_COMM || (dt != MPI_UNSIGNED && dt != MPI_UNSIGNED_LONG_LONG))
            continue;
        *is_ull = dt == MPI_UNSIGNED_LONG_LONG;
        return i;
    }
    return -1;
}

int tr_pvar_init(int provided)
{
    int prov, n = 0;
    if (MPI_T_init_thread(provided, &prov) != MPI_SUCCESS)
        return 0;
    pv.inited = 1;
    if (MPI_T_pvar_get_num(&n) != MPI_SUCCESS || n <= 0 ||
        MPI_T_pvar_session_create(&pv.session) != MPI_SUCCESS) {
        tr_pvar_fini();
        return 0;
    }
    pv.has_session = 1;
    int found = 0, maxcount = 0;
    for (int k = 0; k <= MMT_PV_MAX; k++) {
        int idx = find(names[k], n, &pv.is_ull[k]);
        MPI_Comm world = MPI_COMM_WORLD;
        if (idx < 0 || MPI_T_pvar_handle_alloc(pv.session, idx, &world, &pv.handle[k],
                                               &pv.count[k]) != MPI_SUCCESS || pv.count[k] <= 0)
            continue;
        /* Continuous variables run from allocation; others need a start
         * (an error here only means it was already running). */
        MPI_T_pvar_start(pv.session, pv.handle[k]);
        pv.have[k] = 1;
        found++;
        if (pv.count[k] > maxcount)
            maxcount = pv.count[k];
    }
    if (found)
        pv.values = malloc((size_t)maxcount * sizeof(unsigned long long));
    if (!found || !pv.values) {
        tr_pvar_fini();
        return 0;
    }
    pv.ready = 1;
    return 1;
}

void tr_pvar_sample(void)
{
    if (!pv.ready)
        return;
    for (int k = 0; k <= MMT_PV_MAX; k++) {
        if (!pv.have[k])
            continue;
        uint64_t t0 = tr_now();
        if (MPI_T_pvar_read(pv.session, pv.handle[k], pv.values) != MPI_SUCCESS)
            continue;
        uint64_t sum = 0;
        for (int i = 0; i < pv.count[k]; i++)
            sum += pv.is_ull[k] ? ((unsigned long long *)pv.values)[i] : ((unsigned *)pv.values)[i];
        mmt_record r = tr_rec(MMT_PVAR, t0, t0);
        r.sub = (uint8_t)k;
        r.aux = sum;
        r.n = (uint32_t)pv.count[k];
        r.comm = MMT_COMM_WORLD_ID;
        tr_emit(&r);
    }
}

void tr_pvar_fini(void)
{
    if (!pv.inited)
        return;
    for (int k = 0; k <= MMT_PV_MAX; k++)
        if (pv.have[k])
            MPI_T_pvar_handle_free(pv.session, &pv.handle[k]);
    if (pv.has_session)
        MPI_T_pvar_session_free(&pv.session);
    MPI_T_finalize();
    free(pv.values);
    memset(&pv, 0, sizeof pv);
}

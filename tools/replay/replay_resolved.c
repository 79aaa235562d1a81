/*
 * replay_resolved.c - compare the resolved source/tag of receives with the
 * partners a reference replay gives them (replay_resolved.h).
 */
#include <stdlib.h>

#include "replay.h"
#include "stream_internal.h"
#include "replay_resolved.h"

int mm_replay_check_resolved(const mm_stream *s, mm_resolved_report *rep,
                             char *err, size_t errlen)
{
    *rep = (mm_resolved_report){ 0 };
    if (!s->finalized)
        return mms_fail(MMS_ESTATE, err, errlen, "%s: stream not finalized", s->name ? s->name : "stream");
    mm_replay r;
    if (mm_replay_init(&r, s, 1, err, errlen) != MMR_OK)
        return MMS_ENOMEM;
    mm_config cfg = { s->np, 0, 0, NULL, 0 };
    mm_replay_result res;
    int rc = mm_replay_run(&r, mm_engine_find("list"), &cfg, 0, 1, &res, err, errlen);
    if (rc != MMR_OK) {
        mm_replay_free(&r);
        return rc == MMR_ENOMEM ? MMS_ENOMEM : MMS_ESTATE;
    }
    /* The outcome of a match is stored on whichever of the pair came
     * second: give every R its partner, wherever it was recorded. Taken
     * also counts matched messages and receives for the pending totals. */
    uint64_t *partner = malloc((s->n ? s->n : 1) * sizeof *partner);
    uint8_t *taken = calloc(s->n ? s->n : 1, 1);
    if (!partner || !taken) {
        free(partner);
        free(taken);
        mm_replay_free(&r);
        return mms_fail(MMS_ENOMEM, err, errlen, "out of memory");
    }
    for (size_t i = 0; i < s->n; i++)
        partner[i] = MM_OUT_NONE;
    for (size_t i = 0; i < s->n; i++) {
        uint64_t o = r.out[i];
        const mm_event *e = &s->ev[i];
        if (o == MM_OUT_NONE)
            continue;
        if (e->type == MM_EV_RECV || e->type == MM_EV_MSG) {
            uint64_t rv = e->type == MM_EV_RECV ? i : o, m = e->type == MM_EV_RECV ? o : i;
            partner[rv] = m;
            taken[rv] = taken[m] = 1;
        } else if (e->type == MM_EV_MPROBE) {
            taken[o] = 1;
        } else if (e->type == MM_EV_CANCEL) {
            taken[o] = 1; /* the cancelled receive left the queue */
        }
    }
    for (size_t i = 0; i < s->n; i++) {
        const mm_event *e = &s->ev[i];
        if (e->type == MM_EV_RECV && !taken[i])
            rep->recv_pending++;
        if (e->type == MM_EV_MSG && !taken[i])
            rep->msg_pending++;
        if (e->type != MM_EV_RECV || !e->resolved)
            continue;
        rep->checked++;
        if (partner[i] == MM_OUT_NONE) {
            rep->unmatched++;
            if (!rep->first_unmatched)
                rep->first_unmatched = e->line;
            continue;
        }
        const mm_event *m = &s->ev[partner[i]];
        int ok = (!(e->resolved & MM_RES_SRC) || m->src == e->src_resolved) &&
                 (!(e->resolved & MM_RES_TAG) || m->tag == e->tag_resolved);
        if (ok) {
            rep->agree++;
        } else if (rep->differ++ == 0) {
            rep->first_differ = e->line;
            rep->got_src = m->src;
            rep->got_tag = m->tag;
        }
    }
    free(partner);
    free(taken);
    mm_replay_free(&r);
    return MMS_OK;
}

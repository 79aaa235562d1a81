/*
 * conv_write.c - each rank's events in time order as a stream, checked and
 * written atomically, then index.json (docs/convert.md, "Output").
 *
 * Order: by time; at equal times the rank's own calls (R, P, X, C at their
 * call times) before arrivals (M), and probes moved to the arrival of the
 * message they found after it; within a class, calls in the order the rank
 * made them and arrivals in the order the model computed them (by sender,
 * then send time).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "coll_algo.h"
#include "conv_internal.h"
#include "json.h"
#include "outfile.h"
#include "replay_resolved.h"

static int cmp_ev(const void *a, const void *b)
{
    const cv_ev *x = a, *y = b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    if (x->cls != y->cls)
        return x->cls < y->cls ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* What index.json says about one stream. */
typedef struct rank_info {
    int32_t rank;
    char file[32], text[32];
    mm_stream_summary sum;
    mm_resolved_report res;
    size_t n;
} rank_info;

/* Build rank w's stream from its events and the messages to it (their
 * indices in model order: pos[0..npos) into order[]). */
static int build(cv_conv *c, int32_t w, const size_t *order, const size_t *pos, size_t npos,
                 mm_stream *s, char *err, size_t errlen)
{
    cv_rank *r = &c->r[w];
    size_t n = r->evs.n + npos;
    cv_ev *v = malloc((n ? n : 1) * sizeof *v);
    uint64_t *id_of = malloc((r->evs.n ? r->evs.n : 1) * sizeof *id_of);
    int rc = MMS_ENOMEM;
    if (!v || !id_of)
        goto out;
    if (r->evs.n) /* memcpy from NULL is undefined even for 0 bytes */
        memcpy(v, r->evs.v, r->evs.n * sizeof *v);
    for (size_t k = 0; k < npos; k++) {
        const cv_msg *m = &c->msg[order[pos[k]]];
        cv_ev e = { m->t_arr, pos[k], CV_CLS_ARRIVAL,
                    mm_event_make(MM_EV_MSG, 0, m->comm, m->src_c, m->tag) };
        e.ev.bytes = m->bytes;
        e.ev.t = m->t_arr;
        e.ev.kind = m->kind;
        e.ev.coll_op = m->coll_op;
        e.ev.comm_size = m->np;
        e.ev.call = m->call;
        v[r->evs.n + k] = e;
    }
    if (n)
        qsort(v, n, sizeof *v, cmp_ev);
    char name[64];
    snprintf(name, sizeof name, "rank %d", (int)w);
    if ((rc = mm_stream_init(s, name, err, errlen)) || (rc = mm_stream_reserve(s, n, err, errlen)))
        goto out;
    for (size_t k = 0; k < n; k++) {
        mm_event e = v[k].ev;
        if (v[k].cls != CV_CLS_ARRIVAL)
            id_of[v[k].seq] = k + 1;
        if (e.type == MM_EV_CANCEL)
            e.id = id_of[e.id]; /* its R came earlier: same class, earlier call */
        else
            e.id = k + 1;
        if (e.type == MM_EV_PROBE || e.type == MM_EV_MPROBE)
            e.t = 0; /* P and X take no attributes */
        if ((rc = mm_stream_push(s, &e, err, errlen)))
            goto out;
    }
    rc = mm_stream_finalize(s, c->n, err, errlen);
out:
    if (rc == MMS_ENOMEM)
        snprintf(err, errlen, "out of memory");
    free(v);
    free(id_of);
    return rc;
}

static char *join(const char *dir, const char *name)
{
    size_t n = strlen(dir) + strlen(name) + 2;
    char *p = malloc(n);
    if (p)
        snprintf(p, n, "%s/%s", dir, name);
    return p;
}

/* Write s to DIR/name atomically; the path is added to *done for cleanup. */
static int write_one(const char *dir, const char *name, const mm_stream *s, int binary,
                     char ***done, size_t *ndone, char *err, size_t errlen)
{
    char *path = join(dir, name);
    char **d = realloc(*done, (*ndone + 1) * sizeof *d);
    if (!path || !d) {
        free(path);
        if (d)
            *done = d;
        snprintf(err, errlen, "out of memory");
        return MMS_ENOMEM;
    }
    *done = d;
    mm_outfile o;
    if (mm_outfile_open(&o, path, err, errlen)) {
        free(path);
        return MMS_EIO;
    }
    int rc = binary ? mm_stream_write_binary(s, mm_sink_file, o.f) : mm_stream_write_text(s, mm_sink_file, o.f);
    if (rc != MMS_OK) {
        mm_outfile_fail(&o, err, errlen);
        free(path);
        return MM_CONV_EWRITE;
    }
    if (mm_outfile_commit(&o, err, errlen)) {
        free(path);
        return MM_CONV_EWRITE;
    }
    d[(*ndone)++] = path;
    return MMS_OK;
}

static void json_model(mmj *j, const char *key, const mm_loggp *p)
{
    mmj_key(j, key);
    mmj_obj(j);
    mmj_ku64(j, "latency_ns", p->latency_ns);
    mmj_ku64(j, "overhead_ns", p->overhead_ns);
    mmj_ku64(j, "gap_ns", p->gap_ns);
    mmj_ku64(j, "gap_per_byte_ps", p->ps_per_byte);
    mmj_obj_end(j);
}

static int write_index(cv_conv *c, const rank_info *ri, size_t nri, char ***done, size_t *ndone,
                       char *err, size_t errlen)
{
    char *path = join(c->o->out_dir, "index.json");
    if (!path) {
        snprintf(err, errlen, "out of memory");
        return MMS_ENOMEM;
    }
    mm_outfile o;
    if (mm_outfile_open(&o, path, err, errlen)) {
        free(path);
        return MMS_EIO;
    }
    mmj j;
    mmj_init(&j, o.f);
    mmj_obj(&j);
    mmj_kstr(&j, "format", "mpimatch-streams");
    mmj_ku64(&j, "version", 1);
    mmj_ki64(&j, "ranks", c->n);
    mmj_kstr(&j, "source", c->o->trace_dir);
    mmj_kstr(&j, "mpi", c->mpi);
    mmj_kstr(&j, "collective_rules", c->lib == MM_COLL_LIB_MPICH ? "mpich" : "openmpi");
    mmj_key(&j, "model");
    mmj_obj(&j);
    json_model(&j, "intra", &c->o->intra);
    json_model(&j, "inter", &c->o->inter);
    mmj_obj_end(&j);
    mmj_key(&j, "files");
    mmj_arr(&j);
    for (size_t i = 0; i < nri; i++)
        mmj_str(&j, ri[i].file);
    mmj_arr_end(&j);
    if (c->o->text) {
        mmj_key(&j, "text_files");
        mmj_arr(&j);
        for (size_t i = 0; i < nri; i++)
            mmj_str(&j, ri[i].text);
        mmj_arr_end(&j);
    }
    mmj_key(&j, "communicators");
    mmj_arr(&j);
    for (size_t i = 0; i < c->ncomm; i++) {
        char buf[32];
        mmj_obj(&j);
        mmj_kstr(&j, "trace", mmt_comm_str(c->comm_ids[i], buf, sizeof buf));
        mmj_ku64(&j, "stream", i);
        mmj_obj_end(&j);
    }
    mmj_arr_end(&j);
    cv_clock_json(c, &j);
    mmj_key(&j, "partial_trace");
    mmj_obj(&j);
    mmj_key(&j, "partial");
    mmj_bool(&j, cv_partial(c));
    mmj_key(&j, "not_recorded");
    mmj_obj(&j);
    for (size_t i = 0; i < c->n_nr; i++)
        mmj_ku64(&j, c->nr_name[i], c->nr_count[i]);
    mmj_obj_end(&j);
    mmj_ku64(&j, "files_cut_short", c->cut_short);
    mmj_obj_end(&j);
    mmj_key(&j, "counts");
    mmj_obj(&j);
    mmj_ku64(&j, "p2p_messages", c->p2p_msgs);
    mmj_ku64(&j, "collective_calls", c->coll_calls);
    mmj_ku64(&j, "collective_calls_expanded", c->coll_expanded);
    mmj_ku64(&j, "collective_transfers", c->coll_xfers);
    mmj_ku64(&j, "records_without_communicator", c->skipped_nocomm);
    mmj_ku64(&j, "receives_without_traced_send", c->unpaired);
    mmj_key(&j, "collective_calls_not_expanded");
    mmj_obj(&j);
    for (int op = 1; op <= MMT_C_MAX; op++)
        if (c->skipped_op[op] + c->refused_op[op])
            mmj_ku64(&j, mmt_coll_name(op), c->skipped_op[op] + c->refused_op[op]);
    mmj_obj_end(&j);
    mmj_obj_end(&j);
    mmj_key(&j, "streams");
    mmj_arr(&j);
    for (size_t i = 0; i < nri; i++) {
        const rank_info *x = &ri[i];
        mmj_obj(&j);
        mmj_ki64(&j, "rank", x->rank);
        mmj_kstr(&j, "file", x->file);
        mmj_ku64(&j, "events", x->n);
        static const char *const names[5] = { "R", "M", "P", "X", "C" };
        for (int k = 0; k < 5; k++)
            mmj_ku64(&j, names[k], x->sum.count[k]);
        mmj_ku64(&j, "collective", x->sum.coll);
        mmj_ku64(&j, "wildcard_receives",
                 x->sum.recv_any_source + x->sum.recv_any_tag - x->sum.recv_any_both);
        mmj_key(&j, "resolved");
        mmj_obj(&j);
        mmj_ku64(&j, "checked", x->res.checked);
        mmj_ku64(&j, "agree", x->res.agree);
        mmj_ku64(&j, "differ", x->res.differ);
        mmj_ku64(&j, "unmatched", x->res.unmatched);
        mmj_obj_end(&j);
        mmj_key(&j, "left_queued");
        mmj_obj(&j);
        mmj_ku64(&j, "receives", x->res.recv_pending);
        mmj_ku64(&j, "messages", x->res.msg_pending);
        mmj_obj_end(&j);
        mmj_obj_end(&j);
    }
    mmj_arr_end(&j);
    mmj_key(&j, "warnings");
    mmj_arr(&j);
    for (size_t i = 0; i < c->nwarn; i++)
        mmj_str(&j, c->warn[i]);
    mmj_arr_end(&j);
    mmj_obj_end(&j);
    if (mmj_finish(&j) || fputc('\n', o.f) == EOF) {
        mm_outfile_fail(&o, err, errlen);
        free(path);
        return MM_CONV_EWRITE;
    }
    if (mm_outfile_commit(&o, err, errlen)) {
        free(path);
        return MM_CONV_EWRITE;
    }
    char **d = realloc(*done, (*ndone + 1) * sizeof *d);
    if (d) {
        *done = d;
        d[(*ndone)++] = path;
    } else {
        free(path);
    }
    return MMS_OK;
}

int cv_partial_note(cv_conv *c)
{
    if (!cv_partial(c))
        return MMS_OK;
    char buf[1024];
    size_t n = 0;
    uint64_t total = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < c->n_nr; i++) {
        total += c->nr_count[i];
        int w = snprintf(buf + n, sizeof buf - n, "%s%s %llu", n ? ", " : "", c->nr_name[i],
                         (unsigned long long)c->nr_count[i]);
        if (w < 0 || (size_t)w >= sizeof buf - n)
            break;
        n += (size_t)w;
    }
    char line[1400];
    if (total)
        snprintf(line, sizeof line, "PARTIAL TRACE: %llu calls were made but not recorded by the "
                 "trace's source (%s)%s: their messages and receives are missing from the streams",
                 (unsigned long long)total, buf, c->cut_short ? "; rank files cut short" : "");
    else
        snprintf(line, sizeof line, "PARTIAL TRACE: %llu rank files were cut short: what came "
                 "after their last whole record is missing from the streams",
                 (unsigned long long)c->cut_short);
    if (c->o->info)
        fprintf(c->o->info, "%s\n", line);
    return total ? cv_warn(c, "%s", line) : MMS_OK; /* cut files are warned about already */
}

int cv_write(cv_conv *c, const size_t *order, char *err, size_t errlen)
{
    /* Messages grouped by receiver, in model order (counting sort). */
    size_t *first = calloc((size_t)c->n + 1, sizeof *first);
    size_t *pos = malloc((c->nmsg ? c->nmsg : 1) * sizeof *pos);
    rank_info *ri = calloc((size_t)c->n, sizeof *ri);
    char **done = NULL;
    size_t ndone = 0, nri = 0;
    int rc = MMS_ENOMEM;
    if (!first || !pos || !ri) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    for (size_t k = 0; k < c->nmsg; k++)
        first[c->msg[k].dst_w + 1]++;
    for (int32_t w = 0; w < c->n; w++)
        first[w + 1] += first[w];
    {
        size_t *fill = malloc(((size_t)c->n + 1) * sizeof *fill);
        if (!fill) {
            snprintf(err, errlen, "out of memory");
            goto out;
        }
        memcpy(fill, first, ((size_t)c->n + 1) * sizeof *fill);
        for (size_t k = 0; k < c->nmsg; k++)
            pos[fill[c->msg[order[k]].dst_w]++] = k;
        free(fill);
    }
    for (int32_t w = 0; w < c->n; w++) {
        cv_progress(c, "writing streams", w, c->n);
        if (c->o->want && (w >= c->o->nwant || !c->o->want[w]))
            continue;
        rank_info *x = &ri[nri++];
        x->rank = w;
        snprintf(x->file, sizeof x->file, "rank-%06d.mms", (int)w);
        snprintf(x->text, sizeof x->text, "rank-%06d.txt", (int)w);
        mm_stream s;
        memset(&s, 0, sizeof s);
        rc = build(c, w, order, pos + first[w], first[w + 1] - first[w], &s, err, errlen);
        if (rc == MMS_OK && (rc = mm_stream_summarize(&s, &x->sum)) != MMS_OK)
            snprintf(err, errlen, "out of memory");
        if (rc == MMS_OK)
            rc = mm_replay_check_resolved(&s, &x->res, err, errlen);
        x->n = s.n;
        if (rc == MMS_OK)
            rc = write_one(c->o->out_dir, x->file, &s, 1, &done, &ndone, err, errlen);
        if (rc == MMS_OK && c->o->text)
            rc = write_one(c->o->out_dir, x->text, &s, 0, &done, &ndone, err, errlen);
        mm_stream_free(&s);
        if (rc != MMS_OK) {
            if (rc == MMS_EFORMAT) {
                /* a rule of the stream format broken by what the converter
                 * made of the trace: name the rank */
                char tmp[1024];
                snprintf(tmp, sizeof tmp, "%s: converted stream of rank %d: %s", c->o->trace_dir,
                         (int)w, err);
                snprintf(err, errlen, "%s", tmp);
            }
            goto out;
        }
        if (x->res.differ &&
            (rc = cv_warn(c, "rank %d: %llu of %llu wildcard receives match a different message "
                             "in the modelled order than in the traced run (first at event %llu)",
                          (int)w, (unsigned long long)x->res.differ,
                          (unsigned long long)x->res.checked,
                          (unsigned long long)x->res.first_differ)))
            goto out;
    }
    cv_progress(c, "writing streams", c->n, c->n);
    if (c->unpaired && (rc = cv_warn(c, "%llu receives or probes found no matching send in the "
                                        "trace (a partial trace?)",
                                     (unsigned long long)c->unpaired)))
        goto out;
    if (c->skipped_nocomm &&
        (rc = cv_warn(c, "%llu point-to-point records on communicators the tracer did not see "
                         "created (NOCOMM) or without a world rank were left out",
                      (unsigned long long)c->skipped_nocomm)))
        goto out;
    for (int op = 1; op <= MMT_C_MAX; op++)
        if (c->skipped_op[op] &&
            (rc = cv_warn(c, "%llu %s calls not expanded (root outside the communicator, or "
                             "more ranks than the schedules take: %d, %d for alltoall)",
                          (unsigned long long)c->skipped_op[op], mmt_coll_name(op),
                          MM_COLL_MAX_N, MM_COLL_MAX_N_A2A)))
            goto out;
    for (int op = 1; op <= MMT_C_MAX; op++)
        if (c->refused_op[op] &&
            (rc = cv_warn(c, "%llu %s calls not expanded: the rule chose %s (%s) but the schedule "
                             "refuses the call: %s (an mpimatch bug: please report it)",
                          (unsigned long long)c->refused_op[op], mmt_coll_name(op),
                          mm_coll_alg_name(c->refused_alg[op]), c->refused_rule[op],
                          c->refused_why[op])))
            goto out;
    for (int op = 1; op <= MMT_C_MAX; op++)
        if (c->substituted_op[op] &&
            (rc = cv_warn(c, "%llu %s calls expanded with a stand-in schedule: the library's "
                             "own cannot be expanded for them (%s)",
                          (unsigned long long)c->substituted_op[op], mmt_coll_name(op),
                          c->substituted_rule[op])))
            goto out;
    rc = write_index(c, ri, nri, &done, &ndone, err, errlen);
out:
    if (rc != MMS_OK)
        for (size_t i = 0; i < ndone; i++)
            unlink(done[i]);
    for (size_t i = 0; i < ndone; i++)
        free(done[i]);
    free(done);
    free(first);
    free(pos);
    free(ri);
    return rc;
}

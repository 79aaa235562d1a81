/*
 * stats.c - FI_MPIMATCH_STATS=DIR: at endpoint close each process writes
 * DIR/mpimatch-fi-<host>-<pid>-<ep>.json, the engine's statistics in the "results"
 * schema of `mpimatch-replay --json` (docs/replay.md) plus the provider's
 * counters per channel. Written to a temporary name and renamed: a reader
 * never sees half a file.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mmfi.h"

void mmfi_json_qstats(FILE *f, const char *name, const mm_qstats *q)
{
    double mean = q->searches ? (double)q->traversed / (double)q->searches : 0.0;
    fprintf(f, "\"%s\": {\"searches\": %llu, \"hits\": %llu, \"misses\": %llu, "
               "\"traversed\": %llu, \"mean_depth\": %.6g, \"max_depth\": %llu, \"length\": %llu, "
               "\"max_length\": %llu, \"queues\": %llu, \"max_queues\": %llu, \"bytes\": %llu, "
               "\"peak_bytes\": %llu}",
            name, (unsigned long long)q->searches, (unsigned long long)q->hits,
            (unsigned long long)q->misses, (unsigned long long)q->traversed, mean,
            (unsigned long long)q->max_depth, (unsigned long long)q->length,
            (unsigned long long)q->max_length, (unsigned long long)q->queues,
            (unsigned long long)q->max_queues, (unsigned long long)q->bytes,
            (unsigned long long)q->peak_bytes);
}

/* Effective value of parameter p: FI_MPIMATCH_PARAMS's, else the default. */
static void param_value(FILE *f, const mm_param_info *p)
{
    const char *v = getenv("FI_MPIMATCH_PARAMS");
    size_t n = strlen(p->name);
    for (const char *s = v; s && *s;) {
        if (!strncmp(s, p->name, n) && s[n] == '=') {
            const char *e = strchr(s + n + 1, ',');
            int len = e ? (int)(e - s - (int)n - 1) : (int)strlen(s + n + 1);
            if (p->type == MM_PARAM_INT)
                fprintf(f, "%.*s", len, s + n + 1);
            else {
                fputc('"', f);
                for (int i = 0; i < len; i++) {
                    char ch = s[n + 1 + i];
                    if (ch == '"' || ch == '\\')
                        fputc('\\', f);
                    if ((unsigned char)ch >= 0x20)
                        fputc(ch, f);
                }
                fputc('"', f);
            }
            return;
        }
        s = strchr(s, ',');
        s = s ? s + 1 : NULL;
    }
    if (p->type == MM_PARAM_INT)
        fprintf(f, "%lld", (long long)p->def);
    else
        fputs("null", f);
}

/* "polling": the scheme, its settings and per polled channel the polls, the
 * empty ones, the messages found and their discovery times (poll.h). */
static void json_polling(FILE *f, const mmfi_ep *ep)
{
    const mmfi_poll *p = &ep->poll;
    const mmfi_settings *s = &ep->dom->set;
    fprintf(f, " \"polling\": {\"scheme\": \"%s\", \"ratio_setting\": %u, \"history\": %u, "
               "\"ratio\": %u, \"ratio_min\": %u, \"ratio_max\": %u, \"updates\": %llu, "
               "\"shm_eager\": %zu, \"cma_min\": %llu, \"tuning\": ",
            mmfi_poll_scheme_name(p->scheme), s->poll_ratio, p->history, p->ratio,
            p->ratio_min_seen, p->ratio_max_seen, (unsigned long long)p->updates, s->shm_eager,
            (unsigned long long)s->cma_min);
    if (s->tuning[0]) {
        fputc('"', f);
        for (const char *q = s->tuning; *q; q++) {
            if (*q == '"' || *q == '\\')
                fputc('\\', f);
            if ((unsigned char)*q >= 0x20)
                fputc(*q, f);
        }
        fputc('"', f);
    } else
        fputs("null", f);
    static const char *const names[MMFI_CH_N] = {"shm", "net"};
    for (int ch = 0; ch < MMFI_CH_N; ch++) {
        const mmfi_chan_polls *c = &p->ch[ch];
        fprintf(f, ", \"%s\": {\"polls\": %llu, \"empty_polls\": %llu, \"found\": %llu, "
                   "\"discovered\": %llu, \"discovery_mean_ns\": %.1f, "
                   "\"discovery_p50_ns_le\": %llu, \"discovery_p90_ns_le\": %llu, "
                   "\"discovery_max_ns\": %llu, \"discovery_log2_hist\": [",
                names[ch], (unsigned long long)c->polls, (unsigned long long)c->empty,
                (unsigned long long)c->found, (unsigned long long)c->disc_n,
                c->disc_n ? (double)c->disc_sum_ns / (double)c->disc_n : 0.0,
                (unsigned long long)mmfi_poll_disc_quantile(p, ch, 0.5),
                (unsigned long long)mmfi_poll_disc_quantile(p, ch, 0.9),
                (unsigned long long)c->disc_max_ns);
        int last = -1;
        for (int b = 0; b < MMFI_POLL_HIST_BINS; b++)
            if (c->disc_hist[b])
                last = b;
        for (int b = 0; b <= last; b++)
            fprintf(f, "%s%llu", b ? ", " : "", (unsigned long long)c->disc_hist[b]);
        fputs("]}", f);
    }
    fputs("}}\n", f);
}

void mmfi_stats_write(mmfi_ep *ep)
{
    const char *dir = ep->dom->set.stats_dir;
    if (!dir[0] || !ep->eng)
        return;
    char path[600], tmp[640];
    mmfi_file_path(path, sizeof path, dir, &ep->name, "fi", "json");
    snprintf(tmp, sizeof tmp, "%s.tmp.%d", path, (int)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f) {
        MMFI_WARN(FI_LOG_EP_CTRL, "FI_MPIMATCH_STATS=%s: cannot write %s\n", dir, tmp);
        return;
    }
    mm_stats st;
    mm_get_stats(ep->eng, &st);
    const mm_engine_info *info = mm_engine_find(ep->dom->set.engine);
    const mmfi_counters *c = &ep->c;
    const char *rank = getenv("OMPI_COMM_WORLD_RANK");
    if (!rank)
        rank = getenv("PMIX_RANK");
    fprintf(f, "{\"tool\": \"libmpimatch-fi\", \"version\": \"%d.%d.%d\", \"pid\": %d, "
               "\"rank\": %s, \"np\": %d, \"hints\": [",
            MPIMATCH_VERSION_MAJOR, MPIMATCH_VERSION_MINOR, MPIMATCH_VERSION_PATCH,
            (int)ep->name.pid, rank ? rank : "null", (int)mmfi_av_peers_held(ep->av));
    uint32_t h = ep->dom->set.hints;
    fprintf(f, "%s%s%s", h & MM_HINT_NO_ANY_SOURCE ? "\"no_any_source\"" : "",
            (h & MM_HINT_NO_ANY_SOURCE) && (h & MM_HINT_NO_ANY_TAG) ? ", " : "",
            h & MM_HINT_NO_ANY_TAG ? "\"no_any_tag\"" : "");
    fprintf(f, "], \"results\": [{\"engine\": \"%s\", \"params\": {", ep->dom->set.engine);
    for (size_t i = 0; info && i < info->nparams; i++) {
        fprintf(f, "%s\"%s\": ", i ? ", " : "", info->params[i].name);
        param_value(f, &info->params[i]);
    }
    fprintf(f, "}, \"path\": \"%s\", \"outcomes\": {\"matches\": %llu, \"probe_hits\": %llu, "
               "\"probe_misses\": %llu, \"mprobe_hits\": %llu, \"mprobe_misses\": %llu, "
               "\"cancel_ok\": %llu, \"cancel_miss\": %llu}, \"stats\": {",
            ep->generic ? "generic" : "keyed", (unsigned long long)c->matches,
            (unsigned long long)c->peek_hits, (unsigned long long)c->peek_misses,
            (unsigned long long)c->mpeek_hits, (unsigned long long)c->mpeek_misses,
            (unsigned long long)c->cancels, (unsigned long long)c->cancel_miss);
    mmfi_json_qstats(f, "prq", &st.prq);
    fputs(", ", f);
    mmfi_json_qstats(f, "umq", &st.umq);
    fprintf(f, ", \"bytes\": %llu, \"peak_bytes\": %llu, \"cancels\": %llu}}],\n",
            (unsigned long long)st.bytes, (unsigned long long)st.peak_bytes,
            (unsigned long long)st.cancels);
    fprintf(f, " \"provider\": {\"posts\": %llu, \"arrivals\": %llu, \"peeks\": %llu, "
               "\"claims\": %llu, \"discards\": %llu, \"cancels\": %llu, \"truncations\": %llu, "
               "\"generic_ops\": %llu, \"keyless_msgs\": %llu, \"wildcard_refused\": %llu, "
               "\"peer_deaths\": %llu, \"unexpected_max\": %llu, \"unexpected_bytes_max\": %llu, "
               "\"yields\": %llu, \"record_bytes\": %zu, \"inline_max\": %zu},\n",
            (unsigned long long)c->posts, (unsigned long long)c->arrivals,
            (unsigned long long)c->peeks, (unsigned long long)c->claims,
            (unsigned long long)c->discards, (unsigned long long)c->cancels,
            (unsigned long long)c->truncations, (unsigned long long)c->generic_ops,
            (unsigned long long)c->keyless_msgs, (unsigned long long)c->wildcard_refused,
            (unsigned long long)c->peer_deaths, (unsigned long long)c->unexp_max,
            (unsigned long long)c->unexp_bytes_max, (unsigned long long)c->yields,
            sizeof(mmfi_rec), (size_t)MMFI_INLINE);
    fprintf(f, " \"channels\": {\"shm\": {\"eager_sent\": %llu, \"eager_recv\": %llu, "
               "\"rdv_sent\": %llu, \"rdv_recv\": %llu, \"bytes_sent\": %llu, \"bytes_recv\": %llu, "
               "\"segments_sent\": %llu, \"segments_recv\": %llu, \"ctrl_sent\": %llu, "
               "\"ring_full\": %llu, \"credit_stalls\": %llu, \"peers\": %zu}, "
               "\"cma\": {\"reads\": %llu, \"bytes\": %llu, \"fallbacks\": %llu, "
               "\"fins\": %llu, \"off\": %s}, ",
            (unsigned long long)c->eager_sent, (unsigned long long)c->eager_recv,
            (unsigned long long)c->rdv_sent, (unsigned long long)c->rdv_recv,
            (unsigned long long)c->bytes_sent, (unsigned long long)c->bytes_recv,
            (unsigned long long)c->segments_sent, (unsigned long long)c->segments_recv,
            (unsigned long long)c->ctrl_sent, (unsigned long long)c->ring_full,
            (unsigned long long)c->credit_stalls, ep->nconns, (unsigned long long)c->cma_reads,
            (unsigned long long)c->cma_bytes, (unsigned long long)c->cma_fallbacks,
            (unsigned long long)c->cma_fins, ep->cma_off || !ep->dom->set.cma ? "true" : "false");
    size_t tcp_peers = 0;
    for (size_t i = 0; i < ep->nconns; i++)
        tcp_peers += ep->conns[i].ch == &mmfi_chan_tcp;
    fprintf(f, "\"tcp\": {\"connects\": %llu, \"accepts\": %llu, \"cells_sent\": %llu, "
               "\"cells_recv\": %llu, \"bytes_sent\": %llu, \"bytes_recv\": %llu, "
               "\"tx_full\": %llu, \"eof\": %llu, \"errors\": %llu, \"peers\": %zu}},\n",
            (unsigned long long)c->tcp_connects, (unsigned long long)c->tcp_accepts,
            (unsigned long long)c->tcp_cells_sent, (unsigned long long)c->tcp_cells_recv,
            (unsigned long long)c->tcp_bytes_sent, (unsigned long long)c->tcp_bytes_recv,
            (unsigned long long)c->tcp_tx_full, (unsigned long long)c->tcp_eof,
            (unsigned long long)c->tcp_errors, tcp_peers);
    json_polling(f, ep);
    int bad = ferror(f);
    bad |= fclose(f) != 0;
    if (bad || rename(tmp, path) != 0) {
        MMFI_WARN(FI_LOG_EP_CTRL, "FI_MPIMATCH_STATS=%s: cannot write %s\n", dir, path);
        unlink(tmp);
    }
}

/* ---- FI_MPIMATCH_PROFILE=DIR: DIR/mpimatch-fi-<host>-<pid>-<ep>.mms, a text event
 * stream (docs/stream-format.md) of every keyed engine call, in call order,
 * with the keys the engine saw. `mpimatch advise DIR` replays it with list
 * semantics (docs/advise.md), so the profile does not depend on the engine
 * that ran. Written to a temporary name, renamed at close. */

static void profile_path(const mmfi_ep *ep, char *buf, size_t len, int tmp)
{
    mmfi_file_path(buf, len, ep->dom->set.profile_dir, &ep->name, "fi", tmp ? "mms.tmp" : "mms");
}

static FILE *profile_file(mmfi_ep *ep)
{
    if (ep->prof || ep->prof_failed || !ep->dom->set.profile_dir[0])
        return ep->prof;
    char tmp[640];
    profile_path(ep, tmp, sizeof tmp, 1);
    ep->prof = fopen(tmp, "w");
    if (!ep->prof || fputs("# mpimatch stream v1\n", ep->prof) < 0) {
        MMFI_WARN(FI_LOG_EP_CTRL, "FI_MPIMATCH_PROFILE=%s: cannot write %s\n",
                  ep->dom->set.profile_dir, tmp);
        if (ep->prof)
            fclose(ep->prof);
        ep->prof = NULL;
        ep->prof_failed = 1;
    }
    return ep->prof;
}

static void profile_field(FILE *f, int32_t v, int32_t any)
{
    if (v == any)
        fputs(" *", f);
    else
        fprintf(f, " %d", (int)v);
}

uint64_t mmfi_profile_event(mmfi_ep *ep, int type, const mm_entry *k, uint64_t bytes)
{
    FILE *f = profile_file(ep);
    if (!f)
        return 0;
    uint64_t id = ++ep->prof_ids;
    fprintf(f, "%c %llu %d", type, (unsigned long long)id, (int)k->comm);
    profile_field(f, k->src, MM_ANY_SOURCE);
    profile_field(f, k->tag, MM_ANY_TAG);
    if (type == 'R' || type == 'M')
        fprintf(f, " bytes=%llu", (unsigned long long)bytes);
    fputc('\n', f);
    return id;
}

void mmfi_profile_cancel(mmfi_ep *ep, uint64_t id)
{
    if (ep->prof && id)
        fprintf(ep->prof, "C %llu\n", (unsigned long long)id);
}

void mmfi_profile_note(mmfi_ep *ep, const char *text)
{
    if (ep->prof)
        fprintf(ep->prof, "# %s\n", text);
}

void mmfi_profile_close(mmfi_ep *ep)
{
    if (!ep->prof)
        return;
    char tmp[640], path[640];
    profile_path(ep, tmp, sizeof tmp, 1);
    profile_path(ep, path, sizeof path, 0);
    int bad = ferror(ep->prof);
    bad |= fclose(ep->prof) != 0;
    ep->prof = NULL;
    if (bad || rename(tmp, path) != 0) {
        MMFI_WARN(FI_LOG_EP_CTRL, "FI_MPIMATCH_PROFILE: cannot write %s\n", path);
        unlink(tmp);
    }
}

/*
 * poll.c - the polling schemes and their counters (poll.h). The progress loop
 * (ep.c) asks mmfi_poll_net_due whether this call polls the network as well
 * as shared memory; xfer.c reports every message found (mmfi_poll_found).
 */
#include <string.h>

#include "poll.h"

uint32_t mmfi_poll_rule(uint32_t m, uint32_t n)
{
    uint64_t r = (uint64_t)m / ((uint64_t)n + 1);
    if (r < 1)
        r = 1;
    if (r > MMFI_POLL_RATIO_MAX)
        r = MMFI_POLL_RATIO_MAX;
    return (uint32_t)r;
}

void mmfi_poll_init(mmfi_poll *p, int scheme, uint32_t ratio, uint32_t history)
{
    memset(p, 0, sizeof *p);
    p->scheme = scheme;
    if (ratio < 1)
        ratio = 1;
    if (ratio > MMFI_POLL_RATIO_MAX)
        ratio = MMFI_POLL_RATIO_MAX;
    if (history < 1)
        history = 1;
    if (history > MMFI_POLL_HISTORY_MAX)
        history = MMFI_POLL_HISTORY_MAX;
    /* rr is ratio 1; dynamic starts there, with no history yet. */
    p->ratio = scheme == MMFI_POLL_STATIC ? ratio : 1;
    p->history = history;
    p->ratio_min_seen = p->ratio_max_seen = p->ratio;
}

static int log2_bin(uint64_t x)
{
    int b = 0;
    while (x >>= 1)
        b++;
    return b < MMFI_POLL_HIST_BINS ? b : MMFI_POLL_HIST_BINS - 1;
}

/* mmfi_poll_found's rare part (poll.h counted the message): its discovery
 * time, and the dynamic scheme's window. */
void mmfi_poll_found_slow(mmfi_poll *p, int ch, uint64_t disc_ns)
{
    mmfi_chan_polls *c = &p->ch[ch];
    if (disc_ns != UINT64_MAX) {
        c->disc_n++;
        c->disc_sum_ns += disc_ns;
        if (disc_ns > c->disc_max_ns)
            c->disc_max_ns = disc_ns;
        c->disc_hist[log2_bin(disc_ns)]++;
    }
    if (p->scheme != MMFI_POLL_DYNAMIC)
        return;
    if (ch == MMFI_CH_SHM)
        p->m++;
    else
        p->n++;
    if (p->m + p->n < p->history)
        return;
    p->ratio = mmfi_poll_rule(p->m, p->n);
    p->m = p->n = 0;
    p->updates++;
    if (p->since_net >= p->ratio) /* a lower ratio: the network is due at the next call */
        p->since_net = p->ratio - 1;
    if (p->ratio < p->ratio_min_seen)
        p->ratio_min_seen = p->ratio;
    if (p->ratio > p->ratio_max_seen)
        p->ratio_max_seen = p->ratio;
}

uint64_t mmfi_poll_disc_quantile(const mmfi_poll *p, int ch, double q)
{
    const mmfi_chan_polls *c = &p->ch[ch];
    if (!c->disc_n)
        return 0;
    uint64_t want = (uint64_t)(q * (double)c->disc_n);
    if (want >= c->disc_n)
        want = c->disc_n - 1;
    uint64_t seen = 0;
    for (int b = 0; b < MMFI_POLL_HIST_BINS; b++) {
        seen += c->disc_hist[b];
        if (seen > want)
            return b + 1 < 64 ? (uint64_t)1 << (b + 1) : UINT64_MAX;
    }
    return c->disc_max_ns;
}

const char *mmfi_poll_scheme_name(int scheme)
{
    return scheme == MMFI_POLL_STATIC ? "static" : scheme == MMFI_POLL_DYNAMIC ? "dynamic" : "rr";
}

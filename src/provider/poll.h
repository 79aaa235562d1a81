/*
 * poll.h - channel polling schemes of the provider (docs/provider.md#polling),
 * after the static and dynamic priority polling of the MVAPICH channel study
 * ("Efficient MPI channel polling and thresholds"): a receiver discovers a new
 * message only by polling its channels, and which channel it polls how often
 * decides the latency of each.
 *
 *   rr       every progress call polls shared memory and the network once.
 *   static   shared memory every call, the network every `ratio`-th call
 *            (FI_MPIMATCH_POLL_RATIO).
 *   dynamic  as static, but after every `history` messages received
 *            (FI_MPIMATCH_POLL_HISTORY), m of them over shared memory and n
 *            over the network, the ratio becomes m / (n + 1), kept within
 *            [1, MMFI_POLL_RATIO_MAX]: shared memory is never polled less
 *            often than the network, and the network at least once every
 *            MMFI_POLL_RATIO_MAX calls (m <= history already bounds it by the
 *            history length).
 *
 * Plain C, no libfabric: tests/provider/test_poll.c tests the rule alone.
 */
#ifndef MMFI_POLL_H
#define MMFI_POLL_H

#include <stdint.h>

enum { MMFI_POLL_RR = 0, MMFI_POLL_STATIC = 1, MMFI_POLL_DYNAMIC = 2 };
enum { MMFI_CH_SHM = 0, MMFI_CH_NET = 1, MMFI_CH_N = 2 };

#define MMFI_POLL_RATIO_MAX   1000u /* static ratio and dynamic bound */
#define MMFI_POLL_HISTORY_MAX 1024u
#define MMFI_POLL_HIST_BINS   40    /* log2 buckets of discovery times (ns) */

/* Counters of one polled channel (exported in the statistics). */
typedef struct mmfi_chan_polls {
    uint64_t polls;        /* times the progress loop looked at the channel   */
    uint64_t empty;        /* of which found nothing at all                   */
    uint64_t found;        /* messages (eager or rendezvous requests) found   */
    uint64_t disc_n;       /* messages with a discovery time                  */
    uint64_t disc_sum_ns, disc_max_ns;
    uint64_t disc_hist[MMFI_POLL_HIST_BINS]; /* bin b: [2^b, 2^(b+1)) ns; bin 0 also 0 */
} mmfi_chan_polls;

typedef struct mmfi_poll {
    int      scheme;       /* MMFI_POLL_*                                     */
    uint32_t ratio;        /* current: shared-memory polls per network poll   */
    uint32_t history;      /* dynamic: messages per update                    */
    uint32_t m, n;         /* dynamic: messages of the current window per channel */
    uint32_t since_net;    /* progress calls since the network was polled      */
    uint64_t updates;      /* dynamic: ratio updates made                      */
    uint32_t ratio_min_seen, ratio_max_seen;
    mmfi_chan_polls ch[MMFI_CH_N];
} mmfi_poll;

/* The dynamic rule: m / (n + 1), kept within [1, MMFI_POLL_RATIO_MAX]. */
uint32_t mmfi_poll_rule(uint32_t m, uint32_t n);
/* scheme MMFI_POLL_*, ratio (static; 1..MMFI_POLL_RATIO_MAX), history (dynamic). */
void mmfi_poll_init(mmfi_poll *p, int scheme, uint32_t ratio, uint32_t history);
/* The three calls below run at every progress call or message: inline, the
 * rare parts (discovery times, the dynamic update) out of line in poll.c. */

/* At each progress call: whether this call polls the network too. */
static inline int mmfi_poll_net_due(mmfi_poll *p)
{
    if (++p->since_net < p->ratio)
        return 0;
    p->since_net = 0;
    return 1;
}

/* After a poll of channel ch that looked (found: cells taken, 0 = empty). */
static inline void mmfi_poll_looked(mmfi_poll *p, int ch, int found)
{
    p->ch[ch].polls++;
    p->ch[ch].empty += found <= 0;
}

void mmfi_poll_found_slow(mmfi_poll *p, int ch, uint64_t disc_ns);

/* A message found on channel ch; disc_ns its discovery time, or UINT64_MAX if unknown.
 * Under the dynamic scheme this may update the ratio. */
static inline void mmfi_poll_found(mmfi_poll *p, int ch, uint64_t disc_ns)
{
    p->ch[ch].found++;
    if (disc_ns != UINT64_MAX || p->scheme == MMFI_POLL_DYNAMIC)
        mmfi_poll_found_slow(p, ch, disc_ns);
}
/* Approximate quantile q (0..1) of the discovery times of ch, from the histogram:
 * the upper bound of the bin holding it (0 when there are none). */
uint64_t mmfi_poll_disc_quantile(const mmfi_poll *p, int ch, double q);
const char *mmfi_poll_scheme_name(int scheme);

#endif /* MMFI_POLL_H */

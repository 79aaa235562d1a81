/*
 * replay_resolved.h - check the resolved source and tag that trace
 * conversion records on receives (src_resolved= / tag_resolved=,
 * docs/stream-format.md) against what a reference replay matches.
 *
 * The stream is replayed once through the `list` engine (the MPICH-style
 * reference); for every R that carries a resolved source or tag, the
 * message it matched (whether it found the message at posting or the
 * message found it later) must have exactly that source and tag. A receive
 * the replay leaves unmatched, or one cancelled, is counted apart.
 */
#ifndef MM_TOOLS_REPLAY_RESOLVED_H
#define MM_TOOLS_REPLAY_RESOLVED_H

#include <stddef.h>
#include <stdint.h>

#include "stream.h"

typedef struct mm_resolved_report {
    uint64_t checked;        /* R events with a resolved source or tag          */
    uint64_t agree;          /* ... whose partner has that source and tag       */
    uint64_t differ;         /* ... whose partner has another source or tag     */
    uint64_t unmatched;      /* ... left queued or cancelled by the replay      */
    uint64_t first_differ;   /* line (mm_stream_unit) of the first that differs, 0 */
    uint64_t first_unmatched; /* line of the first unmatched one, 0             */
    int32_t  got_src, got_tag; /* partner of the first that differs             */
    /* Whole-stream counts from the same replay (all receives, not only the
     * resolved ones): receives and messages left queued at the end. */
    uint64_t recv_pending, msg_pending;
} mm_resolved_report;

/* Replay the finalized stream s with the list engine and fill *rep.
 * Returns MMS_OK, or MMS_ENOMEM / MMS_ESTATE with the reason in err. */
int mm_replay_check_resolved(const mm_stream *s, mm_resolved_report *rep,
                             char *err, size_t errlen);

#endif /* MM_TOOLS_REPLAY_RESOLVED_H */

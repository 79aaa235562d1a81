/*
 * match_profile.h - the matching profiler of the MPI 4.0 hints paper
 * (section V-A): a stream replayed with list semantics (list_sim.h), so the
 * figures do not depend on the engine timed, and summarised per phase and
 * for the whole stream (docs/advise.md, "The profile"):
 *
 *  - matching attempts (every search: a message searching the PRQ, a
 *    receive or probe searching the UMQ), split into successes (a partner
 *    found) and failures (the tail reached);
 *  - the elements traversed by each success (the match included) and by each
 *    failure (the whole queue);
 *  - message sizes (the bytes of every M event);
 *  - the PRQ and UMQ lengths after every event (queue lengths over time).
 *
 * Each distribution is summarised by its count, mean, standard deviation,
 * variance (both of the population), minimum, quartiles (linear
 * interpolation between ranks, as mm_quartiles_of) and maximum. A phase is a
 * window of phase_events consecutive events (the last one may be shorter).
 * For the whole stream the exact distributions are written too, as
 * [value, count] pairs, so that the profiles of several processes can be
 * merged exactly (mpimatch advise pools the ranks of an application).
 */
#ifndef MM_TOOLS_MATCH_PROFILE_H
#define MM_TOOLS_MATCH_PROFILE_H

#include <stdint.h>
#include <stdio.h>

#include "stream.h"

/* The distributions, in the order the JSON writes them. */
enum { MM_MP_DEPTH_SUCCESS, MM_MP_DEPTH_FAILURE, MM_MP_BYTES, MM_MP_PRQ_LEN, MM_MP_UMQ_LEN,
       MM_MP_NDIST };

/* Write the profile of a finalized stream as JSON to f (layout in
 * docs/advise.md). phase_events > 0. Returns MMS_OK, MMS_ENOMEM or MMS_EIO. */
int mm_match_profile_json(FILE *f, const mm_stream *s, uint64_t phase_events);

#endif /* MM_TOOLS_MATCH_PROFILE_H */

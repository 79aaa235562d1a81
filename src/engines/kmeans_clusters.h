/* kmeans_clusters.h - reading a cluster file (docs/clustering.md).
 *
 * A cluster file assigns every peer of a receiving process to one of k
 * clusters (queues). It is small, versioned text:
 *
 *   mpimatch-clusters 1
 *   np 8
 *   k 3
 *   receiver 0
 *   0 2
 *   1 0
 *   ...          one "peer cluster" line for each peer 0..np-1
 *   receiver 1   (more receivers' sections may follow)
 *   ...
 *
 * '#' starts a comment; blank lines are ignored. Everything is validated:
 * a file that is not exactly right is an error naming file:line, never a
 * partial assignment. */
#ifndef MM_ENGINES_KMEANS_CLUSTERS_H
#define MM_ENGINES_KMEANS_CLUSTERS_H

#include <stddef.h>
#include <stdint.h>

#define MM_CLUSTERS_MAGIC   "mpimatch-clusters"
#define MM_CLUSTERS_VERSION 1
#define MM_CLUSTERS_MAX_K   65535 /* cluster ids fit in 16 bits */

/* Read `path`, check it was made for nprocs peers, and fill map[0..nprocs-1]
 * with receiver `receiver`'s cluster of each peer; *k receives the file's k.
 * Returns 0, or MM_EPARAM (bad or missing file) / MM_ENOMEM with a message
 * naming the file and line in err. */
int mm_clusters_load(const char *path, int32_t nprocs, int64_t receiver,
                     uint16_t *map, uint32_t *k, char *err, size_t errlen);

#endif

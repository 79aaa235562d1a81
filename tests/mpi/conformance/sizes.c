/*
 * sizes.c - message sizes from 0 B to 64 MiB, np 2 (the pairs r, r^1 at any
 * even np). Each size is sent 0 -> 1 (blocking) and exchanged both ways at
 * once (Isend + Irecv); every byte is checked against its pattern. Sizes:
 * 0, 1, 2, 3, 7, 8, every power of two up to 64 MiB, and the neighbours
 * (+-1) of 4 KiB, 8 KiB, 64 KiB, 1 MiB and 4 MiB, where eager limits and
 * fragment sizes of the usual stacks sit.
 */
#include "conformance.h"

static size_t sizes[64];

static int make_sizes(void)
{
    int n = 0;
    static const size_t small[] = { 0, 1, 2, 3, 7 };
    for (size_t i = 0; i < sizeof small / sizeof small[0]; i++)
        sizes[n++] = small[i];
    for (size_t s = 8; s <= (64u << 20); s *= 2)
        sizes[n++] = s;
    static const size_t edge[] = { 4096, 8192, 65536, 1 << 20, 4 << 20 };
    for (size_t i = 0; i < sizeof edge / sizeof edge[0]; i++) {
        sizes[n++] = edge[i] - 1;
        sizes[n++] = edge[i] + 1;
    }
    return n;
}

int main(int argc, char **argv)
{
    int rc = conf_start("sizes", &argc, &argv, 1, 64, -1, NULL);
    if (rc)
        return rc;
    int n = make_sizes(), peer = rank ^ 1;
    char *out = xmalloc(64u << 20), *in = xmalloc((64u << 20) + 1);
    if (peer < size) {
        for (int k = 0; k < n; k++) {
            size_t len = sizes[k];
            MPI_Status st;
            int c;
            /* one way, blocking */
            if (rank % 2 == 0) {
                fill(out, len, (uint64_t)k);
                MPI_Send(out, (int)len, MPI_BYTE, peer, k, MPI_COMM_WORLD);
            } else {
                MPI_Recv(in, (int)len + 1, MPI_BYTE, peer, k, MPI_COMM_WORLD, &st);
                MPI_Get_count(&st, MPI_BYTE, &c);
                size_t bad = first_bad(in, len, (uint64_t)k);
                EXPECT((size_t)c == len && bad == len);
                if (bad != len)
                    fprintf(stderr, "sizes: %zu bytes: first bad byte at %zu\n", len, bad);
                record("oneway %zu count=%d data=%016llx", len, c,
                       (unsigned long long)data_hash(in, (size_t)c));
            }
            /* both ways at once */
            MPI_Request r[2];
            fill(out, len, (uint64_t)(k * 2 + rank % 2));
            MPI_Irecv(in, (int)len, MPI_BYTE, peer, 1000 + k, MPI_COMM_WORLD, &r[0]);
            MPI_Isend(out, (int)len, MPI_BYTE, peer, 1000 + k, MPI_COMM_WORLD, &r[1]);
            MPI_Status sts[2];
            MPI_Waitall(2, r, sts);
            MPI_Get_count(&sts[0], MPI_BYTE, &c);
            size_t bad = first_bad(in, len, (uint64_t)(k * 2 + peer % 2));
            EXPECT((size_t)c == len && bad == len && sts[0].MPI_SOURCE == peer);
            record("exchange %zu count=%d data=%016llx", len, c,
                   (unsigned long long)data_hash(in, (size_t)c));
        }
    }
    free(out);
    free(in);
    return conf_finish();
}

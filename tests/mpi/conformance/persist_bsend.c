/*
 * persist_bsend.c - a persistent buffered send, np 2..8. MPI_Bsend_init
 * once, then MPI_Start three times, each after new contents were written to
 * the send buffer: each Start must send the contents at that Start (MPI 4.0
 * section 3.9: the data is copied out of the buffer when the operation
 * starts), around the ring to the left, with an attached buffer.
 */
#include "conformance.h"

int main(int argc, char **argv)
{
    int rc = conf_start("persist_bsend", &argc, &argv, 2, 64, -1, NULL);
    if (rc)
        return rc;
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int bsize = 4 * (MPI_BSEND_OVERHEAD + 64);
    void *buf = xmalloc((size_t)bsize);
    MPI_Buffer_attach(buf, bsize);
    int c[16];
    MPI_Request rs;
    MPI_Bsend_init(c, 16, MPI_INT, left, 81, MPI_COMM_WORLD, &rs);
    for (int it = 0; it < 3; it++) {
        for (int i = 0; i < 16; i++)
            c[i] = rank * 100 + it * 16 + i;
        MPI_Start(&rs);
        MPI_Wait(&rs, MPI_STATUS_IGNORE);
        int d[16];
        MPI_Recv(d, 16, MPI_INT, right, 81, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        int bad = 0;
        for (int i = 0; i < 16; i++)
            bad += d[i] != right * 100 + it * 16 + i;
        EXPECT(bad == 0);
        if (bad)
            fprintf(stderr, "persist_bsend: rank %d: start %d delivered %d..%d, not %d..%d\n", rank,
                    it, d[0], d[15], right * 100 + it * 16, right * 100 + it * 16 + 15);
        record("bsend it=%d data=%016llx", it, (unsigned long long)data_hash(d, sizeof d));
    }
    MPI_Request_free(&rs);
    int detached_size;
    void *detached;
    MPI_Buffer_detach(&detached, &detached_size);
    EXPECT(detached == buf && detached_size == bsize);
    free(buf);
    return conf_finish();
}

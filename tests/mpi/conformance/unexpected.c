/*
 * unexpected.c - unexpected messages, np 2..8 (rank 0 receives, the others
 * send), none of which a receive is waiting for when it arrives.
 *  1 depths 1, 4, 100 and 10,000 from one source (rank 1): it Isends them
 *    (8 B, tags cycling 0..6), then a barrier, and only then 0 receives them:
 *    first with MPI_ANY_TAG (they must come in send order), then, for a second
 *    flood, tag by tag from 6 down to 0 (within a tag, in send order)
 *  2 100 unexpected 256 KiB messages from rank 1 (above every eager limit)
 *  3 every sender floods 1,000 at once; 0 receives with (any, any); per
 *    source in order
 *  4 70,000 messages from rank 1 in order, in windows of 1,000: more than a
 *    16-bit per-peer sequence number holds, so a wrap must keep the order
 */
#include "conformance.h"

static const int depths[] = { 1, 4, 100, 10000 };

static void flood_send(int n, int bytes, int base_tag_mod, int barrier)
{
    int *out = xmalloc(sizeof(int) * (size_t)n * 2);
    char *big = bytes > 8 ? xmalloc((size_t)bytes * (size_t)n) : NULL;
    MPI_Request *r = xmalloc(sizeof(MPI_Request) * (size_t)n);
    for (int i = 0; i < n; i++) {
        out[2 * i] = rank;
        out[2 * i + 1] = i;
        if (big) {
            fill(big + (size_t)i * (size_t)bytes, (size_t)bytes, (uint64_t)i);
            MPI_Isend(big + (size_t)i * (size_t)bytes, bytes, MPI_BYTE, 0, i % base_tag_mod,
                      MPI_COMM_WORLD, &r[i]);
        } else {
            MPI_Isend(&out[2 * i], 2, MPI_INT, 0, i % base_tag_mod, MPI_COMM_WORLD, &r[i]);
        }
    }
    if (barrier)
        MPI_Barrier(MPI_COMM_WORLD);
    MPI_Waitall(n, r, MPI_STATUSES_IGNORE);
    free(out);
    free(big);
    free(r);
}

/* Rank 1 floods 0 with n messages of `bytes` (tags 0..tags-1), then a barrier on
 * the world; whether this is rank 0 (the receiver). */
static int flood_from_1(int n, int bytes, int tags)
{
    if (rank == 1)
        flood_send(n, bytes, tags, 1);
    else
        MPI_Barrier(MPI_COMM_WORLD);
    return rank == 0;
}

static void depth_any_tag(int n)
{
    if (!flood_from_1(n, 8, 7))
        return;
    int bad = 0;
    for (int i = 0; i < n; i++) {
        int v[2];
        MPI_Status st;
        MPI_Recv(v, 2, MPI_INT, 1, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        bad += !(v[0] == 1 && v[1] == i && st.MPI_TAG == i % 7);
    }
    EXPECT(bad == 0);
    record("depth %d any_tag in_order=%d", n, bad == 0);
}

static void depth_by_tag(int n)
{
    if (!flood_from_1(n, 8, 7))
        return;
    int bad = 0, got = 0;
    for (int t = 6; t >= 0; t--)
        for (int i = t; i < n; i += 7) {
            int v[2];
            MPI_Status st;
            MPI_Recv(v, 2, MPI_INT, MPI_ANY_SOURCE, t, MPI_COMM_WORLD, &st);
            bad += !(v[0] == 1 && v[1] == i && st.MPI_SOURCE == 1);
            got++;
        }
    EXPECT(bad == 0 && got == n);
    record("depth %d by_tag got=%d in_order=%d", n, got, bad == 0);
}

static void depths_all(void)
{
    for (size_t k = 0; k < sizeof depths / sizeof depths[0]; k++) {
        depth_any_tag(depths[k]);
        MPI_Barrier(MPI_COMM_WORLD);
        depth_by_tag(depths[k]);
        MPI_Barrier(MPI_COMM_WORLD);
    }
}

static void large(void)
{
    const int n = 100, bytes = 256 << 10;
    if (!flood_from_1(n, bytes, 3))
        return;
    char *buf = xmalloc((size_t)bytes);
    int bad = 0;
    for (int i = 0; i < n; i++) {
        MPI_Status st;
        int c;
        MPI_Recv(buf, bytes, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        MPI_Get_count(&st, MPI_BYTE, &c);
        bad += !(c == bytes && st.MPI_TAG == i % 3 && first_bad(buf, (size_t)bytes, (uint64_t)i) ==
                 (size_t)bytes);
    }
    free(buf);
    EXPECT(bad == 0);
    record("large n=%d bytes=%d in_order=%d", n, bytes, bad == 0);
}

static void all_senders(void)
{
    const int n = 1000;
    if (rank != 0) {
        flood_send(n, 8, 5, 1);
        return;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    int *next = calloc((size_t)size, sizeof(int)), bad = 0;
    for (int i = 0; i < n * (size - 1); i++) {
        int v[2];
        MPI_Status st;
        MPI_Recv(v, 2, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        int s = st.MPI_SOURCE;
        if (s <= 0 || s >= size || v[0] != s || v[1] != next[s] || st.MPI_TAG != next[s] % 5) {
            bad++;
            continue;
        }
        next[s]++;
    }
    EXPECT(bad == 0);
    for (int s = 1; s < size; s++)
        record("all_senders src=%d n=%d", s, next[s]);
    free(next);
}

static void wrap(void)
{
    const int total = 70000, window = 1000;
    int bad = 0;
    for (int base = 0; base < total; base += window) {
        if (rank == 1) {
            int *out = xmalloc(sizeof(int) * (size_t)window);
            MPI_Request *r = xmalloc(sizeof(MPI_Request) * (size_t)window);
            for (int i = 0; i < window; i++) {
                out[i] = base + i;
                MPI_Isend(&out[i], 1, MPI_INT, 0, (base + i) % 11, MPI_COMM_WORLD, &r[i]);
            }
            MPI_Waitall(window, r, MPI_STATUSES_IGNORE);
            free(out);
            free(r);
        } else if (rank == 0) {
            for (int i = 0; i < window; i++) {
                int v;
                MPI_Status st;
                MPI_Recv(&v, 1, MPI_INT, i % 2 ? MPI_ANY_SOURCE : 1, MPI_ANY_TAG, MPI_COMM_WORLD,
                         &st);
                bad += !(v == base + i && st.MPI_TAG == v % 11);
            }
        }
    }
    if (rank == 0) {
        EXPECT(bad == 0);
        record("wrap total=%d in_order=%d", total, bad == 0);
    }
}

int main(int argc, char **argv)
{
    int rc = conf_start("unexpected", &argc, &argv, 2, 64, -1, NULL);
    if (rc)
        return rc;
    void (*phase[])(void) = { depths_all, large, all_senders, wrap };
    conf_phases(phase, sizeof phase / sizeof phase[0]);
    return conf_finish();
}

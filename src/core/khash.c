#define _GNU_SOURCE /* getrandom */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/random.h>
#endif
#include "core/khash.h"

static int read_urandom(void *buf, size_t n)
{
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(fd, (char *)buf + got, n - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    close(fd);
    return got == n ? 0 : -1;
}

uint64_t mm_seed_random(void)
{
    uint64_t s = 0;
#if defined(__linux__)
    /* Non-blocking: early in boot, fall back rather than wait. */
    for (;;) {
        ssize_t r = getrandom(&s, sizeof s, GRND_NONBLOCK);
        if (r == (ssize_t)sizeof s)
            return s;
        if (r < 0 && errno == EINTR)
            continue;
        break;
    }
#endif
    if (read_urandom(&s, sizeof s) == 0)
        return s;
    /* No random source: still a per-process, per-call value an outside
     * sender cannot read (clock and stack address, mixed). */
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    uint64_t x = (uint64_t)ts.tv_nsec ^ (uint64_t)ts.tv_sec << 32;
    return mm_seed_derive(x ^ (uint64_t)(uintptr_t)&ts, 0);
}

uint64_t mm_seed_pick(int64_t param)
{
    return param > 0 ? mm_seed_derive((uint64_t)param, 0) : mm_seed_random();
}

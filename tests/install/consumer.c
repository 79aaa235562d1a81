/* A program outside the tree that links the installed library. */
#include <stdio.h>
#include <string.h>
#include <mpimatch.h>

int main(void)
{
    mm_engine *e;
    char err[256];
    mm_config cfg = {.nprocs = 2};
    if (mm_create(&e, "nm", &cfg, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    mm_entry r = {.comm = 0, .src = MM_ANY_SOURCE, .tag = 7, .cookie = 11};
    mm_entry m = {.comm = 0, .src = 1, .tag = 7, .cookie = 22};
    uintptr_t partner = 0;
    int a = mm_post(e, &r, NULL, &partner);
    int b = mm_arrive(e, &m, &partner);
    mm_destroy(e);
    if (a != MM_QUEUED || b != MM_MATCHED || partner != 11) {
        fprintf(stderr, "unexpected: %d %d %lu\n", a, b, (unsigned long)partner);
        return 1;
    }
    if (strcmp(mm_version(), MPIMATCH_VERSION_STRING) != 0) {
        fprintf(stderr, "library %s, header %s\n", mm_version(), MPIMATCH_VERSION_STRING);
        return 1;
    }
    printf("consumer ok: libmpimatch %s, %zu engines\n", mm_version(), mm_engine_count());
    return 0;
}

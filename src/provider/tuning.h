/*
 * tuning.h - the file of FI_MPIMATCH_TUNING (tuning.c). Plain C, no
 * libfabric: tests/provider/test_poll.c reads files with it directly.
 */
#ifndef MMFI_TUNING_H
#define MMFI_TUNING_H

#include <stddef.h>
#include <stdint.h>

#include "poll.h"

enum {
    MMFI_TUNE_SHM_EAGER = 0,
    MMFI_TUNE_CMA_MIN,
    MMFI_TUNE_POLL,
    MMFI_TUNE_POLL_RATIO,
    MMFI_TUNE_POLL_HISTORY,
    MMFI_TUNE_N
};

typedef struct mmfi_tuning_key {
    const char *name;  /* key in the file; FI_MPIMATCH_<NAME> in the environment */
    uint64_t    lo, hi;
} mmfi_tuning_key;

extern const mmfi_tuning_key mmfi_tuning_keys[MMFI_TUNE_N];

typedef struct mmfi_tuning {
    int      have[MMFI_TUNE_N];
    uint64_t val[MMFI_TUNE_N];  /* poll: MMFI_POLL_* */
    int      line[MMFI_TUNE_N];
} mmfi_tuning;

/* 0, or -1 with "file:line: what" in err. */
int mmfi_tuning_read(const char *path, mmfi_tuning *t, char *err, size_t errlen);
/* MMFI_POLL_* for "rr", "static", "dynamic"; -1 otherwise. */
int mmfi_poll_scheme_parse(const char *v);

#endif /* MMFI_TUNING_H */

/*
 * gen.h - workload generators: seeded, reproducible matching workloads from
 * the papers, built as in-memory event streams (tools/stream/stream.h).
 *
 * A generator is a named function with a table of integer parameters (like
 * an engine's). A workload is written "NAME[:key=value,...]", for example
 * "shuffle:n=4096,seed=7"; every generator takes "seed" (default 1), and the
 * same spec always gives the same stream, on every machine.
 *
 * A generator appends events to an initialized, empty stream with
 * mm_stream_push() (so every stream-format rule holds) and returns MMS_OK or
 * an MMS_E* code with a one-line reason in err. mm_gen_build() parses the
 * spec, runs the generator and finalizes the stream.
 */
#ifndef MM_TOOLS_GEN_H
#define MM_TOOLS_GEN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "rng.h"
#include "stream.h"

#define MM_GEN_MAX_PARAMS 24

/* One parameter. An integer parameter takes def/min/max. A choice
 * parameter (choices != NULL, a NULL-terminated list of names) is given by
 * name and stored as the index of that name; def is the default index. */
typedef struct mm_gen_param {
    const char        *name;
    const char        *doc;
    int64_t            def, min, max;
    const char *const *choices;
} mm_gen_param;

typedef struct mm_gen {
    const char         *name;     /* "shuffle"                                  */
    const char         *summary;  /* one line: what the stream does             */
    const char         *origin;   /* paper and figure it reproduces             */
    int                 synthetic; /* an application profile, not a real trace:
                                     outputs must label it "synthetic"           */
    const mm_gen_param *params;   /* nparams entries; "seed" is implicit         */
    size_t              nparams;
    /* Append the workload to s. v holds one value per parameter (in the
     * table's order), seed the seed. */
    int (*run)(mm_stream *s, const int64_t *v, uint64_t seed, char *err, size_t errlen);
} mm_gen;

/* The registry (gen_registry.c); lookups by name in gen.c. */
size_t        mm_gen_count(void);
const mm_gen *mm_gen_at(size_t i);           /* NULL past the end */
const mm_gen *mm_gen_find(const char *name); /* NULL if unknown   */
const mm_gen *mm_gen_find_n(const char *name, size_t len);

/* A parsed workload spec. */
typedef struct mm_gen_spec {
    const mm_gen *gen;
    int64_t       v[MM_GEN_MAX_PARAMS];
    uint64_t      seed;
} mm_gen_spec;

/* A buffer this large always holds a canonical spec. */
#define MM_GEN_SPEC_MAX 512

/* Parse "NAME[:key=value,...]". An unknown name lists the generators; an
 * unknown key lists the parameters; a value out of range gives the range
 * (or the choices). Errors (MMS_EFORMAT) read "workload 'SPEC': reason". */
int mm_gen_parse(const char *spec, mm_gen_spec *out, char *err, size_t errlen);
/* The canonical spec with every parameter in table order, then the seed:
 * "shuffle:n=4096,rounds=8,seed=1". Returns the full length (snprintf
 * semantics); parsing it gives back the same spec. */
int mm_gen_format(const mm_gen_spec *sp, char *buf, size_t len);
/* Run a parsed spec into an initialized empty stream and finalize it. */
int mm_gen_run(const mm_gen_spec *sp, mm_stream *s, char *err, size_t errlen);
/* mm_stream_init (named after the canonical spec) + mm_gen_run; on error
 * s is freed (empty) and err names the workload. */
int mm_gen_build_parsed(const mm_gen_spec *sp, mm_stream *s, char *err, size_t errlen);
/* mm_gen_parse + mm_gen_build_parsed. */
int mm_gen_build(const char *spec, mm_stream *s, char *err, size_t errlen);

/* ---- listing (gen_list.c) ---- */
struct mmj;
/* Every generator with its parameters (defaults, ranges, choices, docs),
 * as text or as JSON; returns 0, or -1 if writing failed. */
int  mm_gen_list(FILE *f, int json);
/* The value of a "workload" JSON key: {"name", "spec", "params",
 * "synthetic", "origin"}. */
void mm_gen_spec_json(struct mmj *j, const mm_gen_spec *sp);

#endif /* MM_TOOLS_GEN_H */

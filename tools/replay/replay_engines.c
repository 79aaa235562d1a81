/*
 * replay_engines.c - engine selection, hint decisions and parameters for
 * mpimatch-replay. Errors are printed here (they are usage errors, exit 2)
 * because each needs its own list of valid choices.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "replay_engines.h"

static void print_engine_names(FILE *f)
{
    for (size_t i = 0; i < mm_engine_count(); i++) {
        const mm_engine_info *in = mm_engine_at(i);
        fprintf(f, "%s%s", i ? ", " : "", in ? in->name : "?");
    }
}

static int add_engine(mm_plan *p, const mm_engine_info *info, int named)
{
    for (size_t i = 0; i < p->n; i++)
        if (p->e[i].info == info) {
            p->e[i].named |= named;
            return 0;
        }
    mm_plan_engine *ne = realloc(p->e, (p->n + 1) * sizeof *ne);
    if (!ne) {
        cli_error("out of memory");
        return CLI_FAIL;
    }
    p->e = ne;
    mm_plan_engine *e = &p->e[p->n];
    memset(e, 0, sizeof *e);
    e->info = info;
    e->named = named;
    size_t np = info->nparams;
    e->values = calloc(np + 1, sizeof *e->values);
    e->given = calloc(np + 1, sizeof *e->given);
    e->params = calloc(np + 1, sizeof *e->params);
    p->n++; /* counted now so mm_plan_free releases a partial entry */
    if (!e->values || !e->given || !e->params) {
        cli_error("out of memory");
        return CLI_FAIL;
    }
    for (size_t k = 0; k < np; k++)
        e->values[k] = info->params[k].def;
    return 0;
}

int mm_plan_engines(mm_plan *p, const char *const *specs, size_t nspecs)
{
    memset(p, 0, sizeof *p);
    if (nspecs == 0) {
        fflush(stdout);
        fprintf(stderr, "%s: --engine is required: a name, a comma list, or 'all' (engines: ",
                cli_prog);
        print_engine_names(stderr);
        fprintf(stderr, ")\n");
        return CLI_USAGE;
    }
    for (size_t i = 0; i < nspecs; i++) {
        const char *v = specs[i];
        for (;;) {
            const char *comma = strchr(v, ',');
            size_t len = comma ? (size_t)(comma - v) : strlen(v);
            char name[128];
            if (len == 0 || len >= sizeof name) {
                cli_error("--engine: empty or overlong engine name in '%s'", specs[i]);
                return CLI_USAGE;
            }
            memcpy(name, v, len);
            name[len] = '\0';
            int rc = 0;
            if (strcmp(name, "all") == 0) {
                for (size_t k = 0; k < mm_engine_count() && !rc; k++)
                    rc = add_engine(p, mm_engine_at(k), 0);
            } else {
                const mm_engine_info *info = mm_engine_find(name);
                if (!info) {
                    fflush(stdout);
                    fprintf(stderr, "%s: unknown engine '%s' (valid: ", cli_prog, name);
                    print_engine_names(stderr);
                    fprintf(stderr, ", or all)\n");
                    return CLI_USAGE;
                }
                rc = add_engine(p, info, 1);
            }
            if (rc)
                return rc;
            if (!comma)
                break;
            v = comma + 1;
        }
    }
    return 0;
}

static const char *const hint_names[] = { "no_any_source", "no_any_tag" };

int mm_parse_hints(const char *v, uint32_t *out)
{
    if (strcmp(v, "auto") == 0) {
        *out = MM_HINTS_AUTO;
        return 0;
    }
    *out = 0;
    if (strcmp(v, "none") == 0)
        return 0;
    for (;;) {
        const char *comma = strchr(v, ',');
        size_t len = comma ? (size_t)(comma - v) : strlen(v);
        int found = 0;
        for (unsigned k = 0; k < 2; k++)
            if (strlen(hint_names[k]) == len && strncmp(v, hint_names[k], len) == 0) {
                *out |= 1u << k;
                found = 1;
            }
        if (!found)
            return -1;
        if (!comma)
            return 0;
        v = comma + 1;
    }
}

const char *mm_hints_str(uint32_t h)
{
    h &= MM_HINT_NO_ANY_SOURCE | MM_HINT_NO_ANY_TAG;
    if (h == (MM_HINT_NO_ANY_SOURCE | MM_HINT_NO_ANY_TAG))
        return "no_any_source,no_any_tag";
    if (h == MM_HINT_NO_ANY_SOURCE)
        return "no_any_source";
    if (h == MM_HINT_NO_ANY_TAG)
        return "no_any_tag";
    return "none";
}

/* "file:3" or "file: record 3 (offset 128)": a location without the ": ". */
static void where_short(const mm_stream *s, uint64_t line, char *buf, size_t len)
{
    mm_stream_where(s, line, buf, len);
    size_t n = strlen(buf);
    if (n >= 2 && buf[n - 2] == ':' && buf[n - 1] == ' ')
        buf[n - 2] = '\0';
}

int mm_plan_hints(mm_plan *p, const mm_stream *s, uint32_t hints_opt)
{
    uint64_t line[2];
    uint32_t sat = mm_stream_hints(s, &line[0], &line[1]);
    p->hints = hints_opt == MM_HINTS_AUTO ? sat : hints_opt;

    for (size_t i = 0; i < p->n; i++) {
        mm_plan_engine *e = &p->e[i];
        uint32_t missing = e->info->hints_required & ~p->hints;
        if (!missing)
            continue;
        /* Name every hint the engine needs, and the earliest line that
         * breaks one the stream cannot give. */
        unsigned k = (missing & MM_HINT_NO_ANY_SOURCE) ? 0 : 1;
        if ((missing & MM_HINT_NO_ANY_TAG) && line[1] && (!line[0] || line[1] < line[0]))
            k = 1;
        const char *need = mm_hints_str(e->info->hints_required);
        char where[300];
        if (line[k]) {
            where_short(s, line[k], where, sizeof where);
            snprintf(e->reason, sizeof e->reason, "requires hints %s; %s uses %s", need,
                     where, k == 0 ? "ANY_SOURCE" : "ANY_TAG");
        } else {
            snprintf(e->reason, sizeof e->reason, "requires hints %s; --hints does not assert %s",
                     need, hint_names[k]);
        }
        if (e->named) {
            cli_error("engine '%s' %s", e->info->name, e->reason);
            return CLI_USAGE;
        }
        e->skipped = 1;
    }
    return 0;
}

/* "  list: (none);  bins: bins" for the selected engines, or only `only`. */
static void print_params(FILE *f, const mm_plan *p, const mm_engine_info *only)
{
    int first = 1;
    for (size_t i = 0; i < p->n; i++) {
        const mm_engine_info *in = p->e[i].info;
        if (only && in != only)
            continue;
        fprintf(f, "%s %s:", first ? "" : ";", in->name);
        first = 0;
        if (in->nparams == 0)
            fprintf(f, " (none)");
        for (size_t k = 0; k < in->nparams; k++)
            fprintf(f, "%s %s", k ? "," : "", in->params[k].name);
    }
}

static long find_param(const mm_engine_info *in, const char *key, size_t keylen)
{
    for (size_t k = 0; k < in->nparams; k++)
        if (strlen(in->params[k].name) == keylen && strncmp(in->params[k].name, key, keylen) == 0)
            return (long)k;
    return -1;
}

void mm_plan_default(mm_plan *p, const char *key, const char *kv)
{
    for (size_t j = 0; j < p->n; j++) {
        long k = find_param(p->e[j].info, key, strlen(key));
        if (k >= 0)
            p->e[j].given[k] = kv;
    }
}

int mm_plan_params(mm_plan *p, const char *const *params, size_t nparams)
{
    for (size_t i = 0; i < nparams; i++) {
        const char *a = params[i];
        const char *eq = strchr(a, '=');
        if (!eq || eq == a) {
            cli_error("--param '%s': expected [ENGINE:]key=value", a);
            return CLI_USAGE;
        }
        const char *colon = memchr(a, ':', (size_t)(eq - a));
        const char *key = colon ? colon + 1 : a;
        size_t keylen = (size_t)(eq - key);
        if (keylen == 0) {
            cli_error("--param '%s': expected [ENGINE:]key=value", a);
            return CLI_USAGE;
        }

        size_t applied = 0;
        for (size_t j = 0; j < p->n; j++) {
            mm_plan_engine *e = &p->e[j];
            if (colon && (strlen(e->info->name) != (size_t)(colon - a) ||
                          strncmp(e->info->name, a, (size_t)(colon - a)) != 0))
                continue;
            long k = find_param(e->info, key, keylen);
            if (k < 0)
                continue;
            e->given[k] = key; /* a later --param overrides an earlier one */
            applied++;
        }
        if (applied)
            continue;

        fflush(stdout);
        const mm_engine_info *in = NULL;
        if (colon) {
            char ename[128];
            size_t n = (size_t)(colon - a) < sizeof ename - 1 ? (size_t)(colon - a) : sizeof ename - 1;
            memcpy(ename, a, n);
            ename[n] = '\0';
            in = mm_engine_find(ename);
            if (!in) {
                fprintf(stderr, "%s: --param '%s': unknown engine '%s' (valid: ", cli_prog, a, ename);
                print_engine_names(stderr);
                fprintf(stderr, ")\n");
                return CLI_USAGE;
            }
            int selected = 0;
            for (size_t j = 0; j < p->n; j++)
                selected |= p->e[j].info == in;
            if (!selected) {
                cli_error("--param '%s': engine '%s' is not selected by --engine", a, ename);
                return CLI_USAGE;
            }
        }
        if (in)
            fprintf(stderr, "%s: --param '%s': engine '%s' has no parameter '%.*s'; parameters:",
                    cli_prog, a, in->name, (int)keylen, key);
        else
            fprintf(stderr, "%s: --param '%s': no selected engine has parameter '%.*s'; parameters:",
                    cli_prog, a, (int)keylen, key);
        print_params(stderr, p, in);
        fprintf(stderr, "\n");
        return CLI_USAGE;
    }
    for (size_t j = 0; j < p->n; j++) {
        mm_plan_engine *e = &p->e[j];
        e->nparams = 0;
        for (size_t k = 0; k < e->info->nparams; k++)
            if (e->given[k])
                e->params[e->nparams++] = e->given[k];
    }
    return 0;
}

mm_config mm_plan_config(const mm_plan *p, const mm_plan_engine *e, int32_t np)
{
    mm_config cfg = { np, p->hints, 0, e->params, e->nparams };
    return cfg;
}

int mm_plan_values(mm_plan *p, mm_plan_engine *e, int32_t np)
{
    char err[1024] = "";
    mm_config cfg = mm_plan_config(p, e, np);
    mm_engine *eng = NULL;
    int rc = mm_create_from(&eng, e->info, &cfg, err, sizeof err);
    if (rc < 0 || !eng) {
        cli_error("cannot create engine '%s': %s", e->info->name, err[0] ? err : mm_strerror(rc));
        return CLI_USAGE;
    }
    for (size_t k = 0; k < e->info->nparams; k++)
        if (e->info->params[k].type == MM_PARAM_INT)
            mm_get_param(eng, k, &e->values[k]);
    mm_destroy(eng);
    return 0;
}

const char *mm_plan_file(const mm_plan_engine *e, size_t k)
{
    return e->given[k] ? strchr(e->given[k], '=') + 1 : NULL;
}

void mm_plan_free(mm_plan *p)
{
    for (size_t i = 0; i < p->n; i++) {
        mm_plan_engine *e = &p->e[i];
        free(e->given);
        free(e->params);
        free(e->values);
    }
    free(p->e);
    memset(p, 0, sizeof *p);
}

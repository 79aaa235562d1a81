/*
 * mpimatch_gen.c - `mpimatch-gen`: list the workload generators, or write
 * the event stream of one workload (docs/workloads.md).
 */
#include <string.h>

#include "cli.h"
#include "gen.h"
#include "outfile.h"
#include "stream.h"

static const char usage[] =
    "usage: mpimatch-gen SPEC [-o FILE] [--format text|binary]\n"
    "       mpimatch-gen --list [--json] [-o FILE]\n"
    "\n"
    "Writes the event stream of the workload SPEC, written NAME[:key=value,...],\n"
    "e.g. shuffle:n=4096,seed=7 (every generator takes seed, default 1; the same\n"
    "spec always gives the same stream). See --list for the generators.\n"
    "\n"
    "  -o, --output FILE    write to FILE (complete or not at all; default and\n"
    "                       '-': standard output)\n"
    "  --format F           text (default) or binary (docs/stream-format.md)\n"
    "  --list               list the generators, their parameters (default,\n"
    "                       range or choices, doc), origin and synthetic flag\n"
    "  --json               with --list: as JSON\n"
    "  --help               this text\n"
    "\n"
    CLI_EXIT_STATUS_1 CLI_EXIT_STATUS_2 ";\n"
    "     a bad SPEC, or one whose size (computed before generating) is over the\n"
    "     limit\n";

typedef struct args {
    const char *spec, *out;
    int list, json, binary;
} args;

/* Returns 0 to go on, -1 after --help, or an exit code. */
static int parse_args(int argc, char **argv, args *a)
{
    memset(a, 0, sizeof *a);
    const char *format = NULL;
    for (int i = 1; i < argc; i++) {
        const char *v, *arg = argv[i];
        int r;
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            fputs(usage, stdout);
            return -1;
        } else if (strcmp(arg, "--list") == 0) {
            a->list = 1;
        } else if (strcmp(arg, "--json") == 0) {
            a->json = 1;
        } else if ((r = cli_opt(argc, argv, &i, "--output", &v)) != 0 ||
                   (r = cli_opt(argc, argv, &i, "-o", &v)) != 0) {
            if (r < 0)
                return CLI_USAGE;
            a->out = v;
        } else if ((r = cli_opt(argc, argv, &i, "--format", &v)) != 0) {
            if (r < 0)
                return CLI_USAGE;
            format = v;
        } else if (arg[0] == '-' && arg[1] != '\0') {
            cli_error("unknown option '%s' (try --help)", arg);
            return CLI_USAGE;
        } else if (!a->spec) {
            a->spec = arg;
        } else {
            cli_error("more than one SPEC: '%s' and '%s'", a->spec, arg);
            return CLI_USAGE;
        }
    }
    if (format) {
        if (strcmp(format, "binary") == 0)
            a->binary = 1;
        else if (strcmp(format, "text") != 0) {
            cli_error("--format: '%s' is not text or binary", format);
            return CLI_USAGE;
        }
    }
    if (a->list && (a->spec || format)) {
        cli_error("--list takes no SPEC and no --format");
        return CLI_USAGE;
    }
    if (!a->list && a->json) {
        cli_error("--json goes with --list (a stream is written with --format)");
        return CLI_USAGE;
    }
    if (!a->list && !a->spec) {
        cli_error("missing SPEC (try --list for the generators, --help for usage)");
        return CLI_USAGE;
    }
    return 0;
}

static int run(const args *a)
{
    char err[1024];
    mm_outfile o = { 0 };
    mm_stream s;
    int have_stream = 0, rc = CLI_OK;

    /* The spec first: a bad one must not create the output file. */
    mm_gen_spec sp;
    if (!a->list && mm_gen_parse(a->spec, &sp, err, sizeof err) != MMS_OK) {
        cli_error("%s", err);
        return CLI_USAGE;
    }
    if (mm_outfile_open(&o, a->out ? a->out : "-", err, sizeof err)) {
        cli_error("%s", err);
        return CLI_USAGE;
    }
    if (a->list) {
        if (mm_gen_list(o.f, a->json)) {
            mm_outfile_fail(&o, err, sizeof err);
            cli_error("%s", err);
            rc = CLI_FAIL;
        }
    } else {
        int g = mm_gen_build_parsed(&sp, &s, err, sizeof err);
        if (g != MMS_OK) {
            cli_error("%s", err);
            rc = g == MMS_ENOMEM ? CLI_FAIL : CLI_USAGE;
        } else {
            have_stream = 1;
            int w = a->binary ? mm_stream_write_binary(&s, mm_sink_file, o.f)
                              : mm_stream_write_text(&s, mm_sink_file, o.f);
            if (w != MMS_OK) {
                mm_outfile_fail(&o, err, sizeof err);
                cli_error("%s", err);
                rc = CLI_FAIL;
            }
        }
    }
    if (rc == CLI_OK && mm_outfile_commit(&o, err, sizeof err)) {
        cli_error("%s", err);
        rc = CLI_FAIL; /* a write error */
    }
    mm_outfile_abort(&o);
    if (have_stream)
        mm_stream_free(&s);
    return rc;
}

int main(int argc, char **argv)
{
    args a;
    cli_init("mpimatch-gen");
    int rc = parse_args(argc, argv, &a);
    if (rc)
        return rc < 0 ? CLI_OK : rc;
    return run(&a);
}

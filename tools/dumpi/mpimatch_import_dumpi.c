/*
 * mpimatch_import_dumpi.c - `mpimatch-import-dumpi`: convert an SST DUMPI
 * run into an mpimatch trace directory (docs/dumpi.md).
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "dumpi_import.h"

static const char usage[] =
    "usage: mpimatch-import-dumpi [--mpi openmpi|mpich] [--quiet] INPUT --out TRACE_DIR\n"
    "\n"
    "Read an SST DUMPI trace (INPUT: a directory holding one run, PREFIX.meta and\n"
    "PREFIX-NNNN.bin per rank, or the .meta file itself) and write it as an\n"
    "mpimatch trace: TRACE_DIR/rank-NNNNNN.mmt and TRACE_DIR/index.json\n"
    "(docs/trace-format.md), ready for mpimatch-trace-dump and mpimatch convert.\n"
    "\n"
    "  --out DIR   output directory (created if missing)\n"
    "  --mpi NAME  the MPI the run used, recorded in the trace (default openmpi);\n"
    "              it selects collective algorithms when the trace is converted\n"
    "  --quiet     no warnings on standard error\n"
    "  --help      this text\n"
    "\n"
    "A rank file cut short (no index: the run died) is read up to its last whole\n"
    "record with a warning. A corrupted or foreign file is an error naming the file,\n"
    "the offset and the reason; then no output is left behind.\n"
    CLI_EXIT_STATUS;

static void warn(void *ctx, const char *msg)
{
    (void)ctx;
    fprintf(stderr, "%s: warning: %s\n", cli_prog, msg);
}

int main(int argc, char **argv)
{
    cli_init("mpimatch-import-dumpi");
    const char *in = NULL, *out = NULL, *mpi = "openmpi";
    int quiet = 0;
    for (int i = 1; i < argc; i++) {
        const char *v;
        int m;
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(usage, stdout);
            return CLI_OK;
        }
        if (strcmp(argv[i], "--quiet") == 0) {
            quiet = 1;
            continue;
        }
        if ((m = cli_opt(argc, argv, &i, "--out", &v)) != 0) {
            if (m < 0)
                return CLI_USAGE;
            out = v;
            continue;
        }
        if ((m = cli_opt(argc, argv, &i, "--mpi", &v)) != 0) {
            if (m < 0)
                return CLI_USAGE;
            if (strcmp(v, "openmpi") != 0 && strcmp(v, "mpich") != 0) {
                cli_error("--mpi: '%s' is neither openmpi nor mpich", v);
                return CLI_USAGE;
            }
            mpi = v;
            continue;
        }
        if (argv[i][0] == '-' && argv[i][1]) {
            cli_error("unknown option '%s' (try --help)", argv[i]);
            return CLI_USAGE;
        }
        if (in) {
            cli_error("more than one input given ('%s' and '%s')", in, argv[i]);
            return CLI_USAGE;
        }
        in = argv[i];
    }
    if (!in || !out) {
        cli_error("%s (try --help)", !in ? "no DUMPI input given" : "no --out directory given");
        return CLI_USAGE;
    }
    dumpi_import_opts o = { mpi, quiet ? NULL : warn, NULL };
    char err[1024];
    if (dumpi_import(in, out, &o, err, sizeof err)) {
        cli_error("%s", err);
        return strstr(err, "out of memory") ? CLI_FAIL : CLI_USAGE;
    }
    return CLI_OK;
}

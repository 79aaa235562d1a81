/*
 * mpimatch_convert.c - `mpimatch-convert TRACE_DIR --out STREAM_DIR`: a
 * trace of libmpimatch-trace.so into one matching stream per rank
 * (docs/convert.md).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "coll_algo.h"
#include "convert.h"
#include "stream.h"

static const char usage[] =
    "usage: mpimatch-convert TRACE_DIR --out STREAM_DIR [options]\n"
    "\n"
    "Turns a trace of libmpimatch-trace.so (docs/trace-format.md) into one event\n"
    "stream per rank, STREAM_DIR/rank-NNNNNN.mms (binary), plus STREAM_DIR/index.json\n"
    "(docs/convert.md). Receives, probes and cancels happen at their call times;\n"
    "messages arrive after a LogGP-style network time; collectives become the\n"
    "point-to-point transfers of the algorithm the traced MPI would pick.\n"
    "\n"
    "  --out DIR              output directory (created if missing)\n"
    "  --mpi openmpi|mpich    whose collective selection rules to follow\n"
    "                         (default: the MPI recorded in the trace)\n"
    "  --rank LIST            write only these ranks, e.g. 0,2,5-7 (all ranks are\n"
    "                         still read: their messages arrive at the others)\n"
    "  --text                 also write STREAM_DIR/rank-NNNNNN.txt (text streams)\n"
    "  --clock causal|trace|first-record\n"
    "                         how hosts' clocks are lined up: the trace's SYNC\n"
    "                         records (trace), each host's first record\n"
    "                         (first-record), or the trace's alignment corrected\n"
    "                         so that no message is received before it was sent\n"
    "                         (causal, the default; offsets in index.json \"clock\")\n"
    "  --quiet                no summary on standard output\n"
    "  --progress, --no-progress\n"
    "                         a progress bar on standard error (default: when it\n"
    "                         is a terminal and not --quiet)\n"
    "\n"
    "Network model (ns; gap per byte in picoseconds; defaults in brackets):\n"
    "  --latency-intra NS [300]      --latency-inter NS [1000]        L\n"
    "  --overhead-intra NS [100]     --overhead-inter NS [200]        o\n"
    "  --gap-intra NS [50]           --gap-inter NS [100]             g\n"
    "  --gap-per-byte-intra PS [100] --gap-per-byte-inter PS [80]     G\n"
    "  --overhead NS, --gap NS, --gap-per-byte PS set both classes.\n"
    "Ranks whose trace headers name the same host use the intra-node values.\n"
    "\n"
    "Warnings are printed on standard error and kept in index.json (exit 0).\n"
    CLI_EXIT_STATUS;

/* "0,2,5-7" -> want[0..n); 0 or -1 (message printed). */
static int parse_ranks(const char *s, uint8_t **want, int32_t *nwant)
{
    int64_t hi_all = -1;
    const char *p = s;
    /* first pass: the largest rank */
    while (*p) {
        char buf[64];
        size_t k = strcspn(p, ",");
        if (k == 0 || k >= sizeof buf)
            goto bad;
        memcpy(buf, p, k);
        buf[k] = '\0';
        char *dash = strchr(buf, '-');
        int64_t lo, hi;
        if (dash) {
            *dash = '\0';
            if (cli_int(buf, 0, INT32_MAX - 1, &lo) || cli_int(dash + 1, 0, INT32_MAX - 1, &hi) || hi < lo)
                goto bad;
        } else if (cli_int(buf, 0, INT32_MAX - 1, &lo)) {
            goto bad;
        } else {
            hi = lo;
        }
        if (hi > hi_all)
            hi_all = hi;
        p += k + (p[k] == ',');
        if (p[-1] == ',' && *p == '\0')
            goto bad;
    }
    if (hi_all < 0)
        goto bad;
    uint8_t *w = realloc(*want, (size_t)hi_all + 1);
    if (!w) {
        cli_error("out of memory");
        return -1;
    }
    if (*nwant < hi_all + 1)
        memset(w + *nwant, 0, (size_t)(hi_all + 1 - *nwant));
    *want = w;
    if (*nwant < hi_all + 1)
        *nwant = (int32_t)(hi_all + 1);
    for (p = s; *p;) {
        size_t k = strcspn(p, ",");
        int64_t lo, hi;
        char buf[64];
        memcpy(buf, p, k);
        buf[k] = '\0';
        char *dash = strchr(buf, '-');
        if (dash) {
            *dash = '\0';
            cli_int(buf, 0, INT32_MAX - 1, &lo);
            cli_int(dash + 1, 0, INT32_MAX - 1, &hi);
        } else {
            cli_int(buf, 0, INT32_MAX - 1, &lo);
            hi = lo;
        }
        for (int64_t r = lo; r <= hi; r++)
            w[r] = 1;
        p += k + (p[k] == ',');
    }
    return 0;
bad:
    cli_error("--rank: expected a list of ranks and ranges like 0,2,5-7, not '%s'", s);
    return -1;
}

typedef struct num_opt { const char *name; uint64_t *a, *b; } num_opt;

int main(int argc, char **argv)
{
    mm_conv_opts o;
    mm_conv_defaults(&o);
    cli_init("mpimatch-convert");
    uint8_t *want = NULL;
    int32_t nwant = 0;
    int quiet = 0, progress = -1; /* -1: when standard error is a terminal */
    const num_opt nums[] = {
        { "--latency-intra", &o.intra.latency_ns, NULL },
        { "--latency-inter", &o.inter.latency_ns, NULL },
        { "--overhead-intra", &o.intra.overhead_ns, NULL },
        { "--overhead-inter", &o.inter.overhead_ns, NULL },
        { "--overhead", &o.intra.overhead_ns, &o.inter.overhead_ns },
        { "--gap-intra", &o.intra.gap_ns, NULL },
        { "--gap-inter", &o.inter.gap_ns, NULL },
        { "--gap", &o.intra.gap_ns, &o.inter.gap_ns },
        { "--gap-per-byte-intra", &o.intra.ps_per_byte, NULL },
        { "--gap-per-byte-inter", &o.inter.ps_per_byte, NULL },
        { "--gap-per-byte", &o.intra.ps_per_byte, &o.inter.ps_per_byte },
    };
    for (int i = 1; i < argc; i++) {
        const char *v;
        int r = 0;
        int64_t x;
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(usage, stdout);
            free(want);
            return CLI_OK;
        }
        if (strcmp(argv[i], "--text") == 0) {
            o.text = 1;
            continue;
        }
        if (strcmp(argv[i], "--quiet") == 0) {
            quiet = 1;
            continue;
        }
        if (strcmp(argv[i], "--progress") == 0 || strcmp(argv[i], "--no-progress") == 0) {
            progress = argv[i][2] == 'p';
            continue;
        }
        for (size_t k = 0; k < sizeof nums / sizeof nums[0] && r == 0; k++)
            if ((r = cli_opt_int(argc, argv, &i, nums[k].name, 0, 1000000000000LL, &x)) > 0) {
                *nums[k].a = (uint64_t)x;
                if (nums[k].b)
                    *nums[k].b = (uint64_t)x;
            }
        if (r == 0 && (r = cli_opt(argc, argv, &i, "--out", &v)) > 0)
            o.out_dir = v;
        if (r == 0 && (r = cli_opt(argc, argv, &i, "--mpi", &v)) > 0) {
            if (strcmp(v, "openmpi") == 0 || strcmp(v, "ompi") == 0) {
                o.lib = MM_COLL_LIB_OMPI;
            } else if (strcmp(v, "mpich") == 0) {
                o.lib = MM_COLL_LIB_MPICH;
            } else {
                cli_error("--mpi: expected 'openmpi' or 'mpich', not '%s'", v);
                r = -1;
            }
        }
        if (r == 0 && (r = cli_opt(argc, argv, &i, "--clock", &v)) > 0) {
            if (strcmp(v, "causal") == 0) {
                o.clock = MM_CONV_CLOCK_CAUSAL;
            } else if (strcmp(v, "trace") == 0) {
                o.clock = MM_CONV_CLOCK_TRACE;
            } else if (strcmp(v, "first-record") == 0) {
                o.clock = MM_CONV_CLOCK_FIRST;
            } else {
                cli_error("--clock: expected 'causal', 'trace' or 'first-record', not '%s'", v);
                r = -1;
            }
        }
        if (r == 0 && (r = cli_opt(argc, argv, &i, "--rank", &v)) > 0 && parse_ranks(v, &want, &nwant))
            r = -1;
        if (r < 0) {
            free(want);
            return CLI_USAGE;
        }
        if (r > 0)
            continue;
        if (argv[i][0] == '-' && argv[i][1] != '\0') {
            cli_error("unknown option '%s' (try --help)", argv[i]);
            free(want);
            return CLI_USAGE;
        }
        if (o.trace_dir) {
            cli_error("one TRACE_DIR only; '%s' is a second one (try --help)", argv[i]);
            free(want);
            return CLI_USAGE;
        }
        o.trace_dir = argv[i];
    }
    if (!o.trace_dir || !o.out_dir) {
        cli_error("%s (try --help)", !o.trace_dir ? "missing TRACE_DIR" : "missing --out STREAM_DIR");
        free(want);
        return CLI_USAGE;
    }
    o.want = want;
    o.nwant = nwant;
    o.log = stderr;
    o.info = quiet ? NULL : stdout;
    if (progress > 0 || (progress < 0 && !quiet && isatty(fileno(stderr))))
        o.progress = stderr;
    char err[2048];
    int rc = mm_convert(&o, err, sizeof err);
    free(want);
    if (rc != MMS_OK) {
        cli_error("%s", err);
        return rc == MMS_ENOMEM || rc == MM_CONV_EWRITE ? CLI_FAIL : CLI_USAGE;
    }
    if (!quiet)
        printf("%s: streams and index.json written\n", o.out_dir);
    return CLI_OK;
}

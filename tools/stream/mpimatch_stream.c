/*
 * mpimatch_stream.c - `mpimatch-stream`: convert, check and print event
 * streams (docs/stream-format.md).
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "outfile.h"
#include "stream.h"
#include "replay_resolved.h"

static const char usage[] =
    "usage: mpimatch-stream convert IN OUT [--to text|binary] [--np N]\n"
    "       mpimatch-stream check FILE [--np N] [--check-resolved]\n"
    "       mpimatch-stream cat FILE [--np N]\n"
    "\n"
    "Event streams are text ('# mpimatch stream v1') or binary ('MMSTRM');\n"
    "the format of an input is detected from its first bytes. FILE may be '-'\n"
    "for standard input; OUT may be '-' for standard output.\n"
    "\n"
    "  convert  rewrite IN as OUT; --to defaults to binary when OUT ends in\n"
    "           .mmb, text otherwise (text output is canonical)\n"
    "  check    validate FILE and print a summary\n"
    "  cat      print FILE as canonical text\n"
    "\n"
    "  --np N   number of processes (overrides the stream's '# np=')\n"
    "  --check-resolved\n"
    "           check: replay FILE with the list engine and check that every\n"
    "           receive with src_resolved=/tag_resolved= (trace conversion)\n"
    "           matches a message with that source and tag; fails (status 2)\n"
    "           naming the first that does not\n"
    "  --help   this text\n"
    "\n"
    CLI_EXIT_STATUS;

typedef struct args {
    const char *cmd, *in, *out, *to;
    int32_t np;
    int check_resolved;
} args;

static int parse_args(int argc, char **argv, args *a)
{
    memset(a, 0, sizeof *a);
    const char *pos[3];
    int npos = 0;
    for (int i = 1; i < argc; i++) {
        const char *v;
        int r;
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(usage, stdout);
            return -1;
        }
        int64_t x;
        if (strcmp(argv[i], "--check-resolved") == 0) {
            a->check_resolved = 1;
        } else if ((r = cli_opt_int(argc, argv, &i, "--np", 1, INT32_MAX, &x)) != 0) {
            if (r < 0)
                return CLI_USAGE;
            a->np = (int32_t)x;
        } else if ((r = cli_opt(argc, argv, &i, "--to", &v)) != 0) {
            if (r < 0)
                return CLI_USAGE;
            if (strcmp(v, "text") != 0 && strcmp(v, "binary") != 0) {
                cli_error("--to: expected 'text' or 'binary', not '%s'", v);
                return CLI_USAGE;
            }
            a->to = v;
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            cli_error("unknown option '%s' (try --help)", argv[i]);
            return CLI_USAGE;
        } else if (npos < 3) {
            pos[npos++] = argv[i];
        } else {
            cli_error("too many arguments (try --help)");
            return CLI_USAGE;
        }
    }
    if (npos == 0) {
        cli_error("missing command: convert, check or cat (try --help)");
        return CLI_USAGE;
    }
    a->cmd = pos[0];
    int want = strcmp(a->cmd, "convert") == 0 ? 3 : 2;
    if (strcmp(a->cmd, "convert") && strcmp(a->cmd, "check") && strcmp(a->cmd, "cat")) {
        cli_error("unknown command '%s': expected convert, check or cat", a->cmd);
        return CLI_USAGE;
    }
    if (npos != want) {
        cli_error("%s takes %s (try --help)", a->cmd, want == 3 ? "IN and OUT" : "one FILE");
        return CLI_USAGE;
    }
    if (a->check_resolved && strcmp(a->cmd, "check") != 0) {
        cli_error("--check-resolved applies to check only");
        return CLI_USAGE;
    }
    if (a->to && want != 3) {
        cli_error("--to applies to convert only");
        return CLI_USAGE;
    }
    a->in = pos[1];
    a->out = want == 3 ? pos[2] : NULL;
    return 0;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

static int load(mm_stream *s, const args *a)
{
    char err[1024];
    int rc = mm_stream_load(s, a->in, a->np, err, sizeof err);
    if (rc == MMS_OK)
        return 0;
    cli_error("%s", err);
    return rc == MMS_ENOMEM ? CLI_FAIL : CLI_USAGE;
}

/* Write s to path (atomically) as text or binary. */
static int write_stream(const mm_stream *s, const char *path, int binary)
{
    char err[1024];
    mm_outfile o;
    if (mm_outfile_open(&o, path, err, sizeof err)) {
        cli_error("%s", err);
        return CLI_USAGE;
    }
    int rc = binary ? mm_stream_write_binary(s, mm_sink_file, o.f)
                    : mm_stream_write_text(s, mm_sink_file, o.f);
    if (rc != MMS_OK) {
        mm_outfile_fail(&o, err, sizeof err);
        cli_error("%s", err);
        return CLI_FAIL;
    }
    if (mm_outfile_commit(&o, err, sizeof err)) {
        cli_error("%s", err);
        return CLI_FAIL;
    }
    return 0;
}

static const char *np_origin(const mm_stream *s)
{
    switch (s->np_origin) {
    case MM_NP_DECLARED: return "declared";
    case MM_NP_OVERRIDE: return "--np";
    default:             return "inferred from sources";
    }
}

static int check(const mm_stream *s)
{
    mm_stream_summary m;
    if (mm_stream_summarize(s, &m) != MMS_OK) {
        cli_error("out of memory");
        return CLI_FAIL;
    }
    printf("%s: ok (%s)\n", s->name, s->format == MM_FMT_BINARY ? "binary" : "text");
    printf("  events               %zu (R %llu, M %llu, P %llu, X %llu, C %llu)\n", s->n,
           (unsigned long long)m.count[0], (unsigned long long)m.count[1],
           (unsigned long long)m.count[2], (unsigned long long)m.count[3],
           (unsigned long long)m.count[4]);
    printf("  np                   %d (%s)\n", (int)s->np, np_origin(s));
    printf("  communicators        %llu\n", (unsigned long long)m.comms);
    printf("  wildcard receives    %llu (ANY_SOURCE %llu, ANY_TAG %llu, both %llu)\n",
           (unsigned long long)(m.recv_any_source + m.recv_any_tag - m.recv_any_both),
           (unsigned long long)m.recv_any_source, (unsigned long long)m.recv_any_tag,
           (unsigned long long)m.recv_any_both);
    printf("  wildcard probes      %llu\n", (unsigned long long)m.probe_wild);
    printf("  negative tags        %llu\n", (unsigned long long)m.negative_tags);
    printf("  collective elements  %llu\n", (unsigned long long)m.coll);
    printf("  hints satisfied      %s\n",
           m.first_any_source && m.first_any_tag ? "none"
           : m.first_any_source                  ? "no_any_tag"
           : m.first_any_tag                     ? "no_any_source"
                                                 : "no_any_source,no_any_tag");
    return cli_flush_stdout();
}

/* --check-resolved: every resolved receive gets the partner the trace says. */
static int check_resolved(const mm_stream *s)
{
    char err[1024], where[512];
    mm_resolved_report rep;
    if (mm_replay_check_resolved(s, &rep, err, sizeof err) != MMS_OK) {
        cli_error("%s", err);
        return CLI_FAIL;
    }
    printf("  resolved receives    %llu (%llu agree with the list replay, %llu differ, "
           "%llu unmatched)\n",
           (unsigned long long)rep.checked, (unsigned long long)rep.agree,
           (unsigned long long)rep.differ, (unsigned long long)rep.unmatched);
    printf("  left queued          %llu receives, %llu messages\n",
           (unsigned long long)rep.recv_pending, (unsigned long long)rep.msg_pending);
    if (cli_flush_stdout())
        return CLI_FAIL;
    if (rep.differ) {
        size_t i = 0;
        while (s->ev[i].line != rep.first_differ)
            i++;
        const mm_event *e = &s->ev[i];
        char want[64];
        if (e->resolved == MM_RES_ALL)
            snprintf(want, sizeof want, "source %d tag %d", (int)e->src_resolved, (int)e->tag_resolved);
        else if (e->resolved & MM_RES_SRC)
            snprintf(want, sizeof want, "source %d", (int)e->src_resolved);
        else
            snprintf(want, sizeof want, "tag %d", (int)e->tag_resolved);
        mm_stream_where(s, e->line, where, sizeof where);
        cli_error("%sreceive %llu resolved to %s in the trace, but the list replay matches "
                  "it with a message from %d with tag %d (%llu such receives)",
                  where, (unsigned long long)e->id, want, (int)rep.got_src, (int)rep.got_tag,
                  (unsigned long long)rep.differ);
        return CLI_USAGE;
    }
    if (rep.unmatched) {
        mm_stream_where(s, rep.first_unmatched, where, sizeof where);
        cli_error("%sa receive with a resolved source/tag is not matched by the list replay "
                  "(%llu such receives)", where, (unsigned long long)rep.unmatched);
        return CLI_USAGE;
    }
    return 0;
}

int main(int argc, char **argv)
{
    args a;
    mm_stream s;
    cli_init("mpimatch-stream");
    int rc = parse_args(argc, argv, &a);
    if (rc)
        return rc < 0 ? CLI_OK : rc;
    if ((rc = load(&s, &a)))
        return rc;

    if (strcmp(a.cmd, "check") == 0) {
        rc = check(&s);
        if (rc == 0 && a.check_resolved)
            rc = check_resolved(&s);
    } else if (strcmp(a.cmd, "cat") == 0) {
        rc = write_stream(&s, "-", 0);
    } else {
        int binary = a.to ? strcmp(a.to, "binary") == 0 : ends_with(a.out, ".mmb");
        rc = write_stream(&s, a.out, binary);
    }
    mm_stream_free(&s);
    return rc;
}

/*
 * mpimatch_trace_dump.c - `mpimatch-trace-dump`: check trace files and
 * print them as text (docs/trace-format.md), one line per record.
 */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "trace_read.h"

static const char usage[] =
    "usage: mpimatch-trace-dump [--summary] FILE...\n"
    "\n"
    "Check mpimatch trace files (one per rank, written by libmpimatch-trace.so)\n"
    "and print each as text: a '#' header, then one line per record,\n"
    "'<ns since MPI_Init> <TYPE> key=value ...'. Communicators are shown as\n"
    "LOWEST.SEQ ids; 'any' is MPI_ANY_SOURCE/MPI_ANY_TAG, 'null' MPI_PROC_NULL.\n"
    "\n"
    "  --summary  print only the header, the record counts per type and the\n"
    "             communicators\n"
    "  --help     this text\n"
    "\n"
    "A trace cut short by a crash is printed up to its last whole record with a\n"
    "warning on standard error (exit 0). A directory is a usage error: give its\n"
    "rank-*.mmt files.\n"
    CLI_EXIT_STATUS;

static const char *rank_str(int32_t v, char *buf, size_t len)
{
    switch (v) {
    case MMT_ANY_SOURCE: return "any";
    case MMT_PROC_NULL: return "null";
    case MMT_ROOT: return "root";
    default: snprintf(buf, len, "%d", v); return buf;
    }
}

static const char *tag_str(int32_t v, char *buf, size_t len)
{
    if (v == MMT_ANY_TAG)
        return "any";
    snprintf(buf, len, "%d", v);
    return buf;
}

/* " name=N nameW=W" for a rank and its world rank. */
static void put_rank(const char *name, int32_t v, int32_t w)
{
    char b[16];
    printf(" %s=%s", name, rank_str(v, b, sizeof b));
    if (v >= 0)
        printf(" %sw=%d", name, w);
}

static void put_actual(const mmt_record *r)
{
    char b[16];
    put_rank("got_src", r->src, r->src_world);
    printf(" got_tag=%s", tag_str(r->rtag, b, sizeof b));
}

static void put_flags(const mmt_record *r)
{
    static const char *const names[] = { "found", "cancelled", "sendrecv", "replace", "error",
                                         "inter", "nocomm", "identity" };
    for (unsigned i = 0; i < sizeof names / sizeof names[0]; i++)
        if ((r->flags & (1u << i)) && i != 0 && i != 1)
            printf(" %s", names[i]);
}

static void print_comm(const mmt_reader *rd, const mmt_record *r)
{
    char b[24], pb[24];
    const mmt_comm *c = mmt_comm_find(rd, r->comm);
    printf(" comm=%s how=%s parent=%s rank=%d size=%d", mmt_comm_str(r->comm, b, sizeof b),
           mmt_comm_how_name(r->sub), r->aux == MMT_NO_PARENT ? "none" : mmt_comm_str(r->aux, pb, sizeof pb),
           c->rank, c->size);
    if (c->inter)
        printf(" remote_size=%d", c->remote_size);
    if (r->tag != MMT_NONE)
        printf(" color=%d", r->tag);
    printf(" group=");
    for (int32_t i = 0; i < c->size + c->remote_size; i++)
        printf("%s%d", i ? "," : "", i < c->size ? mmt_comm_world(c, i, 0) : mmt_comm_world(c, i - c->size, 1));
}

static void print_record(const mmt_reader *rd, const mmt_record *r)
{
    const mmt_header *h = mmt_header_of(rd);
    char b[24];
    printf("%llu %s dur=%llu", (unsigned long long)(r->t_start - h->t0), mmt_type_name(r->type),
           (unsigned long long)(r->t_end - r->t_start));
    int found = (r->flags & MMT_F_FOUND) != 0;
    switch (r->type) {
    case MMT_COMM:
        print_comm(rd, r);
        break;
    case MMT_PVAR:
        printf(" pvar=%s value=%llu elements=%u", mmt_pvar_name(r->sub), (unsigned long long)r->aux, r->n);
        break;
    case MMT_SYNC:
        printf(" at=%s realtime=%llu", r->sub ? "finalize" : "init", (unsigned long long)r->aux);
        break;
    case MMT_END:
        printf(" records=%llu", (unsigned long long)r->aux);
        break;
    case MMT_CANCEL:
    case MMT_REQFREE:
        printf(" req=%llu", (unsigned long long)r->req);
        break;
    default:
        printf(" comm=%s", mmt_comm_str(r->comm, b, sizeof b));
        break;
    }
    switch (r->type) {
    case MMT_SEND:
    case MMT_ISEND:
        put_rank("dest", r->peer, r->peer_world);
        printf(" tag=%d bytes=%llu mode=%s", r->tag, (unsigned long long)r->bytes, mmt_mode_name(r->sub));
        break;
    case MMT_RECV:
    case MMT_IRECV:
    case MMT_PROBE:
    case MMT_IPROBE:
    case MMT_MPROBE:
    case MMT_IMPROBE:
        put_rank("src", r->peer, r->peer_world);
        printf(" tag=%s", tag_str(r->tag, b, sizeof b));
        if (r->type == MMT_IPROBE || r->type == MMT_IMPROBE)
            printf(" found=%d", found);
        if (r->type == MMT_RECV)
            printf(" bytes=%llu got_bytes=%llu", (unsigned long long)r->bytes, (unsigned long long)r->aux);
        else if (r->type == MMT_IRECV)
            printf(" bytes=%llu", (unsigned long long)r->bytes);
        else if (found || r->type == MMT_PROBE || r->type == MMT_MPROBE)
            printf(" got_bytes=%llu", (unsigned long long)r->bytes);
        if (r->type != MMT_IRECV && (found || r->type == MMT_RECV || r->type == MMT_PROBE || r->type == MMT_MPROBE))
            put_actual(r);
        break;
    case MMT_MRECV:
    case MMT_IMRECV:
        printf(" msg=%llu", (unsigned long long)r->aux);
        if (r->type == MMT_MRECV) {
            printf(" got_bytes=%llu", (unsigned long long)r->bytes);
            put_actual(r);
        }
        break;
    case MMT_COMPLETE:
        printf(" of=%s", mmt_type_name(r->sub));
        if (r->flags & MMT_F_CANCELLED)
            printf(" cancelled");
        else if (r->sub == MMT_IRECV || r->sub == MMT_IMRECV) {
            printf(" got_bytes=%llu", (unsigned long long)r->bytes);
            put_actual(r);
        }
        break;
    case MMT_COLL:
    case MMT_ICOLL:
        printf(" op=%s", mmt_coll_name(r->sub));
        if (r->peer != MMT_NONE)
            put_rank("root", r->peer, r->peer_world);
        printf(" bytes=%llu recv_bytes=%llu", (unsigned long long)r->bytes, (unsigned long long)r->aux);
        if (r->tag > 0)
            printf(" elem=%d", (int)r->tag);
        if (r->src == MMT_OP_COMMUTATIVE || r->src == MMT_OP_NONCOMMUTATIVE)
            printf(" commutative=%d", r->src == MMT_OP_COMMUTATIVE);
        break;
    default:
        break;
    }
    if (r->req && r->type != MMT_CANCEL && r->type != MMT_REQFREE)
        printf(" %s=%llu", r->type == MMT_MPROBE || r->type == MMT_IMPROBE ? "msg" : "req",
               (unsigned long long)r->req);
    put_flags(r);
    putchar('\n');
}

static void print_header(const mmt_reader *rd)
{
    const mmt_header *h = mmt_header_of(rd);
    static const char *const levels[] = { "single", "funneled", "serialized", "multiple" };
    printf("# trace %s: rank %d of %d, mpi %s (%s), host %s, pid %u, threads %s, pvars %s\n",
           mmt_path(rd), h->rank, h->size, h->mpi, h->libver, h->host, h->pid,
           levels[h->thread_level], (h->flags & MMT_HF_PVARS) ? "yes" : "no");
    printf("# t0 %llu ns (monotonic), realtime %llu ns\n", (unsigned long long)h->t0,
           (unsigned long long)h->t0_real);
}

static int dump(const char *path, int summary)
{
    char err[512];
    mmt_reader *rd;
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        cli_error("%s: is a directory; give its trace files (%s/rank-*.mmt)", path, path);
        return CLI_USAGE;
    }
    int rc = mmt_open(&rd, path, err, sizeof err);
    if (rc) {
        cli_error("%s", err);
        return rc == MMT_ENOMEM ? CLI_FAIL : CLI_USAGE;
    }
    print_header(rd);
    uint64_t count[MMT_TYPE_MAX + 1] = { 0 };
    mmt_record r;
    while ((rc = mmt_next(rd, &r, err, sizeof err)) > 0) {
        count[r.type]++;
        if (!summary)
            print_record(rd, &r);
        else if (r.type == MMT_COMM) {
            printf("#");
            print_comm(rd, &r);
            putchar('\n');
        }
    }
    if (rc < 0) {
        fflush(stdout);
        cli_error("%s", err);
        mmt_close(rd);
        return rc == MMT_ENOMEM ? CLI_FAIL : CLI_USAGE;
    }
    if (summary) {
        printf("# counts");
        for (int t = 1; t <= MMT_TYPE_MAX; t++)
            if (count[t])
                printf(" %s=%llu", mmt_type_name(t), (unsigned long long)count[t]);
        putchar('\n');
    }
    if (mmt_warning(rd)) {
        fflush(stdout);
        fprintf(stderr, "%s: warning: %s\n", cli_prog, mmt_warning(rd));
    }
    mmt_close(rd);
    return CLI_OK;
}

int main(int argc, char **argv)
{
    cli_init("mpimatch-trace-dump");
    int summary = 0, nfiles = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(usage, stdout);
            return CLI_OK;
        }
        if (strcmp(argv[i], "--summary") == 0)
            summary = 1;
        else if (argv[i][0] == '-') {
            cli_error("unknown option '%s' (try --help)", argv[i]);
            return CLI_USAGE;
        } else
            nfiles++;
    }
    if (nfiles == 0) {
        cli_error("no trace file given (try --help)");
        return CLI_USAGE;
    }
    int worst = CLI_OK;
    for (int i = 1; i < argc; i++) {
        if (argv[i][0] == '-')
            continue;
        int rc = dump(argv[i], summary);
        if (rc > worst)
            worst = rc;
    }
    if (cli_flush_stdout())
        return CLI_FAIL;
    return worst;
}

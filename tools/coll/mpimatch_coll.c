/*
 * mpimatch_coll.c - `mpimatch-coll`: show the point-to-point transfers of
 * one collective call as mpimatch expands it (tools/coll/coll_algo.h,
 * docs/collectives.md): the algorithm and the selection rule that picked
 * it, then every transfer, or the messages and bytes per (src, dst) pair
 * (what Open MPI's pml monitoring counts; tests/python/test_coll_oracle.py).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "coll_algo.h"
#include "json.h"
#include "stream.h"

static const char usage[] =
    "usage: mpimatch-coll --op OP --n N --bytes B [--elem E] [--root R]\n"
    "                     [--alg NAME|auto] [--lib openmpi|mpich] [--noncommutative]\n"
    "                     [--sub ALG,ALG] [--pairs] [--json]\n"
    "\n"
    "Prints what one collective call sends as point-to-point messages, as mpimatch\n"
    "expands it: the algorithm (with --alg auto, the one the library's selection\n"
    "rule picks, and that rule), then every transfer: step, src, dst, bytes,\n"
    "blocks carried, what the receiver does with them (mode) and the tag Open MPI\n"
    "gives it (first nonblocking collective on the communicator for i* operations).\n"
    "\n"
    "  --op OP             the operation: barrier, bcast, reduce, allreduce, gather,\n"
    "                      gatherv, scatter, scatterv, allgather, allgatherv, alltoall,\n"
    "                      alltoallv, reduce_scatter, reduce_scatter_block, scan,\n"
    "                      exscan and the nonblocking forms (ibcast, ...)\n"
    "  --n N               communicator size (1 and up)\n"
    "  --bytes B           gather, allgather, scatter, reduce_scatter: each rank's\n"
    "                      block; alltoall: each (src, dst) block; bcast, reduce,\n"
    "                      allreduce, scan, exscan: the whole vector; barrier: ignored\n"
    "                      (default 0)\n"
    "  --elem E            bytes per element (the datatype's size); algorithms that\n"
    "                      cut the vector cut it between elements (default 1)\n"
    "  --root R            root of bcast, reduce, gather, scatter (default 0)\n"
    "  --alg NAME|auto     the algorithm (default auto: the library's rule for the\n"
    "                      call, see --lib); an unknown name lists the valid ones\n"
    "  --lib L             whose rules auto follows: openmpi (default) or mpich\n"
    "  --noncommutative    the reduction's operator is not commutative (auto only)\n"
    "  --sub A,B           algorithms of the two collectives of a composite algorithm\n"
    "                      (auto: the documented ones)\n"
    "  --pairs             instead of the transfers, the messages and bytes sent\n"
    "                      from each src to each dst (sorted by src, then dst)\n"
    "  --json              the same as JSON, for scripts\n"
    "  --help              this text\n"
    "\n"
    "Example: mpimatch-coll --op bcast --n 8 --bytes 4096 --pairs\n"
    "\n"
    CLI_EXIT_STATUS_1 CLI_EXIT_STATUS_2 ";\n"
    "     an unknown operation or algorithm, or a call the algorithm cannot do\n";

typedef struct args {
    mm_coll_query q;
    mm_coll_desc  d;
    int alg_auto, pairs, json;
} args;

static const char *const mode_names[] = {"copy", "reduce", "sync", "prefix", "forward"};

static const char *lib_name(int lib)
{
    return lib == MM_COLL_LIB_MPICH ? "mpich" : "openmpi";
}

/* The valid algorithms of op, comma separated, into buf. */
static void valid_list(int op, char *buf, size_t len)
{
    size_t at = 0;
    buf[0] = '\0';
    for (int a = 1; a < MM_ALG_COUNT && at < len; a++)
        if (mm_coll_alg_valid(op, a))
            at += (size_t)snprintf(buf + at, len - at, "%s%s", at ? ", " : "",
                                   mm_coll_alg_name(a));
}

/* One algorithm name for op into *alg (auto allowed when allow_auto). */
static int parse_alg(int op, const char *what, const char *name, int allow_auto, int *alg)
{
    int a = mm_coll_alg_from_name(name);
    if (a == MM_ALG_AUTO && allow_auto) {
        *alg = a;
        return 0;
    }
    if (a > MM_ALG_AUTO && mm_coll_alg_valid(op, a)) {
        *alg = a;
        return 0;
    }
    char list[512];
    valid_list(op, list, sizeof list);
    cli_error("%s: '%s' is not an algorithm of %s (valid: %s%s)", what, name,
              mm_coll_name(op), allow_auto ? "auto, " : "", list[0] ? list : "none");
    return -1;
}

/* --sub A,B: each an algorithm name or auto (kept as names: checked against
 * the op of each phase by mm_coll_check). */
static int parse_sub(const char *v, int sub[2])
{
    char buf[128];
    const char *comma = strchr(v, ',');
    if (!comma || strchr(comma + 1, ',') || (size_t)(comma - v) >= sizeof buf) {
        cli_error("--sub: '%s' is not two algorithm names separated by a comma", v);
        return -1;
    }
    memcpy(buf, v, (size_t)(comma - v));
    buf[comma - v] = '\0';
    const char *names[2] = {buf, comma + 1};
    for (int i = 0; i < 2; i++) {
        sub[i] = mm_coll_alg_from_name(names[i]);
        if (sub[i] < 0) {
            cli_error("--sub: unknown algorithm '%s'", names[i]);
            return -1;
        }
    }
    return 0;
}

/* Returns 0 to go on, -1 after --help, or an exit code. */
static int parse_args(int argc, char **argv, args *a)
{
    memset(a, 0, sizeof *a);
    const char *op = NULL, *alg = "auto", *lib = "openmpi", *sub = NULL;
    int64_t n = -1, bytes = 0, elem = 1, root = 0;
    for (int i = 1; i < argc; i++) {
        const char *v, *arg = argv[i];
        int r;
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            fputs(usage, stdout);
            return -1;
        } else if (strcmp(arg, "--pairs") == 0) {
            a->pairs = 1;
        } else if (strcmp(arg, "--json") == 0) {
            a->json = 1;
        } else if (strcmp(arg, "--noncommutative") == 0) {
            a->q.noncommutative = 1;
        } else if ((r = cli_opt(argc, argv, &i, "--op", &v)) != 0) {
            if (r < 0)
                return CLI_USAGE;
            op = v;
        } else if ((r = cli_opt(argc, argv, &i, "--alg", &v)) != 0) {
            if (r < 0)
                return CLI_USAGE;
            alg = v;
        } else if ((r = cli_opt(argc, argv, &i, "--lib", &v)) != 0) {
            if (r < 0)
                return CLI_USAGE;
            lib = v;
        } else if ((r = cli_opt(argc, argv, &i, "--sub", &v)) != 0) {
            if (r < 0)
                return CLI_USAGE;
            sub = v;
        } else if ((r = cli_opt_int(argc, argv, &i, "--n", 1, MM_COLL_MAX_N, &n)) != 0 ||
                   (r = cli_opt_int(argc, argv, &i, "--bytes", 0, INT64_MAX, &bytes)) != 0 ||
                   (r = cli_opt_int(argc, argv, &i, "--elem", 1, UINT32_MAX, &elem)) != 0 ||
                   (r = cli_opt_int(argc, argv, &i, "--root", 0, MM_COLL_MAX_N - 1, &root)) != 0) {
            if (r < 0)
                return CLI_USAGE;
        } else {
            cli_error("unknown argument '%s' (try --help)", arg);
            return CLI_USAGE;
        }
    }
    if (!op || n < 0) {
        cli_error("--op and --n are required (try --help)");
        return CLI_USAGE;
    }
    int o = mm_coll_from_name(op);
    if (o <= MM_COLL_NONE || mm_coll_family(o) < 0) {
        cli_error("--op: '%s' is not a collective operation (try --help)", op);
        return CLI_USAGE;
    }
    if (strcmp(lib, "openmpi") == 0)
        a->q.lib = MM_COLL_LIB_OMPI;
    else if (strcmp(lib, "mpich") == 0)
        a->q.lib = MM_COLL_LIB_MPICH;
    else {
        cli_error("--lib: '%s' is not openmpi or mpich", lib);
        return CLI_USAGE;
    }
    int al;
    if (parse_alg(o, "--alg", alg, 1, &al))
        return CLI_USAGE;
    if (sub && parse_sub(sub, a->d.sub))
        return CLI_USAGE;
    a->alg_auto = al == MM_ALG_AUTO;
    a->q.op = a->d.op = o;
    a->q.n = a->d.n = (int32_t)n;
    a->q.bytes = a->d.bytes = (uint64_t)bytes;
    a->q.elem = a->d.elem = (uint32_t)elem;
    a->d.root = (int32_t)root;
    a->d.alg = al;
    return 0;
}

/* ---- per-pair totals ---- */

typedef struct pair {
    int32_t src, dst;
    uint64_t msgs, bytes;
} pair;

static int pair_cmp(const void *pa, const void *pb)
{
    const pair *x = pa, *y = pb;
    if (x->src != y->src)
        return x->src < y->src ? -1 : 1;
    return (x->dst > y->dst) - (x->dst < y->dst);
}

/* The transfers summed per (src, dst), sorted, into a malloc'd array. */
static pair *sum_pairs(const mm_coll_xfer *x, size_t nx, size_t *np)
{
    pair *p = malloc((nx ? nx : 1) * sizeof *p);
    if (!p)
        return NULL;
    for (size_t i = 0; i < nx; i++)
        p[i] = (pair){x[i].src, x[i].dst, 1, x[i].bytes};
    qsort(p, nx, sizeof *p, pair_cmp);
    size_t k = 0;
    for (size_t i = 0; i < nx; i++) {
        if (k && p[k - 1].src == p[i].src && p[k - 1].dst == p[i].dst) {
            p[k - 1].msgs++;
            p[k - 1].bytes += p[i].bytes;
        } else {
            p[k++] = p[i];
        }
    }
    *np = k;
    return p;
}

/* ---- output ---- */

static void print_text(const args *a, const mm_coll_choice *c, const mm_coll_xfer *x,
                       size_t nx, const pair *p, size_t np)
{
    const mm_coll_desc *d = &a->d;
    printf("operation %s  n %ld  bytes %llu  elem %lu  root %ld\n", mm_coll_name(d->op),
           (long)d->n, (unsigned long long)d->bytes, (unsigned long)d->elem, (long)d->root);
    printf("algorithm %s", mm_coll_alg_name(d->alg));
    if (d->sub[0] || d->sub[1])
        printf(" (sub %s, %s)", mm_coll_alg_name(d->sub[0]), mm_coll_alg_name(d->sub[1]));
    if (a->alg_auto)
        printf("\nrule      %s: %s%s", lib_name(a->q.lib), c->rule,
               c->substitute ? "  [substitute: the library runs another algorithm]" : "");
    else
        printf("\nrule      forced with --alg");
    printf("\n");
    if (a->pairs) {
        printf("%6s %6s %8s %12s\n", "src", "dst", "messages", "bytes");
        for (size_t i = 0; i < np; i++)
            printf("%6ld %6ld %8llu %12llu\n", (long)p[i].src, (long)p[i].dst,
                   (unsigned long long)p[i].msgs, (unsigned long long)p[i].bytes);
        printf("%zu pair(s), %zu message(s)\n", np, nx);
        return;
    }
    printf("%5s %6s %6s %12s %6s %6s %7s %6s\n", "step", "src", "dst", "bytes", "blk", "nblk",
           "mode", "tag");
    for (size_t i = 0; i < nx; i++)
        printf("%5lu %6ld %6ld %12llu %6lu %6lu %7s %6ld\n", (unsigned long)x[i].step,
               (long)x[i].src, (long)x[i].dst, (unsigned long long)x[i].bytes,
               (unsigned long)x[i].blk, (unsigned long)x[i].nblk,
               x[i].mode < sizeof mode_names / sizeof *mode_names ? mode_names[x[i].mode] : "?", (long)mm_coll_xfer_tag(&x[i], 0));
    printf("%zu transfer(s)\n", nx);
}

static int print_json(const args *a, const mm_coll_choice *c, const mm_coll_xfer *x,
                      size_t nx, const pair *p, size_t np)
{
    const mm_coll_desc *d = &a->d;
    mmj j;
    mmj_init(&j, stdout);
    mmj_obj(&j);
    mmj_kstr(&j, "op", mm_coll_name(d->op));
    mmj_ki64(&j, "n", d->n);
    mmj_ku64(&j, "bytes", d->bytes);
    mmj_ku64(&j, "elem", d->elem);
    mmj_ki64(&j, "root", d->root);
    mmj_kstr(&j, "lib", lib_name(a->q.lib));
    mmj_kstr(&j, "alg", mm_coll_alg_name(d->alg));
    mmj_key(&j, "sub");
    mmj_arr(&j);
    mmj_str(&j, mm_coll_alg_name(d->sub[0]));
    mmj_str(&j, mm_coll_alg_name(d->sub[1]));
    mmj_arr_end(&j);
    mmj_key(&j, "auto");
    mmj_bool(&j, a->alg_auto);
    mmj_kstr(&j, "rule", a->alg_auto ? c->rule : NULL);
    mmj_key(&j, "substitute");
    mmj_bool(&j, a->alg_auto && c->substitute);
    mmj_ku64(&j, "messages", nx);
    if (a->pairs) {
        mmj_key(&j, "pairs");
        mmj_arr(&j);
        for (size_t i = 0; i < np; i++) {
            mmj_obj(&j);
            mmj_ki64(&j, "src", p[i].src);
            mmj_ki64(&j, "dst", p[i].dst);
            mmj_ku64(&j, "msgs", p[i].msgs);
            mmj_ku64(&j, "bytes", p[i].bytes);
            mmj_obj_end(&j);
        }
    } else {
        mmj_key(&j, "transfers");
        mmj_arr(&j);
        for (size_t i = 0; i < nx; i++) {
            mmj_obj(&j);
            mmj_ku64(&j, "step", x[i].step);
            mmj_ki64(&j, "src", x[i].src);
            mmj_ki64(&j, "dst", x[i].dst);
            mmj_ku64(&j, "bytes", x[i].bytes);
            mmj_ku64(&j, "blk", x[i].blk);
            mmj_ku64(&j, "nblk", x[i].nblk);
            mmj_kstr(&j, "mode", x[i].mode < sizeof mode_names / sizeof *mode_names ? mode_names[x[i].mode] : "?");
            mmj_ki64(&j, "tag", mm_coll_xfer_tag(&x[i], 0));
            mmj_obj_end(&j);
        }
    }
    mmj_arr_end(&j);
    mmj_obj_end(&j);
    return mmj_finish(&j);
}

static int run(args *a)
{
    char err[512];
    mm_coll_choice c = {0, {0, 0}, NULL, 0};
    if (a->alg_auto) {
        c = mm_coll_select(&a->q);
        if (c.alg == MM_ALG_AUTO) {
            cli_error("%s: %s", mm_coll_name(a->d.op), c.rule);
            return CLI_USAGE;
        }
        a->d.alg = c.alg;
        /* --sub overrides the rule's phase algorithms */
        if (!a->d.sub[0] && !a->d.sub[1]) {
            a->d.sub[0] = c.sub[0];
            a->d.sub[1] = c.sub[1];
        }
    }
    if (mm_coll_check(&a->d, err, sizeof err) != MMS_OK) {
        cli_error("%s", err);
        return CLI_USAGE;
    }
    mm_coll_xfer *x = NULL;
    size_t nx = 0, np = 0;
    int r = mm_coll_expand_array(&a->d, &x, &nx, err, sizeof err);
    if (r != MMS_OK) {
        cli_error("%s", err);
        return r == MMS_ENOMEM ? CLI_FAIL : CLI_USAGE;
    }
    pair *p = NULL;
    if (a->pairs && !(p = sum_pairs(x, nx, &np))) {
        free(x);
        cli_error("out of memory");
        return CLI_FAIL;
    }
    int rc = CLI_OK;
    if (a->json)
        rc = print_json(a, &c, x, nx, p, np) ? CLI_FAIL : CLI_OK;
    else
        print_text(a, &c, x, nx, p, np);
    if (cli_flush_stdout())
        rc = CLI_FAIL;
    free(p);
    free(x);
    return rc;
}

int main(int argc, char **argv)
{
    cli_init("mpimatch-coll");
    args a;
    int r = parse_args(argc, argv, &a);
    if (r < 0)
        return CLI_OK;
    if (r > 0)
        return r;
    return run(&a);
}

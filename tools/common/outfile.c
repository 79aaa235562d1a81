/*
 * outfile.c - atomic output files (see outfile.h).
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "outfile.h"

/* Temporary files not yet committed, for the exit and signal cleanup.
 * A tool has at most a couple of outputs. */
#define MAX_PENDING 8
static char *volatile pending[MAX_PENDING];
static int cleanup_installed;

static void unlink_pending(void)
{
    for (int i = 0; i < MAX_PENDING; i++) {
        char *p = pending[i];
        if (p)
            unlink(p); /* async-signal-safe */
    }
}

static void on_signal(int sig)
{
    unlink_pending();
    signal(sig, SIG_DFL);
    raise(sig);
}

static void install_cleanup(void)
{
    if (cleanup_installed)
        return;
    cleanup_installed = 1;
    atexit(unlink_pending);
    int sigs[] = { SIGINT, SIGTERM, SIGHUP };
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sigemptyset(&sa.sa_mask);
        sigaction(sigs[i], &sa, NULL);
    }
}

static void track(char *tmp, int on)
{
    for (int i = 0; i < MAX_PENDING; i++) {
        if (on && !pending[i]) {
            pending[i] = tmp;
            return;
        }
        if (!on && pending[i] == tmp) {
            pending[i] = NULL;
            return;
        }
    }
}

int mm_outfile_open(mm_outfile *o, const char *path, char *err, size_t errlen)
{
    memset(o, 0, sizeof *o);
    o->path = path;
    if (strcmp(path, "-") == 0) {
        o->f = stdout;
        return 0;
    }
    struct stat st;
    if (path[0] == '\0' || (stat(path, &st) == 0 && S_ISDIR(st.st_mode))) {
        snprintf(err, errlen, "cannot write '%s': %s", path, path[0] ? "it is a directory" : "empty path");
        return -1;
    }
    install_cleanup();
    size_t n = strlen(path) + 32;
    o->tmp = malloc(n);
    if (!o->tmp) {
        snprintf(err, errlen, "cannot write '%s': out of memory", path);
        return -1;
    }
    snprintf(o->tmp, n, "%s.tmp.%ld", path, (long)getpid());
    /* "x": never follow or reuse an existing file at the temporary path. */
    o->f = fopen(o->tmp, "wbx");
    if (!o->f) {
        snprintf(err, errlen, "cannot write '%s': %s", path, strerror(errno));
        free(o->tmp);
        o->tmp = NULL;
        return -1;
    }
    track(o->tmp, 1);
    return 0;
}

int mm_outfile_commit(mm_outfile *o, char *err, size_t errlen)
{
    if (!o->f) {
        snprintf(err, errlen, "cannot write '%s': not open", o->path ? o->path : "?");
        return -1;
    }
    if (!o->tmp) { /* stdout */
        int bad = fflush(o->f) != 0 || ferror(o->f);
        o->f = NULL;
        if (bad)
            snprintf(err, errlen, "error writing standard output: %s", strerror(errno));
        return bad ? -1 : 0;
    }
    int bad = ferror(o->f);
    int saved = errno;
    if (fclose(o->f) != 0 && !bad) {
        bad = 1;
        saved = errno;
    }
    o->f = NULL;
    if (!bad && rename(o->tmp, o->path) != 0) {
        bad = 1;
        saved = errno;
    }
    if (bad) {
        snprintf(err, errlen, "cannot write '%s': %s", o->path, strerror(saved ? saved : EIO));
        unlink(o->tmp);
    }
    track(o->tmp, 0);
    free(o->tmp);
    o->tmp = NULL;
    return bad ? -1 : 0;
}

void mm_outfile_abort(mm_outfile *o)
{
    if (o->tmp) {
        if (o->f)
            fclose(o->f);
        unlink(o->tmp);
        track(o->tmp, 0);
        free(o->tmp);
        o->tmp = NULL;
    }
    o->f = NULL;
}

/*
 * outfile.c - atomic output files (see outfile.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
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
    /* SIGPIPE too: a reader of standard output that goes away (| head)
     * kills the tool as ever, but not before its temporary files are gone.
     * A signal the caller ignores (nohup's SIGHUP) stays ignored. */
    int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE };
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        struct sigaction sa, old;
        if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
            continue;
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

/* Names of an already open descriptor: written in place, appended to. */
static const char *const stream_prefixes[] = { "/dev/stdout", "/dev/stderr", "/dev/fd/", "/proc/self/fd/" };

/* path made absolute and "." / ".." / "//" folded away lexically (symlinks
 * are not resolved), into buf; 0, or -1 when it does not fit. */
static int lexical_abspath(const char *path, char *buf, size_t len)
{
    char tmp[PATH_MAX];
    if (path[0] == '/') {
        if (strlen(path) >= sizeof tmp)
            return -1;
        strcpy(tmp, path);
    } else {
        if (!getcwd(tmp, sizeof tmp) || strlen(tmp) + 1 + strlen(path) >= sizeof tmp)
            return -1;
        strcat(tmp, "/");
        strcat(tmp, path);
    }
    size_t n = 0;
    char *save = NULL;
    for (char *part = strtok_r(tmp, "/", &save); part; part = strtok_r(NULL, "/", &save)) {
        if (strcmp(part, ".") == 0)
            continue;
        if (strcmp(part, "..") == 0) {
            while (n > 0 && buf[n - 1] != '/')
                n--;
            if (n > 0)
                n--; /* the slash */
            continue;
        }
        size_t pl = strlen(part);
        if (n + 1 + pl + 1 > len)
            return -1;
        buf[n++] = '/';
        memcpy(buf + n, part, pl);
        n += pl;
    }
    if (n == 0) {
        if (len < 2)
            return -1;
        buf[n++] = '/';
    }
    buf[n] = '\0';
    return 0;
}

static int is_stream_name(const char *path)
{
    char abs[PATH_MAX];
    if (lexical_abspath(path, abs, sizeof abs))
        return 0;
    for (size_t i = 0; i < sizeof stream_prefixes / sizeof stream_prefixes[0]; i++) {
        const char *p = stream_prefixes[i];
        size_t pl = strlen(p);
        if (p[pl - 1] == '/' ? strncmp(abs, p, pl) == 0 && abs[pl] != '\0' : strcmp(abs, p) == 0)
            return 1;
    }
    return 0;
}

int mm_outfile_writes_through(const char *path)
{
    if (strcmp(path, "-") == 0 || is_stream_name(path))
        return 1;
    struct stat st;
    if (stat(path, &st) != 0) /* follows symlinks */
        return 0;
    return !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

/* The file a chain of symlinks at path ends at (path itself when it is
 * none), malloc'd; a link's relative target is taken from the link's
 * directory. A dangling link gives the missing file it names, which is
 * then created. NULL with errno set on failure (ELOOP after 40 links). */
static char *follow_links(const char *path)
{
    char *cur = strdup(path);
    for (int hops = 0; cur; hops++) {
        struct stat st;
        if (lstat(cur, &st) != 0 || !S_ISLNK(st.st_mode))
            return cur; /* not a link, or missing: the final name */
        if (hops == 40) {
            free(cur);
            errno = ELOOP;
            return NULL;
        }
        char link[PATH_MAX];
        ssize_t n = readlink(cur, link, sizeof link - 1);
        if (n < 0 || (size_t)n >= sizeof link - 1) {
            free(cur);
            if (n >= 0)
                errno = ENAMETOOLONG;
            return NULL;
        }
        link[n] = '\0';
        char *next;
        const char *slash = strrchr(cur, '/');
        if (link[0] == '/' || !slash) {
            next = strdup(link);
        } else {
            size_t dl = (size_t)(slash - cur) + 1;
            next = malloc(dl + (size_t)n + 1);
            if (next) {
                memcpy(next, cur, dl);
                memcpy(next + dl, link, (size_t)n + 1);
            }
        }
        free(cur);
        cur = next;
    }
    errno = ENOMEM;
    return NULL;
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
    int exists = path[0] != '\0' && stat(path, &st) == 0; /* follows symlinks */
    if (path[0] == '\0' || (exists && S_ISDIR(st.st_mode))) {
        snprintf(err, errlen, "cannot write '%s': %s", path, path[0] ? "it is a directory" : "empty path");
        return -1;
    }
    int stream = is_stream_name(path);
    if (stream || (exists && !S_ISREG(st.st_mode))) {
        /* Write straight through; never create, truncate or replace. */
        int fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC | (stream ? O_APPEND : 0));
        if (fd < 0 || !(o->f = fdopen(fd, "wb"))) {
            snprintf(err, errlen, "cannot write '%s': %s", path, strerror(errno));
            if (fd >= 0)
                close(fd);
            return -1;
        }
        o->through = 1;
        return 0;
    }
    install_cleanup();
    o->target = follow_links(path);
    size_t n = o->target ? strlen(o->target) + 32 : 0;
    o->tmp = o->target ? malloc(n) : NULL;
    if (!o->tmp) {
        snprintf(err, errlen, "cannot write '%s': %s", path, o->target ? "out of memory" : strerror(errno));
        free(o->target);
        o->target = NULL;
        return -1;
    }
    snprintf(o->tmp, n, "%s.tmp.%ld", o->target, (long)getpid());
    /* "x": never follow or reuse an existing file at the temporary path. */
    o->f = fopen(o->tmp, "wbx");
    if (!o->f) {
        snprintf(err, errlen, "cannot write '%s': %s", path, strerror(errno));
        free(o->tmp);
        free(o->target);
        o->tmp = o->target = NULL;
        return -1;
    }
    track(o->tmp, 1);
    /* Replacing a regular file keeps its permission bits (as sed -i does): a
     * file made private (0600) must not come back readable by all. A new file
     * gets the umask's default, as fopen gives it. */
    if (exists && fchmod(fileno(o->f), st.st_mode & 07777) != 0) {
        snprintf(err, errlen, "cannot write '%s': %s", path, strerror(errno));
        mm_outfile_abort(o);
        return -1;
    }
    return 0;
}

int mm_outfile_commit(mm_outfile *o, char *err, size_t errlen)
{
    if (!o->f) {
        snprintf(err, errlen, "cannot write '%s': not open", o->path ? o->path : "?");
        return -1;
    }
    if (!o->tmp) { /* stdout or write-through */
        errno = 0;
        int bad = fflush(o->f) != 0 || ferror(o->f);
        int saved = errno;
        int through = o->through;
        if (through && fclose(o->f) != 0 && !bad) {
            bad = 1;
            saved = errno;
        }
        o->f = NULL;
        o->through = 0;
        if (bad && !through) {
            snprintf(err, errlen, "error writing standard output%s%s", saved ? ": " : "",
                     saved ? strerror(saved) : "");
            cli_stdout_reported();
        } else if (bad) {
            snprintf(err, errlen, "cannot write '%s'%s%s", o->path, saved ? ": " : "",
                     saved ? strerror(saved) : "");
        }
        return bad ? -1 : 0;
    }
    int bad = ferror(o->f);
    int saved = 0; /* the reason of an earlier failed write is not known here */
    if (fclose(o->f) != 0 && !bad) {
        bad = 1;
        saved = errno;
    }
    o->f = NULL;
    if (!bad && rename(o->tmp, o->target) != 0) {
        bad = 1;
        saved = errno;
    }
    if (bad) {
        snprintf(err, errlen, "cannot write '%s'%s%s", o->path, saved ? ": " : "",
                 saved ? strerror(saved) : "");
        unlink(o->tmp);
    }
    track(o->tmp, 0);
    free(o->tmp);
    free(o->target);
    o->tmp = o->target = NULL;
    return bad ? -1 : 0;
}

int mm_outfile_fail(mm_outfile *o, char *err, size_t errlen)
{
    int saved = errno ? errno : EIO;
    const char *path = o->path ? o->path : "?";
    if (o->f == stdout && !o->tmp) {
        snprintf(err, errlen, "error writing standard output: %s", strerror(saved));
        cli_stdout_reported();
    } else {
        snprintf(err, errlen, "cannot write '%s': %s", path, strerror(saved));
    }
    mm_outfile_abort(o);
    return -1;
}

void mm_outfile_abort(mm_outfile *o)
{
    if (o->tmp) {
        if (o->f)
            fclose(o->f);
        unlink(o->tmp);
        track(o->tmp, 0);
        free(o->tmp);
        free(o->target);
        o->tmp = o->target = NULL;
    } else if (o->through && o->f) {
        fclose(o->f);
    }
    o->through = 0;
    o->f = NULL;
}

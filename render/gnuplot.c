/* gnuplot.c: escaping for gnuplot scripts and data files, and running
 * gnuplot as a child process (see gnuplot.h). */
#define _GNU_SOURCE /* pipe2 */
#include "render/gnuplot.h"
#include "common/error.h"
#include "render/render.h"
#include "render/text.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

static void quote(pdb_buf *b, const char *s, bool format)
{
    pdb_buf t = PDB_BUF_INIT; /* valid text, controls as spaces (text.h) */
    pdb_text_plain(&t, s);
    pdb_buf_addc(b, '\'');
    for (const char *p = pdb_buf_str(&t); *p; p++) {
        if (*p == '\'')
            pdb_buf_adds(b, "''");
        else if (*p == '%' && format)
            pdb_buf_adds(b, "%%");
        else
            pdb_buf_addc(b, *p);
    }
    pdb_buf_addc(b, '\'');
    pdb_buf_free(&t);
}

void pdb_gp_quote(pdb_buf *b, const char *s)
{
    quote(b, s, false);
}

void pdb_gp_quote_tic(pdb_buf *b, const char *s)
{
    quote(b, s, true);
}

void pdb_gp_quote_file(FILE *out, const char *s)
{
    pdb_buf b = PDB_BUF_INIT;
    pdb_gp_quote(&b, s);
    fputs(pdb_buf_str(&b), out);
    pdb_buf_free(&b);
}

void pdb_gp_data_label(pdb_buf *b, const char *s, size_t max_width)
{
    /* Cut first so the escapes are never split. */
    pdb_buf t = PDB_BUF_INIT;
    pdb_text_plain(&t, s);
    size_t cap = t.len * 3 + 8;
    char *cut = malloc(cap);
    if (!cut)
        abort();
    pdb_ellipsize(pdb_buf_str(&t), max_width, cut, cap);
    pdb_buf_free(&t);
    pdb_buf_addc(b, '"');
    if (!*cut)
        pdb_buf_addc(b, '-');
    for (const char *p = cut; *p; p++) {
        if (*p == '"')
            pdb_buf_addc(b, '\'');
        else if (*p == '\\')
            pdb_buf_adds(b, "\\\\");
        else
            pdb_buf_addc(b, *p);
    }
    pdb_buf_addc(b, '"');
    free(cut);
}

/* The child changes directory before exec: a relative path must not move. */
static bool absolute(char *path, size_t cap)
{
    char *abs = realpath(path, NULL);
    if (!abs)
        return false;
    bool fits = strlen(abs) < cap;
    if (fits)
        snprintf(path, cap, "%s", abs);
    free(abs);
    return fits;
}

bool pdb_gp_find(char *path, size_t cap)
{
    const char *env = getenv("PROFDB_GNUPLOT");
    if (env) {
        snprintf(path, cap, "%s", env);
        return *env && access(env, X_OK) == 0 && absolute(path, cap);
    }
    const char *p = getenv("PATH");
    if (!p)
        p = "/usr/local/bin:/usr/bin:/bin";
    while (*p) {
        size_t n = strcspn(p, ":");
        /* An empty PATH entry means the current directory. */
        int len = snprintf(path, cap, "%.*s/gnuplot", (int)n, n ? p : ".");
        if (len > 0 && (size_t)len < cap && access(path, X_OK) == 0 && absolute(path, cap))
            return true;
        p += n + (p[n] == ':');
    }
    return false;
}

/* First non-empty line of gnuplot's error output, for the message. */
static void first_line(const char *s, char *out, size_t cap)
{
    while (*s == '\n' || *s == ' ')
        s++;
    size_t n = strcspn(s, "\n");
    snprintf(out, cap, "%.*s", (int)(n < cap ? n : cap - 1), s);
}

/* In the child: stdout to /dev/null, stderr to the pipe, then exec. */
static void child(const char *gnuplot, const char *dir, const char *script, int errfd)
{
    int devnull = open("/dev/null", O_RDWR);
    if (devnull >= 0) {
        dup2(devnull, STDIN_FILENO);
        dup2(devnull, STDOUT_FILENO);
    }
    dup2(errfd, STDERR_FILENO);
    if (chdir(dir) != 0)
        _exit(126);
    char *const argv[] = {(char *)gnuplot, (char *)script, NULL};
    execv(gnuplot, argv);
    _exit(127);
}

int pdb_gp_start(const char *gnuplot, const char *dir, const char *script, pdb_gp_job *job)
{
    int fds[2];
    job->pid = -1;
    job->fd = -1;
    snprintf(job->script, sizeof job->script, "%s", script);
    /* Close-on-exec: a gnuplot started later holds no end of this pipe (the
     * child's dup2 onto stderr keeps its own end open across exec). */
    if (pipe2(fds, O_CLOEXEC) != 0)
        return pdb_fail("pipe: %s", strerror(errno));
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return pdb_fail("fork: %s", strerror(errno));
    }
    if (pid == 0) {
        close(fds[0]);
        child(gnuplot, dir, script, fds[1]);
    }
    close(fds[1]);
    job->pid = pid;
    job->fd = fds[0];
    return PDB_OK;
}

int pdb_gp_finish(const char *gnuplot, pdb_gp_job *job, bool report)
{
    if (job->pid < 0)
        return PDB_OK;
    char err[4096];
    size_t len = 0;
    ssize_t got;
    char sink[512];
    /* Keep the start of the message; drain the rest so gnuplot never blocks. */
    while ((got = read(job->fd, len < sizeof err - 1 ? err + len : sink,
                       len < sizeof err - 1 ? sizeof err - 1 - len : sizeof sink)) > 0 ||
           (got < 0 && errno == EINTR))
        if (got > 0 && len < sizeof err - 1)
            len += (size_t)got;
    err[len] = '\0';
    close(job->fd);
    job->fd = -1;
    int status;
    pid_t pid = job->pid;
    job->pid = -1;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return pdb_fail("waitpid: %s", strerror(errno));
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return PDB_OK;
    if (!report)
        return PDB_ERR;
    char line[300];
    first_line(err, line, sizeof line);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
        return pdb_fail("%s: cannot run %s", job->script, gnuplot);
    return pdb_fail("gnuplot %s failed%s%s", job->script, *line ? ": " : "", line);
}

int pdb_gp_run(const char *gnuplot, const char *dir, const char *script)
{
    pdb_gp_job job;
    if (pdb_gp_start(gnuplot, dir, script, &job) != PDB_OK)
        return PDB_ERR;
    return pdb_gp_finish(gnuplot, &job, true);
}

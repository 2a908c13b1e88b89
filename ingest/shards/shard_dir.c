/* shard_dir.c: making, locking and removing shard folders (see shard_dir.h).
 *
 * A shard folder is locked (flock on the folder itself) while the process
 * that made it, or a worker forked from it, is alive: the lock belongs to
 * the open folder, which the workers inherit. A later ingest or merge that
 * finds next to its target a folder nobody locks, untouched for a while,
 * removes it: its owner was killed (kill -9, a crash, a lost node) before
 * it could clean up. The age rule keeps a folder just made by another
 * process, not locked yet, out of reach.
 *
 * A name is not proof of ownership: anyone who can write next to the
 * database can plant `.profdb-shards-x` as a link to another folder, or a
 * folder of links to itself. So every step works on open folder
 * descriptors (openat with O_NOFOLLOW, fdopendir, unlinkat): nothing is
 * reached through a link, a folder is entered only when it is this user's
 * and holds the owner mark, and the walk goes one nested level deep at
 * most. Folders left by a profdb older than the mark are not removed. */
#include "ingest/shards/shard_dir.h"
#include "common/error.h"
#include "common/strbuf.h"
#include "common/strutil.h"
#include "common/xalloc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define SHARD_PREFIX ".profdb-shards-"
#define OWNER_MARK ".profdb-owner"
#define OWNER_TEXT "profdb shard folder: removed by profdb when no process holds it\n"
#define STALE_AFTER_S 60
#define MAX_NESTED 1 /* a first ingest's folder holds its --jobs folder */
#define MAX_LOCKED 4

static struct {
    char *dir;
    int fd;
} locked[MAX_LOCKED];

static void lock_dir(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return; /* unlocked: removable only once it is old, like any leftover */
    for (int i = 0; i < MAX_LOCKED; i++)
        if (!locked[i].dir) {
            if (flock(fd, LOCK_EX | LOCK_NB) != 0)
                break;
            locked[i].dir = pdb_xstrdup(dir);
            locked[i].fd = fd;
            return;
        }
    close(fd);
}

static void unlock_dir(const char *dir)
{
    for (int i = 0; i < MAX_LOCKED; i++)
        if (locked[i].dir && strcmp(locked[i].dir, dir) == 0) {
            close(locked[i].fd);
            free(locked[i].dir);
            locked[i].dir = NULL;
        }
}

/* Only names profdb gives its shard files are deleted: a folder that holds
 * anything else is left as it is. */
static bool is_shard_file(const char *name)
{
    return pdb_skip_prefix(name, "shard-", NULL) || pdb_skip_prefix(name, "merge-", NULL) ||
           pdb_skip_prefix(name, "fresh-", NULL) || strcmp(name, OWNER_MARK) == 0;
}

static bool is_own_regular(int dirfd, const char *name)
{
    struct stat st;
    return fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
           st.st_uid == geteuid();
}

/* The folder open as fd is one this user's profdb made. */
static bool is_own_folder(int fd)
{
    struct stat st;
    return fstat(fd, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == geteuid() &&
           is_own_regular(fd, OWNER_MARK);
}

static int open_folder_at(int parent_fd, const char *name)
{
    return openat(parent_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

/* Empties the shard folder open as fd (name in parent_fd) and removes it;
 * takes fd. */
static void remove_folder_fd(int parent_fd, const char *name, int fd, int depth)
{
    if (!is_own_folder(fd)) {
        close(fd);
        return;
    }
    DIR *d = fdopendir(fd);
    if (!d) {
        close(fd);
        return;
    }
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (pdb_skip_prefix(e->d_name, SHARD_PREFIX, NULL)) {
            int sub = depth < MAX_NESTED ? open_folder_at(fd, e->d_name) : -1;
            if (sub >= 0)
                remove_folder_fd(fd, e->d_name, sub, depth + 1);
        } else if (is_shard_file(e->d_name) && is_own_regular(fd, e->d_name)) {
            unlinkat(fd, e->d_name, 0);
        }
    }
    closedir(d); /* closes fd */
    unlinkat(parent_fd, name, AT_REMOVEDIR); /* fails, harmlessly, if not empty */
}

/* Removes the unlocked, old shard folders in parent. */
static void remove_stale(const char *parent)
{
    int pfd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (pfd < 0)
        return;
    DIR *d = fdopendir(dup(pfd));
    if (!d) {
        close(pfd);
        return;
    }
    struct dirent *e;
    time_t now = time(NULL);
    while ((e = readdir(d)) != NULL) {
        if (!pdb_skip_prefix(e->d_name, SHARD_PREFIX, NULL))
            continue;
        int fd = open_folder_at(pfd, e->d_name);
        struct stat st;
        if (fd < 0)
            continue;
        if (fstat(fd, &st) != 0 || now - st.st_mtime <= STALE_AFTER_S ||
            !is_own_folder(fd) || flock(fd, LOCK_EX | LOCK_NB) != 0) {
            close(fd);
            continue;
        }
        remove_folder_fd(pfd, e->d_name, fd, 0);
        if (faccessat(pfd, e->d_name, F_OK, AT_SYMLINK_NOFOLLOW) != 0)
            pdb_warn("removed %s/%s, left by an ingest or merge that was killed", parent,
                     e->d_name);
    }
    closedir(d);
    close(pfd);
}

static int write_owner_mark(const char *dir)
{
    pdb_buf p = PDB_BUF_INIT;
    pdb_buf_addf(&p, "%s/" OWNER_MARK, dir);
    int fd = open(p.p, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    bool ok = fd >= 0 && write(fd, OWNER_TEXT, sizeof OWNER_TEXT - 1) ==
                             (ssize_t)(sizeof OWNER_TEXT - 1);
    if (fd >= 0 && close(fd) != 0)
        ok = false;
    if (!ok)
        unlink(p.p);
    pdb_buf_free(&p);
    return ok ? PDB_OK : PDB_ERR;
}

static int try_mkdtemp(const char *parent, char **dir)
{
    remove_stale(parent);
    pdb_buf p = PDB_BUF_INIT;
    pdb_buf_addf(&p, "%s/" SHARD_PREFIX "XXXXXX", parent);
    if (mkdtemp(p.p)) {
        if (write_owner_mark(p.p) == PDB_OK) {
            lock_dir(p.p);
            *dir = p.p;
            return PDB_OK;
        }
        int saved = errno;
        rmdir(p.p);
        errno = saved;
    }
    pdb_buf_free(&p);
    return PDB_ERR;
}

int pdb_shard_dir_beside(const char *target, char **dir)
{
    char *parent = pdb_xstrdup(target);
    char *slash = strrchr(parent, '/');
    if (slash)
        slash[slash == parent ? 1 : 0] = '\0';
    int rc = try_mkdtemp(slash ? parent : ".", dir);
    free(parent);
    return rc;
}

int pdb_shard_dir_make(const char *target, char **dir)
{
    /* next to the target: same file system, so no space is used elsewhere */
    if (pdb_shard_dir_beside(target, dir) == PDB_OK)
        return PDB_OK;
    const char *tmp = getenv("TMPDIR");
    if (try_mkdtemp(tmp && *tmp ? tmp : "/tmp", dir) == PDB_OK)
        return PDB_OK;
    return pdb_fail("cannot create a folder for shards next to %s or in %s: %s", target,
                    tmp && *tmp ? tmp : "/tmp", strerror(errno));
}

void pdb_shard_dir_remove(const char *dir)
{
    char *parent = pdb_xstrdup(dir);
    char *slash = strrchr(parent, '/');
    const char *name = slash ? slash + 1 : dir;
    if (slash)
        slash[slash == parent ? 1 : 0] = '\0';
    int pfd = open(slash ? parent : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int fd = pfd >= 0 ? open_folder_at(pfd, name) : -1;
    if (fd >= 0)
        remove_folder_fd(pfd, name, fd, 0);
    if (pfd >= 0)
        close(pfd);
    unlock_dir(dir);
    free(parent);
}

/* files.c: creating the files of an output folder safely (see files.h). */
#include "render/files.h"
#include "common/error.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int pdb_out_dir(const char *dir)
{
    struct stat sb;
    if (mkdir(dir, 0777) == 0)
        return PDB_OK;
    if (errno == EEXIST && stat(dir, &sb) == 0 && S_ISDIR(sb.st_mode))
        return PDB_OK;
    return pdb_fail("cannot create folder %s: %s", dir, strerror(errno));
}

void pdb_out_path(pdb_buf *b, const char *dir, const char *name, const char *ext)
{
    pdb_buf_reset(b);
    pdb_buf_addf(b, "%s/", dir);
    for (const char *p = *name ? name : "_"; *p; p++) {
        char c = *p;
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                  c == '-' || c == '_';
        pdb_buf_addc(b, ok ? c : '_');
    }
    pdb_buf_addf(b, ".%s", ext);
}

int pdb_out_clear(const char *dir, const char *name, const char *ext)
{
    pdb_buf path = PDB_BUF_INIT;
    pdb_out_path(&path, dir, name, ext);
    int rc = unlink(path.p) == 0 || errno == ENOENT
                 ? PDB_OK : pdb_fail("cannot replace %s: %s", path.p, strerror(errno));
    pdb_buf_free(&path);
    return rc;
}

/* unlink + O_EXCL: whatever was at the path (a file, a planted link) is
 * gone, and O_EXCL|O_NOFOLLOW refuses anything that appears in between. */
FILE *pdb_out_create(const char *dir, const char *name, const char *ext)
{
    pdb_buf path = PDB_BUF_INIT;
    pdb_out_path(&path, dir, name, ext);
    FILE *f = NULL;
    int fd = -1;
    if (unlink(path.p) == 0 || errno == ENOENT)
        fd = open(path.p, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd >= 0 && !(f = fdopen(fd, "w")))
        close(fd);
    if (!f)
        pdb_fail("cannot write %s: %s", path.p, strerror(errno));
    pdb_buf_free(&path);
    return f;
}

int pdb_out_close(FILE *f, const char *name)
{
    int bad = ferror(f);
    if (fclose(f) != 0 || bad)
        return pdb_fail("error writing %s", name);
    return PDB_OK;
}

/* main.c: `profdb [--db FILE] COMMAND [ARGS]`: global options, then the
 * subcommand from the table in commands.c. All work happens in the library. */
#include "cli/cli.h"
#include "common/db.h"
#include "common/error.h"

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void print_usage(FILE *out)
{
    fprintf(out, "usage: profdb [--db FILE] COMMAND [ARGS]\n\n"
                 "profdb loads ML profiler output (PyTorch traces, pstats dumps, step logs)\n"
                 "into a SQLite database and reports on it.\n\ncommands:\n");
    for (const pdb_command *c = pdb_commands; c->name; c++)
        fprintf(out, "  %-10s %s\n", c->name, c->summary);
    fprintf(out, "\n'profdb COMMAND --help' describes a command. Exit status: 0 ok, "
                 "1 check failed, 2 error.\n");
}

static const pdb_command *find_command(const char *name)
{
    for (const pdb_command *c = pdb_commands; c->name; c++)
        if (strcmp(c->name, name) == 0)
            return c;
    return NULL;
}

int main(int argc, char **argv)
{
    /* Output often goes to `head`; a closed pipe is not an error. */
    signal(SIGPIPE, SIG_DFL);
    pdb_db_literal_names();
    pdb_db_no_memstatus();
    pdb_cli cli = {getenv("PROFDB_DB") ? getenv("PROFDB_DB") : "profdb.db"};
    int i = 1;
    for (; i < argc && argv[i][0] == '-'; i++) {
        if (strcmp(argv[i], "--db") == 0 && i + 1 < argc)
            cli.db_path = argv[++i];
        else if (strncmp(argv[i], "--db=", 5) == 0)
            cli.db_path = argv[i] + 5;
        else if (strcmp(argv[i], "--version") == 0) {
            printf("profdb %s\n", PROFDB_VERSION);
            return PDB_EXIT_OK;
        } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            print_usage(stdout);
            return PDB_EXIT_OK;
        } else {
            pdb_fail("unknown option '%s'", argv[i]); /* pdb_errmsg: one clean line */
            fprintf(stderr, "profdb: %s\n", pdb_errmsg());
            print_usage(stderr);
            return PDB_EXIT_ERROR;
        }
    }
    if (i >= argc) {
        print_usage(stderr);
        return PDB_EXIT_ERROR;
    }
    const char *name = argv[i];
    if (strcmp(name, "help") == 0) {
        if (i + 1 >= argc) {
            print_usage(stdout);
            return PDB_EXIT_OK;
        }
        const pdb_command *c = find_command(argv[i + 1]);
        if (!c) {
            pdb_fail("'%s' is not a profdb command", argv[i + 1]);
            return pdb_cli_fail();
        }
        char *help_argv[] = {(char *)c->name, "--help", NULL};
        return c->run(2, help_argv, &cli);
    }
    const pdb_command *c = find_command(name);
    if (!c) {
        pdb_fail("'%s' is not a profdb command; see 'profdb --help'", name);
        return pdb_cli_fail();
    }
    int rc = c->run(argc - i, argv + i, &cli);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "profdb: error writing output\n");
        return PDB_EXIT_ERROR;
    }
    return rc;
}

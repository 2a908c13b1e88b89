/* opts.h: the one option parser every subcommand shares.
 *
 * git-style: long options (--db FILE, --db=FILE), short aliases (-o FILE,
 * -oFILE), flags, repeatable options, and options before or after positional
 * arguments; "--" ends options. Help text is generated from the table. */
#ifndef PDB_OPTS_H
#define PDB_OPTS_H

typedef enum { PDB_OPT_END = 0, PDB_OPT_FLAG, PDB_OPT_STRING, PDB_OPT_INT, PDB_OPT_LIST } pdb_opt_type;

/* A repeatable option's values, in command-line order. */
typedef struct {
    const char **v;
    int n;
} pdb_strlist;

typedef struct pdb_opt {
    pdb_opt_type type;
    const char *long_name;
    char short_name;          /* 0 for none */
    void *target;             /* bool*, const char**, long*, pdb_strlist* */
    const char *argname;      /* shown in help, e.g. "FILE" */
    const char *help;
} pdb_opt;

typedef struct pdb_cmd_help {
    const char *usage;        /* "profdb ingest [options] INPUT..." */
    const char *summary;      /* one paragraph */
    const char *details;      /* printed after the options, may be NULL */
} pdb_cmd_help;

#define PDB_OPT_HELP_SHOWN 1

/* Parses argv[1..argc-1]; positional arguments are moved to argv[1..*npos].
 * Returns PDB_OK, PDB_OPT_HELP_SHOWN after printing --help, or PDB_ERR. */
int pdb_parse_options(int argc, char **argv, const pdb_opt *opts, const pdb_cmd_help *help,
                      int *npos);
/* Parses an option's value as a finite number; what names the option in the
 * message ("--alpha: expected a number, got 'x'"). */
int pdb_parse_double(const char *what, const char *s, double *out);
void pdb_print_help(const pdb_opt *opts, const pdb_cmd_help *help);
void pdb_strlist_free(pdb_strlist *l);

#endif

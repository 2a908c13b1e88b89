/* cli.h: what the subcommands share: the command table, the database
 * option and the error path. One file per subcommand: cmd_NAME.c. */
#ifndef PDB_CLI_H
#define PDB_CLI_H

#include <sqlite3.h>
#include <stdint.h>
#include "common/opts.h"
#include "render/render.h"

typedef struct pdb_cli {
    const char *db_path;      /* --db, $PROFDB_DB, or profdb.db */
} pdb_cli;

typedef struct pdb_command {
    const char *name;
    int (*run)(int argc, char **argv, pdb_cli *cli);
    const char *summary;
} pdb_command;

extern const pdb_command pdb_commands[];

int cmd_ingest(int argc, char **argv, pdb_cli *cli);
int cmd_analyze(int argc, char **argv, pdb_cli *cli);
int cmd_runs(int argc, char **argv, pdb_cli *cli);
int cmd_sql(int argc, char **argv, pdb_cli *cli);
int cmd_report(int argc, char **argv, pdb_cli *cli);
int cmd_diff(int argc, char **argv, pdb_cli *cli);
int cmd_check(int argc, char **argv, pdb_cli *cli);
int cmd_trend(int argc, char **argv, pdb_cli *cli);
int cmd_schema(int argc, char **argv, pdb_cli *cli);
int cmd_migrate(int argc, char **argv, pdb_cli *cli);
int cmd_merge(int argc, char **argv, pdb_cli *cli);
int cmd_patterns(int argc, char **argv, pdb_cli *cli);

/* Prints "profdb: MESSAGE" and returns PDB_EXIT_ERROR. */
int pdb_cli_fail(void);
/* Maps pdb_parse_options' result to a command's early exit, or -1 to go on. */
int pdb_cli_parse(int argc, char **argv, const pdb_opt *opts, const pdb_cmd_help *help,
                  int *npos);
/* What ingest does to each run it loaded, inside its transaction, and
 * `profdb analyze` to each run: the analysis passes; then the run's trend
 * summaries, derived from what the passes wrote, are dropped
 * (pdb_run_forget_caches; trend computes them again). */
int pdb_cli_after_load(sqlite3 *db, int64_t run_id, bool committed);
/* Refuses a --db (or $PROFDB_DB) that would store nothing: empty or
 * ":memory:" (pdb_db_check_user_path). */
int pdb_cli_check_db(const pdb_cli *cli);
/* s as one line of terminal text (render/text.h), in b (reset first): for
 * paths and arguments echoed on stdout or stderr. */
const char *pdb_cli_text(pdb_buf *b, const char *s);
/* Opens cli->db_path with PDB_DB_* flags (checked first). */
int pdb_cli_open_db(const pdb_cli *cli, int flags, sqlite3 **db);
/* Ingests inputs (files or directories) into a new in-memory database as one
 * run named run, analysed, quietly: one-shot reports and check's
 * --baseline-from DIR. *db is set even on failure (close it). */
int pdb_cli_ingest_memory(const char *const *inputs, int n, const char *run, sqlite3 **db);
/* `profdb runs --reading`: the reading of every step log of the runs
 * run_ids (nruns 0: of every run), as "column = value" lines in the table
 * format, else rendered as ro says (cli/runs_reading.c). */
int pdb_cli_runs_reading(sqlite3 *db, const int64_t *run_ids, int nruns,
                         const pdb_render_opts *ro);
/* Prints the rows of st as "column = value" lines, names right-aligned, a
 * blank line between rows (sqlite3's .mode line): for rows of long text
 * (cli/runs_reading.c). */
int pdb_cli_print_lines(sqlite3_stmt *st, FILE *out);
/* Fills render options from --format / --unit strings (either may be NULL). */
int pdb_cli_render_opts(const char *format, const char *unit, long width,
                        pdb_render_opts *o);
/* --wide and --columns: tables on a terminal fit its width unless wide
 * (render.h: fit_width); columns chooses the columns (may be NULL). */
void pdb_cli_fit_opts(bool wide, const char *columns, pdb_render_opts *o);

/* Options most commands take. */
#define PDB_OPT_DB(cli) {PDB_OPT_STRING, "db", 0, &(cli)->db_path, "FILE", \
                         "database file (default: $PROFDB_DB or profdb.db)"}
#define PDB_OPT_FORMAT(var) {PDB_OPT_STRING, "format", 'f', &(var), "FMT", \
                             "output format: table, csv, tsv, json or md (default table)"}
#define PDB_OPT_UNIT(var) {PDB_OPT_STRING, "unit", 0, &(var), "UNIT", \
                           "time unit: ns, us, ms or s (default us)"}
#define PDB_OPT_WIDTH(var) {PDB_OPT_INT, "width", 0, &(var), "N", \
                            "table: cut text longer than N characters (default 60, 0 = never)"}
#define PDB_OPT_WIDE(var) {PDB_OPT_FLAG, "wide", 0, &(var), NULL, \
                           "table on a terminal: every column, names whole (no fitting)"}
#define PDB_OPT_COLUMNS(var) {PDB_OPT_STRING, "columns", 0, &(var), "A,B,C", \
                              "only these columns, in this order (every format)"}

#endif

/* commands.c: the table of subcommands, in the order `profdb --help` lists them. */
#include "cli/cli.h"

#include <stddef.h>

const pdb_command pdb_commands[] = {
    {"ingest", cmd_ingest, "load traces, pstats dumps and step logs into the database"},
    {"merge", cmd_merge, "combine databases (shards of one job's ranks) into one, in one transaction"},
    {"analyze", cmd_analyze, "recompute the analysis tables (ingest does it by default)"},
    {"runs", cmd_runs, "list the runs in the database with their sources and counts"},
    {"patterns", cmd_patterns, "list (or forget) the step-log patterns taught with --pattern"},
    {"report", cmd_report, "print reports for a run (tables, CSV, JSON, Markdown)"},
    {"diff", cmd_diff, "compare two runs: steps, phases, ops, kernels, GPU time, pstats"},
    {"check", cmd_check, "CI gate: exit 1 when a run is significantly slower than a baseline"},
    {"trend", cmd_trend, "a metric over many runs: medians, change points, a CI check"},
    {"sql", cmd_sql, "run an SQL query against the database"},
    {"schema", cmd_schema, "print the database schema (tables users can query)"},
    {"migrate", cmd_migrate, "upgrade a database written by an older profdb"},
    {NULL, NULL, NULL},
};

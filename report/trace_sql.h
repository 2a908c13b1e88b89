/* trace_sql.h: SQL functions the trace reports use, and their query
 * helper: readable short forms of kernel and op names, and the one-sided
 * Mann-Whitney test that decides a straggler.
 *
 * Names. Kineto writes GPU kernels by their demangled C++ signature ("void
 * at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<
 * c10::Half>, ...>(int, ...)"), hundreds of characters that a table can
 * only cut, and a cut in the middle makes different kernels look alike. The
 * short form keeps what tells kernels apart and drops what does not: the
 * return type, the argument list, namespaces, and template arguments below
 * the first level (written <…>); a lambda keeps the function it is in.
 * Names that are not C++ signatures ("Memcpy DtoH (Device -> Pageable)",
 * "aten::mm", "ncclKernel_AllReduce_RING_LL_Sum_float") are kept, apart
 * from a trailing argument list.
 *
 * Reports use it through two SQL functions: short_name(name), and
 * name_tag(name), four hex digits of a hash of the full name, which a query
 * appends when two full names of one table share a short form.
 * short_name(name, width) also cuts the short form to width columns as a
 * table cuts one name (render/shorten.h; 0: no cut). `profdb sql` registers
 * them too.
 *
 * Stragglers. mann_whitney_p(u, n1, n2, ties) is the one-sided p-value of
 * the Mann-Whitney U test that sample 1 (n1 values, U statistic u = its
 * rank sum - n1 (n1 + 1) / 2) tends to be larger than sample 2 (n2
 * values); ties is the sum of t^3 - t over the groups of t equal values in
 * the pooled sample. The test is common/stats.h's, the one `profdb diff`
 * and `profdb check` use: exact (the U distribution counted) when n1 + n2
 * <= PDB_MWU_EXACT_MAX (60) and nothing ties; otherwise the normal
 * approximation with tie and continuity corrections, as scipy.stats.
 * mannwhitneyu(alternative='greater') computes them. One-sided, because
 * the question is whether one rank is slower than the others; the report
 * says so. mann_whitney_min_p(n1, n2[, ties]) is the smallest
 * p-value the test gives samples of those sizes (sample 1 above all of
 * sample 2, by the same exact or approximate method): when it is not below
 * the test's level, the test cannot decide. */
#ifndef PDB_TRACE_SQL_H
#define PDB_TRACE_SQL_H

#include <sqlite3.h>

#include "common/strbuf.h"
#include "report/reports.h"

/* Appends the short form of name to out. */
void pdb_short_name(const char *name, pdb_buf *out);

/* Appends name with every template argument list emptied ("<>", nested
 * ones inside it dropped) and every hex address ("0x7f3a...") cut to
 * "0x": two kernels of one shape differ only in those, as a kernel renamed
 * by a new template argument between two builds (SQL: name_shape(name);
 * `profdb diff` pairs such a rename when it is the only one of its shape). */
void pdb_name_shape(const char *name, pdb_buf *out);

/* The one-sided Mann-Whitney p-value (see above): pdb_mwu_p_greater_u. */
double pdb_mann_whitney_p(double u, long n1, long n2, double ties);

/* Registers short_name(), name_tag(), name_shape(), mann_whitney_p(),
 * mann_whitney_min_p(), sqrt() and HTA's rounding: hta_start(ts, round),
 * hta_end(ts, dur, round) (ns as HTA rounds them when round is true) and
 * hta_stream(stream) (HTA's stream number, -1: no GPU event); idempotent. */
int pdb_trace_sql_functions(sqlite3 *db);

/* Fills temp.hta_traces (trace_launch.create_hta_traces) with HTA's
 * reading of each trace of the run (analyze/hta.h: rounding, dropped last
 * step and its start), for queries that apply HTA's event set. */
int pdb_hta_traces_table(sqlite3 *db, int64_t run_id);

/* Whether a report shows short names: --names short|full, else short for
 * tables and Markdown, full for CSV, TSV and JSON. */
int pdb_report_short_names(const pdb_report_ctx *ctx, int *on);

/* Runs a trace report query with these functions registered and
 * ?1 = run, ?2 = mode, ?3 = --top (or -1), ?4 = 1 for short names,
 * ?5 = key (--by, or what the caller passes), and renders it. */
int pdb_trace_query(pdb_report_ctx *ctx, const char *query, const char *mode, const char *key);

#endif

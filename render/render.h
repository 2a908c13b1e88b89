/* render.h: one interface from a result set to every output format.
 *
 * Reports and `profdb sql` produce SQL result sets; this module prints them as
 * an aligned text table, CSV (RFC 4180), TSV, JSON (an array of objects,
 * numbers as numbers) or a Markdown table. Column names carry units: a
 * column named *_ns holds nanoseconds and, when times are converted, is
 * printed in the chosen unit and renamed (total_ns -> total_us). */
#ifndef PDB_RENDER_H
#define PDB_RENDER_H

#include "common/strbuf.h"
#include "common/utf8.h"
#include "render/text.h"

#include <sqlite3.h>
#include <stdbool.h>
#include <stdio.h>

typedef enum { PDB_OUT_TABLE, PDB_OUT_CSV, PDB_OUT_TSV, PDB_OUT_JSON, PDB_OUT_MD } pdb_out_format;
typedef enum { PDB_UNIT_NS, PDB_UNIT_US, PDB_UNIT_MS, PDB_UNIT_S } pdb_time_unit;

typedef struct pdb_render_opts {
    pdb_out_format format;
    pdb_time_unit unit;
    bool convert_times;   /* rename and scale *_ns columns */
    int max_width;        /* table/md: longer text is cut in the middle (0: never) */
    bool no_header;
    /* table: fit each table into this many terminal columns (0: never):
     * names shortened where they agree (render/shorten.h), then columns
     * left out, said on stderr. See pdb_render_fit_columns. */
    int fit_width;
    /* every format: only these columns, in this order (a comma-separated
     * list of names as printed or as the query names them; NULL: all); a
     * name the table lacks is refused with the list of its columns */
    const char *columns;
} pdb_render_opts;

#define PDB_RENDER_DEFAULTS {PDB_OUT_TABLE, PDB_UNIT_US, true, 60, false, 0, NULL}

int pdb_parse_format(const char *s, pdb_out_format *f);
int pdb_parse_unit(const char *s, pdb_time_unit *u);
const char *pdb_unit_name(pdb_time_unit u);

/* Steps st to the end and prints every row. Returns PDB_OK or PDB_ERR. */
int pdb_render_stmt(sqlite3_stmt *st, const pdb_render_opts *o, FILE *out);
/* Prepares sql, binds the given text parameters in order, renders it. */
int pdb_render_query(sqlite3 *db, const char *sql, const char *const *params, int nparams,
                     const pdb_render_opts *o, FILE *out);

/* The width tables are fitted to on a terminal: 0 when out is not a
 * terminal (pipes and files get the table whole, as always), else $COLUMNS
 * when it is a positive number, else the terminal's width (TIOCGWINSZ),
 * else 80. */
int pdb_render_terminal_width(FILE *out);

/* Text helpers shared by renderers and charts (and pdb_utf8_width). */
/* Writes s shortened to at most width code points, "…" in the middle. */
void pdb_ellipsize(const char *s, size_t width, char *out, size_t outcap);

#endif

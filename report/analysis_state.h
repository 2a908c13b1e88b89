/* analysis_state.h: whether a run's trace analysis is missing or older
 * than this profdb's passes, for the reports that read it.
 *
 * A run ingested with --no-analyze (or merged from such shards) has no
 * analysis rows; a database migrated from an older schema has the tables
 * the migrations add empty until `profdb analyze` runs the passes again.
 * Their reports must say so, not "no GPU events in this run". */
#ifndef PDB_ANALYSIS_STATE_H
#define PDB_ANALYSIS_STATE_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct pdb_analysis_state {
    bool missing;          /* the traces hold events the analysis never saw */
    bool never;            /* ... none at all (not analysed) */
    int64_t gpu_events;    /* GPU events in the traces (X events with a stream arg) */
    const char *what;      /* "is not analysed (...)", "was analysed by an older
                            * profdb (...)" (static), or NULL */
} pdb_analysis_state;

int pdb_analysis_state_get(sqlite3 *db, int64_t run_id, pdb_analysis_state *s);

/* The sentence for a report that found no rows: "run 'R' is not analysed
 * (...); its traces hold N GPU events: run 'profdb analyze R' first". */
void pdb_analysis_state_message(const pdb_analysis_state *s, const char *run, char *buf,
                                size_t cap);

#endif

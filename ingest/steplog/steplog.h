/* steplog.h: what the step-log flavor readers share (internal to ingest/).
 *
 * steplog.c sniffs the flavor and owns the row writer; each flavor family
 * lives in its own file (steplog_json.c, steplog_csv.c, steplog_text.c,
 * steplog_megatron.c, steplog_blocks.c). A flavor reader starts a record with
 * pdb_steplog_record(), sets its context (step, epoch, rank, ...) and adds
 * values with pdb_steplog_value(); the writer maps raw names to canonical
 * metrics, infers units from names and hands each value to the store
 * (steplog_store.h), which keeps it in its series. */
#ifndef PDB_STEPLOG_H
#define PDB_STEPLOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/strbuf.h"
#include "ingest/ingest.h"
#include "ingest/steplog/steplog_reading.h"

typedef struct pdb_steplog_rule pdb_steplog_rule;
typedef struct pdb_steplog_name pdb_steplog_name;
typedef struct pdb_sl_store pdb_sl_store;
typedef struct pdb_sl_reading pdb_sl_reading;
typedef struct pdb_sl_table pdb_sl_table;

/* Line recognisers used by the sniffer and by the text reader. */
typedef enum {
    PDB_SL_NONE, PDB_SL_MEGATRON, PDB_SL_DEEPSPEED, PDB_SL_NANOGPT, PDB_SL_TORCHTITAN,
    PDB_SL_HF, PDB_SL_RECTFLOW, PDB_SL_MAE, PDB_SL_KV, PDB_SL_LIGHTNING, PDB_SL_TQDM,
} pdb_steplog_linekind;
typedef struct pdb_steplog_general pdb_steplog_general;
typedef struct pdb_steplog_box pdb_steplog_box;
typedef struct pdb_steplog_html pdb_steplog_html;
typedef struct pdb_steplog_lightning pdb_steplog_lightning;

/* DeepSpeed-Chat: a first engine's "step=N" line, held until the next step
 * line says whether a second engine followed (steplog_megatron.c). */
typedef struct {
    bool held, has_rank, has_wall, has_lr;
    int64_t record, line, rank, step;
    double wall;
    pdb_buf text;         /* the skipped= text, then the lr= text */
    size_t skipped_len;
} pdb_steplog_held;

#define PDB_SL_NAME_AT 64

typedef struct pdb_steplog {
    pdb_source *src;
    const char *flavor;          /* the flavor being read */
    pdb_sl_store *store;         /* where values go (steplog_store.c) */
    sqlite3_stmt *ins_note, *ins_block;
    pdb_steplog_rule *rules;
    int nrules;
    pdb_strmap *rule_cache;      /* raw name -> index in names */
    pdb_steplog_name *names;     /* resolved raw names (steplog_writer.c) */
    int nnames, names_cap;
    int name_at[PDB_SL_NAME_AT]; /* names[i - 1] was the last value at this position
                                  * in its record; 0: none */
    int class_at[PDB_SL_NAME_AT]; /* the same for pdb_steplog_name_class */
    /* step times from timestamps, worked out while reading (steplog_writer.c) */
    pdb_strmap *ts_groups;       /* (kind, rank, loader) -> index in ts_last */
    struct ts_last *ts_last;
    int nts;
    pdb_buf ts_key;
    int64_t ts_record;           /* the last record that counted */
    bool has_eval_wall;          /* the timestamp of the last evaluation record */
    double eval_wall;
    int64_t ts_values;           /* values stored, deleted when the log times its steps */
    pdb_strmap *interned;        /* kinds and splits of derived values (derive()) */
    char **interned_strs;
    int ninterned;
    /* the current record */
    int64_t record, line;
    const char *kind;
    bool has_rank, has_step, has_epoch, has_wall;
    int64_t rank, step;
    double epoch, wall;
    char loader[64];             /* "" when none; DeepSpeed-Chat engines: engine0, engine1 */
    const char *split;           /* "train", "val", "summary" or NULL */
    bool is_step;                /* the record is a step of the run (default); eval and
                                  * summary records are not, and a file without a
                                  * single step record is refused */
    int64_t pos;                 /* values of the record so far: the next one's position */
    bool derived;                /* storing values derived after the file: their context
                                  * and position are derived_ctx and derived_pos */
    int64_t derived_ctx, derived_pos;
    int64_t step_records;        /* step records that stored a value */
    int64_t bar_records;         /* ... of them, updates of bars kept apart (split progress) */
    int64_t counted_record;      /* the last record counted in step_records */
    int64_t malformed;           /* record-like lines that did not parse */
    /* state of the text family, kept across lines */
    bool has_iter, has_ds_step, has_ppo, has_tt;
    int64_t iter, iter_window, ds_step, ppo_step, tt_step, timer_lines;
    bool has_pipe_step;          /* DeepSpeed's pipeline engine printed "steps: N ..." */
    int64_t pipe_step;
    double tt_wall;
    bool has_prefix_wall;        /* the timestamp before a Trainer dict on its line */
    double prefix_wall;
    double ppo_epoch;            /* DeepSpeed-Chat: the epoch of the last "epoch: E|step: N" */
    int64_t meg_first_record;    /* first iteration record, window unknown until the next */
    int64_t hf_max_steps, hf_logging_steps, hf_train_dicts; /* HF Trainer stdout */
    int64_t hf_epochs;           /* num_train_epochs, when printed */
    int64_t hf_bar_totals[16];   /* totals of the bars not known as the training loop's */
    int hf_bars;
    bool bar_steps; /* a described bar ("Epoch 3", "epoch 3", "steps") counted
                     * the steps (steplog_lightning.c): no bar is to be found */
    char hf_bar_note[256];       /* which bar times the steps, and why (the reading; HF
                                  * Trainer and Lightning bars) */
    char hf_bar_warn[320];       /* why no bar does (a weak reading) */
    int64_t ds_engine;           /* DeepSpeed-Chat: engine of the last step= line */
    pdb_steplog_held ds_held;    /* its first engine's line, until the next one */
    bool meg_timer_block;        /* inside Megatron's "(min, max) time across ranks" */
    bool seen_loss_record;       /* JSON Lines: a record with a loss or lr key was read */
    int64_t family_hits[16];     /* records per pdb_steplog_linekind */
    int blk_mode, blk_section;   /* summary block being read (steplog_blocks.c) */
    int64_t blk_record;
    pdb_steplog_box *box;        /* boxed key/value table being read (steplog_boxes.c) */
    pdb_steplog_html *html;      /* a notebook's HTML table being read (steplog_html.c) */
    pdb_steplog_lightning *lightning; /* Lightning's bars (steplog_lightning.c) */
    pdb_steplog_general *gen;    /* the general reader (steplog_general.c), or NULL */
    pdb_sl_table *table;         /* its whitespace tables (steplog_table.c), or NULL */
    char table_note[200];        /* what a table's record and step time are (the reading) */
    pdb_sl_reading *reading;     /* what was understood (steplog_reading.c), or NULL */
    struct pdb_sl_patterns *patterns; /* the user's rules it is read with, or NULL */
    const char *pattern_rules, *pattern_origin; /* their text and origin (for the reading) */
    /* lines (pdb_steplog_getline) */
    int64_t lineno;              /* lines returned so far */
    bool cr_lines;               /* lines end in a bare CR too (see pdb_steplog_cr_lines) */
    bool labels;                 /* every line carries a launcher label ("0: ", "node-1: ") */
    int64_t line_rank;           /* the rank the line's launcher prefix names, or -1 */
    struct {                     /* the CR-splitting line reader's state */
        unsigned char *buf;
        size_t pos, len;
        bool eof, after_cr;
        pdb_buf line;
    } cr;
} pdb_steplog;

/* The deepest JSON nesting the step-log readers accept: deeper input is
 * refused (the same bound as the trace reader's). JSON Lines records are
 * read three levels deep, documents four. */
#define PDB_SL_JSON_MAX_DEPTH 1000

/* The next line of the log without its line end: 1, 0 at the end,
 * PDB_ERR on a read error, a line longer than 16 MiB or an interrupt
 * (SIGINT/SIGTERM; checked on every line). Lines end in LF or CRLF; in a log
 * whose lines end in bare CR (w->cr_lines) also in CR. w->lineno is the
 * line's number. */
int pdb_steplog_getline(pdb_steplog *w, const char **line, size_t *len);
/* Whether a log whose first bytes are d[0..len) ends its lines in bare CR:
 * they hold a CR that no LF follows and no LF but, in an input shorter than
 * the peek, a last byte. Such a log is read as one line per CR (tqdm's
 * CR-separated updates within LF lines are segments of one line). */
bool pdb_steplog_cr_lines(const unsigned char *d, size_t len);
/* The launcher prefix at the start of a line: what a launcher puts before
 * each line of a process's output, not the trainer's text. Always torchrun
 * --tee's "[default0]:" and "[rank0]:", Open MPI --tag-output's
 * "[1,0]<stdout>:"; with labels also Slurm srun --label's "0: " and pdsh's
 * "node-1: ". Returns its length (0: none) and sets *rank to the rank it
 * names, or -1. */
size_t pdb_steplog_launcher_prefix(const char *s, size_t len, bool labels, int64_t *rank);
/* Whether the lines in d[0..len) carry launcher labels ("0: ", "node-1: "):
 * nearly all of them start with one, and the labels repeat (a counter such
 * as darknet's "1000: 0.51, ..." does not). */
bool pdb_steplog_labelled(const char *d, size_t len, char eol);
/* Where a JSON object that ends the line starts after a log prefix
 * (fairseq --log-format json: "2021-03-01 10:01:00 | INFO | train_inner |
 * {"epoch": 1, ...}"): its offset, or 0 when the line holds no such object
 * (or opens with it). */
size_t pdb_steplog_json_payload(const char *s, size_t len);
/* Whether the current line's launcher prefix named a rank; sets w->rank. */
bool pdb_steplog_launcher_rank(pdb_steplog *w);

/* Starts a new record at line `line`; context fields are reset. kind (and
 * w->kind, w->split, units and aggs given to the writer) must outlive the
 * writer: literals or the flavor's name. */
void pdb_steplog_record(pdb_steplog *w, const char *kind, int64_t line);
/* Adds one value of the current record. unit is canonical ("s", "%", ...) or
 * NULL to infer it from the raw name (ms suffixes and the like, scaling the
 * value). NaN and infinities are stored as NULL. */
int pdb_steplog_value(pdb_steplog *w, const char *raw, size_t rawlen, double value,
                      const char *unit, const char *agg, int64_t window);
/* Adds a value given as text ("5,970", "123.4ms", "nan"); returns 0 when the
 * text is not a quantity (nothing stored), 1 when stored, -1 on error. */
int pdb_steplog_text_value(pdb_steplog *w, const char *raw, size_t rawlen, const char *text,
                           size_t textlen, const char *agg, int64_t window);
/* Adds a time counter since the start of training (seconds). It is stored
 * as agg "cumulative"; after the file is read, pdb_steplog_finish() derives
 * the exact per-step times from the differences between records of the same
 * kind and split. */
int pdb_steplog_cumulative_time(pdb_steplog *w, const char *raw, size_t rawlen, double secs);
/* A line that looks like a record but does not parse: warns with its line
 * number and counts it (skip reason "malformed record"). */
void pdb_steplog_malformed(pdb_steplog *w, int64_t line, const char *what);
/* Stores a text line of a summary block, and a block header. */
int pdb_steplog_note(pdb_steplog *w, const char *section, const char *text, size_t len);
int pdb_steplog_block(pdb_steplog *w, const char *title, size_t len, bool has_step,
                      int64_t step);

/* Parses "YYYY-MM-DD HH:MM:SS[,.]fff" (or with '/' or 'T') at s into seconds
 * since 1970 (read as UTC); returns the characters consumed or 0. */
size_t pdb_steplog_timestamp(const char *s, size_t len, double *out);

/* Opens the writer (statements, metric rules) and, after the reader, runs
 * the post-passes over the rows this source stored, inside the same
 * transaction: time columns that turn out to be cumulative are marked so,
 * per-step times are derived from cumulative columns and, when the log
 * prints no step time, from timestamps. */
int pdb_steplog_open(pdb_steplog *w);
int pdb_steplog_finish(pdb_steplog *w);
void pdb_steplog_close(pdb_steplog *w);

/* Flavor readers (each reads src->in to the end). */
int pdb_steplog_read_jsonl(pdb_steplog *w);
int pdb_steplog_read_json_doc(pdb_steplog *w);   /* trainer_state.json, golden values */
int pdb_steplog_read_csv(pdb_steplog *w);        /* CSV/TSV and nvidia-smi */
int pdb_steplog_read_text(pdb_steplog *w);       /* every line-oriented text flavor */
int pdb_steplog_read_mllog(pdb_steplog *w);      /* MLPerf :::MLLOG lines */
/* Whether a line holds an MLPerf :::MLLOG event (for sniffing). */
bool pdb_steplog_mllog_line(const char *line, size_t len);

/* Whether name counts units of work under a time name: Composer's
 * Timestamp "time/batch", "time/sample", "time/token_in_epoch" (a number of
 * batches, samples, tokens; "[batch=10/20]" prints "time/batch: 9"). Such a
 * value is neither a time nor a rate. */
bool pdb_steplog_count_name(const char *name, size_t nl);

/* The general reader (steplog_general.c): records are lines, or a header line
 * and its indented continuation lines, that carry a step counter; see
 * docs/steplogs.md. Lines go in one at a time; pdb_steplog_general_end()
 * flushes the last record. The profile pass reads the peeked prefix first so
 * that the shape of the log (per-epoch progress, which records train) is
 * known from its first line; eol ends its lines ('\n', or '\r' in a log of
 * bare-CR lines). */
pdb_steplog_general *pdb_steplog_general_new(void);
void pdb_steplog_general_free(pdb_steplog_general *g);
void pdb_steplog_general_profile(pdb_steplog_general *g, const char *d, size_t len, char eol,
                                 bool labels);
int pdb_steplog_general_line(pdb_steplog *w, const char *s, size_t len, int64_t lineno);
int pdb_steplog_general_end(pdb_steplog *w);
/* Whitespace-aligned tables (steplog_table.c): a header line of column
 * names and rows of values under it (fastai, spaCy, Chainer, Ultralytics);
 * see docs/steplogs.md. pdb_steplog_table_line() takes a line before the
 * text flavors' handlers: 1 when it was the table's (a row, stored; a
 * header carrying a tqdm bar), 0 when not, PDB_ERR on a database error.
 * pdb_steplog_table_sniff() follows the same state for the sniffer: whether
 * a line is a table's. */
pdb_sl_table *pdb_steplog_table_new(void);
void pdb_steplog_table_free(pdb_sl_table *t);
int pdb_steplog_table_line(pdb_steplog *w, const char *s, size_t len, int64_t lineno);
bool pdb_steplog_table_sniff(pdb_sl_table *t, const char *s, size_t len);

/* Names that say what a record is (steplog_names.c): a validation name
 * ("val_loss", "eval/acc", "Test Acc"), a training loss or learning rate
 * (what training records carry), an evaluation metric (accuracy, mAP, BLEU,
 * F1, ...). */
bool pdb_steplog_val_name(const char *name, size_t len);
bool pdb_steplog_train_key(const char *name, size_t len);
bool pdb_steplog_eval_metric(const char *name, size_t len);
/* Whether word (lower case) stands in name as a word of its own, in any
 * case: not inside a longer run of letters. */
bool pdb_steplog_name_has_word(const char *name, size_t len, const char *word);
/* A name of a time in seconds: implied by its unit ending ("data_time_ms",
 * "runtime") or a time word ("Time cost"; not Marian's "Cost", a loss). */
bool pdb_steplog_time_name(const char *name, size_t len);
/* The three above for a name a log repeats, answered from the writer's name
 * cache (steplog_writer.c): PDB_SL_NAME_* bits; STEP_TIME: the metric rules
 * map the name to step_time; TIME: pdb_steplog_time_name. at: the name's position in
 * its record (-1: none), which makes a repeated order cheap. */
enum { PDB_SL_NAME_TRAIN = 1, PDB_SL_NAME_VAL = 2, PDB_SL_NAME_EVAL = 4 };
/* PDB_SL_NAME_TRAIN is a training key that is not a validation name;
 * PDB_SL_NAME_TRAIN_KEY is pdb_steplog_train_key() alone. */
enum { PDB_SL_NAME_TRAIN_KEY = 8, PDB_SL_NAME_STEP_TIME = 16, PDB_SL_NAME_TIME = 32 };
int pdb_steplog_name_class(pdb_steplog *w, const char *name, size_t len, int at);
/* Whether a line is a step record of the general reader (for sniffing). */
bool pdb_steplog_general_is_step_line(const char *s, size_t len);

/* Classifies one line for the sniffer (PDB_SL_NONE when no flavor's). */
pdb_steplog_linekind pdb_steplog_classify(const char *line, size_t len);

/* Line handlers in the text family: return 1 when the line was theirs,
 * 0 when not, PDB_ERR on a database error. */
int pdb_steplog_megatron_line(pdb_steplog *w, const char *s, size_t len, int64_t lineno);
int pdb_steplog_deepspeed_line(pdb_steplog *w, const char *s, size_t len, int64_t lineno);
/* Stores a held DeepSpeed step line (at the end of the text). */
int pdb_steplog_deepspeed_end(pdb_steplog *w);
int pdb_steplog_block_line(pdb_steplog *w, const char *s, size_t len, int64_t lineno);
/* Boxed key/value tables (SB3, OpenAI baselines: steplog_boxes.c): a table
 * between dashed rules is one record. The line handler returns 1 for a row
 * it took, 0 otherwise (rules are seen and passed on), PDB_ERR on error;
 * _end writes a table the log ended in; _free frees the table state. */
int pdb_steplog_box_line(pdb_steplog *w, const char *s, size_t len, int64_t lineno);
int pdb_steplog_box_end(pdb_steplog *w);
void pdb_steplog_box_free(pdb_steplog_box *b);
/* HTML tables of a notebook's output (the HF Trainer's NotebookProgressCallback:
 * steplog_html.c): a body row is a record; the handler takes every line from
 * "<table" to "</table>" (1: taken, 0: not a table's line). */
int pdb_steplog_html_line(pdb_steplog *w, const char *s, size_t len, int64_t lineno);
void pdb_steplog_html_free(pdb_steplog_html *h);
/* PyTorch Lightning's tqdm bars (steplog_lightning.c): whether a line is one
 * ("Epoch 1:  50%|...| 1/2 [..., 9.30it/s, loss=0.341]", "Validation
 * DataLoader 0: ...", "Sanity Checking ..."); the line handler (1: taken);
 * _end writes the update it holds and says which bar timed the steps. */
bool pdb_steplog_lightning_bar(const char *s, size_t len);
/* What a Lightning bar's description ("Epoch 3", "Validation DataLoader 0")
 * says it counts (PDB_BAR_*); *after is set past its ':'. */
enum {
    PDB_BAR_NONE,
    PDB_BAR_EPOCH,       /* Lightning's "Epoch 3" (epochs from 0) */
    PDB_BAR_EPOCH_TQDM,  /* a training loop's own "epoch 3", "Epoch 3/10" */
    PDB_BAR_VAL,
    PDB_BAR_SANITY,
    PDB_BAR_OTHER,
    PDB_BAR_STEPS
};
int pdb_steplog_lightning_desc(const char *t, size_t tl, const char **after);
int pdb_steplog_lightning_line(pdb_steplog *w, const char *s, size_t len, int64_t lineno);
int pdb_steplog_lightning_end(pdb_steplog *w);
void pdb_steplog_lightning_free(pdb_steplog_lightning *lt);

/* Like pdb_steplog_timestamp, also "MM/DD/YYYY HH:MM:SS", "MM/DD HH:MM:SS"
 * (a date without a year is read in 2000) and "HH:MM:SS" (a time of day, on
 * 2000-01-01): what log prefixes print. Returns the characters consumed. */
size_t pdb_steplog_timestamp_any(const char *s, size_t len, double *out);

/* Small text helpers. */
const char *pdb_steplog_find(const char *s, size_t len, const char *needle);
/* Just past the first needle in s, or NULL: find and skip in one, so that no
 * caller adds the needle's length by hand. */
const char *pdb_steplog_after(const char *s, size_t len, const char *needle);
/* The integer after the first needle in s[0..len) ("rank=3", "[Rank 3]");
 * false when the needle or the integer is missing. The integer may run past
 * len only as far as its digits go: callers pass the part before a field. */
bool pdb_steplog_int_after(const char *s, size_t len, const char *needle, int64_t *out);
size_t pdb_steplog_trim(const char **s, size_t len);
/* The next non-empty field of s split on sep, trimmed: start with *pos = 0;
 * false when there are no more. */
bool pdb_steplog_next_field(const char *s, size_t len, char sep, size_t *pos, const char **f,
                            size_t *fl);
/* Reads an integer at s[*i] (after blanks); false when there is none. */
bool pdb_steplog_read_int(const char *s, size_t len, size_t *i, int64_t *out);
/* A number read as a double (step, rank, interval) as an integer, truncated;
 * false for NaN, infinities and magnitudes beyond int64 (converting those is
 * undefined behaviour in C). */
bool pdb_steplog_to_int(double d, int64_t *out);

#endif

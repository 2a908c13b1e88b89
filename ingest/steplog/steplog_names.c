/* steplog_names.c: the names that say what a step-log record is: a
 * validation name, a training loss or learning rate, an evaluation metric,
 * a time (declared in steplog.h).
 *
 * The general reader classifies its records with them and the writer
 * answers them from its name cache; apart from both, so that neither calls
 * the other back. */
#include "ingest/steplog/steplog.h"
#include "common/strutil.h"
#include "ingest/steplog/steplog_units.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

bool pdb_steplog_name_has_word(const char *name, size_t nl, const char *word)
{
    size_t n = strlen(word);
    int first = tolower((unsigned char)word[0]);
    /* cheap tests first: this runs for every key of every JSON line */
    for (size_t i = 0; i + n <= nl; i++)
        if (tolower((unsigned char)name[i]) == first &&
            (i == 0 || !isalpha((unsigned char)name[i - 1])) &&
            (i + n == nl || !isalpha((unsigned char)name[i + n])) &&
            strncasecmp(name + i, word, n) == 0)
            return true;
    return false;
}

bool pdb_steplog_val_name(const char *name, size_t nl)
{
    static const char *const prefixes[] = {"val_", "val/", "val ", "valid_", "valid ",
                                           "validation", "eval", "test_", "test/", "test ",
                                           "best_val", "val-", "valid-", "test-", NULL};
    int c = nl ? tolower((unsigned char)name[0]) : 0;
    if (c != 'v' && c != 'e' && c != 't' && c != 'b')
        return false; /* cheap test first: this runs for every name of every line */
    for (int i = 0; prefixes[i]; i++)
        if (pdb_skip_prefix_icase(name, nl, prefixes[i], NULL, NULL))
            return true;
    return pdb_mem_is(name, nl, "val") || pdb_mem_is(name, nl, "test");
}

bool pdb_steplog_train_key(const char *name, size_t nl)
{
    if (pdb_steplog_val_name(name, nl))
        return false;
    /* the boosting libraries name the training set's metric: XGBoost's
     * "train-rmse", LightGBM's "training's l2", CatBoost's "learn" */
    if (pdb_skip_prefix_icase(name, nl, "train-", NULL, NULL) ||
        pdb_skip_prefix_icase(name, nl, "training's ", NULL, NULL) || pdb_mem_is(name, nl, "learn"))
        return true;
    return pdb_steplog_name_has_word(name, nl, "loss") || pdb_skip_prefix_icase(name, nl, "loss", NULL, NULL) ||
           pdb_ends_with_icase(name, nl, "loss") || pdb_steplog_name_has_word(name, nl, "lr") ||
           pdb_steplog_name_has_word(name, nl, "learning_rate") || pdb_steplog_name_has_word(name, nl, "learning rate") ||
           pdb_ends_with_icase(name, nl, "crossentropyloss");
}

bool pdb_steplog_eval_metric(const char *name, size_t nl)
{
    static const char *const words[] = {"acc", "accuracy", "top1", "top5", "acc1", "acc5", "map",
                                        "bleu", "wer", "cer", "f1", "precision", "recall", "auc",
                                        "iou", "miou", "psnr", "ssim", "dice", "fid", "rouge",
                                        "exact_match", NULL};
    for (int i = 0; words[i]; i++)
        if (pdb_steplog_name_has_word(name, nl, words[i]))
            return true;
    return false;
}

bool pdb_steplog_count_name(const char *name, size_t nl)
{
    static const char *const units[] = {"batch", "sample", "token", "epoch", "iteration",
                                        "step", "batch_in_epoch", "sample_in_epoch",
                                        "token_in_epoch", NULL};
    const char *slash = NULL;
    for (size_t k = nl; k > 0; k--)
        if (name[k - 1] == '/') {
            slash = name + k - 1;
            break;
        }
    if (!slash || slash - name < 4 || strncasecmp(slash - 4, "time", 4) != 0)
        return false;
    size_t ul = nl - (size_t)(slash + 1 - name);
    for (int i = 0; units[i]; i++)
        if (strlen(units[i]) == ul && strncasecmp(slash + 1, units[i], ul) == 0)
            return true;
    return false;
}

/* Composer's SpeedMonitor clocks "time/train", "time/val", "time/total",
 * "time/remaining_estimate": printed without a unit, in the callback's
 * time_unit (hours by default, seconds or days when configured). Read as
 * seconds they would be wrong by up to 86400x, so they are no time at all
 * until a unit is printed with them. */
static bool clock_in_own_unit(const char *name, size_t nl)
{
    static const char *const ends[] = {"time/train", "time/val", "time/total",
                                       "time/remaining_estimate", NULL};
    for (int i = 0; ends[i]; i++)
        if (pdb_ends_with_icase(name, nl, ends[i]))
            return true;
    return false;
}

bool pdb_steplog_time_name(const char *name, size_t nl)
{
    /* a loss is no time, whatever it measures: MP-SENet's "Time Loss: 1.252"
     * (of the time-domain signal) */
    if (pdb_steplog_count_name(name, nl) || clock_in_own_unit(name, nl) ||
        pdb_steplog_name_has_word(name, nl, "loss"))
        return false;
    double f;
    const char *u = pdb_units_from_name(name, nl, &f);
    if (u)
        return strcmp(u, PDB_UNIT_SECONDS) == 0;
    return pdb_steplog_name_has_word(name, nl, "time") ||
           (nl > 4 && pdb_ends_with_icase(name, nl, "cost"));
}

/* steplog_units.c: numbers and units as training logs print them (see steplog_units.h). */
#include "ingest/steplog/steplog_units.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Whether s[i..] holds exactly three digits followed by a non-digit: the
 * shape of a thousands group, so "5,970" is one number but "1,2" is two. */
static bool thousands_group(const char *s, size_t len, size_t i)
{
    if (i + 3 > len)
        return false;
    for (size_t k = i; k < i + 3; k++)
        if (!isdigit((unsigned char)s[k]))
            return false;
    return i + 3 == len || !isdigit((unsigned char)s[i + 3]);
}

/* nan, inf, infinity (any case, optional sign already consumed). */
static size_t special_number(const char *s, size_t len, double *out)
{
    if (len >= 8 && strncasecmp(s, "infinity", 8) == 0) {
        *out = INFINITY;
        return 8;
    }
    if (len >= 3 && strncasecmp(s, "inf", 3) == 0) {
        *out = INFINITY;
        return 3;
    }
    if (len >= 3 && strncasecmp(s, "nan", 3) == 0) {
        *out = NAN;
        return 3;
    }
    return 0;
}

size_t pdb_units_number(const char *s, size_t len, double *out)
{
    char buf[128];
    size_t i = 0, n = 0;
    bool neg = false;
    if (i < len && (s[i] == '-' || s[i] == '+')) {
        neg = s[i] == '-';
        buf[n++] = s[i++];
    }
    size_t sp = special_number(s + i, len - i, out);
    if (sp) {
        if (i + sp < len && isalnum((unsigned char)s[i + sp]) && sp != 8)
            return 0; /* "nano", "info": a word, not a number */
        if (neg)
            *out = -*out;
        return i + sp;
    }
    size_t digits = 0, int_digits = 0;
    bool grouped = false;
    while (i < len && n < sizeof buf - 8) {
        char c = s[i];
        if (isdigit((unsigned char)c)) {
            buf[n++] = c;
            digits++;
            int_digits++;
            i++;
        } else if (c == ',' && int_digits > 0 && (grouped || int_digits <= 3) &&
                   thousands_group(s, len, i + 1)) {
            grouped = true; /* a thousands separator */
            i++;
        } else {
            break;
        }
    }
    if (i < len && s[i] == '.' && n < sizeof buf - 8) {
        buf[n++] = s[i++];
        while (i < len && isdigit((unsigned char)s[i]) && n < sizeof buf - 8) {
            buf[n++] = s[i++];
            digits++;
        }
    }
    if (digits == 0)
        return 0;
    /* An exponent only when digits follow: "1e-3" yes, "5e" (a unit?) no. */
    if (i < len && (s[i] == 'e' || s[i] == 'E')) {
        size_t k = i + 1;
        if (k < len && (s[k] == '-' || s[k] == '+'))
            k++;
        if (k < len && isdigit((unsigned char)s[k])) {
            while (i < k)
                buf[n++] = s[i++];
            while (i < len && isdigit((unsigned char)s[i]) && n < sizeof buf - 1)
                buf[n++] = s[i++];
        }
    }
    if (i < len && isdigit((unsigned char)s[i]))
        return 0; /* longer than we handle: not a number we trust */
    buf[n] = '\0';
    *out = strtod(buf, NULL);
    return i;
}

typedef struct {
    const char *name;
    const char *canon;
    double factor;
} unit_def;

/* Case-sensitive where case matters (ms vs Ms, MB vs mb read alike). */
static const unit_def units[] = {
    {"ns", "s", 1e-9}, {"us", "s", 1e-6}, {"\xc2\xb5s", "s", 1e-6}, {"ms", "s", 1e-3},
    {"s", "s", 1}, {"sec", "s", 1}, {"secs", "s", 1}, {"second", "s", 1},
    {"seconds", "s", 1}, {"min", "s", 60}, {"mins", "s", 60}, {"minute", "s", 60},
    {"minutes", "s", 60}, {"h", "s", 3600}, {"hr", "s", 3600}, {"hour", "s", 3600},
    {"hours", "s", 3600},
    {"s/it", "s", 1}, {"sec/it", "s", 1}, {"ms/it", "s", 1e-3},
    /* time per step as Keras prints it ("8ms/step"), and its relatives */
    {"s/step", "s", 1}, {"ms/step", "s", 1e-3}, {"us/step", "s", 1e-6},
    {"\xc2\xb5s/step", "s", 1e-6}, {"s/iter", "s", 1}, {"ms/iter", "s", 1e-3},
    {"s/batch", "s", 1}, {"ms/batch", "s", 1e-3},
    /* TF-Slim's "(57.126 sec/step)", TF cifar10's "0.030 sec/batch" */
    {"sec/step", "s", 1}, {"sec/batch", "s", 1}, {"sec/iter", "s", 1},
    {"B", "B", 1}, {"bytes", "B", 1},
    {"KB", "B", 1e3}, {"kB", "B", 1e3}, {"MB", "B", 1e6}, {"GB", "B", 1e9}, {"TB", "B", 1e12},
    {"KiB", "B", 1024.0}, {"MiB", "B", 1048576.0}, {"GiB", "B", 1073741824.0},
    {"TiB", "B", 1099511627776.0},
    {"%", "%", 1}, {"W", "W", 1}, {"J", "J", 1}, {"Wh", "J", 3600}, {"kWh", "J", 3.6e6},
    {"MHz", "MHz", 1}, {"C", "C", 1},
    {"it/s", "1/s", 1}, {"samples/s", "samples/s", 1}, {"tokens/s", "tokens/s", 1},
    {"examples/s", "samples/s", 1}, {"samples/sec", "samples/s", 1}, {"/s", "/s", 1},
    {"tok/s", "tokens/s", 1}, {"tokens/sec", "tokens/s", 1},
    /* TF's "examples/sec", Paddle's "images/sec", Marian's target "words/s",
     * Caffe's "iter/s" */
    {"examples/sec", "samples/s", 1}, {"images/sec", "samples/s", 1},
    {"images/s", "samples/s", 1}, {"words/s", "tokens/s", 1}, {"iter/s", "1/s", 1},
    {"iters/s", "1/s", 1},
    /* Sockeye's "updates/sec", DLLogger's "img/s", BigDL's "records/second" */
    {"updates/sec", "1/s", 1}, {"updates/s", "1/s", 1}, {"steps/s", "1/s", 1},
    {"steps/sec", "1/s", 1}, {"it/sec", "1/s", 1}, {"batches/s", "1/s", 1},
    /* PaddleNLP's "speed: 2.50 step/s", "batches/sec", "iters/sec" */
    {"step/s", "1/s", 1}, {"step/sec", "1/s", 1}, {"batch/s", "1/s", 1},
    {"batches/sec", "1/s", 1}, {"iters/sec", "1/s", 1}, {"iter/sec", "1/s", 1},
    {"steps/second", "1/s", 1},
    {"img/s", "samples/s", 1}, {"img/sec", "samples/s", 1}, {"imgs/s", "samples/s", 1},
    {"records/second", "samples/s", 1}, {"records/s", "samples/s", 1},
    {"records/sec", "samples/s", 1}, {"samples/second", "samples/s", 1},
    {"examples/second", "samples/s", 1}, {"tokens/second", "tokens/s", 1},
    {"tok/sec", "tokens/s", 1},
    /* open_clip's "3.72078/s/gpu": a rate per GPU (named per device by its unit) */
    {"/s/gpu", "/s/gpu", 1},
    /* YOLOX's "gpu mem: 9301Mb, mem: 24.6Gb" (MiB and GiB, as torch and psutil
     * count them) */
    {"Mb", "B", 1048576.0}, {"Gb", "B", 1073741824.0},
    {NULL, NULL, 0},
};

const char *pdb_units_canon(const char *unit, size_t len, double *factor)
{
    if (len == 0)
        return NULL;
    /* a unit that ends a sentence: "in 1.47 seconds. Throughput is ..." */
    if (len > 1 && unit[len - 1] == '.' && unit[len - 2] != '.')
        len--;
    for (const unit_def *u = units; u->name; u++)
        if (u->name[0] == unit[0] && strlen(u->name) == len && memcmp(u->name, unit, len) == 0) {
            *factor = u->factor;
            return u->canon;
        }
    return NULL;
}

static size_t skip_blanks(const char *s, size_t len, size_t i)
{
    while (i < len && (s[i] == ' ' || s[i] == '\t'))
        i++;
    return i;
}

/* Reads up to three colon-separated fields "H:MM:SS.f" or "MM:SS". */
static bool clock_fields(const char *s, size_t len, double *seconds)
{
    double f[3];
    int nf = 0;
    size_t i = 0;
    bool ended = false;
    while (nf < 3) {
        size_t k = i;
        while (k < len && isdigit((unsigned char)s[k]))
            k++;
        if (k == i)
            return false;
        if (k < len && s[k] == '.' && (nf >= 1)) {
            k++;
            while (k < len && isdigit((unsigned char)s[k]))
                k++;
        }
        char buf[40];
        if (k - i >= sizeof buf)
            return false;
        memcpy(buf, s + i, k - i);
        buf[k - i] = '\0';
        f[nf++] = strtod(buf, NULL);
        if (k == len) {
            ended = true;
            break;
        }
        if (s[k] != ':')
            return false;
        i = k + 1;
    }
    if (nf < 2 || !ended)
        return false;
    *seconds = nf == 3 ? f[0] * 3600 + f[1] * 60 + f[2] : f[0] * 60 + f[1];
    return true;
}

bool pdb_units_clock(const char *s, size_t len, double *seconds)
{
    size_t b = skip_blanks(s, len, 0);
    while (len > b && (s[len - 1] == ' ' || s[len - 1] == '\t'))
        len--;
    double days = 0;
    const char *day = NULL;
    for (size_t i = b; i + 3 <= len; i++)
        if (memcmp(s + i, "day", 3) == 0) {
            day = s + i;
            break;
        }
    if (day) {
        double d;
        size_t n = pdb_units_number(s + b, (size_t)(day - s) - b, &d);
        if (n == 0 || skip_blanks(s, (size_t)(day - s), b + n) != (size_t)(day - s))
            return false;
        days = d;
        size_t i = (size_t)(day - s) + 3;
        if (i < len && s[i] == 's')
            i++;
        if (i < len && s[i] == ',')
            i++;
        b = skip_blanks(s, len, i);
    }
    double hms;
    if (!clock_fields(s + b, len - b, &hms))
        return false;
    *seconds = days * 86400 + hms;
    return true;
}

int pdb_units_span_part(const char *t, size_t n, double *seconds)
{
    static const char letters[] = "smhd";
    static const double scale[] = {1, 60, 3600, 86400};
    if (n < 2 || !isdigit((unsigned char)t[0]))
        return 0;
    const char *u = strchr(letters, t[n - 1]);
    if (!u || !*u)
        return 0;
    double x;
    if (pdb_units_number(t, n - 1, &x) != n - 1 || !isfinite(x))
        return 0;
    *seconds = x * scale[u - letters];
    return (int)(u - letters) + 1;
}

bool pdb_units_span(const char *s, size_t len, double *seconds)
{
    size_t i = skip_blanks(s, len, 0);
    double sum = 0;
    int rank = 5; /* parts come largest first: "1h 2m 3s" */
    while (i < len) {
        size_t e = i;
        while (e < len && s[e] != ' ' && s[e] != '\t')
            e++;
        double x;
        int r = pdb_units_span_part(s + i, e - i, &x);
        if (r == 0 || r >= rank)
            return false;
        sum += x;
        rank = r;
        i = skip_blanks(s, len, e);
    }
    if (rank == 5)
        return false;
    *seconds = sum;
    return true;
}

bool pdb_units_quantity(const char *s, size_t len, double *value, const char **unit)
{
    size_t i = skip_blanks(s, len, 0);
    while (len > i && (s[len - 1] == ' ' || s[len - 1] == '\t'))
        len--;
    if (memchr(s + i, ':', len - i))
        return pdb_units_clock(s + i, len - i, value) && (*unit = PDB_UNIT_SECONDS, true);
    double v;
    size_t n = pdb_units_number(s + i, len - i, &v);
    if (n == 0)
        return false;
    i += n;
    if (i == len) {
        *value = v;
        *unit = "";
        return true;
    }
    size_t u = skip_blanks(s, len, i);
    double f;
    const char *canon = pdb_units_canon(s + u, len - u, &f);
    if (canon) {
        *value = v * f;
        *unit = canon;
        return true;
    }
    /* An SI multiplier, alone ("11.5K") or before a unit ("85.8Gtok" is not). */
    static const char si[] = "KMGT";
    const char *p = u == i && u < len ? strchr(si, s[u] == 'k' ? 'K' : s[u]) : NULL;
    if (p && s[u] != '\0') {
        double mult = pow(1000.0, (double)(p - si) + 1);
        if (u + 1 == len) {
            *value = v * mult;
            *unit = "";
            return true;
        }
        canon = pdb_units_canon(s + u + 1, len - u - 1, &f);
        if (canon && strcmp(canon, "B") != 0) { /* "11.5Ks" no; "5.1Kms"? rare */
            *value = v * mult * f;
            *unit = canon;
            return true;
        }
    }
    return false;
}

/* Name suffixes that state a unit; checked case-insensitively at the end.
 * Some suffixes are units only in a name that is about time or size:
 * "_s" is seconds in "iter_time_s" but "small objects" in "coco/bbox_mAP_s",
 * and "_mb" is megabytes in "mem_mb" but a mini-batch elsewhere. */
enum { ALWAYS, IF_TIME, IF_SIZE, IF_WHOLE /* only as the whole name */ };

typedef struct {
    const char *suffix;
    const char *canon;
    double factor;
    int when;
} name_unit;

static const name_unit name_units[] = {
    /* rates first: "tokens_per_sec" is not a time; batches per second are
     * steps per second (Composer's "throughput/batches_per_sec") */
    {"batches_per_sec", "1/s", 1, ALWAYS}, {"batches_per_second", "1/s", 1, ALWAYS},
    {"steps_per_sec", "1/s", 1, ALWAYS},
    {"per_sec", "/s", 1, ALWAYS}, {"per_second", "/s", 1, ALWAYS}, {"persec", "/s", 1, ALWAYS},
    {"_per_s", "/s", 1, ALWAYS}, {"/s", "/s", 1, ALWAYS}, {"/sec)", "/s", 1, ALWAYS},
    {"/s)", "/s", 1, ALWAYS},
    {"_ms", "s", 1e-3, ALWAYS}, {"(ms)", "s", 1e-3, ALWAYS}, {"_msec", "s", 1e-3, ALWAYS},
    {"_us", "s", 1e-6, ALWAYS}, {"_ns", "s", 1e-9, ALWAYS}, {"_sec", "s", 1, ALWAYS},
    {"_secs", "s", 1, ALWAYS}, {"_seconds", "s", 1, ALWAYS}, {"(s)", "s", 1, ALWAYS},
    {"_s", "s", 1, IF_TIME}, {"_time", "s", 1, ALWAYS}, {"runtime", "s", 1, ALWAYS},
    {"_wall", "s", 1, ALWAYS}, {"wall", "s", 1, IF_WHOLE}, {"dt", "s", 1, IF_WHOLE},
    {"time", "s", 1, ALWAYS}, {"_pct", "%", 1, ALWAYS}, {"_percent", "%", 1, ALWAYS},
    {"_percentage", "%", 1, ALWAYS},
    {"_gb", "B", 1073741824.0, IF_SIZE}, {"_mb", "B", 1048576.0, IF_SIZE},
    {"(gb)", "B", 1e9, ALWAYS}, {"(mb)", "B", 1e6, ALWAYS}, {"(gib)", "B", 1073741824.0, ALWAYS},
    {"(mib)", "B", 1048576.0, ALWAYS},
    {"_bytes", "B", 1, ALWAYS}, {"-bytes", "B", 1, ALWAYS},
    {NULL, NULL, 0, ALWAYS},
};

/* Words that make a name about time, or about memory size. */
static const char *const time_words[] = {"time", "latency", "duration", "elapsed", "wall",
                                         "dt", "eta", "wait", "delay", "clock", NULL};
static const char *const size_words[] = {"mem", "ram", "alloc", "reserved", "cache", "byte",
                                         "size", "vram", "cuda", "disk", NULL};

/* Name parts that say "seconds" before a statistic suffix, as in the MAE
 * profiler's profiling/timing_forward_pass_avg and batch_time_std. */
static const char *const time_parts[] = {"timing_", "time_avg", "time_std", "time_mean",
                                         "time_max", "time_min", NULL};

static bool contains_nocase(const char *s, size_t len, const char *part)
{
    size_t n = strlen(part);
    for (size_t i = 0; i + n <= len; i++)
        if (strncasecmp(s + i, part, n) == 0)
            return true;
    return false;
}

static bool contains_any(const char *s, size_t len, const char *const *words)
{
    for (int i = 0; words[i]; i++)
        if (contains_nocase(s, len, words[i]))
            return true;
    return false;
}

size_t pdb_units_name_stem(const char *name, size_t len)
{
    /* units only: "_time", "wall" or "/s" say what the number is */
    static const char *const unit_endings[] = {"_ms", "(ms)", "_msec", "_us", "_ns", "_sec", "_secs",
                                              "_seconds", "(s)", "_s", NULL};
    double factor;
    if (!pdb_units_from_name(name, len, &factor))
        return len;
    for (int i = 0; unit_endings[i]; i++) {
        size_t n = strlen(unit_endings[i]);
        if (len > n && strncasecmp(name + len - n, unit_endings[i], n) == 0)
            return len - n;
    }
    return len;
}

const char *pdb_units_from_name(const char *name, size_t len, double *factor)
{
    for (const name_unit *u = name_units; u->suffix; u++) {
        size_t n = strlen(u->suffix);
        if (len < n || strncasecmp(name + len - n, u->suffix, n) != 0)
            continue;
        if ((u->when == IF_WHOLE && len != n) ||
            (u->when == IF_TIME && !contains_any(name, len - n, time_words)) ||
            (u->when == IF_SIZE && !contains_any(name, len - n, size_words)))
            return NULL; /* a suffix, but not a unit in this name */
        *factor = u->factor;
        return u->canon;
    }
    if (contains_nocase(name, len, "_ms_") || contains_nocase(name, len, "percent"))
        return NULL; /* a unit we cannot place: better none than a wrong one */
    for (int i = 0; time_parts[i]; i++)
        if (contains_nocase(name, len, time_parts[i])) {
            *factor = 1;
            return "s";
        }
    return NULL;
}

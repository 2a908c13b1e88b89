/* opts.c: command-line option parsing and help (see opts.h). */
#include "common/opts.h"
#include "common/error.h"
#include "common/strutil.h"
#include "common/xalloc.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const pdb_opt *find_long(const pdb_opt *opts, const char *name, size_t len)
{
    for (const pdb_opt *o = opts; o->type != PDB_OPT_END; o++)
        if (strlen(o->long_name) == len && strncmp(o->long_name, name, len) == 0)
            return o;
    return NULL;
}

static const pdb_opt *find_short(const pdb_opt *opts, char c)
{
    for (const pdb_opt *o = opts; o->type != PDB_OPT_END; o++)
        if (o->short_name && o->short_name == c)
            return o;
    return NULL;
}

static int set_value(const pdb_opt *o, const char *value)
{
    switch (o->type) {
    case PDB_OPT_STRING:
        *(const char **)o->target = value;
        return PDB_OK;
    case PDB_OPT_INT: {
        char *end;
        errno = 0;
        long v = strtol(value, &end, 10);
        /* No option takes a negative count; -1 would silently mean "all". */
        if (errno || *end || end == value || v < 0)
            return pdb_fail("--%s: expected a whole number >= 0, got '%s'", o->long_name, value);
        *(long *)o->target = v;
        return PDB_OK;
    }
    case PDB_OPT_LIST: {
        pdb_strlist *l = o->target;
        l->v = pdb_xrealloc(l->v, (size_t)(l->n + 1) * sizeof *l->v);
        l->v[l->n++] = value;
        return PDB_OK;
    }
    default:
        return PDB_OK;
    }
}

static int usage_error(const pdb_cmd_help *help, const char *fmt, const char *what)
{
    char msg[512];
    snprintf(msg, sizeof msg, fmt, what);
    return pdb_fail("%s (usage: %s; see --help)", msg, help->usage);
}

/* An option no command has: "did you mean --NAME?" when one is close. */
static int unknown_option(const pdb_opt *opts, const pdb_cmd_help *help, const char *arg)
{
    const char *names[128];
    size_t n = 0;
    for (const pdb_opt *o = opts; o->type != PDB_OPT_END && n < 128; o++)
        names[n++] = o->long_name;
    char given[256];
    snprintf(given, sizeof given, "%.*s", (int)strcspn(arg + 2, "="), arg + 2);
    const char *close = arg[1] == '-' ? pdb_closest_name(given, names, n) : NULL;
    if (!close)
        return usage_error(help, "unknown option '%s'", arg);
    char fmt[300];
    snprintf(fmt, sizeof fmt, "unknown option '%%s' (did you mean --%s?)", close);
    return usage_error(help, fmt, arg);
}

/* A single-valued option given twice would silently keep the last value:
 * refused, naming both (PDB_OPT_LIST options repeat). */
static int repeated(const pdb_opt *o, const char *first, const char *value)
{
    return pdb_fail("option '--%s' given twice ('%s', then '%s'): it takes one value", o->long_name,
                    first, value);
}

/* Handles argv[*i], an option; may consume the next argument as its value. */
static int parse_one(int argc, char **argv, int *i, const pdb_opt *opts,
                     const pdb_cmd_help *help, const char **given)
{
    const char *arg = argv[*i];
    const pdb_opt *o;
    const char *value = NULL;
    if (arg[1] == '-') {
        const char *name = arg + 2, *eq = strchr(name, '=');
        o = find_long(opts, name, eq ? (size_t)(eq - name) : strlen(name));
        if (!o)
            return unknown_option(opts, help, arg);
        if (eq)
            value = eq + 1;
        if (o->type == PDB_OPT_FLAG && eq)
            return usage_error(help, "option '--%s' takes no value", o->long_name);
    } else {
        o = find_short(opts, arg[1]);
        if (!o)
            return usage_error(help, "unknown option '%s'", arg);
        if (arg[2]) {
            if (o->type == PDB_OPT_FLAG)
                return usage_error(help, "unknown option '%s'", arg);
            value = arg + 2;
        }
    }
    if (o->type == PDB_OPT_FLAG) {
        *(bool *)o->target = true;
        return PDB_OK;
    }
    if (!value) {
        if (*i + 1 >= argc)
            return usage_error(help, "option '--%s' needs a value", o->long_name);
        value = argv[++*i];
    }
    const char **first = &given[o - opts];
    if (o->type != PDB_OPT_LIST && *first)
        return repeated(o, *first, value);
    *first = value;
    return set_value(o, value);
}

int pdb_parse_options(int argc, char **argv, const pdb_opt *opts, const pdb_cmd_help *help,
                      int *npos)
{
    int out = 1, nopts = 0;
    bool only_positional = false;
    while (opts[nopts].type != PDB_OPT_END)
        nopts++;
    /* each option's value as first given, to refuse a second */
    const char **given = pdb_xcalloc((size_t)nopts + 1, sizeof *given);
    int rc = PDB_OK;
    for (int i = 1; i < argc && rc == PDB_OK; i++) {
        const char *arg = argv[i];
        if (only_positional || arg[0] != '-' || arg[1] == '\0') {
            argv[out++] = argv[i];
            continue;
        }
        if (strcmp(arg, "--") == 0) {
            only_positional = true;
            continue;
        }
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            pdb_print_help(opts, help);
            rc = PDB_OPT_HELP_SHOWN;
        } else if (parse_one(argc, argv, &i, opts, help, given) != PDB_OK)
            rc = PDB_ERR;
    }
    free(given);
    *npos = out - 1;
    return rc;
}

void pdb_print_help(const pdb_opt *opts, const pdb_cmd_help *help)
{
    printf("usage: %s\n\n%s\n", help->usage, help->summary);
    if (opts->type != PDB_OPT_END)
        printf("\noptions:\n");
    for (const pdb_opt *o = opts; o->type != PDB_OPT_END; o++) {
        char left[64];
        int n = 0;
        if (o->short_name)
            n = snprintf(left, sizeof left, "-%c, ", o->short_name);
        snprintf(left + n, sizeof left - (size_t)n, "--%s%s%s", o->long_name,
                 o->argname ? " " : "", o->argname ? o->argname : "");
        printf("  %-26s %s\n", left, o->help);
    }
    printf("  %-26s %s\n", "-h, --help", "show this help and exit");
    if (help->details)
        printf("\n%s\n", help->details);
}

void pdb_strlist_free(pdb_strlist *l)
{
    free(l->v);
    l->v = NULL;
    l->n = 0;
}

int pdb_parse_double(const char *what, const char *s, double *out)
{
    char *end;
    errno = 0;
    *out = strtod(s, &end);
    if (errno || end == s || *end || !isfinite(*out))
        return pdb_fail("%s: expected a number, got '%s'", what, s);
    return PDB_OK;
}

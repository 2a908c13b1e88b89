/* test_units.c: number and unit parsing of step logs (ingest/steplog/steplog_units.c). */
#include "ingest/steplog/steplog_units.h"
#include "check.h"

#include <math.h>

static double q(const char *s, const char **unit)
{
    double v = -12345;
    if (!pdb_units_quantity(s, strlen(s), &v, unit))
        return -12345;
    return v;
}

static int near(double a, double b)
{
    return fabs(a - b) <= 1e-9 * (fabs(b) > 1 ? fabs(b) : 1);
}

static void numbers(void)
{
    double v;
    CHECK_INT(pdb_units_number("5,970", 5, &v), 5);
    CHECK(v == 5970);
    CHECK_INT(pdb_units_number("1,234,567.5x", 12, &v), 11);
    CHECK(v == 1234567.5);
    /* "1,2" is two numbers, not one: groups must have three digits */
    CHECK_INT(pdb_units_number("1,2", 3, &v), 1);
    CHECK(v == 1);
    CHECK_INT(pdb_units_number("1,2345", 6, &v), 1);
    CHECK_INT(pdb_units_number("-1.069056E+01", 13, &v), 13);
    CHECK(near(v, -10.69056));
    CHECK_INT(pdb_units_number("5e", 2, &v), 1); /* no exponent digits: stop before e */
    CHECK_INT(pdb_units_number("nan", 3, &v), 3);
    CHECK(isnan(v));
    CHECK_INT(pdb_units_number("-inf", 4, &v), 4);
    CHECK(isinf(v) && v < 0);
    CHECK_INT(pdb_units_number("info", 4, &v), 0);
    CHECK_INT(pdb_units_number("abc", 3, &v), 0);
    CHECK_INT(pdb_units_number("", 0, &v), 0);
    CHECK_INT(pdb_units_number("-", 1, &v), 0);
    CHECK_INT(pdb_units_number(".", 1, &v), 0);
}

static void quantities(void)
{
    const char *u = NULL;
    CHECK(near(q("123.4ms", &u), 0.1234));
    CHECK_STR(u, "s");
    CHECK(near(q(" 7.03 s/it ", &u), 7.03));
    CHECK_STR(u, "s");
    CHECK(near(q("75.25GiB", &u), 75.25 * 1073741824.0));
    CHECK_STR(u, "B");
    CHECK(near(q("446 MiB", &u), 446 * 1048576.0));
    CHECK(near(q("83.14%", &u), 83.14));
    CHECK_STR(u, "%");
    CHECK(near(q("0 %", &u), 0));
    CHECK_STR(u, "%");
    CHECK(near(q("11.5K", &u), 11500));
    CHECK_STR(u, "");
    CHECK(near(q("85.8G", &u), 85.8e9));
    CHECK(near(q("22.8k", &u), 22800));
    CHECK(near(q("5,970", &u), 5970));
    CHECK(near(q("250us", &u), 250e-6));
    CHECK(near(q("1.5 h", &u), 5400));
    CHECK(near(q("1 day, 0:03:02", &u), 86400 + 182));
    CHECK_STR(u, "s");
    CHECK(near(q("2 days, 1:00:00.5", &u), 2 * 86400 + 3600.5));
    CHECK(near(q("16:19:16", &u), 16 * 3600 + 19 * 60 + 16));
    CHECK(near(q("23:31", &u), 23 * 60 + 31));
    CHECK(q("abc", &u) == -12345);
    CHECK(q("12 apples", &u) == -12345);
    CHECK(q("1:2:3:4", &u) == -12345);
    CHECK(q("", &u) == -12345);
    CHECK(q("3106242.77training", &u) == -12345);
    CHECK(q("day", &u) == -12345);
}

static void names(void)
{
    double f = 0;
    CHECK_STR(pdb_units_from_name("profile/train/dl_main/time_forward_ms", 37, &f), "s");
    CHECK(near(f, 1e-3));
    CHECK_STR(pdb_units_from_name("elapsed time per iteration (ms)", 31, &f), "s");
    CHECK(near(f, 1e-3));
    CHECK_STR(pdb_units_from_name("epoch_time", 10, &f), "s");
    CHECK(near(f, 1));
    CHECK_STR(pdb_units_from_name("mem-allocated-bytes", 19, &f), "B");
    CHECK_STR(pdb_units_from_name("profiling/epoch_forward_pass_percentage", 39, &f), "%");
    CHECK(pdb_units_from_name("loss", 4, &f) == NULL);
    CHECK_STR(pdb_units_from_name("tokens_per_sec", 14, &f), "/s");
    CHECK_STR(pdb_units_from_name("profiling/timing_forward_pass_avg", 33, &f), "s");
    CHECK(near(f, 1));
    CHECK_STR(pdb_units_from_name("profiling/batch_time_std", 24, &f), "s");
    CHECK(pdb_units_from_name("profiling/timing_ms_avg", 23, &f) == NULL);
    CHECK_STR(pdb_units_from_name("CurrSamplesPerSec", 17, &f), "/s");
    CHECK_STR(pdb_units_from_name("eval_samples_per_second", 23, &f), "/s");
    double factor;
    CHECK_STR(pdb_units_canon("it/s", 4, &factor), "1/s");
    CHECK(pdb_units_canon("parsecs", 7, &factor) == NULL);
}

/* A name suffix is a unit only when the name is about time or size. */
static void suffix_units(void)
{
    double f = 0;
#define NAME(s) s, strlen(s), &f
    CHECK(pdb_units_from_name(NAME("coco/bbox_mAP_s")) == NULL); /* small objects */
    CHECK(pdb_units_from_name(NAME("segm_mAP_s")) == NULL);
    CHECK_STR(pdb_units_from_name(NAME("iter_time_s")), "s");
    CHECK_STR(pdb_units_from_name(NAME("latency_s")), "s");
    CHECK(pdb_units_from_name(NAME("minibatch_mb")) == NULL);
    CHECK_STR(pdb_units_from_name(NAME("mem_mb")), "B");
    CHECK(near(f, 1048576));
    CHECK_STR(pdb_units_from_name(NAME("fetch_ms")), "s"); /* ms: unambiguous */
    CHECK_STR(pdb_units_from_name(NAME("train_wall")), "s");
    CHECK_STR(pdb_units_from_name(NAME("wall")), "s");
    CHECK(pdb_units_from_name(NAME("firewall")) == NULL);
    CHECK_STR(pdb_units_from_name(NAME("System/Peak GPU Memory (MB)")), "B");
    CHECK(near(f, 1e6));
    CHECK_STR(pdb_units_from_name(NAME("Speed (samples/sec)")), "/s");
#undef NAME
    /* Keras prints the time per step */
    const char *u;
    double v;
    CHECK(pdb_units_quantity("8ms/step", 8, &v, &u) && near(v, 0.008) && strcmp(u, "s") == 0);
    CHECK(pdb_units_quantity("2s/step", 7, &v, &u) && near(v, 2) && strcmp(u, "s") == 0);
    CHECK(pdb_units_quantity("178.28/s", 8, &v, &u) && near(v, 178.28) && strcmp(u, "/s") == 0);
}

int main(void)
{
    numbers();
    quantities();
    names();
    suffix_units();
    return check_report();
}

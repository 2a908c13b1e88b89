/* test_strutil.c: the skip-prefix helpers (common/strutil.c), the UTF-8 check
 * (common/utf8.c), the log timestamps and the JSON sniff of the readers. */
#include "common/strutil.h"
#include "common/utf8.h"
#include "ingest/readers.h"
#include "ingest/steplog/steplog.h"
#include "check.h"

#include <math.h>
#include <string.h>

static void prefixes(void)
{
    const char *rest = NULL;
    size_t restlen = 0;
    CHECK(pdb_skip_prefix("] step=10", "] step=", &rest) && strcmp(rest, "10") == 0);
    CHECK(!pdb_skip_prefix("] ste", "] step=", &rest));
    const char line[] = "epoch: 3|step: 7";
    CHECK(pdb_skip_prefix_mem(line, strlen(line), "epoch: ", &rest, &restlen));
    CHECK(rest == line + 7 && restlen == strlen(line) - 7);
    CHECK(!pdb_skip_prefix_mem(line, 3, "epoch: ", NULL, NULL)); /* len bounds it */
    CHECK(pdb_skip_prefix_icase("Epoch 3", 7, "epoch ", &rest, &restlen) && restlen == 1);
    CHECK(pdb_skip_suffix_mem("7.03s/it", 8, "s/it", &restlen) && restlen == 4);
    CHECK(!pdb_skip_suffix_mem("it", 2, "s/it", &restlen));
    CHECK(pdb_mem_is("step", 4, "step") && !pdb_mem_is("steps", 5, "step"));
    CHECK(pdb_ends_with_icase("Time (AVG)", 10, " (avg)"));
}

static void utf8(void)
{
    const unsigned char ok[] = "step 5 \xc2\xb5s \xe2\x96\x88";
    CHECK_INT(pdb_utf8_invalid(ok, sizeof ok - 1), 0);
    const unsigned char cut[] = "loss \xe2\x96"; /* a sequence cut by the prefix end */
    CHECK_INT(pdb_utf8_invalid(cut, sizeof cut - 1), 0);
    const unsigned char marshal[] = {0xfb, 0x00, 0x7b, 0xe9, 0x41};
    CHECK_INT(pdb_utf8_invalid(marshal, sizeof marshal), 2);
}

static int near(double a, double b)
{
    return fabs(a - b) < 1e-6;
}

static void timestamps(void)
{
    double t = 0, base = 0;
    CHECK_INT(pdb_steplog_timestamp_any("2024-04-17 09:42:26] INFO", 25, &base), 19);
    CHECK_INT(pdb_steplog_timestamp_any("01/17/2024 13:47:27 [INFO", 25, &t), 19);
    /* 2024-01-17 13:47:27 is 91 days and 4:05:01 before 2024-04-17 09:42:26 */
    CHECK(near(base - t, 91 * 86400.0 - (4 * 3600 + 5 * 60 + 1)));
    /* d2's "[08/30 23:33:20 ...": no year, read in 2000 */
    CHECK_INT(pdb_steplog_timestamp_any("08/30 23:33:20 d2", 17, &t), 14);
    double u;
    CHECK_INT(pdb_steplog_timestamp_any("08/30 23:33:28 d2", 17, &u), 14);
    CHECK(near(u - t, 8));
    CHECK_INT(pdb_steplog_timestamp_any("23:59:59.5 x", 12, &t), 10);
    CHECK_INT(pdb_steplog_timestamp_any("13/30 23:33:20", 14, &t), 0); /* no month 13 */
    CHECK_INT(pdb_steplog_timestamp_any("0:20:31", 7, &t), 0);        /* an ETA, not a time */
}

static void json_sniff(void)
{
#define J(s) (const unsigned char *)(s), strlen(s)
    CHECK(pdb_sniff_json(J("{\"traceEvents\": [{\"ph\": \"X\"")));      /* cut: still JSON */
    CHECK(pdb_sniff_json(J("{\"step\": 1}\n{\"step\": 2}\n")));       /* JSON Lines */
    CHECK(pdb_sniff_json(J("  [ {\"ph\": \"B\"}, ")));
    CHECK(!pdb_sniff_json(J("[08/30 23:33:20] d2.utils.events INFO:  eta: 0:20:31")));
    CHECK(!pdb_sniff_json(J("[2024-04-17 09:42:26] INFO [olmo.train:816]")));
    CHECK(!pdb_sniff_json(J("{'loss': 1.0}")));
    CHECK(!pdb_sniff_json(J("step 1 loss 2")));
#undef J
}

/* "did you mean": the edit distance, and the closest name within a third
 * of the given name's length (at least 2). */
static void closest_names(void)
{
    CHECK_INT(pdb_edit_distance("trace", "trcae", 10), 2);
    CHECK_INT(pdb_edit_distance("kitten", "sitting", 10), 3);
    CHECK_INT(pdb_edit_distance("", "abc", 10), 3);
    CHECK_INT(pdb_edit_distance("abcdef", "uvwxyz", 2), 3); /* past the limit: limit + 1 */
    const char *runs[] = {"base", "tuned", "trace", "traces"};
    CHECK_STR(pdb_closest_name("trcae", runs, 4), "trace");
    CHECK_STR(pdb_closest_name("tunned", runs, 4), "tuned");
    CHECK(pdb_closest_name("zzzzzz", runs, 4) == NULL);
    CHECK(pdb_closest_name("trace", runs, 4) != NULL);  /* an exact name is not offered... */
    CHECK_STR(pdb_closest_name("trace", runs, 4), "traces"); /* ...a close other one is */
    CHECK(pdb_closest_name("x", runs, 0) == NULL);
}

int main(void)
{
    closest_names();
    prefixes();
    utf8();
    timestamps();
    json_sniff();
    return check_report();
}

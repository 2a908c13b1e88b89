/* test_numtext.c: exact decimal text conversions (common/numtext.c). */
#include "common/numtext.h"
#include "check.h"

static int64_t scaled(const char *s, int scale, int expect_rc)
{
    int64_t v = -999;
    int rc = pdb_decimal_scaled(s, strlen(s), scale, &v);
    CHECK_INT(rc, expect_rc);
    return v;
}

int main(void)
{
    /* Microseconds to nanoseconds, exactly, where a double would not be. */
    CHECK_INT(scaled("4458676416789.123", 3, PDB_NUM_OK), 4458676416789123LL);
    CHECK_INT(scaled("1695835542481129", 3, PDB_NUM_OK), 1695835542481129000LL);
    CHECK_INT(scaled("0.001", 3, PDB_NUM_OK), 1);
    CHECK_INT(scaled("0", 3, PDB_NUM_OK), 0);
    CHECK_INT(scaled("-12.5", 3, PDB_NUM_OK), -12500);
    CHECK_INT(scaled("1.5e3", 3, PDB_NUM_OK), 1500000);
    CHECK_INT(scaled("15E-1", 3, PDB_NUM_OK), 1500);
    CHECK_INT(scaled("000012.000", 3, PDB_NUM_OK), 12000);
    /* More digits than nanoseconds hold: round half away from zero. */
    CHECK_INT(scaled("1.0004", 3, PDB_NUM_OK), 1000);
    CHECK_INT(scaled("1.0005", 3, PDB_NUM_OK), 1001);
    CHECK_INT(scaled("-1.0005", 3, PDB_NUM_OK), -1001);
    CHECK_INT(scaled("0.0000001", 3, PDB_NUM_OK), 0);
    /* Kineto's epoch microseconds, and the edges of the fast path (at most
     * 18 digits once scaled) against the general one. */
    CHECK_INT(scaled("1700000000000.100", 3, PDB_NUM_OK), 1700000000000100LL);
    CHECK_INT(scaled("1700000000000.1", 3, PDB_NUM_OK), 1700000000000100LL);
    CHECK_INT(scaled("999999999999999999", 0, PDB_NUM_OK), 999999999999999999LL);
    CHECK_INT(scaled("999999999999999.999", 3, PDB_NUM_OK), 999999999999999999LL);
    CHECK_INT(scaled("9223372036854775.807", 3, PDB_NUM_OK), INT64_MAX);
    scaled("9223372036854775.808", 3, PDB_NUM_RANGE);
    scaled("9999999999999999.99", 3, PDB_NUM_RANGE);
    CHECK_INT(scaled("922337203685477580.7", 0, PDB_NUM_OK), 922337203685477581LL);
    CHECK_INT(scaled("1234567890123456789", 0, PDB_NUM_OK), 1234567890123456789LL);
    CHECK_INT(scaled("12.", 3, PDB_NUM_OK), 12000);
    CHECK_INT(scaled(".5", 3, PDB_NUM_OK), 500);
    /* Out of range and invalid text. */
    scaled("1e300", 3, PDB_NUM_RANGE);
    scaled("9223372036854775808", 0, PDB_NUM_RANGE);
    CHECK_INT(scaled("9223372036854775807", 0, PDB_NUM_OK), INT64_MAX);
    scaled("", 3, PDB_NUM_INVALID);
    scaled("abc", 3, PDB_NUM_INVALID);
    scaled("1.2.3", 3, PDB_NUM_INVALID);
    scaled("1e", 3, PDB_NUM_INVALID);
    scaled("-", 3, PDB_NUM_INVALID);
    CHECK(pdb_number_is_integer("123", 3));
    CHECK(!pdb_number_is_integer("1.0", 3));
    CHECK(!pdb_number_is_integer("1e5", 3));
    double d;
    CHECK_INT(pdb_number_to_double("2.5", 3, &d), PDB_NUM_OK);
    CHECK(d == 2.5);
    CHECK_INT(pdb_number_to_double("2.5x", 4, &d), PDB_NUM_INVALID);
    return check_report();
}

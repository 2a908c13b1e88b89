/* test_compare.c: metric names of `profdb check` and the kernel-name
 * normalisation of `profdb diff --normalize-names`. */
#include "compare/compare.h"
#include "compare/diff.h"
#include "check.h"

static void test_metric_parse(void)
{
    pdb_metric m;
    CHECK_INT(pdb_metric_parse("step_time", &m), 0);
    CHECK_INT(m.kind, PDB_METRIC_STEP_TIME);
    CHECK(m.higher_is_worse);
    CHECK_INT(pdb_metric_parse("throughput", &m), 0);
    CHECK(!m.higher_is_worse);
    CHECK_STR(m.unit, "/s");
    CHECK_INT(pdb_metric_parse("phase:forward", &m), 0);
    CHECK_INT(m.kind, PDB_METRIC_PHASE);
    CHECK_STR(m.name, "forward");
    CHECK_INT(pdb_metric_parse("op:aten::mm", &m), 0);
    CHECK_INT(m.kind, PDB_METRIC_OP);
    CHECK_STR(m.name, "aten::mm");
    CHECK_INT(pdb_metric_parse("kernel:void k<float>(int)", &m), 0);
    CHECK_STR(m.name, "void k<float>(int)");
    CHECK_INT(pdb_metric_parse("kernel:", &m), -1);
    /* Any other bare name is a step-log metric, its direction from its name. */
    CHECK_INT(pdb_metric_parse("loss", &m), 0);
    CHECK_INT(m.kind, PDB_METRIC_STEPLOG);
    CHECK(m.higher_is_worse);
    CHECK_INT(pdb_metric_parse("tokens_per_s", &m), 0);
    CHECK(!m.higher_is_worse);
    CHECK_INT(pdb_metric_parse("metric:mfu", &m), 0);
    CHECK_STR(m.name, "mfu");
    CHECK(!m.higher_is_worse);
    CHECK_INT(pdb_metric_parse("kernel-calls:k", &m), 0);
    CHECK_STR(m.unit, "calls");
    CHECK_INT(pdb_metric_parse("latency:x", &m), -1);
    CHECK_INT(pdb_metric_parse("kernel-type:", &m), -1);
}

static void test_normalize(void)
{
    char out[128];
    pdb_normalize_kernel_name("void k<float, 4>(float*)", out, sizeof out);
    CHECK_STR(out, "void k<...>(float*)");
    pdb_normalize_kernel_name("void a<b<int>, 2>::run<3>(0x7f00ab)", out, sizeof out);
    CHECK_STR(out, "void a<...>::run<...>(0x?)");
    pdb_normalize_kernel_name("Memcpy HtoD (Pinned -> Device)", out, sizeof out);
    CHECK_STR(out, "Memcpy HtoD (Pinned -> Device)");  /* a lone '>' stays */
    pdb_normalize_kernel_name("ncclKernel_AllReduce", out, 6);
    CHECK_STR(out, "ncclK");                             /* cut, terminated */
}

int main(void)
{
    test_metric_parse();
    test_normalize();
    return check_report();
}

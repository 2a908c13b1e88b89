# pstats: the marshal decoder's byte-level counts against the corpus oracles
# (the test_marshal unit executable, given the corpus folder; skipped, exit
# 77, when the corpus is absent and not required).
add_test(NAME unit.test_marshal_pstats_corpus COMMAND ${PROFDB_TEST_PREFIX} $<TARGET_FILE:test_marshal> ${PROFDB_CORPUS}/pstats)
set_tests_properties(unit.test_marshal_pstats_corpus PROPERTIES LABELS "quick;oracle")

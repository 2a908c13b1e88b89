# Writes OUT: a C file holding each schema file's text as a string, in order,
# as PREFIX_names, PREFIX_texts and PREFIX_count (PREFIX default pdb_schema).
# Invoked at build time with -DOUT=... -DFILES=a.sql|b.sql [-DPREFIX=...]
string(REPLACE "|" ";" FILES "${FILES}")
if(NOT PREFIX)
  set(PREFIX pdb_schema)
endif()
set(body "/* Generated from schemas/ by cmake/embed_sql.cmake; do not edit. */\n")
string(APPEND body "#include <stddef.h>\n")
set(names "")
set(texts "")
set(n 0)
foreach(f ${FILES})
  file(READ ${f} sql)
  get_filename_component(name ${f} NAME)
  # Bracket-free escaping: backslashes, quotes, then one C string per line.
  string(REPLACE "\\" "\\\\" sql "${sql}")
  string(REPLACE "\"" "\\\"" sql "${sql}")
  string(REPLACE "\n" "\\n\"\n\"" sql "${sql}")
  string(APPEND texts "  \"${sql}\",\n")
  string(APPEND names "  \"${name}\",\n")
  math(EXPR n "${n} + 1")
endforeach()
string(APPEND body "const char *const ${PREFIX}_names[] = {\n${names}  NULL\n};\n")
string(APPEND body "const char *const ${PREFIX}_texts[] = {\n${texts}  NULL\n};\n")
string(APPEND body "const size_t ${PREFIX}_count = ${n};\n")
file(WRITE ${OUT}.tmp "${body}")
# Only touch OUT when it changed, so rebuilds stay incremental.
execute_process(COMMAND ${CMAKE_COMMAND} -E copy_if_different ${OUT}.tmp ${OUT})

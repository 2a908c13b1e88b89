#!/usr/bin/env python3
"""check_sql_strings.py: SQL lives in .sql files, not in C string literals.

Every query profdb runs is kept in a FOLDER/queries/*.sql file (or the
schema and its migrations), built into the binary and prepared by
unit.test_queries against a fresh database (docs/internals.md, "SQL").
A query written as a C string literal is prepared by no test and read by
no one looking for the SQL, so this check fails on one: a string literal
(adjacent literals joined, as the compiler joins them) in a .c or .h file
of the layers below that starts a statement - an SQL keyword such as
SELECT, INSERT, CREATE, WITH, PRAGMA or ATTACH at its start or after a ';'
or '(' - in upper case, followed by a space or the end of the literal.

A few one-line statements stay in C, each with its reason, in ALLOWED
below: at most 10 of them. The key is the file and the statement as
written (surrounding blanks removed); line numbers are not part of it, so
unrelated edits do not break the check. An allowed statement that is no
longer found is a failure too, so the list cannot outgrow the code.
usage: check_sql_strings.py SOURCE_DIR"""
import os
import re
import sys

LAYERS = ["common", "ingest", "analyze", "render", "report", "compare", "cli"]

KEYWORDS = ("SELECT", "INSERT", "UPDATE", "DELETE", "REPLACE", "CREATE", "DROP", "ALTER",
            "WITH", "PRAGMA", "ATTACH", "DETACH", "BEGIN", "COMMIT", "END", "ROLLBACK",
            "SAVEPOINT", "RELEASE", "VACUUM", "ANALYZE", "REINDEX", "EXPLAIN", "VALUES")
# A keyword starting the literal, or a statement inside it.
STATEMENT = re.compile(r"(?:^|[;(])\s*(" + "|".join(KEYWORDS) + r")(?=\s|$|;)")

# (file, statement) -> why it stays a C string. At most MAX_ALLOWED.
ALLOWED = {
    ("common/db.c", "BEGIN"):
        "pdb_db_begin: transaction control, no table to check; every caller goes through it",
    ("common/db.c", "BEGIN IMMEDIATE"):
        "pdb_db_begin_immediate: as BEGIN, taking the write lock at once",
    ("common/db.c", "COMMIT"):
        "pdb_db_commit: transaction control, the one place it is written",
    ("common/db.c", "ROLLBACK"):
        "pdb_db_rollback: transaction control, run with sqlite3_exec so that a failure "
        "keeps the error being reported",
}
MAX_ALLOWED = 10

# C tokens that matter here: comments, string and character literals.
TOKEN = re.compile(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)
BETWEEN_PIECES = re.compile(r"\s*")


def literals(text):
    """Yields (line, value) for each string literal, adjacent ones joined
    (a macro between two pieces, as in "INSERT INTO " TABLE " ...", ends
    the literal; the first piece still starts the statement)."""
    value, start, end = None, 0, -1
    for m in TOKEN.finditer(text):
        tok = m.group(0)
        if tok[0] != '"':
            if tok.startswith("/") and value is not None and text[end:m.start()].strip() == "":
                end = m.end()  # a comment between pieces keeps them joined
                continue
            if value is not None:
                yield start, value
                value = None
            continue
        piece = bytes(tok[1:-1], "utf-8").decode("unicode_escape", errors="replace")
        if value is not None and BETWEEN_PIECES.fullmatch(text, end, m.start()):
            value += piece
        else:
            if value is not None:
                yield start, value
            value, start = piece, text.count("\n", 0, m.start()) + 1
        end = m.end()
    if value is not None:
        yield start, value


def sql_statements(text):
    """(line, statement) for each literal that starts an SQL statement."""
    for line, value in literals(text):
        if STATEMENT.search(value):
            yield line, " ".join(value.split())


def main(root):
    found, files = [], 0
    for layer in LAYERS:
        for folder, _dirs, names in sorted(os.walk(os.path.join(root, layer))):
            for name in sorted(names):
                if not name.endswith((".c", ".h")):
                    continue
                files += 1
                path = os.path.join(folder, name)
                rel = os.path.relpath(path, root)
                with open(path, encoding="utf-8") as f:
                    text = f.read()
                for line, stmt in sql_statements(text):
                    found.append((rel, line, stmt))
    if files < 20:
        print(f"FAIL: only {files} source files found under {root}")
        return 1
    bad = 0
    if len(ALLOWED) > MAX_ALLOWED:
        print(f"FAIL: {len(ALLOWED)} allowed statements, at most {MAX_ALLOWED}")
        bad += 1
    seen = set()
    for rel, line, stmt in found:
        if (rel, stmt) in ALLOWED:
            seen.add((rel, stmt))
            continue
        short = stmt if len(stmt) <= 100 else stmt[:97] + "..."
        print(f"FAIL: {rel}:{line}: SQL in a C string: {short}")
        bad += 1
    for rel, stmt in sorted(set(ALLOWED) - seen):
        print(f"FAIL: {rel}: allowed statement no longer found (drop it from ALLOWED): {stmt}")
        bad += 1
    print(f"{files} files, {len(found)} SQL strings ({len(seen)} allowed), {bad} failures")
    if bad:
        print("Move the SQL to a FOLDER/queries/*.sql file (common/query.h) and run it by name.")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "."))

/* cmd_schema.c: `profdb schema`: the documented SQL schema, as embedded. */
#include "cli/cli.h"
#include "common/db.h"

#include <stdio.h>

static const pdb_cmd_help help = {
    "profdb schema",
    "Prints the SQL that creates a profdb database, with a comment on every table and\n"
    "column, for writing your own queries with 'profdb sql' or sqlite3.",
    NULL,
};

int cmd_schema(int argc, char **argv, pdb_cli *cli)
{
    const pdb_opt opts[] = {{0}};
    int npos;
    int early = pdb_cli_parse(argc, argv, opts, &help, &npos);
    if (early >= 0)
        return early;
    printf("-- profdb schema version %d\n", PDB_SCHEMA_VERSION);
    for (size_t i = 0; i < pdb_schema_count; i++)
        printf("\n-- ===== %s =====\n%s", pdb_schema_names[i], pdb_schema_texts[i]);
    return 0;
}

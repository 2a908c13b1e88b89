/* kernel_type.c: GPU event names to kernel types, as HTA names them.
 * Memory first so that hip-prefixed copies are memory, not communication;
 * synchronisation events ("Context Sync", "Stream Wait Event") are OTHER. */
#include "analyze/analyze.h"

#include <stdio.h>
#include <string.h>

static bool starts(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

pdb_kernel_type pdb_kernel_type_of(const char *name)
{
    const char *n = starts(name, "hip") ? name + 3 : name;
    if (starts(n, "Memcpy") || starts(n, "Memset") || starts(n, "dma"))
        return PDB_KT_MEMORY;
    if (starts(name, "nccl") || starts(name, "hccl") || starts(name, "hip") ||
        strstr(name, "ncclKernel"))
        return PDB_KT_COMMUNICATION;
    if (strstr(name, "Sync") || starts(name, "Stream Wait"))
        return PDB_KT_OTHER;
    return PDB_KT_COMPUTATION;
}

const char *pdb_kernel_type_name(pdb_kernel_type t)
{
    static const char *const names[] = {"COMPUTATION", "COMMUNICATION", "MEMORY", "OTHER"};
    return t < PDB_KT_COUNT ? names[t] : "UNKNOWN";
}

void pdb_kernel_mask_name(unsigned mask, char *buf, size_t cap)
{
    size_t n = 0;
    buf[0] = '\0';
    for (int t = 0; t < PDB_KT_COUNT; t++)
        if (mask & (1u << t))
            n += (size_t)snprintf(buf + n, n < cap ? cap - n : 0, "%s%s",
                                  n ? " overlapping " : "", pdb_kernel_type_name((pdb_kernel_type)t));
}

/* kernel_type.c: GPU event names to kernel types, with HTA's names.
 *
 * profdb's own rule (exact mode) tests memory first, so that hip-prefixed
 * copies are memory, not communication, and calls only synchronisation
 * ("Context Sync", "Stream Wait Event") OTHER. --compat hta uses HTA's rule
 * as written, quirks included (pdb_kernel_type_hta). */
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

/* HTA's patterns are Python regular expressions applied with re.match: '.'
 * stops at a newline, so "contains" means "in the first line". */
static bool in_first_line(const char *s, const char *needle)
{
    const char *hit = strstr(s, needle), *nl = strchr(s, '\n');
    return hit && (!nl || hit + strlen(needle) <= nl);
}

/* HTA 0.6's get_kernel_type (hta/common/types.py): communication first, so
 * hipMemcpy is COMMUNICATION there; COMPUTATION is whatever its compute
 * pattern does not exclude (syncs, MTIA's pe_exe and job_exe containers,
 * launches, copies named mid-string); the rest is OTHER. */
pdb_kernel_type pdb_kernel_type_hta(const char *name)
{
    if (starts(name, "nccl") || starts(name, "hip") || starts(name, "hccl") ||
        in_first_line(name, "ncclKernel"))
        return PDB_KT_COMMUNICATION;
    if (starts(name, "Memcpy") || starts(name, "Memset") || starts(name, "dma"))
        return PDB_KT_MEMORY;
    static const char *const not_compute_prefix[] = {
        "Stream Wait Event", "runFunction", "job_exe", "packet", "pe_exe",
        "cpum_exe_subgraph", "collective_subgraph_execution"};
    static const char *const not_compute_inside[] = {"Memcpy", "Memset", "dma", "Sync"};
    for (size_t i = 0; i < sizeof not_compute_prefix / sizeof *not_compute_prefix; i++)
        if (starts(name, not_compute_prefix[i]))
            return PDB_KT_OTHER;
    for (size_t i = 0; i < sizeof not_compute_inside / sizeof *not_compute_inside; i++)
        if (in_first_line(name, not_compute_inside[i]))
            return PDB_KT_OTHER;
    if (starts(name, "cuda") && in_first_line(name + 4, "LaunchKernel"))
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

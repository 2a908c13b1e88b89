/* test_shorten.c: names cut together keep what tells them apart
 * (render/shorten.h): never wider than asked, cut between words, and
 * names that differ in the middle still print differently. */
#include "check.h"
#include "common/utf8.h"
#include "render/shorten.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static size_t width(const char *s)
{
    return pdb_utf8_width(s, strlen(s));
}

/* Every name of the column cut to w: none wider, distinct names distinct. */
static void column(const char *const *names, size_t n, size_t w, char **out)
{
    pdb_shorten_column(names, n, w, out);
    for (size_t i = 0; i < n; i++) {
        CHECK(width(out[i]) <= w);
        for (size_t j = 0; j < i; j++)
            if (strcmp(names[i], names[j]) != 0)
                CHECK(strcmp(out[i], out[j]) != 0);
    }
}

static void free_all(char **out, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(out[i]);
}

int main(void)
{
    /* The three kernels: 2ul, 5ul and 8ul must stay visible. */
    const char *kernels[] = {
        "split_embedding_backward_codegen_rowwise_adagrad_unweighted_kernel_cta_per_row_1"
        "<float, float, 2ul, 32ul>(float*, float, float, float, long)",
        "split_embedding_backward_codegen_rowwise_adagrad_unweighted_kernel_cta_per_row_1"
        "<float, float, 5ul, 32ul>(float*, float, float, float, long)",
        "split_embedding_backward_codegen_rowwise_adagrad_unweighted_kernel_cta_per_row_1"
        "<float, float, 8ul, 32ul>(float*, float, float, float, long)",
    };
    char *out[8];
    column(kernels, 3, 40, out);
    CHECK(strstr(out[0], "2ul") != NULL);
    CHECK(strstr(out[1], "5ul") != NULL);
    CHECK(strstr(out[2], "8ul") != NULL);
    CHECK(strncmp(out[0], "split", 5) == 0); /* the name's start stays too */
    free_all(out, 3);

    /* Cuts between words: every piece between "…" is a run of whole words. */
    const char *prose[] = {"the largest part of the critical path is GPU kernels in the step",
                           "the largest part of the critical path is CPU launch overhead"};
    column(prose, 2, 30, out);
    for (int i = 0; i < 2; i++) {
        const char *s = prose[i];
        char *dup = strdup(out[i]);
        for (char *piece = strtok(dup, "\xE2\x80\xA6"); piece; piece = strtok(NULL, "\xE2\x80\xA6")) {
            const char *at = strstr(s, piece);
            CHECK(at != NULL);
            size_t len = strlen(piece);
            bool starts = at == s || at[-1] == ' ' || piece[0] == ' ';
            bool ends = at[len] == '\0' || at[len] == ' ' || piece[len - 1] == ' ';
            CHECK(starts && ends);
        }
        free(dup);
    }
    CHECK(strstr(out[0], "GPU") != NULL);
    CHECK(strstr(out[1], "CPU") != NULL);
    free_all(out, 2);

    /* Names that fit are untouched; equal names are cut alike. */
    const char *same[] = {"aten::mm", "aten::addmm_with_a_much_longer_name", "aten::mm"};
    column(same, 3, 20, out);
    CHECK_STR(out[0], "aten::mm");
    CHECK_STR(out[2], "aten::mm");
    CHECK(width(out[1]) <= 20);
    free_all(out, 3);

    /* One word wider than the width: cut inside it, still within width. */
    char *one = pdb_shorten_one("abcdefghijklmnopqrstuvwxyz", 9);
    CHECK(width(one) == 9);
    CHECK(strncmp(one, "abcd", 4) == 0);
    free(one);
    one = pdb_shorten_one("ab", 1);
    CHECK(width(one) <= 1);
    free(one);
    /* Multi-byte text is cut at code points. */
    one = pdb_shorten_one("prüfung größe überall ändern straße", 14);
    CHECK(width(one) <= 14);
    CHECK(pdb_utf8_invalid((const unsigned char *)one, strlen(one)) == 0);
    free(one);
    return check_report();
}

/* test_html.c: index.md as HTML (render/html.c) on the Markdown profdb
 * writes and on what a hostile name could make of it. */
#include "render/html.h"
#include "check.h"

#include <stdlib.h>
#include <string.h>

/* The body of the page made from md, fed in pieces of `piece` bytes
 * (lines split anywhere must come out the same). */
static char *page(const char *md, size_t piece)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    pdb_html *h = pdb_html_open(out, "t <&>");
    size_t n = strlen(md);
    for (size_t i = 0; i < n; i += piece) {
        char buf[128]; /* pieces of up to 127 bytes and their NUL */
        size_t k = n - i < piece ? n - i : piece;
        memcpy(buf, md + i, k);
        buf[k] = 0;
        pdb_html_md(h, buf);
    }
    pdb_html_close(h);
    fclose(out);
    char *body = strstr(text, "<main>\n");
    char *end = strstr(text, "</main>");
    char *r = NULL;
    if (body && end) {
        body += strlen("<main>\n");
        r = strndup(body, (size_t)(end - body));
    }
    CHECK(strstr(text, "<title>t &lt;&amp;&gt;</title>"));
    free(text);
    return r;
}

static void expect(const char *md, const char *want)
{
    for (size_t piece = 1; piece <= 33; piece += 16) {
        char *got = page(md, piece);
        CHECK_STR(got, want);
        free(got);
    }
}

int main(void)
{
    expect("# profdb report: run a\\<b\\>\n\n- one\n- `x|y` **two**\n",
           "<h1>profdb report: run a&lt;b&gt;</h1>\n<ul>\n<li>one</li>\n"
           "<li><code>x|y</code> <strong>two</strong></li>\n</ul>\n");
    /* Only the folder's files are linked; other targets leave their text. */
    expect("![c](gpu.png) [d](gpu.dat) [x](http://e.example/a) [j](javascript:alert(1))\n",
           "<p><img src=\"gpu.png\" alt=\"c\"> <a href=\"gpu.dat\">d</a> x j)</p>\n");
    /* Escaped Markdown stays text, HTML in it escaped. */
    expect("\\!\\[i\\](http://e) \\<img src=x onerror=alert(1)\\> \\*\\*b\\*\\* a\\|b \\`c\\`\n",
           "<p>![i](http://e) &lt;img src=x onerror=alert(1)&gt; **b** a|b `c`</p>\n");
    /* A table: alignment from the separator, escaped pipes inside cells. */
    expect("| name | n |\n| --- | ---: |\n| a\\|b | 1 |\n| c |  |\n\nafter\n",
           "<div class=\"tw\"><table>\n<thead><tr><th>name</th><th class=\"n\">n</th></tr>"
           "</thead>\n<tbody>\n<tr><td>a|b</td><td class=\"n\">1</td></tr>\n"
           "<tr><td>c</td><td class=\"n\"></td></tr>\n</tbody></table></div>\n<p>after</p>\n");
    /* Long names of a column shortened together, the whole in the title. */
    char md[1024];
    snprintf(md, sizeof md, "| name |\n| --- |\n| %s2ul%s |\n| %s5ul%s |\n",
             "void split_embedding_backward_codegen_kernel_cta_per_row<float, ",
             ", float, long>(long)", "void split_embedding_backward_codegen_kernel_cta_per_row<"
             "float, ", ", float, long>(long)");
    char *got = page(md, 64);
    CHECK(got && strstr(got, "<td title=\"void split_embedding_backward_codegen_kernel_cta_per_row"
                             "&lt;float, 2ul, float, long&gt;(long)\">"));
    CHECK(got && strstr(got, "2ul") && strstr(got, "5ul") && strstr(got, "\xE2\x80\xA6"));
    free(got);
    /* Sentences wrap, never cut. */
    expect("| evidence |\n| --- |\n| the largest part of the critical path of the first 4 "
           "iterations (16.9 ms) |\n",
           "<div class=\"tw\"><table>\n<thead><tr><th>evidence</th></tr></thead>\n<tbody>\n"
           "<tr><td class=\"w\">the largest part of the critical path of the first 4 iterations "
           "(16.9 ms)</td></tr>\n</tbody></table></div>\n");
    /* Unclosed markup is text. */
    expect("a `b [c](d **e\n", "<p>a `b [c](d **e</p>\n");
    return check_report();
}

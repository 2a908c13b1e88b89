/* flamegraph.c: the SVG flame graph writer (see flamegraph.h). */
#include "render/flamegraph.h"
#include "common/error.h"
#include "common/hash.h"
#include "common/strbuf.h"
#include "render/text.h"

#include <string.h>

#define WIDTH 1200
#define PAD 10
#define ROW 16
#define HEAD 70
#define FOOT 30
#define CHAR_PX 7.2 /* a 12 px monospace character */

/* Inline script: hover details, search (click "Search", or ?s=REGEX in the
 * page's address), reset. It reads names from data-name attributes. */
static const char script[] =
    "var frames, details, matched;\n"
    "function init(evt) {\n"
    "  frames = document.getElementById('frames');\n"
    "  details = document.getElementById('details');\n"
    "  matched = document.getElementById('matched');\n"
    "  var n = frames.getElementsByTagName('g').length;\n"
    "  document.getElementById('status').textContent = n + ' frames drawn';\n"
    "  frames.addEventListener('mouseover', function (e) {\n"
    "    var g = e.target.closest ? e.target.closest('g.f') : null;\n"
    "    if (g) details.textContent = g.getElementsByTagName('title')[0].textContent;\n"
    "  });\n"
    "  frames.addEventListener('mouseout', function () { details.textContent = ' '; });\n"
    "  document.getElementById('search').addEventListener('click', function () {\n"
    "    var t = prompt('Search frames (regular expression):', '');\n"
    "    if (t !== null) search(t);\n"
    "  });\n"
    "  document.getElementById('reset').addEventListener('click', function () { search(''); });\n"
    "  var q = new URLSearchParams(window.location.search).get('s');\n"
    "  if (q) search(q);\n"
    "}\n"
    "function search(term) {\n"
    "  var re = null;\n"
    "  try { re = term ? new RegExp(term) : null; }\n"
    "  catch (e) { matched.textContent = 'not a regular expression'; return; }\n"
    "  var gs = frames.getElementsByTagName('g'), spans = [];\n"
    "  var total = +document.documentElement.getAttribute('data-total-samples');\n"
    "  for (var i = 0; i < gs.length; i++) {\n"
    "    var g = gs[i], hit = re !== null && re.test(g.getAttribute('data-name'));\n"
    "    g.classList.toggle('hl', hit);\n"
    "    if (hit) spans.push([+g.getAttribute('data-x'),\n"
    "                         +g.getAttribute('data-x') + +g.getAttribute('data-samples')]);\n"
    "  }\n"
    "  spans.sort(function (a, b) { return a[0] - b[0]; });\n"
    "  var sum = 0, end = -1;\n"
    "  for (var j = 0; j < spans.length; j++) {\n"
    "    var lo = Math.max(spans[j][0], end);\n"
    "    if (spans[j][1] > lo) { sum += spans[j][1] - lo; end = spans[j][1]; }\n"
    "  }\n"
    "  matched.textContent = re === null ? ' ' :\n"
    "    'matched: ' + (total ? (100 * sum / total).toFixed(2) : '0') + '% of samples';\n"
    "}\n";

static const char style[] =
    "text { font-family: monospace; font-size: 12px; fill: #000; }\n"
    "#title { font-size: 17px; }\n"
    "#search, #reset { cursor: pointer; fill: #225; }\n"
    "g.f:hover rect { stroke: #000; stroke-width: 0.5; }\n"
    "g.hl rect { fill: rgb(230, 0, 230) !important; }\n";

/* A warm colour from the name (the same name, the same colour); grey-blue
 * for pseudo-frames. */
static void colour(const pdb_flame_box *b, char *out, size_t cap)
{
    if (b->pseudo) {
        snprintf(out, cap, "rgb(170,180,200)");
        return;
    }
    uint64_t h = pdb_hash_bytes(b->name, strlen(b->name));
    snprintf(out, cap, "rgb(%d,%d,%d)", 205 + (int)(h % 50), 80 + (int)((h >> 8) % 150),
             (int)((h >> 16) % 55));
}

/* The label that fits in px: the name, cut at a character boundary with
 * ".." when it does not fit; empty under three characters. */
static void label(pdb_buf *b, const char *name, double px)
{
    size_t fit = px > 0 ? (size_t)(px / CHAR_PX) : 0, len = strlen(name);
    if (fit < 3)
        return;
    if (len <= fit) {
        pdb_text_xml(b, name);
        return;
    }
    size_t cut = fit - 2;
    while (cut > 0 && ((unsigned char)name[cut] & 0xC0) == 0x80)
        cut--; /* not inside a UTF-8 sequence */
    pdb_buf part = PDB_BUF_INIT;
    pdb_buf_add(&part, name, cut);
    pdb_text_xml(b, pdb_buf_str(&part));
    pdb_buf_free(&part);
    pdb_buf_adds(b, "..");
}

static void write_box(pdb_buf *b, const pdb_flame_box *bx, const pdb_flame_opts *o)
{
    double scale = (double)(WIDTH - 2 * PAD) / (double)o->total;
    double x = PAD + (double)bx->x * scale, w = (double)bx->samples * scale;
    int row = o->icicle ? bx->depth : o->rows - 1 - bx->depth;
    int y = HEAD + row * ROW;
    char fill[32];
    colour(bx, fill, sizeof fill);
    pdb_buf_adds(b, "<g class=\"f\" data-name=\"");
    pdb_text_xml(b, bx->name);
    pdb_buf_addf(b, "\" data-x=\"%lld\" data-samples=\"%lld\" data-depth=\"%d\"><title>",
                 (long long)bx->x, (long long)bx->samples, bx->depth);
    pdb_text_xml(b, bx->name);
    pdb_buf_addf(b, " (%lld sample%s, %.2f%%", (long long)bx->samples,
                 bx->samples == 1 ? "" : "s", 100.0 * (double)bx->samples / (double)o->total);
    if (o->rate_hz > 0)
        pdb_buf_addf(b, ", %.3f s", (double)bx->samples / o->rate_hz);
    pdb_buf_addf(b, ")</title><rect x=\"%.4f\" y=\"%d\" width=\"%.4f\" height=\"%d\" "
                    "fill=\"%s\" rx=\"1\"/><text x=\"%.2f\" y=\"%d\">",
                 x, y, w, ROW - 1, fill, x + 3, y + ROW - 4);
    label(b, bx->name, w - 6);
    pdb_buf_adds(b, "</text></g>\n");
}

static int height(const pdb_flame_opts *o)
{
    return HEAD + o->rows * ROW + FOOT;
}

int pdb_flame_begin(FILE *out, const pdb_flame_opts *o)
{
    if (o->total <= 0)
        return pdb_fail("flame graph: no samples to draw");
    int h = height(o);
    fprintf(out, "<?xml version=\"1.0\" standalone=\"no\"?>\n"
                 "<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
                 "height=\"%d\" viewBox=\"0 0 %d %d\" onload=\"init(evt)\" "
                 "data-total-samples=\"%lld\" data-width-px=\"%d\" data-pad-px=\"%d\" "
                 "data-kind=\"%s\">\n",
            WIDTH, h, WIDTH, h, (long long)o->total, WIDTH - 2 * PAD, PAD,
            o->icicle ? "icicle" : "flame");
    pdb_buf b = PDB_BUF_INIT;
    pdb_buf_adds(&b, "<desc>");
    pdb_text_xml(&b, o->rule);
    pdb_buf_addf(&b, "</desc>\n<style>\n%s</style>\n<script type=\"text/ecmascript\"><![CDATA[\n"
                     "%s]]></script>\n",
                 style, script);
    pdb_buf_addf(&b, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#f8f8f0\"/>\n"
                     "<text id=\"title\" x=\"%d\" y=\"24\" text-anchor=\"middle\">",
                 WIDTH, h, WIDTH / 2);
    pdb_text_xml(&b, o->title);
    pdb_buf_addf(&b, "</text>\n<text id=\"reset\" x=\"%d\" y=\"24\">Reset</text>\n"
                     "<text id=\"search\" x=\"%d\" y=\"24\">Search</text>\n"
                     "<text id=\"rule\" x=\"%d\" y=\"46\">",
                 PAD, WIDTH - PAD - 60, PAD);
    pdb_text_xml(&b, o->rule);
    pdb_buf_addf(&b, "</text>\n<text id=\"matched\" x=\"%d\" y=\"62\" text-anchor=\"end\"> "
                     "</text>\n<text id=\"status\" x=\"%d\" y=\"62\"> </text>\n<g id=\"frames\">\n",
                 WIDTH - PAD, PAD);
    fputs(pdb_buf_str(&b), out);
    pdb_buf_free(&b);
    return PDB_OK;
}

void pdb_flame_box_write(FILE *out, const pdb_flame_box *box, const pdb_flame_opts *o)
{
    pdb_buf b = PDB_BUF_INIT;
    write_box(&b, box, o);
    fputs(pdb_buf_str(&b), out);
    pdb_buf_free(&b);
}

void pdb_flame_end(FILE *out, const pdb_flame_opts *o)
{
    fprintf(out, "</g>\n<text id=\"details\" x=\"%d\" y=\"%d\"> </text>\n</svg>\n", PAD,
            height(o) - 10);
}

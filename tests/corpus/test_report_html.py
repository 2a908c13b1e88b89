"""`profdb report --out DIR` writes index.html beside index.md: the same page
for the browser, self-contained (and so do `diff --out` and `trend --out`,
from their index.md).

  - the same content as index.md: the same headings in order, the same
    tables (header cells, row count), the same images and links, in order;
  - long names shortened the way text tables shorten them (keeping where
    they differ, at most 60 characters, "…" for what is left out), the full
    name in the cell's title attribute: the kernels table's titles are the
    kernels' full names as the CSV has them;
  - nothing from the network: every image and link is a file of the folder,
    style and script inline, a Content-Security-Policy that allows nothing
    else;
  - in a real browser (headless Chromium, Debian's chromium package): the
    page opens with no console message at all (a script error, a blocked
    load), every image loads (naturalWidth > 0), and a click on a numeric
    column's header sorts the table by it.

The Chromium part is left out with a note when chromium is not installed
(a failure with PROFDB_REQUIRE_PREREQS=1)."""

import csv
import html.parser
import json
import os
import re
import shutil
import subprocess

from common import SOURCE, Checker, missing_part, run, tempdir

TRACES = [os.path.join(SOURCE, "samples", "traces", f"train_rank{r}.pt.trace.json.gz")
          for r in (0, 1)]


class Page(html.parser.HTMLParser):
    """The parts of index.html the checks compare with index.md."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.headings, self.images, self.links, self.tables = [], [], [], []
        self.scripts, self.csp = 0, ""
        self.cur = None      # the heading whose text is being read
        self.cell = None     # [text, title] of the cell being read
        self.row = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if re.fullmatch(r"h[1-6]", tag):
            self.cur = [int(tag[1]), ""]
        elif tag == "img":
            self.images.append(a.get("src"))
        elif tag == "a":
            self.links.append(a.get("href"))
        elif tag == "table":
            self.tables.append({"head": [], "rows": []})
        elif tag == "tr":
            self.row = []
        elif tag in ("td", "th"):
            self.cell = ["", a.get("title")]
        elif tag == "script":
            self.scripts += 1
        elif tag == "meta" and a.get("http-equiv") == "Content-Security-Policy":
            self.csp = a.get("content", "")

    def handle_endtag(self, tag):
        if re.fullmatch(r"h[1-6]", tag) and self.cur:
            self.headings.append(tuple(self.cur))
            self.cur = None
        elif tag in ("td", "th") and self.cell is not None:
            self.row.append(tuple(self.cell))
            self.cell = None
        elif tag == "tr" and self.row is not None:
            t = self.tables[-1]
            if not t["head"]:
                t["head"] = [c[0] for c in self.row]
            else:
                t["rows"].append(self.row)
            self.row = None

    def handle_data(self, data):
        if self.cur is not None:
            self.cur[1] += data
        if self.cell is not None:
            self.cell[0] += data


def unescape(s):
    return re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", s)


def md_parts(md):
    """Headings, images, links and tables of index.md as written by profdb."""
    headings, images, links, tables = [], [], [], []
    lines = md.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        m = re.match(r"(#{1,6}) (.*)", line)
        if m:
            headings.append((len(m.group(1)), re.sub(r"\*\*|`", "", unescape(m.group(2)))))
        if line.startswith("|"):
            head = [unescape(c.strip()) for c in re.split(r"(?<!\\)\|", line)[1:-1]]
            rows = 0
            i += 2
            while i < len(lines) and lines[i].startswith("|"):
                rows += 1
                i += 1
            tables.append({"head": head, "rows": rows})
            continue
        for m in re.finditer(r"(!?)\[(?:[^\]\\]|\\.)*\]\(([^)\s]+)\)", line):
            (images if m.group(1) else links).append(m.group(2))
        i += 1
    return headings, images, links, tables


def chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if shutil.which(name):
            return shutil.which(name)
    return None


# Appended to a copy of the page, after its own script: once everything has
# loaded, it reports the images, the tables and a sort, in the DOM.
PROBE = """<script>
window.addEventListener('load', function () {
  var imgs = Array.prototype.slice.call(document.images);
  var broken = imgs.filter(function (i) { return !(i.complete && i.naturalWidth > 0); })
    .map(function (i) { return i.getAttribute('src'); });
  var result = {images: imgs.length, broken: broken,
                tables: document.querySelectorAll('table').length, sorted: []};
  document.querySelectorAll('th.n').forEach(function (th) {
    var t = th.closest('table'), k = th.cellIndex;
    th.click();
    var values = function () {  /* an empty cell sorts below every number */
      return Array.prototype.map.call(t.tBodies[0].rows, function (r) {
        var x = parseFloat(r.cells[k].textContent.replace(/,/g, ''));
        return isNaN(x) ? -Infinity : x; }); };
    var v = values();
    var up = v.every(function (x, j) { return j == 0 || v[j - 1] <= x; });
    th.click();
    var w = values();
    var down = w.every(function (x, j) { return j == 0 || w[j - 1] >= x; });
    result.sorted.push(up && down && th.dataset.sort === 'desc');
  });
  var out = document.createElement('pre');
  out.id = 'probe';
  out.textContent = JSON.stringify(result);
  document.body.appendChild(out);
});
</script>
"""


def check_browser(c, browser, out, page, tmp, what, numeric=True):
    with open(os.path.join(out, "index.html"), encoding="utf-8") as f:
        text = f.read()
    probe = os.path.join(out, "probe.html")  # beside it: the same images, the same origin
    with open(probe, "w", encoding="utf-8") as f:
        f.write(text.replace("</body>", PROBE + "</body>"))
    cmd = [browser, "--headless", "--disable-gpu", "--no-sandbox", "--enable-logging=stderr",
           "--v=0", f"--user-data-dir={os.path.join(tmp, 'chrome')}", "--dump-dom",
           "file://" + os.path.abspath(probe)]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    os.remove(probe)
    c.eq(f"{what}: chromium exit", p.returncode, 0)
    console = [ln for ln in p.stderr.splitlines() if "CONSOLE" in ln or "Uncaught" in ln]
    c.true(f"{what}: chromium: no console message (script error, blocked load)", not console,
           console[:3])
    m = re.search(r'<pre id="probe">([^<]*)</pre>', p.stdout)
    c.true(f"{what}: chromium: the page's scripts ran (probe written)", m, p.stdout[-300:])
    if not m:
        return
    r = json.loads(m.group(1).replace("&quot;", '"').replace("&amp;", "&"))
    c.eq(f"{what}: chromium: every image of the page", r["images"], len(page.images))
    c.eq(f"{what}: chromium: every image loads", r["broken"], [])
    c.eq(f"{what}: chromium: every table of the page", r["tables"], len(page.tables))
    c.true(f"{what}: chromium: numeric columns sort up, then down, on clicks",
           (r["sorted"] or not numeric) and all(r["sorted"]), r["sorted"])


def check_page(c, out, what, browser, tmp, numeric=True):
    """index.html against index.md, and in the browser (numeric: the page has
    right-aligned number columns to sort); the parsed page."""
    files = os.listdir(out)
    c.true(f"{what}: index.html written", "index.html" in files, files)
    with open(os.path.join(out, "index.md"), encoding="utf-8") as f:
        md = f.read()
    with open(os.path.join(out, "index.html"), encoding="utf-8") as f:
        text = f.read()
    page = Page()
    page.feed(text)
    page.close()
    headings, images, links, tables = md_parts(md)
    c.eq(f"{what}: the same headings as index.md, in order", page.headings, headings)
    c.eq(f"{what}: the same images as index.md", page.images, images)
    c.eq(f"{what}: the same links as index.md", page.links, links)
    c.true(f"{what}: images and links are files of the folder",
           all(x in files for x in page.images + page.links),
           [x for x in page.images + page.links if x not in files])
    c.eq(f"{what}: as many tables as index.md", len(page.tables), len(tables))
    for i, (h, m) in enumerate(zip(page.tables, tables)):
        c.eq(f"{what}: table {i}: the same header", h["head"], m["head"])
        c.eq(f"{what}: table {i}: the same rows", len(h["rows"]), m["rows"])
    c.eq(f"{what}: one script, the page's own", page.scripts, 1)
    c.true(f"{what}: a policy that loads nothing from elsewhere",
           page.csp.startswith("default-src 'none'") and "http" not in page.csp, page.csp)
    c.true(f"{what}: no address outside the folder",
           not re.search(r"(src|href)=\"(https?:|//)", text))
    titled = [cell for t in page.tables for row in t["rows"] for cell in row if cell[1]]
    for shown, title in titled:
        c.true(f"{what}: shortened cell {shown[:40]!r}: at most 60 characters with '…', its "
               "title longer", len(shown) <= 60 and "…" in shown and len(title) > 60,
               (shown, title[:80]))
    if browser:
        check_browser(c, browser, out, page, tmp, what, numeric)
    return page


def main():
    browser = chromium()
    if not browser:
        missing_part("chromium is not installed (scripts/deps.sh test installs it)")
    c = Checker()
    with tempdir() as tmp:
        db = os.path.join(tmp, "t.db")
        run("ingest", "-q", "--run", "train <2 ranks>", *TRACES, db=db)
        out = os.path.join(tmp, "out")
        run("report", "--run", "train <2 ranks>", "--out", out, db=db)
        page = check_page(c, out, "report", browser, tmp)
        titled = [cell for t in page.tables for row in t["rows"] for cell in row if cell[1]]
        c.true("report: long cells shortened with the whole text in a title", titled)
        # The kernels table: its names are the kernels' full names (the CSV's).
        with open(os.path.join(out, "kernels.csv"), encoding="utf-8") as f:
            full = {r["name"] for r in csv.DictReader(f)}
        kt = [t for t in page.tables if t["head"][:3] == ["rank", "name", "kernel_type"]]
        c.true("kernels table found", kt, [t["head"][:4] for t in page.tables])
        if kt:
            names = [(row[1][1] or row[1][0]) for row in kt[0]["rows"]]
            c.true("kernels table: every name is a full kernel name of kernels.csv",
                   names and all(n in full for n in names),
                   [n for n in names if n not in full][:3])
            c.true("kernels table: some name needed its title (longer than 60)",
                   any(row[1][1] for row in kt[0]["rows"]))
        # diff --out and trend --out: the page of their index.md.
        run("ingest", "-q", "--run", "again", *TRACES, db=db)
        out = os.path.join(tmp, "diff")
        run("diff", "train <2 ranks>", "again", "--out", out, db=db)
        check_page(c, out, "diff", browser, tmp)
        for r in range(3):
            log = os.path.join(tmp, f"r{r}.jsonl")
            with open(log, "w") as f:
                for i in range(1, 11):
                    f.write(json.dumps({"step": i, "step_time": 0.05 + 0.001 * ((i + r) % 3)})
                            + "\n")
            run("ingest", "-q", "--run", f"night {r}", log, db=db)
        out = os.path.join(tmp, "trend")
        run("trend", "--runs", "night*", "--out", out, "step_time", db=db)
        check_page(c, out, "trend", browser, tmp, numeric=False)
    c.close()


if __name__ == "__main__":
    main()

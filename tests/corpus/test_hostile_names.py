"""Hostile names in every command and output format (issue 30, items 8-10).

Run names (--run, and a run named after its file), labels, metric names
(step-log keys and -m specs), kernel and op names (a generated trace with
its names rewritten), pstats function and file names (a crafted dump) and a
file name hold ESC and BEL sequences, a C1 CSI, newlines followed by a
Markdown heading, raw HTML (<img onerror>, <script>), Markdown images,
links, pipes and code spans, invalid UTF-8 (stray bytes, an overlong '/', a
lone surrogate), U+FFFF (not an XML character) and '--' prefixes. Every
command that prints names (runs, report: the overview and every report in
every format, --out and one-shot; diff: every kind in every format, --out;
check: the verdict, details, -m, --junit and --markdown to stdout and to
files; trend: every format, --changes, --by, --check, --out; sql; schema)
runs on them, and each output must be well-formed and inert:
  - terminal text (stdout and stderr of everything): valid UTF-8, no raw
    C0 control (but tab, newline), DEL or C1 control, and no line that a
    name's newline started (the text after it stays on the name's line);
  - CSV parses with the csv module, every row as wide as its header; TSV
    rows as wide as their header; JSON parses;
  - Markdown: no raw HTML tag or autolink outside code spans, no link or
    image into a hostile target, table rows as wide as their header
    (escaped pipes do not split cells), no injected heading or line;
  - JUnit XML parses with xml.etree (and holds one testcase per metric);
  - charts: .gp scripts hold names only inside string literals, .dat rows
    are as wide as their header, the SVG gnuplot draws parses as XML.
The first three checks are the issue's items one by one (each failed
before the fix); the sweep after them covers everything else.
Generated inputs and samples/ only."""

import csv
import html.parser
import io
import json
import marshal
import os
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET

from common import CHECKED, GENTRACE, PROFDB, SOURCE, Checker, tempdir

# ---- hostile text ----------------------------------------------------------

ESC = "\x1b]0;pwned\x07\x1b[2J\x1b[31m"          # retitle (OSC ... BEL), clear, colour
C1 = "\u009b2J"                                  # an 8-bit CSI, as UTF-8
HTML = "<img src=x onerror=alert(1)><script>alert(2)</script>"
MD = "![i](http://evil.example/x.png) [l](javascript:alert(1)) |c|`x` **b**"
BREAK = "\n# INJECTED heading\n---\n"            # a newline, a heading, a rule
BAD = b"\xff\xfe\xc0\xaf\xed\xa0\x80"            # stray bytes, overlong '/', lone surrogate
NONCHAR = "\uffff"                               # valid UTF-8, not an XML character


def hostile(prefix):
    """Bytes: prefix, then every kind of hostile text."""
    return (prefix + " " + ESC + C1 + HTML + BREAK + MD + NONCHAR).encode() + BAD + b" end"


BASE = hostile("--base")
TEST = hostile("--test")
FILE = hostile("--file").replace(b"/", "\u2215".encode())  # no '/' in a file name
LABEL = hostile("2024-06-01")
# Kernel, op and step-log metric names come through JSON (\u escapes; the
# readers store invalid UTF-8 as U+FFFD). Metric names are lower-cased.
KERNEL = "--kern " + ESC + C1 + HTML + BREAK + MD + NONCHAR + "\ud800 end"
OP = "--op " + ESC + C1 + HTML + BREAK + MD + " end"
METRIC = "--loss " + ESC.lower() + C1.lower() + HTML.lower() + BREAK.lower() + MD.lower()
FUNC = "--fn " + ESC + HTML + BREAK + MD + "\ud800"
PYFILE = "/x/--file " + ESC + HTML + BREAK + MD + ".py"

SHOWN = [("<BASE>", BASE), ("<TEST>", TEST), ("<FILE>", FILE), ("<LABEL>", LABEL),
         ("<KERNEL>", KERNEL.encode("utf-8", "surrogatepass")), ("<OP>", OP.encode()),
         ("<METRIC>", METRIC.encode()), ("<FUNC>", FUNC.encode("utf-8", "surrogatepass"))]

FORMATS = ("table", "csv", "tsv", "json", "md")
MARKERS = ("pwned", "onerror", "injected", "javascript", "evil.example", "alert(")


# ---- running profdb ----------------------------------------------------------

class Result:
    def __init__(self, args, p):
        self.args, self.rc, self.out, self.err = args, p.returncode, p.stdout, p.stderr

    def what(self):
        """The command line, hostile names shown by name."""
        shown = []
        for a in self.args:
            a = a if isinstance(a, bytes) else str(a).encode("utf-8", "surrogatepass")
            for name, value in SHOWN:
                a = a.replace(value, name.encode())
            shown.append(a.decode("utf-8", "backslashreplace"))
        return ascii(" ".join(shown))[:200]


def profdb(*args, db=None, cwd=None):
    cmd = [PROFDB] + (["--db", db] if db else []) + [a if isinstance(a, bytes) else str(a)
                                                      for a in args]
    return Result(args, subprocess.run(cmd, capture_output=True, cwd=cwd, timeout=300))


# ---- well-formed and inert ----------------------------------------------------

# C0 controls but tab and newline, DEL, C1 controls; \r is allowed in CSV only.
CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f\x80-\x9f]")
CONTROL_CSV = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\x80-\x9f]")


def decoded(c, what, data):
    """data as text; invalid UTF-8 is a failure (None)."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        c.true(f"{what}: valid UTF-8", False, f"({e}; {data[max(0, e.start - 40):e.end + 20]!r})")
        return None


def injected_lines(text):
    """Lines a name's newline started: they begin (after Markdown and table
    punctuation) with the text that followed the newline in a name."""
    bad = []
    for line in text.split("\n"):
        rest = line.lstrip(" \t#>*+-|`\\'\"").lower()
        if rest.startswith("injected") or rest.startswith("---\u2026") or line.strip() == "---":
            bad.append(line)
    return bad


def terminal_ok(c, what, data, csv_text=False, lines=True):
    """Text fit for a terminal: valid UTF-8, no control characters but tab and
    newline (and CR in CSV), no line started by a name's newline."""
    text = decoded(c, what, data)
    if text is None:
        return None
    m = (CONTROL_CSV if csv_text else CONTROL).search(text)
    c.true(f"{what}: no raw control characters", m is None,
           f"({m and ascii(m.group())} in {ascii(text[max(0, m.start() - 60):m.end() + 20]) if m else ''})")
    if lines:
        bad = injected_lines(text)
        c.true(f"{what}: no line started by a name's newline", not bad, ascii(bad[:2])[:300])
    return text


def csv_ok(c, what, text):
    """RFC 4180 with the csv module; every row of a block (blocks are split by
    empty lines) as wide as the block's first row."""
    try:
        rows = list(csv.reader(io.StringIO(text, newline=""), strict=True))
    except csv.Error as e:
        c.true(f"{what}: CSV parses", False, str(e))
        return
    width, bad = None, []
    for row in rows:
        if not row:
            width = None
            continue
        if width is None:
            width = len(row)
        elif len(row) != width:
            bad.append(row)
    c.true(f"{what}: every CSV row as wide as its header", not bad, ascii(bad[:1])[:300])


def tsv_ok(c, what, text):
    width, bad = None, []
    for line in text.split("\n"):
        if not line:
            width = None
            continue
        n = line.count("\t") + 1
        if width is None:
            width = n
        elif n != width:
            bad.append(line)
    c.true(f"{what}: every TSV row as wide as its header", not bad, ascii(bad[:1])[:300])


def json_ok(c, what, text):
    try:
        json.loads(text)
        c.true(f"{what}: JSON parses", True)
    except ValueError as e:
        c.true(f"{what}: JSON parses", False, f"{e}: {ascii(text[:200])}")


def md_inline(line):
    """The line as Markdown's inline parser sees it, approximately: escaped
    characters and code spans replaced by '_' (both are literal text), the
    rest kept. Returns (text, pipes): pipes are the unescaped '|' (GFM splits
    table cells at those, in code spans too)."""
    out, pipes, i, n = [], 0, 0, len(line)
    while i < n:
        ch = line[i]
        if ch == "\\" and i + 1 < n and line[i + 1] in "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~":
            out.append("__")
            i += 2
            continue
        if ch == "|":
            pipes += 1
        if ch == "`":
            j = i
            while j < n and line[j] == "`":
                j += 1
            run = line[i:j]
            k = line.find(run, j)
            while k >= 0 and (line[k + len(run):k + len(run) + 1] == "`" or
                              (k > 0 and line[k - 1] == "`")):
                k = line.find(run, k + 1)
            if k >= 0:
                pipes += line[j:k].count("|") - line[j:k].count("\\|")
                out.append("_" * (k + len(run) - i))
                i = k + len(run)
                continue
            out.append(run)
            i = j
            continue
        out.append(ch)
        i += 1
    return "".join(out), pipes


RAW_HTML = re.compile(r"<[A-Za-z/!?]")
HOSTILE_LINK = re.compile(r"\]\(\s*<?\s*(javascript:|http://evil)", re.I)


def md_ok(c, what, text):
    """Markdown that renders as the text it shows: no raw HTML, no hostile
    link or image, tables whose rows keep their width, no injected lines
    (terminal_ok checks those)."""
    html, links, tables = [], [], []
    width = None
    fenced = False
    for line in text.split("\n"):
        if line.startswith("```"):
            fenced = not fenced
            continue
        if fenced:
            continue
        inline, pipes = md_inline(line)
        if RAW_HTML.search(inline):
            html.append(line)
        if HOSTILE_LINK.search(inline):
            links.append(line)
        if line.startswith("|"):
            if width is None:
                width = pipes
            elif pipes != width:
                tables.append(line)
        else:
            width = None
    c.true(f"{what}: no raw HTML in Markdown", not html, ascii(html[:1])[:300])
    c.true(f"{what}: no link or image to a hostile target", not links, ascii(links[:1])[:300])
    c.true(f"{what}: Markdown table rows as wide as their header", not tables,
           ascii(tables[:1])[:300])


def junit_ok(c, what, data, metrics=None):
    try:
        root = ET.fromstring(data)
    except ET.ParseError as e:
        c.true(f"{what}: JUnit XML parses", False, f"{e}")
        return None
    c.true(f"{what}: JUnit XML parses", True)
    cases = root.findall(".//testcase")
    if metrics is not None:
        c.eq(f"{what}: one testcase per metric", len(cases), metrics)
    return root


def output_ok(c, what, fmt, data):
    """stdout of a command in format fmt."""
    text = terminal_ok(c, what, data, csv_text=fmt == "csv", lines=fmt != "csv")
    if text is None:
        return
    if fmt == "csv":
        csv_ok(c, what, text)
    elif fmt == "tsv":
        tsv_ok(c, what, text)
    elif fmt == "json":
        json_ok(c, what, text)
    elif fmt == "md":
        md_ok(c, what, text)
    # "raw": another tool's text (DOT, a gnuplot script): terminal text only


def result_ok(c, r, fmt="table", rcs=(0,)):
    """A command's exit status, stdout in fmt (when it printed any: a command
    that failed may print nothing) and stderr (always terminal text)."""
    c.true(f"{r.what()}: exit {r.rc} in {rcs}", r.rc in rcs, ascii(r.err[-300:]))
    if r.rc == 0 or r.out:
        output_ok(c, f"{r.what()} stdout", fmt, r.out)
    terminal_ok(c, f"{r.what()} stderr", r.err)


# ---- folders: index.md, CSVs, charts ---------------------------------------------

def gp_strip_strings(line):
    """A gnuplot line with its '...' and "..." literals removed."""
    out, i, n = [], 0, len(line)
    while i < n:
        q = line[i]
        if q in "'\"":
            j = i + 1
            while j < n:
                if q == "'" and line[j] == "'" and j + 1 < n and line[j + 1] == "'":
                    j += 2
                    continue
                if q == '"' and line[j] == "\\":
                    j += 2
                    continue
                if line[j] == q:
                    break
                j += 1
            i = j + 1
            continue
        if q == "#":
            break
        out.append(q)
        i += 1
    return "".join(out)


def dat_fields(line):
    """Fields of a gnuplot data line: "..." (\\ escapes) or bare words."""
    fields, i, n = [], 0, len(line)
    while i < n:
        if line[i] == " ":
            i += 1
            continue
        if line[i] == '"':
            j = i + 1
            while j < n and line[j] != '"':
                j += 2 if line[j] == "\\" else 1
            if j >= n:
                return None  # an unterminated string
            fields.append(line[i:j + 1])
            i = j + 1
        else:
            j = line.find(" ", i)
            j = n if j < 0 else j
            fields.append(line[i:j])
            i = j
    return fields


# The elements and attributes index.html may have (render/html.c); a name
# that became markup would add others (an onerror, a second script).
HTML_TAGS = {"html", "head", "meta", "title", "style", "body", "main", "h1", "h2", "h3", "h4",
             "p", "ul", "li", "a", "img", "code", "strong", "div", "table", "thead", "tbody",
             "tr", "th", "td", "script"}
HTML_ATTRS = {"lang", "charset", "http-equiv", "content", "name", "src", "alt", "href", "class",
              "title"}
LOCAL = re.compile(r"^[A-Za-z0-9_-]+\.(md|csv|gp|dat|png|svg|html)$")


class Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags, self.bad, self.text, self.h1 = [], [], [], ""
        self.stack = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.stack.append(tag)
        if tag not in HTML_TAGS:
            self.bad.append(f"<{tag}>")
        for k, v in attrs:
            if k not in HTML_ATTRS:
                self.bad.append(f"<{tag} {k}=>")
            if k in ("src", "href") and not LOCAL.match(v or ""):
                self.bad.append(f"<{tag} {k}={v!r}>")

    def handle_endtag(self, tag):
        if self.stack and self.stack[-1] == tag:
            self.stack.pop()

    def handle_data(self, data):
        if self.stack and self.stack[-1] == "h1":
            self.h1 += data
        if "script" not in self.stack and "style" not in self.stack:
            self.text.append(data)


def html_ok(c, what, text, run=None):
    """index.html: only the page's own elements and attributes, local links
    and images, one script (the page's), and the names as text."""
    p = Page()
    p.feed(text)
    p.close()
    c.true(f"{what}: only the page's elements and attributes", not p.bad, ascii(p.bad[:3])[:300])
    c.eq(f"{what}: one script element", p.tags.count("script"), 1)
    c.true(f"{what}: one h1", p.tags.count("h1") == 1)
    if run is not None:
        c.true(f"{what}: the run name's HTML shows as text in the title",
               "<img src=x onerror=alert(1)><script>alert(2)<" in p.h1 and
               "[l](javascript:alert(1)) |c|`x` **b**" in p.h1, ascii(p.h1)[:300])


def folder_ok(c, what, folder, gnuplot, page=False, run=None):
    names = sorted(os.listdir(folder))
    c.true(f"{what}: index.md written", "index.md" in names, names)
    if page:
        c.true(f"{what}: index.html written", "index.html" in names, names)
    for name in names:
        path = os.path.join(folder, name)
        with open(path, "rb") as f:
            data = f.read()
        w = f"{what}/{name}"
        if name.endswith(".md"):
            text = terminal_ok(c, w, data)
            if text is not None:
                md_ok(c, w, text)
        elif name.endswith(".html"):
            text = terminal_ok(c, w, data)
            if text is not None:
                html_ok(c, w, text, run)
        elif name.endswith(".csv"):
            text = terminal_ok(c, w, data, csv_text=True, lines=False)
            if text is not None:
                csv_ok(c, w, text)
        elif name.endswith(".gp"):
            text = terminal_ok(c, w, data, lines=False)
            if text is None:
                continue
            leaks = [ln for ln in text.split("\n")
                     if any(m in gp_strip_strings(ln).lower() for m in MARKERS)]
            c.true(f"{w}: names only inside string literals", not leaks, ascii(leaks[:1])[:300])
        elif name.endswith(".dat"):
            text = terminal_ok(c, w, data, lines=False)
            if text is None:
                continue
            rows = [dat_fields(ln) for ln in text.split("\n") if ln and not ln.startswith("#")]
            widths = {len(r) if r is not None else -1 for r in rows}
            c.true(f"{w}: data rows as wide as the header", len(widths) == 1 and -1 not in widths,
                   f"widths {widths}")
        elif name.endswith(".svg"):
            try:
                ET.fromstring(data)
                c.true(f"{w}: SVG parses", True)
            except ET.ParseError as e:
                c.true(f"{w}: SVG parses", False, str(e))
    if gnuplot:
        c.true(f"{what}: gnuplot drew the charts", any(n.endswith(".svg") for n in names), names)


# ---- inputs ----------------------------------------------------------------------

def gentrace(path, steps, seed):
    subprocess.run([GENTRACE, "--steps", str(steps), "--rank", "0", "--world", "1",
                    "--seed", str(seed), path], check=True, capture_output=True)
    with open(path, encoding="utf-8") as f:
        trace = json.load(f)
    for e in trace["traceEvents"]:
        if e.get("name") == "ampere_sgemm_128x64_tn":
            e["name"] = KERNEL
        elif e.get("name") == "aten::matmul":
            e["name"] = OP
    with open(path, "w", encoding="ascii") as f:
        json.dump(trace, f)          # \u escapes: ESC, BEL, a lone surrogate
    return path


def steplog(path, scale):
    lines = []
    with open(os.path.join(SOURCE, "samples", "steplogs", "train.jsonl"), encoding="utf-8") as f:
        for i, line in enumerate(f):
            if i == 40:
                break
            rec = json.loads(line)
            rec["step_time_ms"] *= scale
            rec[METRIC] = rec["loss"] * scale
            lines.append(json.dumps(rec))
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    return path


def pstats_dump(path):
    """A cProfile dump of three functions, two with hostile names."""
    fn = (PYFILE, 7, FUNC)
    other = ("/x/a.py", 1, "caller")
    bi = ("~", 0, "<built-in method " + ESC + HTML + ">")
    stats = {
        other: (1, 1, 0.01, 0.5, {}),
        fn: (3, 3, 0.3, 0.45, {other: (3, 3, 0.3, 0.45)}),
        bi: (9, 9, 0.15, 0.15, {fn: (9, 9, 0.15, 0.15)}),
    }
    with open(path, "wb") as f:
        f.write(marshal.dumps(stats))  # str as UTF-8 with surrogatepass: a lone surrogate
    return path


def build(c, tmp):
    db = os.path.join(tmp, "h.db")
    prof = pstats_dump(os.path.join(tmp, "h.prof"))
    for i, (name, scale) in enumerate(((BASE, 1.0), (TEST, 1.3))):
        trace = gentrace(os.path.join(tmp, f"t{i}.json"), 12, i + 1)
        log = steplog(os.path.join(tmp, f"s{i}.jsonl"), scale)
        r = profdb("ingest", "-q", "--run", name, "--label", b"date=" + LABEL + b"%d" % i,
                   trace, log, prof, db=db)
        c.eq(f"ingest run {i} ({ascii(r.err[-300:])})", r.rc, 0)
    # A run named after its file: a step log copied to a hostile file name.
    path = os.path.join(tmp.encode(), FILE + b".jsonl")
    shutil.copy(os.path.join(SOURCE, "samples", "steplogs", "train.jsonl"), path)
    r = profdb("ingest", "--label", b"date=" + LABEL + b"9", path, db=db)
    c.eq(f"ingest {FILE!r} ({ascii(r.err[-300:])})", r.rc, 0)
    # ingest's own lines are outside this test (ingest/): no escapes, though.
    terminal_ok(c, "ingest stderr", r.err, lines=False)
    names = sql_json(db, "SELECT name FROM runs ORDER BY run_id")
    c.eq("three runs", len(names), 3)
    return db, path


def sql_json(db, query):
    r = profdb("sql", "--format", "json", query, db=db)
    assert r.rc == 0, r.err
    return [next(iter(row.values())) for row in json.loads(r.out)]


def stored(db, query):
    """The one value a query returns, as the bytes profdb stored (hex() of it)."""
    return bytes.fromhex(sql_json(db, f"SELECT hex(({query}))")[0])


# ---- the items of issue 30 ---------------------------------------------------------

def item8_markdown_injection(c, db, tmp):
    """8: `diff --out` index.md 'steps:' line and `report --out` index.md
    header carried run names as raw Markdown and HTML."""
    out = os.path.join(tmp, "item8-diff")
    r = profdb("diff", "--out", out, "--", BASE, TEST, "steps", db=db)
    c.eq(f"item 8: diff --out exit ({ascii(r.err[-200:])})", r.rc, 0)
    with open(os.path.join(out, "index.md"), "rb") as f:
        text = f.read().decode("utf-8", "replace")
    steps = [ln for ln in text.split("\n") if ln.startswith("steps:")]
    c.true("item 8: index.md has its steps: line", len(steps) == 1, ascii(steps))
    md_ok(c, "item 8: diff --out index.md", text)
    c.true("item 8: diff --out index.md: no injected line", not injected_lines(text),
           ascii(injected_lines(text)[:2]))
    out = os.path.join(tmp, "item8-report")
    r = profdb("report", "--run", BASE, "--out", out, db=db)
    c.eq(f"item 8: report --out exit ({ascii(r.err[-200:])})", r.rc, 0)
    with open(os.path.join(out, "index.md"), "rb") as f:
        head = f.read().decode("utf-8", "replace").split("\n")[0]
    c.true("item 8: report --out index.md header is one heading", head.startswith("# profdb report"),
           ascii(head))
    md_ok(c, "item 8: report --out index.md header", head)
    c.true("item 8: ... with < ! [ | escaped", all(f"\\{ch}" in head for ch in "<[|"), ascii(head))


def item9_esc_bel(c, db, tmp, kernel):
    """9: ESC and BEL reached the terminal from check (verdict on stdout,
    details on stderr, -m metric names), the diff steps: header, diff --out
    index.md and check --markdown."""
    raw = re.compile(rb"[\x07\x1b]")
    m = b"kernel:" + kernel + b"=5%"
    r = profdb("check", "-m", m, "-m", "step_time=5%", "--", BASE, TEST, db=db)
    c.true(f"item 9: check exit ({ascii(r.err[-200:])})", r.rc in (0, 1))
    c.true("item 9: check verdict (stdout): no ESC/BEL", not raw.search(r.out), ascii(r.out[:200]))
    c.true("item 9: check verdict is one line", r.out.count(b"\n") == 1, ascii(r.out[:300]))
    c.true("item 9: check details (stderr): no ESC/BEL", not raw.search(r.err), ascii(r.err[:200]))
    r = profdb("check", "--markdown", "-", "-m", m, "--", BASE, TEST, db=db)
    c.true("item 9: check --markdown: no ESC/BEL", not raw.search(r.out), ascii(r.out[:200]))
    r = profdb("diff", "--", BASE, TEST, "steps", db=db)
    c.true("item 9: diff steps: header: no ESC/BEL", not raw.search(r.out), ascii(r.out[:200]))
    with open(os.path.join(tmp, "item8-diff", "index.md"), "rb") as f:
        c.true("item 9: diff --out index.md: no ESC/BEL", not raw.search(f.read()))


def item10_invalid_utf8(c, db, tmp):
    """10: invalid UTF-8 in a run name made check --junit write XML that is
    not well-formed; the Markdown outputs carried it too."""
    r = profdb("check", "--junit", "-", "--", BASE, TEST, db=db)
    junit_ok(c, "item 10: check --junit -", r.out, metrics=1)
    decoded(c, "item 10: check --junit -", r.out)
    path = os.path.join(tmp, "item10.xml")
    profdb("check", "--junit", path, "--", BASE, TEST, db=db)
    with open(path, "rb") as f:
        junit_ok(c, "item 10: check --junit FILE", f.read(), metrics=1)
    r = profdb("check", "--markdown", "-", "--", BASE, TEST, db=db)
    decoded(c, "item 10: check --markdown -", r.out)
    with open(os.path.join(tmp, "item8-diff", "index.md"), "rb") as f:
        decoded(c, "item 10: diff --out index.md", f.read())
    with open(os.path.join(tmp, "item8-report", "index.md"), "rb") as f:
        decoded(c, "item 10: report --out index.md", f.read())


# ---- the sweep ---------------------------------------------------------------------

def report_names():
    r = profdb("report", "--help")
    text = r.out.decode()
    names = re.findall(r"^  ([a-z][a-z-]+) ", text.split("\nreports:\n", 1)[1], re.M)
    assert len(names) > 15, names
    return names


def sweep_runs(c, db):
    for fmt in FORMATS:
        result_ok(c, profdb("runs", "--format", fmt, db=db), fmt)
        result_ok(c, profdb("runs", "--sources", "--format", fmt, db=db), fmt)
        result_ok(c, profdb("runs", "--format", fmt, "--", BASE, db=db), fmt)
    # A name that is no run: the message quotes it, inert.
    result_ok(c, profdb("runs", "--", BASE + b"x", db=db), rcs=(2,))


def report_formats(i):
    """The formats the i-th report is printed in: all of them; in a checked
    build the table and one more in turn, so every format's escaper still
    meets the hostile names under the sanitizer (the normal build prints
    every report in every format)."""
    if not CHECKED:
        return FORMATS
    return ["table", FORMATS[1 + i % (len(FORMATS) - 1)]] if FORMATS[0] == "table" else FORMATS


def sweep_report(c, db, tmp, gnuplot):
    for fmt in FORMATS:
        result_ok(c, profdb("report", "--run", BASE, "--format", fmt, db=db), fmt)
    for i, name in enumerate(report_names()):
        for fmt in report_formats(i):
            if name in ("pstats-dot", "pstats-chart") and fmt != "table":
                continue
            r = profdb("report", "--run", BASE, "--format", fmt, name, db=db)
            # pstats-dot and pstats-chart print DOT and gnuplot text.
            result_ok(c, r, fmt if name not in ("pstats-dot", "pstats-chart") else "raw",
                      rcs=(0, 2))
    for by in ("op", "top-op", "annotation", "gpu-annotation", "module", "step"):
        result_ok(c, profdb("report", "--run", BASE, "kernels", "--by", by, "--format", "md",
                            db=db), "md", rcs=(0, 2))
    result_ok(c, profdb("report", "--run", BASE, "launch", "--by", "op", db=db), rcs=(0, 2))
    result_ok(c, profdb("report", "--run", BASE, "kernel-sequences", "--op", OP, db=db),
              rcs=(0, 2))
    result_ok(c, profdb("report", "--run", BASE, "metrics", "--metric", METRIC, "--format",
                        "md", db=db), "md")
    result_ok(c, profdb("report", "--run", BASE, "pstats", "--match", FUNC[:5], db=db))
    for i, run in enumerate((BASE, FILE)):
        out = os.path.join(tmp, f"report-{i}")
        result_ok(c, profdb("report", "--run", run, "--out", out, db=db))
        folder_ok(c, f"report --out ({i})", out, gnuplot, page=True, run=run)
    # A name that is no run, and no report.
    result_ok(c, profdb("report", "--run", BASE + b"x", db=db), rcs=(2,))
    result_ok(c, profdb("report", "--run", BASE, "--", FILE, db=db), rcs=(2,))


def sweep_one_shot(c, path, tmp):
    for fmt in ("table", "md", "json"):
        result_ok(c, profdb("report", "--format", fmt, path, cwd=tmp), fmt)
    result_ok(c, profdb("report", "--format", "csv", "summary", path, cwd=tmp), "csv")


def sweep_diff(c, db, tmp, gnuplot):
    for fmt in ("table", "md"):
        result_ok(c, profdb("diff", "--format", fmt, "--", BASE, TEST, db=db), fmt)
    for kind in ("steps", "gpu", "kernel-types", "kernels", "ops", "pstats"):
        for fmt in FORMATS:
            result_ok(c, profdb("diff", "--format", fmt, "--", BASE, TEST, kind, db=db), fmt)
    result_ok(c, profdb("diff", "--normalize-names", "--", BASE, TEST, "kernels", db=db))
    out = os.path.join(tmp, "diff-all")
    result_ok(c, profdb("diff", "--out", out, "--", BASE, TEST, db=db))
    folder_ok(c, "diff --out", out, gnuplot, page=True, run=BASE)
    result_ok(c, profdb("diff", "--", BASE, FILE, db=db))
    result_ok(c, profdb("diff", "--", BASE, TEST + b"x", db=db), rcs=(2,))


def sweep_check(c, db, tmp, kernel, metric):
    specs = [b"step_time=5%", b"kernel:" + kernel + b"=5%", b"op:" + OP.encode() + b"=5%",
             b"metric:" + metric + b"=5%", b"throughput=5%"]
    ms = [a for s in specs for a in (b"-m", s)]
    metrics = len(specs) + 2  # kernel: and op: also gate their calls per step
    r = profdb("check", *ms, "--", BASE, TEST, db=db)
    result_ok(c, r, rcs=(0, 1))
    c.true("check: the verdict is one line", r.out.count(b"\n") == 1, ascii(r.out[:300]))
    r = profdb("check", "--junit", "-", *ms, "--", BASE, TEST, db=db)
    c.true(f"check --junit -: exit ({ascii(r.err[-200:])})", r.rc in (0, 1))
    terminal_ok(c, "check --junit - stdout", r.out, lines=False)
    junit_ok(c, "check --junit -", r.out, metrics=metrics)
    terminal_ok(c, "check --junit - stderr", r.err)
    r = profdb("check", "--markdown", "-", *ms, "--", BASE, TEST, db=db)
    result_ok(c, r, "md", rcs=(0, 1))
    junit, md = os.path.join(tmp, "check.xml"), os.path.join(tmp, "check.md")
    r = profdb("check", "--junit", junit, "--markdown", md, *ms, "--", BASE, TEST, db=db)
    result_ok(c, r, rcs=(0, 1))
    with open(junit, "rb") as f:
        data = f.read()
    terminal_ok(c, "check --junit FILE", data, lines=False)
    junit_ok(c, "check --junit FILE", data, metrics=metrics)
    with open(md, "rb") as f:
        output_ok(c, "check --markdown FILE", "md", f.read())
    # -m names that match nothing, with every hostile byte: exit 2, inert message.
    for spec in (b"kernel:" + BASE + b"=5%", b"metric:" + TEST + b"=5%", BASE + b"=5%"):
        result_ok(c, profdb("check", "-m", spec, "--", BASE, TEST, db=db), rcs=(2,))
    result_ok(c, profdb("check", "--", BASE, FILE, db=db), rcs=(0, 1))


def sweep_trend(c, db, tmp, gnuplot, kernel, metric):
    for fmt in FORMATS:
        result_ok(c, profdb("trend", "--format", fmt, db=db), fmt)
        result_ok(c, profdb("trend", "--format", fmt, "--by", "date", "--changes", db=db), fmt)
        result_ok(c, profdb("trend", "--format", fmt, b"metric:" + metric,
                            b"kernel:" + kernel, db=db), fmt, rcs=(0, 2))
    result_ok(c, profdb("trend", "--check", "5%", db=db), rcs=(0, 1))
    result_ok(c, profdb("trend", "--runs", BASE, "--by", BASE, db=db), rcs=(0, 2))
    out = os.path.join(tmp, "trend")
    result_ok(c, profdb("trend", "--out", out, "--by", "date", "step_time",
                        b"metric:" + metric, b"kernel:" + kernel, db=db))
    folder_ok(c, "trend --out", out, gnuplot, page=True)
    out = os.path.join(tmp, "trend-check")
    result_ok(c, profdb("trend", "--out", out, "--check", "5%", "--runs", b"--*", db=db),
              rcs=(0, 1))
    folder_ok(c, "trend --out --check", out, gnuplot, page=True)


def sweep_sql(c, db):
    queries = ["SELECT run_id, name FROM runs",
               "SELECT name, name AS again, 1 AS n FROM runs",
               "SELECT key, value FROM run_labels",
               "SELECT 1 AS \"<img src=x onerror=alert(1)>|a|b\n# INJECTED\x1b[2J_ns\"",
               "SELECT CAST(X'1B5D303B70776E6564071B5B324AFFC0AF' AS TEXT) AS t"]
    for query in queries:
        for fmt in FORMATS:
            result_ok(c, profdb("sql", "--format", fmt, query, db=db), fmt)
    result_ok(c, profdb("schema", db=db))


def main():
    c = Checker()
    gnuplot = shutil.which("gnuplot") is not None and os.environ.get("PROFDB_GNUPLOT") != ""
    with tempdir() as tmp:
        db, path = build(c, tmp)
        kernel = stored(db, "SELECT name FROM analysis_kernels WHERE name LIKE '--kern%' LIMIT 1")
        metric = stored(db, "SELECT DISTINCT metric FROM steplog_values WHERE metric LIKE '--loss%'")
        c.true("the hostile kernel was stored", kernel.startswith(b"--kern \x1b"), kernel[:20])
        c.true("the hostile metric was stored", metric.startswith(b"--loss \x1b"), metric[:20])
        SHOWN.extend([("<KERNEL>", kernel), ("<METRIC>", metric)])
        item8_markdown_injection(c, db, tmp)
        item9_esc_bel(c, db, tmp, kernel)
        item10_invalid_utf8(c, db, tmp)
        sweep_runs(c, db)
        sweep_report(c, db, tmp, gnuplot)
        sweep_one_shot(c, path, tmp)
        sweep_diff(c, db, tmp, gnuplot)
        sweep_check(c, db, tmp, kernel, metric)
        sweep_trend(c, db, tmp, gnuplot, kernel, metric)
        sweep_sql(c, db)
    c.close()


if __name__ == "__main__":
    main()

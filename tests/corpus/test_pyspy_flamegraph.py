"""The flame graph profdb draws (`report flamegraph --out DIR`), checked by
parsing the SVG and by rendering it in headless Chromium.

Real input: iferadata_torch_run1.pyspy (19 processes, chains of process
frames whose command lines hold quotes and line breaks) and
jupyter_ipykernel.pyspy. For both SVGs (flame and icicle): valid XML; the
width of every box = its samples / total of the drawing width, its x = the
samples left of it; every box inside its parent; the first row (processes)
carries the samples the oracle gives each leading process; the rule for
left-out boxes is stated and its count is the number of stack prefixes
(from `report folded`) under the threshold, and no drawn box is under it.
A hostile name (markup, quotes, ']]>', a script end tag, an entity-like
text, non-ASCII) comes back as written from the XML and the page runs its
one script.
Chromium: the script runs without an error (it writes the status line),
and ?s=REGEX highlights exactly the boxes whose name matches."""

import json
import os
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET

from common import Checker, missing_part, need_corpus, run, tempdir

SVG = "{http://www.w3.org/2000/svg}"
HOSTILE = [
    '<script>alert("x")</script> (/tmp/a&b"c\'.py:1)',
    "]]></script><script>alert(2)</script> (x.py:2)",
    "</title><rect/> (&lt&gt.py:3)",
    "naïve_ünïcode (/tmp/ß.py:4)",
]


def boxes(path):
    root = ET.parse(path).getroot()
    frames = root.find(f".//{SVG}g[@id='frames']")
    out = []
    for g in frames.findall(f"{SVG}g"):
        rect = g.find(f"{SVG}rect")
        out.append({"name": g.get("data-name"), "x": int(g.get("data-x")),
                    "samples": int(g.get("data-samples")), "depth": int(g.get("data-depth")),
                    "title": g.find(f"{SVG}title").text, "px": float(rect.get("x")),
                    "w": float(rect.get("width")), "y": float(rect.get("y"))})
    return root, out


def check_svg(c, what, path, total, min_share):
    root, bs = boxes(path)
    width, pad = float(root.get("data-width-px")), float(root.get("data-pad-px"))
    c.eq(f"{what}: total samples", int(root.get("data-total-samples")), total)
    bad = [b for b in bs if abs(b["w"] - b["samples"] / total * width) > 1e-3
           or abs(b["px"] - (pad + b["x"] / total * width)) > 1e-3]
    c.true(f"{what}: every width and x proportional to samples ({len(bs)} boxes)", not bad,
           f"{bad[:1]}")
    bad = [b for b in bs if not re.match(r"^(.*) \((\d+) samples?, [\d.]+%", b["title"] or "", re.S)
           or int(re.match(r"^(.*) \((\d+) samples?", b["title"], re.S).group(2)) != b["samples"]
           or not b["title"].startswith(b["name"] + " (")]
    c.true(f"{what}: every title says the box's name and samples", not bad, f"{bad[:1]}")
    small = [b for b in bs if b["samples"] < min_share / 100 * total]
    c.true(f"{what}: no box drawn under {min_share}% of the samples", not small, f"{small[:1]}")
    # every box inside the box one row nearer the root that holds its x
    by_depth = {}
    for b in bs:
        by_depth.setdefault(b["depth"], []).append(b)
    orphans = [b for b in bs if b["depth"] > 0 and not any(
        p["x"] <= b["x"] and b["x"] + b["samples"] <= p["x"] + p["samples"]
        for p in by_depth.get(b["depth"] - 1, []))]
    c.true(f"{what}: every box inside its parent", not orphans, f"{orphans[:1]}")
    rows_y = {b["depth"]: b["y"] for b in bs}
    icicle = root.get("data-kind") == "icicle"
    order = sorted(rows_y)
    ys = [rows_y[d] for d in order]
    c.true(f"{what}: rows go {'down' if icicle else 'up'} with depth",
           ys == sorted(ys, reverse=not icicle))
    return root, bs


def prefixes(folded_text):
    """Samples under every stack prefix, from `report folded` (records can
    span lines: a process command line may hold a line break)."""
    under = {}
    for m in re.finditer(r"(.*?) (\d+)\n", folded_text, re.S):
        frames, n = m.group(1), int(m.group(2))
        parts = split_frames(frames)
        for i in range(1, len(parts) + 1):
            key = tuple(parts[:i])
            under[key] = under.get(key, 0) + n
    return under


def split_frames(stack):
    """Splits a py-spy stack on ';' outside the process frames' quotes."""
    out, i = [], 0
    while True:
        m = re.match(r'process \d+:"', stack[i:])
        if m:
            j = stack.find('";', i + m.end())
            end = j + 1 if j >= 0 else len(stack)
            out.append(stack[i:end])
            if j < 0:
                return out
            i = end + 1
            continue
        out.extend(stack[i:].split(";"))
        return out


def check_rule(c, what, root, bs, under, total, min_share):
    desc = root.find(f"{SVG}desc").text
    m = re.search(r"boxes under ([\d.]+)% of the samples are not drawn \((\d+) boxes\)", desc)
    c.true(f"{what}: the rule for left-out boxes is stated", m, desc)
    if m:
        left = sum(1 for v in under.values() if v < min_share / 100 * total)
        c.eq(f"{what}: left-out boxes stated = stack prefixes under the threshold", int(m.group(2)), left)
        c.eq(f"{what}: drawn boxes + left out = every prefix + 'all'", len(bs) + int(m.group(2)),
             len(under) + 1)


def chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if shutil.which(name):
            return shutil.which(name)
    return None


def render(browser, path, query, tmp):
    cmd = [browser, "--headless", "--disable-gpu", "--no-sandbox", "--enable-logging=stderr",
           "--v=0", f"--user-data-dir={os.path.join(tmp, 'chrome')}", "--dump-dom",
           "file://" + os.path.abspath(path) + query]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


def check_browser(c, what, browser, path, bs, regex, tmp):
    rc, dom, err = render(browser, path, "?s=" + regex, tmp)
    c.eq(f"{what}: chromium exit", rc, 0)
    errors = [ln for ln in err.splitlines() if "Uncaught" in ln or ("CONSOLE" in ln and "rror" in ln)]
    c.true(f"{what}: no script error in chromium", not errors, f"{errors[:2]}")
    m = re.search(r'<text id="status"[^>]*>(\d+) frames drawn</text>', dom)
    c.true(f"{what}: the script ran (status line)", m, dom[-300:])
    if m:
        c.eq(f"{what}: the page has every box", int(m.group(1)), len(bs))
    hl = len(re.findall(r'<g class="f hl"', dom))
    want = sum(1 for b in bs if re.search(regex, b["name"]))
    c.eq(f"{what}: search ?s={regex} highlights the matching boxes", hl, want)
    c.true(f"{what}: search says the matched share", re.search(r"matched: [\d.]+% of samples", dom))
    c.eq(f"{what}: one script element in the page", len(re.findall(r"<script\b", dom)), 1)


def main():
    corpus = need_corpus("pyspy")
    browser = chromium()
    if not browser:
        missing_part("chromium is not installed (scripts/deps.sh test installs it)")
    c = Checker()
    with tempdir() as tmp:
        db = os.path.join(tmp, "t.db")
        for name, regex in (("iferadata_torch_run1.pyspy", "optionalpha"),
                            ("jupyter_ipykernel.pyspy", "^run_")):

            with open(os.path.join(corpus, name + ".oracle.json")) as f:
                o = json.load(f)
            run("ingest", "--run", name, os.path.join(corpus, name), db=db)
            out = os.path.join(tmp, name)
            run("report", "--run", name, "flamegraph", "--out", out, db=db)
            _, folded, _ = run("report", "--run", name, "folded", db=db)
            under = prefixes(folded)
            total = o["total_samples"]
            for kind in ("flamegraph", "icicle"):
                what = f"{name} {kind}.svg"
                root, bs = check_svg(c, what, os.path.join(out, kind + ".svg"), total, 0.1)
                check_rule(c, what, root, bs, under, total, 0.1)
                procs = {b["name"]: b["samples"] for b in bs if b["depth"] == 1}
                want = {}
                for r in o["roots"]:
                    first = r["root"].split('";process ')[0]
                    first = first if first.endswith('"') else first + '"'
                    want[first] = want.get(first, 0) + r["samples"]
                want = {k: v for k, v in want.items() if v >= 0.001 * total}
                c.eq(f"{what}: first row = the oracle's leading processes", procs, want)
            if browser:
                check_browser(c, f"{name} flamegraph.svg", browser,
                              os.path.join(out, "flamegraph.svg"), boxes(os.path.join(out, "flamegraph.svg"))[1],
                              regex, tmp)
        # hostile names through the raw reader
        hostile = os.path.join(tmp, "hostile.pyspy")
        with open(hostile, "w", encoding="utf-8") as f:
            for i, h in enumerate(HOSTILE):
                f.write(f"main (m.py:1);{h} {10 + i}\n")
        run("ingest", "--run", "hostile", hostile, db=db)
        out = os.path.join(tmp, "hostile")
        run("report", "--run", "hostile", "flamegraph", "--out", out, "--min-share", "0", db=db)
        _, bs = check_svg(c, "hostile names", os.path.join(out, "flamegraph.svg"), 46, 0)
        names = {b["name"] for b in bs}
        c.true("hostile names: every name comes back as written", all(h in names for h in HOSTILE),
               f"{sorted(names)}")
        if browser:
            check_browser(c, "hostile names", browser, os.path.join(out, "flamegraph.svg"), bs,
                          "script", tmp)
    c.close()


if __name__ == "__main__":
    main()

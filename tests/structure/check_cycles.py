#!/usr/bin/env python3
"""check_cycles.py: no cycles between the modules of a folder.

A module is foo.c with foo.h in one folder (either may be alone). Module A
depends on module B, both in one layer (common/, ingest/ with its
subfolders, ...), when code in A calls a function or reads a variable that
B's .c defines (or an inline function of B's .h), declared in a header A
includes, directly or through the headers that one includes. So a header
shared by several .c files (as analyze/scan.h declared the passes) leads
to the module that defines each name, not to the header's namesake; what a
header only declares, and types and macros, are not counted: they are
vocabulary, not code that runs. X-macro tables count as written out: a file
that includes a .def file uses what its macro makes of each row (readers.c
names every reader's functions). Comments and strings do not count.

check_layers.py orders the layers, so a cycle can only run inside one
layer: this script looks for one there, subfolders included, and fails
naming each cycle's modules and one loop through them, with the name that
makes each step. A cycle kept on purpose goes in ALLOWED with its reason.
usage: check_cycles.py SOURCE_DIR"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_layers import LAYERS, layer_files  # noqa: E402

# Modules through which a cycle may pass, each with why it stays for now
# (module -> reason). A cycle is allowed only when every cycle among its
# modules passes through one of these; a new cycle among the others fails.
ALLOWED = {}

INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]+"([^"]+)"', re.M)
IDENT = re.compile(r"[A-Za-z_]\w*")
DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+(\w+)\(([^)]*)\)(.*)$", re.M)
KEYWORDS_NO_DEF = ("static", "typedef", "extern", "struct", "enum", "union")


LITERAL = re.compile(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)


def strip(text, strings=True):
    """The text without comments (and string or character literals, unless
    strings is False); line continuations joined, so a macro is one line."""
    text = text.replace("\\\n", " ")
    return LITERAL.sub(lambda m: " " if m.group(0).startswith("/")
                       else ('""' if strings else m.group(0)), text)


def expand_defs(text, root):
    """Identifiers an X-macro table makes: for each .def the file includes,
    every row run through the macro the file defines just before it."""
    out = []
    for inc in INCLUDE.finditer(text):
        if not inc.group(1).endswith(".def"):
            continue
        defs = [d for d in DEFINE.finditer(text, 0, inc.start())]
        def_path = os.path.join(root, inc.group(1))
        if not defs or not os.path.exists(def_path):
            continue
        name, params, body = defs[-1].group(1), defs[-1].group(2), defs[-1].group(3)
        params = [p.strip() for p in params.split(",")]
        with open(def_path, encoding="utf-8") as f:
            rows = strip(f.read())
        for row in re.finditer(r"^\s*" + name + r"\((.*)\)\s*$", rows, re.M):
            args = [a.strip() for a in row.group(1).split(",")]
            sub = dict(zip(params, args))
            made = re.sub(r"\b\w+\b", lambda t: sub.get(t.group(0), t.group(0)), body)
            out.append(re.sub(r"\s*##\s*", "", made))
    return " ".join(out)


def statements(text):
    """File-scope statements: (head, body or None, tail), body the text
    between the outer braces, tail what follows them up to the ';'."""
    out, depth, head, body, tail, braced = [], 0, [], [], [], False
    text = re.sub(r"^[ \t]*#[^\n]*", " ", text, flags=re.M)
    for ch in text:
        if depth == 0:
            if ch == "{":
                depth, braced = 1, True
            elif ch == ";" or (ch == "\n" and braced and not "".join(tail).strip() and
                               "(" in "".join(head)):
                out.append(("".join(head).strip(), "".join(body) if braced else None,
                            "".join(tail).strip()))
                head, body, tail, braced = [], [], [], False
            else:
                (tail if braced else head).append(ch)
        else:
            depth += {"{": 1, "}": -1}.get(ch, 0)
            if depth:
                body.append(ch)
    return out


def definitions(text, header):
    """Names a file defines for other files to call or read: in a .c, its
    functions and variables not declared static; in a .h, its static
    inline functions. (Types and macros are vocabulary a header describes,
    not code that runs: using one is not counted.)"""
    names = set()
    for head, body, tail in statements(text):
        words = IDENT.findall(head)
        first = words[0] if words else ""
        if header:
            if first == "static" and body is not None and "(" in head and "=" not in head:
                names.add(IDENT.findall(head.split("(")[0])[-1])
            continue
        if not words or first in KEYWORDS_NO_DEF or first == "_Static_assert":
            continue
        if "=" in head:
            name = IDENT.findall(re.sub(r"\[[^\]]*\]", "", head.split("=")[0]))
        elif "(" in head and body is not None:
            name = IDENT.findall(head.split("(")[0])
        else:
            name = None
        if name:
            names.add(name[-1])
    return names


def module_of(rel):
    return os.path.splitext(rel)[0]


def read_layer(root, layer):
    """The layer's modules: name -> {includes, uses, defines, declares}."""
    mods = {}
    for path in layer_files(root, layer):
        rel = os.path.relpath(path, root)
        with open(path, encoding="utf-8") as f:
            raw = f.read()
        code = strip(raw, strings=False)
        text = strip(raw)
        m = mods.setdefault(module_of(rel), {"includes": [], "uses": set(),
                                             "defines": {}, "declares": {}})
        made = expand_defs(code, root)
        idents = set(IDENT.findall(text)) | set(IDENT.findall(made))
        if rel.endswith(".h"):
            # a header declares; only its inline functions' bodies run
            m["uses"] |= {i for head, body, _ in statements(text)
                          if body is not None and head.startswith("static") and "(" in head
                          for i in IDENT.findall(body)}
        else:
            m["uses"] |= idents
        for inc in INCLUDE.finditer(code):
            if inc.group(1).startswith(layer + "/") and inc.group(1).endswith(".h"):
                m["includes"].append((rel, inc.group(1)))
        if rel.endswith(".h"):
            m["declares"][rel] = idents
        for name in definitions(text, rel.endswith(".h")):
            m["defines"][name] = rel
    return mods


def edges_of(mods):
    """module -> {module: why}."""
    definer = {}
    for name, m in mods.items():
        for ident, rel in m["defines"].items():
            definer.setdefault(ident, (name, rel))
    declares = {h: ids for m in mods.values() for h, ids in m["declares"].items()}
    nested = {}
    for m in mods.values():
        for rel, header in m["includes"]:
            nested.setdefault(rel, []).append(header)

    def seen_through(header):
        """header and the headers it includes, in turn (what it declares)."""
        out, todo = [], [header]
        while todo:
            h = todo.pop()
            if h not in out:
                out.append(h)
                todo += nested.get(h, [])
        return out

    edges = {name: {} for name in mods}
    for name, m in mods.items():
        for rel, direct in m["includes"]:
            for header, ident in sorted((h, i) for h in seen_through(direct)
                                        for i in declares.get(h, ()) & m["uses"]):
                d = definer.get(ident)
                if d and d[0] != name:
                    via = "" if d[1] == header else f"{header}; "
                    if header != direct:
                        via = f"{direct} -> {via}"
                    edges[name].setdefault(d[0], f"{rel} uses {ident} ({via}defined in {d[1]})")
    return edges


def cycles(edges):
    """Strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on, out, n = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = n[0]
        n[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def one_loop(comp, edges):
    """A shortest cycle through the component's first module, as steps."""
    start, inside = comp[0], set(comp)
    prev, frontier = {start: None}, [start]
    while frontier:
        nxt = []
        for v in frontier:
            for w in sorted(edges[v]):
                if w == start:
                    path = [v]
                    while prev[path[-1]] is not None:
                        path.append(prev[path[-1]])
                    path.reverse()
                    return [(a, b, edges[a][b]) for a, b in zip(path, path[1:] + [start])]
                if w in inside and w not in prev:
                    prev[w] = v
                    nxt.append(w)
        frontier = nxt
    return []


def main(root):
    bad, nmods, nedges = 0, 0, 0
    for layer in LAYERS:
        mods = read_layer(root, layer)
        edges = edges_of(mods)
        nmods += len(mods)
        nedges += sum(len(e) for e in edges.values())
        for comp in cycles(edges):
            hubs = [m for m in comp if m in ALLOWED]
            rest = {m: {w: why for w, why in edges[m].items() if w in comp and w not in hubs}
                    for m in comp if m not in hubs}
            if hubs and not cycles(rest):
                print(f"allowed: cycle of {len(comp)} modules in {layer}/, all through "
                      f"{', '.join(hubs)}: {'; '.join(ALLOWED[h] for h in hubs)}")
                continue
            bad += 1
            print(f"FAIL: cycle of {len(comp)} modules in {layer}/: {', '.join(comp)}")
            for a, b, why in one_loop(comp, edges):
                print(f"    {a} -> {b}: {why}")
    if nmods < 50 or nedges < 50:
        print(f"FAIL: only {nmods} modules and {nedges} dependencies found under {root}")
        return 1
    print(f"{nmods} modules, {nedges} dependencies inside folders, {bad} cycles")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "."))

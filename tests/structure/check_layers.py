#!/usr/bin/env python3
"""check_layers.py: the include graph follows the data flow.

profdb's folders are layers, each allowed to include only from itself and
the layers before it (docs/internals.md):

    common -> ingest -> analyze -> render -> report -> compare -> cli

A layer may hold subfolders (ingest/trace/, analyze/ondemand/, ...): their
files belong to the layer, and an include is ranked by the first component
of its path ("ingest/trace/trace_event.h" is ingest/). A file that includes
a header of a later layer is a failure, with the line named. Tests, fuzz
targets and tools may include anything.
usage: check_layers.py SOURCE_DIR"""
import os
import re
import sys

LAYERS = ["common", "ingest", "analyze", "render", "report", "compare", "cli"]
INCLUDE = re.compile(r'^\s*#\s*include\s+"([a-z_]+)/[^"]+"')


def layer_files(root, layer):
    """The .c and .h files of a layer, its subfolders included, in order."""
    out = []
    for folder, dirs, names in os.walk(os.path.join(root, layer)):
        dirs.sort()
        out += [os.path.join(folder, n) for n in sorted(names) if n.endswith((".c", ".h"))]
    return out


def main(root):
    rank = {name: i for i, name in enumerate(LAYERS)}
    bad, files, edges = [], 0, set()
    for layer in LAYERS:
        for path in layer_files(root, layer):
            files += 1
            name = os.path.relpath(path, os.path.join(root, layer))
            with open(path, encoding="utf-8") as f:
                for n, line in enumerate(f, 1):
                    m = INCLUDE.match(line)
                    if not m:
                        continue
                    target = m.group(1)
                    if target not in rank:
                        bad.append(f"{layer}/{name}:{n}: includes from unknown folder '{target}'")
                    elif rank[target] > rank[layer]:
                        bad.append(f"{layer}/{name}:{n}: {layer}/ must not include {target}/ "
                                   f"(later in {' -> '.join(LAYERS)})")
                    else:
                        edges.add((layer, target))
    if files < 20:
        print(f"FAIL: only {files} source files found under {root}")
        return 1
    for b in bad:
        print("FAIL:", b)
    used = sorted(f"{a}->{b}" for a, b in edges if a != b)
    print(f"{files} files, {len(used)} folder dependencies: {', '.join(used)}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "."))

#!/usr/bin/env python3
"""Makes internal the `package` declarations of MODULES that no other module (nor the shared test
support, nor another module's tests) names. Dry run unless --write; --keep NAMES,... keeps those
names open (a requirement of a package protocol, which the compiler reports). A type stays package
while an open declaration of its module names it. A test target imports only its own module
@testable (check-test-isolation): its own tests may use what closes, other modules' tests may not.
Usage: python3 Tests/support/close_faces.py Mates,Banchan [--write] [--keep a,b]"""
import os, re, sys
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
MODULES = sys.argv[1].split(",")
WRITE = "--write" in sys.argv
KEEP = set(sys.argv[sys.argv.index("--keep") + 1].split(",")) if "--keep" in sys.argv else set()
DECL = re.compile(r"^(\s*(?:@[\w.]+(?:\([^)]*\))?\s+)*)package\s+((?:static\s+|final\s+|override\s+|mutating\s+|nonisolated\s+|convenience\s+|required\s+|lazy\s+|indirect\s+|class\s+(?=func|var))*)(struct|class|enum|protocol|actor|func|var|let|init|subscript|typealias)\b\s*([A-Za-z_][A-Za-z0-9_]*)?")
OPEN = re.compile(r"\b(package|public|open)\b")
TYPE = re.compile(r"^(\s*(?:@[\w.]+(?:\([^)]*\))?\s+)*(?:(?:private|fileprivate|package|public|open|final|indirect)\s+)*)(struct|class|enum|actor|extension)\s+([A-Za-z_][A-Za-z0-9_]*)")

def swift_files(folder):
    for d, _, files in os.walk(folder):
        for f in files:
            if f.endswith(".swift"):
                yield os.path.join(d, f)

texts = {}
for module in os.listdir(f"{ROOT}/Sources"):
    texts[module] = "\n".join(open(p, encoding="utf-8").read() for p in swift_files(f"{ROOT}/Sources/{module}"))
for folder in os.listdir(f"{ROOT}/Tests"):
    if os.path.isdir(f"{ROOT}/Tests/{folder}"):
        # A test target `<Module>Tests` counts as outside every module but its own.
        texts[f"__tests:{folder}"] = "\n".join(open(p, encoding="utf-8").read() for p in swift_files(f"{ROOT}/Tests/{folder}"))
total = 0
for module in MODULES:
    outside = "\n".join(t for m, t in texts.items() if m not in (module, f"__tests:{module}Tests"))
    words = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", outside)) | KEEP
    files = {p: open(p, encoding="utf-8").read().split("\n") for p in swift_files(f"{ROOT}/Sources/{module}")}
    candidates = {}  # (path, line) -> (name, kind)
    for path, lines in files.items():
        for i, line in enumerate(lines):
            m = DECL.match(line)
            if not m or m.group(3) in ("init", "subscript") or m.group(4) is None or m.group(4) in words:
                continue
            candidates[(path, i)] = (m.group(4), m.group(3))
    # Types named by declarations that stay open must stay package too: iterate to a fixed point.
    while True:
        staying_open_text = []
        for path, lines in files.items():
            for i, line in enumerate(lines):
                if (path, i) not in candidates and OPEN.search(re.sub(r"//.*", "", line)):
                    staying_open_text.append(line)
        named = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", "\n".join(staying_open_text)))
        keep = [key for key, (name, kind) in candidates.items() if kind in ("struct", "class", "enum", "protocol", "actor", "typealias") and name in named]
        if not keep:
            break
        for key in keep:
            del candidates[key]
    # Members declared `package` inside a type (or an extension of a type) that is itself internal
    # are internal whatever they say: said so.
    internal_types = set()
    for lines in files.values():
        for line in lines:
            t = TYPE.match(line)
            if t and not OPEN.search(t.group(1)) and t.group(2) != "extension":
                internal_types.add(t.group(3))
    open_types = set()
    for lines in files.values():
        for line in lines:
            t = TYPE.match(line)
            if t and OPEN.search(t.group(1)) and t.group(2) != "extension":
                open_types.add(t.group(3))
    internal_types -= open_types  # a name declared twice (nested types) stays as it is
    for path, lines in files.items():
        depth, closed_at = 0, []  # brace depths at which an internal type's body opened
        for i, line in enumerate(lines):
            code = re.sub(r'"(?:[^"\\]|\\.)*"', '""', re.sub(r"//.*", "", line))
            if closed_at and DECL.match(line) and depth == closed_at[-1] + 1 and (path, i) not in candidates:
                m = DECL.match(line)
                if m.group(3) not in ("struct", "class", "enum", "protocol", "actor", "typealias") or m.group(4) not in words:
                    candidates[(path, i)] = (m.group(4) or m.group(3), "member")
            t = TYPE.match(line)
            if t and "{" in code and t.group(3) in internal_types and not OPEN.search(t.group(1)):
                closed_at.append(depth)
            depth += code.count("{") - code.count("}")
            while closed_at and depth <= closed_at[-1]:
                closed_at.pop()
    for (path, i), _ in candidates.items():
        line = files[path][i]
        m = DECL.match(line)
        files[path][i] = m.group(1) + re.sub(r"^package\s+", "", line[m.end(1):], count=1)
    if WRITE:
        for path, lines in files.items():
            open(path, "w", encoding="utf-8").write("\n".join(lines))
    print(module, len(candidates))
    total += len(candidates)
print("total", total)

#!/usr/bin/env python3
"""How open each module is: the share of its declarations that are `package` or `public`.

Counts declarations (type, func, var/let, init, subscript, typealias, case-less enums' members;
locals excluded: anything inside a function body) the way docs/DECISIONS.md reports them.
Usage: python3 Tests/support/access_share.py [Sources]"""
import os
import re
import sys

DECL = re.compile(r"^\s*((?:@\w+(?:\([^)]*\))?\s+)*)((?:(?:public|package|internal|private|fileprivate|open)(?:\(set\))?\s+|static\s+|final\s+|override\s+|mutating\s+|nonisolated\s+|convenience\s+|required\s+|lazy\s+|weak\s+|unowned\s+|indirect\s+|class\s+(?=func|var))*)"
                  r"(struct|class|enum|protocol|actor|extension|func|var|let|init|subscript|typealias)\b")


def declarations(path):
    """Yields the access word of each declaration outside function bodies."""
    depth_stack = []  # for each open brace: is it a body (func/init/closure/accessor) or a scope (type/extension)?
    pending_scope = None
    for raw in open(path, encoding="utf-8"):
        line = re.sub(r"//.*", "", raw)
        line = re.sub(r'"(?:[^"\\]|\\.)*"', '""', line)
        in_body = any(kind == "body" for kind in depth_stack)
        match = DECL.match(line)
        if match and not in_body:
            keyword = match.group(3)
            modifiers = match.group(2)
            if keyword != "extension":
                access = next((word for word in ("public", "package", "open", "private", "fileprivate", "internal") if re.search(rf"\b{word}\b(?!\(set\))", modifiers)), "internal")
                yield access
            pending_scope = "scope" if keyword in ("struct", "class", "enum", "protocol", "actor", "extension") else "body"
        for character in line:
            if character == "{":
                depth_stack.append(pending_scope or "body")
                pending_scope = None
            elif character == "}":
                if depth_stack:
                    depth_stack.pop()


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "Sources"
    print(f"| module | decls | public | package | internal | private | open share |")
    print(f"|---|---:|---:|---:|---:|---:|---:|")
    for module in sorted(os.listdir(root)):
        counts = {"public": 0, "package": 0, "internal": 0, "private": 0}
        for folder, _, files in os.walk(os.path.join(root, module)):
            for name in files:
                path = os.path.join(folder, name)
                if not name.endswith(".swift") or os.path.islink(path):
                    continue
                for access in declarations(path):
                    key = {"open": "public", "fileprivate": "private"}.get(access, access)
                    counts[key] += 1
        total = sum(counts.values())
        if total == 0:
            continue
        share = (counts["public"] + counts["package"]) / total
        print(f"| {module} | {total} | {counts['public']} | {counts['package']} | {counts['internal']} | {counts['private']} | {share:.0%} |")


if __name__ == "__main__":
    main()

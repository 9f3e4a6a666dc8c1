#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Fails on a public declaration of the installed headers that has no comment.

    scripts/check_api_docs.py [--root DIR] [HEADER|FOLDER ...]

With no paths, reads every header that `cmake --install` puts under include/vigil/: core/*/*.hpp
and core/swim.hpp (core/view is built for the program and the web app only, and not installed).
A declaration is documented by a comment on the line above it, by a comment above the group of
declarations it belongs to (lines with no blank line between them), or, for a data member, by a
comment at the end of its line. Checked: classes, structs, enums, functions, type aliases,
constants and data members at namespace scope and in the public part of a class. Not checked:
enumerators (the enum's comment covers them), anything in a `detail` namespace, defaulted or
deleted special members, and function bodies. Prints FILE:LINE: DECLARATION for each one missing
and exits 1 if there is any.
"""
import argparse
import json
import pathlib
import re
import sys

ACCESS = re.compile(r"^(public|private|protected)\s*:")
CLASS_HEAD = re.compile(r"^(template\s*<.*>\s*)?(class|struct|union)\b")
ENUM_HEAD = re.compile(r"^enum\b")
NAMESPACE = re.compile(r"^(inline\s+)?namespace\b\s*([\w:]*)")


def strip_strings(line):
    return re.sub(r'"(\\.|[^"\\])*"|\'(\\.|[^\'\\])*\'', '""', line)


def code_part(line):
    """The line without a trailing // comment (strings blanked so that // inside one stays)."""
    blank = strip_strings(line)
    at = blank.find("//")
    return (blank[:at] if at >= 0 else blank).strip(), at >= 0


def class_scope(code):
    """The scope a class head opens: a class starts private, a struct or union public."""
    return Scope("class", CLASS_HEAD.match(code).group(2) != "class")


class Scope:
    def __init__(self, kind, public, name=""):
        self.kind = kind  # namespace | class | enum | body
        self.public = public
        self.name = name


def check(path):
    lines = path.read_text(encoding="utf-8").splitlines()
    missing = []
    stack = [Scope("namespace", True)]
    pending = None  # the scope the next "{" opens
    continuing = False  # inside a declaration spread over several lines
    in_block_comment = False
    group_documented = False  # a comment heads the current run of lines
    for number, raw in enumerate(lines, 1):
        line = raw.strip()
        if in_block_comment:
            if "*/" in line:
                in_block_comment = False
            group_documented = True
            continue
        if not line:
            group_documented = False
            continue
        if line.startswith("/*"):
            in_block_comment = "*/" not in line
            group_documented = True
            continue
        if line.startswith("//"):
            group_documented = True
            continue
        if line.startswith("#"):
            continue
        code, trailing_comment = code_part(line)
        scope = stack[-1]
        visible = all(s.public for s in stack) and not any(
            s.kind == "namespace" and s.name.split("::")[-1] == "detail" for s in stack)
        starts = not continuing and scope.kind in ("namespace", "class") and visible
        if ACCESS.match(code):
            scope.public = code.startswith("public")
            group_documented = False
            continue
        template_line = code.startswith("template") and code.endswith(">")
        if starts and code and not code.startswith("}") and not NAMESPACE.match(code):
            exempt = re.search(r"=\s*(default|delete)\s*;", code) or code.startswith(
                ("using namespace", "static_assert", "friend class"))
            if not exempt and not group_documented and not trailing_comment:
                missing.append((number, code[:90]))
        # Scopes opened and closed on this line.
        ns = NAMESPACE.match(code)
        for ch in code:
            if ch == "{":
                if ns:
                    stack.append(Scope("namespace", True, ns.group(2)))
                    ns = None
                elif pending is not None:
                    stack.append(pending)
                    pending = None
                elif CLASS_HEAD.match(code):
                    stack.append(class_scope(code))
                elif ENUM_HEAD.match(code):
                    stack.append(Scope("enum", True))
                else:
                    stack.append(Scope("body", True))
            elif ch == "}":
                if len(stack) > 1:
                    stack.pop()
        if template_line:
            continuing = True  # the declaration it introduces was checked on this line
        elif code.endswith(("{", ";", "}")):
            continuing = False
        elif code:
            continuing = True
            # A class head split over lines opens its scope on a later line.
            if CLASS_HEAD.match(code):
                pending = class_scope(code)
            elif ENUM_HEAD.match(code):
                pending = Scope("enum", True)
        if stack[-1].kind in ("body", "enum"):
            continuing = False
    return missing


def installed_headers(root):
    core = root / "core"
    headers = sorted(p for p in core.glob("*/*.hpp") if p.parent.name != "view")
    headers += sorted(core.glob("*.hpp"))
    return headers


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default=pathlib.Path(__file__).resolve().parent.parent,
                        type=pathlib.Path)
    parser.add_argument("--baseline", type=pathlib.Path,
                        help="JSON {header: count}: fail only where a header has more undocumented "
                        "declarations than it lists (a ratchet while the comments are written)")
    parser.add_argument("--write-baseline", type=pathlib.Path, help="write today's counts there")
    parser.add_argument("paths", nargs="*", type=pathlib.Path)
    args = parser.parse_args()
    paths = []
    for p in args.paths:
        paths += sorted(p.glob("*.hpp")) if p.is_dir() else [p]
    if not args.paths:
        paths = installed_headers(args.root)
    root = args.root.resolve()
    allowed = json.loads(args.baseline.read_text()) if args.baseline else None
    counts = {}
    total = over = 0
    for path in paths:
        shown = str(path.resolve().relative_to(root)) if path.resolve().is_relative_to(root) else str(path)
        found = check(path)
        counts[shown] = len(found)
        total += len(found)
        limit = allowed.get(shown, 0) if allowed is not None else 0
        if len(found) > limit:
            over += len(found) - limit
            for number, text in found:
                print(f"{shown}:{number}: undocumented: {text}", flush=True)
    if args.write_baseline:
        args.write_baseline.write_text(json.dumps({k: v for k, v in counts.items() if v}, indent=1) + "\n")
    print(f"[api-docs] {len(paths)} headers, {total} undocumented public declarations"
          + (f", {over} more than the baseline allows" if allowed is not None else ""),
          file=sys.stderr)
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())

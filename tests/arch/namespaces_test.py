#!/usr/bin/env python3
"""Namespaces match folders: the code of src/<folder>/ lives in cudiag::<folder>
(or a namespace under it, e.g. cudiag::workflow::fleet); src/core/ is the base
namespace, cudiag (and any cudiag::<name> under it, e.g. cudiag::build_info).

A file may open, besides its own folder's namespace and anonymous ones, any
other namespace only to forward-declare what it names (`class X;`, `struct X;`,
`enum class X : int;`): that defines nothing there. Anything else is a finding
unless EXCEPTIONS names it with its reason. Exit 1, naming each, when one is
found (docs/ARCHITECTURE.md, "Namespaces").

  tests/arch/namespaces_test.py [REPO_ROOT]
"""
import re
import sys
from pathlib import Path

# (file, namespace): why that file defines something in another folder's
# namespace. The test fails once the entry is not needed, so the list cannot go stale.
EXCEPTIONS = {
    ("src/report/child_batch.cpp", "cudiag::probes"):
        "implements probes::ChildBatch: the probes plan their children through it (probes/child_batch.h) "
        "without depending on child/, while its implementation speaks child/'s protocol, which report/ may "
        "include and probes/ may not",
}

OPEN = re.compile(r"\b(?:inline\s+)?namespace\s+([A-Za-z_][\w:]*)?\s*\{")
ALIAS = re.compile(r"\bnamespace\s+\w+\s*=")
FORWARD = re.compile(r"^(?:(?:class|struct|union)\s+\w+|enum\s+(?:class|struct)\s+\w+(?:\s*:\s*[\w:]+)?)\s*;$")


def strip(text):
    """The code without comments, string and character literals (same length, same lines)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif text.startswith('R"', i) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            m = re.match(r'R"([^(\s]*)\(', text[i:])
            end = text.find(")" + m.group(1) + '"', i) if m else -1
            j = n if end < 0 else end + len(m.group(1)) + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c in "\"'" and not (c == "'" and i > 0 and text[i - 1].isalnum()):  # 1'000 digit separators
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(" " * (min(j + 1, n) - i))
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def blocks(code):
    """(namespace, body) for each namespace a file opens, anonymous ones as ""; nested ones qualified."""
    found = []
    stack = []  # for each open brace: the namespace it opened, or None
    i = 0
    while i < len(code):
        m = OPEN.match(code, i) if code[i] == "n" and (i == 0 or not (code[i - 1].isalnum() or code[i - 1] == "_")) else None
        if m and not ALIAS.match(code, i):
            outer = next((s[0] for s in reversed(stack) if s is not None), "")
            name = m.group(1) or ""
            # an anonymous namespace belongs to the one around it (its names are that namespace's)
            full = (outer + "::" + name if outer else name) if name else outer
            stack.append((full, m.end()))
            i = m.end()
            continue
        if code[i] == "{":
            stack.append(None)
        elif code[i] == "}" and stack:
            top = stack.pop()
            if top is not None:
                found.append((top[0], code[top[1]:i]))
        i += 1
    return found


def direct_body(body):
    """The block's own declarations: nested namespaces are checked as blocks of their own."""
    out, depth, i = [], 0, 0
    while i < len(body):
        m = OPEN.match(body, i) if depth == 0 else None
        if m:
            d, j = 1, m.end()
            while j < len(body) and d:
                d += {"{": 1, "}": -1}.get(body[j], 0)
                j += 1
            i = j
            continue
        out.append(body[i])
        i += 1
    return "".join(out)


def only_forward_declarations(body):
    stmts = [s.strip() + ";" for s in direct_body(body).split(";")[:-1]]
    rest = direct_body(body).split(";")[-1].strip()
    return not rest and all(FORWARD.match(re.sub(r"\s+", " ", s)) for s in stmts)


def allowed(folder, ns):
    if ns == "":
        return True
    if folder == "core":
        return ns == "cudiag" or ns.startswith("cudiag::")
    own = f"cudiag::{folder}"
    return ns == own or ns.startswith(own + "::")


def main():
    root = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parents[2])
    src = root / "src"
    bad, used, files = [], set(), 0
    for path in sorted(src.rglob("*")):
        if path.suffix not in (".h", ".cpp", ".in") or path.parent == src:
            continue
        files += 1
        rel = path.relative_to(root).as_posix()
        folder = path.relative_to(src).parts[0]
        for ns, body in blocks(strip(path.read_text(errors="replace"))):
            if allowed(folder, ns) or only_forward_declarations(body):
                continue
            if (rel, ns) in EXCEPTIONS:
                used.add((rel, ns))
                continue
            want = "cudiag[::...]" if folder == "core" else f"cudiag::{folder}[::...]"
            bad.append(f"{rel} defines things in namespace {ns}: src/{folder}/ code belongs in {want} "
                       "(another namespace only for forward declarations; docs/ARCHITECTURE.md, Namespaces)")
    for stale in sorted(set(EXCEPTIONS) - used):
        bad.append(f"exception {stale[0]} ({stale[1]}) is no longer needed; remove it from {Path(__file__).name}")
    for b in bad:
        print(b)
    print(f"{files} files under src/<folder>/, {len(used)} named exceptions, {len(bad)} problems")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

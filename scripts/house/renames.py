#!/usr/bin/env python3
"""Word renames of issue 51.5: one word per meaning.

Run from the repository root: `python3 scripts/house/renames.py`. Idempotent: a second run
changes nothing. Meant to be re-run after merging branches, so their new uses of an old word
are renamed too.

Each rename says which meaning it takes a word away from:

memory — "memory" meant two things: the session's state file on disk (cursor, draft,
  history, pending send: `SessionMemory`) and the transcript's in-RAM budget ("entries not
  kept in memory"). The file on disk becomes the *saved session*; "memory" keeps the RAM
  meaning.
    module app::shared::memory      -> app::shared::saved_session (file moved with git mv)
    SessionMemory                   -> SavedSession
    SharedMemory                    -> SharedSavedSession
    with_memory                     -> with_saved_session
    `memory` (a value of those types, in code of a file that names them)
                                    -> `saved_session`
    "session memory" (prose)        -> "saved session"
"""

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SOURCE_DIRS = ["src", "tests", "crates", "benches", "fuzz", "docs"]

# Whole-word renames applied everywhere (code, comments, strings, docs).
WORDS = {
    "SessionMemory": "SavedSession",
    "SharedMemory": "SharedSavedSession",
    "with_memory": "with_saved_session",
}
# Literal renames applied everywhere.
LITERALS = {
    "shared::memory": "shared::saved_session",
    'module(&["app", "shared", "memory"])': 'module(&["app", "shared", "saved_session"])',
    "src/app/shared/memory.rs": "src/app/shared/saved_session.rs",
    "app/shared/memory.rs": "app/shared/saved_session.rs",
    "[`memory::SessionMemory`]": "[`crate::app::shared::saved_session::SavedSession`]",
    "[`memory::SavedSession`]": "[`crate::app::shared::saved_session::SavedSession`]",
    '.lock().expect("memory")': '.lock().expect("saved session")',
    "session memory": "saved session",
    "Session memory": "Saved session",
}
# Module files moved: old path -> new path.
MOVES = {"src/app/shared/memory.rs": "src/app/shared/saved_session.rs"}
# `pub mod memory;` in the parent.
MOD_DECLS = {"src/app/shared/mod.rs": ("memory", "saved_session")}
# A file naming one of these has its code identifiers `memory` renamed (not its comments or
# strings, where "memory" is RAM).
TYPE_MARKERS = re.compile(r"\b(SavedSession|SharedSavedSession|saved_session)\b")
CODE_WORDS = {"memory": "saved_session"}


def code_spans(text):
    """Yields (start, end, is_code) over `text`: comments and string literals are not code."""
    i, n, start = 0, len(text), 0
    while i < n:
        c = text[i]
        if text.startswith("//", i) or text.startswith("/*", i):
            if start < i:
                yield start, i, True
            if text.startswith("//", i):
                j = text.find("\n", i)
                j = n if j < 0 else j
            else:
                j = text.find("*/", i + 2)
                j = n if j < 0 else j + 2
            yield i, j, False
            i = start = j
            continue
        m = re.match(r'r(#*)"', text[i:i + 10]) if c == "r" and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")) else None
        if m:
            hashes = m.group(1)
            close = '"' + hashes
            j = text.find(close, i + len(m.group(0)))
            j = n if j < 0 else j + len(close)
            if start < i:
                yield start, i, True
            yield i, j, False
            i = start = j
            continue
        if c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            j = min(n, j + 1)
            if start < i:
                yield start, i, True
            yield i, j, False
            i = start = j
            continue
        if c == "'" and re.match(r"'(\\.|[^\\'])'", text[i:i + 4]):
            # A char literal such as '"': skipped whole so its quote opens no string.
            j = i + len(re.match(r"'(\\.|[^\\'])'", text[i:i + 4]).group(0))
            if start < i:
                yield start, i, True
            yield i, j, False
            i = start = j
            continue
        i += 1
    if start < n:
        yield start, n, True


def rename_code_words(text):
    out = []
    for a, b, is_code in code_spans(text):
        part = text[a:b]
        if is_code:
            for old, new in CODE_WORDS.items():
                part = re.sub(r"\b%s\b" % re.escape(old), new, part)
        out.append(part)
    return "".join(out)


def files():
    for d in SOURCE_DIRS:
        base = ROOT / d
        if not base.exists():
            continue
        for p in base.rglob("*"):
            if p.is_file() and p.suffix in (".rs", ".md") and "target" not in p.parts:
                yield p
    for p in ROOT.glob("*.md"):
        yield p


def main():
    for old, new in MOVES.items():
        if (ROOT / old).exists() and not (ROOT / new).exists():
            subprocess.run(["git", "mv", old, new], cwd=ROOT, check=True)
    changed = 0
    for path in files():
        text = path.read_text()
        new = text
        for old, repl in LITERALS.items():
            new = new.replace(old, repl)
        for old, repl in WORDS.items():
            new = re.sub(r"\b%s\b" % re.escape(old), repl, new)
        rel = path.relative_to(ROOT).as_posix()
        if rel in MOD_DECLS:
            old_mod, new_mod = MOD_DECLS[rel]
            new = re.sub(r"\bmod %s;" % old_mod, "mod %s;" % new_mod, new)
        if path.suffix == ".rs" and TYPE_MARKERS.search(new):
            new = rename_code_words(new)
        if new != text:
            path.write_text(new)
            changed += 1
    print(f"renames: {changed} files changed", file=sys.stderr)


if __name__ == "__main__":
    main()

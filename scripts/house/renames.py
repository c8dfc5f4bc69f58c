#!/usr/bin/env python3
"""Word renames of issue 51.5: one word per meaning.

Run from the repository root: `python3 scripts/house/renames.py`. Idempotent: a second run
changes nothing. Meant to be re-run after merging branches, so their new uses of an old word
are renamed too. Every rename below is data; `main` applies it in this order: files moved
(and made), literals, patterns, whole words, then per file: literals, whole words, `mod`
declarations, lines ensured, words in code only.

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

log — "log" meant five things: the Events pane's ring of recent rows (`session::log`,
  `EventLog`), the local event log on disk (`LogFiles`, `LogAppender`, `local_log`,
  `from_log`, `[history] log_mib`), the app's diagnostic log files (tracing, `logs/`), the
  simulator's record of accepted patches (`patch_log`) and the test servers' records of
  requests. "log" keeps the diagnostic meaning (what a user calls the log); the persisted
  events kept on disk are always the *event log*, never a bare "log"; the Events pane
  holds *recent events*; what a simulator or test server keeps of requests is a *record*.
    module session::log             -> session::recent_events
    EventLog / LogEntry             -> RecentEvents / RecentEvent
    LOG_CAPACITY                    -> RECENT_EVENTS_CAPACITY
    Session::log(), its field `log` -> Session::recent_events(), `recent_events`
    module store::log_writer        -> store::event_log_writer
    LogFiles / LogAppender          -> EventLogFiles / EventLogAppender
    module app::session::reading::local_log
                                    -> app::session::reading::local_event_log
    open_local_log / close_local_log -> open_event_log / close_event_log
    replay_log / replay_logged      -> replay_event_log / replay_event_log_record
    log_frame / hand_off_log        -> append_to_event_log / hand_off_event_log
    write_log (benches), `log` values of an appender
                                    -> write_event_log, `appender`
    log_cursor                      -> cursor_to_store
    log_resume_point                -> event_log_resume_point
    logged_here, set_logged_here, history_logged_here
                                    -> event_log_here, set_event_log_here, has_event_log_here
    logged_event                    -> event_log_record
    with_log_limit, log_max_bytes   -> with_event_log_limit, event_log_max_bytes
    module away::from_log, digest_builder_from_log
                                    -> away::from_event_log, digest_builder_from_event_log
    LOG_MIB_MAX                     -> EVENT_LOG_MIB_MAX (the config key `[history] log_mib`
                                       became `event_log_mib`; settings.rs still reads the
                                       old name: not a rename of this script)
    "local log" (prose, messages)   -> "local event log"
    module gobare-sim patch_log     -> accepted_patches
    the hostile test server's `log` -> `requests`; stream_resume's RequestLog -> OpenRecord

outputs — "outputs" meant three things: the workspace's `/workspace/outputs/` (files the
  agent writes there become artifacts: the API's word), the local saving of artifacts
  (`src/outputs/`, `[outputs] dir`, `outputs_dir`), and the app's artifacts and files
  overlays' jobs (`app::session::outputs`, `OutputsMsg`, `Job::Outputs`). "outputs" keeps
  the API's meaning. Saving to disk is *downloads*; the overlays' jobs are *overlay jobs*;
  times and sizes as people read them, which lived in the saving module, are *readable*.
    module outputs                  -> downloads (times.rs and units.rs -> readable)
    outputs_dir / outputs_root      -> downloads_dir / downloads_root (the config key
                                       `[outputs] dir` became `[downloads] dir`; the old
                                       name is still read, in settings.rs)
    module app::session::outputs    -> app::session::overlay_jobs
    module app::session::outputs_msg, OutputsMsg
                                    -> app::session::overlay_msg, OverlayMsg
    AppMsg::Outputs, Job::Outputs   -> AppMsg::Overlay, Job::Overlays ("overlays")
    on_outputs / spawn_outputs      -> on_overlay_msg / spawn_overlay_job
    tests/suite/outputs_app.rs      -> tests/suite/artifacts_app.rs

changes — "changes" meant a session's file changes (`src/changes/`, the changes view, `D`,
  `diff`) and, in four places, something else: the fleet front's coalesced redraws
  (`changes`, `CHANGES_FPS`), the time until a shown age or usage figure next differs
  (`age_changes_in`, `UsageCell::changes_in`), an entry the screen reader says again when
  it is updated (`changes_in_place`) and what a todo list's update says (`todo_changes`).
  "changes" keeps the file changes.
    fleet front `changes`, CHANGES_FPS -> `redraws`, REDRAWS_FPS
    age_changes_in, changes_in      -> age_redraw_in, redraw_in
    changes_in_place                -> updated_in_place
    todo_changes                    -> todo_updates

Wanted — three types were called `Wanted`: the theme's colour as the config names it, what
  the fleet reads of a session, and what an event needs known before the export writes it. The export keeps
  its own (another change owns it); the others say what they are.
    ui::theme::overrides::Wanted    -> ConfiguredColor
    app::fleet::details::Wanted     -> DetailReads
"""

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SOURCE_DIRS = ["src", "tests", "crates", "benches", "fuzz", "docs", "examples"]

# Module files moved: old path -> new path (git mv; skipped once the new one exists).
MOVES = {
    "src/app/shared/memory.rs": "src/app/shared/saved_session.rs",
    "src/session/log.rs": "src/session/recent_events.rs",
    "src/store/log_writer.rs": "src/store/event_log_writer.rs",
    "src/app/session/reading/local_log.rs": "src/app/session/reading/local_event_log.rs",
    "src/away/from_log.rs": "src/away/from_event_log.rs",
    "crates/gobare-sim/src/patch_log.rs": "crates/gobare-sim/src/accepted_patches.rs",
    "src/outputs/times.rs": "src/readable/times.rs",
    "src/outputs/units.rs": "src/readable/units.rs",
    "src/outputs/beneath.rs": "src/downloads/beneath.rs",
    "src/outputs/mod.rs": "src/downloads/mod.rs",
    "src/outputs/save.rs": "src/downloads/save.rs",
    "src/outputs/save_dir.rs": "src/downloads/save_dir.rs",
    "src/outputs/target.rs": "src/downloads/target.rs",
    "src/app/session/outputs.rs": "src/app/session/overlay_jobs.rs",
    "src/app/session/outputs_msg.rs": "src/app/session/overlay_msg.rs",
    "tests/suite/outputs_app.rs": "tests/suite/artifacts_app.rs",
}
# Files made when missing: path -> contents.
CREATE = {
    "src/readable/mod.rs": (
        "//! Times, sizes and rates as people read them: the one way every screen, list,\n"
        "//! export and progress line says them.\n"
        "\n"
        "pub(crate) mod times;\n"
        "pub(crate) mod units;\n"
    ),
}
# `mod old;` -> `mod new;` in the parent module's file.
MOD_DECLS = {
    "src/app/shared/mod.rs": [("memory", "saved_session")],
    "src/session/mod.rs": [("log", "recent_events")],
    "src/store.rs": [("log_writer", "event_log_writer")],
    "src/app/session/reading/mod.rs": [("local_log", "local_event_log")],
    "src/away.rs": [("from_log", "from_event_log")],
    "crates/gobare-sim/src/lib.rs": [("patch_log", "accepted_patches")],
    "src/lib.rs": [("outputs", "downloads")],
    "src/app/session/mod.rs": [("outputs", "overlay_jobs"), ("outputs_msg", "overlay_msg")],
    "tests/suite/mod.rs": [("outputs_app", "artifacts_app")],
}
# A line put into a file when it is missing: path -> [(line, the line it goes before)].
ENSURE_LINES = {
    "src/lib.rs": [("mod readable;", "mod redact;")],
}

# Literal renames applied everywhere (code, comments, strings, docs), before WORDS.
LITERALS = {
    # memory
    "shared::memory": "shared::saved_session",
    'module(&["app", "shared", "memory"])': 'module(&["app", "shared", "saved_session"])',
    "src/app/shared/memory.rs": "src/app/shared/saved_session.rs",
    "app/shared/memory.rs": "app/shared/saved_session.rs",
    "[`memory::SessionMemory`]": "[`crate::app::shared::saved_session::SavedSession`]",
    "[`memory::SavedSession`]": "[`crate::app::shared::saved_session::SavedSession`]",
    '.lock().expect("memory")': '.lock().expect("saved session")',
    "session memory": "saved session",
    "Session memory": "Saved session",
    # log: the Events pane's recent events
    "session::log::": "session::recent_events::",
    "src/session/log.rs": "src/session/recent_events.rs",
    ".log()": ".recent_events()",
    # log: the event log on disk
    "local log": "local event log",
    "local event log of its events": "local event log",
    "Local log": "Local event log",
    "src/store/log_writer.rs": "src/store/event_log_writer.rs",
    "src/app/session/reading/local_log.rs": "src/app/session/reading/local_event_log.rs",
    "src/away/from_log.rs": "src/away/from_event_log.rs",
    "crates/gobare-sim/src/patch_log.rs": "crates/gobare-sim/src/accepted_patches.rs",
    # outputs
    "crate::outputs::times": "crate::readable::times",
    "crate::outputs::units": "crate::readable::units",
    "crate::outputs::{times, units}": "crate::readable::{times, units}",
    "crate::outputs::{self as out, save, save_dir, units}":
        "crate::downloads::{self as out, save, save_dir};\nuse crate::readable::units",
    "outputs::times": "readable::times",
    "outputs::units": "readable::units",
    "src/outputs/times.rs": "src/readable/times.rs",
    "src/outputs/units.rs": "src/readable/units.rs",
    "src/outputs/": "src/downloads/",
    "crate::outputs": "crate::downloads",
    "`outputs::": "`downloads::",
    "`outputs/`": "`downloads/`",
    "src/app/session/outputs.rs": "src/app/session/overlay_jobs.rs",
    "src/app/session/outputs_msg.rs": "src/app/session/overlay_msg.rs",
    "tests/suite/outputs_app.rs": "tests/suite/artifacts_app.rs",
    "`app::outputs`": "`app::session::overlay_jobs`",
    "AppMsg::Outputs": "AppMsg::Overlay",
    "Job::Outputs": "Job::Overlays",
    'Outputs => "outputs"': 'Overlays => "overlays"',
}
# Regex renames applied everywhere, after LITERALS: (pattern, replacement).
PATTERNS = [
    # "local log" broken over two comment lines.
    (re.compile(r"\blocal(\n[ \t]*//[/!]?[ \t]*)log\b"), r"local\1event log"),
]
# Whole-word renames applied everywhere (code, comments, strings, docs).
WORDS = {
    # memory
    "SessionMemory": "SavedSession",
    "SharedMemory": "SharedSavedSession",
    "with_memory": "with_saved_session",
    # log: the Events pane's recent events
    "EventLog": "RecentEvents",
    "LogEntry": "RecentEvent",
    "LOG_CAPACITY": "RECENT_EVENTS_CAPACITY",
    # log: the event log on disk
    "log_writer": "event_log_writer",
    "LogFiles": "EventLogFiles",
    "LogAppender": "EventLogAppender",
    "local_log": "local_event_log",
    "open_local_log": "open_event_log",
    "close_local_log": "close_event_log",
    "replay_log": "replay_event_log",
    "replay_logged": "replay_event_log_record",
    "log_frame": "append_to_event_log",
    "hand_off_log": "hand_off_event_log",
    "log_cursor": "cursor_to_store",
    "log_resume_point": "event_log_resume_point",
    "logged_here": "event_log_here",
    "set_logged_here": "set_event_log_here",
    "history_logged_here": "has_event_log_here",
    "logged_event": "event_log_record",
    "with_log_limit": "with_event_log_limit",
    "log_max_bytes": "event_log_max_bytes",
    "from_log": "from_event_log",
    "digest_builder_from_log": "digest_builder_from_event_log",
    "LOG_MIB_MAX": "EVENT_LOG_MIB_MAX",
    "write_log": "write_event_log",
    # log: records of requests
    "patch_log": "accepted_patches",
    "RequestLog": "OpenRecord",
    # outputs
    "outputs_dir": "downloads_dir",
    "outputs_root": "downloads_root",
    "OutputsMsg": "OverlayMsg",
    "outputs_msg": "overlay_msg",
    "on_outputs": "on_overlay_msg",
    "spawn_outputs": "spawn_overlay_job",
    "outputs_app": "artifacts_app",
    # changes
    "CHANGES_FPS": "REDRAWS_FPS",
    "age_changes_in": "age_redraw_in",
    "changes_in": "redraw_in",
    "changes_in_place": "updated_in_place",
    "todo_changes": "todo_updates",
}
# Literal renames in one file only (after WORDS): path -> {old: new}.
FILE_LITERALS = {
    "src/session/mod.rs": {
        "use log::RecentEvents;": "use recent_events::RecentEvents;",
        "    log: RecentEvents,": "    recent_events: RecentEvents,",
        "fn log(&self) -> &RecentEvents": "fn recent_events(&self) -> &RecentEvents",
        "self.log.": "self.recent_events.",
        "&self.log\n": "&self.recent_events\n",
    },
    "src/session/tail_replay.rs": {
        "use super::log::": "use super::recent_events::",
        "self.log.": "self.recent_events.",
    },
    "src/session/recent_events.rs": {
        "so logging allocates nothing": "so recording allocates nothing",
        "counts every event ever logged": "counts every event ever recorded",
    },
    "src/ui/events.rs": {
        "/// Log index of the bottom row": "/// Index (counted by `RecentEvents`) of the bottom row",
    },
    "src/store/event_log_writer.rs": {
        "cannot write the event log, no longer logging": "cannot write the event log, no longer appending",
        "events are no longer logged": "events are no longer appended",
    },
    "tests/suite/restart_fidelity.rs": {
        "/// The session's current log segment": "/// The session's current event log segment",
    },
    "crates/gobare-api/tests/support/hostile.rs": {
        "every request is logged": "every request is recorded",
    },
    "crates/gobare-api/tests/suite/stream_resume.rs": {
        "`open`, logging when": "`open`, recording when",
    },
    "src/downloads/mod.rs": {
        "which\n//! artifacts to save where, safely, and how sizes and times read.":
            "which\n//! artifacts to save where, and safely.",
        "pub(crate) mod times;\n": "",
        "pub(crate) mod units;\n": "",
    },
    "src/app/session/overlay_jobs.rs": {
        "crate::downloads::{self as out, save, save_dir}": "crate::downloads::{self, save, save_dir}",
        " out::list_all(": " downloads::list_all(",
        " out::plan(": " downloads::plan(",
    },
    "src/app/session/msg.rs": {
        "    Outputs(crate::app::session::overlay_msg::OverlayMsg)":
            "    Overlay(crate::app::session::overlay_msg::OverlayMsg)",
    },
    "src/app/fleet/mod.rs": {
        "/// What the fleet's own changes draw at most a second":
            "/// Frames the fleet's own updates draw at most a second",
        "/// The fleet's changes, coalesced to": "/// Frames for the fleet's own updates, coalesced to",
        "    changes: FrameScheduler": "    redraws: FrameScheduler",
        "            changes: FrameScheduler::new(": "            redraws: FrameScheduler::new(",
        "self.changes.": "self.redraws.",
    },
}
# Whole words renamed in one file only (code, comments and strings): path -> {old: new}.
# The export has a `Wanted` of its own: no rule names a file of it.
FILE_WORDS = {
    "src/ui/theme/overrides.rs": {"Wanted": "ConfiguredColor"},
    "src/app/fleet/details.rs": {"Wanted": "DetailReads"},
    "src/app/fleet/live.rs": {"Wanted": "DetailReads"},
}
# Words renamed in the code (not comments or strings) of files: (which files, {old: new}).
# Which files: a regex over the text (the file names one of the new names) or a path.
CODE_WORDS = [
    (re.compile(r"\b(SavedSession|SharedSavedSession|saved_session)\b"), {"memory": "saved_session"}),
    ("src/ui/events.rs", {"log": "recent"}),
    ("src/session/recent_events.rs", {"log": "recent"}),
    ("src/session/mod.rs", {"logged": "kept"}),
    ("src/app/session/mod.rs", {"logging": "event_log_kept"}),
    ("src/app/session/reading/local_event_log.rs", {"log": "appender"}),
    ("src/app/session/reading/paging_back.rs", {"log": "loaded"}),
    ("src/session/tail_replay/tests.rs", {"logged": "in_event_log"}),
    ("src/store/event_log/tests.rs", {"log": "appender"}),
    ("benches/event_log.rs", {"log": "appender"}),
    ("benches/away_digest.rs", {"log": "appender"}),
    ("tests/suite/restart_fidelity.rs", {"log": "segment", "log_file": "event_log_segment"}),
    ("crates/gobare-api/tests/support/hostile.rs", {"log": "requests"}),
]


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


def rename_code_words(text, words):
    out = []
    for a, b, is_code in code_spans(text):
        part = text[a:b]
        if is_code:
            for old, new in words.items():
                part = re.sub(r"\b%s\b" % re.escape(old), new, part)
        out.append(part)
    return "".join(out)


def rename_words(text, words):
    for old, new in words.items():
        text = re.sub(r"\b%s\b" % re.escape(old), new, text)
    return text


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
            (ROOT / new).parent.mkdir(parents=True, exist_ok=True)
            subprocess.run(["git", "mv", old, new], cwd=ROOT, check=True)
    for path, text in CREATE.items():
        if not (ROOT / path).exists():
            (ROOT / path).write_text(text)
            subprocess.run(["git", "add", path], cwd=ROOT, check=True)
    changed = 0
    for path in files():
        text = path.read_text()
        new = text
        rel = path.relative_to(ROOT).as_posix()
        for old, repl in LITERALS.items():
            new = new.replace(old, repl)
        for pattern, repl in PATTERNS:
            new = pattern.sub(repl, new)
        new = rename_words(new, WORDS)
        for old, repl in FILE_LITERALS.get(rel, {}).items():
            new = new.replace(old, repl)
        new = rename_words(new, FILE_WORDS.get(rel, {}))
        for old_mod, new_mod in MOD_DECLS.get(rel, []):
            new = re.sub(r"\bmod %s;" % old_mod, "mod %s;" % new_mod, new)
        for line, before in ENSURE_LINES.get(rel, []):
            if line not in new and before in new:
                new = new.replace(before, line + "\n" + before, 1)
        if path.suffix == ".rs":
            for which, words in CODE_WORDS:
                named = which == rel if isinstance(which, str) else which.search(new)
                if named:
                    new = rename_code_words(new, words)
        if new != text:
            path.write_text(new)
            changed += 1
    print(f"renames: {changed} files changed", file=sys.stderr)


if __name__ == "__main__":
    main()

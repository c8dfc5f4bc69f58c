#!/usr/bin/env python3
"""A resuming client of the Gobare API, written from the reference alone (standard library
only): for each scenario tag it creates a session, subscribes to its event stream, sends a
message carrying the tag, answers what the turn waits for, and reads to the turn's end,
reconnecting with `Last-Event-ID` whenever the stream ends, goes silent or is refused. Then
it checks what a client that resumes relies on (§7.4 of the reference):

* repeats: no persisted event id arrives twice, and ids only grow (a replay after a
  reconnect starts after the cursor);
* holes: the session's full history, re-read from `Last-Event-ID: 0` once the turn has
  ended, holds no persisted event up to the last one seen that the live read missed
  (transient frames carry no id and are not counted);
* the turn ends as its scenario says (`completed`, or `failed` for `#error` and
  `#recovery`), having asked what the scenario asks: an approval (approved), a question
  (answered), a function call (resolved; `#expiring`'s is left to lapse and must carry an
  `expires_at`).

Usage: GOBARE_API=http://127.0.0.1:4780 GOBARE_TOKEN=... python3 run_session.py [TAG ...]

Tags default to every scenario of docs/simulator.md (also `RUN_SESSION_TAGS`, comma or
space separated). Other settings, from the environment:

  RUN_SESSION_IDLE_S      silence (no byte, not even a `: ping`) after which a stream counts
                          as dead and is reopened (default 45: three missed pings, §7.8)
  RUN_SESSION_TIMEOUT_S   most a run may take, as a last resort (default 180)
  RUN_SESSION_EXPIRY_S    `timeout_seconds` of the function `#expiring` calls (default 1)
  RUN_SESSION_KEEP        1 keeps the sessions; otherwise each is deleted after its run

Prints one line per run and `runs N holes H repeats R`, then how often the streams were
reopened. Exit status 0 when every check of every run holds, 1 otherwise. Progress goes
to stderr, a line each: `#TAG: turn ID started`, every answer, every reopen and why
(`stream ended (eof)`, `… (idle)`, `stream refused 429 …`); the simulator's test
(crates/gobare-sim/tests/suite/seed_run_session.rs) switches faults on by these lines.
"""

import http.client
import json
import os
import re
import sys
import time
import urllib.error
import urllib.request
import uuid

API = os.environ.get("GOBARE_API", "http://127.0.0.1:4780").rstrip("/")
TOKEN = os.environ["GOBARE_TOKEN"]
IDLE_S = float(os.environ.get("RUN_SESSION_IDLE_S", "45"))
RUN_TIMEOUT_S = float(os.environ.get("RUN_SESSION_TIMEOUT_S", "180"))
EXPIRY_S = int(os.environ.get("RUN_SESSION_EXPIRY_S", "1"))
KEEP = os.environ.get("RUN_SESSION_KEEP") == "1"

TAGS = [
    "quick", "long", "approval", "question", "choice", "function",
    "expiring", "error", "recovery", "edits", "undiffed",
]
# The turn's outcome each scenario ends with; any other tag is expected to complete.
EXPECTED_STATUS = {"error": "failed", "recovery": "failed"}
# What each scenario's turn waits for (`required_actions[].type`).
EXPECTED_WAIT = {
    "approval": "approval",
    "question": "question",
    "choice": "question",
    "function": "function_call",
    "expiring": "function_call",
}
# Scenarios whose function call is left unanswered until it lapses.
LAPSES = {"expiring"}

FUNCTION_OUTPUT = json.dumps({"order_id": "A-4471", "status": "shipped", "carrier": "DHL"})
RETRYABLE_WITHOUT_HEADER = 5  # attempts at a retryable failure that names no wait


def log(line):
    print(f"run_session: {line}", file=sys.stderr, flush=True)


class RunFailed(Exception):
    """A check of one run does not hold, or the run cannot go on."""


def retry_after(headers):
    """Seconds from `Retry-After`, or None when absent (§2: absent means do not retry)."""
    value = headers.get("Retry-After") if headers else None
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        return 1.0


def error_code(body):
    try:
        return json.loads(body)["error"]["code"]
    except (ValueError, KeyError, TypeError):
        return None


def request(method, path, body=None, deadline=None):
    """A JSON request; retryable refusals are retried after their `Retry-After` with the
    same `Idempotency-Key` (§4), network failures a few times. Returns (status, body)."""
    headers = {"Authorization": f"Bearer {TOKEN}", "Accept": "application/json"}
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    if method != "GET":
        headers["Idempotency-Key"] = str(uuid.uuid4())
    failures = 0
    while True:
        req = urllib.request.Request(API + path, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(req, timeout=30) as resp:
                raw = resp.read()
                return resp.status, json.loads(raw) if raw else None
        except urllib.error.HTTPError as err:
            raw = err.read()
            wait = retry_after(err.headers)
            code = error_code(raw)
            err.close()
            if wait is None or code == "project_limit_exceeded":
                return err.code, json.loads(raw) if raw else None
            log(f"{method} {path}: {err.code} {code}, retrying in {wait:g} s")
        except (urllib.error.URLError, OSError, http.client.HTTPException) as err:
            failures += 1
            if failures >= RETRYABLE_WITHOUT_HEADER:
                raise RunFailed(f"{method} {path}: {err}") from err
            wait = 0.2 * 2**failures
            log(f"{method} {path}: {err}, retrying in {wait:g} s")
        if deadline is not None and time.monotonic() + wait > deadline:
            raise RunFailed(f"{method} {path}: still refused at the run's deadline")
        time.sleep(wait)


LINE_END = re.compile(rb"\r\n|\r|\n")


class Stream:
    """One session's event stream (§7), reopened from the cursor whenever it ends, stays
    silent for `IDLE_S` or is refused. The cursor is the id of the last persisted frame
    dispatched (transient frames have none and never move it, §7.4)."""

    def __init__(self, session_id, tag, cursor, deadline):
        self.url = f"{API}/v1/sessions/{session_id}/events"
        self.tag = tag
        self.cursor = cursor  # None: live only (the first open of a fresh session)
        self.deadline = deadline
        self.retry_s = 2.0  # until the server's `retry:` says otherwise (§7.1)
        self.resp = None
        self.opened = False
        self.ended = self.idle = self.refused = 0
        self.highest = cursor  # the highest id dispatched (or resumed after)
        self.repeats = []  # ids dispatched again, or not above every id before them
        self._reset_frame()

    def resume_from(self):
        """The cursor the next open sends."""
        if self.cursor is None and self.opened:
            return 0
        return self.cursor

    def _reset_frame(self):
        self.buf = b""
        self.frame_id, self.frame_data = None, []

    def close(self):
        if self.resp is not None:
            self.resp.close()
            self.resp = None

    def _check_deadline(self):
        if time.monotonic() > self.deadline:
            raise RunFailed(f"the run's deadline passed (stream cursor {self.cursor})")

    def _open(self):
        failures = 0
        while True:
            self._check_deadline()
            headers = {"Authorization": f"Bearer {TOKEN}", "Accept": "text/event-stream"}
            # Until a persisted event is seen a reopen asks for everything from the start
            # (§11.1), never live-only again, or what came in between would be lost.
            if self.resume_from() is not None:
                headers["Last-Event-ID"] = str(self.resume_from())
            req = urllib.request.Request(self.url, headers=headers)
            try:
                resp = urllib.request.urlopen(req, timeout=IDLE_S)
            except urllib.error.HTTPError as err:
                raw = err.read()
                wait = retry_after(err.headers)
                code = error_code(raw)
                err.close()
                if wait is None and err.code < 500:
                    raise RunFailed(f"the stream was refused: {err.code} {raw[:200]!r}")
                if wait is None:
                    failures += 1
                    if failures >= RETRYABLE_WITHOUT_HEADER:
                        raise RunFailed(f"the stream keeps failing: {err.code} {code}")
                    wait = self.retry_s * 2**failures
                self.refused += 1
                log(
                    f"#{self.tag}: stream refused {err.code} {code}; "
                    f"reopening in {wait:g} s from {self.resume_from()}"
                )
                time.sleep(wait)
                continue
            except TimeoutError:
                # Nothing came back, not even the head: silent like a stalled stream.
                self.idle += 1
                log(
                    f"#{self.tag}: no answer for {IDLE_S:g} s (idle); "
                    f"reopening from {self.resume_from()}"
                )
                continue
            except (urllib.error.URLError, OSError, http.client.HTTPException) as err:
                failures += 1
                if failures >= RETRYABLE_WITHOUT_HEADER:
                    raise RunFailed(f"the stream cannot be opened: {err}") from err
                log(f"#{self.tag}: stream open failed ({err}); retrying")
                time.sleep(self.retry_s)
                continue
            kind = resp.headers.get("Content-Type", "")
            if resp.status != 200 or not kind.startswith("text/event-stream"):
                resp.close()
                raise RunFailed(f"the stream answered {resp.status} {kind}")
            self.resp, self.opened = resp, True
            self._reset_frame()
            return

    def _reopen(self, why):
        """The connection is gone: drop the half-read frame and come back from the cursor
        after the server's `retry:` delay (§7.8)."""
        self.close()
        self._reset_frame()
        if why == "idle":
            self.idle += 1
            log(
                f"#{self.tag}: no byte for {IDLE_S:g} s (idle); "
                f"reopening from {self.resume_from()}"
            )
        else:
            self.ended += 1
            log(f"#{self.tag}: stream ended ({why}); reopening from {self.resume_from()}")
        time.sleep(self.retry_s)

    def frames(self):
        """Dispatched frames, forever: (id or None, envelope)."""
        while True:
            if self.resp is None:
                self._open()
            self._check_deadline()
            try:
                chunk = self.resp.read1(65536)
            except TimeoutError:
                self._reopen("idle")
                continue
            except (OSError, http.client.HTTPException, ValueError) as err:
                self._reopen(type(err).__name__)
                continue
            if not chunk:
                self._reopen("eof")
                continue
            self.buf += chunk
            yield from self._parse()

    def _parse(self):
        while True:
            end = LINE_END.search(self.buf)
            if end is None:
                return
            if end.group() == b"\r" and end.end() == len(self.buf):
                return  # a CR at the end of what came: its LF may be in the next chunk
            line, self.buf = self.buf[: end.start()], self.buf[end.end() :]
            frame = self._line(line.decode("utf-8"))
            if frame is not None:
                yield frame

    def _line(self, line):
        if line == "":
            frame = None
            if self.frame_data:
                frame = (self.frame_id, json.loads("\n".join(self.frame_data)))
            self.frame_id, self.frame_data = None, []
            return frame
        if line.startswith(":"):
            return None  # a comment: `: ping`
        field, _, value = line.partition(":")
        if value.startswith(" "):
            value = value[1:]
        # `event:` is not needed: the envelope's `type` says the same (§7.2).
        if field == "data":
            self.frame_data.append(value)
        elif field == "id" and "\0" not in value:
            self.frame_id = value
        elif field == "retry" and value.isdigit():
            self.retry_s = int(value) / 1000
        return None

    def persisted(self):
        """Persisted events after the cursor, in order, each once; transient frames are
        returned as (None, envelope) and leave the cursor alone."""
        for frame_id, envelope in self.frames():
            if frame_id is None:
                if envelope.get("type") == "gobare.replay_truncated":
                    payload = envelope.get("payload") or {}
                    from_seq = payload.get("from_seq", envelope.get("from_seq"))
                    log(f"#{self.tag}: replay truncated at {from_seq}; collecting the rest")
                    self.cursor = int(from_seq)
                    self.close()
                    self._reset_frame()
                yield None, envelope
                continue
            seq = int(frame_id)
            if envelope.get("seq") != seq:
                raise RunFailed(f"frame id {seq} carries seq {envelope.get('seq')}")
            # Judged against every id dispatched so far, not the cursor: a cursor sent
            # wrong would hide the repeats it causes.
            if self.highest is not None and seq <= self.highest:
                self.repeats.append(seq)
                log(f"#{self.tag}: event {seq} again (highest so far {self.highest})")
                continue
            self.cursor = self.highest = seq
            yield seq, envelope


def answer(session_id, action, tag, deadline):
    """Answers one required action as the reference says (§9.4)."""
    kind, call_id = action["type"], action["call_id"]
    if kind == "approval":
        event = {"type": "input.approval", "call_id": call_id, "approved": True}
    elif kind == "question":
        options = (action.get("arguments") or {}).get("options") or []
        first = options[0] if options else "go ahead"
        text = first.get("label", "go ahead") if isinstance(first, dict) else str(first)
        event = {"type": "input.question_answer", "call_id": call_id, "answer": text}
    elif kind == "function_call":
        event = {
            "type": "input.tool_result",
            "turn_id": action["turn_id"],
            "call_id": call_id,
            "success": True,
            "output": FUNCTION_OUTPUT,
        }
    else:
        raise RunFailed(f"a required action of unknown type {kind!r}")
    status, body = request(
        "POST", f"/v1/sessions/{session_id}/events", {"events": [event]}, deadline
    )
    if status != 202:
        raise RunFailed(f"answering {kind} {call_id}: {status} {body}")
    if kind == "function_call" and body.get("outcome") not in ("accepted", "already_resolved"):
        raise RunFailed(f"the function result was {body.get('outcome')}: {body}")
    log(f"#{tag}: answered {kind} {call_id}")


def pending_action(session_id, call_id, deadline):
    """The session's required action `call_id`, once it shows (the event may come a moment
    before the session does), or None when it is not pending a while later: read late,
    after a reconnect, it may have lapsed or been answered in the Console."""
    give_up = min(deadline, time.monotonic() + 2)
    while True:
        status, session = request("GET", f"/v1/sessions/{session_id}", deadline=deadline)
        if status != 200:
            raise RunFailed(f"reading the session: {status} {session}")
        for action in session.get("required_actions") or []:
            if action.get("call_id") == call_id:
                return action
        if time.monotonic() > give_up:
            return None
        time.sleep(0.05)


# The event that asks, and the type of the required action it stands for (§10).
ASKS = {
    "approval.requested": "approval",
    "question.asked": "question",
    "tool.required": "function_call",
}
RESOLUTIONS = {"approval.resolved", "question.answered", "tool.resolved"}


class Run:
    """What one run saw, and what it found wrong."""

    def __init__(self, tag):
        self.tag = tag
        self.seen = []  # persisted ids the live read dispatched, in order
        self.transient = 0
        self.turn_id = None
        self.status = None
        self.waited = []  # required action types, in the order asked
        self.asked = set()  # call ids of the actions asked
        self.resolutions = {}  # call id -> (event type, payload)
        self.holes, self.repeats, self.problems = [], [], []
        self.ended = self.idle = self.refused = 0
        self.seconds = 0.0

    def reopened(self, stream):
        self.ended += stream.ended
        self.idle += stream.idle
        self.refused += stream.refused
        self.repeats += stream.repeats


def function_declaration(tag):
    declared = {
        "type": "function",
        "name": "lookup_order",
        "description": "Look an order up in the order system.",
        "parameters": {
            "type": "object",
            "properties": {"order_id": {"type": "string"}},
            "required": ["order_id"],
        },
    }
    if tag in LAPSES:
        declared["timeout_seconds"] = EXPIRY_S
    return declared


def play(tag):
    """One run: a session of its own, one turn, then the checks."""
    run = Run(tag)
    started = time.monotonic()
    deadline = started + RUN_TIMEOUT_S
    body = {"title": f"run_session #{tag}", "agent": {"tools": [function_declaration(tag)]}}
    try:
        status, session = request("POST", "/v1/sessions", body, deadline)
    except RunFailed as err:
        run.problems.append(str(err))
        return run
    if status != 201:
        run.problems.append(f"creating a session answered {status}: {session}")
        return run
    sid = session["id"]
    try:
        live(run, sid, deadline)
    except RunFailed as err:
        run.problems.append(str(err))
    # Checked whatever became of the turn: a hole is what makes a turn hang.
    try:
        history(run, sid, max(deadline, time.monotonic() + 30))
    except RunFailed as err:
        run.problems.append(f"re-reading the history: {err}")
    if not KEEP:
        try:
            request("DELETE", f"/v1/sessions/{sid}", deadline=time.monotonic() + 30)
        except RunFailed as err:
            log(f"#{tag}: deleting {sid}: {err}")
    run.seconds = time.monotonic() - started
    return run


def live(run, sid, deadline):
    """Subscribes, sends the tagged message and reads to the turn's end, answering what
    it waits for; then checks the turn's outcome."""
    tag = run.tag
    stream = Stream(sid, tag, None, deadline)
    try:
        stream._open()  # subscribe before sending (§11.1)
        message = {"type": "input.message", "content": f"Please play #{tag} now."}
        status, accepted = request(
            "POST", f"/v1/sessions/{sid}/events", {"events": [message]}, deadline
        )
        if status != 202:
            raise RunFailed(f"sending answered {status}: {accepted}")
        for seq, envelope in stream.persisted():
            if seq is None:
                run.transient += 1
                continue
            run.seen.append(seq)
            if on_event(run, sid, envelope, deadline):
                break
    finally:
        stream.close()
        run.reopened(stream)

    # The outcome comes from the turn, not from `turn.ended` (§8).
    status, turn = request("GET", f"/v1/sessions/{sid}/turns/{run.turn_id}", deadline=deadline)
    if status != 200:
        raise RunFailed(f"reading turn {run.turn_id}: {status} {turn}")
    run.status = turn.get("status")
    want = EXPECTED_STATUS.get(tag, "completed")
    if run.status != want:
        run.problems.append(f"the turn {run.status}, expected {want}: {turn.get('error')}")
    wait = EXPECTED_WAIT.get(tag)
    if wait is not None and wait not in run.waited:
        run.problems.append(f"the turn never waited for a {wait} (it waited for {run.waited})")
    for call_id in sorted(run.asked):
        kind, payload = run.resolutions.get(call_id, (None, {}))
        if kind is None:
            run.problems.append(f"{call_id} was never resolved on the stream")
        elif kind == "approval.resolved" and payload.get("approved") is not True:
            run.problems.append(f"approval {call_id} resolved {payload}")
        elif kind == "tool.resolved" and payload.get("success") is not (tag not in LAPSES):
            run.problems.append(f"function call {call_id} resolved {payload}")


def on_event(run, sid, envelope, deadline):
    """Acts on one persisted event; True once the run's turn has ended."""
    kind = envelope.get("type")
    payload = envelope.get("payload") or {}
    if kind == "turn.started" and run.turn_id is None:
        run.turn_id = payload.get("turnId") or payload.get("turn_id")
        log(f"#{run.tag}: turn {run.turn_id} started")
    elif kind in ASKS:
        call_id = payload.get("toolCallId")
        run.asked.add(call_id)
        run.waited.append(ASKS[kind])
        # What to answer comes from the session's required actions (§9.4), which also
        # carry the `turn_id` a `tool.required` lacks.
        action = pending_action(sid, call_id, deadline)
        if action is None:
            log(f"#{run.tag}: {call_id} is no longer pending")
        elif run.tag in LAPSES and action["type"] == "function_call":
            if action.get("expires_at") is None:
                raise RunFailed(f"{call_id} has no expires_at, its function a timeout")
            log(f"#{run.tag}: leaving {call_id} to lapse")
        else:
            answer(sid, action, run.tag, deadline)
    elif kind in RESOLUTIONS:
        run.resolutions[payload.get("toolCallId")] = (kind, payload)
    elif kind == "turn.ended":
        ended = payload.get("turnId") or payload.get("turn_id")
        return ended is not None and ended == run.turn_id
    return False


def history(run, sid, deadline):
    """Holes: the session's persisted events up to the last one the live read saw,
    re-read from the start, that the live read did not see."""
    if not run.seen:
        return
    stream = Stream(sid, run.tag, 0, deadline)
    kept = []
    try:
        for seq, _ in stream.persisted():
            if seq is None:
                continue
            kept.append(seq)
            if seq >= run.seen[-1]:
                break
    finally:
        stream.close()
        run.reopened(stream)
    seen = set(run.seen)
    run.holes = [seq for seq in kept if seq not in seen]
    unknown = sorted(seen - set(kept))
    if unknown:
        run.problems.append(f"events {unknown[:5]} seen live are not in the history")


def report(run):
    """The run's line; True when every check held."""
    bad = list(run.problems)
    if run.holes:
        bad.append(f"holes {run.holes[:10]}")
    if run.repeats:
        bad.append(f"repeats {run.repeats[:10]}")
    print(
        f"run #{run.tag}: {run.status or 'no turn'}, {len(run.seen)} persisted + "
        f"{run.transient} transient events, reopened {run.ended} ended / {run.idle} idle / "
        f"{run.refused} refused, holes {len(run.holes)} repeats {len(run.repeats)}, "
        f"{run.seconds:.1f} s: " + ("FAILED: " + "; ".join(bad) if bad else "ok"),
        flush=True,
    )
    return not bad


def main():
    tags = sys.argv[1:] or re.split(r"[,\s]+", os.environ.get("RUN_SESSION_TAGS", "").strip())
    tags = [t.lstrip("#") for t in tags if t] or TAGS
    runs, failed = [], 0
    for tag in tags:
        run = play(tag)
        runs.append(run)
        failed += not report(run)
    holes = sum(len(r.holes) for r in runs)
    repeats = sum(len(r.repeats) for r in runs)
    print(f"runs {len(runs)} holes {holes} repeats {repeats}")
    print(
        f"reopened {sum(r.ended for r in runs)} ended {sum(r.idle for r in runs)} idle "
        f"{sum(r.refused for r in runs)} refused; failed runs {failed}"
    )
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()

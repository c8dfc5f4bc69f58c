#!/usr/bin/env python3
"""A plain client of the Gobare API, written from the reference alone (standard library only),
as an integrator's first script would be: create a session, subscribe, send a message, read
the stream to the turn's end, send a second message that refers to the first, read again,
then list the transcript. It checks what such a person relies on:

* an untagged message under the default policy never parks on an approval or a question;
* round 2's reply refers to round 1 (the agent sees the conversation, not a canned text);
* `items?limit=200` is refused with 400 (the reference caps pages at 100), `limit=100` is not;
* no event id repeats and ids only grow.

Usage: GOBARE_API=http://127.0.0.1:4780 GOBARE_TOKEN=... python3 two_rounds.py
Exit status 0 when every check holds; otherwise 1 with the failed check on stderr.
"""

import json
import os
import sys
import urllib.error
import urllib.request
import uuid

API = os.environ.get("GOBARE_API", "http://127.0.0.1:4780").rstrip("/")
TOKEN = os.environ["GOBARE_TOKEN"]
TIMEOUT_S = float(os.environ.get("TWO_ROUNDS_TIMEOUT_S", "60"))

ROUND_1 = "Summarise how the billing module talks to the database."
ROUND_2 = "Thanks. Now turn that summary into three bullet points."


def fail(why):
    print(f"two_rounds: {why}", file=sys.stderr)
    sys.exit(1)


def request(method, path, body=None, key=None):
    headers = {"Authorization": f"Bearer {TOKEN}", "Accept": "application/json"}
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    if key is not None:
        headers["Idempotency-Key"] = key
    req = urllib.request.Request(API + path, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=TIMEOUT_S) as resp:
            return resp.status, json.loads(resp.read() or b"null")
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read() or b"null")


class Stream:
    """The session's event stream, read frame by frame (§7.2: `id:`, `event:`, `data:`)."""

    def __init__(self, session_id):
        req = urllib.request.Request(
            f"{API}/v1/sessions/{session_id}/events",
            headers={"Authorization": f"Bearer {TOKEN}", "Accept": "text/event-stream"},
        )
        self.resp = urllib.request.urlopen(req, timeout=TIMEOUT_S)
        if self.resp.status != 200:
            fail(f"stream answered {self.resp.status}")
        self.last_id = 0

    def frames(self):
        data, frame_id = [], None
        for raw in self.resp:
            line = raw.decode("utf-8").rstrip("\r\n")
            if line == "":
                if data:
                    yield frame_id, json.loads("\n".join(data))
                data, frame_id = [], None
            elif line.startswith("data:"):
                data.append(line[5:].lstrip(" ") if line[5:6] == " " else line[5:])
            elif line.startswith("id:"):
                frame_id = line[3:].strip()

    def until_turn_ended(self):
        """Every envelope up to and including `turn.ended`; fails on a wait for the user."""
        seen = []
        for frame_id, envelope in self.frames():
            if frame_id:
                n = int(frame_id)
                if n <= self.last_id:
                    fail(f"event id {n} after {self.last_id}: repeated or out of order")
                self.last_id = n
            kind = envelope.get("type")
            seen.append(envelope)
            if kind in ("approval.requested", "question.asked", "tool.required"):
                fail(f"an untagged message parked on {kind}: {envelope.get('payload')}")
            if kind == "turn.ended":
                return seen
        fail("the stream ended before the turn did")


def reply_text(envelopes):
    return "\n".join(
        e["payload"].get("text", "") for e in envelopes if e.get("type") == "agent.message"
    )


def main():
    status, session = request("POST", "/v1/sessions", {"title": "two rounds"}, str(uuid.uuid4()))
    if status != 201:
        fail(f"creating a session answered {status}: {session}")
    sid = session["id"]
    stream = Stream(sid)

    rounds = []
    for text in (ROUND_1, ROUND_2):
        event = {"events": [{"type": "input.message", "content": text}]}
        status, accepted = request("POST", f"/v1/sessions/{sid}/events", event, str(uuid.uuid4()))
        if status != 202:
            fail(f"sending answered {status}: {accepted}")
        envelopes = stream.until_turn_ended()
        ended = [e for e in envelopes if e.get("type") == "turn.ended"][-1]
        rounds.append(reply_text(envelopes))
        turn_id = ended["payload"].get("turnId") or ended["payload"].get("turn_id")
        status, turn = request("GET", f"/v1/sessions/{sid}/turns/{turn_id}")
        if status != 200 or turn.get("status") != "completed":
            fail(f"round {len(rounds)}'s turn: {status} {turn}")
        print(f"round {len(rounds)}: completed, {len(envelopes)} events")

    if ROUND_1[:40] not in rounds[1]:
        fail(f"round 2's reply does not refer to round 1: {rounds[1]!r}")

    status, body = request("GET", f"/v1/sessions/{sid}/items?limit=200")
    if status != 400:
        fail(f"items?limit=200 answered {status}, the reference caps pages at 100: {body}")
    status, body = request("GET", f"/v1/sessions/{sid}/items?limit=100")
    if status != 200 or not body.get("data"):
        fail(f"items?limit=100 answered {status}: {body}")
    said = [i for i in body["data"] if i.get("role") == "user"]
    if len(said) != 2:
        fail(f"the transcript holds {len(said)} user messages, not 2")
    print("two rounds: every check holds")


if __name__ == "__main__":
    main()

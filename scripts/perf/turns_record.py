#!/usr/bin/env python3
"""The simulator's record of turns settled since a time, read through its API with a token
of its own (each token has its own rate buckets), to hold `report --since` against:

    turns_record.py API TOKEN SINCE_MS UNTIL_MS

Prints one JSON object: completed, failed, cancelled (turns whose completed_at is in
[SINCE_MS, UNTIL_MS]),
and how many requests it took. Standard library only; waits out 429s.
"""
import json
import sys
import time
import urllib.error
import urllib.request


def get(api, token, path, counter):
    while True:
        counter[0] += 1
        req = urllib.request.Request(api.rstrip("/") + path,
                                     headers={"Authorization": "Bearer " + token})
        try:
            with urllib.request.urlopen(req) as r:
                return json.load(r)
        except urllib.error.HTTPError as e:
            if e.code == 429:
                time.sleep(float(e.headers.get("Retry-After", "1")))
                continue
            raise


def pages(api, token, path, counter):
    after = None
    while True:
        sep = "&" if "?" in path else "?"
        q = path + sep + "limit=100" + ("&after=" + after if after else "")
        page = get(api, token, q, counter)
        yield from page["data"]
        if not page.get("has_more"):
            return
        after = page.get("last_id") or page["data"][-1]["id"]


def main():
    api, token = sys.argv[1], sys.argv[2]
    since, until = int(sys.argv[3]), int(sys.argv[4])
    counter = [0]
    counts = {"completed": 0, "failed": 0, "cancelled": 0}
    for s in pages(api, token, "/v1/sessions", counter):
        for t in pages(api, token, "/v1/sessions/%s/turns" % s["id"], counter):
            done = t.get("completed_at")
            if done is not None and since <= done <= until and t["status"] in counts:
                counts[t["status"]] += 1
    counts["requests"] = counter[0]
    print(json.dumps(counts))


if __name__ == "__main__":
    main()

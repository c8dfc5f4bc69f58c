#!/usr/bin/env python3
"""Soak of a busy simulator from outside, as a user runs it (issue 26's budgets):

    scripts/perf/sim_soak.py [--secs 600] [--data DIR] [--bin target/release/gobare-tui]

Starts `gobare-tui sim --fleet 500 --fleet-activity 5000 --no-rate-limits`, follows the org
stream from its start (counting events and seq gaps), asks `GET /v1/sessions?limit=100`
every 100 ms, and every 30 s prints the simulator's RSS (VmRSS of its process), the events a
second the stream carried, seq gaps so far, and the list's p50/p99 over those 30 s; at the
end, the whole run's figures. The replay budget is measured by
crates/gobare-sim/tests/suite/budgets.rs.

With --data DIR (issue 50's budgets) it also prints the store's size on disk (sim.sqlite
with its -wal and -shm) every 30 s, splits the list's latency at the moment the store
reaches its retention bound (--retention-events, default 1,000,000 persisted events: before
the cap, with it reached), and after the run stops the simulator and starts it again on
DIR, timing how long until it answers (`GET /v1/health` 200) and until the session list
does.
"""

import argparse
import http.client
import os
import subprocess
import threading
import time

TOKEN = "gbr_pat_soak"


def rss_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def disk_mb(data):
    total = 0
    for name in ("sim.sqlite", "sim.sqlite-wal", "sim.sqlite-shm"):
        try:
            total += os.path.getsize(os.path.join(data, name))
        except OSError:
            pass
    return total / 1e6


def start_sim(cmd):
    return subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def wait_ready(port, path, deadline_s=60):
    """Seconds until `path` answers 200 (polled every 10 ms)."""
    started = time.monotonic()
    while time.monotonic() - started < deadline_s:
        try:
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=1)
            c.request("GET", path, headers={"Authorization": f"Bearer {TOKEN}"})
            r = c.getresponse()
            r.read()
            if r.status == 200:
                return time.monotonic() - started
        except OSError:
            pass
        time.sleep(0.01)
    return float("nan")


def percentile(sorted_values, p):
    if not sorted_values:
        return 0.0
    return sorted_values[round((len(sorted_values) - 1) * p)]


class OrgStream(threading.Thread):
    """Reads the org stream live, counting every event, the persisted ones (those with an
    `id:`; deltas are transient) and gaps between their seqs."""

    def __init__(self, port):
        super().__init__(daemon=True)
        self.port = port
        self.events = 0
        self.frames = 0
        self.gaps = 0
        self.missing = 0
        self.last = None

    def run(self):
        conn = http.client.HTTPConnection("127.0.0.1", self.port)
        conn.request("GET", "/v1/events", headers={"Authorization": f"Bearer {TOKEN}"})
        resp = conn.getresponse()
        for line in resp:
            if line.startswith(b"event: "):
                self.frames += 1
            elif line.startswith(b"id: "):
                seq = int(line[4:])
                if self.last is not None and seq != self.last + 1:
                    self.gaps += 1
                    self.missing += seq - self.last - 1
                self.last = seq
                self.events += 1


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--secs", type=int, default=600)
    ap.add_argument("--data")
    ap.add_argument("--bin", default="target/release/gobare-tui")
    ap.add_argument("--port", type=int, default=4791)
    ap.add_argument("--retention-events", type=int, default=1_000_000)
    args = ap.parse_args()
    cmd = [
        args.bin, "sim", "--addr", f"127.0.0.1:{args.port}", "--token", TOKEN,
        "--fleet", "500", "--fleet-activity", "5000", "--no-rate-limits",
    ]
    if args.data:
        cmd += ["--data", args.data, "--retention-events", str(args.retention_events)]
    sim = start_sim(cmd)
    try:
        for _ in range(100):
            try:
                c = http.client.HTTPConnection("127.0.0.1", args.port, timeout=1)
                c.request("GET", "/v1/health", headers={"Authorization": f"Bearer {TOKEN}"})
                c.getresponse().read()
                break
            except OSError:
                time.sleep(0.1)
        stream = OrgStream(args.port)
        stream.start()
        lister = http.client.HTTPConnection("127.0.0.1", args.port)
        started = time.monotonic()
        next_report = started + 30
        window, every, rss = [], [], []
        # The list's latencies before the store reached its bound, and with it reached.
        uncapped, capped = [], []
        disk = []
        last_events = last_frames = 0
        print(f"t=0s rss={rss_mb(sim.pid):.0f}MB", flush=True)
        while time.monotonic() - started < args.secs:
            asked = time.monotonic()
            lister.request("GET", "/v1/sessions?limit=100",
                           headers={"Authorization": f"Bearer {TOKEN}"})
            resp = lister.getresponse()
            resp.read()
            assert resp.status == 200, resp.status
            took = time.monotonic() - asked
            window.append(took)
            (capped if stream.events >= args.retention_events else uncapped).append(took)
            if time.monotonic() >= next_report:
                window.sort()
                now_rss = rss_mb(sim.pid)
                rss.append(now_rss)
                disk_note = ""
                if args.data:
                    now_disk = disk_mb(args.data)
                    disk.append((stream.events >= args.retention_events, now_disk))
                    disk_note = f" disk={now_disk:.0f}MB"
                print(
                    f"t={round(time.monotonic() - started)}s rss={now_rss:.0f}MB "
                    f"events/s={(stream.frames - last_frames) / 30:.0f} "
                    f"(persisted {(stream.events - last_events) / 30:.0f}) "
                    f"gaps={stream.gaps} list p50={percentile(window, 0.5) * 1e3:.1f}ms "
                    f"p99={percentile(window, 0.99) * 1e3:.1f}ms (n={len(window)})"
                    + disk_note,
                    flush=True,
                )
                last_events, last_frames = stream.events, stream.frames
                every += window
                window = []
                next_report += 30
            time.sleep(0.1)
        every += window
        every.sort()
        after_first = rss[1:] if len(rss) > 2 else (rss or [rss_mb(sim.pid)])
        spread = (max(after_first) - min(after_first)) / min(after_first) * 100 if after_first else 0
        print(
            f"overall: events {stream.frames} ({stream.frames / args.secs:.0f}/s; persisted "
            f"{stream.events}, {stream.events / args.secs:.0f}/s), seq gaps "
            f"{stream.gaps} ({stream.missing} seqs missing), list p50="
            f"{percentile(every, 0.5) * 1e3:.1f}ms p99={percentile(every, 0.99) * 1e3:.1f}ms "
            f"(n={len(every)}), RSS after the first minute {min(after_first):.0f}-"
            f"{max(after_first):.0f}MB ({spread:.1f} %), peak VmHWM "
            + open(f"/proc/{sim.pid}/status").read().split("VmHWM:")[1].split("\n")[0].strip(),
            flush=True,
        )
        if args.data:
            uncapped.sort()
            capped.sort()
            at_cap = [d for reached, d in disk if reached]
            spread = (
                f"{min(at_cap):.0f}-{max(at_cap):.0f}MB "
                f"({(max(at_cap) - min(at_cap)) / min(at_cap) * 100:.1f} %)"
                if at_cap else "never reached"
            )
            print(
                f"store: disk once the bound was reached {spread}; list before the bound "
                f"p50={percentile(uncapped, 0.5) * 1e3:.1f}ms "
                f"p99={percentile(uncapped, 0.99) * 1e3:.1f}ms (n={len(uncapped)}), with it "
                f"p50={percentile(capped, 0.5) * 1e3:.1f}ms "
                f"p99={percentile(capped, 0.99) * 1e3:.1f}ms (n={len(capped)}); "
                f"{stream.events} persisted events seen",
                flush=True,
            )
            sim.terminate()
            sim.wait()
            sim = start_sim(cmd)
            health = wait_ready(args.port, "/v1/health")
            listed = wait_ready(args.port, "/v1/sessions?limit=100")
            print(
                f"restart on the kept store ({disk_mb(args.data):.0f}MB): answering after "
                f"{health:.2f}s, the session list after {health + listed:.2f}s",
                flush=True,
            )
    finally:
        sim.terminate()
        sim.wait()


if __name__ == "__main__":
    main()

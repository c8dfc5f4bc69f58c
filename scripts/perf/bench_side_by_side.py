#!/usr/bin/env python3
"""Every criterion bench of two trees, side by side: run alternately (before, after; then
after, before), ROUNDS rounds, the median of the runs' medians printed per bench with the
load average at each run, then the two benches that print their own figures.

Build both first, each into its own target directory:
  git worktree add --detach ../before REV
  (cd ../before && CARGO_TARGET_DIR=../target-before cargo bench --workspace --no-run)
  cargo bench --workspace --no-run
  BEFORE_TREE=../before BEFORE_TARGET=../target-before python3 scripts/perf/bench_side_by_side.py
Env: ROUNDS (2), MEAS (measurement seconds, 3). Wall time on a shared machine: read the
control (sse_parse/eventsource_stream, a third-party parser neither tree changes) for the
run's noise."""
import glob, os, re, subprocess, sys, json, time

HERE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TREES = {"before": os.path.abspath(os.environ.get("BEFORE_TREE", "../before")), "after": HERE}
SIDES = {"before": os.path.abspath(os.environ.get("BEFORE_TARGET", "../target-before")) + "/release/deps",
         "after": os.path.abspath(os.environ.get("CARGO_TARGET_DIR", os.path.join(HERE, "target"))) + "/release/deps"}
CRITERION = ["away_digest", "changes", "event_log", "export", "fleet", "frame_render", "inbox",
             "keystroke", "model_replay", "search", "sse_parse"]
PRINTERS = ["model_memory", "stream_frames"]
ROUNDS = int(os.environ.get("ROUNDS", "2"))
MEAS = os.environ.get("MEAS", "3")

def binary(side, name):
    cands = [p for p in glob.glob(f"{SIDES[side]}/{name}-*") if re.fullmatch(rf"{name}-[0-9a-f]{{16}}", os.path.basename(p)) and os.access(p, os.X_OK)]
    return max(cands, key=os.path.getmtime) if cands else None

UNITS = {"ps": 1e-3, "ns": 1.0, "µs": 1e3, "us": 1e3, "ms": 1e6, "s": 1e9}
def parse(out):
    res = {}
    name = None
    for line in out.splitlines():
        m = re.match(r"^(\S.*?)\s+time:\s+\[(\S+) (\S+) (\S+) (\S+) (\S+) (\S+)\]", line)
        if m:
            res[m.group(1).strip()] = float(m.group(4)) * UNITS[m.group(5)]
            continue
        m = re.match(r"^\s+time:\s+\[(\S+) (\S+) (\S+) (\S+) (\S+) (\S+)\]", line)
        if m and name:
            res[name] = float(m.group(3)) * UNITS[m.group(4)]
            continue
        if line and not line.startswith(" ") and not line.startswith("Benchmarking") and "time:" not in line:
            name = line.strip()
    return res

results = {"before": {}, "after": {}}
loads = []
for rnd in range(ROUNDS):
    order = ["before", "after"] if rnd % 2 == 0 else ["after", "before"]
    for name in CRITERION:
        for side in order:
            b = binary(side, name)
            if not b:
                print(f"# no {name} for {side}", file=sys.stderr); continue
            load = os.getloadavg()[0]
            env = dict(os.environ, CRITERION_HOME=f"{SIDES[side]}/../criterion-side-by-side")
            cwd = TREES[side]
            if name == "sse_parse":
                cwd += "/crates/gobare-api"
            p = subprocess.run([b, "--bench", "--warm-up-time", "1", "--measurement-time", MEAS, "--noplot"],
                               capture_output=True, text=True, cwd=cwd, env=env)
            r = parse(p.stdout)
            loads.append(load)
            for k, v in r.items():
                results[side].setdefault(k, []).append(v)
            print(f"round {rnd+1} {side:6} {name:14} {len(r):3} benches  load {load:.2f}", file=sys.stderr, flush=True)

def fmt(ns):
    for u, f in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if ns >= f: return f"{ns/f:.3g} {u}"
    return f"{ns:.3g} ns"
print(f"| benchmark | before (median of {ROUNDS} runs' medians) | after | after/before |")
print("| --- | ---: | ---: | ---: |")
for k in sorted(set(results["before"]) & set(results["after"])):
    b = sorted(results["before"][k]); a = sorted(results["after"][k])
    mb = b[len(b)//2] if len(b)%2 else (b[len(b)//2-1]+b[len(b)//2])/2
    ma = a[len(a)//2] if len(a)%2 else (a[len(a)//2-1]+a[len(a)//2])/2
    print(f"| {k} | {fmt(mb)} | {fmt(ma)} | {ma/mb:.3f} |")
only_b = sorted(set(results["before"]) - set(results["after"]))
only_a = sorted(set(results["after"]) - set(results["before"]))
if only_b: print("\nonly before:", ", ".join(only_b))
if only_a: print("only after:", ", ".join(only_a))
if loads:
    print(f"\nload average (1 min) at each run: min {min(loads):.2f}, max {max(loads):.2f}")
for name in PRINTERS if os.environ.get("PRINTERS", "1") != "0" else []:
    for side in ["before", "after"]:
        b = binary(side, name)
        if not b: continue
        p = subprocess.run([b, "--bench"], capture_output=True, text=True, cwd=TREES[side])
        print(f"\n## {name} ({side})\n```\n{p.stdout.strip()[-3000:]}\n```")

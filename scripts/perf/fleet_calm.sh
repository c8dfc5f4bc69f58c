#!/bin/sh
# The fleet's calm output (issue 48): the simulator's busy organization, the fleet in tmux
# at 160x48 (`-f /dev/null`), the keys left alone; over SECS seconds after a warm-up, the
# bytes written to the pane (`pipe-pane -O`), the OSC 9 notifications and bells in them,
# the CPU of the fleet and of the simulator (/proc/PID/stat), and the rows that moved a
# second (`capture-pane` once a second; rows named alike are left out of the count).
#
#   scripts/perf/fleet_calm.sh [FLEET] [ACTIVITY] [SECS] [MODE] [BIN]
#
# MODE: `list` (the fleet in front), `behind` (Enter: a session in front, the fleet behind),
# `burst` (the simulator's deadline burst of --fleet-deadline-burst N calls, the fleet in
# front; ACTIVITY is then the burst's size), `inbox` (F3 at once, `report --since 1h` on
# the same token beside it: the seconds until no deadline reads `? reading`).
# BIN: the build (default target/release).
# Needs tmux and a release build (`cargo build --release`).
set -eu
cd "$(dirname "$0")/../.."
FLEET=${1:-60}
ACTIVITY=${2:-50}
SECS=${3:-60}
MODE=${4:-list}
BIN=${5:-${CARGO_TARGET_DIR:-$PWD/target}/release/gobare-tui}
WORK=$(mktemp -d)
PORT=$((20000 + $$ % 20000))
API="http://127.0.0.1:$PORT"
TOKEN=gbr_pat_calm_probe
NAME=calm$$
export XDG_STATE_HOME="$WORK/state" XDG_CONFIG_HOME="$WORK/config" XDG_DATA_HOME="$WORK/data"
mkdir -p "$XDG_CONFIG_HOME/gobare-tui"
# The notify command runs, so its coalescing is seen: one line a run, its payload.
printf '[notify]\ncommand = ["sh", "-c", "cat >> %s/notify.log; echo >> %s/notify.log"]\n' \
  "$WORK" "$WORK" >"$XDG_CONFIG_HOME/gobare-tui/config.toml"
if [ "$MODE" = burst ]; then
  "$BIN" sim --addr "127.0.0.1:$PORT" --token "$TOKEN" --fleet "$FLEET" \
    --fleet-deadline-burst "$ACTIVITY" >"$WORK/sim.log" 2>&1 &
else
  "$BIN" sim --addr "127.0.0.1:$PORT" --token "$TOKEN" --fleet "$FLEET" \
    --fleet-activity "$ACTIVITY" >"$WORK/sim.log" 2>&1 &
fi
SIM=$!
trap 'tmux kill-session -t $NAME 2>/dev/null || true; kill $SIM 2>/dev/null || true' EXIT
# WARM: seconds the simulator runs before the fleet opens (its sessions reach their waits
# in the first few).
sleep "${WARM:-3}"
tmux -f /dev/null new -d -s "$NAME" -x 160 -y 48 \
  "XDG_STATE_HOME=$XDG_STATE_HOME XDG_CONFIG_HOME=$XDG_CONFIG_HOME GOBARE_API=$API GOBARE_TOKEN=$TOKEN exec $BIN fleet"
if [ "$MODE" = inbox ]; then
  sleep 1
  GOBARE_API=$API GOBARE_TOKEN=$TOKEN "$BIN" report --since 1h >"$WORK/report.out" 2>&1 &
  REPORT=$!
  tmux send-keys -t "$NAME" F3
  i=0
  while [ $i -lt "$SECS" ]; do
    tmux capture-pane -p -t "$NAME" >"$WORK/inbox.$(printf %04d $i)"
    i=$((i + 1))
    sleep 1
  done
  kill $REPORT 2>/dev/null || true
  python3 - "$WORK" <<'EOF2'
import sys, glob, re
shots = sorted(glob.glob(sys.argv[1] + '/inbox.*'))
for i, shot in enumerate(shots):
    text = open(shot).read()
    m = re.search(r'Inbox · (\d+) decision', text)
    reading = text.count('? reading')
    if i % 10 == 0 or (m and reading == 0):
        print(f"{i:4d} s after F3: {m.group(1) if m else '?'} decisions, {reading} read '? reading'")
    if m and int(m.group(1)) > 0 and reading == 0:
        print(f"every deadline shown known {i} s after the fleet opened")
        break
else:
    print("some deadlines still '? reading' at the end")
EOF2
  echo "work directory $WORK"
  exit 0
fi
sleep 8
[ "$MODE" = behind ] && tmux send-keys -t "$NAME" Enter && sleep 3
APP=$(tmux list-panes -t "$NAME" -F '#{pane_pid}')
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
tmux pipe-pane -O -t "$NAME" "cat > $WORK/pane.bytes"
a0=$(ticks "$APP"); s0=$(ticks "$SIM"); t0=$(date +%s.%N)
i=0
while [ $i -lt "$SECS" ]; do
  tmux capture-pane -p -t "$NAME" >"$WORK/screen.$(printf %04d $i)"
  i=$((i + 1))
  sleep 1
done
a1=$(ticks "$APP"); s1=$(ticks "$SIM"); t1=$(date +%s.%N)
tmux pipe-pane -t "$NAME"
sleep 1
HZ=$(getconf CLK_TCK)
python3 - "$WORK/pane.bytes" "$a0" "$a1" "$s0" "$s1" "$t0" "$t1" "$HZ" "$WORK/notify.log" "$WORK" <<'EOF'
import sys, os, re, glob
path, a0, a1, s0, s1, t0, t1, hz, notify, work = sys.argv[1:]
def rows(shot):
    # Each list row's name (its label column), by the line it is drawn on.
    names = {}
    for n, line in enumerate(open(shot).read().split('\n')[2:-3]):
        name = line[1:60].strip(' │›└')
        if name:
            names.setdefault(name, []).append(n)
    return {k: v[0] for k, v in names.items() if len(v) == 1}
shots = sorted(glob.glob(work + '/screen.*'))
moved = 0
for a, b in zip(shots, shots[1:]):
    ra, rb = rows(a), rows(b)
    moved += sum(1 for k, line in rb.items() if k in ra and ra[k] != line)
moves = moved / max(1, len(shots) - 1)
data = open(path, 'rb').read()
wall = float(t1) - float(t0)
osc9 = len(re.findall(rb'\x1b\]9;', data))
# A bell is a BEL not ending an OSC.
no_osc = re.sub(rb'\x1b\][^\x07\x1b]*(\x07|\x1b\\)', b'', data)
bells = no_osc.count(b'\x07')
runs = open(notify).read().count('\n\n') if os.path.exists(notify) else 0
cpu = lambda a, b: (int(b) - int(a)) / int(hz) / wall * 100
print(f"window {wall:.1f} s: {len(data)/wall/1024:.2f} KB/s to the terminal; "
      f"OSC 9 {osc9} ({osc9*60/wall:.1f}/min), bells {bells} ({bells*60/wall:.1f}/min); "
      f"notify command runs {runs}; CPU fleet {cpu(a0,a1):.2f} % / simulator {cpu(s0,s1):.2f} % of a core; "
      f"rows moved {moves:.2f} a second")
EOF
echo "work directory $WORK"

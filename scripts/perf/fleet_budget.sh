#!/bin/sh
# The request budget of a fleet left open (issue 47): the simulator with the reference's
# rate limits and a busy organization, the fleet in tmux at 160x48 with a session open in
# front of it, for MINUTES minutes; then the app's log of requests a minute by class and
# the lowest `general` remaining each minute. Meanwhile, from another shell on the same
# token: `report --since 1h` (compared with the simulator's record) and a download of
# ARTIFACTS artifacts, each timed.
#
#   scripts/perf/fleet_budget.sh [FLEET] [ACTIVITY] [MINUTES] [ARTIFACTS]
#
# Needs tmux and a release build (`cargo build --release`).
set -eu
cd "$(dirname "$0")/../.."
FLEET=${1:-500}
ACTIVITY=${2:-5000}
MINUTES=${3:-10}
ARTIFACTS=${4:-0}
BIN=$PWD/target/release/gobare-tui
WORK=$(mktemp -d)
PORT=$((20000 + $$ % 20000))
API="http://127.0.0.1:$PORT"
TOKEN=gbr_pat_budget_probe
export XDG_STATE_HOME="$WORK/state" XDG_CONFIG_HOME="$WORK/config" XDG_DATA_HOME="$WORK/data"
"$BIN" sim --addr "127.0.0.1:$PORT" --token "$TOKEN" --fleet "$FLEET" \
  --fleet-activity "$ACTIVITY" >"$WORK/sim.log" 2>&1 &
SIM=$!
trap 'tmux kill-session -t budget 2>/dev/null || true; kill $SIM 2>/dev/null || true' EXIT
sleep 3
export GOBARE_API="$API" GOBARE_TOKEN="$TOKEN"
tmux -f /dev/null new -d -s budget -x 160 -y 48 \
  "XDG_STATE_HOME=$XDG_STATE_HOME XDG_CONFIG_HOME=$XDG_CONFIG_HOME GOBARE_API=$API GOBARE_TOKEN=$TOKEN $BIN fleet"
sleep 10
# A session in front of the fleet: Enter on the first row.
tmux send-keys -t budget Enter
started=$(date +%s)
if [ "$ARTIFACTS" -gt 0 ]; then
  SID=$("$BIN" list --json | head -1 | sed 's/.*"id":"\([^"]*\)".*/\1/')
  echo "budget: downloading $ARTIFACTS artifacts of $SID" >&2
fi
half=$((MINUTES * 30))
sleep "$half"
t0=$(date +%s)
if "$BIN" report --since 1h --json >"$WORK/report.json" 2>"$WORK/report.err"; then
  echo "budget: report whole in $(( $(date +%s) - t0 )) s"
else
  echo "budget: report exit $? after $(( $(date +%s) - t0 )) s: $(tail -1 "$WORK/report.err")"
fi
now=$(date +%s)
rest=$(( MINUTES * 60 - (now - started) ))
[ "$rest" -gt 0 ] && sleep "$rest"
tmux send-keys -t budget q
sleep 1
echo "budget: requests a minute by class (fleet ${FLEET}, activity ${ACTIVITY}/s, ${MINUTES} min):"
grep -h 'requests in the last minute' "$XDG_STATE_HOME"/gobare-tui/logs/* 2>/dev/null \
  | sed 's/.*INFO[^:]*: //' | tail -n "$MINUTES"
echo "budget: work directory $WORK"

#!/bin/sh
# Every performance figure of docs/perf.md's "Current budgets and figures", in order. Takes ~10
# minutes; run it on a quiet machine (the figures compare against each other, not against
# a fixed clock). Criterion keeps its reports in target/criterion/.
set -eu
cd "$(dirname "$0")/../.."

cargo bench -p gobare-api --bench sse_parse -- --warm-up-time 1 --measurement-time 3
cargo bench --bench model_replay -- --warm-up-time 1 --measurement-time 3
cargo bench --bench frame_render -- --warm-up-time 1 --measurement-time 3
# End to end (release binary against the simulator started in the test process); the soak
# length is PERF_SOAK_SECS (default 120).
cargo test --release --test all -- --ignored --nocapture --test-threads 1 perf_e2e 2>&1 | grep '^perf:'

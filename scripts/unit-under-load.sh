#!/usr/bin/env bash
# The unit stage N times in a row (default 5) while a CPU-heavy job keeps one core busy, as CI's
# busy 2-core machine would. Prints one line per run; exits 1 if any run failed.
#   bash scripts/unit-under-load.sh [N]
set -u
cd "$(dirname "$0")/.."
runs=${1:-5}
node -e 'const end = Date.now() + 60 * 60_000; while (Date.now() < end) {}' &
busy=$!
trap 'kill $busy 2>/dev/null' EXIT
status=0
for i in $(seq 1 "$runs"); do
  started=$(date +%s)
  log=$(mktemp)
  node scripts/test.mjs unit > "$log" 2>&1 || status=1
  echo "run $i: $(tail -1 "$log") in $(( $(date +%s) - started )) s"
  grep '  ✗ ' "$log"
  rm -f "$log"
done
exit $status

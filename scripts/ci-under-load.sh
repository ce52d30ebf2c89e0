#!/usr/bin/env bash
# The whole of .ci/run, N times in a row (default 3), on a clean clone of HEAD, while another
# process keeps one core busy: CI's 2-core machine is that busy, and a test that fails only then
# blocks every landing. The first run sets the clone's editor harness up from nothing; later runs
# reuse it, as CI's cache does. Prints one line per run; exits 1 if any run failed.
#   bash scripts/ci-under-load.sh [N] [CLONE_DIR]
set -u
cd "$(dirname "$0")/.."
runs=${1:-3}
clone=${2:-$(mktemp -d /tmp/switchboard-ci.XXXXXX)}
rm -rf "$clone"
git clone --quiet . "$clone" || exit 1
[ -d ../shared ] && [ ! -e "$clone/../shared" ] && ln -s "$(cd ../shared && pwd)" "$clone/../shared"
node -e 'const end = Date.now() + 3 * 60 * 60_000; while (Date.now() < end) {}' &
busy=$!
trap 'kill $busy 2>/dev/null' EXIT
echo "[ci-under-load] $runs run(s) of .ci/run in $clone, one core kept busy (pid $busy)"
status=0
for i in $(seq 1 "$runs"); do
  started=$(date +%s)
  log="$clone.run$i.log"
  (cd "$clone" && CI=true bash .ci/run < /dev/null > "$log" 2>&1) || status=1
  echo "run $i: $(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$log" | tail -1) in $(( $(date +%s) - started )) s (log: $log)"
  grep -E '^\s+\S.* [0-9]+ passed +[0-9]+ failed' "$log" | grep -v ' 0 failed' | sed 's/^/    /'
done
exit $status

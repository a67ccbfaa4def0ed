#!/usr/bin/env bash
# first_start.sh [REV ...]: what a newcomer waits for. For each revision (default: HEAD), clone it
# into a temporary folder, run `make run` there with no package cache, and print the seconds until
# /healthz answers and the size of the virtualenv. Give two revisions to compare them in one run.
#   bench/first_start.sh HEAD~5 HEAD
set -euo pipefail
repo=$(git -C "$(dirname "$0")/.." rev-parse --show-toplevel)
revs=("${@:-HEAD}")
port=${FIRST_START_PORT:-18765}
printf '%-14s %10s %10s\n' revision seconds venv
for rev in "${revs[@]}"; do
  dir=$(mktemp -d)
  git clone -q "$repo" "$dir/inkwell"
  git -C "$dir/inkwell" checkout -q "$(git -C "$repo" rev-parse "$rev")"
  start=$(date +%s.%N)
  # A session of its own, so that the server and its worker stop with it.
  PIP_NO_CACHE_DIR=1 UV_NO_CACHE=1 PORT=$port setsid make -C "$dir/inkwell" run >"$dir/run.log" 2>&1 &
  runner=$!
  until curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null 2>&1; do
    if ! kill -0 "$runner" 2>/dev/null; then echo "$rev: make run stopped; see $dir/run.log" >&2; exit 1; fi
    sleep 0.2
  done
  seconds=$(echo "$(date +%s.%N) - $start" | bc)
  size=$(du -sm "$dir/inkwell/.venv" | cut -f1)
  kill -- -"$runner" 2>/dev/null || true
  wait "$runner" 2>/dev/null || true
  printf '%-14s %10.1f %7s MB\n' "$rev" "$seconds" "$size"
  rm -rf "$dir"
done

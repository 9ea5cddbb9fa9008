#!/usr/bin/env bash
# Labels shards FIRST..LAST of the 64 shards of the WTHOR and Logistello games (depth 10, exact
# from 20 empties, seed 1) into data/training/, one after another. A shard's packed file joins
# data/training/ and its row data/training/README.md only once the shard is finished, so the
# script can be stopped at any point and run again: a shard cut short resumes from its labels
# file in WORK_DIR (on the same machine), a finished one is skipped.
#
#   scripts/label-shards.sh WTHOR_DIR WORK_DIR FIRST LAST
#
# WTHOR_DIR holds the .wtb files (the shared training data's wthor folder); WORK_DIR keeps the
# labels files and logs, out of the repository. Commit data/training/ afterwards.
set -euo pipefail
if [ $# -ne 4 ]; then
  echo "usage: $0 WTHOR_DIR WORK_DIR FIRST LAST" >&2
  exit 2
fi
wthor=$1 work=$2 first=$3 last=$4
cd "$(dirname "$0")/.."
repo=$PWD
cargo build --release --quiet
oxello=${CARGO_TARGET_DIR:-$repo/target}/release/oxello
machine="$(lscpu | sed -n 's/^Model name: *//p' | head -1) (family $(lscpu | sed -n 's/^CPU family: *//p' | head -1) model $(lscpu | sed -n 's/^Model: *//p' | head -1))"
commit=$(git rev-parse --short HEAD)
mkdir -p "$work"
for i in $(seq "$first" "$last"); do
  name=wthor-d10-e20-s${i}of64
  packed=$repo/data/training/$name.lgz
  if [ -f "$packed" ]; then
    echo "$name: already in data/training" >&2
    continue
  fi
  begun=$SECONDS
  if ! "$oxello" label --data "$wthor" --out "$work/$name.labels" --depth 10 --exact-empties 20 \
    --seed 1 --shard "$i/64" --pack "$work/$name.lgz" >"$work/$name.log" 2>&1; then
    echo "$name: oxello label failed; see $work/$name.log" >&2
    exit 1
  fi
  minutes=$(((SECONDS - begun + 30) / 60))
  positions=$(sed -n 's/.*: \([0-9]*\) positions packed with their games in \([0-9]*\) bytes/\1/p' "$work/$name.log" | tail -1)
  bytes=$(stat -c %s "$work/$name.lgz")
  fingerprint=$(od -An -tx8 -j20 -N8 "$work/$name.labels" | tr -d ' ')
  mv "$work/$name.lgz" "$packed"
  printf '| %s.lgz | %s | %s | the built-in weights (fingerprint %s), %s | %s, 2 cores, %s min |\n' \
    "$name" "$positions" "$bytes" "$fingerprint" "$commit" "$machine" "$minutes" \
    >>"$repo/data/training/README.md"
  echo "$name: $positions positions, $bytes bytes, $minutes min" >&2
done

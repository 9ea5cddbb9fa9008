#!/usr/bin/env bash
# Labels training shards FIRST..LAST (of 64) into data/training/, one after another, at depth
# 10 and exactly from 20 empties (seed 1):
#
#   scripts/label-shards.sh wthor WTHOR_DIR WORK_DIR FIRST LAST
#       the WTHOR and Logistello games of WTHOR_DIR (the shared training data's wthor folder),
#       shard i being the games of rank i, i + 64, ... of the seeded order;
#   scripts/label-shards.sh xot WORK_DIR FIRST LAST
#       selfplay games, 2,000 a shard, each opened by a line of data/xot-openings-large.txt and
#       two random moves, then played at depth 8 (exact from 18 empties) by the built-in
#       evaluation; shard i being games i, i + 64, ... of that run.
#
# A shard's packed file joins data/training/ and its row data/training/README.md only once the
# shard is finished, so the script can be stopped at any point and run again: a shard cut
# short resumes from its files in WORK_DIR (on the same machine), a finished one is skipped.
# WORK_DIR keeps the games, labels and logs, out of the repository. Commit data/training/
# afterwards.
set -euo pipefail
usage() {
  echo "usage: $0 wthor WTHOR_DIR WORK_DIR FIRST LAST | $0 xot WORK_DIR FIRST LAST" >&2
  exit 2
}
source=${1:-}
case "$source" in
  wthor) [ $# -eq 5 ] || usage; wthor=$2 work=$3 first=$4 last=$5 ;;
  xot) [ $# -eq 4 ] || usage; work=$2 first=$3 last=$4 ;;
  *) usage ;;
esac
cd "$(dirname "$0")/.."
repo=$PWD
cargo build --release --quiet
oxello=${CARGO_TARGET_DIR:-$repo/target}/release/oxello
lscpu_field() { lscpu | sed -n "s/^$1: *//p" | head -1; }
machine="$(lscpu_field 'Model name') (family $(lscpu_field 'CPU family') model $(lscpu_field Model))"
commit=$(git rev-parse --short HEAD)
mkdir -p "$work"
work=$(cd "$work" && pwd)
# run NAME COMMAND...: runs a step of a shard, its output in the shard's log.
run() {
  local name=$1
  shift
  if ! "$@" >>"$work/$name.log" 2>&1; then
    echo "$name: $1 ${2:-} failed; see $work/$name.log" >&2
    exit 1
  fi
}
for i in $(seq "$first" "$last"); do
  name=$source-d10-e20-s${i}of64
  packed=$repo/data/training/$name.lgz
  if [ -f "$packed" ]; then
    echo "$name: already in data/training" >&2
    continue
  fi
  begun=$SECONDS
  if [ "$source" = wthor ]; then
    games=(--data "$wthor" --shard "$i/64")
  else
    run "$name" "$oxello" selfplay --games 128000 --shard "$i/64" --depth 8 --exact-empties 18 \
      --seed 1 --openings data/xot-openings-large.txt --random-plies 2 \
      --output "$work/xot-games-s${i}of64.txt"
    games=("$work/xot-games-s${i}of64.txt")
  fi
  run "$name" "$oxello" label "${games[@]}" --out "$work/$name.labels" --depth 10 \
    --exact-empties 20 --seed 1 --pack "$work/$name.lgz"
  minutes=$(((SECONDS - begun + 30) / 60))
  positions=$(sed -n 's/.*: \([0-9]*\) positions packed with their games in .*/\1/p' "$work/$name.log" | tail -1)
  bytes=$(stat -c %s "$work/$name.lgz")
  fingerprint=$(od -An -tx8 -j20 -N8 "$work/$name.labels" | tr -d ' ')
  mv "$work/$name.lgz" "$packed"
  printf '| %s.lgz | %s | %s | the built-in weights (fingerprint %s), %s | %s, 2 cores, %s min |\n' \
    "$name" "$positions" "$bytes" "$fingerprint" "$commit" "$machine" "$minutes" \
    >>"$repo/data/training/README.md"
  echo "$name: $positions positions, $bytes bytes, $minutes min" >&2
done

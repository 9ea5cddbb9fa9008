#!/usr/bin/env bash
# Labels training shards FIRST..LAST (of 64) into data/training/, one after another, exactly
# from 20 empties:
#
#   scripts/label-shards.sh wthor WTHOR_DIR WORK_DIR FIRST LAST
#       the WTHOR and Logistello games of WTHOR_DIR (the shared training data's wthor folder),
#       shard i being the games of rank i, i + 64, ... of the seeded order;
#   scripts/label-shards.sh xot WORK_DIR FIRST LAST
#       selfplay games, 2,000 a shard, each opened by a line of data/xot-openings-large.txt and
#       two random moves, then played at depth 8 (exact from 18 empties) by the built-in
#       linear evaluation, labelled at depth 10 by it; shard i being games i, i + 64, ... of
#       that run;
#   scripts/label-shards.sh xot-static WORK_DIR FIRST LAST
#       selfplay games as above but of seed 2 and played exactly from 20 empties, so that their
#       result is the exact score of every position from there (--played-exact: nothing is
#       proved but a check of one game in 32), and labelled above 20 empties by the built-in
#       linear evaluation's static score (depth 0); about two fifths of a searched shard's
#       time (2.4 times the rate);
#   scripts/label-shards.sh xot-network WORK_DIR FIRST LAST
#       as xot-static, but of seed 3 and played by the built-in network (the default
#       evaluation of the commit checked out) rather than the linear weights, so that the
#       games are those of the engine as it plays; still labelled by the linear weights' static
#       score (named xotnet-d0-e20-s<i>of64);
#   scripts/label-shards.sh xot-network-searched WORK_DIR FIRST LAST
#       the same games (the same WORK_DIR reuses them), labelled above 20 empties by depth-10
#       searches of the built-in network rather than static scores (named
#       xotnet-d10-e20-s<i>of64);
#   scripts/label-shards.sh xot-fast WORK_DIR FIRST LAST
#       the data engine: games of the built-in network at depth 4 (exact from 18 empties), of
#       seed 5, from the same openings, labelled like xot-static but exact from 18 empties
#       (named xotfast-d0-e18-s<i>of1024: a run of 2,048,000 games in 1,024 shards of 2,000,
#       about 110 million positions); about 4.7 times xot-static's positions a CPU-hour.
#
# A shard's packed file joins data/training/ and its row data/training/README.md only once the
# shard is finished, so the script can be stopped at any point and run again: a shard cut
# short resumes from its files in WORK_DIR (on the same machine), a finished one is skipped.
# WORK_DIR keeps the games, labels and logs, out of the repository. Commit data/training/
# afterwards.
set -euo pipefail
usage() {
  echo "usage: $0 wthor WTHOR_DIR WORK_DIR FIRST LAST | $0 xot|xot-static|xot-network|xot-network-searched|xot-fast WORK_DIR FIRST LAST" >&2
  exit 2
}
source=${1:-}
case "$source" in
  wthor) [ $# -eq 5 ] || usage; wthor=$2 work=$3 first=$4 last=$5 ;;
  xot | xot-static | xot-network | xot-network-searched | xot-fast) [ $# -eq 4 ] || usage; work=$2 first=$3 last=$4 ;;
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
player=(--eval linear) labeller=(--eval linear) labelled_with="the built-in linear weights"
play_depth=8 exact=20 games=128000 shards=64
case "$source" in
  xot-static) depth=0 play_seed=2 play_exact=20 labelling=(--played-exact) prefix=xot ;;
  xot-network)
    depth=0 play_seed=3 play_exact=20 labelling=(--played-exact) prefix=xotnet
    player=() labelled_with="games of the built-in network, labelled by the built-in linear weights"
    ;;
  xot-network-searched)
    depth=10 play_seed=3 play_exact=20 labelling=(--played-exact) prefix=xotnet
    player=() labeller=() labelled_with="games of the built-in network, labelled by its searches"
    ;;
  xot-fast)
    depth=0 play_seed=5 play_depth=4 play_exact=18 exact=18 labelling=(--played-exact) prefix=xotfast
    games=2048000 shards=1024 player=()
    labelled_with="games of the built-in network at depth 4, labelled by the built-in linear weights"
    ;;
  *) depth=10 play_seed=1 play_exact=18 labelling=() prefix=$source ;;
esac
for i in $(seq "$first" "$last"); do
  name=$prefix-d$depth-e$exact-s${i}of$shards
  packed=$repo/data/training/$name.lgz
  if [ -f "$packed" ]; then
    echo "$name: already in data/training" >&2
    continue
  fi
  begun=$SECONDS
  if [ "$source" = wthor ]; then
    sources=(--data "$wthor" --shard "$i/$shards")
  else
    # Games at depth 8 keep the name they had before the depth was a setting, so that a
    # WORK_DIR begun then still resumes.
    played=$work/xot-games-seed$play_seed-e$play_exact-s${i}of$shards.txt
    if [ "$play_depth" != 8 ]; then
      played=$work/xot-games-seed$play_seed-d$play_depth-e$play_exact-s${i}of$shards.txt
    fi
    run "$name" "$oxello" "${player[@]}" selfplay --games "$games" --shard "$i/$shards" --depth "$play_depth" \
      --exact-empties "$play_exact" --seed "$play_seed" --openings data/xot-openings-large.txt \
      --random-plies 2 --output "$played"
    sources=("$played")
  fi
  run "$name" "$oxello" "${labeller[@]}" label "${sources[@]}" --out "$work/$name.labels" --depth "$depth" \
    --exact-empties "$exact" --seed 1 "${labelling[@]}" --pack "$work/$name.lgz"
  minutes=$(((SECONDS - begun + 30) / 60))
  positions=$(sed -n 's/.*: \([0-9]*\) positions packed with their games in .*/\1/p' "$work/$name.log" | tail -1)
  bytes=$(stat -c %s "$work/$name.lgz")
  fingerprint=$(od -An -tx8 -j20 -N8 "$work/$name.labels" | tr -d ' ')
  mv "$work/$name.lgz" "$packed"
  printf '| %s.lgz | %s | %s | %s (fingerprint %s) | %s | %s |\n' \
    "$name" "$positions" "$bytes" "$labelled_with" "$fingerprint" "$commit" "$machine" \
    >>"$repo/data/training/README.md"
  echo "$name: $positions positions, $bytes bytes, $minutes min" >&2
done

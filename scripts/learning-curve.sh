#!/usr/bin/env bash
# The learning curve: the built-in network's recipe trained on one Nth of its data for each
# share N given, each network judged against Zebra at equal depth 8 and against the built-in
# network at depth 10, then charted:
#
#   scripts/learning-curve.sh WORK_DIR "ZEBRA" POINT...      e.g. ... 8 4 2 1
#
# A POINT is a share N, or N+SERIES:COUNT: the share with the first COUNT shards of the data
# engine's SERIES in data/training added (train-network --add-labels), e.g.
# 1+xotfast-d0-e18:80 for the curve above the recipe's data, or 8+xotfast-d0-e18:11 to judge
# the engine's positions against the recipe's at the same amount (give such points their own
# WORK_DIR when they are not to join the curve's line).
#
# ZEBRA is the command of Zebra's GTP adapter without its depth settings (see
# ../shared/referees/README.md); it plays at depth 8, exact 12, WLD 12, against oxello at depth
# 8, selectivity 2, 800 games (XOT openings, both colours, seeds 7 to 14). Against the built-in
# network both play at depth 10, 800 games (seed 31); share 1 is the built-in network itself
# (the recipe rebuilds it byte for byte), its point there 0 Elo by definition, not played.
#
# Run from the repository with target/release/oxello built. Each network is trained once
# (WORK_DIR/share-N.network, or share-N+SERIES-COUNT.network, its training log beside it) and
# each match's games go to WORK_DIR as they finish, so the script can be stopped at any point
# and run again: it goes on where it stopped. At the end WORK_DIR/curve.csv holds every match
# played out, and scripts/learning_curve.py draws WORK_DIR/curve.svg from it and prints the Elo
# a doubling.
# Both cores for hours: run it at nice 19 (`nice -n 19 scripts/learning-curve.sh ...`).
set -euo pipefail
if [[ $# -lt 3 ]]; then
  echo "usage: $0 WORK_DIR ZEBRA POINT..." >&2
  exit 2
fi
work=$1 zebra=$2
shift 2
oxello=target/release/oxello
[[ -x $oxello ]] || { echo "build first: cargo build --release" >&2; exit 2; }
mkdir -p "$work"

# The trained network's wins, draws and losses in a match report.
tally() { awk -v who="$1" '$1 == who && $2 ~ /^[0-9]+$/ { print $2 "," $3 "," $4 }' "$2"; }

echo "positions,opponent,wins,draws,losses" > "$work/curve.csv"
for point in "$@"; do
  share=${point%%+*} added=()
  if [[ $point == *+* ]]; then
    series=${point#*+} series=${series%%:*} count=${point##*:}
    for file in data/training/"$series"-s*of*.lgz; do
      index=${file##*-s} index=${index%%of*}
      if ((index < count)); then added+=("$file"); fi
    done
    ((${#added[@]} == count)) || { echo "$point: ${#added[@]} shards of $series in data/training, not $count" >&2; exit 2; }
  fi
  name="share-${point/:/-}"
  network="$work/$name.network"
  if [[ ! -f $network ]]; then
    echo "== training on 1/$share of the recipe's data${added:+ and ${#added[@]} shards of $series}" >&2
    "$oxello" train-network --recipe builtin --data-share "$share" ${added:+--add-labels "${added[@]}"} \
      --output "$network.part" 2>&1 | tee "$work/$name.log" >&2
    mv "$network.part" "$network"
  fi
  positions=$(sed -n 's/^\([0-9]*\) training and .*/\1/p' "$work/$name.log" | tail -1)
  for seed in 7 8 9 10 11 12 13 14; do
    report="$work/$name-vs-zebra-d8-$seed.report"
    "$oxello" match --engine1 "$oxello --threads 1 --hash 64 --depth 8 --selectivity 2 --eval $network" \
      --engine2 "$zebra --depth 8 --exact 12 --wld 12" --name1 "$name" --name2 zebra \
      --openings 50 --seed "$seed" --depth 8 --concurrency 2 \
      --games-file "$work/$name-vs-zebra-d8-$seed.ggf" > "$report"
    echo "$positions,zebra-d8,$(tally "$name" "$report")" >> "$work/curve.csv"
  done
  if cmp -s "$network" src/eval/oxello.network; then
    echo "$positions,builtin-d10,0,0,0" >> "$work/curve.csv"
  else
    report="$work/$name-vs-builtin-d10.report"
    "$oxello" match --engine1 "$oxello --threads 1 --depth 10 --eval $network" \
      --engine2 "$oxello --threads 1 --depth 10" --name1 "$name" --name2 builtin \
      --depth 10 --openings 400 --seed 31 --concurrency 2 \
      --games-file "$work/$name-vs-builtin-d10.ggf" > "$report"
    echo "$positions,builtin-d10,$(tally "$name" "$report")" >> "$work/curve.csv"
  fi
done
python3 scripts/learning_curve.py "$work/curve.csv" "$work/curve.svg"

#!/usr/bin/env bash
# Plays a build against a base under game clocks, to check that it never loses on time and
# how much of its clock it leaves, over 1,100 games of XOT openings with both colours:
#
#   scripts/clock-campaign.sh NEW BASE WORK_DIR [NEW_NAME BASE_NAME]
#
#   tc10+0.1-1t        10 s + 0.1 s, one thread each, 400 games, two at once
#   tc30-1t            30 s, one thread each, 200 games, two at once
#   tc5-1t             5 s, one thread each, 200 games, two at once
#   tc5-2t-ponder      5 s, two threads each, NEW pondering, 200 games, one at a time
#   tc10+0.1-2t-ponder 10 s + 0.1 s, as above, 100 games
#
# NEW and BASE are oxello binaries (BASE may be any GTP or NBoard engine's command). Each
# match's games go to WORK_DIR/NAME-NEW_NAME-vs-BASE_NAME.ggf as they finish, so the script
# can be stopped at any point and run again: a match resumes where it stopped, a finished one
# only reports. At the end it adds up NEW's games: losses on time, and the clock it had left
# at the end of the games played out, on average (weighted by games) and at least.
set -euo pipefail
if [[ $# -ne 3 && $# -ne 5 ]]; then
  echo "usage: $0 NEW BASE WORK_DIR [NEW_NAME BASE_NAME]" >&2
  exit 2
fi
new=$1 base=$2 work=$3 new_name=${4:-new} base_name=${5:-base}
mkdir -p "$work"

# name, clock, threads, NEW's extra options, openings, seed, games at once
matches=(
  "tc10+0.1-1t 10+0.1 1 - 200 61 2"
  "tc30-1t 30 1 - 100 63 2"
  "tc5-1t 5 1 - 100 65 2"
  "tc5-2t-ponder 5 2 --ponder 100 67 1"
  "tc10+0.1-2t-ponder 10+0.1 2 --ponder 50 69 1"
)

for spec in "${matches[@]}"; do
  read -r name clock threads extra openings seed concurrency <<<"$spec"
  [[ $extra == - ]] && extra=""
  file="$work/$name-$new_name-vs-$base_name.ggf"
  echo "== $name: $((openings * 2)) games under $clock, $threads thread(s) each ${extra:+(NEW $extra)}" >&2
  "$new" match \
    --engine1 "$new --threads $threads $extra" --engine2 "$base --threads $threads" \
    --name1 "$new_name" --name2 "$base_name" --tc "$clock" \
    --openings "$openings" --seed "$seed" --concurrency "$concurrency" \
    --games-file "$file" | tee "$work/$name.report"
done

# NEW's lines of the reports: its row (losses on time in the eighth column) and its clock.
awk -v who="$new_name" '
  $1 == who && NF >= 10 && $2 ~ /^[0-9]+$/ { losses += $(NF - 2) }
  index($0, who ": ") == 1 && /of its clock/ {
    share = $2; sub("%", "", share)
    games = $(NF - 3)
    least = $(NF - 8)
    weighted += share * games; played += games
    if (smallest == "" || least + 0 < smallest + 0) smallest = least
  }
  END {
    if (played == 0) { print "no games played out"; exit 1 }
    printf "%s: %d losses on time; %.1f%% of its clock left at the end on average over %d games, %s s at least\n",
      who, losses, weighted / played, played, smallest
  }' "$work"/*.report

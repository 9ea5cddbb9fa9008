#!/usr/bin/env bash
# Soak of the engine in play: oxello against itself under a 10 s + 0.1 s game clock, pondering
# on and two threads each, for GAMES games (default 200), one game at a time. The games go to
# OUT/games.ggf.gz (run the script again to go on where it stopped: the match resumes from its
# record); every 5 s the resident memory of each engine process is written to OUT/memory.txt
# with the number of games finished. At the end it prints the match's report (time losses,
# illegal moves, crashes) and each engine process's memory at game 20 and at the last game.
#
#   GAMES=200 OUT=soak-engine bash scripts/soak-engine.sh    (OXELLO=path names another binary)
set -euo pipefail
oxello=${OXELLO:-target/release/oxello}
games=${GAMES:-200}
out=${OUT:-soak-engine}
mkdir -p "$out"
engine="$oxello --threads 2 --ponder"
"$oxello" match --engine1 "$engine" --engine2 "$engine" --name1 ponder-a --name2 ponder-b \
  --tc 10+0.1 --openings $((games / 2)) --seed 211 --concurrency 1 \
  --games-file "$out/games.ggf.gz" >"$out/report.txt" 2>"$out/match.log" &
match=$!
trap 'kill $match 2>/dev/null || true' INT TERM
while kill -0 "$match" 2>/dev/null; do
  played=$( (zcat "$out/games.ggf.gz" 2>/dev/null || true) | wc -l)
  for pid in $(pgrep -P "$match" || true); do
    rss=$(awk '/^VmRSS/ {print $2}' "/proc/$pid/status" 2>/dev/null || true)
    [ -n "$rss" ] && echo "$(date +%s) $played $pid $rss" >>"$out/memory.txt"
  done
  sleep 5
done
wait "$match"
cat "$out/report.txt"
echo "resident memory of each engine process (KiB): at the first sample with 20 games done, at the last"
awk '{ if ($2 >= 20 && !($3 in first)) first[$3] = $4; last[$3] = $4; games[$3] = $2 }
     END { for (pid in last) printf "  pid %s: %s -> %s (last sample at %s games)\n", pid, (pid in first ? first[pid] : "-"), last[pid], games[pid] }' \
  "$out/memory.txt"

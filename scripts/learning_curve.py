#!/usr/bin/env python3
"""Draws the learning curve: strength against training positions, from a CSV of match results.

    scripts/learning_curve.py CURVE.csv CHART.svg

CURVE.csv has a header and one row a match: positions,opponent,wins,draws,losses (the
trained network's wins, draws and losses against `opponent`); the rows of one network and
opponent are added up. A row of no games marks the opponent itself (the built-in network
trained on that many positions): 0 Elo exactly, and that opponent's line goes through it.
Rows of one opponent make one line of the chart. For each opponent it prints every point's
score and Elo with its 95% interval, and the Elo a doubling of the data buys: the slope of Elo
over log2(positions), each point weighed by its precision, with the slope's 95% interval.
Standard library only.
"""

import csv
import math
import sys

Z95 = 1.959964


def elo_of(score):
    """The Elo difference a score (0 < score < 1) stands for."""
    return -400.0 * math.log10(1.0 / score - 1.0)


def point(wins, draws, losses):
    """(score, Elo, Elo's standard error) of a match, from the spread of its game results."""
    games = wins + draws + losses
    score = (wins + 0.5 * draws) / games
    clamped = min(max(score, 0.5 / games), 1.0 - 0.5 / games)
    variance = (
        wins * (1.0 - clamped) ** 2 + draws * (0.5 - clamped) ** 2 + losses * clamped**2
    ) / games
    score_error = math.sqrt(variance / games)
    slope = 400.0 / (math.log(10.0) * clamped * (1.0 - clamped))
    return score, elo_of(clamped), max(slope * score_error, 1e-9)


def fit(points, anchor):
    """Weighted least squares of Elo over log2(positions): (slope, its standard error). With
    an anchor (positions at 0 Elo exactly) the line goes through it."""
    weights = [1.0 / error**2 for _, _, error in points]
    xs = [math.log2(positions) for positions, _, _ in points]
    ys = [elo for _, elo, _ in points]
    if anchor is None:
        total = sum(weights)
        centre_x = sum(w * x for w, x in zip(weights, xs)) / total
        centre_y = sum(w * y for w, y in zip(weights, ys)) / total
    else:
        centre_x, centre_y = math.log2(anchor), 0.0
    spread = sum(w * (x - centre_x) ** 2 for w, x in zip(weights, xs))
    slope = sum(w * (x - centre_x) * (y - centre_y) for w, x, y in zip(weights, xs, ys)) / spread
    return slope, math.sqrt(1.0 / spread)


def read(path):
    """The matches of CURVE.csv by opponent and positions, added up, in the file's order."""
    series = {}
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            positions = int(row["positions"])
            games = [int(row[k]) for k in ("wins", "draws", "losses")]
            totals = series.setdefault(row["opponent"], {}).setdefault(positions, [0, 0, 0])
            for i, count in enumerate(games):
                totals[i] += count
    return series


def svg(series_points, fits):
    """The chart: Elo (left axis) against positions on a log scale, one colour an opponent."""
    width, height, left, right, top, bottom = 720, 420, 70, 200, 30, 60
    all_points = [p for pts in series_points.values() for p in pts]
    lowest = min(math.log2(p[0]) for p in all_points) - 0.5
    highest = max(math.log2(p[0]) for p in all_points) + 0.5
    low = min(p[1] - Z95 * p[2] for p in all_points)
    high = max(p[1] + Z95 * p[2] for p in all_points)
    low, high = 50 * math.floor(low / 50), 50 * math.ceil(high / 50)

    def x(positions_log2):
        return left + (positions_log2 - lowest) / (highest - lowest) * (width - left - right)

    def y(elo):
        return top + (high - elo) / (high - low) * (height - top - bottom)

    colours = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd"]
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        'font-family="sans-serif" font-size="12">',
        f'<rect width="{width}" height="{height}" fill="white"/>',
    ]
    for elo in range(int(low), int(high) + 1, 50):
        out.append(
            f'<line x1="{left}" y1="{y(elo):.1f}" x2="{width - right}" y2="{y(elo):.1f}" '
            'stroke="#ddd"/>'
        )
        out.append(
            f'<text x="{left - 6}" y="{y(elo) + 4:.1f}" text-anchor="end">{elo:+d}</text>'
        )
    # Ticks at a million times the powers of two: 0.5M, 1M, 2M, 4M, ...
    million = math.log2(1e6)
    for power in range(math.ceil(lowest - million), math.floor(highest - million) + 1):
        at = x(million + power)
        out.append(f'<line x1="{at:.1f}" y1="{top}" x2="{at:.1f}" y2="{height - bottom}" stroke="#eee"/>')
        out.append(
            f'<text x="{at:.1f}" y="{height - bottom + 16}" text-anchor="middle">{2.0**power:g}M</text>'
        )
    out.append(
        f'<text x="{(left + width - right) / 2:.1f}" y="{height - 18}" text-anchor="middle">'
        "training positions (log scale)</text>"
    )
    out.append(
        f'<text x="16" y="{(top + height - bottom) / 2:.1f}" text-anchor="middle" '
        f'transform="rotate(-90 16 {(top + height - bottom) / 2:.1f})">Elo (95% interval)</text>'
    )
    for index, (opponent, pts) in enumerate(series_points.items()):
        colour = colours[index % len(colours)]
        pts = sorted(pts)
        path = " ".join(f"{x(math.log2(p)):.1f},{y(e):.1f}" for p, e, _ in pts)
        out.append(f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="2"/>')
        for positions, elo, error in pts:
            px = x(math.log2(positions))
            out.append(
                f'<line x1="{px:.1f}" y1="{y(elo - Z95 * error):.1f}" x2="{px:.1f}" '
                f'y2="{y(elo + Z95 * error):.1f}" stroke="{colour}"/>'
            )
            out.append(f'<circle cx="{px:.1f}" cy="{y(elo):.1f}" r="4" fill="{colour}"/>')
        legend_y = top + 20 + 40 * index
        out.append(
            f'<rect x="{width - right + 14}" y="{legend_y - 9}" width="12" height="12" '
            f'fill="{colour}"/>'
        )
        out.append(f'<text x="{width - right + 32}" y="{legend_y + 1}">vs {opponent}</text>')
        if opponent in fits:
            slope, error = fits[opponent]
            out.append(
                f'<text x="{width - right + 32}" y="{legend_y + 17}">{slope:+.0f} '
                f"\u00b1 {Z95 * error:.0f} a doubling</text>"
            )
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: learning_curve.py CURVE.csv CHART.svg")
    series = read(sys.argv[1])
    series_points, fits = {}, {}
    for opponent, matches in series.items():
        pts, anchor = [], None
        for positions, (wins, draws, losses) in matches.items():
            if wins + draws + losses == 0:
                anchor = positions
                print(f"{opponent}: {positions:,} positions, the opponent itself: 0 Elo")
                continue
            score, elo, error = point(wins, draws, losses)
            pts.append((positions, elo, error))
            games = wins + draws + losses
            print(
                f"{opponent}: {positions:,} positions, {games} games, {100 * score:.1f}%, "
                f"{elo:+.0f} [{elo - Z95 * error:+.0f}, {elo + Z95 * error:+.0f}]"
            )
        series_points[opponent] = pts + ([(anchor, 0.0, 0.0)] if anchor else [])
        if len(pts) + (anchor is not None) >= 2:
            slope, error = fit(pts, anchor)
            fits[opponent] = (slope, error)
            print(
                f"{opponent}: {slope:+.1f} Elo a doubling of the data "
                f"[{slope - Z95 * error:+.1f}, {slope + Z95 * error:+.1f}]"
            )
    with open(sys.argv[2], "w") as f:
        f.write(svg(series_points, fits))


if __name__ == "__main__":
    main()

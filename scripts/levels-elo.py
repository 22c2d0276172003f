#!/usr/bin/env python3
"""Fits one Elo scale to the matches of scripts/calibrate-levels.sh and prints the table of
docs/levels.md and the `CALIBRATED_ELO` of crates/minishogi-engine/src/search/skill.rs.

    scripts/levels-elo.py out/levels

Each folder under the argument holds one match's summary.json (players named `L<level>`, `full`
and `random`). The ratings are the Bradley-Terry maximum-likelihood fit to every game between
levels and the full engine (a draw counts half a win each way); their 95% intervals come from
the fit's Fisher information, game by game (the colours of a game pair are not modelled, so they
are, if anything, a little narrow). The random mover loses every game to every level, so its
distance cannot be fitted: the scale puts it at 0 and the lowest level at the lower end of the
one-sided 95% interval of its score against it (all n games won: p >= 0.05^(1/n)).
"""

import json
import math
import re
import sys
from pathlib import Path

LN10_400 = math.log(10) / 400


def load(folder: Path):
    matches = []
    for summary in sorted(folder.glob("*/summary.json")):
        s = json.loads(summary.read_text())
        a, b = s["names"]
        points = s["wins"] + s["draws"] / 2
        matches.append((a, b, s["games"], points))
    return matches


def elo_of_score(p: float) -> float:
    return -400 * math.log10(1 / p - 1)


def lower_score(games: int, points: float) -> float:
    """One-sided 95% lower bound of a score (Clopper-Pearson for a binomial, by bisection)."""
    wins = int(points)
    if wins == 0:
        return 0.0

    def tail(p: float) -> float:  # P(X >= wins) for X ~ Binomial(games, p)
        return sum(
            math.comb(games, k) * p**k * (1 - p) ** (games - k) for k in range(wins, games + 1)
        )

    lo, hi = 0.0, 1.0
    for _ in range(60):
        mid = (lo + hi) / 2
        if tail(mid) < 0.05:
            lo = mid
        else:
            hi = mid
    return lo


def fit(matches, players):
    """Bradley-Terry by minorization-maximization; strengths as 10^(Elo/400)."""
    gamma = {p: 1.0 for p in players}
    for _ in range(20000):
        new = {}
        for p in players:
            won = sum(pts if a == p else n - pts for a, b, n, pts in matches if p in (a, b))
            denom = sum(n / (gamma[a] + gamma[b]) for a, b, n, _ in matches if p in (a, b))
            new[p] = max(won, 1e-9) / denom
        scale = math.exp(sum(math.log(g) for g in new.values()) / len(new))
        gamma = {p: g / scale for p, g in new.items()}
    return {p: 400 * math.log10(g) for p, g in gamma.items()}


def errors(matches, players, elo, anchor):
    """95% half-widths from the Fisher information, the anchor held fixed."""
    free = [p for p in players if p != anchor]
    index = {p: i for i, p in enumerate(free)}
    size = len(free)
    info = [[0.0] * size for _ in range(size)]
    for a, b, n, _ in matches:
        p = 1 / (1 + 10 ** ((elo[b] - elo[a]) / 400))
        w = n * p * (1 - p) * LN10_400**2
        for x, y, sign in ((a, a, 1), (b, b, 1), (a, b, -1), (b, a, -1)):
            if x in index and y in index:
                info[index[x]][index[y]] += sign * w
    # Gauss-Jordan inverse.
    inv = [[float(i == j) for j in range(size)] for i in range(size)]
    for col in range(size):
        pivot = max(range(col, size), key=lambda r: abs(info[r][col]))
        info[col], info[pivot] = info[pivot], info[col]
        inv[col], inv[pivot] = inv[pivot], inv[col]
        d = info[col][col]
        info[col] = [v / d for v in info[col]]
        inv[col] = [v / d for v in inv[col]]
        for r in range(size):
            if r != col and info[r][col] != 0:
                f = info[r][col]
                info[r] = [v - f * c for v, c in zip(info[r], info[col])]
                inv[r] = [v - f * c for v, c in zip(inv[r], inv[col])]
    half = {anchor: 0.0}
    for p, i in index.items():
        half[p] = 1.96 * math.sqrt(max(inv[i][i], 0.0))
    return half


def level_table():
    """(nodes, multipv, weakness) of each level, read from crates/minishogi-engine/src/search/skill.rs."""
    source = (Path(__file__).resolve().parent.parent / "crates/minishogi-engine/src/search/skill.rs").read_text()
    rows = re.findall(r"^\s*level\(([\d_]+), (\d+), (\d+)\),", source, re.M)
    return [(int(n.replace("_", "")), int(m), int(w)) for n, m, w in rows]


def level_number(name: str) -> int:
    return {"random": -1, "full": 20}.get(name) or int(name[1:])


def main() -> None:
    matches = load(Path(sys.argv[1]))
    vs_random = {a: (n, pts) for a, b, n, pts in matches if b == "random"}
    shutouts = all(pts == n for n, pts in vs_random.values())
    # Shut-out matches carry no information on the random mover's distance: left out.
    rated = [m for m in matches if not (shutouts and "random" in m[:2])]
    players = sorted({p for a, b, _, _ in rated for p in (a, b)}, key=level_number)
    raw = fit(rated, players)
    if shutouts:
        anchor = players[0]
        n, _ = vs_random[anchor]
        offset = round(elo_of_score(lower_score(n, n))) - raw[anchor]
        note = (
            f"random mover: 0 (it lost every game to every level; {anchor} is put at the lower "
            f"end of the one-sided 95% interval of its {n}/{n} against it)"
        )
    else:
        anchor = "random"
        offset = -raw["random"]
        note = "random mover: 0 (fitted with the others)"
    half = errors(rated, players, raw, anchor)
    elo = {p: round(raw[p] + offset) for p in players}
    vs_full = {a: (n, pts) for a, b, n, pts in matches if b == "full"}
    levels = level_table()

    def score(table, p):
        if p not in table:
            return "—"
        n, pts = table[p]
        return f"{100 * pts / n:.1f}% ({pts:g}/{n})"

    print("| level | nodes | MultiPV | weakness | vs random | vs full (20k nodes) | Elo |")
    print("|---|---|---|---|---|---|---|")
    for p in players:
        if p == "random":
            continue
        lv = level_number(p)
        nodes, multipv, weakness = levels[lv]
        nodes_text = "no limit" if lv == 20 else f"{nodes:,}"
        interval = "anchor" if p == anchor else f"± {half[p]:.0f}"
        print(
            f"| {lv} | {nodes_text} | {multipv} | {weakness} | {score(vs_random, p)} | "
            f"{score(vs_full, p)} | {elo[p]} ({interval}) |"
        )
    print(f"\n{note}\n")
    pairs = ", ".join(f"({level_number(p)}, {elo[p]})" for p in players if p != "random")
    print(f"const CALIBRATED_ELO: [(u32, i32); {len(players)}] = [{pairs}];")


if __name__ == "__main__":
    main()

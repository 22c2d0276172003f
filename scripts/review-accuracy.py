#!/usr/bin/env python3
"""The accuracy table of docs/review.md: each player's mean review accuracy, mean loss and marks
over `engine match --out` folders, each reviewed into DIR/review.json by
`engine review DIR/kif --json DIR/review.json`. Usage: review-accuracy.py DIR…"""
import json, re, sys, collections, statistics
acc = collections.defaultdict(list)
marks = collections.defaultdict(lambda: collections.Counter())
moves = collections.Counter()
loss = collections.defaultdict(list)
for match in sys.argv[1:]:
    names = {}
    for line in open(f"{match}/games.txt"):
        m = re.match(r"(\d+) (\S+) vs (\S+):", line)
        if m: names[int(m.group(1))] = (m.group(2), m.group(3))
    for entry in json.load(open(f"{match}/review.json")):
        n = int(re.search(r"game-(\d+)", entry["record"]).group(1))
        sente, gote = names[n]
        r = entry["review"]
        for side, name in (("sente", sente), ("gote", gote)):
            a = r["accuracy"][side]
            if a is not None: acc[name].append(a)
        for mv in r["moves"]:
            name = sente if mv["mover"] == "sente" else gote
            moves[name] += 1
            loss[name].append(mv["loss"])
            if mv["mark"]: marks[name][mv["mark"]] += 1
print("| player | games | moves | mean accuracy (± 95%) | mean loss (win% points) | inaccuracies | mistakes | blunders | mates missed/allowed |")
print("|---|---|---|---|---|---|---|---|---|")
for name, a in sorted(acc.items(), key=lambda kv: statistics.mean(kv[1])):
    mk = marks[name]; n = moves[name]
    per = lambda k: f"{100*mk[k]/n:.1f}%"
    print(f"| {name} | {len(a)} | {n} | {statistics.mean(a):.1f} ± {1.96*statistics.stdev(a)/len(a)**0.5:.1f} | {statistics.mean(loss[name]):.2f} | {per('inaccuracy')} | {per('mistake')} | {per('blunder')} | {mk['missed_mate']}/{mk['allowed_mate']} |")

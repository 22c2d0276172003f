#!/usr/bin/env python3
# Usage: scripts/mcts-pool.py ENGINE GAMES_TXT N VISITS (GAMES_TXT: an `engine match --out` games.txt)
# Hashfull of Search=mcts (default options) after each of its searches along one game, with
# tree reuse: every other position of a recorded game, `go nodes N` (about a second of visits).
import subprocess, sys
engine, games, n, nodes = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
line = open(games).read().splitlines()[n - 1].split('; ', 1)[1]
head, moves = line.split(' moves ')
moves = moves.split()
p = subprocess.Popen([engine, 'usi'], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
def send(s): p.stdin.write(s + '\n'); p.stdin.flush()
def until(prefix):
    out = []
    while True:
        l = p.stdout.readline()
        out.append(l)
        if l.startswith(prefix): return out
send('usi'); until('usiok')
send('setoption name Search value mcts'); send('isready'); until('readyok'); send('usinewgame')
for k in range(4, min(len(moves), 44), 2):
    send(f"{head} moves {' '.join(moves[:k])}"); send(f'go nodes {nodes}')
    out = until('bestmove')
    info = [l for l in out if l.startswith('info') and 'hashfull' in l]
    hf = info[-1].split('hashfull')[1].split()[0] if info else '?'
    print(k, hf, flush=True)
send('quit')

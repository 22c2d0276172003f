#!/usr/bin/env python3
"""A USI transcript of an engine: the option list, a game of twelve `go` searches (nodes and
depth limits, one thread, 16 MiB), MultiPV, `go mate` and a bad SFEN, printed with the lines
sent (`> ...`). Two builds' transcripts, with `nps` and `time` stripped, show what a change did
to the protocol (issue 32's before/after check):

    scripts/usi-transcript.py OLD > old.txt; scripts/usi-transcript.py NEW > new.txt
    diff <(sed -E 's/ (nps|time) [0-9]+//g' old.txt) <(sed -E 's/ (nps|time) [0-9]+//g' new.txt)
"""
import subprocess, sys
eng = sys.argv[1]
p = subprocess.Popen([eng], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, bufsize=1)
out = []
def send(line, wait=None):
    out.append("> " + line)
    p.stdin.write(line + "\n"); p.stdin.flush()
    if wait:
        while True:
            l = p.stdout.readline()
            if not l: break
            out.append(l.rstrip("\n"))
            if l.startswith(wait): return l
send("usi", "usiok"); send("isready", "readyok")
send("setoption name USI_Hash value 16"); send("setoption name Threads value 1")
send("usinewgame"); send("isready", "readyok")
moves = []
for i, go in enumerate(["go nodes 20000", "go depth 6", "go nodes 5000", "go nodes 30000", "go depth 5", "go nodes 10000"] * 2):
    send("position startpos" + (" moves " + " ".join(moves) if moves else ""))
    bm = send(go, "bestmove").split()[1]
    if bm in ("resign", "win"): break
    moves.append(bm)
send("setoption name MultiPV value 2"); send("position startpos moves " + " ".join(moves[:4])); send("go nodes 10000", "bestmove")
send("setoption name MultiPV value 1"); send("position sfen 4k/5/2G2/5/K4 b G 1"); send("go mate 3000", "checkmate")
send("position sfen bogus"); send("go nodes 100", "bestmove")
send("quit"); p.wait()
print("\n".join(out))

// What the page knows and shows, shared by the modules (each reads it; the one named beside a
// field changes it).

export const page = {
  state: null,      // the last State from the session (main.js)
  stateAt: 0,       // performance.now() when it came, for the clocks (main.js)
  flipped: false,   // gote at the bottom (main.js)
  pieceSet: 'kanji', // 'kanji' or 'letters' (main.js)
  selected: null,   // {kind: 'square', sq} | {kind: 'hand', piece: 'P'} (board.js)
  preview: null,    // {node, moves, view: BoardView} while a PV line is shown (board.js)
  busy: false,      // a move request is under way (board.js)
  sent: null,       // the USI move this page sent, until its state is shown (board.js sets it,
                    // main.js clears it): the user's own move neither slides nor clicks
  arrival: null,    // the move that came to the cursor unasked (an engine's reply, a step
                    // forward), marked on its square while the cursor stays (main.js)
};

// The node of the line's ply `ply` (0 = the start).
export function nodeAtPly(ply) {
  const s = page.state;
  if (ply <= 0) return 0;
  const entry = s.line[Math.min(ply, s.line.length) - 1];
  return entry ? entry.node : 0;
}

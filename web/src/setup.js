// The lines that put an engine into its present state, kept so that a fresh worker can be
// brought to the same state (engine.js replaces a worker whose search cannot be stopped
// otherwise, or that died): the protocol chosen (`usi` or `uci`), the options set, the last
// new game, and the position.

/** How many `position` lines are kept (see `positions`). */
const KEPT_POSITIONS = 16;

export class SetupRecord {
  constructor() {
    this.protocol = null; // 'usi' or 'uci' line
    this.options = new Map(); // option name (lower case) → its latest setoption line
    this.newGame = null;
    // A bad `position` line leaves the position as it was, and which lines were bad is not
    // known here without parsing them as the engine does; so the last few are replayed in
    // order, and the engine's own verdicts on them rebuild the same position.
    this.positions = [];
  }

  /** Notes `line` if it changes the session's state. */
  note(line) {
    const words = line.trim().split(/\s+/);
    switch (words[0]) {
      case 'usi':
      case 'uci':
        this.protocol = words[0];
        break;
      case 'setoption': {
        const name = optionName(words);
        if (name === null) break;
        // Latest value last: replays in the order the values were last set.
        this.options.delete(name);
        this.options.set(name, line);
        break;
      }
      case 'usinewgame':
      case 'ucinewgame':
        this.newGame = words[0];
        break;
      case 'position':
        this.positions.push(line);
        if (this.positions.length > KEPT_POSITIONS) this.positions.shift();
        break;
      default:
    }
  }

  /** The lines that rebuild the state, in the order to send them. */
  replay() {
    return [
      ...(this.protocol ? [this.protocol] : []),
      ...this.options.values(),
      ...(this.newGame ? [this.newGame] : []),
      ...this.positions,
    ];
  }
}

function optionName(words) {
  const at = words.indexOf('name');
  if (at < 0) return null;
  const end = words.indexOf('value', at + 1);
  const name = words.slice(at + 1, end < 0 ? undefined : end).join(' ').toLowerCase();
  return name || null;
}

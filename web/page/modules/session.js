// The page's link to the session through the chosen transport: requests and their answers,
// the event stream, the error box, and the counts of events for tests.
import { $ } from './dom.js';
import { page } from './state.js';

let transport = null;
let handlers = { state() {}, info() {}, mate() {} };

// The event stream and the answers to requests both bring states; the stream's come in the
// session's order, so an answer is used only when no streamed state came while it was under
// way (the stream brings the change the request made in any case).
let streamedStates = 0;

const counts = { state: 0, info: 0, mate: 0, lastStreamedPly: null, errors: 0 };
window.minishogiEvents = counts;  // for tests and the curious

export function showError(message) {
  $('error-text').textContent = message;
  $('error').hidden = false;
}

export function hideError() {
  // An engine's error stays until the state no longer has it.
  if (page.state && page.state.error) return;
  $('error').hidden = true;
}

// `on`: {state, info, mate}, the page's handlers of what the session sends.
export function connect(chosen, on) {
  transport = chosen;
  handlers = on;
  transport.subscribe({
    state(s) { counts.state++; streamedStates++; counts.lastStreamedPly = s.ply; handlers.state(s); },
    info(info) { counts.info++; handlers.info(info); },
    mate(mate) { counts.mate++; handlers.mate(mate); },
    error() { counts.errors++; },
  });
}

// A change the session answers with a State: shown (unless the stream overtook it), or the
// error shown. Resolves to the State, or null.
async function answered(send) {
  const streamedAtSend = streamedStates;
  try {
    const state = await send();
    hideError();
    if (streamedStates === streamedAtSend) handlers.state(state);
    return state;
  } catch (e) {
    showError(e.message || String(e));
    return null;
  }
}

export const request = (name, body) => answered(() => transport.request(name, body));

export const loadRecord = (bytes, format) => answered(() => transport.loadRecord(bytes, format));

// The BoardView after `moves` from `node`, or null (the error shown).
export async function preview(node, moves) {
  try {
    return await transport.preview(node, moves);
  } catch (e) {
    showError(e.message || String(e));
    return null;
  }
}

// The editor's position checked by the session ({sfen, view, problem}), or null (the error
// shown).
export async function setup(position) {
  try {
    return await transport.setup(position);
  } catch (e) {
    showError(e.message || String(e));
    return null;
  }
}

// {bytes, filename, type}, or null (the error shown).
export async function saveRecord(format) {
  try {
    return await transport.saveRecord(format);
  } catch (e) {
    showError(e.message || String(e));
    return null;
  }
}

// While the engine is to move, makes sure now and then that no state was missed: a state
// asked for is shown only if none was streamed meanwhile. Errors here are not the user's.
export function watchForMissedStates() {
  setInterval(async () => {
    const s = page.state;
    if (!transport || !s || !s.thinking || performance.now() - page.stateAt < 2500 || document.hidden) return;
    const streamedAtSend = streamedStates;
    let fresh = null;
    try { fresh = await transport.request('state'); } catch (_) { return; }
    if (fresh && streamedAtSend === streamedStates) handlers.state(fresh);
  }, 1000);
}

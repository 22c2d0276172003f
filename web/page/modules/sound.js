// The click of a piece put down, so that a move that arrives (the engine's reply) is heard:
// made in code with WebAudio (no audio file), muted at will (remembered), and silent until the
// user's first gesture, before which browsers keep a page's audio from starting.
import { recall, remember } from './prefs.js';

let context = null;
let muted = recall('muted') === 'true';

// For tests and the curious: how many clicks were played.
const counts = { played: 0 };
window.minishogiSounds = counts;

export const isMuted = () => muted;

export function setMuted(value) {
  muted = value;
  remember('muted', String(muted));
}

// An AudioContext may be made (and then plays) only from a gesture: the first one makes it.
function unlock() {
  if (context) return;
  const Context = window.AudioContext || window.webkitAudioContext;
  if (!Context) return;
  try {
    context = new Context();
  } catch (_) {
    return;
  }
  for (const type of ['pointerdown', 'keydown']) window.removeEventListener(type, unlock, true);
}

export function setupSound() {
  for (const type of ['pointerdown', 'keydown']) window.addEventListener(type, unlock, true);
}

// A short wooden click: a triangle wave falling in pitch under a fast attack and decay.
export function playMoveSound() {
  if (muted || !context) return;
  if (context.state === 'suspended') context.resume().catch(() => {});
  const now = context.currentTime;
  const tone = context.createOscillator();
  const gain = context.createGain();
  tone.type = 'triangle';
  tone.frequency.setValueAtTime(330, now);
  tone.frequency.exponentialRampToValueAtTime(110, now + 0.07);
  gain.gain.setValueAtTime(0.0001, now);
  gain.gain.exponentialRampToValueAtTime(0.35, now + 0.004);
  gain.gain.exponentialRampToValueAtTime(0.0001, now + 0.09);
  tone.connect(gain).connect(context.destination);
  tone.start(now);
  tone.stop(now + 0.1);
  counts.played++;
}

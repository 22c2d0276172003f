// What the engines report: the PV lines with their search numbers, the evaluation bar, the
// win-probability graph over the line, and the mate search's result. Moves are in the
// notation the session wrote (pv_ja / pv_en); probabilities are the session's `win`.
import { $, el, svgEl } from './dom.js';
import { lang, t } from './labels.js';
import { page, nodeAtPly } from './state.js';
import { request } from './session.js';
import { showPreview } from './board.js';
import { markAt, markTitle } from './review.js';

// Reports are kept for the last few nodes: a report may come before the state that moves
// the cursor to its node.
const infoCache = new Map();
let live = { node: -1, source: null, lines: [], stats: null };  // the reports of the cursor's node
let mateView = null;  // {node, text} of the last mate search at the cursor

function liveFor(node) {
  let entry = infoCache.get(node);
  if (!entry) {
    entry = { node, source: null, lines: [], stats: null };
    infoCache.set(node, entry);
    if (infoCache.size > 24) infoCache.delete(infoCache.keys().next().value);
  }
  return entry;
}

// A new game: the reports kept belong to the old one.
export function forgetReports() {
  infoCache.clear();
  live = { node: -1, source: null, lines: [], stats: null };
  mateView = null;
}

// The cursor moved to the state's node: its reports, and no mate result of another node.
export function followCursor(s) {
  if (live.node !== s.cursor) live = liveFor(s.cursor);
  if (mateView && mateView.node !== s.cursor) mateView = null;
}

export function onInfo(info) {
  if (typeof info.node !== 'number') return;
  const entry = liveFor(info.node);
  const current = page.state && info.node === page.state.cursor;
  if (info.nodes !== undefined && info.nodes !== null && !(entry.source === 'analysis' && info.source !== 'analysis')) {
    // A progress report may leave out a number (nodes/s): the last one given stands.
    const kept = entry.stats && entry.stats.source === info.source ? entry.stats : {};
    entry.stats = { ...kept };
    for (const [key, value] of Object.entries(info)) if (value !== null && value !== undefined) entry.stats[key] = value;
  }
  if (!info.pv || !info.pv.length || !info.score) {  // a progress report: numbers only
    if (current) scheduleLive();
    return;
  }
  if (entry.source === 'analysis' && info.source !== 'analysis') return;  // the analyser's lines win
  if (entry.source !== info.source) entry.lines = [];
  entry.source = info.source;
  entry.lines[Math.max(0, (info.multipv || 1) - 1)] = info;
  if (current) {
    live = entry;
    scheduleLive();
  }
}

// Searches report many times a second: draw their lines at most every 80 ms.
let liveTimer = null;
function scheduleLive() {
  if (liveTimer) return;
  liveTimer = setTimeout(() => {
    liveTimer = null;
    if (!page.state) return;
    renderAnalysis();
    renderEval();
    renderGraph();
  }, 80);
}

// A line's moves in the page's language, as the session wrote them (USI where it did not).
function pvText(report, i) {
  const written = lang === 'ja' ? report.pv_ja : report.pv_en;
  return (written && written[i]) || report.pv[i];
}

export function onMate(mate) {
  if (!page.state || mate.node !== page.state.cursor) return;
  let text;
  if (mate.result === 'mate') {
    const pv = mate.pv || [];
    const moves = pv.map((_, i) => pvText(mate, i));
    text = `${t('mateFound')} (${t('plies')(pv.length)}): ${moves.join(' ')}`;
  } else if (mate.result === 'nomate') text = t('noMate');
  else if (mate.result === 'timeout') text = t('mateTimeout');
  else text = t('mateNA');
  mateView = { node: mate.node, text };
  renderAnalysis();
}

// A report's score and win probability from sente's view (reports are from the side to
// move's).
function senteView(info) {
  const flip = page.state.side_to_move === 'gote';
  const score = info.score || {};
  const out = { cp: null, mate: null, win: null };
  if (score.cp !== undefined && score.cp !== null) out.cp = flip ? -score.cp : score.cp;
  if (score.mate !== undefined && score.mate !== null) out.mate = flip ? -score.mate : score.mate;
  if (typeof info.win === 'number') out.win = flip ? 1 - info.win : info.win;
  return out;
}

function scoreText(ev) {
  if (!ev) return '–';
  if (ev.mate === 0) return t('mated')(ev.win >= 0.5 ? 'sente' : 'gote');  // the game's end
  if (ev.mate !== null && ev.mate !== undefined) {
    const n = ev.mate;
    return lang === 'ja' ? `${n >= 0 ? '+' : '-'}${t('mateIn')}${Math.abs(n)}` : `${n >= 0 ? '+' : '-'}M${Math.abs(n)}`;
  }
  if (ev.cp !== null && ev.cp !== undefined) return `${ev.cp > 0 ? '+' : ''}${ev.cp}`;
  return '–';
}

function fmtNum(n) {
  if (n === null || n === undefined) return '–';
  if (n >= 1e9) return `${(n / 1e9).toFixed(1)}G`;
  if (n >= 1e6) return `${(n / 1e6).toFixed(1)}M`;
  if (n >= 1e3) return `${(n / 1e3).toFixed(1)}k`;
  return String(n);
}

function currentLines() {
  return live.node === page.state.cursor ? live.lines.filter(Boolean) : [];
}

function renderStats() {
  const lines = currentLines();
  const best = lines[0];
  const stats = live.node === page.state.cursor && live.stats ? live.stats : best;
  $('stat-source').textContent = best ? (live.source === 'analysis' ? t('analysisSrc') : t('opponentThinks')) + ':' : '';
  $('stat-depth').textContent = best ? `${best.depth}${best.seldepth ? `/${best.seldepth}` : ''}` : '–';
  $('stat-nodes').textContent = stats && stats.nodes ? `${fmtNum(stats.nodes)} ${t('nodes')}` : '–';
  $('stat-nps').textContent = stats && stats.nps ? fmtNum(stats.nps) : '–';
}

export function renderAnalysis() {
  const s = page.state;
  if (!s) return;
  const list = $('pv-list');
  list.textContent = '';
  const lines = currentLines();
  const maxLines = live.source === 'analysis' ? (s.analysis.multipv || 1) : 1;
  renderStats();
  lines.slice(0, maxLines).forEach((info, idx) => {
    const ev = senteView(info);
    const sign = ev.cp > 0 || ev.mate > 0 ? 'plus' : (ev.cp < 0 || ev.mate < 0 ? 'minus' : '');
    const li = el('li', { class: 'pv', 'data-multipv': String(info.multipv || idx + 1),
      'data-node': String(info.node), 'data-depth': String(info.depth || 0), 'data-source': info.source },
      el('span', { class: `score ${sign}`,
        text: scoreText(ev) + (info.bound === 'lower' ? '↑' : info.bound === 'upper' ? '↓' : '') }));
    const moves = el('span', { class: 'pv-moves' });
    info.pv.forEach((usi, i) => {
      moves.append(el('button', { type: 'button', class: 'pv-move', 'data-pv': `${idx}:${i}`, 'data-usi': usi,
        onclick: () => showPreview(info.node, info.pv.slice(0, i + 1)) }, pvText(info, i)), ' ');
    });
    li.append(moves);
    list.append(li);
  });
  if (!lines.length) {
    list.append(el('li', { class: 'pv empty', text: s.analysis.on ? t('searching') : '' }));
  }
  $('mate-result').textContent = mateView ? mateView.text : '';
  $('mate-result').hidden = !mateView;
}

// The cursor's evaluation from sente's view: the live search's, else the one kept in the
// State.
function currentEval() {
  const s = page.state;
  const kept = (s.evals && s.evals[s.ply]) || null;
  if (kept && kept.mate === 0) return kept;  // the rules' verdict: no search says more
  if (live.node === s.cursor && live.lines[0]) return senteView(live.lines[0]);
  return kept;
}

export function renderEval() {
  const ev = currentEval();
  const win = ev && typeof ev.win === 'number' ? ev.win : 0.5;
  // The bar fills from sente's edge of the board (the bottom unless flipped).
  $('evalbar-fill').style.height = `${(win * 100).toFixed(1)}%`;
  $('evalbar').classList.toggle('flipped', page.flipped);
  $('evalbar-text').textContent = ev ? scoreText(ev) : '';
  $('evalbar').title = ev ? `${scoreText(ev)} · ${(win * 100).toFixed(0)}%` : '';
}

export function renderGraph() {
  const s = page.state;
  const svg = $('graph');
  const W = 400;
  const H = 120;
  const n = Math.max(s.line.length, 10);
  const x = (ply) => (ply / n) * (W - 8) + 4;
  const y = (w) => H - 6 - w * (H - 12);
  const points = [];
  const evals = (s.evals || []).slice();
  const current = currentEval();
  if (current && typeof current.win === 'number') evals[s.ply] = current;
  for (let i = 0; i <= s.line.length; i++) {
    const e = evals[i];
    if (e && typeof e.win === 'number') points.push([i, e.win]);
  }
  svg.textContent = '';
  svg.append(svgEl('rect', { x: 0, y: 0, width: W, height: H, class: 'g-bg' }));
  svg.append(svgEl('rect', { x: 0, y: y(0.5), width: W, height: H - y(0.5), class: 'g-lower' }));
  for (const w of [0.25, 0.75]) svg.append(svgEl('line', { x1: 0, x2: W, y1: y(w), y2: y(w), class: 'g-grid' }));
  svg.append(svgEl('line', { x1: 0, x2: W, y1: y(0.5), y2: y(0.5), class: 'g-mid' }));
  if (points.length) {
    const d = points.map(([i, w], k) => `${k ? 'L' : 'M'}${x(i).toFixed(1)},${y(w).toFixed(1)}`).join(' ');
    const last = points[points.length - 1][0];
    const area = `${d} L${x(last).toFixed(1)},${y(0.5)} L${x(points[0][0]).toFixed(1)},${y(0.5)} Z`;
    svg.append(svgEl('path', { d: area, class: 'g-area' }));
    svg.append(svgEl('path', { d, class: 'g-line' }));
    for (const [i, w] of points) {
      svg.append(svgEl('circle', { cx: x(i), cy: y(w), r: i === s.ply ? 3.5 : 1.8, class: i === s.ply ? 'g-dot cur' : 'g-dot' }));
    }
  }
  // The review's marks, at the plies of the moves marked (on the line where the graph has a
  // value there, else on the middle).
  s.line.forEach((entry, k) => {
    const marked = markAt(entry.node);
    if (!marked) return;
    const e = evals[k + 1];
    const w = e && typeof e.win === 'number' ? e.win : 0.5;
    const dot = svgEl('circle', { cx: x(k + 1), cy: y(w), r: 4.5, class: `g-mark ${marked.mark}`, 'data-ply': String(k + 1) });
    const title = svgEl('title', {});
    title.textContent = `${k + 1}. ${markTitle(marked.mark)}`;
    dot.append(title);
    svg.append(dot);
  });
  svg.append(svgEl('line', { x1: x(s.ply), x2: x(s.ply), y1: 0, y2: H, class: 'g-cursor' }));
  $('graph-label').textContent = t('winGraph');
  // A click on the graph goes to the ply under it.
  svg.onclick = (ev) => {
    const r = svg.getBoundingClientRect();
    const ply = Math.round(((ev.clientX - r.left) / r.width * W - 4) / (W - 8) * n);
    const target = Math.max(0, Math.min(page.state.line.length, ply));
    if (target !== page.state.ply) request('goto', { node: nodeAtPly(target) });
  };
}

export function setupAnalysis() {
  $('btn-analysis').addEventListener('click', () => {
    if (!page.state) return;
    request('analysis', { on: !page.state.analysis.on, multipv: Number($('multipv').value) });
  });
  $('multipv').addEventListener('change', () => {
    if (!page.state) return;
    live.lines = [];
    live.source = null;
    request('analysis', { on: page.state.analysis.on, multipv: Number($('multipv').value) });
  });
  $('btn-mate').addEventListener('click', async () => {
    if (!page.state) return;
    mateView = { node: page.state.cursor, text: t('searching') };
    renderAnalysis();
    const answer = await request('mate', { movetime_ms: 5000 });
    if (!answer && mateView && mateView.text === t('searching')) { mateView = null; renderAnalysis(); }
  });
}

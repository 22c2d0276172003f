// The page of `engine gui`: the board, the game, analysis and records.
// Vanilla JavaScript, no dependencies; the server is the referee (legal moves come from
// State.legal_moves) and this script only draws and sends what the user does.
'use strict';

(() => {
  const TOKEN = (document.querySelector('meta[name="token"]') || {}).content || '';
  const FILES = [5, 4, 3, 2, 1];
  const RANKS = ['a', 'b', 'c', 'd', 'e'];
  const HAND_KINDS = ['R', 'B', 'G', 'S', 'P'];
  const KANJI = { R: '飛', B: '角', G: '金', S: '銀', P: '歩', '+R': '龍', '+B': '馬', '+S': '全', '+P': 'と' };
  const KANJI_NUM = ['', '一', '二', '三', '四', '五'];
  const ZEN_NUM = ['', '１', '２', '３', '４', '５'];

  // ---------------------------------------------------------------- labels

  const TEXT = {
    ja: {
      title: '5五将棋', newGame: '新規対局', undo: '待った', resign: '投了', flip: '盤反転',
      thinking: '思考中…', preview: '読み筋を表示中', back2game: '局面に戻る',
      analysis: '検討', analyze: '検討開始', stopAnalysis: '検討停止', multipv: '候補手',
      mate: '詰み探索', depth: '深さ', moves: '棋譜', records: '棋譜ファイル', open: '開く…',
      save: '保存:', pastePh: '棋譜または SFEN を貼り付け', load: '読み込む', position: '局面 (SFEN)',
      copy: 'コピー', copied: 'コピーしました', playFrom: 'この局面で対局', promoteQ: '成りますか？',
      promote: '成る', noPromote: '不成', players: '対局者', asSente: '先手で指す', asGote: '後手で指す',
      bothHuman: '人間同士', bothEngine: 'エンジン同士', engine: 'エンジン', level: 'レベル',
      time: '持ち時間', clock: '時計', mainMin: '持ち時間(分)', byoyomiS: '秒読み(秒)', incS: '加算(秒)',
      perMove: '1手の時間(秒)', startPos: '開始局面 (SFEN、空欄で平手)', cancel: 'キャンセル',
      start: '対局開始', sente: '先手', gote: '後手', toMove: '番', check: '王手',
      you: 'あなた', human: '人間', startPosition: '開始局面', nodes: 'ノード',
      searching: '探索中…', mateFound: '詰みあり', noMate: '詰みなし', mateTimeout: '時間内に詰み見つからず',
      mateNA: 'この局面では詰み探索できません', opponentThinks: '相手の読み', analysisSrc: '検討',
      variation: '変化', engineError: 'エンジンのエラー', langButton: 'English',
      byoyomi: '秒読み', mateIn: '詰',
      wins: (side) => `${side === 'sente' ? '☗先手' : '☖後手'}の勝ち`,
      draw: '引き分け',
      reasons: {
        checkmate: '詰み', 'no legal move': '指し手なし', 'fourfold repetition': '千日手',
        'perpetual check': '連続王手の千日手', resignation: '投了', time: '時間切れ', 'ply limit': '手数制限',
      },
    },
    en: {
      title: 'Minishogi', newGame: 'New game', undo: 'Undo', resign: 'Resign', flip: 'Flip',
      thinking: 'Thinking…', preview: 'Showing a line', back2game: 'Back to the game',
      analysis: 'Analysis', analyze: 'Analyse', stopAnalysis: 'Stop', multipv: 'Lines',
      mate: 'Mate search', depth: 'depth', moves: 'Moves', records: 'Records', open: 'Open…',
      save: 'Save:', pastePh: 'Paste a record or an SFEN', load: 'Load', position: 'Position (SFEN)',
      copy: 'Copy', copied: 'Copied', playFrom: 'Play from this position', promoteQ: 'Promote?',
      promote: 'Promote', noPromote: 'Keep', players: 'Players', asSente: 'Play sente', asGote: 'Play gote',
      bothHuman: 'Both human', bothEngine: 'Engine vs engine', engine: 'Engine', level: 'Level',
      time: 'Time', clock: 'Clock', mainMin: 'Main time (min)', byoyomiS: 'Byoyomi (s)', incS: 'Increment (s)',
      perMove: 'Time per move (s)', startPos: 'Start position (SFEN; empty: the usual one)', cancel: 'Cancel',
      start: 'Start', sente: 'Sente', gote: 'Gote', toMove: ' to move', check: 'Check',
      you: 'You', human: 'Human', startPosition: 'Start', nodes: 'nodes',
      searching: 'Searching…', mateFound: 'Mate', noMate: 'No mate', mateTimeout: 'No mate found in time',
      mateNA: 'Mate search not available here', opponentThinks: 'Opponent thinks', analysisSrc: 'Analysis',
      variation: 'Variation', engineError: 'Engine error', langButton: '日本語',
      byoyomi: 'byoyomi', mateIn: 'M',
      wins: (side) => `${side === 'sente' ? 'Sente' : 'Gote'} wins`,
      draw: 'Draw',
      reasons: {
        checkmate: 'by checkmate', 'no legal move': '(no legal move)', 'fourfold repetition': 'by fourfold repetition',
        'perpetual check': 'by perpetual check', resignation: 'by resignation', time: 'on time', 'ply limit': '(ply limit)',
      },
    },
  };

  let lang = (() => {
    try {
      const saved = localStorage.getItem('minishogi-lang');
      if (saved === 'ja' || saved === 'en') return saved;
    } catch (_) { /* storage unavailable */ }
    return (navigator.language || 'en').toLowerCase().startsWith('ja') ? 'ja' : 'en';
  })();
  const t = (key) => TEXT[lang][key] ?? TEXT.en[key] ?? key;

  // ---------------------------------------------------------------- state of the page

  let S = null;              // the last State from the server
  let stateAt = 0;           // performance.now() when S arrived (clocks tick from there)
  let flipped = false;
  let selected = null;       // {kind: 'square', sq} | {kind: 'hand', piece: 'P'}
  let preview = null;        // {pos, label} while a PV line is shown
  let live = { node: -1, source: null, lines: [], stats: null };   // info events of the cursor's node
  let mateView = null;       // {node, text}
  let busy = false;          // a move request is under way
  let suppressClick = false; // a drag just ended: ignore the click that follows
  let lastFlipAuto = null;   // players of the last game whose side set the orientation

  const $ = (id) => document.getElementById(id);
  const el = (tag, attrs = {}, ...children) => {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) {
      if (v === null || v === undefined || v === false) continue;
      if (k === 'class') e.className = v;
      else if (k === 'text') e.textContent = v;
      else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
      else e.setAttribute(k, v === true ? '' : v);
    }
    for (const c of children) if (c !== null && c !== undefined) e.append(c);
    return e;
  };

  // ---------------------------------------------------------------- the server

  // The event stream and the answers to requests both bring states; the stream's come in the
  // server's order, so an answer is used only when no streamed state came while it was under
  // way (the stream brings the change the request made in any case).
  let streamedStates = 0;
  let lastStateAt = 0;       // Date.now() of the last state shown
  const counts = { state: 0, info: 0, mate: 0, lastStreamedPly: null, errors: 0 };
  window.minishogiEvents = counts;  // for tests and the curious

  async function api(method, path, body, raw) {
    const seqAtSend = streamedStates;
    const opts = { method, headers: { 'X-Token': TOKEN } };
    if (body !== undefined) {
      if (raw) {
        opts.body = body;
        opts.headers['Content-Type'] = 'application/octet-stream';
      } else {
        opts.body = JSON.stringify(body);
        opts.headers['Content-Type'] = 'application/json';
      }
    }
    let res;
    try {
      res = await fetch(path, opts);
    } catch (e) {
      showError(String(e));
      return null;
    }
    let data = null;
    const text = await res.text();
    try { data = text ? JSON.parse(text) : null; } catch (_) { data = null; }
    if (!res.ok) {
      showError((data && data.error) || `${res.status} ${res.statusText}`);
      return null;
    }
    if (data && data.sfen !== undefined) {
      hideError();
      if (streamedStates === seqAtSend) setState(data);
    }
    return data;
  }

  function showError(msg) {
    $('error-text').textContent = msg;
    $('error').hidden = false;
  }
  function hideError() {
    if (S && S.error) return;
    $('error').hidden = true;
  }

  function connectEvents() {
    const es = new EventSource(`/api/events?token=${encodeURIComponent(TOKEN)}`);
    const parse = (ev) => { try { return JSON.parse(ev.data); } catch (_) { return null; } };
    es.addEventListener('state', (ev) => {
      const d = parse(ev);
      counts.state++;
      if (d) { streamedStates++; counts.lastStreamedPly = d.ply; setState(d); }
    });
    es.addEventListener('info', (ev) => { const d = parse(ev); counts.info++; if (d) onInfo(d); });
    es.addEventListener('mate', (ev) => { const d = parse(ev); counts.mate++; if (d) onMate(d); });
    es.addEventListener('error', () => { counts.errors++; });
    es.onmessage = (ev) => {  // unnamed events: tell them apart by their fields
      const d = parse(ev);
      if (!d) return;
      if (d.sfen !== undefined && d.board) { streamedStates++; setState(d); }
      else if (d.depth !== undefined || d.pv && d.score) onInfo(d);
      else if (d.result !== undefined && d.node !== undefined) onMate(d);
    };
  }

  // ---------------------------------------------------------------- positions (display only)

  function emptyHands() {
    return { sente: { R: 0, B: 0, G: 0, S: 0, P: 0 }, gote: { R: 0, B: 0, G: 0, S: 0, P: 0 } };
  }

  function parseSfen(sfen) {
    const [boardPart, side, handPart] = sfen.trim().split(/\s+/);
    const board = [];
    for (const row of boardPart.split('/')) {
      const cells = [];
      let promo = false;
      for (const ch of row) {
        if (ch === '+') { promo = true; continue; }
        if (/[0-9]/.test(ch)) { for (let i = 0; i < Number(ch); i++) cells.push(''); continue; }
        cells.push((promo ? '+' : '') + ch);
        promo = false;
      }
      board.push(cells);
    }
    const hands = emptyHands();
    if (handPart && handPart !== '-') {
      let n = '';
      for (const ch of handPart) {
        if (/[0-9]/.test(ch)) { n += ch; continue; }
        const color = ch === ch.toUpperCase() ? 'sente' : 'gote';
        hands[color][ch.toUpperCase()] += n ? Number(n) : 1;
        n = '';
      }
    }
    return { board, hands, side: side === 'w' ? 'gote' : 'sente', lastMove: null };
  }

  const sqIndex = (sq) => ({ row: RANKS.indexOf(sq[1]), col: 5 - Number(sq[0]) });
  const sqName = (row, col) => `${5 - col}${RANKS[row]}`;
  const colorOf = (p) => (p.replace('+', '') === p.replace('+', '').toUpperCase() ? 'sente' : 'gote');

  function applyUsi(pos, usi) {
    const p = { board: pos.board.map((r) => r.slice()), hands: JSON.parse(JSON.stringify(pos.hands)), side: pos.side, lastMove: usi };
    const mover = p.side;
    if (usi[1] === '*') {
      const kind = usi[0].toUpperCase();
      const { row, col } = sqIndex(usi.slice(2, 4));
      p.board[row][col] = mover === 'sente' ? kind : kind.toLowerCase();
      p.hands[mover][kind] = Math.max(0, p.hands[mover][kind] - 1);
    } else {
      const a = sqIndex(usi.slice(0, 2));
      const b = sqIndex(usi.slice(2, 4));
      let piece = p.board[a.row][a.col];
      const captured = p.board[b.row][b.col];
      if (captured) {
        const kind = captured.replace('+', '').toUpperCase();
        if (kind !== 'K') p.hands[mover][kind] += 1;
      }
      if (usi.endsWith('+') && !piece.startsWith('+')) piece = '+' + piece;
      p.board[b.row][b.col] = piece;
      p.board[a.row][a.col] = '';
    }
    p.side = mover === 'sente' ? 'gote' : 'sente';
    return p;
  }

  // A move in the English notation of the move list: piece, origin, "-" or "x", destination,
  // "+" (promotes) or "=" (could have); drops "P*3c".
  function enMove(pos, usi) {
    if (usi[1] === '*') return `${usi[0].toUpperCase()}*${usi.slice(2, 4)}`;
    const a = sqIndex(usi.slice(0, 2));
    const b = sqIndex(usi.slice(2, 4));
    const piece = (pos.board[a.row][a.col] || '?').toUpperCase();
    const sep = pos.board[b.row][b.col] ? 'x' : '-';
    const zone = pos.side === 'sente' ? 0 : 4;
    let suffix = '';
    if (usi.endsWith('+')) suffix = '+';
    else if ('RBSP'.includes(piece) && (a.row === zone || b.row === zone)) suffix = '=';
    return `${piece}${usi.slice(0, 2)}${sep}${usi.slice(2, 4)}${suffix}`;
  }

  // A move in Japanese notation, for PV lines that came without one.
  function jaMove(pos, usi, prevTo) {
    const mark = pos.side === 'sente' ? '☗' : '☖';
    const to = usi[1] === '*' ? usi.slice(2, 4) : usi.slice(2, 4);
    const dest = prevTo === to ? '同　' : `${ZEN_NUM[Number(to[0])]}${KANJI_NUM[RANKS.indexOf(to[1]) + 1]}`;
    if (usi[1] === '*') return `${mark}${dest}${KANJI[usi[0].toUpperCase()]}打`;
    const a = sqIndex(usi.slice(0, 2));
    const piece = pos.board[a.row][a.col] || '?';
    const upper = piece.toUpperCase();
    const name = upper === 'K' ? '玉' : (upper === '+S' ? '成銀' : KANJI[upper] || '?');
    return `${mark}${dest}${name}${usi.endsWith('+') ? '成' : ''}(${usi[0]}${RANKS.indexOf(usi[1]) + 1})`;
  }

  function currentPos() {
    if (preview) return preview.pos;
    return { board: S.board, hands: S.hands, side: S.side_to_move, lastMove: S.last_move };
  }

  // ---------------------------------------------------------------- the board

  function pieceKanji(p) {
    const upper = p.toUpperCase();
    if (upper === 'K') return colorOf(p) === 'sente' ? '玉' : '王';
    return KANJI[upper] || '?';
  }

  function pieceEl(p) {
    const color = colorOf(p);
    const turned = (color === 'gote') !== flipped;
    return el('div', {
      class: `piece ${color}${p.startsWith('+') ? ' promoted' : ''}${turned ? ' turned' : ''}`,
      'data-piece': p,
    }, el('span', { text: pieceKanji(p) }));
  }

  function buildBoard() {
    const board = $('board');
    board.textContent = '';
    for (let r = 0; r < 5; r++) {
      for (let c = 0; c < 5; c++) {
        const row = flipped ? 4 - r : r;
        const col = flipped ? 4 - c : c;
        board.append(el('div', { class: 'sq', 'data-square': sqName(row, col), role: 'gridcell' }));
      }
    }
    const files = flipped ? FILES.slice().reverse() : FILES;
    $('files-label').textContent = '';
    for (const f of files) $('files-label').append(el('span', { text: lang === 'ja' ? ZEN_NUM[f] : String(f) }));
    $('ranks-label').textContent = '';
    const ranks = flipped ? [4, 3, 2, 1, 0] : [0, 1, 2, 3, 4];
    for (const r of ranks) $('ranks-label').append(el('span', { text: lang === 'ja' ? KANJI_NUM[r + 1] : RANKS[r] }));
  }

  // Legal moves at the cursor, grouped by origin: "5d" or "P*".
  function movesFrom(key) {
    if (!S || preview) return [];
    return S.legal_moves.filter((m) => (m[1] === '*' ? `${m[0]}*` : m.slice(0, 2)) === key);
  }

  function selectedKey() {
    if (!selected) return null;
    return selected.kind === 'square' ? selected.sq : `${selected.piece}*`;
  }

  function canPlayNow() {
    return S && !preview && !S.result && S.legal_moves.length > 0 && !S.thinking;
  }

  function renderBoard() {
    const pos = currentPos();
    const dests = new Set(movesFrom(selectedKey() || '--').map((m) => m.slice(2, 4)));
    let lastFrom = null;
    let lastTo = null;
    if (pos.lastMove) {
      lastTo = pos.lastMove.slice(2, 4);
      if (pos.lastMove[1] !== '*') lastFrom = pos.lastMove.slice(0, 2);
    }
    let kingInCheck = null;
    if (!preview && S.in_check) {
      const k = S.side_to_move === 'sente' ? 'K' : 'k';
      pos.board.forEach((row, r) => row.forEach((p, c) => { if (p === k) kingInCheck = sqName(r, c); }));
    }
    for (const sqEl of $('board').children) {
      const sq = sqEl.dataset.square;
      const { row, col } = sqIndex(sq);
      const p = pos.board[row][col];
      sqEl.textContent = '';
      if (p) sqEl.append(pieceEl(p));
      sqEl.classList.toggle('last-to', sq === lastTo);
      sqEl.classList.toggle('last-from', sq === lastFrom);
      sqEl.classList.toggle('selected', !!selected && selected.kind === 'square' && selected.sq === sq);
      sqEl.classList.toggle('dest', dests.has(sq));
      sqEl.classList.toggle('capture', dests.has(sq) && !!p);
      sqEl.classList.toggle('check', sq === kingInCheck);
      sqEl.classList.toggle('movable', !preview && movesFrom(sq).length > 0 && canPlayNow());
    }
    renderHands(pos);
    $('preview-banner').hidden = !preview;
    $('board-area').classList.toggle('previewing', !!preview);
  }

  function renderHands(pos) {
    const top = flipped ? 'sente' : 'gote';
    const bottom = flipped ? 'gote' : 'sente';
    for (const [id, color] of [['hand-top', top], ['hand-bottom', bottom]]) {
      const box = $(id);
      box.textContent = '';
      box.dataset.color = color;
      for (const kind of HAND_KINDS) {
        const n = pos.hands[color][kind] || 0;
        if (!n) continue;
        const key = `${kind}*`;
        const canDrop = !preview && color === S.side_to_move && movesFrom(key).length > 0 && canPlayNow();
        const isSel = selected && selected.kind === 'hand' && selected.piece === kind && color === S.side_to_move;
        const piece = pieceEl(color === 'sente' ? kind : kind.toLowerCase());
        piece.classList.remove('turned'); // hands read upright, turned only for the far side
        if (id === 'hand-top') piece.classList.add('turned');
        box.append(el('div', {
          class: `hand-piece${canDrop ? ' movable' : ''}${isSel ? ' selected' : ''}`,
          'data-hand': `${color}-${kind}`,
          title: `${KANJI[kind]} ×${n}`,
        }, piece, n > 1 ? el('span', { class: 'count', text: String(n) }) : null));
      }
      if (!box.children.length) box.append(el('span', { class: 'hand-empty', text: lang === 'ja' ? '持駒なし' : 'no pieces in hand' }));
    }
  }

  // ---------------------------------------------------------------- moving

  async function tryMove(to) {
    const cands = movesFrom(selectedKey()).filter((m) => m.slice(2, 4) === to);
    if (!cands.length) return false;
    let usi;
    if (cands.length === 1) {
      usi = cands[0];
    } else {
      const promote = await askPromotion();
      if (promote === null) { selected = null; renderBoard(); return true; }
      usi = cands.find((m) => m.endsWith('+') === promote);
    }
    await sendMove(usi);
    return true;
  }

  async function sendMove(usi) {
    selected = null;
    busy = true;
    renderBoard();
    await api('POST', '/api/move', { move: usi });
    busy = false;
    renderBoard();
  }

  function askPromotion() {
    const dlg = $('promo-dialog');
    const from = selected.sq;
    const { row, col } = sqIndex(from);
    const p = S.board[row][col];
    const yes = $('promo-yes-piece');
    const no = $('promo-no-piece');
    yes.replaceChildren(el('span', { text: KANJI['+' + p.toUpperCase()] || '' }));
    no.replaceChildren(el('span', { text: pieceKanji(p) }));
    return new Promise((resolve) => {
      const done = (v) => {
        dlg.removeEventListener('click', onClick);
        dlg.removeEventListener('cancel', onCancel);
        if (dlg.open) dlg.close();
        resolve(v);
      };
      const onClick = (ev) => {
        const b = ev.target.closest('[data-promote]');
        if (b) done(b.dataset.promote === 'yes');
        else if (ev.target === dlg) done(null);
      };
      const onCancel = (ev) => { ev.preventDefault(); done(null); };
      dlg.addEventListener('click', onClick);
      dlg.addEventListener('cancel', onCancel);
      dlg.showModal();
    });
  }

  async function onSquare(sq) {
    if (!S || busy) return;
    if (preview) return;
    if (selected && await tryMove(sq)) return;
    if (canPlayNow() && movesFrom(sq).length > 0 && !(selected && selected.kind === 'square' && selected.sq === sq)) {
      selected = { kind: 'square', sq };
    } else {
      selected = null;
    }
    renderBoard();
  }

  function onHand(color, kind) {
    if (!S || busy || preview) return;
    if (color === S.side_to_move && canPlayNow() && movesFrom(`${kind}*`).length > 0
        && !(selected && selected.kind === 'hand' && selected.piece === kind)) {
      selected = { kind: 'hand', piece: kind };
    } else {
      selected = null;
    }
    renderBoard();
  }

  // Drag and drop with pointer events: press on a movable piece, release on a destination.
  function setupDrag() {
    let drag = null;
    const down = (ev) => {
      if (ev.button !== 0 || !S || busy || preview) return;
      const sqEl = ev.target.closest('[data-square]');
      const handEl = ev.target.closest('[data-hand]');
      let source = null;
      if (sqEl && movesFrom(sqEl.dataset.square).length && canPlayNow()) {
        source = { kind: 'square', sq: sqEl.dataset.square };
      } else if (handEl) {
        const [color, kind] = handEl.dataset.hand.split('-');
        if (color === S.side_to_move && movesFrom(`${kind}*`).length && canPlayNow()) source = { kind: 'hand', piece: kind };
      }
      if (!source) return;
      const pieceNode = (sqEl || handEl).querySelector('.piece');
      drag = { source, x: ev.clientX, y: ev.clientY, ghost: null, pieceNode, id: ev.pointerId };
    };
    const move = (ev) => {
      if (!drag || ev.pointerId !== drag.id) return;
      if (!drag.ghost) {
        if (Math.hypot(ev.clientX - drag.x, ev.clientY - drag.y) < 6) return;
        selected = drag.source;
        renderBoard();
        const g = drag.pieceNode.cloneNode(true);
        g.classList.add('ghost');
        const size = $('board').firstElementChild.getBoundingClientRect().width;
        g.style.width = g.style.height = `${size * 0.86}px`;
        document.body.append(g);
        drag.ghost = g;
        document.body.classList.add('dragging');
        const origin = drag.source.kind === 'square'
          ? document.querySelector(`[data-square="${drag.source.sq}"] .piece`)
          : document.querySelector(`[data-hand="${S.side_to_move}-${drag.source.piece}"] .piece`);
        if (origin) origin.classList.add('lifted');
      }
      drag.ghost.style.left = `${ev.clientX}px`;
      drag.ghost.style.top = `${ev.clientY}px`;
      ev.preventDefault();
    };
    const up = async (ev) => {
      if (!drag || ev.pointerId !== drag.id) return;
      const d = drag;
      drag = null;
      if (!d.ghost) return;  // a click: the click handler selects
      d.ghost.remove();
      document.body.classList.remove('dragging');
      suppressClick = true;
      setTimeout(() => { suppressClick = false; }, 0);
      const target = document.elementFromPoint(ev.clientX, ev.clientY);
      const sqEl = target && target.closest('[data-square]');
      selected = d.source;
      if (!sqEl || !(await tryMove(sqEl.dataset.square))) {
        selected = null;
        renderBoard();
      }
    };
    const area = $('play');
    area.addEventListener('pointerdown', down);
    window.addEventListener('pointermove', move, { passive: false });
    window.addEventListener('pointerup', up);
    window.addEventListener('pointercancel', () => {
      if (drag && drag.ghost) { drag.ghost.remove(); document.body.classList.remove('dragging'); }
      drag = null;
      renderBoard();
    });
  }

  // ---------------------------------------------------------------- state

  function setState(s) {
    // A state older than the one shown (when the server numbers them) is dropped.
    if (S && typeof s.version === 'number' && typeof S.version === 'number' && s.version < S.version) return;
    lastStateAt = Date.now();
    const prev = S;
    S = s;
    stateAt = performance.now();
    const moved = !prev || prev.cursor !== s.cursor || prev.sfen !== s.sfen;
    if (moved) {
      selected = null;
      preview = null;
      if (live.node !== s.cursor) live = liveFor(s.cursor);
      if (mateView && mateView.node !== s.cursor) mateView = null;
    }
    // Orient the board for a person playing gote alone, once a game.
    const key = `${s.players.sente}/${s.players.gote}`;
    if (key !== lastFlipAuto) {
      lastFlipAuto = key;
      const want = s.players.gote === 'human' && s.players.sente === 'engine';
      if (want !== flipped) { flipped = want; buildBoard(); }
    }
    if (s.error) showError(`${t('engineError')}: ${s.error}`);
    render();
  }

  // Reports are kept for the last few nodes: a report may come before the state that moves
  // the cursor to its node.
  const infoCache = new Map();
  function liveFor(node) {
    let entry = infoCache.get(node);
    if (!entry) {
      entry = { node, source: null, lines: [], stats: null };
      infoCache.set(node, entry);
      if (infoCache.size > 24) infoCache.delete(infoCache.keys().next().value);
    }
    return entry;
  }

  function onInfo(info) {
    if (typeof info.node !== 'number') return;
    const entry = liveFor(info.node);
    const current = S && info.node === S.cursor;
    if (info.nodes !== undefined && info.nodes !== null && !(entry.source === 'analysis' && info.source !== 'analysis')) {
      entry.stats = info;
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
      if (!S) return;
      renderAnalysis();
      renderEval();
      renderGraph();
    }, 80);
  }

  function onMate(m) {
    if (!S || m.node !== S.cursor) return;
    let text;
    if (m.result === 'mate') {
      const pos = currentPos();
      const moves = pvNotation(pos, m.pv || [], m.pv_ja);
      text = `${t('mateFound')} (${(m.pv || []).length}${lang === 'ja' ? '手' : ' plies'}): ${moves.join(' ')}`;
    } else if (m.result === 'nomate') text = t('noMate');
    else if (m.result === 'timeout') text = t('mateTimeout');
    else text = t('mateNA');
    mateView = { node: m.node, text, pv: m.pv || [] };
    renderAnalysis();
  }

  // ---------------------------------------------------------------- rendering

  function render() {
    if (!S) return;
    // Plain facts for scripts and tests: the cursor, whose turn, whether the engine thinks.
    const ds = document.body.dataset;
    ds.cursor = String(S.cursor);
    ds.ply = String(S.ply);
    ds.turn = S.side_to_move;
    ds.thinking = String(!!S.thinking);
    ds.result = S.result ? (S.result.winner || 'draw') : '';
    ds.analysis = String(!!S.analysis.on);
    renderStatus();
    renderBoard();
    renderPlayers();
    renderMoves();
    renderAnalysis();
    renderEval();
    renderGraph();
    renderTools();
  }

  function resultText(r) {
    if (!r) return '';
    const reason = TEXT[lang].reasons[r.reason] || r.reason;
    if (!r.winner) return lang === 'ja' ? `${t('draw')}（${reason}）` : `${t('draw')} ${reason}`;
    return lang === 'ja' ? `${t('wins')(r.winner)}（${reason}）` : `${t('wins')(r.winner)} ${reason}`;
  }

  function renderStatus() {
    const side = S.side_to_move;
    const mark = side === 'sente' ? '☗' : '☖';
    let turn = '';
    if (!S.result && S.legal_moves.length) {
      turn = `${mark}${t(side)}${t('toMove')}`;
      if (S.in_check) turn += ` · ${t('check')}`;
    }
    $('turn').textContent = turn;
    $('result').textContent = resultText(S.result);
    $('result').classList.toggle('shown', !!S.result);
    $('thinking').hidden = !S.thinking;
    $('btn-undo').disabled = S.ply === 0 && S.line.length === 0;
    $('btn-resign').disabled = !!S.result || (S.players.sente !== 'human' && S.players.gote !== 'human');
    $('btn-analysis').textContent = S.analysis.on ? t('stopAnalysis') : t('analyze');
    $('btn-analysis').classList.toggle('active', S.analysis.on);
    $('multipv').value = String(S.analysis.multipv || 1);
    document.documentElement.lang = lang;
    $('btn-lang').textContent = t('langButton');
    for (const e of document.querySelectorAll('[data-i18n]')) e.textContent = t(e.dataset.i18n);
    for (const e of document.querySelectorAll('[data-i18n-ph]')) e.placeholder = t(e.dataset.i18nPh);
    $('btn-analysis').textContent = S.analysis.on ? t('stopAnalysis') : t('analyze');
  }

  function playerName(color) {
    const who = S.players[color];
    if (who === 'human') {
      const other = color === 'sente' ? 'gote' : 'sente';
      return [S.players[other] === 'engine' ? t('you') : t('human'), ''];
    }
    const strength = S.elo ? `Elo ${S.elo}` : (S.level !== null && S.level !== undefined ? `${t('level')} ${S.level}` : '');
    return [S.engine, strength];
  }

  function renderPlayers() {
    const top = flipped ? 'sente' : 'gote';
    const bottom = flipped ? 'gote' : 'sente';
    $('top-mark').textContent = top === 'sente' ? '☗' : '☖';
    $('bottom-mark').textContent = bottom === 'sente' ? '☗' : '☖';
    for (const [id, color] of [['top-name', top], ['bottom-name', bottom]]) {
      const [name, strength] = playerName(color);
      $(id).replaceChildren(`${t(color)} · ${name}`, strength ? el('small', { text: strength }) : '');
      $(id).parentElement.title = `${name} ${strength}`;
    }
    $('row-top').classList.toggle('to-move', !S.result && S.side_to_move === top);
    $('row-bottom').classList.toggle('to-move', !S.result && S.side_to_move === bottom);
    $('row-top').dataset.color = top;
    $('row-bottom').dataset.color = bottom;
    renderClocks();
  }

  function fmtClock(ms) {
    const neg = ms < 0;
    ms = Math.max(0, ms);
    if (ms < 10000) return `${(Math.floor(ms / 100) / 10).toFixed(1)}`;
    const s = Math.ceil(ms / 1000);
    const m = Math.floor(s / 60);
    return `${neg ? '-' : ''}${m}:${String(s % 60).padStart(2, '0')}`;
  }

  function renderClocks() {
    const c = S && S.clock;
    for (const [id, color] of [['top-clock', flipped ? 'sente' : 'gote'], ['bottom-clock', flipped ? 'gote' : 'sente']]) {
      const box = $(id);
      if (!c) { box.hidden = true; continue; }
      box.hidden = false;
      let ms = c[`${color}_ms`];
      const running = c.running === color && !S.result;
      if (running) ms -= performance.now() - stateAt;
      let text = fmtClock(ms);
      let low = false;
      if (ms <= 0 && c.byoyomi_ms > 0) {
        const by = c.byoyomi_ms + Math.min(0, ms);
        text = `${t('byoyomi')} ${Math.max(0, Math.ceil(by / 1000))}`;
        low = true;
      } else if (c.byoyomi_ms > 0) {
        text += ` +${Math.round(c.byoyomi_ms / 1000)}s`;
      } else if (c.increment_ms > 0) {
        text += ` (+${Math.round(c.increment_ms / 1000)}s)`;
      }
      box.textContent = text;
      box.classList.toggle('running', running);
      box.classList.toggle('low', low || (ms < 10000 && c.byoyomi_ms === 0));
    }
  }

  function moveText(entry) {
    return lang === 'ja' ? entry.ja : entry.en;
  }

  function renderMoves() {
    const box = $('moves');
    const prevScroll = box.scrollTop;
    box.textContent = '';
    box.append(el('div', {
      class: `move start${S.ply === 0 ? ' current' : ''}`, 'data-goto': '0', role: 'listitem',
    }, el('span', { class: 'num', text: '' }), el('span', { class: 'text', text: t('startPosition') })));
    S.line.forEach((entry, i) => {
      const ply = i + 1;
      const vars = entry.variations || [];
      const row = el('div', {
        class: `move${ply === S.ply ? ' current' : ''}${ply > S.ply ? ' future' : ''}`,
        'data-node': String(entry.node), 'data-usi': entry.usi, role: 'listitem',
      }, el('span', { class: 'num', text: String(ply) }), el('span', { class: 'text', text: moveText(entry) }),
      vars.length ? el('span', { class: 'has-var', title: t('variation'), text: '+' }) : null);
      box.append(row);
      if (vars.length) {
        const vbox = el('div', { class: 'variations' });
        for (const v of vars) {
          vbox.append(el('button', { type: 'button', class: 'var', 'data-var-node': String(v.node), title: t('variation') },
            `↳ ${moveText(v)}`));
        }
        box.append(vbox);
      }
    });
    if (S.result) {
      box.append(el('div', { class: 'move result-row' }, el('span', { class: 'num' }), el('span', { class: 'text', text: resultText(S.result) })));
    }
    box.scrollTop = prevScroll;
    const cur = box.querySelector('.current');
    if (cur) {
      const b = box.getBoundingClientRect();
      const r = cur.getBoundingClientRect();
      if (r.top < b.top || r.bottom > b.bottom) box.scrollTop += r.top - b.top - b.height / 2;
    }
    const atEnd = S.ply >= S.line.length;
    document.querySelector('[data-nav="first"]').disabled = S.ply === 0;
    document.querySelector('[data-nav="back"]').disabled = S.ply === 0;
    document.querySelector('[data-nav="forward"]').disabled = atEnd;
    document.querySelector('[data-nav="last"]').disabled = atEnd;
  }

  function nodeAtPly(ply) {
    if (ply <= 0) return 0;
    const e = S.line[Math.min(ply, S.line.length) - 1];
    return e ? e.node : 0;
  }

  function navigate(where) {
    if (!S) return;
    let ply = S.ply;
    if (where === 'first') ply = 0;
    else if (where === 'back') ply = S.ply - 1;
    else if (where === 'forward') ply = S.ply + 1;
    else if (where === 'last') ply = S.line.length;
    ply = Math.max(0, Math.min(S.line.length, ply));
    if (ply === S.ply && !preview) return;
    preview = null;
    api('POST', '/api/goto', { node: nodeAtPly(ply) });
  }

  // Score of an info, from sente's view.
  function senteView(info) {
    const flip = S.side_to_move === 'gote';
    const sc = info.score || {};
    const out = { cp: null, mate: null, win: null };
    if (sc.cp !== undefined && sc.cp !== null) out.cp = flip ? -sc.cp : sc.cp;
    if (sc.mate !== undefined && sc.mate !== null) out.mate = flip ? -sc.mate : sc.mate;
    if (info.win !== undefined && info.win !== null) out.win = flip ? 1 - info.win : info.win;
    return out;
  }

  function scoreText(ev, view) {  // view: 'sente' or 'stm'
    if (!ev) return '–';
    if (ev.mate !== null && ev.mate !== undefined) {
      const n = ev.mate;
      return lang === 'ja' ? `${n >= 0 ? '+' : '-'}${t('mateIn')}${Math.abs(n)}` : `${n >= 0 ? '+' : '-'}M${Math.abs(n)}`;
    }
    if (ev.cp !== null && ev.cp !== undefined) return `${ev.cp > 0 ? '+' : ''}${ev.cp}`;
    return '–';
  }

  function pvNotation(pos, pv, pvJa) {
    const out = [];
    let p = pos;
    let prevTo = null;
    for (let i = 0; i < pv.length; i++) {
      const usi = pv[i];
      if (lang === 'ja') out.push(pvJa && pvJa[i] ? pvJa[i] : jaMove(p, usi, prevTo));
      else out.push(enMove(p, usi));
      try { p = applyUsi(p, usi); } catch (_) { break; }
      prevTo = usi.slice(2, 4);
    }
    return out;
  }

  function fmtNum(n) {
    if (n === null || n === undefined) return '–';
    if (n >= 1e9) return `${(n / 1e9).toFixed(1)}G`;
    if (n >= 1e6) return `${(n / 1e6).toFixed(1)}M`;
    if (n >= 1e3) return `${(n / 1e3).toFixed(1)}k`;
    return String(n);
  }

  function renderStats() {
    const lines = live.node === S.cursor ? live.lines.filter(Boolean) : [];
    const best = lines[0];
    const st = live.node === S.cursor && live.stats ? live.stats : best;
    $('stat-source').textContent = best ? (live.source === 'analysis' ? t('analysisSrc') : t('opponentThinks')) + ':' : '';
    $('stat-depth').textContent = best ? `${best.depth}${best.seldepth ? `/${best.seldepth}` : ''}` : '–';
    $('stat-nodes').textContent = st && st.nodes ? `${fmtNum(st.nodes)} ${t('nodes')}` : '–';
    $('stat-nps').textContent = st && st.nps ? fmtNum(st.nps) : '–';
  }

  function renderAnalysis() {
    if (!S) return;
    const list = $('pv-list');
    list.textContent = '';
    const lines = live.node === S.cursor ? live.lines.filter(Boolean) : [];
    const maxLines = live.source === 'analysis' ? (S.analysis.multipv || 1) : 1;
    renderStats();
    const base = { board: S.board, hands: S.hands, side: S.side_to_move, lastMove: S.last_move };
    lines.slice(0, maxLines).forEach((info, idx) => {
      const ev = senteView(info);
      const moves = pvNotation(base, info.pv || [], info.pv_ja);
      const li = el('li', { class: 'pv', 'data-multipv': String(info.multipv || idx + 1),
        'data-node': String(info.node), 'data-depth': String(info.depth || 0), 'data-source': info.source },
        el('span', { class: `score ${ev.cp > 0 || ev.mate > 0 ? 'plus' : (ev.cp < 0 || ev.mate < 0 ? 'minus' : '')}`,
          text: scoreText(ev) + (info.bound === 'lower' ? '↑' : info.bound === 'upper' ? '↓' : '') }));
      const mv = el('span', { class: 'pv-moves' });
      moves.forEach((m, i) => {
        mv.append(el('button', { type: 'button', class: 'pv-move', 'data-pv': `${idx}:${i}`, 'data-usi': info.pv[i],
          onclick: () => showPreview(info.pv.slice(0, i + 1)) }, m), ' ');
      });
      li.append(mv);
      list.append(li);
    });
    if (!lines.length) {
      list.append(el('li', { class: 'pv empty', text: S.analysis.on ? t('searching') : '' }));
    }
    $('mate-result').textContent = mateView ? mateView.text : '';
    $('mate-result').hidden = !mateView;
  }

  function showPreview(moves) {
    let pos = { board: S.board, hands: S.hands, side: S.side_to_move, lastMove: S.last_move };
    for (const m of moves) pos = applyUsi(pos, m);
    preview = { pos, moves };
    selected = null;
    renderBoard();
  }

  function currentEval() {
    if (live.node === S.cursor && live.lines[0]) return senteView(live.lines[0]);
    const e = S.evals && S.evals[S.ply];
    return e || null;
  }

  function renderEval() {
    const ev = currentEval();
    let win = ev && ev.win !== null && ev.win !== undefined ? ev.win : 0.5;
    if (ev && (ev.win === null || ev.win === undefined)) {
      if (ev.mate) win = ev.mate > 0 ? 1 : 0;
      else if (ev.cp !== null) win = 1 / (1 + Math.exp(-ev.cp / 300));
    }
    // The bar fills from sente's edge of the board (the bottom unless flipped).
    const fill = $('evalbar-fill');
    fill.style.height = `${(win * 100).toFixed(1)}%`;
    $('evalbar').classList.toggle('flipped', flipped);
    $('evalbar-text').textContent = ev ? scoreText(ev) : '';
    $('evalbar').title = ev ? `${scoreText(ev)} · ${(win * 100).toFixed(0)}%` : '';
  }

  function renderGraph() {
    const svg = $('graph');
    const W = 400;
    const H = 120;
    const n = Math.max(S.line.length, 10);
    const x = (ply) => (ply / n) * (W - 8) + 4;
    const y = (w) => H - 6 - w * (H - 12);
    const pts = [];
    const evals = (S.evals || []).slice();
    const cur = currentEval();
    if (cur && cur.win !== null && cur.win !== undefined) evals[S.ply] = cur;
    for (let i = 0; i <= S.line.length; i++) {
      const e = evals[i];
      if (e && e.win !== null && e.win !== undefined) pts.push([i, e.win]);
    }
    const NS = 'http://www.w3.org/2000/svg';
    const s = (tag, attrs) => {
      const e = document.createElementNS(NS, tag);
      for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
      return e;
    };
    svg.textContent = '';
    svg.append(s('rect', { x: 0, y: 0, width: W, height: H, class: 'g-bg' }));
    svg.append(s('rect', { x: 0, y: y(0.5), width: W, height: H - y(0.5), class: 'g-lower' }));
    for (const w of [0.25, 0.75]) svg.append(s('line', { x1: 0, x2: W, y1: y(w), y2: y(w), class: 'g-grid' }));
    svg.append(s('line', { x1: 0, x2: W, y1: y(0.5), y2: y(0.5), class: 'g-mid' }));
    if (pts.length) {
      const d = pts.map(([i, w], k) => `${k ? 'L' : 'M'}${x(i).toFixed(1)},${y(w).toFixed(1)}`).join(' ');
      const area = `${d} L${x(pts[pts.length - 1][0]).toFixed(1)},${y(0.5)} L${x(pts[0][0]).toFixed(1)},${y(0.5)} Z`;
      svg.append(s('path', { d: area, class: 'g-area' }));
      svg.append(s('path', { d, class: 'g-line' }));
      for (const [i, w] of pts) svg.append(s('circle', { cx: x(i), cy: y(w), r: i === S.ply ? 3.5 : 1.8, class: i === S.ply ? 'g-dot cur' : 'g-dot' }));
    }
    svg.append(s('line', { x1: x(S.ply), x2: x(S.ply), y1: 0, y2: H, class: 'g-cursor' }));
    $('graph-label').textContent = lang === 'ja' ? '☗先手の勝率' : 'Sente win %';
    svg.onclick = (ev) => {
      const r = svg.getBoundingClientRect();
      const ply = Math.round(((ev.clientX - r.left) / r.width * W - 4) / (W - 8) * n);
      const target = Math.max(0, Math.min(S.line.length, ply));
      if (target !== S.ply) api('POST', '/api/goto', { node: nodeAtPly(target) });
    };
  }

  function renderTools() {
    const out = $('sfen-out');
    if (document.activeElement !== out) out.value = S.sfen;
    for (const f of ['kif', 'kifu', 'csa', 'usi']) {
      const a = $(`save-${f}`);
      a.href = `/api/record?format=${f}&token=${encodeURIComponent(TOKEN)}`;
      a.setAttribute('download', `minishogi.${f}`);
    }
  }

  // ---------------------------------------------------------------- dialogs and tools

  function openNewGame(sfen) {
    if (!S) return;
    const sel = $('ng-engine');
    sel.textContent = '';
    for (const name of S.engines) sel.append(el('option', { value: name, text: name }));
    sel.value = S.engine || S.engines[0];
    if (S.level !== null && S.level !== undefined) $('ng-level').value = S.level;
    if (S.elo_range) {
      $('ng-elo').min = S.elo_range[0];
      $('ng-elo').max = S.elo_range[1];
      if (S.elo) $('ng-elo').value = S.elo;
      else {
        const v = Number($('ng-elo').value);
        if (v < S.elo_range[0] || v > S.elo_range[1]) $('ng-elo').value = Math.round((S.elo_range[0] + S.elo_range[1]) / 2);
      }
    }
    if (sfen !== undefined) $('ng-sfen').value = sfen;
    $('new-dialog').showModal();
  }

  function newGameRequest() {
    const form = $('new-form');
    const side = form.elements.side.value;
    const strength = form.elements.strength.value;
    const timing = form.elements.timing.value;
    const sfen = $('ng-sfen').value.trim();
    const players = {
      sente: { sente: 'human', gote: 'engine' }, gote: { sente: 'engine', gote: 'human' },
      both: { sente: 'human', gote: 'human' }, none: { sente: 'engine', gote: 'engine' },
    }[side];
    const num = (id) => Number($(id).value) || 0;
    return {
      sfen: sfen || null,
      sente: players.sente,
      gote: players.gote,
      engine: $('ng-engine').value || (S && S.engine),
      level: strength === 'level' ? Math.max(0, Math.min(20, Math.round(num('ng-level')))) : null,
      elo: strength === 'elo' ? Math.round(num('ng-elo')) : null,
      clock: timing === 'clock' ? {
        main_ms: Math.round(num('ng-main') * 60000),
        byoyomi_ms: Math.round(num('ng-byoyomi') * 1000),
        increment_ms: Math.round(num('ng-inc') * 1000),
      } : null,
      movetime_ms: timing === 'movetime' ? Math.max(10, Math.round(num('ng-movetime') * 1000)) : 1000,
    };
  }

  function formatForFile(name) {
    const lower = name.toLowerCase();
    if (lower.endsWith('.kif')) return 'kif';
    if (lower.endsWith('.kifu')) return 'kifu';
    if (lower.endsWith('.csa')) return 'csa';
    return 'auto';
  }

  async function openFile(file) {
    const bytes = await file.arrayBuffer();
    await api('POST', `/api/record?format=${formatForFile(file.name)}`, bytes, true);
  }

  async function copySfen() {
    const text = $('sfen-out').value;
    try {
      await navigator.clipboard.writeText(text);
    } catch (_) {
      $('sfen-out').select();
      document.execCommand('copy');
    }
    const b = $('btn-copy');
    b.textContent = t('copied');
    setTimeout(() => { b.textContent = t('copy'); }, 1200);
  }

  // ---------------------------------------------------------------- wiring

  function setup() {
    buildBoard();
    $('board').addEventListener('click', (ev) => {
      if (suppressClick) return;
      const sq = ev.target.closest('[data-square]');
      if (sq) onSquare(sq.dataset.square);
    });
    for (const id of ['hand-top', 'hand-bottom']) {
      $(id).addEventListener('click', (ev) => {
        if (suppressClick) return;
        const h = ev.target.closest('[data-hand]');
        if (h) { const [c, k] = h.dataset.hand.split('-'); onHand(c, k); }
      });
    }
    setupDrag();
    $('btn-flip').addEventListener('click', () => { flipped = !flipped; buildBoard(); render(); });
    $('btn-lang').addEventListener('click', () => {
      lang = lang === 'ja' ? 'en' : 'ja';
      try { localStorage.setItem('minishogi-lang', lang); } catch (_) { /* ignore */ }
      buildBoard();
      render();
    });
    $('btn-new').addEventListener('click', () => openNewGame());
    $('btn-undo').addEventListener('click', () => api('POST', '/api/undo', {}));
    $('btn-resign').addEventListener('click', () => api('POST', '/api/resign', {}));
    $('error-close').addEventListener('click', () => { $('error').hidden = true; });
    $('ng-cancel').addEventListener('click', () => $('new-dialog').close());
    $('new-form').addEventListener('submit', (ev) => {
      ev.preventDefault();
      const req = newGameRequest();
      $('new-dialog').close();
      api('POST', '/api/new', req);
    });
    document.querySelectorAll('[data-nav]').forEach((b) => b.addEventListener('click', () => navigate(b.dataset.nav)));
    $('moves').addEventListener('click', (ev) => {
      const v = ev.target.closest('[data-var-node]');
      const m = ev.target.closest('[data-node]');
      const g = ev.target.closest('[data-goto]');
      const node = v ? v.dataset.varNode : m ? m.dataset.node : g ? g.dataset.goto : null;
      if (node !== null) { preview = null; api('POST', '/api/goto', { node: Number(node) }); }
    });
    document.addEventListener('keydown', (ev) => {
      const tag = (ev.target.tagName || '').toLowerCase();
      if (tag === 'input' || tag === 'textarea' || tag === 'select' || document.querySelector('dialog[open]')) return;
      const map = { ArrowLeft: 'back', ArrowRight: 'forward', Home: 'first', End: 'last' };
      if (map[ev.key]) { ev.preventDefault(); navigate(map[ev.key]); }
      else if (ev.key === 'Escape') { selected = null; preview = null; if (S) renderBoard(); }
    });
    $('btn-analysis').addEventListener('click', () => {
      if (!S) return;
      api('POST', '/api/analysis', { on: !S.analysis.on, multipv: Number($('multipv').value) });
    });
    $('multipv').addEventListener('change', () => {
      if (!S) return;
      live.lines = [];
      live.source = null;
      api('POST', '/api/analysis', { on: S.analysis.on, multipv: Number($('multipv').value) });
    });
    $('btn-mate').addEventListener('click', async () => {
      if (!S) return;
      mateView = { node: S.cursor, text: t('searching'), pv: [] };
      renderAnalysis();
      const r = await api('POST', '/api/mate', { movetime_ms: 5000 });
      if (!r && mateView && mateView.text === t('searching')) { mateView = null; renderAnalysis(); }
    });
    $('preview-exit').addEventListener('click', () => { preview = null; renderBoard(); });
    $('file-input').addEventListener('change', async (ev) => {
      const f = ev.target.files && ev.target.files[0];
      if (f) await openFile(f);
      ev.target.value = '';
    });
    $('btn-paste').addEventListener('click', async () => {
      const text = $('paste-text').value;
      if (!text.trim()) return;
      const r = await api('POST', '/api/record?format=auto', new TextEncoder().encode(text), true);
      if (r) $('paste-text').value = '';
    });
    $('btn-copy').addEventListener('click', copySfen);
    $('btn-sfen').addEventListener('click', () => openNewGame($('sfen-in').value.trim() || (S ? S.sfen : '')));
    setInterval(() => { if (S && S.clock && S.clock.running) renderClocks(); }, 100);
    // While the engine is to move, make sure now and then that no state was missed.
    setInterval(async () => {
      if (!S || !S.thinking || Date.now() - lastStateAt < 2500 || document.hidden) return;
      const seq = streamedStates;
      const res = await fetch('/api/state', { headers: { 'X-Token': TOKEN } }).catch(() => null);
      if (!res || !res.ok) return;
      const fresh = await res.json().catch(() => null);
      if (fresh && seq === streamedStates) setState(fresh);
    }, 1000);
  }

  async function start() {
    setup();
    const s = await api('GET', '/api/state');
    if (!s) showError('no state from the server');
    connectEvents();
  }

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
})();

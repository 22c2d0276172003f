// The page's words in Japanese and English, the language chosen, and the result in words.
import { recall, remember } from './prefs.js';

export const TEXT = {
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
    resignQ: '投了しますか？', presets: '定番',
    preset1s: '1手1秒', preset5s: '1手5秒', preset3p2: '3分+2秒加算', preset5b10: '5分+秒読み10秒',
    preset10b30: '10分+秒読み30秒', preset5sd: '5分切れ負け',
    piecesKanji: '駒: 漢字', piecesLetters: '駒: 英字', piecesTitle: '駒の文字（漢字／英字）',
    soundOn: '音: 入', soundOff: '音: 切', soundTitle: '相手の指し手の音',
    noHand: '持駒なし', winGraph: '☗先手の勝率', plies: (n) => `${n}手`, mated: (winner) => (winner === 'sente' ? '☗詰み' : '☖詰み'),
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
    resignQ: 'Resign?', presets: 'Presets',
    preset1s: '1 s a move', preset5s: '5 s a move', preset3p2: '3 min + 2 s', preset5b10: '5 min + 10 s byoyomi',
    preset10b30: '10 min + 30 s byoyomi', preset5sd: '5 min sudden death',
    piecesKanji: 'Pieces: kanji', piecesLetters: 'Pieces: letters', piecesTitle: 'Piece set (kanji / letters)',
    soundOn: 'Sound: on', soundOff: 'Sound: off', soundTitle: "The opponent's moves heard",
    noHand: 'no pieces in hand', winGraph: 'Sente win %', plies: (n) => (n === 1 ? '1 ply' : `${n} plies`), mated: (winner) => (winner === 'sente' ? '☗ mates' : '☖ mates'),
    wins: (side) => `${side === 'sente' ? 'Sente' : 'Gote'} wins`,
    draw: 'Draw',
    reasons: {
      checkmate: 'by checkmate', 'no legal move': '(no legal move)', 'fourfold repetition': 'by fourfold repetition',
      'perpetual check': 'by perpetual check', resignation: 'by resignation', time: 'on time', 'ply limit': '(ply limit)',
    },
  },
};

function initialLang() {
  const saved = recall('lang');
  if (saved === 'ja' || saved === 'en') return saved;
  return (navigator.language || 'en').toLowerCase().startsWith('ja') ? 'ja' : 'en';
}

export let lang = initialLang();

export function setLang(next) {
  lang = next;
  remember('lang', lang);
}

export const t = (key) => TEXT[lang][key] ?? TEXT.en[key] ?? key;

// A State's `result` in words, e.g. "Sente wins by checkmate".
export function resultText(result) {
  if (!result) return '';
  const reason = TEXT[lang].reasons[result.reason] || result.reason;
  if (!result.winner) return lang === 'ja' ? `${t('draw')}（${reason}）` : `${t('draw')} ${reason}`;
  return lang === 'ja' ? `${t('wins')(result.winner)}（${reason}）` : `${t('wins')(result.winner)} ${reason}`;
}

// The review and the position editor (review.js, editor.js).
Object.assign(TEXT.ja, {
  reviewHead: '棋譜解析', review: '解析する', reviewing: '解析中…',
  reviewTitle: 'エンジンが全局面を読み、各手の損失・疑問手・正確度を示します',
  reviewAfterGame: '対局が終わってから解析できます',
  reviewProgress: (n, total) => `${n} / ${total} 局面`,
  accuracy: '正確度', better: '最善', prevMistake: '◀ 前の問題手', nextMistake: '次の問題手 ▶',
  markNames: {
    inaccuracy: '疑問手', mistake: '悪手', blunder: '大悪手', missed_mate: '詰み逃し', allowed_mate: '頓死',
  },
  editPosition: '局面編集', editHint: '駒を選んでマスをクリック（同じ駒・右クリックで消去）',
  toMoveLabel: '手番', editClear: '盤面クリア', editStart: '平手初期配置', editCurrent: '現在の局面',
  editAnalyse: 'この局面を検討', close: '閉じる', erase: '消去',
  kindNames: { K: '玉', R: '飛車', B: '角', G: '金', S: '銀', P: '歩' },
  setupProblems: {
    king_count: (p) => (p.count ? `${p.side}の玉が${p.count}枚あります` : `${p.side}の玉がありません`),
    too_many: (p) => `${p.kind}が${p.count}枚あります（最大2枚）`,
    pawn_last_rank: (p) => `${p.file}筋の${p.side}の歩は動けません（行き所のない駒）`,
    two_pawns: (p) => `二歩: ${p.side}の歩が${p.file}筋に2枚あります`,
    not_to_move_in_check: (p) => `手番でない${p.side}に王手がかかっています`,
  },
});
Object.assign(TEXT.en, {
  reviewHead: 'Review', review: 'Review', reviewing: 'Reviewing…',
  reviewTitle: "The engine reads every position: each move's loss, its mark, each side's accuracy",
  reviewAfterGame: 'A game against the engine is reviewed once it is over',
  reviewProgress: (n, total) => `${n} of ${total} positions`,
  accuracy: 'Accuracy', better: 'Better', prevMistake: '◀ Previous mistake', nextMistake: 'Next mistake ▶',
  markNames: {
    inaccuracy: 'Inaccuracy', mistake: 'Mistake', blunder: 'Blunder', missed_mate: 'Missed mate', allowed_mate: 'Allowed mate',
  },
  editPosition: 'Edit position', editHint: 'Choose a piece, then click squares (the same piece or a right click removes it)',
  toMoveLabel: 'To move', editClear: 'Clear board', editStart: 'Start position', editCurrent: 'Current position',
  editAnalyse: 'Analyse it', close: 'Close', erase: 'Remove',
  kindNames: { K: 'kings', R: 'rooks', B: 'bishops', G: 'golds', S: 'silvers', P: 'pawns' },
  setupProblems: {
    king_count: (p) => (p.count ? `${p.side} has ${p.count} kings` : `${p.side} has no king`),
    too_many: (p) => `${p.count} ${p.kind}: the game has 2`,
    pawn_last_rank: (p) => `${p.side}'s pawn on file ${p.file} could never move`,
    two_pawns: (p) => `Two pawns of ${p.side} on file ${p.file} (nifu)`,
    not_to_move_in_check: (p) => `${p.side}, not to move, is in check`,
  },
});

// Puzzle mode's words (puzzles.js).
Object.assign(TEXT.ja, {
  puzzles: 'パズル', theme: 'テーマ', difficulty: '難易度', allThemes: 'すべてのテーマ', allLevels: 'すべての難易度',
  hint: 'ヒント', showSolution: '解答を見る', retry: 'もう一度', next: '次の問題',
  puzzleProgress: (solved, failed, all) => `正解 ${solved} · 不正解 ${failed} · 全${all}問`,
  puzzleNone: '条件に合う問題がありません', puzzleLoading: '問題を読み込み中…',
  puzzleFind: (mark) => `あなたの番です — ${mark}の最善手を見つけてください。`,
  puzzleRight: '正解！', puzzleSolved: '正解！解けました。', puzzleWrong: '不正解です。',
  puzzleGaveUp: '解答を表示しました。', puzzleSolution: '解答',
  puzzleHintMove: 'ヒント: 印の駒を動かします。', puzzleHintDrop: 'ヒント: 印の持ち駒を打ちます。',
});
Object.assign(TEXT.en, {
  puzzles: 'Puzzles', theme: 'Theme', difficulty: 'Difficulty', allThemes: 'All themes', allLevels: 'All levels',
  hint: 'Hint', showSolution: 'Show solution', retry: 'Retry', next: 'Next',
  puzzleProgress: (solved, failed, all) => `Solved ${solved} · Failed ${failed} · ${all} puzzles`,
  puzzleNone: 'No puzzle matches these filters', puzzleLoading: 'Loading the puzzles…',
  puzzleFind: (mark) => `Your turn — find the best move for ${mark}.`,
  puzzleRight: 'Right!', puzzleSolved: 'Solved!', puzzleWrong: 'That is not the move.',
  puzzleGaveUp: 'The solution is shown.', puzzleSolution: 'Solution',
  puzzleHintMove: 'Hint: move the marked piece.', puzzleHintDrop: 'Hint: drop the marked piece.',
});

const THEMES = {
  ja: { tsume: '王手のみ', drop: '駒打ち', promotion: '成り', sacrifice: '捨て駒', advantage: '優勢', mate: '詰み', fork: '両取り', pin: 'ピン' },
  en: { tsume: 'Checks only', drop: 'Drop', promotion: 'Promotion', sacrifice: 'Sacrifice', advantage: 'Advantage', mate: 'Mate', fork: 'Fork', pin: 'Pin' },
};

// A puzzle theme (a camelCase word of the puzzle file) in words: "mateIn2" is 3手詰 / Mate in 2.
export function themeName(name) {
  const mate = /^mateIn(\d+)$/.exec(name);
  if (mate) return lang === 'ja' ? `${2 * Number(mate[1]) - 1}手詰` : `Mate in ${mate[1]}`;
  return THEMES[lang][name] ?? name.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
}

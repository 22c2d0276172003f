// The status line (whose turn, check, the result, thinking), the toolbar's buttons as the
// state allows them, and the page's fixed labels in the chosen language.
import { $ } from './dom.js';
import { lang, t, resultText } from './labels.js';
import { page } from './state.js';
import { isMuted } from './sound.js';

export function renderStatus() {
  const s = page.state;
  const side = s.side_to_move;
  const mark = side === 'sente' ? '☗' : '☖';
  let turn = '';
  if (!s.result && s.legal_moves.length) {
    turn = `${mark}${t(side)}${t('toMove')}`;
    if (s.in_check) turn += ` · ${t('check')}`;
  }
  $('turn').textContent = turn;
  $('result').textContent = resultText(s.result);
  $('result').classList.toggle('shown', !!s.result);
  $('thinking').hidden = !s.thinking;
  $('btn-undo').disabled = s.ply === 0 && s.line.length === 0;
  $('btn-resign').disabled = !!s.result || (s.players.sente !== 'human' && s.players.gote !== 'human');
  $('multipv').value = String(s.analysis.multipv || 1);
  document.documentElement.lang = lang;
  $('btn-lang').textContent = t('langButton');
  for (const e of document.querySelectorAll('[data-i18n]')) e.textContent = t(e.dataset.i18n);
  for (const e of document.querySelectorAll('[data-i18n-ph]')) e.placeholder = t(e.dataset.i18nPh);
  // After the labels: the analysis button's label says what a click does.
  $('btn-analysis').textContent = s.analysis.on ? t('stopAnalysis') : t('analyze');
  $('btn-analysis').classList.toggle('active', s.analysis.on);
  // The toggles say what is on now; a click turns it the other way.
  const letters = page.pieceSet === 'letters';
  $('btn-pieces').textContent = t(letters ? 'piecesLetters' : 'piecesKanji');
  $('btn-pieces').setAttribute('aria-pressed', String(letters));
  $('btn-pieces').title = t('piecesTitle');
  $('btn-sound').textContent = t(isMuted() ? 'soundOff' : 'soundOn');
  $('btn-sound').setAttribute('aria-pressed', String(!isMuted()));
  $('btn-sound').title = t('soundTitle');
}

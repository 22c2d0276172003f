// Whether this browser has a font for the pieces' kanji. Without a Japanese font Chromium and
// Safari draw every missing character as the same box, so the pieces would be nine identical
// boxes: then the board starts in letters. (Firefox draws each missing character as a box
// holding its code point; there the kanji, being told apart, stay the default.)

const SIZE = 48;

// Whether `chars`, drawn in `font` (a CSS font-family list), are not all the same picture.
// Where a canvas cannot be had, it answers true: the kanji, as before the check existed.
export function drawsDistinct(chars, font) {
  const canvas = document.createElement('canvas');
  canvas.width = SIZE;
  canvas.height = SIZE;
  const ctx = canvas.getContext('2d', { willReadFrequently: true });
  if (!ctx) return true;
  ctx.font = `${SIZE * 0.8}px ${font}`;
  ctx.textAlign = 'center';
  ctx.textBaseline = 'middle';
  let first = null;
  for (const ch of chars) {
    ctx.clearRect(0, 0, SIZE, SIZE);
    ctx.fillText(ch, SIZE / 2, SIZE / 2);
    const pixels = ctx.getImageData(0, 0, SIZE, SIZE).data;
    if (first === null) first = pixels;
    else if (!samePixels(first, pixels)) return true;
  }
  return false;
}

function samePixels(a, b) {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

// The piece set a first visit starts with: kanji where the piece font draws them.
export function defaultPieceSet() {
  const font = getComputedStyle(document.documentElement).getPropertyValue('--font-piece').trim();
  return drawsDistinct(['玉', '飛', '角', '金', '銀', '歩'], font || 'serif') ? 'kanji' : 'letters';
}

/**
 * Makes a CID-keyed CFF font (an OpenType font with a `CFF ` table, such as Noto Sans CJK) address its glyphs by glyph
 * id. A PDF's CIDFontType0 finds a glyph through the font's charset (CID -> glyph), while pdf-lib writes glyph ids; the
 * original Noto Sans Hans/Hant and HarfBuzz's subsets of them keep their original CIDs, so viewers that honour the
 * charset (pdf.js, Poppler) would draw the wrong glyphs. Rewriting the charset as the identity (glyph n is CID n) in
 * place fixes that; it never needs more bytes than the charset it replaces, so no offset moves.
 */

const tag = (b: Uint8Array, at: number) => String.fromCharCode(b[at], b[at + 1], b[at + 2], b[at + 3]);

/** The bytes of a CFF INDEX at `at`: its item count and where it ends. */
function index(b: DataView, at: number): { count: number; items: Array<[number, number]>; end: number } {
  const count = b.getUint16(at);
  if (count === 0) return { count, items: [], end: at + 2 };
  const offSize = b.getUint8(at + 2);
  const offset = (i: number) => {
    let v = 0;
    for (let k = 0; k < offSize; k++) v = v * 256 + b.getUint8(at + 3 + i * offSize + k);
    return v;
  };
  const base = at + 3 + (count + 1) * offSize - 1;
  const items: Array<[number, number]> = [];
  for (let i = 0; i < count; i++) items.push([base + offset(i), base + offset(i + 1)]);
  return { count, items, end: base + offset(count) };
}

/** A CFF DICT's operators and their operands (numbers; reals read roughly, as none is needed here). */
function dict(b: DataView, start: number, end: number): Map<number, number[]> {
  const out = new Map<number, number[]>();
  let operands: number[] = [];
  let i = start;
  while (i < end) {
    const b0 = b.getUint8(i);
    if (b0 <= 21) {
      const op = b0 === 12 ? 1200 + b.getUint8(i + 1) : b0;
      i += b0 === 12 ? 2 : 1;
      out.set(op, operands);
      operands = [];
    } else if (b0 === 28) {
      operands.push(b.getInt16(i + 1));
      i += 3;
    } else if (b0 === 29) {
      operands.push(b.getInt32(i + 1));
      i += 5;
    } else if (b0 === 30) {
      i += 1;
      while (i < end && (b.getUint8(i) & 0x0f) !== 0x0f && (b.getUint8(i) & 0xf0) !== 0xf0) i += 1;
      i += 1;
      operands.push(0);
    } else if (b0 >= 32 && b0 <= 246) {
      operands.push(b0 - 139);
      i += 1;
    } else if (b0 >= 247 && b0 <= 250) {
      operands.push((b0 - 247) * 256 + b.getUint8(i + 1) + 108);
      i += 2;
    } else if (b0 >= 251 && b0 <= 254) {
      operands.push(-(b0 - 251) * 256 - b.getUint8(i + 1) - 108);
      i += 2;
    } else throw new Error(`CFF: bad DICT byte ${b0}`);
  }
  return out;
}

/** Write the identity charset over the CFF charset at `at` (same format, never longer). */
function identityCharset(b: DataView, at: number, glyphs: number): void {
  const format = b.getUint8(at);
  const n = glyphs - 1; // .notdef has no charset entry
  if (format === 0) {
    for (let g = 1; g <= n; g++) b.setUint16(at + 1 + (g - 1) * 2, g);
  } else if (format === 1) {
    let p = at + 1;
    for (let first = 1; first <= n; first += 256) {
      b.setUint16(p, first);
      b.setUint8(p + 2, Math.min(255, n - first));
      p += 3;
    }
  } else if (format === 2) {
    if (n > 0) {
      b.setUint16(at + 1, 1);
      b.setUint16(at + 3, n - 1);
    }
  } else throw new Error(`CFF: unknown charset format ${format}`);
}

const checksum = (b: DataView, at: number, length: number) => {
  let sum = 0;
  for (let i = 0; i < length; i += 4) {
    let word = 0;
    for (let k = 0; k < 4; k++) word = word * 256 + (i + k < length ? b.getUint8(at + i + k) : 0);
    sum = (sum + word) >>> 0;
  }
  return sum;
};

/**
 * The OpenType font with its CID-keyed CFF charset made the identity (a copy; TrueType fonts and name-keyed CFF are
 * returned unchanged). Table and font checksums are brought up to date.
 */
export function cffGlyphIdsAsCids(font: Uint8Array): Uint8Array {
  if (tag(font, 0) !== 'OTTO') return font;
  const out = new Uint8Array(font);
  const v = new DataView(out.buffer, out.byteOffset, out.byteLength);
  const tables = new Map<string, { record: number; offset: number; length: number }>();
  for (let i = 0, n = v.getUint16(4); i < n; i++) {
    const record = 12 + i * 16;
    tables.set(tag(out, record), { record, offset: v.getUint32(record + 8), length: v.getUint32(record + 12) });
  }
  const cff = tables.get('CFF ');
  if (!cff) return font;
  const c = new DataView(out.buffer, out.byteOffset + cff.offset, cff.length);
  const names = index(c, c.getUint8(2));
  const tops = index(c, names.end);
  const top = dict(c, tops.items[0][0], tops.items[0][1]);
  if (!top.has(1230)) return font; // no ROS: a name-keyed font, whose glyphs the PDF finds by glyph id already
  const glyphs = index(c, top.get(17)![0]).count;
  identityCharset(c, top.get(15)![0], glyphs);
  v.setUint32(cff.record + 4, checksum(v, cff.offset, cff.length));
  const head = tables.get('head');
  if (head) {
    v.setUint32(head.offset + 8, 0);
    v.setUint32(head.record + 4, checksum(v, head.offset, head.length));
    v.setUint32(head.offset + 8, (0xb1b0afba - checksum(v, 0, out.byteLength)) >>> 0);
  }
  return out;
}

/**
 * Text in every language of the console for the server's PDFs (invoices, diagnose reports). Noto Sans draws Latin
 * text, € and the like; Noto Sans Hans (zh-CN) or Hant (zh-TW) draws Chinese and what Noto Sans lacks (→), the other
 * Chinese font being the last resort. A PDF embeds only the glyphs it prints: the font files are read on the first PDF
 * and kept in memory, and each PDF's text is cut out of them by HarfBuzz (subset-font) and embedded by pdf-lib as it
 * is, not through pdf-lib's own subsetter, which breaks CID-keyed CFF and some TrueType fonts (docs/decisions.md).
 *
 * Text is measured at once (for alignment and wrapping) and drawn in `finish`, when every character is known.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type * as Fontkit from '@pdf-lib/fontkit';
import { PDFArray, PDFDict, PDFName, PDFRef, PDFStream, rgb, type Color, type PDFDocument, type PDFFont, type PDFPage } from 'pdf-lib';
import type { Language } from '../../common/limits.js';
import { cffGlyphIdsAsCids } from './cff-identity.js';

type Family = 'latin' | 'sc' | 'tc';
type Weight = 'regular' | 'bold';

const FILES: Record<Family, { pkg: string; regular: string; bold: string }> = {
  latin: { pkg: '@embedpdf/fonts-latin', regular: 'NotoSans-Regular.ttf', bold: 'NotoSans-Bold.ttf' },
  sc: { pkg: '@embedpdf/fonts-sc', regular: 'NotoSansHans-Regular.otf', bold: 'NotoSansHans-Bold.otf' },
  tc: { pkg: '@embedpdf/fonts-tc', regular: 'NotoSansHant-Regular.otf', bold: 'NotoSansHant-Bold.otf' },
};

/** Which font draws a character: the first of these that has it. */
const ORDER: Record<Language, Family[]> = {
  'en-US': ['latin', 'sc', 'tc'],
  'es-ES': ['latin', 'sc', 'tc'],
  'zh-CN': ['latin', 'sc', 'tc'],
  'zh-TW': ['latin', 'tc', 'sc'],
};

interface Face {
  bytes: Uint8Array;
  font: Fontkit.Font;
}

const require = createRequire(import.meta.url);
const loaded = new Map<string, Promise<Face>>();

// The font engines load with the first PDF, not with the server (fontkit alone takes about half a second).
let engines: Promise<{ fontkit: typeof Fontkit; subsetFont: typeof import('subset-font').default }> | undefined;
const loadEngines = () =>
  (engines ??= Promise.all([import('@pdf-lib/fontkit'), import('subset-font')]).then(([fk, sf]) => ({ fontkit: fk.default, subsetFont: sf.default })));

/** A font file read and parsed once per process, on first use. */
function face(family: Family, weight: Weight): Promise<Face> {
  const key = `${family}-${weight}`;
  let f = loaded.get(key);
  if (!f) {
    const { pkg, [weight]: file } = FILES[family];
    // The packages export no file paths: the fonts sit in fonts/ beside their dist/.
    const path = join(dirname(require.resolve(pkg)), '..', 'fonts', file);
    f = Promise.all([readFile(path), loadEngines()]).then(([bytes, { fontkit }]) => ({ bytes, font: fontkit.create(bytes) }));
    f.catch(() => loaded.delete(key));
    loaded.set(key, f);
  }
  return f;
}

interface Run {
  family: Family;
  text: string;
  /** Advance at size 1. */
  width: number;
}

interface Pending {
  page: PDFPage;
  x: number;
  y: number;
  size: number;
  weight: Weight;
  color: Color;
  runs: Run[];
}

export interface TextStyle {
  size: number;
  bold?: boolean;
  color?: Color;
}

// Where a line may break in Chinese text, and the punctuation that must not start a line.
const CJK = /[\u2e80-\u9fff\uf900-\ufaff\u3000-\u303f\uff00-\uffef]/u;
const NO_LINE_START = /^[，。、；：？！）」』】》,.;:?!)]/u;

/** Measures text, splits it between the fonts and draws it when the PDF's characters are all known. */
export class PdfText {
  private readonly pending: Pending[] = [];

  private constructor(
    private readonly order: Family[],
    private readonly faces: Map<string, Face>,
  ) {}

  /** The fonts for a PDF in this language (read from disk on the first PDF only). */
  static async create(lang: Language): Promise<PdfText> {
    const order = ORDER[lang];
    const faces = await Promise.all(order.flatMap((f) => (['regular', 'bold'] as const).map(async (w) => [`${f}-${w}`, await face(f, w)] as const)));
    return new PdfText(order, new Map(faces));
  }

  private face(family: Family, weight: Weight): Face {
    return this.faces.get(`${family}-${weight}`)!;
  }

  /** The text cut into runs of one font each; a character no font has prints as "?". */
  private runs(text: string, weight: Weight): Run[] {
    const runs: Run[] = [];
    for (const ch of text) {
      const cp = ch.codePointAt(0)!;
      const same = runs.at(-1);
      // Spaces stay in the current run, so a Chinese run is not broken by each space.
      if (same && /\s/u.test(ch) && this.face(same.family, weight).font.hasGlyphForCodePoint(cp)) {
        same.text += ch;
        continue;
      }
      const family = this.order.find((f) => this.face(f, 'regular').font.hasGlyphForCodePoint(cp) && this.face(f, weight).font.hasGlyphForCodePoint(cp));
      const [fam, c] = family ? [family, ch] : (['latin', '?'] as const);
      if (same?.family === fam) same.text += c;
      else runs.push({ family: fam, text: c, width: 0 });
    }
    for (const r of runs) {
      const { font } = this.face(r.family, weight);
      r.width = font.layout(r.text).glyphs.reduce((sum, g) => sum + g.advanceWidth, 0) / font.unitsPerEm;
    }
    return runs;
  }

  /** The width of the text at this size. */
  width(text: string, size: number, bold = false): number {
    return this.runs(text, bold ? 'bold' : 'regular').reduce((sum, r) => sum + r.width, 0) * size;
  }

  /** Draw the text with its baseline's left end at (x, y). */
  draw(page: PDFPage, text: string, x: number, y: number, style: TextStyle): void {
    const weight: Weight = style.bold ? 'bold' : 'regular';
    this.pending.push({ page, x, y, size: style.size, weight, color: style.color ?? rgb(0.1, 0.1, 0.1), runs: this.runs(text, weight) });
  }

  /** The text broken into lines no wider than width: at spaces, and between Chinese characters. */
  wrap(text: string, size: number, width: number, bold = false): string[] {
    const tokens = text.match(new RegExp(`${CJK.source}|[^\\s${CJK.source.slice(1, -1)}]+|\\s+`, 'gu')) ?? [];
    const lines: string[] = [];
    let line = '';
    for (const token of tokens) {
      if (/^\s+$/u.test(token)) {
        if (line) line += ' ';
        continue;
      }
      const next = line + token;
      if (line.trim() && !NO_LINE_START.test(token) && this.width(next.trimEnd(), size, bold) > width) {
        lines.push(line.trimEnd());
        line = token;
      } else line = next;
    }
    if (line.trim()) lines.push(line.trimEnd());
    return lines;
  }

  /** Embed each font cut to the characters drawn with it, and draw the text. */
  async finish(doc: PDFDocument): Promise<void> {
    const chars = new Map<string, Set<string>>();
    for (const p of this.pending) {
      for (const r of p.runs) {
        const key = `${r.family}-${p.weight}`;
        const set = chars.get(key) ?? new Set<string>();
        for (const ch of r.text) set.add(ch);
        chars.set(key, set);
      }
    }
    const { fontkit, subsetFont } = await loadEngines();
    doc.registerFontkit(fontkit);
    const fonts = new Map<string, PDFFont>();
    for (const [key, set] of chars) {
      const subset = await subsetFont(this.faces.get(key)!.bytes, [...set].join(''), { targetFormat: 'sfnt' });
      fonts.set(key, await doc.embedFont(cffGlyphIdsAsCids(subset)));
    }
    for (const p of this.pending) {
      let x = p.x;
      for (const r of p.runs) {
        p.page.drawText(r.text, { x, y: p.y, size: p.size, font: fonts.get(`${r.family}-${p.weight}`)!, color: p.color });
        x += r.width * p.size;
      }
    }
    this.pending.length = 0;
    // pdf-lib declares every font it embeds whole as TrueType (it only notices CFF in its own subsets): the Chinese
    // fonts are OpenType with CFF outlines, which a PDF names CIDFontType0 with a FontFile3 of subtype OpenType.
    await doc.flush();
    for (const [key, font] of fonts) {
      if (key.startsWith('latin-')) continue;
      const cid = doc.context.lookup(font.ref, PDFDict).lookup(PDFName.of('DescendantFonts'), PDFArray).lookup(0, PDFDict);
      cid.set(PDFName.of('Subtype'), PDFName.of('CIDFontType0'));
      cid.delete(PDFName.of('CIDToGIDMap'));
      const descriptor = cid.lookup(PDFName.of('FontDescriptor'), PDFDict);
      const file = descriptor.get(PDFName.of('FontFile2'));
      if (!(file instanceof PDFRef)) continue;
      descriptor.delete(PDFName.of('FontFile2'));
      descriptor.set(PDFName.of('FontFile3'), file);
      doc.context.lookup(file, PDFStream).dict.set(PDFName.of('Subtype'), PDFName.of('OpenType'));
    }
  }
}

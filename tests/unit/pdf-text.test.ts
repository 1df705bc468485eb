/** The PDFs' Unicode text: the CID-keyed CFF fix-up of the Chinese fonts, and lines broken between Chinese characters. */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import fontkit from '@pdf-lib/fontkit';
import subsetFont from 'subset-font';
import { describe, expect, it } from 'vitest';
import { cffGlyphIdsAsCids } from '../../server/pdf/cff-identity.js';
import { PdfText } from '../../server/pdf/pdf-text.js';

const HANS = join(dirname(createRequire(import.meta.url).resolve('@embedpdf/fonts-sc')), '..', 'fonts', 'NotoSansHans-Regular.otf');
const SAMPLE = '发票已发布，账期 → €';

/** The CID of each glyph after .notdef, as the font's CFF charset says. */
function cids(font: Uint8Array): number[] {
  const { charset } = (
    fontkit.create(font) as unknown as {
      'CFF ': { topDict: { charset: { version: number; glyphs?: number[]; ranges?: Array<{ first: number; nLeft: number }> } } };
    }
  )['CFF '].topDict;
  if (charset.version === 0) return charset.glyphs!;
  return charset.ranges!.flatMap((r) => Array.from({ length: r.nLeft + 1 }, (_, i) => r.first + i));
}

describe('the Chinese fonts in a PDF', () => {
  it('address every glyph of a subset by its glyph id, as pdf-lib writes them', async () => {
    const subset = await subsetFont(await readFile(HANS), SAMPLE, { targetFormat: 'sfnt' });
    const before = cids(subset);
    // HarfBuzz keeps the original CIDs, which are not the subset's glyph ids.
    expect(before.some((cid, i) => cid !== i + 1)).toBe(true);
    const patched = cffGlyphIdsAsCids(subset);
    const after = cids(patched);
    expect(after.slice(0, before.length)).toEqual(before.map((_, i) => i + 1));
    // The outlines behind each character are untouched.
    const [a, b] = [fontkit.create(subset), fontkit.create(patched)];
    for (const ch of SAMPLE.replace(/\s/g, '')) {
      const [ga, gb] = [a.glyphForCodePoint(ch.codePointAt(0)!), b.glyphForCodePoint(ch.codePointAt(0)!)];
      expect(gb.id).toBe(ga.id);
      expect(gb.path.toSVG()).toBe(ga.path.toSVG());
    }
  });

  it('leaves a TrueType font as it is', async () => {
    const ttf = new Uint8Array([0, 1, 0, 0, 0, 0]);
    expect(cffGlyphIdsAsCids(ttf)).toBe(ttf);
  });
});

describe('lines of a PDF', () => {
  it('break between Chinese characters, never before a comma, and at spaces in Latin text', async () => {
    const text = await PdfText.create('zh-CN');
    const reason = '尚无使用中的套餐；待生效套餐：2 个。待生效套餐在激活时开始，流量已用完。';
    const lines = text.wrap(reason, 10, 120);
    expect(lines.length).toBeGreaterThan(1);
    expect(lines.join('')).toBe(reason);
    for (const line of lines) {
      expect(text.width(line, 10)).toBeLessThanOrEqual(120 + 10);
      expect(line).not.toMatch(/^[，。；：]/);
    }
    const latin = 'The SIM is active: it may pass data.';
    const words = text.wrap(latin, 10, 80);
    expect(words.length).toBeGreaterThan(1);
    expect(words.join(' ')).toBe(latin);
    for (const line of words) expect(text.width(line, 10)).toBeLessThanOrEqual(80);
  });
});

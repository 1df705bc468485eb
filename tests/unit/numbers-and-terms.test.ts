/**
 * Numbers and words the same way on every page of a language: counts formatted by one helper in the interface
 * language, and one term per concept.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { LANGUAGES, type Language } from '../../common/limits.js';
import { formatNumber } from '../../common/numbers.js';

const files = (dir: string, ext: RegExp): string[] =>
  fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? files(path.join(dir, e.name), ext) : ext.test(e.name) ? [path.join(dir, e.name)] : []));

describe('numbers in the interface language', () => {
  it("groups Spanish counts with '.' from four digits up, like five (CLDR alone writes 9997 beside 10.000)", () => {
    expect([9997, 10000, 1234567].map((n) => formatNumber(n, 'es-ES'))).toEqual(['9.997', '10.000', '1.234.567']);
    expect(formatNumber(1234.5, 'es-ES', { style: 'currency', currency: 'EUR' })).toBe('1.234,50\u00a0€');
    expect([9997, 1234567].map((n) => formatNumber(n, 'en-US'))).toEqual(['9,997', '1,234,567']);
    expect(formatNumber(9997, 'zh-CN')).toBe('9,997');
  });

  it('every console file formats numbers with common/numbers.ts, never toLocaleString or its own Intl.NumberFormat', () => {
    const offenders = files('src', /\.tsx?$/).flatMap((file) =>
      fs
        .readFileSync(file, 'utf8')
        .split('\n')
        .map((line, i) => ({ line, at: `${file}:${i + 1}` }))
        .filter(({ line }) => !/^\s*(\*|\/\/)/.test(line) && /\.toLocaleString\(|new Intl\.NumberFormat\(/.test(line))
        .map(({ at }) => at),
    );
    expect(offenders).toEqual([]);
  });

  it("no page hands a formatted figure to antd's Statistic, which regroups it with ','", () => {
    const offenders = files('src', /\.tsx$/).filter(
      (file) => !file.endsWith('text-statistic.tsx') && /<Statistic\b[^>]*\bvalue=\{/.test(fs.readFileSync(file, 'utf8')),
    );
    expect(offenders).toEqual([]);
  });
});

type Tree = { [k: string]: string | Tree };
const LOCALE_DIRS = ['src/locales', 'common/locales', ...files('src/custom', /^en-US\.json$/).map((f) => path.dirname(f))];
const strings = (lang: Language): Array<{ key: string; text: string }> => {
  const out: Array<{ key: string; text: string }> = [];
  const walk = (tree: Tree, prefix: string) => {
    for (const [k, v] of Object.entries(tree)) {
      if (typeof v === 'string') out.push({ key: `${prefix}${k}`, text: v.replace(/\{\{\s*\w+\s*\}\}/g, '') });
      else walk(v, `${prefix}${k}.`);
    }
  };
  for (const dir of LOCALE_DIRS) walk(JSON.parse(fs.readFileSync(path.join(dir, `${lang}.json`), 'utf8')), `${dir}:`);
  return out;
};

/** One term per concept: the term the menu and the field labels use, and the variants that must not appear beside it. */
const GLOSSARY: Array<{ concept: string; keys: string[]; term: Record<Language, RegExp>; variants: Partial<Record<Language, RegExp[]>>; except?: string[] }> = [
  {
    concept: 'shared pool',
    keys: [
      'src/locales:menu.shared',
      'common/locales:entities.pool',
      'common/locales:fields.poolId',
      'common/locales:sims.fields.poolId',
      'src/custom/autoflow/locales:autoflow.scope.fields.poolId',
    ],
    term: { 'en-US': /pool/i, 'zh-CN': /共享池/, 'zh-TW': /共享池/, 'es-ES': /bolsas? compartidas?/i },
    variants: { 'es-ES': [/\bpools?\b/i, /grupos? compartid/i], 'zh-CN': [/流量池/], 'zh-TW': [/流量池/, /共用池/] },
  },
  {
    concept: 'bundle',
    keys: ['common/locales:bundleOrders.fields.name', 'src/locales:simDetail.tabs.bundles'],
    term: { 'en-US': /bundle/i, 'zh-CN': /套餐/, 'zh-TW': /方案/, 'es-ES': /paquete/i },
    // A CDR's plan code is the network's rate plan, not a bundle.
    variants: { 'es-ES': [/\bplan(es)?\b/i, /\bbonos?\b/i], 'zh-CN': [/方案/], 'zh-TW': [/套餐/] },
    except: ['common/locales:cdrs.fields.planCode'],
  },
];

describe.each(LANGUAGES)('one term per concept in %s', (lang) => {
  const all = strings(lang);
  it.each(GLOSSARY.map((g) => [g.concept, g] as const))('%s', (_concept, g) => {
    const text = (key: string) => all.find((s) => s.key === key)?.text ?? `(missing ${key})`;
    expect(g.keys.filter((k) => !g.term[lang].test(text(k))).map((k) => `${k} = ${text(k)}`)).toEqual([]);
    const stray = all.filter((s) => !g.except?.includes(s.key) && (g.variants[lang] ?? []).some((v) => v.test(s.text))).map((s) => `${s.key} = ${s.text}`);
    expect(stray).toEqual([]);
  });
});

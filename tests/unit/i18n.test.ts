import fs from 'node:fs';
import { SERVER_ONLY_NAMESPACES } from '../../common/server-only-words.js';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { LANGUAGES } from '../../common/limits.js';
import { RESOURCES } from '../../common/resource-registry.js';

type Tree = { [k: string]: string | Tree };
const load = (dir: string, lang: string): Tree => JSON.parse(fs.readFileSync(path.join(dir, `${lang}.json`), 'utf8'));
const keys = (tree: Tree, prefix = ''): string[] =>
  Object.entries(tree).flatMap(([k, v]) => (typeof v === 'string' ? [`${prefix}${k}`] : keys(v, `${prefix}${k}.`)));
const valueAt = (tree: Tree, key: string): unknown => key.split('.').reduce<unknown>((n, p) => (n as Tree)?.[p], tree);

/** Every folder of words: the shell's, the shared ones, and each page folder's (src/custom/<feature>/…/en-US.json). */
const wordFolders = (dir: string): string[] =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? wordFolders(path.join(dir, e.name)) : e.name === 'en-US.json' ? [dir] : []));

describe.each(['src/locales', 'common/locales', ...wordFolders('src/custom')])('translations in %s', (dir) => {
  const en = load(dir, 'en-US');
  it.each(LANGUAGES.filter((l) => l !== 'en-US'))('%s has exactly the keys of en-US, none empty', (lang) => {
    const other = load(dir, lang);
    expect(keys(other).sort()).toEqual(keys(en).sort());
    for (const k of keys(other)) expect(String(valueAt(other, k)).trim(), `${lang} ${k}`).not.toBe('');
  });

  it.each(LANGUAGES.filter((l) => l !== 'en-US'))('%s keeps the placeholders of en-US', (lang) => {
    const other = load(dir, lang);
    for (const k of keys(en)) {
      const ph = (s: unknown) => (String(s).match(/\{\{\s*\w+\s*\}\}|<\w+>/g) ?? []).sort();
      expect(ph(valueAt(other, k)), `${lang} ${k}`).toEqual(ph(valueAt(en, k)));
    }
  });
});

describe('no hard-coded user-visible strings in components', () => {
  const files = (dir: string): string[] =>
    fs
      .readdirSync(dir, { withFileTypes: true })
      .flatMap((e) => (e.isDirectory() ? files(path.join(dir, e.name)) : e.name.endsWith('.tsx') ? [path.join(dir, e.name)] : []));

  it.each(files('src'))('%s', (file) => {
    const src = fs.readFileSync(file, 'utf8');
    // Text between JSX tags that holds letters, e.g. <span>Sign out</span> (not code between a `>` and a `<` comparison,
    // such as `x > left + width || y < top`).
    const jsxText = [...src.matchAll(/>\s*([^<>{}\n]*[A-Za-z\u4e00-\u9fff][^<>{}\n]*)\s*</g)]
      .map((m) => m[1].trim())
      // (nor the condition of a ternary the formatter put on the line after an arrow: `=>\n  e.name ? <span>`).
      .filter((s) => s && !/^[\w.]+\)?;?$/.test(s) && !/^[\w.]+ \?$/.test(s) && !/[=;(),:]|\|\||&&/.test(s));
    // Literal strings in props people read.
    const isKey = (v: string) => /^[a-z]+(\.[A-Za-z]+)+$/.test(v);
    const props = [...src.matchAll(/\b(title|placeholder|label|alt|aria-label|okText|cancelText|description|content)="([^"]*[A-Za-z][^"]*)"/g)]
      .filter((m) => !isKey(m[2]))
      .map((m) => `${m[1]}="${m[2]}"`);
    expect([...jsxText, ...props]).toEqual([]);
  });
});

describe('words only the server uses', () => {
  // The console's build leaves these namespaces of common/locales out (scripts/console-locales.ts): a console file that
  // used one would show the key instead of the words.
  const files = (dir: string): string[] =>
    fs
      .readdirSync(dir, { withFileTypes: true })
      .flatMap((e) => (e.isDirectory() ? files(path.join(dir, e.name)) : /\.tsx?$/.test(e.name) ? [path.join(dir, e.name)] : []));
  it.each(SERVER_ONLY_NAMESPACES)('no console file uses %s.*', (namespace) => {
    const users = files('src').filter((file) => new RegExp(`['"\`]${namespace}\\.[A-Za-z]`).test(fs.readFileSync(file, 'utf8')));
    expect(users).toEqual([]);
  });
  it.each(SERVER_ONLY_NAMESPACES)('%s is in common/locales, for the server', (namespace) => {
    expect(typeof load('common/locales', 'en-US')[namespace]).toBe('object');
  });
});

describe('every resource schema has its labels', () => {
  // Their labels are in common/locales: the server names fields and values with them too (server/http/labels.ts).
  const en = load('common/locales', 'en-US');
  it.each(Object.values(RESOURCES).map((r) => [r.$id, r] as const))('%s: each field and each enum value', (_id, r) => {
    const prefix = r['x-admin'].i18n;
    const missing: string[] = [];
    for (const [field, p] of Object.entries(r.properties)) {
      if (typeof valueAt(en, `${prefix}.fields.${field}`) !== 'string') missing.push(`${prefix}.fields.${field}`);
      for (const v of (p.enum as string[] | undefined) ?? [])
        if (typeof valueAt(en, `${prefix}.enum.${field}.${v}`) !== 'string') missing.push(`${prefix}.enum.${field}.${v}`);
    }
    expect(missing).toEqual([]);
  });
});

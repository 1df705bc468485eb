/**
 * No input of the console changes what a person types without saying so: a text field with maxLength cuts what is
 * pasted or typed past it, and antd's InputNumber with min, max or precision clamps or rounds on leaving the field.
 * Limits belong in the form's rules (src/components/form-rules.ts), which keep the value and say the rule in words,
 * with count={{ show: true, max }} for the counter (it turns red instead of cutting, unless exceedFormatter is set).
 * This walks every .tsx/.ts file of src/ with the TypeScript parser and fails on such an attribute.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * Places where the browser itself cannot go past the limit, each with why ("file:element:attribute" → reason).
 * Empty today: every limit of the console is a form rule or a hint under a search box.
 */
const ALLOWED: Record<string, string> = {};

const NUMBER_CLAMPS = new Set(['min', 'max', 'precision']);

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return files(path);
    return /\.tsx?$/.test(e.name) && !e.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The attributes in one file's text that cut, clamp or round what is typed, as "file:line <element attribute>". */
function clampsIn(name: string, text: string): string[] {
  const found: string[] = [];
  const source = ts.createSourceFile(name, text, ts.ScriptTarget.Latest, true, name.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const visit = (node: ts.Node) => {
    if (ts.isJsxOpeningElement(node) || ts.isJsxSelfClosingElement(node)) {
      const element = node.tagName.getText(source);
      const attrs = node.attributes.properties.filter(ts.isJsxAttribute).map((a) => ({ a, key: a.name.getText(source) }));
      const isNumberType = attrs.some(({ key, a }) => key === 'type' && a.initializer?.getText(source).replace(/[{}'"`]/g, '') === 'number');
      for (const { a, key } of attrs) {
        const cuts =
          key === 'maxLength' ||
          (key === 'count' && Boolean(a.initializer?.getText(source).includes('exceedFormatter'))) ||
          ((element === 'InputNumber' || isNumberType) && NUMBER_CLAMPS.has(key));
        if (cuts && !ALLOWED[`${name}:${element}:${key}`])
          found.push(`${name}:${source.getLineAndCharacterOfPosition(a.getStart(source)).line + 1} <${element} ${key}>`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('no input cuts, clamps or rounds what is typed', () => {
  it('no maxLength, no InputNumber min/max/precision, no number input min/max, no count that cuts in src/', () => {
    const root = process.cwd();
    expect(files(join(root, 'src')).length).toBeGreaterThan(50);
    expect(files(join(root, 'src')).flatMap((f) => clampsIn(relative(root, f), readFileSync(f, 'utf8')))).toEqual([]);
  });

  it('the walk finds each kind it looks for, and lets a counter that does not cut through', () => {
    expect(clampsIn('x.tsx', 'const a = <InputNumber onChange={(v) => v > 1}\n  min={0} precision={2} step={0.01} />;')).toEqual([
      'x.tsx:2 <InputNumber min>',
      'x.tsx:2 <InputNumber precision>',
    ]);
    expect(clampsIn('x.tsx', 'const a = <Input.TextArea maxLength={200} showCount />;')).toEqual(['x.tsx:1 <Input.TextArea maxLength>']);
    expect(clampsIn('x.tsx', 'const a = <input type="number" max={3} />;')).toEqual(['x.tsx:1 <input max>']);
    expect(clampsIn('x.tsx', 'const a = <Input count={{ show: true, max: 5, exceedFormatter: (v) => v }} />;')).toEqual(['x.tsx:1 <Input count>']);
    expect(clampsIn('x.tsx', 'const a = <><Input count={{ show: true, max: 5 }} /><Input type="date" max={today} /></>;')).toEqual([]);
  });
});

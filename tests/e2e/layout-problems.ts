/** The layout check of the list pages (words-and-layout.spec.ts), run in the page. */
import { expect, type Page } from '@playwright/test';

/** A text cut with an ellipsis whose element has no title: its tooltip, if any, shows on hover (antd's Typography). */
interface Untitled {
  /** The element's data-cut attribute. */
  id: string;
  column: string;
  name: string;
  text: string;
}

/**
 * What is hidden or hard to read in the visible tables, one line each. A header or a cell is outside the table's
 * visible area (past its right edge, to be scrolled to), under a fixed column, or not in line with its header (the
 * header and the body are two tables when the header is sticky); its words run past it without an ellipsis and a
 * tooltip (a title, or antd's tooltip on hover: see layoutProblems). And a text that wraps: breaks a word of letters
 * or digits in the middle ("superad-min"), has less than 2 em on a line on average (a character per line in a narrow
 * column), or takes more lines than one per 12 half-width characters (a Chinese character counts two) and at least 2
 * (a date in six pieces).
 */
function measure(page: Page): Promise<{ problems: string[]; shape: string; untitled: Untitled[] }> {
  return page.evaluate(() => {
    const out: string[] = [];
    const untitled: Untitled[] = [];
    // Where every header and cell is, and what it says: the same twice in a row once the page has settled.
    const shape: string[] = [];
    const wide = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\u3000-\u303f\uff00-\uffef]/u;
    const wordChar = /[\p{L}\p{N}]/u;
    const skip = (cell: HTMLElement) => /\bant-table-(selection-column|row-expand-icon-cell|cell-scrollbar)\b/.test(cell.className);
    const isFixed = (cell: HTMLElement) => /\bant-table-cell-fix-(left|right)\b/.test(cell.className);
    const overlaps = (a: DOMRect, b: DOMRect) => a.left < b.right - 1 && a.right > b.left + 1;
    /** The lines a text node's words are laid out on (their tops), with their widths summed. */
    const linesOf = (node: Text) => {
      const range = document.createRange();
      range.selectNodeContents(node);
      const tops: number[] = [];
      let width = 0;
      for (const r of Array.from(range.getClientRects())) {
        if (!r.width) continue;
        width += r.width;
        if (!tops.some((t) => Math.abs(t - r.top) < 2)) tops.push(r.top);
      }
      return { lines: tops.length, width };
    };
    const charTop = (node: Text, i: number) => {
      const range = document.createRange();
      range.setStart(node, i);
      range.setEnd(node, i + 1);
      return range.getBoundingClientRect().top;
    };
    /** The problems of one cell's words (cut, broken, squeezed), named `name`, in the column named `column`. */
    const words = (cell: HTMLElement, name: string, column: string) => {
      const box = cell.getBoundingClientRect();
      const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode() as Text | null; node; node = walker.nextNode() as Text | null) {
        const text = node.data;
        if (!text.trim()) continue;
        const parent = node.parentElement!;
        if (!parent.getClientRects().length) continue; // not shown (a hidden measure, a closed tooltip)
        // Cut: past the cell's box. Only an ellipsis that names the whole text in a title may cut.
        const range = document.createRange();
        range.selectNodeContents(node);
        const r = range.getBoundingClientRect();
        let clip: HTMLElement | null = parent;
        while (clip && clip !== cell.parentElement && getComputedStyle(clip).textOverflow !== 'ellipsis') clip = clip.parentElement;
        const ellipsis = clip && clip !== cell.parentElement ? clip : null;
        const cut = r.right > box.right + 1 || r.left < box.left - 1 || (ellipsis !== null && ellipsis.scrollWidth > ellipsis.clientWidth + 1);
        const titled = ellipsis?.closest('[title]');
        if (cut && !ellipsis) out.push(`${name}: "${text.trim()}" cut`);
        else if (cut && ellipsis && !(titled && cell.contains(titled))) {
          ellipsis.dataset.cut ||= String(untitled.length);
          untitled.push({ id: ellipsis.dataset.cut, column, name, text: ellipsis.textContent!.trim() });
        }
        const { lines, width } = linesOf(node);
        if (lines < 2) continue;
        const em = parseFloat(getComputedStyle(parent).fontSize);
        const units = Array.from(text.trim()).reduce((n, c) => n + (wide.test(c) ? 2 : 1), 0);
        if (width / lines < 2 * em) out.push(`${name}: "${text.trim()}" a character or two per line (${lines} lines)`);
        else if (lines > Math.max(2, Math.ceil(units / 12))) out.push(`${name}: "${text.trim()}" on ${lines} lines`);
        for (let i = 0; i + 1 < text.length; i++) {
          if (!wordChar.test(text[i]) || !wordChar.test(text[i + 1]) || wide.test(text[i]) || wide.test(text[i + 1])) continue;
          if (charTop(node, i + 1) > charTop(node, i) + 2) {
            out.push(`${name}: "${text.trim()}" broken mid-word`);
            break;
          }
        }
      }
    };
    for (const table of Array.from(document.querySelectorAll<HTMLElement>('.ant-table'))) {
      if (!table.offsetParent) continue;
      const area = table.querySelector('.ant-table-container')!.getBoundingClientRect();
      const own = (el: Element) => el.closest('.ant-table') === table;
      const ths = Array.from(table.querySelectorAll<HTMLElement>('thead th')).filter((th) => own(th) && !skip(th));
      const fixedThs = ths.filter(isFixed);
      const title = (i: number) => ths[i]?.textContent?.trim() || `column ${i + 1}`;
      for (const [i, th] of ths.entries()) {
        const box = th.getBoundingClientRect();
        shape.push(`${Math.round(box.left)},${Math.round(box.top)},${Math.round(box.width)},${Math.round(box.height)}`);
        if (box.left < area.left - 1 || box.right > area.right + 1) out.push(`${title(i)}: outside the table`);
        if (!isFixed(th))
          for (const f of fixedThs) if (overlaps(box, f.getBoundingClientRect())) out.push(`${title(i)}: under the fixed column ${f.textContent?.trim()}`);
        words(th, title(i), title(i));
      }
      // Every row of the page: the columns are as wide as their widest cell, which may be on any row.
      for (const [r, tr] of Array.from(table.querySelectorAll<HTMLElement>('tbody tr.ant-table-row')).filter(own).entries()) {
        const tds = Array.from(tr.children as HTMLCollectionOf<HTMLElement>).filter((td) => !skip(td));
        const fixedTds = tds.filter(isFixed);
        for (const [i, td] of tds.entries()) {
          const box = td.getBoundingClientRect();
          shape.push(`${Math.round(box.left)},${Math.round(box.top)},${Math.round(box.width)},${Math.round(box.height)},${td.textContent}`);
          const name = `${title(i)} (row ${r + 1})`;
          if (box.left < area.left - 1 || box.right > area.right + 1) out.push(`${name}: outside the table`);
          if (!isFixed(td)) for (const f of fixedTds) if (overlaps(box, f.getBoundingClientRect())) out.push(`${name}: under a fixed column`);
          const head = ths[i]?.getBoundingClientRect();
          if (tds.length === ths.length && head && (Math.abs(head.left - box.left) > 1 || Math.abs(head.right - box.right) > 1))
            out.push(`${name}: not under its header`);
          words(td, name, title(i));
        }
      }
    }
    return { problems: out, shape: shape.join(';'), untitled };
  });
}

/**
 * The problems of the page's tables (see measure) once their layout has settled: the same in three looks 300 ms
 * apart. Data arriving after the rows (a pool's name) and antd's placing of the fixed columns change the layout, and
 * a look in between could pass or fail by chance.
 */
export async function layoutProblems(page: Page): Promise<string[]> {
  const seen: string[] = [];
  let problems: string[] = [];
  let untitled: Untitled[] = [];
  await expect
    .poll(
      async () => {
        const now = await measure(page);
        ({ problems, untitled } = now);
        seen.push(now.shape);
        return seen.length >= 3 && seen.slice(-3).every((s) => s === now.shape);
      },
      { intervals: [300], timeout: 20_000, message: 'the tables settle' },
    )
    .toBe(true);
  // A cut text without a title must show itself whole in a tooltip on hover: one per column is tried.
  const columns = new Set<string>();
  for (const cut of untitled) {
    if (columns.has(cut.column)) continue;
    columns.add(cut.column);
    await page.locator(`[data-cut="${cut.id}"]`).hover();
    const shown = await page
      .getByRole('tooltip')
      .filter({ hasText: cut.text })
      .first()
      .waitFor({ timeout: 3_000 })
      .then(
        () => true,
        () => false,
      );
    if (!shown) problems.push(`${cut.name}: "${cut.text}" cut without a tooltip`);
    await page.mouse.move(0, 0);
    await expect(page.getByRole('tooltip').filter({ visible: true })).toHaveCount(0);
  }
  return problems;
}

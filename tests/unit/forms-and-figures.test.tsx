// @vitest-environment jsdom
/**
 * Rough edges that a unit shows: forms that read like hand-made ones (sentence messages naming the field,
 * no blank first option, tags in one box, Previous left of Next), a CDR duration with its unit, the CDR chart's legend
 * clear of its day labels and its address carrying the list's criteria, and a count written once, not regrouped.
 */
import { act, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { Statistic } from 'antd';
import { describe, expect, it, vi } from 'vitest';
import { RESOURCES } from '../../common/resource-registry';
import { fieldsSchema } from '../../common/resources';
import { formatNumber } from '../../common/numbers';
import { TextStatistic } from '../../src/components/text-statistic';
import { cdrChartOption } from '../../src/custom/cdr/chart-option';
import i18n from '../../src/i18n';
import { Cell } from '../../src/resources/cell';
import { SchemaForm } from '../../src/resources/schema-form';
import { chartQueryOf } from '../../src/custom/cdr/cdr-list-page';
import { consoleInJsdom } from '../jsdom';

// The first render of antd and RJSF in jsdom takes a few seconds on a loaded machine.
vi.setConfig({ testTimeout: 30_000 });

consoleInJsdom();

/** An RJSF form of some fields of a resource, as the console's dialogs and wizard use it. */
function form(resource: keyof typeof RESOURCES, fields: string[], optional: string[] = [], extra: Partial<Parameters<typeof SchemaForm>[0]> = {}) {
  const onSubmit = vi.fn();
  render(
    <SchemaForm
      schema={fieldsSchema(RESOURCES[resource], fields, optional)}
      prefix={RESOURCES[resource]['x-admin'].i18n}
      formData={{}}
      onChange={() => undefined}
      onSubmit={onSubmit}
      submitText="Next"
      {...extra}
    />,
  );
  return onSubmit;
}

describe('forms read like hand-made ones', () => {
  it('a message is a sentence that names its field, not "is required"', async () => {
    form('accounts', ['email', 'firstName', 'role'], ['firstName']);
    fireEvent.change(screen.getByLabelText(/First name/), { target: { value: 'x'.repeat(31) } });
    fireEvent.click(screen.getByRole('button', { name: 'Next' }));
    await waitFor(() => expect(screen.getByText('E-mail is required')).toBeTruthy());
    expect(screen.getByText('Role is required')).toBeTruthy();
    expect(screen.getByText('First name must be at most 30 characters long')).toBeTruthy();
    expect(screen.queryByText('is required')).toBeNull();
  });

  it('in Chinese the field and the rule are one sentence too', async () => {
    await act(() => i18n.changeLanguage('zh-CN'));
    try {
      form('accounts', ['role']);
      fireEvent.click(screen.getByRole('button', { name: 'Next' }));
      await waitFor(() => expect(screen.getByText(i18n.t('validation.required', { field: i18n.t('accounts.fields.role') }))).toBeTruthy());
      expect(screen.getByText('请填写角色')).toBeTruthy();
    } finally {
      await act(() => i18n.changeLanguage('en-US'));
    }
  });

  it('a choice (Role, Language) offers its values only: no blank first option', async () => {
    form('accounts', ['role', 'locale'], ['locale']);
    for (const name of ['Role', 'Language']) {
      fireEvent.mouseDown(screen.getByRole('combobox', { name }));
      const options = await screen.findAllByRole('option');
      expect(options.length).toBeGreaterThan(0);
      // rc-select's listbox names each option by its label (aria-label); RJSF's own widget starts with an unnamed blank one.
      for (const o of options) expect(o.getAttribute('aria-label')?.trim()).toBeTruthy();
      fireEvent.keyDown(screen.getByRole('combobox', { name }), { key: 'Escape' });
    }
    expect(document.querySelectorAll('.ant-select-item-option[title=""]').length).toBe(0);
  });

  it('tags are one tags box named Tags, no "Tags-1", and a tag too long is named under it', async () => {
    const onSubmit = vi.fn();
    render(
      <SchemaForm
        schema={fieldsSchema(RESOURCES.sims, ['tags'])}
        prefix="sims"
        formData={{ tags: ['ok', 'eleven-char'] }}
        onChange={() => undefined}
        onSubmit={onSubmit}
        submitText="Save"
      />,
    );
    expect(screen.queryByText(/Tags-\d/)).toBeNull();
    expect(screen.getByRole('textbox', { name: 'Tags' })).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Add' })).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    // Said of the one tag, not of the list: not "Tags “eleven-char” …".
    await waitFor(() => expect(screen.getByText('Tag “eleven-char” must be at most 10 characters')).toBeTruthy());
    expect(onSubmit).not.toHaveBeenCalled();
  });

  it.each([
    ['en-US', 'Tag “eleven-char” must be at most 10 characters'],
    ['es-ES', 'La etiqueta «eleven-char» debe tener como máximo 10 caracteres'],
    ['zh-CN', '标签“eleven-char”最多 10 个字符'],
    ['zh-TW', '標籤「eleven-char」最多 10 個字元'],
  ])('in %s a tag typed too long is refused in words about that one tag', async (lang, message) => {
    await act(() => i18n.changeLanguage(lang));
    try {
      render(
        <SchemaForm
          schema={fieldsSchema(RESOURCES.sims, ['tags'])}
          prefix="sims"
          formData={{ tags: ['ok'] }}
          onChange={() => undefined}
          onSubmit={() => undefined}
          submitText="Save"
        />,
      );
      fireEvent.change(screen.getByRole('textbox'), { target: { value: 'eleven-char,' } });
      expect((await screen.findByRole('alert')).textContent).toBe(message);
    } finally {
      await act(() => i18n.changeLanguage('en-US'));
    }
  });

  it("a step's Previous sits left of its Next, side by side in one row", () => {
    form('accounts', ['role'], [], { back: { text: 'Previous', onClick: () => undefined } });
    const previous = screen.getByRole('button', { name: 'Previous' });
    const next = screen.getByRole('button', { name: 'Next' });
    expect(previous.compareDocumentPosition(next) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
    // One row: both in the same inline group, not a block each.
    expect(previous.closest('.ant-space')).toBe(next.closest('.ant-space'));
    expect(previous.closest('.ant-space')?.className).not.toMatch(/vertical/);
  });
});

describe('CDRs', () => {
  it('a duration has its unit: 125 seconds read "2 min 5 sec", not "125"', () => {
    render(<Cell resource={RESOURCES.cdrs} field="durationS" value={125} />);
    expect(screen.getByText('2 min 5 sec')).toBeTruthy();
  });

  it("the chart's legend sits above the plot, clear of the day labels under it", () => {
    const option = cdrChartOption([{ day: '2026-11-20', uplinkKb: 1024, downlinkKb: 2048 }], { uplink: 'Uplink', downlink: 'Downlink' }, 'en-US');
    const legend = option.legend as { top?: number; bottom?: number };
    const grid = option.grid as { top: number };
    // ECharts 6 draws a legend with no place at the bottom, over the x-axis labels.
    expect(legend.top).toBe(0);
    expect(legend.bottom).toBeUndefined();
    expect(grid.top).toBeGreaterThanOrEqual(40);
  });

  it("the chart's unit follows its largest day: one quiet SIM's kB are not rounded away as 0.1 MB", () => {
    const option = cdrChartOption([{ day: '2026-11-20', uplinkKb: 74, downlinkKb: 83 }], { uplink: 'Uplink', downlink: 'Downlink' }, 'en-US');
    expect((option.yAxis as { name: string }).name).toBe('kB');
    expect((option.series as Array<{ data: number[] }>).map((s) => s.data[0])).toEqual([74, 83]);
  });

  it("the chart opens on the list's ICCID search and the UTC days of its window", () => {
    expect(
      chartQueryOf({ filters: {}, search: { field: 'iccid', value: '0042' }, ranges: { startAt: ['2026-11-16T10:00:00.000Z', '2026-11-23T10:00:00.000Z'] } }),
    ).toBe('?iccid=0042&from=2026-11-16&to=2026-11-23');
    expect(chartQueryOf({ filters: {} })).toBe('');
  });
});

describe('counts in Spanish', () => {
  it('a figure is shown as written: 1089 stays 1089 (antd would regroup it to 1,089)', () => {
    render(<Statistic title="antd" value="1089" />);
    expect(screen.getByText('1,089')).toBeTruthy();
    render(<TextStatistic title="located" value="1089" />);
    expect(screen.getByText('1089')).toBeTruthy();
  });

  it("a balance groups both figures with Spanish's '.' (CLDR would leave 9997 ungrouped beside 10.000)", () => {
    const es = (n: number) => formatNumber(n, 'es-ES');
    render(<TextStatistic title="balance" value={es(9997)} suffix={`/ ${es(10000)}`} />);
    expect(screen.getByText('9.997')).toBeTruthy();
    expect(screen.getByText('/ 10.000')).toBeTruthy();
  });
});

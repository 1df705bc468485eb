// @vitest-environment jsdom
/**
 * The back office's billing dialogs and the lists' search boxes keep what a person types: an amount out of range or
 * with too many decimals stays as typed and is refused in a sentence naming the field and the range; a text past its
 * limit is not cut, its count turns red and the sentence names the length; nothing is sent until it is put right.
 */
import { act, configure, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { App } from 'antd';
import { useState } from 'react';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { SettleDialog } from '../../src/custom/billing/invoice-lifecycle';
import { CreditDialog } from '../../src/custom/billing/invoice-types';
import { LimitedSearch } from '../../src/components/limited-search';
import i18n from '../../src/i18n';
import invoiceEn from '../../src/custom/billing/invoice-locales/en-US.json';
import invoiceZh from '../../src/custom/billing/invoice-locales/zh-CN.json';
import { consoleInJsdom } from '../jsdom';

// The first render of antd in jsdom takes a few seconds on a loaded machine.
vi.setConfig({ testTimeout: 30_000 });

consoleInJsdom();
// The invoice pages' words come with those pages; here they are added as the page would.
beforeAll(() => {
  i18n.addResourceBundle('en-US', 'translation', invoiceEn, true, false);
  i18n.addResourceBundle('zh-CN', 'translation', invoiceZh, true, false);
});

/** Nothing may leave the browser while a field is refused: every request made is recorded here. */
function watchRequests() {
  const spy = vi.spyOn(globalThis, 'fetch');
  return spy;
}
afterEach(() => vi.restoreAllMocks());

/** Type into an input and leave it, as a person does (antd's InputNumber clamped and rounded on leaving). */
function type(el: HTMLElement, value: string) {
  fireEvent.focus(el);
  fireEvent.change(el, { target: { value } });
  fireEvent.blur(el);
}

// antd's forms validate asynchronously; on a loaded machine a message can take longer than testing-library's 1 s.
configure({ asyncUtilTimeout: 10_000 });

describe('the billing dialogs keep what is typed and say why it is refused', () => {
  it('credit note: an amount above what is left and a 201-character reason stay as typed and are named', async () => {
    // The dialog asks what is left to credit (the invoice's settlement answer); nothing else may leave the browser.
    const requests = watchRequests().mockImplementation(
      async () =>
        new Response(JSON.stringify({ status: { code: '0000', success: true, message: 'OK' }, data: { creditLeftMinor: 385639 } }), {
          status: 200,
          headers: { 'content-type': 'application/json' },
        }),
    );
    render(
      <App>
        <CreditDialog open base="/api/x" currency="EUR" onClose={() => undefined} onDone={() => undefined} />
      </App>,
    );
    // What is left is said before anything is typed.
    await screen.findByText('Left to credit: €3,856.39.');
    const amount = await screen.findByRole('spinbutton', { name: /Amount/ });
    const reason = screen.getByRole('textbox', { name: 'Reason' });
    await waitFor(() => expect((amount as HTMLInputElement).disabled).toBe(false));
    type(amount, '5000');
    type(reason, 'r'.repeat(201));
    fireEvent.click(screen.getByRole('button', { name: 'Issue credit note' }));
    // The server's own words, naming what is left as money.
    await waitFor(() =>
      expect(screen.getByText('At most €3,856.39 is left to credit on this invoice: its total less the credit notes already issued.')).toBeTruthy(),
    );
    expect(screen.getByText('Reason must be at most 200 characters long')).toBeTruthy();
    // Written with the two decimals of money (the step), but the amount typed, not the largest allowed.
    expect((amount as HTMLInputElement).value).toBe('5000.00');
    expect((reason as HTMLTextAreaElement).value).toHaveLength(201);
    // The count shows 201 / 200 in the error colour rather than cutting the text to 200.
    expect(document.querySelector('.ant-input-textarea-show-count, .ant-input-data-count')?.textContent).toContain('201');
    expect(
      document.querySelector('.ant-input-status-error, .ant-input-textarea-affix-wrapper-status-error, .ant-input-affix-wrapper-status-error'),
    ).toBeTruthy();
    // Exactly what is left is taken.
    type(amount, '3856.39');
    await waitFor(() => expect(screen.queryByText(/is left to credit on this invoice/)).toBeNull());
    // A negative amount and one with a third decimal are kept and refused too, never made 0.01 or rounded.
    type(amount, '-5');
    await waitFor(() => expect(screen.getByText('Amount must be between 0.01 and 1,000,000,000')).toBeTruthy());
    expect((amount as HTMLInputElement).value).toBe('-5.00');
    type(amount, '12.345');
    await waitFor(() => expect(screen.getByText('Amount can have at most 2 decimal places')).toBeTruthy());
    expect((amount as HTMLInputElement).value).toBe('12.345');
    expect(requests.mock.calls.map(([url, init]) => `${init?.method ?? 'GET'} ${String(url)}`)).toEqual(['GET /api/x/settlement']);
  });

  it('payment: an amount out of range and a 65-character reference stay as typed and are named, in Chinese too', async () => {
    const requests = watchRequests();
    await act(() => i18n.changeLanguage('zh-CN'));
    try {
      render(
        <App>
          <SettleDialog open url="/api/x/settle" currency="EUR" onClose={() => undefined} onDone={() => undefined} onOpen={() => undefined} />
        </App>,
      );
      const amountLabel = i18n.t('invoiceActions.amount');
      const referenceLabel = i18n.t('invoiceActions.reference');
      const amount = await screen.findByRole('spinbutton', { name: new RegExp(amountLabel) });
      const reference = screen.getByRole('textbox', { name: referenceLabel });
      type(amount, '1000000000000');
      type(reference, 'x'.repeat(65));
      fireEvent.click(screen.getByRole('button', { name: new RegExp(i18n.t('invoiceActions.settle').replace(/\s/g, '\\s*')) }));
      const range = i18n.t('validation.range', { field: amountLabel, min: '0.01', max: '999,999,999,999', unit: '' });
      await waitFor(() => expect(screen.getByText(range)).toBeTruthy());
      expect(screen.getByText(i18n.t('validation.maxLength', { field: referenceLabel, limit: '64' }))).toBeTruthy();
      expect((amount as HTMLInputElement).value).toBe('1000000000000.00');
      expect((reference as HTMLInputElement).value).toHaveLength(65);
      expect(requests).not.toHaveBeenCalled();
    } finally {
      await act(() => i18n.changeLanguage('en-US'));
    }
  });
});

describe('a search box past what the server takes', () => {
  it('keeps the text, says how long a search may be and does not search with it', async () => {
    const searched: string[] = [];
    function Box() {
      const [v, setV] = useState('');
      return <LimitedSearch max={5} aria-label="Search" value={v} onChange={(e) => setV(e.target.value)} onSearch={(s) => searched.push(s)} />;
    }
    render(<Box />);
    const box = screen.getByRole('searchbox', { name: 'Search' });
    fireEvent.change(box, { target: { value: 'abcde' } });
    expect(screen.queryByRole('alert')).toBeNull();
    fireEvent.change(box, { target: { value: 'abcdef' } });
    expect((box as HTMLInputElement).value).toBe('abcdef');
    expect(screen.getByRole('alert').textContent).toBe('A search can be at most 5 characters long: shorten it to search.');
  });
});

/**
 * The console's components in jsdom: for the suite (or file) that calls it, a stand-in for window.matchMedia, which
 * jsdom lacks and antd's responsive helpers and grid ask for, the console's texts in en-US, and after each test the
 * cleanup of what it rendered.
 */
import { cleanup } from '@testing-library/react';
import { afterEach, beforeAll, vi } from 'vitest';
import i18n from '../src/i18n';

export function consoleInJsdom(): void {
  beforeAll(async () => {
    Object.defineProperty(window, 'matchMedia', {
      writable: true,
      value: (query: string) => ({
        matches: false,
        media: query,
        onchange: null,
        addListener: vi.fn(),
        removeListener: vi.fn(),
        addEventListener: vi.fn(),
        removeEventListener: vi.fn(),
        dispatchEvent: vi.fn(),
      }),
    });
    await i18n.changeLanguage('en-US');
  });
  afterEach(() => cleanup());
}

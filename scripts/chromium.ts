/**
 * Debian's Chromium and the flags every tool here launches it with (ARCHITECTURE.md): the Playwright suite, the
 * screenshot script and the Lighthouse bench. Never a browser a tool downloads itself.
 */
export const CHROMIUM_PATH = '/usr/bin/chromium';

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

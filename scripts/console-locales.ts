/**
 * Vite plugin: the console's copy of common/locales/*.json without the namespaces only the server words
 * (common/server-only-words.ts). Runs before Vite's JSON plugin, on the file's text, when building.
 */
import type { Plugin } from 'vite';
import { SERVER_ONLY_NAMESPACES } from '../common/server-only-words.js';

const COMMON_LOCALE = /[\\/]common[\\/]locales[\\/][\w-]+\.json$/;

export function consoleLocales(): Plugin {
  return {
    name: 'console-locales',
    enforce: 'pre',
    // The build only: vitest reads this config too, and the server's tests need every namespace.
    apply: 'build',
    transform(code, id) {
      if (!COMMON_LOCALE.test(id.split('?')[0])) return null;
      const words = JSON.parse(code) as Record<string, unknown>;
      for (const namespace of SERVER_ONLY_NAMESPACES) delete words[namespace];
      return { code: JSON.stringify(words), map: null };
    },
  };
}

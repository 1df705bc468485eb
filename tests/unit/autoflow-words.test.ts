/** A rule's scope in words: a pool scope by its pool's name in each language, the old words while unknown. */
import i18next from 'i18next';
import { describe, expect, it } from 'vitest';
import en from '../../src/custom/autoflow/locales/en-US.json' with { type: 'json' };
import es from '../../src/custom/autoflow/locales/es-ES.json' with { type: 'json' };
import zhCN from '../../src/custom/autoflow/locales/zh-CN.json' with { type: 'json' };
import zhTW from '../../src/custom/autoflow/locales/zh-TW.json' with { type: 'json' };
import { poolIdsOf } from '../../src/custom/autoflow/pool-names';
import { scopeWords } from '../../src/custom/autoflow/words';

const i18n = i18next.createInstance();
await i18n.init({
  lng: 'en-US',
  resources: { 'en-US': { translation: en }, 'zh-CN': { translation: zhCN }, 'zh-TW': { translation: zhTW }, 'es-ES': { translation: es } },
});

describe('a pool scope in words', () => {
  const pools = new Map([['pool-1', 'EU Fleet Pool']]);
  const scope = { type: 'pool' as const, poolId: 'pool-1' };

  it('names its pool in each language', () => {
    const words = (lng: string) => scopeWords(i18n.getFixedT(lng), lng, scope, pools);
    expect(words('en-US')).toBe('Pool: EU Fleet Pool');
    expect(words('zh-CN')).toBe('共享池：EU Fleet Pool');
    expect(words('zh-TW')).toBe('共享池：EU Fleet Pool');
    expect(words('es-ES')).toBe('Bolsa compartida: EU Fleet Pool');
  });

  it('says "A shared pool" while the name is not known (not loaded yet, or a pool deleted since)', () => {
    const t = i18n.getFixedT('en-US');
    expect(scopeWords(t, 'en-US', scope)).toBe('A shared pool');
    expect(scopeWords(t, 'en-US', { type: 'pool', poolId: 'gone' }, pools)).toBe('A shared pool');
  });

  it('asks for the pools the scopes name, each once, and none for other scopes', () => {
    expect(poolIdsOf([scope, { type: 'all' }, null, { type: 'pool', poolId: 'pool-0' }, scope, { type: 'pool' }])).toEqual(['pool-0', 'pool-1']);
    expect(poolIdsOf([{ type: 'tags', tags: ['a'] }])).toEqual([]);
  });
});

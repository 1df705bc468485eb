/** How a resource's name joins a composed title (src/resources/title-name.ts), with the console's own templates. */
import i18next from 'i18next';
import { describe, expect, it } from 'vitest';
import enUS from '../../src/locales/en-US.json';
import esES from '../../src/locales/es-ES.json';
import zhCN from '../../src/locales/zh-CN.json';
import zhTW from '../../src/locales/zh-TW.json';
import { inTitle } from '../../src/resources/title-name';

const i18n = i18next.createInstance();
await i18n.init({
  resources: { 'en-US': { translation: enUS }, 'es-ES': { translation: esES }, 'zh-CN': { translation: zhCN }, 'zh-TW': { translation: zhTW } },
  lng: 'en-US',
  interpolation: { escapeValue: false },
});

const title = (lng: string, key: string, name: string, extra: Record<string, unknown> = {}) => i18n.getFixedT(lng)(key, { name: inTitle(name, lng), ...extra });

describe('a resource name in a composed title', () => {
  it.each([
    ['zh-CN', 'resources.deleteOne', 'APN 配置', { label: '车队专网' }, '删除 APN 配置“车队专网”？'],
    ['zh-TW', 'resources.deleteOne', 'APN 設定', { label: '車隊專網' }, '刪除 APN 設定「車隊專網」？'],
    ['zh-CN', 'resources.deleteMany', 'APN 配置', { count: 2 }, '删除这 2 项 APN 配置？'],
    ['zh-TW', 'resources.new', 'APN 設定', {}, '新增 APN 設定'],
    ['zh-CN', 'resources.editOf', '5G 切片', {}, '编辑 5G 切片'],
    // A name that starts with a Chinese character joins the verb as before.
    ['zh-CN', 'resources.deleteOne', '现场网关', { label: '北门' }, '删除现场网关“北门”？'],
    ['zh-TW', 'resources.new', '現場閘道', {}, '新增現場閘道'],
    // Other languages' templates space the words themselves: the name is left as it is.
    ['en-US', 'resources.deleteOne', 'APN profile', { label: 'Fleet' }, 'Delete APN profile “Fleet”?'],
    ['es-ES', 'resources.new', 'Perfil APN', {}, 'Nuevo: Perfil APN'],
  ])('%s %s %s', (lng, key, name, extra, expected) => {
    expect(title(lng, key, name, extra)).toBe(expected);
  });
});

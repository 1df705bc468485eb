import { describe, expect, it } from 'vitest';
import { isValidPassword, pickLanguage } from '../../common/limits.js';
import { translate } from '../../common/i18n.js';
import { CODES, messageKeyOf } from '../../common/errors.js';

describe('the password rule of SPEC.md section 5', () => {
  it.each([
    ['Ab#123', true, '6 characters with letter, digit and symbol'],
    ['Abcdef#12345', true, '12 characters'],
    ['Ab#12', false, '5 characters'],
    ['Abcdef#123456', false, '13 characters'],
    ['123456#', false, 'no letter'],
    ['Abcdef#', false, 'no digit'],
    ['Abc1234', false, 'no symbol'],
    ['Ab# 123', false, 'a space'],
  ])('%s is %s (%s)', (pw, ok) => {
    expect(isValidPassword(pw)).toBe(ok);
  });
});

describe('language matching', () => {
  it.each([
    ['en-US', 'en-US'],
    ['zh-CN', 'zh-CN'],
    ['zh-tw', 'zh-TW'],
    ['zh-Hant-HK', 'zh-TW'],
    ['zh', 'zh-CN'],
    ['es-MX', 'es-ES'],
    ['fr-FR', 'en-US'],
    [undefined, 'en-US'],
  ])('%s picks %s', (value, expected) => {
    expect(pickLanguage(value)).toBe(expected);
  });
});

describe('server messages', () => {
  it('keeps the exact SPEC.md texts', () => {
    expect(translate('en-US', 'rules.password')).toBe('Password must be 6-12 digits and include letter, number and symbol!');
    expect(translate('en-US', 'rules.passwordMismatch')).toBe("Two passwords don't match!");
    expect(translate('en-US', messageKeyOf(CODES.permissionDenied))).toBe('Permission denied');
    expect(translate('en-US', messageKeyOf(CODES.accountAlreadyRegistered))).toBe('Account already registered! Proceed to invite.');
    expect(translate('en-US', messageKeyOf(CODES.alreadyMember))).toBe('Already a member in this organisation!');
    expect(translate('en-US', messageKeyOf(CODES.superadminCannotBeRemoved))).toBe('Superadmin cannot be removed');
  });

  it('translates field names inside validation messages', () => {
    expect(translate('zh-CN', 'validation.required', { field: 'password' })).toBe('请填写密码');
    expect(translate('es-ES', 'rules.timezone', { field: 'timezone' })).toBe('El campo «Zona horaria» debe ser una zona horaria IANA como Europe/Berlin');
  });

  it('falls back to en-US, then to the key', () => {
    expect(translate('es-ES', 'no.such.key')).toBe('no.such.key');
  });

  it('every code has a message in every language', () => {
    for (const lang of ['en-US', 'zh-CN', 'zh-TW', 'es-ES'] as const) {
      for (const code of Object.values(CODES)) {
        const key = messageKeyOf(code);
        expect(translate(lang, key), `${lang} ${key}`).not.toBe(key);
      }
    }
  });
});

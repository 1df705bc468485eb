/**
 * Rules for antd forms that keep what a person types: a text too long and a number out of range or with too many
 * decimals stay as typed and are refused in the words of common/validation-messages.ts (the fields' inputs have no
 * maxLength, min, max or precision, which would cut, clamp or round silently).
 */
import type { Rule } from 'antd/es/form';
import type { TFunction } from 'i18next';
import { schemaMessage } from '../../common/validation-messages';

/** At most `max` characters. */
export const maxChars = (t: TFunction, lang: string, field: string, max: number): Rule => ({
  max,
  message: schemaMessage(t, lang, field, { keyword: 'maxLength', params: { limit: max } }),
});

/** A number from `min` to `max` with at most `decimals` decimal places (empty passes: required is its own rule). */
export const numberIn = (t: TFunction, lang: string, field: string, min: number, max: number, decimals = 0): Rule => ({
  validator: async (_: unknown, value: unknown) => {
    if (value === null || value === undefined || value === '') return;
    const n = Number(value);
    if (!Number.isFinite(n) || n < min || n > max)
      throw new Error(schemaMessage(t, lang, field, { keyword: 'minimum', params: { limit: min }, schema: { minimum: min, maximum: max } }));
    const places = (String(value).split('.')[1] ?? '').length;
    if (places > decimals) throw new Error(t('validation.decimals', { field, count: decimals, limit: decimals }));
  },
});

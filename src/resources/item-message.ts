/**
 * The sentence for one entry of a list that a check refuses, said of that entry rather than of the list: "Tag
 * “eleven-char” must be at most 10 characters long", "La etiqueta «eleven-char» debe tener como máximo 10 caracteres".
 * The entry is named by <i18n>.items.<field> (the singular, with its article where the language puts one first), else
 * by its field's label; the sentences are forms.itemRules.* of the console's locales.
 */
import { formatNumber } from '../../common/numbers';
import type { SchemaProblem, Translate } from '../../common/validation-messages';

/** What one entry of a list field is called ("Tag" for the tags), its field's label where it has no name of its own. */
export const itemLabel = (t: Translate, prefix: string, field: string): string =>
  t(`${prefix}.items.${field}`, { defaultValue: t(`${prefix}.fields.${field}`) });

/** The message for one refused entry `value` of a list whose entries are called `item`. */
export function itemMessage(t: Translate, lang: string, item: string, value: string, problem: SchemaProblem): string {
  const limit = problem.params?.limit;
  const say = (key: string) => t(`forms.itemRules.${key}`, { item, value, limit: typeof limit === 'number' ? formatNumber(limit, lang) : String(limit ?? '') });
  switch (problem.keyword) {
    case 'maxLength':
    case 'minLength':
      return say(limit === 1 ? `${problem.keyword}_one` : problem.keyword);
    case 'required':
      return say('required');
    case 'format':
      return say(problem.params?.format === 'email' ? 'email' : 'pattern');
    default:
      return say('pattern');
  }
}

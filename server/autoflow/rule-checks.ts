/**
 * What the rule's schema cannot say, checked after it: identifiers valid (Luhn) and the organisation's,
 * no duplicates, each refusal naming the offending lines; times not earlier than now; a scope file unchanged since
 * its validation; a pool of the organisation. The pure checks here take facts, the route loads them.
 */
import { duplicateLines, type AutoflowRuleDocument } from '../../common/autoflow-rule.js';
import { CODES } from '../../common/errors.js';
import { isValidIccid, isValidImei } from '../../common/iccid.js';
import { isIsoCountry } from '../../common/countries.js';
import { ApiError, invalid } from '../http/api-error.js';

/** How far in the past a time may be and still count as "now": the time it takes a form to reach the server. */
export const NOW_GRACE_MS = 60_000;
/** How many offending lines a message lists (the answer's data carries all of them). */
const LINES_IN_MESSAGE = 10;

export interface Line {
  line: number;
  value: string;
}

/** A 400 naming the field, the rule and the lines (1-based) that break it. */
export function badLines(field: string, rule: string, lines: Line[]): ApiError {
  const shown =
    lines
      .slice(0, LINES_IN_MESSAGE)
      .map((l) => l.line)
      .join(', ') + (lines.length > LINES_IN_MESSAGE ? ', …' : '');
  return new ApiError(400, CODES.validation, { field, ruleKey: rule, lines: shown, count: lines.length }, 'errors.validation', { field, rule, lines });
}

/** Invalid values first (by the check given), then repeats: the first problem of a list, or null. */
export function listProblem(field: string, values: readonly string[], valid: (v: string) => boolean, invalidRule: string): ApiError | null {
  const wrong = values.map((value, i) => ({ line: i + 1, value })).filter((l) => !valid(l.value));
  if (wrong.length) return badLines(field, invalidRule, wrong);
  const repeated = duplicateLines(values);
  if (repeated.length) return badLines(field, 'duplicateLines', repeated);
  return null;
}

/** Checks of the document alone (no database): throws the first problem. */
export function checkDocument(doc: AutoflowRuleDocument, now: Date, previous?: Pick<AutoflowRuleDocument, 'activationAt' | 'expiryAt'>): void {
  const t = doc.trigger;
  if (t.type === 'status_change' && t.from === t.to && t.from !== 'any') throw invalid('trigger.to', 'statusFromTo');
  if (t.type === 'imei_change' && t.mode === 'outside_list') {
    const p = listProblem('trigger.imeis', t.imeis ?? [], isValidImei, 'imeiInvalid');
    if (p) throw p;
  }
  if (t.type === 'country_change' && t.countries?.some((c) => !isIsoCountry(c))) throw invalid('trigger.countries', 'country');
  if (doc.scope.type === 'iccids') {
    const p = listProblem('scope.iccids', doc.scope.iccids ?? [], isValidIccid, 'iccidInvalid');
    if (p) throw p;
  }
  doc.actions.forEach((a, i) => {
    if (a.type !== 'email' || !a.emails) return;
    const repeated = duplicateLines(a.emails.map((e) => e.toLowerCase()));
    if (repeated.length)
      throw badLines(
        `actions.${i}.emails`,
        'duplicateLines',
        repeated.map((l) => ({ ...l, value: a.emails![l.line - 1] })),
      );
  });
  // A time kept from before (an edit that leaves it) may be past: the rule is simply running.
  const earliest = now.getTime() - NOW_GRACE_MS;
  const changed = (key: 'activationAt' | 'expiryAt') => doc[key] && (!previous || Date.parse(String(previous[key] ?? '')) !== Date.parse(doc[key]!));
  if (changed('activationAt') && Date.parse(doc.activationAt!) < earliest) throw invalid('activationAt', 'notBeforeNow');
  if (changed('expiryAt') && Date.parse(doc.expiryAt!) < earliest) throw invalid('expiryAt', 'notBeforeNow');
  if (doc.activationAt && doc.expiryAt && Date.parse(doc.expiryAt) <= Date.parse(doc.activationAt)) throw invalid('expiryAt', 'notBefore');
}

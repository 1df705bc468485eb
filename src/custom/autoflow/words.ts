/** A rule in words, for the list, the canvas's nodes and the history: "Data usage above 50 MB in the cycle". */
import type { TFunction } from 'i18next';
import type { RuleAction, RuleScope, RuleTrigger } from '../../../common/autoflow-rule';
import { formatNumber } from '../../../common/numbers';

const n = (v: number | undefined, lang: string) => (v === undefined ? '…' : formatNumber(v, lang));

export function triggerName(t: TFunction, type: string): string {
  return t(`autoflow.trigger.enum.type.${type}`);
}

/** The condition of a trigger alone ("above 50 MB in the bundle cycle"); empty for triggers without one. */
export function conditionWords(t: TFunction, lang: string, tr: RuleTrigger): string {
  const status = (s?: string) => (s ? t(`autoflow.trigger.enum.from.${s}`) : '…');
  switch (tr.type) {
    case 'data_usage':
      return t('autoflow.words.dataUsage', {
        value: n(tr.threshold, lang),
        unit: tr.unit ?? '',
        window: tr.window ? t(`autoflow.trigger.enum.window.${tr.window}`) : '…',
      });
    case 'data_usage_percent':
      return t('autoflow.words.percent', { value: n(tr.percent, lang) });
    case 'sms_mo':
    case 'sms_mt':
      return t('autoflow.words.count', { value: n(tr.count, lang), window: tr.window ? t(`autoflow.trigger.enum.window.${tr.window}`) : '…' });
    case 'status_change':
      return t('autoflow.words.status', { from: status(tr.from), to: status(tr.to) });
    case 'expiry_reminder':
      return t('autoflow.words.days', { value: n(tr.days, lang) });
    case 'imei_change':
      return tr.mode === 'outside_list' ? t('autoflow.words.imeiOutside', { count: tr.imeis?.length ?? 0 }) : t('autoflow.words.imeiAny');
    case 'no_connection':
      return t('autoflow.words.hours', { value: n(tr.hours, lang) });
    case 'country_change':
      return tr.countries?.length ? t('autoflow.words.countries', { list: tr.countries.join(', ') }) : t('autoflow.words.anyCountry');
    default:
      return t('autoflow.words.anyChange');
  }
}

export function triggerWords(t: TFunction, lang: string, tr: RuleTrigger): string {
  return t('autoflow.words.triggerLine', { name: triggerName(t, tr.type), condition: conditionWords(t, lang, tr) });
}

/** Which SIMs; a pool by its name when `pools` (id → name, pool-names.ts) knows it. */
export function scopeWords(t: TFunction, lang: string, s: RuleScope, pools?: ReadonlyMap<string, string>): string {
  switch (s.type) {
    case 'iccids':
      return t('autoflow.words.iccids', { count: s.iccids?.length ?? 0, value: n(s.iccids?.length ?? 0, lang) });
    case 'file':
      return s.fileName ? t('autoflow.words.file', { name: s.fileName }) : t('autoflow.words.noFile');
    case 'tags':
      return t('autoflow.words.tags', { list: (s.tags ?? []).join(', ') || '…' });
    case 'product_type':
      return s.productType ? t(`autoflow.scope.enum.productType.${s.productType}`) : '…';
    case 'pool': {
      const name = s.poolId ? pools?.get(s.poolId) : undefined;
      return name ? t('autoflow.words.pool', { name }) : t('autoflow.scope.enum.type.pool');
    }
    default:
      return t('autoflow.scope.enum.type.all');
  }
}

export function actionWords(t: TFunction, a: RuleAction): string {
  const name = t(`autoflow.action.enum.type.${a.type}`);
  switch (a.type) {
    case 'throttle':
      return a.speedKbps ? `${name} · ${a.speedKbps} kbps` : name;
    case 'tag':
      return a.tag ? `${name} · ${a.tag}` : name;
    case 'email':
      return a.emails?.length ? `${name} · ${t('autoflow.words.recipients', { count: a.emails.length })}` : name;
    case 'sms':
      return a.text ? `${name} · “${a.text.length > 24 ? `${a.text.slice(0, 24)}…` : a.text}”` : name;
    default:
      return name;
  }
}

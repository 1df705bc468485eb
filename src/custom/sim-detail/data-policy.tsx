/**
 * Above a SIM's tabs: what its bundles do to its data now and why, from GET /sim/bundle/overuse_policy:
 * stopped or slowed when the cycle's allowance was reached (until the next cycle), when it attached outside its
 * bundle's coverage (until it attaches in a covered country), by its shared pool's stop (until the pool's next cycle)
 * or by an automation rule's throttle (named), or its
 * overage billed. Nothing when none applies. Its
 * words come with the SIM page (./policy-locales), not with the sign-in bundle.
 */
import { Alert } from 'antd';
import { useTranslation } from 'react-i18next';
import { useTimeFormat } from '../../components/date-time';
import { pageTexts } from '../../components/page-texts';
import { formatKb } from '../../resources/cell';
import { useSimData } from './use-sim-data';

export interface DataPolicy {
  iccid: string;
  control: 'none' | 'throttle_128' | 'throttle_256' | 'stop';
  reason: 'overage' | 'out_of_coverage' | 'pool' | 'rule' | null;
  rule: { name: string | null; at: string | null } | null;
  pool: { id: string | null; name: string | null; cycleEnd: string | null } | null;
  since: string | null;
  releasedAt: string | null;
  cycleEnd: string | null;
  usageKb: number;
  limitKb: number | null;
  overageKb: number | null;
  allowanceReachedAt: string | null;
  overagePolicy: string | null;
  outOfCoverage: { country: string | null; since: string | null; policy: string | null; barred: boolean } | null;
}

// The notice's words, and those of the service, cycles and queue views, come with the SIM page (src/components/page-texts.ts).
export const usePolicyTexts = pageTexts(
  import.meta.glob<Record<string, unknown>>('./policy-locales/*.json', { import: 'default' }),
  'dataPolicy.title.stop',
).useReady;

export function DataPolicyNotice({ iccid }: { iccid: string }) {
  const { t, i18n: current } = useTranslation();
  const ready = usePolicyTexts();
  const time = useTimeFormat();
  const state = useSimData<DataPolicy>(`/api/main/sim/bundle/overuse_policy/${encodeURIComponent(iccid)}`);
  const p = state.data;
  if (!ready || !p) return null;
  const kb = (v: number | null) => (v === null ? '—' : formatKb(v, current.language));
  // A pool's cycle ends on a UTC calendar date (its next cycle starts at 00:00 UTC that day).
  const date = (day: string) => new Intl.DateTimeFormat(current.language, { dateStyle: 'medium', timeZone: 'UTC' }).format(new Date(`${day}T00:00:00Z`));
  const country = (code: string | null) => (code ? (new Intl.DisplayNames([current.language], { type: 'region' }).of(code) ?? code) : '—');
  const policy = p.overagePolicy ? t(`bundleOrders.enum.overagePolicy.${p.overagePolicy}`) : '—';
  const words = {
    limit: kb(p.limitKb),
    usage: kb(p.usageKb),
    overage: kb(p.overageKb),
    policy,
    reached: time(p.allowanceReachedAt),
    date: time(p.releasedAt ?? p.cycleEnd),
  };
  let notice: { type: 'error' | 'warning' | 'info'; title: string; text: string } | null = null;
  if (p.reason === 'out_of_coverage') {
    notice = {
      type: 'error',
      title: t('dataPolicy.title.stop'),
      text: `${t('dataPolicy.why.coverage', { country: country(p.outOfCoverage?.country ?? null), since: time(p.outOfCoverage?.since) })} ${t('dataPolicy.until.coverage')}`,
    };
  } else if (p.reason === 'pool') {
    notice = {
      type: 'error',
      title: t('dataPolicy.title.stop'),
      text: `${t('dataPolicy.why.pool', { pool: p.pool?.name ?? t('dataPolicy.somePool'), since: time(p.since) })} ${t('dataPolicy.until.pool', { date: p.pool?.cycleEnd ? date(p.pool.cycleEnd) : '—' })}`,
    };
  } else if (p.reason === 'rule') {
    notice = {
      type: 'warning',
      title: t('dataPolicy.title.throttle', { speed: p.control.replace(/\D/g, '') }),
      text: `${t('dataPolicy.why.rule', { rule: p.rule?.name ?? t('dataPolicy.someRule'), since: time(p.since) })} ${t('dataPolicy.until.rule')}`,
    };
  } else if (p.reason === 'overage') {
    notice = {
      type: p.control === 'stop' ? 'error' : 'warning',
      title: p.control === 'stop' ? t('dataPolicy.title.stop') : t('dataPolicy.title.throttle', { speed: p.control.replace(/\D/g, '') }),
      text: `${t('dataPolicy.why.overage', words)} ${t('dataPolicy.until.cycle', words)}`,
    };
  } else if (p.allowanceReachedAt && p.limitKb !== null) {
    notice = { type: 'info', title: t('dataPolicy.title.billing'), text: t('dataPolicy.why.billing', words) };
  } else if (p.outOfCoverage && !p.outOfCoverage.barred && p.outOfCoverage.policy === 'billing') {
    notice = {
      type: 'info',
      title: t('dataPolicy.title.outBilling'),
      text: t('dataPolicy.why.outBilling', { country: country(p.outOfCoverage.country), since: time(p.outOfCoverage.since) }),
    };
  }
  if (!notice) return null;
  return (
    <Alert data-testid="data-policy" role="status" showIcon type={notice.type} message={notice.title} description={notice.text} style={{ marginBottom: 16 }} />
  );
}

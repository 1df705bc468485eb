/**
 * The tabs of a SIM's page (SPEC.md section 2: basic, connection, bundles, usage chart, events, diagnose report, CDRs,
 * SMS). The open tab is in the address (&tab=usage), so a reload or a shared link opens the same one; a tab loads
 * its data when first opened, and the usage chart brings ECharts only then.
 */
import { Skeleton, Tabs } from 'antd';
import { lazy, Suspense, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { BundlesTab } from './bundles-tab';
import { DataPolicyNotice, usePolicyTexts } from './data-policy';
import { CdrsTab } from './cdrs-tab';
import { CyclesTab } from './cycles-tab';
import { ConnectionTab } from './connection-tab';
import { DiagnoseTab } from './diagnose-tab';
import { EventsTab } from './events-tab';
import { ServiceTab } from './service-tab';
import { SmsTab } from './sms-tab';

const UsageTab = lazy(() => import('./usage-tab').then((m) => ({ default: m.UsageTab })));

export const SIM_TABS = ['basic', 'service', 'connection', 'bundles', 'cycles', 'usage', 'events', 'diagnose', 'cdrs', 'sms'] as const;
/** The bundle tabs (service, cycles), whose names come with the SIM page's own words (./policy-locales). */
const PAGE_WORDED = new Set<SimTab>(['service', 'cycles']);
export type SimTab = (typeof SIM_TABS)[number];

export function SimTabs({ iccid, basic }: { iccid: string; basic: ReactNode }) {
  const { t } = useTranslation();
  const worded = usePolicyTexts();
  const [params, setParams] = useSearchParams();
  const asked = params.get('tab');
  const active: SimTab = (SIM_TABS as readonly string[]).includes(asked ?? '') ? (asked as SimTab) : 'basic';
  const open = (key: string) =>
    setParams(
      (p) => {
        const next = new URLSearchParams(p);
        if (key === 'basic') next.delete('tab');
        else next.set('tab', key);
        return next;
      },
      { replace: true },
    );
  const content: Record<SimTab, ReactNode> = {
    basic,
    service: <ServiceTab iccid={iccid} />,
    connection: <ConnectionTab iccid={iccid} />,
    bundles: <BundlesTab iccid={iccid} />,
    cycles: <CyclesTab iccid={iccid} />,
    usage: (
      <Suspense fallback={<Skeleton active paragraph={{ rows: 8 }} />}>
        <UsageTab iccid={iccid} />
      </Suspense>
    ),
    events: <EventsTab iccid={iccid} />,
    diagnose: <DiagnoseTab iccid={iccid} />,
    cdrs: <CdrsTab iccid={iccid} />,
    sms: <SmsTab iccid={iccid} />,
  };
  return (
    <>
      <DataPolicyNotice iccid={iccid} />
      <Tabs
        activeKey={active}
        onChange={open}
        items={SIM_TABS.map((key) => ({
          key,
          label: PAGE_WORDED.has(key) ? (worded ? t(`simService.tabs.${key}`) : '…') : t(`simDetail.tabs.${key}`),
          children: content[key],
        }))}
      />
    </>
  );
}

/**
 * A SIM's usage per cycle: the cycles of the bundle it counts, newest first and paged on the server (POST
 * /device/cycle), exported through the task center (/device/cycle/export); a cycle opens onto its detail (GET
 * /sim/bundle/detail/{iccid}/{bundleId}/{cycle}): bounds, uplink and downlink, CDRs and radios.
 */
import { Button, Descriptions, Drawer, Empty, Space, Table, Tag, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { DateTime } from '../../components/date-time';
import { usePaging, FIT_TABLE } from '../../components/list-parts';
import { ExportButton } from '../../resources/export-button';
import { formatKb } from '../../resources/cell';
import { currentAbility } from '../../shell/ability';
import { usePolicyTexts } from './data-policy';
import { TabFrame } from './tab-frame';
import { useSimData } from './use-sim-data';
import { formatNumber } from '../../../common/numbers';

interface Cycle {
  number: number;
  start: string;
  end: string;
  current: boolean;
  usageKb: number;
  limitKb: number | null;
  overageKb: number | null;
}

interface Cycles {
  bundleId: string | null;
  bundleName: string | null;
  resetCycle: string | null;
  items: Cycle[];
  total: number;
}

interface CycleDetail {
  cycle: Cycle & { uplinkKb: number; downlinkKb: number; cdrs: number; byRat: Array<{ rat: string; volumeKb: number }> };
}

function CycleDrawer({
  iccid,
  bundleId,
  bundleName,
  number,
  onClose,
}: {
  iccid: string;
  bundleId: string;
  bundleName: string;
  number: number;
  onClose: () => void;
}) {
  const { t, i18n } = useTranslation();
  const state = useSimData<CycleDetail>(`/api/main/sim/bundle/detail/${encodeURIComponent(iccid)}/${encodeURIComponent(bundleId)}/${number}`);
  const kb = (v: number | null) => (v === null ? '—' : formatKb(v, i18n.language));
  return (
    <Drawer open width={520} onClose={onClose} title={t('simService.cycles.detail', { number, bundle: bundleName })}>
      <TabFrame state={state}>
        {({ cycle: c }) => (
          <Descriptions
            size="small"
            column={1}
            data-testid="cycle-detail"
            items={[
              { key: 'start', label: t('simService.cycles.start'), children: <DateTime value={c.start} /> },
              { key: 'end', label: t('simService.cycles.end'), children: <DateTime value={c.end} /> },
              { key: 'usage', label: t('simService.cycles.usage'), children: kb(c.usageKb) },
              { key: 'uplink', label: t('simService.cycles.uplink'), children: kb(c.uplinkKb) },
              { key: 'downlink', label: t('simService.cycles.downlink'), children: kb(c.downlinkKb) },
              { key: 'limit', label: t('simService.cycles.limit'), children: kb(c.limitKb) },
              { key: 'overage', label: t('simService.cycles.overage'), children: kb(c.overageKb) },
              { key: 'cdrs', label: t('simService.cycles.cdrs'), children: formatNumber(c.cdrs, i18n.language) },
              {
                key: 'rat',
                label: t('simService.cycles.byRat'),
                children: c.byRat.length ? (
                  <Space size={[0, 6]} wrap>
                    {c.byRat.map((r) => (
                      <Tag key={r.rat}>{`${r.rat}: ${kb(r.volumeKb)}`}</Tag>
                    ))}
                  </Space>
                ) : (
                  '—'
                ),
              },
            ]}
          />
        )}
      </TabFrame>
    </Drawer>
  );
}

export function CyclesTab({ iccid }: { iccid: string }) {
  const { t, i18n } = useTranslation();
  const ready = usePolicyTexts();
  const paging = usePaging();
  const [open, setOpen] = useState<number | null>(null);
  // POST /device/cycle: a SIM's cycles, a page of them.
  const state = useSimData<Cycles>('/api/main/device/cycle', { iccid, page: paging.page, pageSize: paging.pageSize });
  const kb = (v: number | null) => (v === null ? '—' : formatKb(v, i18n.language));
  if (!ready) return null;
  return (
    <TabFrame state={state}>
      {(d) => (
        <>
          <Space style={{ width: '100%', justifyContent: 'space-between', marginBottom: 12 }} wrap>
            <Space direction="vertical" size={0}>
              {d.bundleName && (
                <Typography.Text strong>
                  {t('simService.cycles.bundle', { bundle: d.bundleName, reset: t(`bundleOrders.enum.resetCycle.${d.resetCycle}`) })}
                </Typography.Text>
              )}
              <Typography.Text type="secondary">{t('simService.cycles.hint')}</Typography.Text>
            </Space>
            {currentAbility().can('export', 'sim') && d.total > 0 && (
              <ExportButton
                call="POST /api/main/device/cycle/export"
                filters={() => ({ iccid, ...(d.bundleId ? { bundleId: d.bundleId } : {}) })}
                ticked={[]}
                total={d.total}
              />
            )}
          </Space>
          <Table<Cycle>
            rowKey="number"
            size="small"
            data-testid="cycles"
            dataSource={d.items}
            loading={state.loading}
            {...FIT_TABLE}
            locale={{ emptyText: <Empty description={t('simService.cycles.empty')} /> }}
            pagination={paging.pagination(d.total)}
            columns={[
              {
                key: 'number',
                title: t('simService.cycles.number'),
                render: (_, c) => (
                  <Space>
                    <Button type="link" size="small" style={{ padding: 0 }} onClick={() => setOpen(c.number)}>
                      {c.number}
                    </Button>
                    {c.current && <Tag color="processing">{t('simService.cycles.current')}</Tag>}
                  </Space>
                ),
              },
              { key: 'start', title: t('simService.cycles.start'), render: (_, c) => <DateTime value={c.start} /> },
              { key: 'end', title: t('simService.cycles.end'), render: (_, c) => <DateTime value={c.end} /> },
              { key: 'usage', title: t('simService.cycles.usage'), align: 'right', render: (_, c) => kb(c.usageKb) },
              { key: 'limit', title: t('simService.cycles.limit'), align: 'right', render: (_, c) => kb(c.limitKb) },
              {
                key: 'overage',
                title: t('simService.cycles.overage'),
                align: 'right',
                render: (_, c) => (c.overageKb ? <Typography.Text type="danger">{kb(c.overageKb)}</Typography.Text> : kb(c.overageKb)),
              },
            ]}
          />
          {open !== null && d.bundleId && (
            <CycleDrawer iccid={iccid} bundleId={d.bundleId} bundleName={d.bundleName ?? ''} number={open} onClose={() => setOpen(null)} />
          )}
        </>
      )}
    </TabFrame>
  );
}

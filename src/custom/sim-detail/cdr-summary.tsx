/** One SIM's CDR summary of the last 31 days (GET /sum/{org}/stdcdrs/{iccid}): totals and its networks and radios. */
import { Card, Col, Empty, Row, Table } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { LIMITS } from '../../../common/limits';
import { api } from '../../providers/http';
import { store } from '../../providers/session-store';
import { formatKb } from '../../resources/cell';
import { useCdrTexts } from '../cdr/texts';
import { TextStatistic } from '../../components/text-statistic';
import { formatNumber } from '../../../common/numbers';

interface Totals {
  uplinkKb: number;
  downlinkKb: number;
  volumeKb: number;
  cdrCount: number;
}
interface Summary {
  total: Totals;
  networks: Array<Totals & { network: string; rat: string }>;
}

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

export function CdrSummary({ iccid }: { iccid: string }) {
  const { t, i18n } = useTranslation();
  const ready = useCdrTexts();
  const [data, setData] = useState<Summary | null>(null);
  const days = LIMITS.cdrSummaryDays;
  useEffect(() => {
    let live = true;
    // SIM pages end the day at 23:59 UTC (SPEC.md section 9): the last 31 UTC days, today included.
    const to = day(Date.now());
    const from = day(Date.now() - (days - 1) * 86_400_000);
    const org = encodeURIComponent(store.get('partnerCode') ?? '');
    api<Summary>('GET', `/api/cdr/sum/${org}/stdcdrs/${encodeURIComponent(iccid)}?from=${from}&to=${to}`).then(
      (d) => live && setData(d),
      () => undefined,
    );
    return () => void (live = false);
  }, [iccid, days]);
  if (!ready) return null;
  const kb = (v: number) => formatKb(v, i18n.language);
  return (
    <Card size="small" title={t('cdrSummary.title', { days })} loading={!data}>
      {data && (
        <Row gutter={[16, 16]}>
          <Col xs={24} md={8}>
            <TextStatistic title={t('cdrSummary.total')} value={kb(data.total.volumeKb)} />
            <TextStatistic title={t('cdrSummary.records')} value={formatNumber(data.total.cdrCount, i18n.language)} style={{ marginTop: 12 }} />
          </Col>
          <Col xs={24} md={16}>
            <Table
              size="small"
              rowKey={(r) => `${r.network}|${r.rat}`}
              pagination={false}
              dataSource={data.networks}
              locale={{ emptyText: <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('cdrSummary.none')} /> }}
              title={() => t('cdrSummary.networks')}
              columns={[
                { key: 'network', title: t('cdrSummary.network'), dataIndex: 'network' },
                { key: 'rat', title: t('cdrSummary.rat'), render: (_, r) => t(`cdrs.enum.rat.${r.rat}`) },
                { key: 'volume', title: t('cdrSummary.volume'), align: 'right', render: (_, r) => kb(r.volumeKb) },
                { key: 'records', title: t('cdrSummary.records'), align: 'right', render: (_, r) => formatNumber(r.cdrCount, i18n.language) },
              ]}
            />
          </Col>
        </Row>
      )}
    </Card>
  );
}

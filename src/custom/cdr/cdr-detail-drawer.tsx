/** One CDR with its session and cell (GET /stdcdrs/{id}), opened from a row of cdrCard. */
import { Alert, Descriptions, Drawer, Skeleton, Tag } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { DateTime, formatDuration } from '../../components/date-time';
import { api } from '../../providers/http';
import { formatKb } from '../../resources/cell';
import { useCdrTexts } from './texts';
import { formatNumber } from '../../../common/numbers';

interface Totals {
  uplinkKb: number;
  downlinkKb: number;
  volumeKb: number;
  cdrCount: number;
}
interface CdrDetail {
  cdr: {
    id: string;
    iccid: string;
    network: string;
    planCode: string | null;
    direction: string;
    rat: string;
    volumeKb: number;
    startAt: string;
    endAt: string;
    durationS: number;
  };
  session: Totals & { source: 'network' | 'record'; startedAt: string; endedAt: string | null; apn: string | null; ip: string | null };
  cell: {
    network: string;
    mccMnc: string | null;
    country: string | null;
    countryName: string | null;
    rat: string;
    lat: number | null;
    lon: number | null;
    locatedAt: string | null;
  };
}

export function CdrDetailDrawer({ id, onClose }: { id: string | null; onClose: () => void }) {
  const { t, i18n } = useTranslation();
  const ready = useCdrTexts();
  const [data, setData] = useState<CdrDetail | null>(null);
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    if (!id) return;
    let live = true;
    setData(null);
    setFailed(false);
    api<CdrDetail>('GET', `/api/cdr/stdcdrs/${encodeURIComponent(id)}`).then(
      (d) => live && setData(d),
      () => live && setFailed(true),
    );
    return () => void (live = false);
  }, [id]);
  const kb = (v: number) => formatKb(v, i18n.language);
  const body = () => {
    if (failed) return <Alert type="error" showIcon message={t('cdrDetail.loadFailed')} />;
    if (!data || !ready) return <Skeleton active />;
    const { cdr, session, cell } = data;
    return (
      <>
        <Descriptions title={t('cdrDetail.record')} column={1} size="small" bordered>
          <Descriptions.Item label={t('cdrs.fields.iccid')}>{cdr.iccid}</Descriptions.Item>
          <Descriptions.Item label={t('cdrs.fields.planCode')}>{cdr.planCode ?? '—'}</Descriptions.Item>
          <Descriptions.Item label={t('cdrs.fields.direction')}>
            <Tag color={cdr.direction === 'uplink' ? 'blue' : 'purple'}>{t(`cdrs.enum.direction.${cdr.direction}`)}</Tag>
          </Descriptions.Item>
          <Descriptions.Item label={t('cdrs.fields.volumeKb')}>{kb(cdr.volumeKb)}</Descriptions.Item>
          <Descriptions.Item label={t('cdrs.fields.startAt')}>
            <DateTime value={cdr.startAt} />
          </Descriptions.Item>
          <Descriptions.Item label={t('cdrs.fields.endAt')}>
            <DateTime value={cdr.endAt} />
          </Descriptions.Item>
          <Descriptions.Item label={t('cdrs.fields.durationS')}>{formatDuration(cdr.durationS * 1000, i18n.language)}</Descriptions.Item>
        </Descriptions>
        <Descriptions title={t('cdrDetail.session')} column={1} size="small" bordered style={{ marginTop: 24 }}>
          <Descriptions.Item label={t('cdrDetail.source')}>
            {t(session.source === 'network' ? 'cdrDetail.sourceNetwork' : 'cdrDetail.sourceRecord')}
          </Descriptions.Item>
          <Descriptions.Item label={t('cdrDetail.started')}>
            <DateTime value={session.startedAt} />
          </Descriptions.Item>
          <Descriptions.Item label={t('cdrDetail.ended')}>{session.endedAt ? <DateTime value={session.endedAt} /> : t('cdrDetail.open')}</Descriptions.Item>
          {session.apn && <Descriptions.Item label={t('cdrDetail.apn')}>{session.apn}</Descriptions.Item>}
          {session.ip && <Descriptions.Item label={t('cdrDetail.ip')}>{session.ip}</Descriptions.Item>}
          <Descriptions.Item label={t('cdrDetail.records')}>{formatNumber(session.cdrCount, i18n.language)}</Descriptions.Item>
          <Descriptions.Item label={t('cdrDetail.uplink')}>{kb(session.uplinkKb)}</Descriptions.Item>
          <Descriptions.Item label={t('cdrDetail.downlink')}>{kb(session.downlinkKb)}</Descriptions.Item>
          <Descriptions.Item label={t('cdrDetail.total')}>{kb(session.volumeKb)}</Descriptions.Item>
        </Descriptions>
        <Descriptions title={t('cdrDetail.cell')} column={1} size="small" bordered style={{ marginTop: 24 }}>
          <Descriptions.Item label={t('cdrs.fields.network')}>{cell.network}</Descriptions.Item>
          <Descriptions.Item label={t('cdrDetail.mccMnc')}>{cell.mccMnc ?? '—'}</Descriptions.Item>
          <Descriptions.Item label={t('cdrDetail.country')}>{cell.countryName ?? '—'}</Descriptions.Item>
          <Descriptions.Item label={t('cdrs.fields.rat')}>{t(`cdrs.enum.rat.${cell.rat}`)}</Descriptions.Item>
          <Descriptions.Item label={t('cdrDetail.position')}>
            {cell.lat !== null && cell.lon !== null ? (
              <>
                {formatNumber(cell.lat, i18n.language, { maximumFractionDigits: 4 })}, {formatNumber(cell.lon, i18n.language, { maximumFractionDigits: 4 })} ·{' '}
                <DateTime value={cell.locatedAt} />
              </>
            ) : (
              t('cdrDetail.noPosition')
            )}
          </Descriptions.Item>
        </Descriptions>
      </>
    );
  };
  return (
    <Drawer open={id !== null} onClose={onClose} width={520} title={ready ? t('cdrDetail.title', { id: id ?? '' }) : ''} destroyOnHidden>
      {body()}
    </Drawer>
  );
}

/**
 * A SIM's connection: its status (refreshed on demand through /sim/connection/status), APN, IP and network, the last
 * session when it is within 3 months and the location when it is within 48 hours (SPEC.md section 9), named by the
 * server's offline geocoder.
 */
import { Card, Descriptions, Space, Tag, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { LIMITS } from '../../../common/limits';
import { DateTime } from '../../components/date-time';
import { api } from '../../providers/http';
import { formatKb } from '../../resources/cell';
import { RefreshButton, TabFrame } from './tab-frame';
import { simQuery, useSimData } from './use-sim-data';
import { formatNumber } from '../../../common/numbers';

interface Connection {
  connectionStatus: string;
  apn: string | null;
  ip: string | null;
  network: string | null;
  lastSession: { at: string; kb: number | null } | null;
  location: { lat: number; lon: number; at: string; place: { name: string; country: string; distanceKm: number } | null } | null;
  checkedAt: string;
}

export const CONNECTION_COLORS: Record<string, string> = { online: 'green', connected: 'cyan', offline: 'default', unknown: 'default' };
/** Beyond this the place is "near" rather than "in". */
const IN_TOWN_KM = 3;

export function ConnectionTab({ iccid }: { iccid: string }) {
  const { t, i18n } = useTranslation();
  const state = useSimData<Connection>(`/api/main/sim/connection?${simQuery(iccid)}`);
  const [fresh, setFresh] = useState<{ connectionStatus: string; checkedAt: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const refresh = async () => {
    setBusy(true);
    try {
      setFresh(await api<{ connectionStatus: string; checkedAt: string }>('GET', `/api/main/sim/connection/status?${simQuery(iccid)}`));
    } finally {
      setBusy(false);
    }
  };
  const dash = <Typography.Text type="secondary">—</Typography.Text>;
  const country = (code: string) => new Intl.DisplayNames([i18n.language], { type: 'region' }).of(code) ?? code;
  return (
    <TabFrame state={state}>
      {(c) => {
        const status = fresh?.connectionStatus ?? c.connectionStatus;
        const place = c.location?.place;
        return (
          <Card size="small" title={t('sims.sections.connection')} extra={<RefreshButton onClick={() => void refresh()} loading={busy} />}>
            <Descriptions
              column={{ xs: 1, md: 2, xl: 3 }}
              items={[
                {
                  key: 'status',
                  label: t('simDetail.connection.status'),
                  children: <Tag color={CONNECTION_COLORS[status]}>{t(`sims.enum.connectionStatus.${status}`)}</Tag>,
                },
                { key: 'network', label: t('simDetail.connection.network'), children: c.network ?? dash },
                { key: 'apn', label: t('simDetail.connection.apn'), children: c.apn ?? dash },
                { key: 'ip', label: t('simDetail.connection.ip'), children: c.ip ? <Typography.Text copyable>{c.ip}</Typography.Text> : dash },
                {
                  key: 'session',
                  label: t('simDetail.connection.lastSession'),
                  children: c.lastSession ? (
                    <Space size="small" wrap>
                      <DateTime value={c.lastSession.at} />
                      {c.lastSession.kb !== null && <Typography.Text type="secondary">{formatKb(c.lastSession.kb, i18n.language)}</Typography.Text>}
                    </Space>
                  ) : (
                    <Typography.Text type="secondary">{t('simDetail.connection.noSession', { months: LIMITS.lastSessionMonths })}</Typography.Text>
                  ),
                },
                { key: 'checked', label: t('simDetail.connection.checkedAt'), children: <DateTime value={fresh?.checkedAt ?? c.checkedAt} /> },
                {
                  key: 'location',
                  label: t('simDetail.connection.location'),
                  span: { xs: 1, md: 2, xl: 3 },
                  children: c.location ? (
                    <Space direction="vertical" size={0}>
                      <Typography.Text strong>{place ? `${place.name}, ${country(place.country)}` : t('simDetail.connection.noPlace')}</Typography.Text>
                      <Typography.Text type="secondary">
                        {[
                          place && place.distanceKm > IN_TOWN_KM
                            ? t('simDetail.connection.distance', { distance: `${formatNumber(Math.round(place.distanceKm), i18n.language)} km` })
                            : null,
                          `${t('simDetail.connection.coordinates')} ${c.location.lat.toFixed(4)}, ${c.location.lon.toFixed(4)}`,
                        ]
                          .filter(Boolean)
                          .join(' · ')}
                      </Typography.Text>
                      <Typography.Text type="secondary">
                        {t('simDetail.connection.reportedAt')} <DateTime value={c.location.at} />
                      </Typography.Text>
                    </Space>
                  ) : (
                    <Typography.Text type="secondary">{t('simDetail.connection.noLocation', { hours: LIMITS.locationHours })}</Typography.Text>
                  ),
                },
              ]}
            />
          </Card>
        );
      }}
    </TabFrame>
  );
}

/**
 * Export of a list through the task center (SPEC.md section 8, Export): everything the list's filters match, or the
 * ticked rows, as CSV or XLSX. The server checks and counts (none ticked, no data, over 100,000) and starts a task.
 */
import { DownOutlined, ExportOutlined } from '@ant-design/icons';
import { App, Button, Dropdown } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useParams } from 'react-router';
import { api } from '../providers/http';
import { callOf } from '../providers/data-provider';
import { formatNumber } from '../../common/numbers';

interface Props {
  /**
   * The export call; or two calls with the format in their path (SPEC.md's CDR exports: every row of the filters,
   * and the ticked ones).
   */
  call: string | { all: string; selected: string };
  /** The list's current filters as a request body. */
  filters: () => Record<string, unknown>;
  ticked: string[];
  total: number;
}

export function ExportButton({ call, filters, ticked, total }: Props) {
  const { t, i18n } = useTranslation();
  const { message } = App.useApp();
  const navigate = useNavigate();
  const { lang } = useParams();
  const [busy, setBusy] = useState(false);
  const start = async (format: 'csv' | 'xlsx', selected: boolean) => {
    const spec = typeof call === 'string' ? call : selected ? call.selected : call.all;
    const { method, url } = callOf(spec);
    const inPath = url.includes(':format');
    setBusy(true);
    try {
      const r = await api<{ quantity: number }>(method, url.replace(':format', format), {
        ...filters(),
        ...(inPath ? {} : { format }),
        ...(selected ? { selected: ticked } : {}),
      });
      void message.success({
        content: (
          <span>
            {t('resources.exportStarted', { count: r.quantity, n: formatNumber(r.quantity, i18n.language) })}{' '}
            <a onClick={() => navigate(`/${lang}/taskcenter`)}>{t('resources.open')}</a>
          </span>
        ),
        duration: 6,
      });
    } catch {
      // The HTTP helper shows the server's reason (no data, over 100,000, none ticked).
    } finally {
      setBusy(false);
    }
  };
  const n = (count: number) => formatNumber(count, i18n.language);
  const items = (['csv', 'xlsx'] as const).flatMap((format) => [
    {
      key: `all-${format}`,
      label: t('resources.exportAll', { count: total, n: n(total), format: format.toUpperCase() }),
      onClick: () => void start(format, false),
    },
    ...(ticked.length
      ? [
          {
            key: `ticked-${format}`,
            label: t('resources.exportSelected', { count: ticked.length, n: n(ticked.length), format: format.toUpperCase() }),
            onClick: () => void start(format, true),
          },
        ]
      : []),
  ]);
  return (
    <Dropdown menu={{ items }} trigger={['click']}>
      <Button icon={<ExportOutlined />} loading={busy}>
        {t('resources.export')} <DownOutlined />
      </Button>
    </Dropdown>
  );
}

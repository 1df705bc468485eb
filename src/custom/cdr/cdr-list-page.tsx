import { BarChartOutlined } from '@ant-design/icons';
import { Button } from 'antd';
import { lazy, Suspense, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useParams } from 'react-router';
import { RESOURCES } from '../../../common/resource-registry';
import { currentAbility } from '../../shell/ability';
import type { Criteria } from '../../resources/list-toolbar';
import { ResourceListPage } from '../../resources/resource-list-page';
import { useCdrTexts } from './texts';

const CdrDetailDrawer = lazy(() => import('./cdr-detail-drawer').then((m) => ({ default: m.CdrDetailDrawer })));

/** A record's Details: its session and cell in a drawer. */
function CdrDetailsButton({ id, onOpen }: { id: string; onOpen: (id: string) => void }) {
  const { t } = useTranslation();
  return (
    <Button type="link" size="small" onClick={() => onOpen(id)}>
      {t('cdrDetail.details')}
    </Button>
  );
}

/** The chart's address for the list's criteria: its ICCID search and the UTC days of its window. */
export function chartQueryOf(c: Criteria): string {
  const q = new URLSearchParams();
  if (c.search?.field === 'iccid' && c.search.value) q.set('iccid', c.search.value);
  const window = c.ranges?.startAt;
  if (window) {
    q.set('from', window[0].slice(0, 10));
    q.set('to', window[1].slice(0, 10));
  }
  const text = q.toString();
  return text ? `?${text}` : '';
}

/** Call and data records (cdrCard): the schema list of schemas/cdrs.json, inside a window of at most 31 days. */
export function CdrListPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const { lang } = useParams();
  const criteria = useRef<Criteria>({ filters: {} });
  const [open, setOpen] = useState<string | null>(null);
  useCdrTexts();
  return (
    <>
      <ResourceListPage
        resource={RESOURCES.cdrs}
        title={t('menu.cdrCard')}
        exportCall={
          currentAbility().can('export', 'cdr')
            ? { all: 'POST /api/cdr/export/all/distributor/:org/:format/cdrs', selected: 'POST /api/cdr/export/distributor/:org/:format/cdrs' }
            : undefined
        }
        onCriteria={(c) => (criteria.current = c)}
        rowActions={(row) => <CdrDetailsButton id={String(row.id)} onOpen={setOpen} />}
        // The chart and back keeps this page as it was (SPEC.md section 2: kept alive only for that trip); the chart
        // shows what the list shows: the SIMs its ICCID search names, over the days of its window.
        extra={
          <Button icon={<BarChartOutlined />} onClick={() => navigate(`/${lang}/chartView${chartQueryOf(criteria.current)}`)}>
            {t('cdrChart.open')}
          </Button>
        }
      />
      {open !== null && (
        <Suspense fallback={null}>
          <CdrDetailDrawer id={open} onClose={() => setOpen(null)} />
        </Suspense>
      )}
    </>
  );
}

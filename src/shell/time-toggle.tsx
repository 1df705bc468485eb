import { Segmented } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { store } from '../providers/session-store';
import { announceSessionChange } from '../providers/use-session-value';

/** UTC / local time, stored as TimeZone; every time shown follows it (src/components/date-time.tsx). */
export function TimeToggle() {
  const { t } = useTranslation();
  const [zone, setZone] = useState(store.get('TimeZone') === 'UTC' ? 'UTC' : 'local');
  return (
    <Segmented
      aria-label={t('shell.timeZone')}
      size="small"
      value={zone}
      options={[
        { value: 'local', label: t('shell.local') },
        { value: 'UTC', label: 'UTC' },
      ]}
      onChange={(v) => {
        store.set('TimeZone', String(v));
        setZone(String(v));
        announceSessionChange();
      }}
    />
  );
}

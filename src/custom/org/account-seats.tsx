/**
 * The accounts left in the current organisation (SPEC.md section 6: account and organisation counts are capped and
 * shown as seats left), as the organisations' form shows theirs: on the accounts list, the new-account form and the
 * invitation wizard. A full organisation is said before the form is filled, not after it is sent.
 */
import { Alert, Tooltip, Typography } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api } from '../../providers/http';
import { store } from '../../providers/session-store';
import { formatNumber } from '../../../common/numbers';

interface Seats {
  accountCap: number;
  accountsLeft: number;
}

/** The seats of the current organisation; version: asks again when it changes (an invitation sent). */
function useAccountSeats(version: number): Seats | null {
  const [seats, setSeats] = useState<Seats | null>(null);
  useEffect(() => {
    let live = true;
    void api<Seats>('GET', `/api/main/org/user/config/user_surplus/${encodeURIComponent(store.get('partnerCode') ?? '')}`, undefined, { quiet: true }).then(
      (s) => live && setSeats(s),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [version]);
  return seats;
}

/** compact: a line beside a page's buttons; otherwise a notice above a form. */
export function AccountSeats({ compact, version = 0 }: { compact?: boolean; version?: number }) {
  const { t, i18n } = useTranslation();
  const seats = useAccountSeats(version);
  if (!seats) return null;
  const full = seats.accountsLeft <= 0;
  const text = t('accounts.seatsLeft', {
    count: seats.accountsLeft,
    n: formatNumber(seats.accountsLeft, i18n.language),
    cap: formatNumber(seats.accountCap, i18n.language),
  });
  if (compact) {
    return (
      <Tooltip title={full ? t('errors.maxAccounts') : undefined}>
        <Typography.Text type={full ? 'warning' : 'secondary'}>{text}</Typography.Text>
      </Tooltip>
    );
  }
  return <Alert type={full ? 'warning' : 'info'} showIcon style={{ marginBottom: 16, maxWidth: 640 }} message={full ? t('errors.maxAccounts') : text} />;
}

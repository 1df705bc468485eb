import { ReloadOutlined } from '@ant-design/icons';
import { Button, Space } from 'antd';
import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api } from '../../providers/http';

export interface Challenge {
  challengeId: string;
  svg: string;
}

/** Load image challenges; refresh() shows a new one. */
export function useChallenge() {
  const [challenge, setChallenge] = useState<Challenge | null>(null);
  const refresh = useCallback(() => {
    api<Challenge>('GET', '/api/identity/captcha', undefined, { quiet: true }).then(setChallenge, () => setChallenge(null));
  }, []);
  useEffect(refresh, [refresh]);
  return { challenge, refresh };
}

/** The challenge picture with a button for another one. */
export function CaptchaImage({ challenge, onRefresh }: { challenge: Challenge | null; onRefresh: () => void }) {
  const { t } = useTranslation();
  return (
    <Space.Compact>
      {challenge ? (
        <img
          alt={t('login.captchaAlt')}
          src={`data:image/svg+xml;utf8,${encodeURIComponent(challenge.svg)}`}
          width={120}
          height={40}
          style={{ borderRadius: 4, display: 'block' }}
        />
      ) : (
        <div style={{ width: 120, height: 40 }} />
      )}
      <Button aria-label={t('login.refreshCode')} title={t('login.refreshCode')} icon={<ReloadOutlined />} onClick={onRefresh} style={{ height: 40 }} />
    </Space.Compact>
  );
}

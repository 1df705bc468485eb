/**
 * SIM actions on the ticked SIMs (SPEC.md section 8): activate, suspend, resume and reset, each shown only to the
 * roles that may use it, each confirmed, and answered SIM by SIM (what was done, what was refused and why). An
 * activation is first checked (POST /sim/preActiveValidated: the SIMs it would refuse, and why, shown in the
 * confirmation), then sent to the network as a task: the answer says so and leads to the task center. From the list, the
 * ticked SIMs can also be sent an SMS (All SMS's send form, opened with them).
 */
import { useInvalidate } from '@refinedev/core';
import { App, Button, Space, Table, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useParams } from 'react-router';
import { LIMITS } from '../../../common/limits';
import { api } from '../../providers/http';
import { currentAbility } from '../../shell/ability';
import { decide, type SimFacts } from '../../../common/lifecycle';
import { formatNumber } from '../../../common/numbers';

type Action = 'activate' | 'suspend' | 'resume' | 'reset';
const CALLS: Record<Action, string> = {
  activate: '/api/main/sim/active',
  suspend: '/api/main/sim/suspend',
  resume: '/api/main/sim/resume',
  reset: '/api/main/device/reset',
};

interface Result {
  iccid: string;
  ok: boolean;
  message?: string;
}

/** What the page knows of one SIM: enough for the lifecycle to say which actions can apply. */
type Known = Pick<SimFacts, 'status' | 'subStatus' | 'technology'>;

/**
 * On one SIM's page only the actions its state allows are offered (the server's own lifecycle decides, with what the
 * page cannot know — a bundle, a request in progress — taken as allowing; the server still answers for those).
 */
const applies = (sim: Known | undefined, action: Action) =>
  !sim || decide({ ...sim, operation: null, hasAvailableBundle: true, inTestPeriod: false }, action).ok;

/** The SIMs refused (or that would be), each with the server's reason. */
function Refusals({ rows, pageSize }: { rows: Result[]; pageSize: number }) {
  const { t } = useTranslation();
  return (
    <Table
      size="small"
      rowKey="iccid"
      pagination={{ pageSize }}
      dataSource={rows}
      columns={[
        { title: 'ICCID', dataIndex: 'iccid', key: 'iccid' },
        { title: t('simActions.reason'), dataIndex: 'message', key: 'message' },
      ]}
    />
  );
}

export function SimActions({ ticked, done, sim }: { ticked: string[]; done: () => void; sim?: Known }) {
  const { t, i18n } = useTranslation();
  const { modal, message } = App.useApp();
  const [busy, setBusy] = useState<Action | null>(null);
  // The SIM list is kept alive (SPEC.md section 2): after an action on a SIM's page it must not show the old states.
  const invalidate = useInvalidate();
  const navigate = useNavigate();
  const { lang } = useParams();
  const allowed = (['activate', 'suspend', 'resume', 'reset'] as const).filter((a) => currentAbility().can(a, 'sim') && applies(sim, a));
  // From the list, the ticked SIMs can be sent an SMS (the All SMS page's send form opens with them).
  const sms = !sim && currentAbility().can('sendSms', 'sim');
  if (!allowed.length && !sms) return null;
  const n = formatNumber(ticked.length, i18n.language);
  const run = async (action: Action) => {
    setBusy(action);
    try {
      const r = await api<{ results: Result[]; accepted: number; refused: number; taskId?: string }>('POST', CALLS[action], { iccids: ticked });
      const refused = r.results.filter((x) => !x.ok);
      const okN = formatNumber(r.accepted, i18n.language);
      // An accepted activation is a task the network carries out: say it was sent, and where to follow it.
      let close = () => undefined as void;
      const sent = r.taskId ? (
        <span>
          {t('simActions.sent', { count: r.accepted, n: okN })}{' '}
          <a
            onClick={() => {
              close();
              navigate(`/${lang}/taskcenter`);
            }}
          >
            {t('resources.open')}
          </a>
        </span>
      ) : null;
      if (!refused.length)
        void message.success(sent ? { content: sent, duration: 6 } : t('simActions.done', { count: r.accepted, n: okN, action: t(`simActions.${action}`) }));
      else
        close = modal.info({
          title: t(action === 'activate' ? 'simActions.partlySent' : 'simActions.partly', { ok: r.accepted, refused: r.refused }),
          width: 720,
          content: (
            <>
              {sent && <Typography.Paragraph>{sent}</Typography.Paragraph>}
              <Refusals rows={refused} pageSize={10} />
            </>
          ),
        }).destroy;
      done();
      void invalidate({ resource: 'sims', invalidates: ['list'] });
    } catch {
      // The HTTP helper has shown the server's reason (none ticked, over 1000).
    } finally {
      setBusy(null);
    }
  };
  const ask = async (action: Action) => {
    // Before an activation is confirmed, the server says which SIMs its rules would refuse and why (nothing is taken).
    let refused: Result[] = [];
    if (action === 'activate') {
      setBusy(action);
      try {
        refused = (await api<{ results: Result[] }>('POST', '/api/main/sim/preActiveValidated', { iccids: ticked }, { quiet: true })).results.filter(
          (x) => !x.ok,
        );
      } catch {
        // Without the check the confirmation is asked as before; the activation answers SIM by SIM anyway.
      } finally {
        setBusy(null);
      }
    }
    modal.confirm({
      title: t('simActions.confirmTitle', { action: t(`simActions.${action}`), count: ticked.length, n }),
      width: refused.length ? 720 : undefined,
      content: (
        <>
          <Typography.Paragraph>{t(`simActions.confirm.${action}`)}</Typography.Paragraph>
          {refused.length > 0 && (
            <div data-testid="activate-precheck">
              <Typography.Paragraph type="warning">{t('simActions.precheck', { refused: refused.length, count: new Set(ticked).size })}</Typography.Paragraph>
              <Refusals rows={refused} pageSize={5} />
            </div>
          )}
        </>
      ),
      okText: t(`simActions.${action}`),
      okButtonProps: { danger: action === 'suspend' },
      onOk: () => run(action),
    });
  };
  const disabled = ticked.length === 0 || ticked.length > LIMITS.activationBatch;
  return (
    <Space wrap>
      {allowed.map((a) => (
        <Button
          key={a}
          disabled={disabled}
          loading={busy === a}
          onClick={() => void ask(a)}
          title={ticked.length > LIMITS.activationBatch ? t('simActions.tooMany', { max: LIMITS.activationBatch }) : undefined}
        >
          {t(`simActions.${a}`)}
        </Button>
      ))}
      {sms && (
        <Button disabled={disabled} onClick={() => navigate(`/${lang}/message`, { state: { sendTo: ticked } })}>
          {t('sms.send')}
        </Button>
      )}
    </Space>
  );
}

/**
 * Accounts (setCard), New account (newUser) and Account detail (userDetail): the list, form and detail of
 * schemas/accounts.json, with the actions SPEC.md section 7 gives (status, password reset, oversight, removal,
 * invitation) shown only where the role may use them on that account (a superadmin cannot be removed).
 */
import { MailOutlined, PlusOutlined } from '@ant-design/icons';
import { App, Button, Modal, Space, Steps, Switch, Tooltip, Typography } from 'antd';
import { useState, type ReactElement } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useParams } from 'react-router';
import { subjectOf } from '../../../common/ability';
import { RESOURCES } from '../../../common/resource-registry';
import { fieldsSchema } from '../../../common/resources';
import { ROLES, roleRank, type Role } from '../../../common/roles';
import { api, type HttpError } from '../../providers/http';
import { currentRole, store } from '../../providers/session-store';
import { currentAbility } from '../../shell/ability';
import { AccountSeats } from './account-seats';
import { ResourceCreatePage, ResourceEditPage } from '../../resources/resource-form-page';
import { ResourceListPage } from '../../resources/resource-list-page';
import { ResourceShowPage, usePageAddress } from '../../resources/resource-show-page';
import { SchemaForm } from '../../resources/schema-form';

const accounts = RESOURCES.accounts;
// An invitee's names are null until the invitation is accepted (the server shows only the invitation).
// accountWide: the server's answer, from the rules its handlers apply, whether this caller may change what is the
// account's own (false when the account is also in an organisation where the caller lacks the right).
type Account = Record<string, unknown> & {
  id: string;
  email: string;
  firstName: string | null;
  lastName: string | null;
  role: Role;
  status: string;
  oversight: boolean;
  pendingInvite: boolean;
  accountWide?: boolean;
};

/** The roles the signed-in person may give: none above their own. */
function grantableRoles(): Role[] {
  const mine = currentRole() as Role | null;
  return mine ? ROLES.filter((r) => roleRank(r) <= roleRank(mine)) : [];
}

/** Some fields of a record (each wizard step's form holds its own fields only). */
const only = (data: Record<string, unknown>, fields: string[]) => Object.fromEntries(fields.filter((f) => data[f] !== undefined).map((f) => [f, data[f]]));

// An account's record as the permission file's conditions read it (its role; an invitee is not a member yet).
const may = (action: string, account?: { role: unknown; pendingInvite?: boolean }) =>
  account
    ? currentAbility().can(action, subjectOf('account', { role: account.role, pendingInvite: account.pendingInvite ?? false }))
    : currentAbility().can(action, 'account');

export function AccountsPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const { lang } = useParams();
  const [inviting, setInviting] = useState(false);
  const [version, setVersion] = useState(0);
  return (
    <>
      <ResourceListPage
        version={version}
        resource={accounts}
        title={t('menu.setCard')}
        showPath={(row) => `/${lang}/userDetail?id=${encodeURIComponent(String(row.id))}`}
        extra={
          may('create') && (
            <Space>
              <AccountSeats compact version={version} />
              <Button icon={<MailOutlined />} onClick={() => setInviting(true)}>
                {t('accounts.invite')}
              </Button>
              <Button type="primary" icon={<PlusOutlined />} onClick={() => navigate(`/${lang}/newUser`)}>
                {t('accounts.newAccount')}
              </Button>
            </Space>
          )
        }
      />
      <InviteWizard
        open={inviting}
        onClose={(sent) => {
          setInviting(false);
          if (sent) setVersion((v) => v + 1);
        }}
      />
    </>
  );
}

/** SPEC.md section 2's invite wizard: user info, role and access, confirm. */
function InviteWizard({ open, onClose }: { open: boolean; onClose: (sent: boolean) => void }) {
  const { t } = useTranslation();
  const { message } = App.useApp();
  const [step, setStep] = useState(0);
  const [data, setData] = useState<Record<string, unknown>>({});
  const [busy, setBusy] = useState(false);
  const [serverError, setServerError] = useState<{ field: string; message: string } | null>(null);
  const roles = grantableRoles();
  const info = fieldsSchema(accounts, ['email', 'firstName', 'lastName'], ['firstName', 'lastName']);
  const access = fieldsSchema(accounts, ['role', 'locale'], ['locale']);
  const accessSchema = { ...access, properties: { ...access.properties, role: { ...access.properties.role, enum: roles } } };
  const close = (sent: boolean) => {
    setStep(0);
    setData({});
    setServerError(null);
    onClose(sent);
  };
  const send = async () => {
    setBusy(true);
    try {
      await api('POST', '/api/identity/info/cube/invites', data);
      void message.success(t('accounts.invited', { email: data.email }));
      close(true);
    } catch (e) {
      const err = e as HttpError;
      // A field the server refuses (the e-mail already a member) sends the person back to it.
      if (err.field === 'email') {
        setServerError({ field: 'email', message: err.message });
        setStep(0);
      }
    } finally {
      setBusy(false);
    }
  };
  return (
    <Modal open={open} title={t('accounts.inviteTitle')} onCancel={() => close(false)} footer={null} width={640} destroyOnHidden>
      <Steps
        current={step}
        size="small"
        style={{ marginBottom: 24 }}
        items={[{ title: t('accounts.steps.info') }, { title: t('accounts.steps.access') }, { title: t('accounts.steps.confirm') }]}
      />
      {open && <AccountSeats />}
      {step === 0 && (
        <SchemaForm
          schema={info}
          prefix="accounts"
          formData={only(data, ['email', 'firstName', 'lastName'])}
          serverError={serverError}
          onChange={(d) => {
            setData((prev) => ({ ...prev, ...d }));
            setServerError(null);
          }}
          onSubmit={() => setStep(1)}
          submitText={t('accounts.next')}
        />
      )}
      {step === 1 && (
        <SchemaForm
          schema={accessSchema}
          prefix="accounts"
          formData={only(data, ['role', 'locale'])}
          onChange={(d) => setData((prev) => ({ ...prev, ...d }))}
          onSubmit={() => setStep(2)}
          submitText={t('accounts.next')}
          back={{ text: t('accounts.previous'), onClick: () => setStep(0) }}
        />
      )}
      {step === 2 && (
        <Space direction="vertical" size="large" style={{ width: '100%' }}>
          <Typography.Paragraph>
            {t('accounts.confirmText', {
              email: data.email,
              org: store.get('enterpriseName') ?? store.get('partnerCode'),
              role: t(`accounts.enum.role.${String(data.role)}`),
            })}
          </Typography.Paragraph>
          <Space>
            <Button onClick={() => setStep(1)}>{t('accounts.previous')}</Button>
            <Button type="primary" loading={busy} onClick={() => void send()}>
              {t('accounts.sendInvite')}
            </Button>
          </Space>
        </Space>
      )}
    </Modal>
  );
}

export function NewAccountPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const { lang } = useParams();
  return (
    <ResourceCreatePage
      resource={accounts}
      title={t('menu.newUser')}
      intro={<AccountSeats />}
      // Nobody gives a role above their own (the server refuses it too).
      limits={{ role: { enum: grantableRoles() } }}
      onCreated={(r) => navigate(`/${lang}/userDetail?id=${encodeURIComponent(String(r.id))}`)}
    />
  );
}

export function AccountDetailPage() {
  const { t } = useTranslation();
  const { navigate, lang, params, id } = usePageAddress();
  const back = () => navigate(`/${lang}/setCard`);
  const detail = `/${lang}/userDetail?id=${encodeURIComponent(id)}`;
  if (params.get('edit') === '1') {
    return <ResourceEditPage resource={accounts} id={id} title={t('resources.editOf', { name: t('accounts.one') })} onSaved={() => navigate(detail)} />;
  }
  return (
    <ResourceShowPage
      resource={accounts}
      id={id}
      title={t('menu.userDetail')}
      onBack={back}
      extra={(record, reload) => <AccountActions account={record as Account} reload={reload} onRemoved={back} onEdit={() => navigate(`${detail}&edit=1`)} />}
    />
  );
}

/** The actions on one account, each confirmed, each shown only where the rules allow it on this account's role. */
function AccountActions({ account, reload, onRemoved, onEdit }: { account: Account; reload: () => void; onRemoved: () => void; onEdit: () => void }) {
  const { t } = useTranslation();
  const { message, modal } = App.useApp();
  const self = account.id === store.get('userId');
  const name = [account.firstName, account.lastName].filter(Boolean).join(' ') || account.email;
  const org = store.get('enterpriseName') ?? store.get('partnerCode') ?? '';
  const run = (title: string, content: string, action: () => Promise<unknown>, done?: string, danger = false) =>
    modal.confirm({
      title,
      content,
      okButtonProps: { danger },
      onOk: async () => {
        await action();
        if (done) void message.success(done);
      },
    });
  const id = encodeURIComponent(account.id);
  // The role's rules say whether an action is ours at all (hidden when not); the account's other organisations,
  // which only the server knows, may still keep the account-wide ones out of reach: shown disabled, with the reason.
  const elsewhere = account.accountWide === false;
  const why = (control: ReactElement) => (elsewhere ? <Tooltip title={t('accounts.accountElsewhere')}>{control}</Tooltip> : control);
  return (
    <Space wrap>
      {self && <Typography.Text type="secondary">{t('accounts.you')}</Typography.Text>}
      {!account.pendingInvite && may('update', account) && <Button onClick={onEdit}>{t('forms.edit')}</Button>}
      {account.pendingInvite && may('delete', account) && (
        <Button
          onClick={() =>
            run(
              t('accounts.revoke'),
              t('accounts.revokeConfirm', { email: account.email }),
              () => api('DELETE', `/api/identity/info/cube/invites?email=${encodeURIComponent(account.email)}`).then(onRemoved),
              t('accounts.revoked'),
            )
          }
        >
          {t('accounts.revoke')}
        </Button>
      )}
      {!self &&
        !account.pendingInvite &&
        may('changeStatus', account) &&
        why(
          <Button
            disabled={elsewhere}
            onClick={() => {
              const status = account.status === 'active' ? 'disabled' : 'active';
              run(
                t(status === 'disabled' ? 'accounts.disable' : 'accounts.enable'),
                t(status === 'disabled' ? 'accounts.disableConfirm' : 'accounts.enableConfirm', { name }),
                () => api('PATCH', `/api/main/change_status/accounts/${id}`, { status }).then(reload),
                undefined,
                status === 'disabled',
              );
            }}
          >
            {t(account.status === 'active' ? 'accounts.disable' : 'accounts.enable')}
          </Button>,
        )}
      {!account.pendingInvite &&
        may('resetPassword', account) &&
        why(
          <Button
            disabled={elsewhere}
            onClick={() =>
              run(
                t('accounts.resetPassword'),
                t('accounts.resetConfirm', { name, email: account.email }),
                () => api('PATCH', `/api/main/reset_password/accounts/${id}`),
                t('accounts.resetDone', { email: account.email }),
              )
            }
          >
            {t('accounts.resetPassword')}
          </Button>,
        )}
      {!self && !account.pendingInvite && may('grantOversight', account) && (
        <Tooltip title={t(elsewhere ? 'accounts.accountElsewhere' : 'accounts.oversightHelp')}>
          <Space>
            <Switch
              aria-label={t('accounts.fields.oversight')}
              checked={account.oversight}
              disabled={elsewhere}
              onChange={(oversight) => void api('PUT', `/api/main/accounts/oversight/${id}`, { oversight }).then(reload, () => undefined)}
            />
            <span>{t('accounts.fields.oversight')}</span>
          </Space>
        </Tooltip>
      )}
      {!self && !account.pendingInvite && may('delete', account) && (
        <Button
          danger
          onClick={() =>
            run(
              t('accounts.remove'),
              t('accounts.removeConfirm', { name, org }),
              () => api('DELETE', `/api/identity/permission/info/cube/permissions/${encodeURIComponent(store.get('partnerCode') ?? '')}/${id}`).then(onRemoved),
              t('accounts.removed', { name }),
              true,
            )
          }
        >
          {t('accounts.remove')}
        </Button>
      )}
    </Space>
  );
}

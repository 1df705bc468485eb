/** Enable or disable, and delete, a scheduled SMS: each after a confirmation; refused by the server while in progress. */
import { DeleteOutlined, PauseCircleOutlined, PlayCircleOutlined } from '@ant-design/icons';
import { App, Button, Popconfirm, Switch, Tooltip } from 'antd';
import { useTranslation } from 'react-i18next';
import { ConfirmDelete } from '../../components/list-parts';
import { subjectOf } from '../../../common/ability';
import { currentAbility } from '../../shell/ability';
import { schedulesApi, type Schedule } from './api';

const can = (action: 'update' | 'delete' | 'create', schedule?: Pick<Schedule, 'createdBy'>) =>
  currentAbility().can(action, schedule ? subjectOf('cube-schedule-sms', { createdBy: schedule.createdBy }) : 'cube-schedule-sms');

/** Whether the signed-in account may change this schedule: an operator their own, an admin or superadmin every one. */
export const canManage = (schedule: Pick<Schedule, 'createdBy'>) => can('update', schedule);
export const canCreate = () => can('create');

/** A button, or in a table row (compact) a switch that shows the state and names the action it takes. */
export function ToggleButton({ schedule, onDone, compact }: { schedule: Schedule; onDone: (s: Schedule) => void; compact?: boolean }) {
  const { t } = useTranslation();
  const { message } = App.useApp();
  if (!can('update', schedule)) return null;
  // A finished schedule has nothing to switch: in a row an off switch that says why; on its page, no button.
  if (schedule.finished)
    return compact ? (
      <Tooltip title={t('smsSchedules.finishedHint')}>
        <Switch size="small" checked={false} disabled aria-label={`${t('smsSchedules.status.finished')}: ${schedule.name}`} />
      </Tooltip>
    ) : null;
  const enabling = schedule.status === 'disabled';
  const label = t(enabling ? 'smsSchedules.enable' : 'smsSchedules.disable');
  const button = compact ? (
    <Switch size="small" checked={!enabling} disabled={schedule.locked} aria-label={`${label}: ${schedule.name}`} />
  ) : (
    <Button icon={enabling ? <PlayCircleOutlined /> : <PauseCircleOutlined />} disabled={schedule.locked}>
      {label}
    </Button>
  );
  if (schedule.locked) return <Tooltip title={t('smsSchedules.inProgress')}>{button}</Tooltip>;
  return (
    <Popconfirm
      title={t(enabling ? 'smsSchedules.enableTitle' : 'smsSchedules.disableTitle', { name: schedule.name })}
      description={t(enabling ? 'smsSchedules.enableText' : 'smsSchedules.disableText')}
      okText={t(enabling ? 'smsSchedules.enable' : 'smsSchedules.disable')}
      cancelText={t('smsSchedules.cancel')}
      onConfirm={async () => {
        const next = await schedulesApi.setStatus(schedule.id, enabling ? 'enabled' : 'disabled');
        void message.success(t(enabling ? 'smsSchedules.enabled' : 'smsSchedules.disabled', { name: schedule.name }));
        onDone(next);
      }}
    >
      {button}
    </Popconfirm>
  );
}

/** A button, or in a table row (compact) an icon with the action as its name. */
export function DeleteButton({ schedule, onDone, compact }: { schedule: Schedule; onDone: () => void; compact?: boolean }) {
  const { t } = useTranslation();
  if (!can('delete', schedule)) return null;
  const button = compact ? (
    <Button size="small" type="text" danger icon={<DeleteOutlined />} disabled={schedule.locked} aria-label={`${t('smsSchedules.delete')}: ${schedule.name}`} />
  ) : (
    <Button danger icon={<DeleteOutlined />} disabled={schedule.locked}>
      {t('smsSchedules.delete')}
    </Button>
  );
  if (schedule.locked) return <Tooltip title={t('smsSchedules.inProgress')}>{button}</Tooltip>;
  return (
    <ConfirmDelete words="smsSchedules" name={schedule.name} remove={() => schedulesApi.remove(schedule.id)} onDone={onDone}>
      {button}
    </ConfirmDelete>
  );
}

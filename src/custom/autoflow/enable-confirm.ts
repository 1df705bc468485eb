/**
 * A rule that suspends, throttles or messages SIMs asks before it is enabled (created enabled, or switched on),
 * naming how many SIMs it would act on now, as the server's rule engine counts them (POST /rules/impact): a usage rule
 * the SIMs meeting its condition now, an event rule the SIMs it watches.
 */
import type { useAppProps } from 'antd/es/app/context';
import type { TFunction } from 'i18next';
import type { ActionType, AutoflowRuleDocument } from '../../../common/autoflow-rule';
import { formatNumber } from '../../../common/numbers';
import { autoflowApi } from './api';

/** The actions that change or message the SIMs themselves, in the order their verb is chosen. */
const ACTING: readonly ActionType[] = ['suspend', 'throttle', 'sms'];

/** The first action of the document that acts on its SIMs, or null when none does (tags, e-mails, webhooks ask nothing). */
export const actingAction = (doc: Pick<AutoflowRuleDocument, 'actions'>): ActionType | null =>
  ACTING.find((a) => doc.actions.some((x) => x.type === a)) ?? null;

/**
 * Ask before enabling; true when the person agrees or the rule acts on no SIM. The count is asked of the server first;
 * if it cannot answer (the document is refused), its refusal is thrown, for the caller to show.
 */
export async function confirmEnable(
  modal: useAppProps['modal'],
  t: TFunction,
  lang: string,
  doc: Pick<AutoflowRuleDocument, 'name' | 'trigger' | 'scope' | 'actions'>,
  okText?: string,
): Promise<boolean> {
  const action = actingAction(doc);
  if (!action) return true;
  const { count, basis } = await autoflowApi.impact(doc);
  return new Promise<boolean>((resolve) => {
    modal.confirm({
      title: t('autoflow.enableConfirm.title', { name: doc.name }),
      content: t(`autoflow.enableConfirm.${basis}.${action}`, { count, n: formatNumber(count, lang) }),
      okText: okText ?? t('autoflow.enableConfirm.ok'),
      cancelText: t('autoflow.enableConfirm.cancel'),
      okButtonProps: { danger: count > 0, id: 'autoflow-enable-ok' },
      onOk: () => resolve(true),
      onCancel: () => resolve(false),
    });
  });
}

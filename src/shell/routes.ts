/** Every signed-in screen of SPEC.md section 2: its path under /{lang}/, its permission key, its menu place. */
import type { Action, Subject } from '../../common/permissions';

export interface ScreenDef {
  key: string;
  path: string;
  subject: Exclude<Subject, 'all'>;
  /** The action entering the screen needs (default read): creation screens need create. */
  action?: Action;
  /** The menu group (top-level key) it sits in; absent for screens outside the menu. */
  group?: 'dashboard' | 'sim' | 'finance' | 'message' | 'autoflow' | 'cdr' | 'developer' | 'settings' | 'tasks';
  /** The menu item highlighted for screens outside the menu. */
  highlights?: string;
  /** Hidden when the organisation or partner lacks the feature. */
  feature?: 'pools' | 'reports';
}

export const SCREENS: ScreenDef[] = [
  { key: 'analysis', path: 'dashboard/analysis', subject: 'sim', group: 'dashboard' },
  { key: 'heatmap', path: 'dashboard/heatmap', subject: 'sim', group: 'dashboard' },
  { key: 'simCard', path: 'sim/simCard', subject: 'sim', group: 'sim' },
  { key: 'simDetail', path: 'sim/detail', subject: 'sim', highlights: 'simCard' },
  { key: 'service', path: 'sim/service', subject: 'sim', group: 'sim' },
  { key: 'shared', path: 'sim/shared', subject: 'shared-pool-cube', group: 'sim', feature: 'pools' },
  { key: 'reports', path: 'sim/reports', subject: 'sim-report-cube', group: 'sim', feature: 'reports' },
  { key: 'finance', path: 'finance', subject: 'customer-bill-cube', group: 'finance' },
  { key: 'financeDetailsPage', path: 'financeDetailsPage', subject: 'customer-bill-cube', highlights: 'finance' },
  { key: 'financeSimDetailsPage', path: 'financeSimDetailsPage', subject: 'customer-bill-cube', highlights: 'finance' },
  { key: 'message', path: 'message', subject: 'sim', group: 'message' },
  // Without an id the list of scheduled SMS (a menu entry of its own), with ?id= one of them.
  { key: 'scheduleSmsDetails', path: 'scheduleSmsDetails', subject: 'cube-schedule-sms', group: 'message' },
  { key: 'scheduleSmsAdd', path: 'scheduleSmsAdd', subject: 'cube-schedule-sms', action: 'create', highlights: 'scheduleSmsDetails' },
  { key: 'autoflow', path: 'autoflow', subject: 'autoflow-cube', group: 'autoflow' },
  { key: 'workFlowOperation', path: 'workFlowOperation', subject: 'autoflow-cube', highlights: 'autoflow' },
  { key: 'trigger', path: 'trigger', subject: 'autoflow-cube', highlights: 'autoflow' },
  { key: 'cdrCard', path: 'cdrCard', subject: 'cdr', group: 'cdr' },
  { key: 'chartView', path: 'chartView', subject: 'cdr', highlights: 'cdrCard' },
  { key: 'developerView', path: 'developerView', subject: 'cube-developer-key', group: 'developer' },
  { key: 'setCard', path: 'setCard', subject: 'account', group: 'settings' },
  { key: 'newUser', path: 'newUser', subject: 'account', action: 'create', highlights: 'setCard' },
  { key: 'userDetail', path: 'userDetail', subject: 'account', highlights: 'setCard' },
  { key: 'orgs', path: 'orgs', subject: 'org', highlights: 'setCard' },
  { key: 'orgscreate', path: 'orgscreate', subject: 'org', action: 'create', highlights: 'setCard' },
  // Who receives which notifications by e-mail or SMS (GET/PUT/POST /rest/subscribe/group).
  { key: 'notifications', path: 'notifications', subject: 'subscription', group: 'settings' },
  { key: 'taskcenter', path: 'taskcenter', subject: 'task', group: 'tasks' },
];

/** The screen of a path (without the language prefix). */
export function screenOf(pathname: string): ScreenDef | undefined {
  const rest = pathname.replace(/^\/[^/]+\//, '');
  return SCREENS.find((s) => rest === s.path || rest.startsWith(`${s.path}/`));
}

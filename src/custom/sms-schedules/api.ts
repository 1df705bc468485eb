/** The scheduled SMS calls of the customer API (SPEC.md section 7) and the shapes they answer. */
import type { ScheduleSettings } from '../../../common/sms-schedule';
import { api } from '../../providers/http';
import type { Page } from '../../../common/page';

export interface Schedule extends ScheduleSettings<string> {
  id: string;
  targetCount: number;
  status: 'enabled' | 'disabled';
  executing: boolean;
  /** A once-only schedule executing: it cannot be edited, switched or deleted. */
  locked: boolean;
  /** Enabled, with nothing more to send (a once-only schedule that has sent, a repeated one past its end). */
  finished: boolean;
  nextRunAt: string | null;
  lastRunAt: string | null;
  creator: string | null;
  /** The creating account's id: an operator changes only their own schedules (common/permissions.ts). */
  createdBy: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface Run {
  id: string;
  occurrenceAt: string;
  at: string;
  endedAt: string | null;
  status: 'running' | 'done' | 'partial' | 'failed' | 'skipped';
  targets: number;
  sent: number;
  failed: number;
}

export interface ScheduleDetail extends Schedule {
  iccids: string[];
  upcoming: string[];
  runs: Run[];
}

export interface RunRecord {
  id: string;
  iccid: string;
  msisdn: string | null;
  content: string;
  status: string;
  error: string | null;
  createdAt: string;
  sentAt: string | null;
  deliveredAt: string | null;
}

export interface LogEntry {
  id: string;
  at: string;
  action: string;
  actor: string | null;
  actorEmail: string | null;
  changes: Array<{ field: string; before: unknown; after: unknown }>;
}

export type { Page };

export type ScheduleInput = ScheduleSettings<string> & { iccids: string[] };

const C = '/api/customer';

export const schedulesApi = {
  list: (body: { page: number; pageSize: number; name?: string; status?: string }) => api<Page<Schedule>>('POST', `${C}/sms/task/list`, body),
  detail: (id: string) => api<ScheduleDetail>('GET', `${C}/sms/task/detail/${encodeURIComponent(id)}`),
  create: (body: ScheduleInput) => api<Schedule>('POST', `${C}/sms/task`, body),
  update: (id: string, body: ScheduleInput) => api<Schedule>('POST', `${C}/sms/task/update`, { id, ...body }),
  setStatus: (id: string, status: Schedule['status']) => api<Schedule>('PUT', `${C}/sms/task/status`, { id, status }),
  remove: (id: string) => api<{ id: string }>('DELETE', `${C}/sms/task?id=${encodeURIComponent(id)}`),
  records: (body: { taskId: string; runId?: string; page: number; pageSize: number }) => api<Page<RunRecord>>('POST', `${C}/sms/detail/list`, body),
  log: (body: { id: string; page: number; pageSize: number }) => api<Page<LogEntry>>('POST', `${C}/operation/log/list`, body),
  report: (kind: 'mt' | 'mo' | 'sims', id: string) =>
    kind === 'sims'
      ? api<{ taskId: string }>('GET', `${C}/sms/sim/download/csv?id=${encodeURIComponent(id)}`)
      : api<{ taskId: string }>('POST', `/api/main/sms/${kind === 'mt' ? 'generateSMSMtTaskReport' : 'generateSMSMoTaskReport'}`, { id }),
};

/** ISO weekdays in the language's short names, Monday first. */
export function weekdayNames(lang: string, width: 'short' | 'long' = 'short'): string[] {
  // 2024-01-01 was a Monday.
  return Array.from({ length: 7 }, (_, i) => new Intl.DateTimeFormat(lang, { weekday: width, timeZone: 'UTC' }).format(new Date(Date.UTC(2024, 0, 1 + i))));
}

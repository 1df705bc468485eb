/** The task center's resource: its calls, its row, and the count of running tasks the header shows. */
import { useEffect, useState } from 'react';
import { api } from '../../providers/http';
import { subscribeLive } from '../../providers/live';

export interface TaskRow {
  id: string;
  referenceId: string;
  task: string;
  quantity: number;
  remark: string | null;
  status: 'processing' | 'done' | 'issues';
  progress: number;
  startedAt: string | null;
  endedAt: string | null;
  elapsedMs: number | null;
  hasReport: boolean;
  createdAt: string;
  /** The organisation's list (an administrator's) says who started each task, and whether it is the reader's. */
  startedBy?: string;
  mine?: boolean;
}

export const TASKS_RESOURCE = {
  name: 'tasks',
  meta: { list: 'GET /api/job/rest/job/my', one: 'GET /api/job/rest/job/my/:id', subject: 'task' },
} as const;

/** The organisation's tasks, whoever started them: the list an administrator's task center shows (task readAll). */
export const ORG_TASKS_LIST = 'GET /api/job/rest/job/all';

/** How many of my tasks are processing in the current organisation; follows the live task events. */
export function useProcessingTasks(enabled: boolean): number {
  const [count, setCount] = useState(0);
  useEffect(() => {
    if (!enabled) return;
    let alive = true;
    const load = () =>
      api<{ processing: number }>('GET', '/api/job/rest/job/my?status=processing&pageSize=1', undefined, { quiet: true }).then(
        (r) => alive && setCount(r.processing),
        () => undefined,
      );
    void load();
    const stop = subscribeLive('task', () => void load());
    return () => {
      alive = false;
      stop();
    };
  }, [enabled]);
  return count;
}

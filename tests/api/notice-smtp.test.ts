/** Notices of a task's end, with SMTP configured: the mailer tries to send them after the task ends, and one it could not send stays unsent in the outbox. */
import { describe, expect, it } from 'vitest';
import { call, DEMO, signedInSuite } from '../helper.js';

describe('task notices through SMTP', () => {
  // Nothing listens on port 1: every send is refused at once.
  const suite = signedInSuite({ config: { smtpUrl: 'smtp://127.0.0.1:1' } }, { admin: DEMO.admin });

  it('keeps a notice it could not send unsent, and the task done', async () => {
    const group = await call(suite.t.app, suite.admin, {
      method: 'POST',
      url: '/api/job/rest/subscribe/group',
      payload: { channel: 'email', name: 'Ops', notifications: ['task_done'], recipients: ['ops@example.com'] },
    });
    expect(group.statusCode).toBe(200);
    const latest = (await suite.t.db.query<{ at: Date }>("SELECT max(start_at) AS at FROM cdrs WHERE org_id = 'org-demo'")).rows[0].at.getTime();
    const taskId = (
      await call(suite.t.app, suite.admin, {
        method: 'POST',
        url: '/api/cdr/export/all/distributor/DEMO/csv/cdrs',
        payload: { startAtFrom: new Date(latest - 3_600_000).toISOString(), startAtTo: new Date(latest).toISOString() },
      })
    ).json().data.taskId;
    while (await suite.t.app.jobs.runOnce());
    expect((await suite.t.db.query<{ status: string }>('SELECT status FROM tasks WHERE id = $1', [taskId])).rows[0].status).toBe('done');
    const notices = (await suite.t.db.query<{ sent_at: Date | null }>("SELECT sent_at FROM outbox WHERE kind = 'notice' AND to_address = 'ops@example.com'"))
      .rows;
    expect(notices).toHaveLength(1);
    expect(notices[0].sent_at).toBeNull();
    expect(await suite.t.app.mailer.sendPendingNotices()).toBe(0);
  });
});

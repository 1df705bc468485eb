/** Generator: SMS, sent and received, and scheduled SMS with their runs. */
import { type Recurrence, nextOccurrence, previousOccurrences } from '../../sms-schedules/recurrence.js';
import { fixedId } from './fixtures.js';
import { type Ctx, DAY, MINUTE, type Row, type SimSeed, insertRows } from './rows.js';

export async function seedSms(ctx: Ctx): Promise<void> {
  const { rng, now, size } = ctx;
  const mtTexts = ['STATUS?', 'REBOOT', 'APN=iot.demo', 'GPS ON', 'PING', 'CONFIG INTERVAL=15MIN', 'FW CHECK', 'LOCATE'];
  const moTexts = ['OK', 'BATT 87%', 'TEMP 4.2C', 'GPS 52.5200,13.4050', 'ALARM DOOR OPEN', 'FW 2.4.1', 'PONG'];
  const schedules: Row[] = [];
  const scheduleRuns: Row[] = [];
  const records: Row[] = [];
  const activeOf = (org: string): SimSeed[] => ctx.sims.filter((s) => s.org === org && s.status === 'active');

  const defs = [
    {
      name: 'Daily heartbeat ping',
      content: 'PING',
      type: 'text',
      mode: 'repeated',
      weekdays: [1, 2, 3, 4, 5],
      never: true,
      status: 'enabled',
      executing: false,
    },
    { name: 'Firmware wake-up', content: 'FW CHECK', type: 'text', mode: 'once', weekdays: [], never: false, status: 'enabled', executing: true },
    {
      name: 'Weekend config push',
      content: '0A1B2C3D4E5F',
      type: 'binary',
      mode: 'repeated',
      weekdays: [6, 7],
      never: false,
      status: 'disabled',
      executing: false,
    },
    { name: 'Monthly APN refresh', content: 'APN=iot.demo', type: 'text', mode: 'repeated', weekdays: [1], never: false, status: 'enabled', executing: false },
    {
      name: 'Cold chain temperature poll',
      content: 'TEMP?',
      type: 'text',
      mode: 'repeated',
      weekdays: [1, 3, 5],
      never: true,
      status: 'enabled',
      executing: false,
    },
    { name: 'One-off reboot of pilot units', content: 'REBOOT', type: 'text', mode: 'once', weekdays: [], never: false, status: 'disabled', executing: false },
  ];
  const perOrg: Record<string, typeof defs> = {
    'org-demo': size === 'small' ? defs.slice(0, 3) : defs,
    'org-other': [{ ...defs[0], name: 'Other heartbeat' }],
  };
  for (const [org, list] of Object.entries(perOrg)) {
    const targets = activeOf(org);
    const sender = org === 'org-other' ? 'acc-other-admin' : 'acc-operator';
    list.forEach((d, i) => {
      const id = fixedId(`schedule:${org}:${i}`);
      // Early enough for eight weekly runs before now.
      const created = new Date(now.getTime() - (70 - i) * DAY);
      const chosen = rng.subset(targets, 1, Math.min(5, targets.length));
      const startAt = d.mode === 'once' ? (d.executing ? new Date(now.getTime() - 5 * MINUTE) : new Date(now.getTime() + 3 * DAY)) : created;
      const runCount = d.mode === 'repeated' && d.status === 'enabled' ? (size === 'small' ? 2 : 8) : d.executing ? 1 : 0;
      // The history and the next run follow the schedule (09:00 UTC on its weekdays; a once-only one at its start).
      const rec: Recurrence = {
        mode: d.mode as Recurrence['mode'],
        weekdays: d.weekdays,
        sendTime: d.mode === 'once' ? startAt.toISOString().slice(11, 16) : '09:00',
        timezone: 'UTC',
        startAt,
        endAt: d.mode === 'repeated' && !d.never ? new Date(now.getTime() + 60 * DAY) : null,
      };
      const past = d.executing ? [startAt] : previousOccurrences(rec, now, runCount);
      let lastRun: Date | null = null;
      for (let r = runCount; r >= 1; r--) {
        const at = past[past.length - r];
        lastRun = at;
        const running = d.executing;
        // A run under way holds its targets and has written no record yet: the scheduler sends them (019_sms_schedule_runs.sql).
        scheduleRuns.push({
          org_id: org,
          schedule_id: id,
          at,
          occurrence_at: at,
          status: running ? 'running' : 'done',
          targets: chosen.length,
          sent: running ? 0 : chosen.length,
          failed: 0,
          detail: {},
          iccids: running ? chosen.map((s) => s.iccid) : [],
          ended_at: running ? null : at,
        });
        for (const s of chosen) {
          (running ? [] : records).push({
            org_id: org,
            id: rng.id(),
            sim_id: s.id,
            iccid: s.iccid,
            msisdn: s.msisdn,
            direction: 'MT',
            content: d.content,
            sms_type: d.type,
            status: running ? 'pending' : 'delivered',
            schedule_id: id,
            account_id: null,
            created_at: at,
            sent_at: running ? null : at,
            delivered_at: running ? null : new Date(at.getTime() + 5000),
            reply_to_id: null,
          });
        }
      }
      schedules.push({
        org_id: org,
        id,
        name: d.name,
        content: d.content,
        sms_type: d.type,
        mode: d.mode,
        weekdays: d.weekdays,
        send_time: rec.sendTime,
        timezone: 'UTC',
        start_at: startAt,
        end_at: rec.endAt,
        never_ends: d.never,
        target_iccids: chosen.map((s) => s.iccid),
        email_notify: i % 2 === 0,
        notify_emails: i % 2 === 0 ? ['ops@demo.example.com'] : [],
        status: d.status,
        executing: d.executing,
        next_run_at: d.status === 'enabled' && !d.executing ? nextOccurrence(rec, now) : null,
        last_run_at: lastRun,
        created_by: org === 'org-other' ? 'acc-other-admin' : 'acc-admin',
        created_at: created,
        updated_at: created,
      });
    });
    // Instant SMS from the console, device messages and replies within 24 hours.
    const instant = org === 'org-other' ? 3 : size === 'small' ? 12 : 600;
    for (let k = 0; k < instant && targets.length > 0; k++) {
      const s = rng.pick(targets);
      const at = new Date(now.getTime() - rng.int(1, (size === 'small' ? 3 : 30) * 24 * 60) * MINUTE);
      if (rng.chance(0.45)) {
        const mo = {
          org_id: org,
          id: rng.id(),
          sim_id: s.id,
          iccid: s.iccid,
          msisdn: s.msisdn,
          direction: 'MO',
          content: rng.pick(moTexts),
          sms_type: 'text',
          status: 'received',
          schedule_id: null,
          account_id: null,
          created_at: at,
          sent_at: at,
          delivered_at: at,
          reply_to_id: null,
        };
        records.push(mo);
        if (rng.chance(0.4)) {
          const replyAt = new Date(Math.min(now.getTime(), at.getTime() + rng.int(1, 600) * MINUTE));
          records.push({
            ...mo,
            id: rng.id(),
            direction: 'MT',
            content: 'ACK',
            status: 'delivered',
            account_id: sender,
            created_at: replyAt,
            sent_at: replyAt,
            delivered_at: new Date(replyAt.getTime() + 4000),
            reply_to_id: mo.id,
          });
        }
      } else {
        // Not pending: an SMS of hours or days ago is no longer on its way (the maintenance gives such ones up).
        const status = rng.weighted([
          ['delivered', 80],
          ['sent', 13],
          ['failed', 7],
        ]);
        records.push({
          org_id: org,
          id: rng.id(),
          sim_id: s.id,
          iccid: s.iccid,
          msisdn: s.msisdn,
          direction: 'MT',
          content: rng.pick(mtTexts),
          sms_type: 'text',
          status,
          schedule_id: null,
          account_id: sender,
          created_at: at,
          sent_at: status === 'pending' ? null : at,
          delivered_at: status === 'delivered' ? new Date(at.getTime() + 3000) : null,
          reply_to_id: null,
          error: status === 'failed' ? 'Absent subscriber' : null,
        });
      }
    }
  }
  await insertRows(ctx.q, 'sms_schedules', schedules);
  await insertRows(ctx.q, 'sms_schedule_runs', scheduleRuns);
  // Replies point at earlier rows, so MO rows go first.
  await insertRows(
    ctx.q,
    'sms_records',
    records.filter((r) => r.reply_to_id === null),
  );
  await insertRows(
    ctx.q,
    'sms_records',
    records.filter((r) => r.reply_to_id !== null),
  );
  // Each message of a finished run points at its run, so its history opens on its records.
  await ctx.q.query(
    `UPDATE sms_records r SET run_id = u.id FROM sms_schedule_runs u WHERE r.schedule_id = u.schedule_id AND r.created_at = u.at AND r.direction = 'MT'`,
  );
}

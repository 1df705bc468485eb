/** Mail: through nodemailer to SMTP_URL when set, otherwise kept in the outbox table (README: reading the outbox). */
import nodemailer from 'nodemailer';
import type { Config } from '../config.js';
import type { Db, Queryable } from '../db/db.js';

export interface Mail {
  to: string;
  subject: string;
  text: string;
  kind: 'password-reset' | 'invitation' | 'notice';
}

export interface Mailer {
  /** Record the mail in q's transaction; with SMTP it is also sent, after the row is written. */
  send(mail: Mail, q?: Queryable): Promise<void>;
  /**
   * Send the notices written straight into the outbox by another transaction (a task's end told to its subscription
   * groups, server/developer/notification-group-routes.ts), when SMTP is configured; without it they stay in the outbox to be read.
   */
  sendPendingNotices(): Promise<number>;
}

export function createMailer(db: Db, config: Config): Mailer {
  const transport = config.smtpUrl ? nodemailer.createTransport(config.smtpUrl) : null;
  return {
    async send(mail, q = db) {
      const row = await q.query<{ id: string }>('INSERT INTO outbox (to_address, subject, body, kind) VALUES ($1, $2, $3, $4) RETURNING id', [
        mail.to,
        mail.subject,
        mail.text,
        mail.kind,
      ]);
      if (!transport) return;
      // Sending is best effort after the write; a failed send stays in the outbox with sent_at NULL.
      try {
        await transport.sendMail({ from: config.mailFrom, to: mail.to, subject: mail.subject, text: mail.text });
        await db.query('UPDATE outbox SET sent_at = now() WHERE id = $1', [row.rows[0].id]);
      } catch {
        /* kept unsent in the outbox */
      }
    },
    async sendPendingNotices() {
      if (!transport) return 0;
      // Claimed by marking them sent, so two instances never send one twice; one that fails is marked unsent again.
      const rows = (
        await db.query<{ id: string; to_address: string; subject: string; body: string }>(
          `UPDATE outbox SET sent_at = now() WHERE id IN (
             SELECT id FROM outbox WHERE sent_at IS NULL AND kind = 'notice' ORDER BY id LIMIT 50 FOR UPDATE SKIP LOCKED)
           RETURNING id, to_address, subject, body`,
        )
      ).rows;
      let sent = 0;
      for (const r of rows) {
        try {
          await transport.sendMail({ from: config.mailFrom, to: r.to_address, subject: r.subject, text: r.body });
          sent += 1;
        } catch {
          await db.query('UPDATE outbox SET sent_at = NULL WHERE id = $1', [r.id]);
        }
      }
      return sent;
    },
  };
}

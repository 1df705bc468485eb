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
}

export function createMailer(db: Db, config: Config): Mailer {
  const transport = config.smtpUrl ? nodemailer.createTransport(config.smtpUrl) : null;
  return {
    async send(mail, q = db) {
      const row = await q.query<{ id: string }>(
        'INSERT INTO outbox (to_address, subject, body, kind) VALUES ($1, $2, $3, $4) RETURNING id',
        [mail.to, mail.subject, mail.text, mail.kind],
      );
      if (!transport) return;
      // Sending is best effort after the write; a failed send stays in the outbox with sent_at NULL.
      try {
        await transport.sendMail({ from: config.mailFrom, to: mail.to, subject: mail.subject, text: mail.text });
        await db.query('UPDATE outbox SET sent_at = now() WHERE id = $1', [row.rows[0].id]);
      } catch {
        /* kept unsent in the outbox */
      }
    },
  };
}

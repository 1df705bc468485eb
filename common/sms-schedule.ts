/**
 * A scheduled SMS's settings (SPEC.md sections 3 to 5), declared once for the server, which checks and
 * stores them (server/sms-schedules/), and the console, which edits them (src/custom/sms-schedules/). Times are `T`: a
 * Date on the server, ISO 8601 text in the calls.
 */
import type { SmsType } from './sms.js';

/** When it sends: once, at its start, or every chosen weekday at a wall-clock time of its zone, until its end. */
export interface ScheduleTiming<T> {
  mode: 'once' | 'repeated';
  /** ISO weekdays, 1 = Monday ... 7 = Sunday. */
  weekdays: number[];
  /** HH:MM, wall-clock time in `timezone`. */
  sendTime: string;
  /** An IANA zone such as Europe/Berlin, or UTC. */
  timezone: string;
  startAt: T;
  /** Exclusive; null when it never ends. */
  endAt: T | null;
}

/** What a person sets besides the target SIMs: the message, its timing and who is told of its runs. */
export interface ScheduleSettings<T> extends ScheduleTiming<T> {
  name: string;
  content: string;
  smsType: SmsType;
  neverEnds: boolean;
  emailNotify: boolean;
  notifyEmails: string[];
}

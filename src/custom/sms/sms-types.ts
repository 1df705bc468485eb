/** The shapes of the SMS calls' answers (server/sms/sms-routes.ts). */
export interface SmsRow {
  id: string;
  createdAt: string;
  iccid: string;
  msisdn: string | null;
  direction: 'MT' | 'MO';
  content: string;
  smsType: 'text' | 'binary';
  status: 'pending' | 'sent' | 'delivered' | 'failed' | 'received';
  error: string | null;
  deliveredAt: string | null;
  replyToId: string | null;
  accountName: string | null;
  scheduleName: string | null;
  replies?: SmsRow[];
}

export interface SmsPage {
  items: SmsRow[];
  total: number;
}

export interface Quota {
  quota: number;
  used: number;
  remaining: number;
}

export interface SendResult {
  results: Array<{ iccid: string; msisdn?: string | null; ok: boolean; smsId?: string; status?: string; reason?: string; message?: string }>;
  accepted: number;
  refused: number;
  quota: Quota;
}

/** Statuses of an SMS still on its way: while the live stream is down, the page asks again for them every 30 s. */
export const ON_ITS_WAY = new Set(['pending', 'sent']);
export const STATUS_COLORS: Record<string, string> = { pending: 'gold', sent: 'blue', delivered: 'green', failed: 'red', received: 'cyan' };

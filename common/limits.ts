/** Business constants and limits of SPEC.md sections 5 and 9. Both the console and the server read them from here. */
export const LIMITS = {
  requestTimeoutMs: 1_200_000,
  maxToasts: 3,
  debounceMs: 300,
  password: { min: 6, max: 12 },
  generatedPasswordLength: 11,
  accountName: { min: 1, max: 30 },
  orgName: { min: 5, max: 40 },
  scheduledSmsName: { min: 1, max: 50 },
  autoflowName: { min: 1, max: 100 },
  apiKeyName: { min: 1, max: 60 },
  expiryReminderDays: { min: 1, max: 45 },
  smsText: 140,
  /** Binary SMS content, in octets (written as hex digits in pairs). */
  smsBinaryOctets: 140,
  deviceName: 40,
  notes: 140,
  tags: { count: 10, length: 10 },
  activationBatch: 1000,
  iccidList: 1000,
  exportMax: 100_000,
  uploadRows: 100_000,
  uploadBytes: 1024 * 1024,
  uploadFileNameLength: 40,
  autoflowUploadRows: 10_000,
  autoflowManualIccids: 1000,
  emailsPerGroup: 10,
  cdrSummaryDays: 31,
  orgSwitcherCount: 10,
  expiringSoonDays: 45,
  taskListDays: 7,
  autoflowHistoryDays: 30,
  replyWindowHours: 24,
  lastSessionMonths: 3,
  locationHours: 48,
  email: 254,
} as const;

/**
 * Page number and page size of every paged list: pages from 1, at most 100 rows a page, 20 unless asked. A list counts
 * at most 100,001 rows, so no page past 100,000 can hold one.
 */
export const PAGING_PROPERTIES = {
  page: { type: 'integer', minimum: 1, maximum: 100_000, default: 1 },
  pageSize: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
} as const;

/** SPEC.md section 1: the version shown in About. */
export const APP_VERSION = '1.6.8-alpha.1';

/** SPEC.md section 1: interface languages, en-US is the default and fallback. */
export const LANGUAGES = ['en-US', 'zh-CN', 'zh-TW', 'es-ES'] as const;
export type Language = (typeof LANGUAGES)[number];
export const DEFAULT_LANGUAGE: Language = 'en-US';

/** Match a header or browser language to a supported one, falling back to en-US. */
export function pickLanguage(value: string | undefined | null): Language {
  if (!value) return DEFAULT_LANGUAGE;
  const exact = LANGUAGES.find((l) => l.toLowerCase() === value.toLowerCase());
  if (exact) return exact;
  const lower = value.toLowerCase();
  if (lower.startsWith('zh')) return /tw|hk|mo|hant/.test(lower) ? 'zh-TW' : 'zh-CN';
  if (lower.startsWith('es')) return 'es-ES';
  return DEFAULT_LANGUAGE;
}

/** SPEC.md section 5: 6-12 characters with at least one letter, one digit and one symbol. */
export function isValidPassword(value: string): boolean {
  return (
    value.length >= LIMITS.password.min &&
    value.length <= LIMITS.password.max &&
    /[A-Za-z]/.test(value) &&
    /\d/.test(value) &&
    /[^A-Za-z0-9\s]/.test(value) &&
    !/\s/.test(value)
  );
}

/** A pragmatic e-mail check: one @, a dot in the domain, no spaces. */
export const EMAIL_PATTERN = '^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$';

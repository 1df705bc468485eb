/** The autoflow calls of the rule engine's service (SPEC.md section 7, Autoflow; server/autoflow/rule-routes.ts). */
import type { AutoflowRuleDocument, ChangeRecord, RuleAction, RuleScope, RuleTrigger, ScopeSim } from '../../../common/autoflow-rule';
import { api, download, upload } from '../../providers/http';
import type { Page } from '../../../common/page';

/** The shapes the server answers, declared once for both (common/autoflow-rule.ts). */
export type { ChangeRecord, ScopeSim };

export interface Rule {
  id: string;
  name: string;
  trigger: RuleTrigger;
  scope: RuleScope;
  actions: RuleAction[];
  status: 'enabled' | 'disabled';
  activationAt: string | null;
  expiryAt: string | null;
  origin: string;
  createdBy: string | null;
  creatorEmail: string | null;
  lastRunAt: string | null;
  runCount: number;
  createdAt: string;
  updatedAt: string;
}

export type ActionOutcome = RuleAction & { outcome?: string; error?: string | null };

export interface Run {
  id: string;
  ruleId: string;
  iccid: string | null;
  trigger: string;
  status: 'pending' | 'success' | 'failed' | 'skipped';
  detail: { event?: { type: string; subtype: string; at: string; data: Record<string, unknown> } } | null;
  actions: ActionOutcome[] | null;
  at: string;
}

export interface WebhookBody {
  type: string;
  subtype: string;
  timestamp: string;
  data: Record<string, unknown>;
}

export type { Page };

export interface ValidatedFile {
  token: string;
  sha256: string;
  fileName: string;
  count: number;
}

const R = '/api/rule/auto_flow/cube';
const q = (params: Record<string, string | number | undefined>) =>
  new URLSearchParams(
    Object.entries(params)
      .filter(([, v]) => v !== undefined && v !== '')
      .map(([k, v]) => [k, String(v)]),
  ).toString();

export const autoflowApi = {
  list: (p: { page: number; pageSize: number; search?: string; status?: string; trigger?: string; actionType?: string }) =>
    api<Page<Rule>>('GET', `${R}/rules?${q(p)}`),
  detail: (id: string) => api<Rule>('GET', `${R}/rules/${encodeURIComponent(id)}/detail`),
  /** Multipart with the document in the field "rule" and SPEC.md section 7's operator and scene headers. */
  save: (doc: AutoflowRuleDocument, opts: { id?: string; scene: 'console' | 'template'; operator: string }) => {
    const form = new FormData();
    form.append('rule', JSON.stringify(opts.id ? { id: opts.id, ...doc } : doc));
    return upload<Rule>(`${R}/rules`, form, { method: opts.id ? 'PUT' : 'POST', headers: { operator: opts.operator, scene: opts.scene } });
  },
  /** How many SIMs the document would act on now (basis "now") or watches (basis "scope", an event trigger). */
  impact: (doc: Pick<AutoflowRuleDocument, 'name' | 'trigger' | 'scope' | 'actions'>) =>
    api<{ count: number; basis: 'now' | 'scope' }>('POST', `${R}/rules/impact`, {
      name: doc.name,
      trigger: doc.trigger,
      scope: doc.scope,
      actions: doc.actions,
    }),
  setStatus: (id: string, action: 'enable' | 'disable') => api<Rule>('PUT', `${R}/rules/${encodeURIComponent(id)}/${action}`),
  remove: (id: string) => api<{ id: string }>('DELETE', `${R}/rules/${encodeURIComponent(id)}`),
  runs: (id: string, p: { page: number; pageSize: number; status?: string; iccid?: string; actionType?: string; actionOutcome?: string }) =>
    api<Page<Run>>('GET', `${R}/rules/triggers/${encodeURIComponent(id)}?${q(p)}`),
  sims: (ruleId: string, p: { page: number; pageSize: number }) => api<Page<ScopeSim>>('GET', `${R}/sims?${q({ ruleId, ...p })}`),
  simsCsv: (ruleId: string) => download('GET', `${R}/sims/download?${q({ ruleId })}`),
  tryBody: (ruleId: string) => api<WebhookBody>('POST', `${R}/try_it_out/body`, { ruleId }),
  trySend: (ruleId: string) =>
    api<{ body: WebhookBody; httpCode: number | null; error: string | null; delivered: boolean }>('POST', `${R}/try_it_out/send`, { ruleId }),
  changes: (ruleId: string, p: { page: number; pageSize: number }) => api<Page<ChangeRecord>>('GET', `${R}/change_records?${q({ ruleId, ...p })}`),
  pools: () => api<Array<{ id: string; name: string }>>('GET', `${R}/pools`),
  countries: () => api<Array<{ code: string; name: string }>>('GET', `${R}/countries`),
  validate: (kind: 'scope' | 'imei_change', file: File) => {
    const form = new FormData();
    form.append('file', file);
    return upload<ValidatedFile>(`${R}/validation/${kind}`, form);
  },
  template: (kind: 'scope' | 'imei_change', format: 'csv' | 'xlsx') => download('GET', `${R}/template/${kind}?format=${format}`),
};

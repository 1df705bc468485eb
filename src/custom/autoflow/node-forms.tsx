/**
 * The builder's side panel: the form of the node one opened, rendered by RJSF from the sub-schema of the rule's JSON
 * Schema (common/autoflow-rule.ts) for that node and the type chosen in it, so the canvas and the form edit the same
 * document. Uploads (a scope file of ICCIDs, an IMEI list) go through the server's validation first; the rule names
 * the token and hash it answers.
 */
import { CloseOutlined, DeleteOutlined, DownloadOutlined, UploadOutlined } from '@ant-design/icons';
import type { WidgetProps } from '@rjsf/utils';
import { Alert, Button, Card, DatePicker, Input, Select, Space, Typography, Upload } from 'antd';
import dayjs from 'dayjs';
import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import {
  ACTION_FIELDS,
  ACTION_SCHEMA,
  AUTOFLOW_RULE_SCHEMA,
  SCOPE_FIELDS,
  SCOPE_SCHEMA,
  TRIGGER_FIELDS,
  TRIGGER_SCHEMA,
  type ActionType,
  type AutoflowRuleDocument,
  type RuleAction,
  type RuleScope,
  type RuleTrigger,
  type ScopeType,
  type TriggerType,
} from '../../../common/autoflow-rule';
import { saveFile } from '../../providers/http';
import { SchemaForm } from '../../resources/schema-form';
import { autoflowApi } from './api';
import { fetchPools } from './pool-names';

/** A node of the canvas: its panel edits one part of the document. */
export type NodeKey = 'trigger' | 'condition' | 'scope' | 'settings' | `action-${number}`;
export interface FieldError {
  field: string;
  message: string;
}

type Obj = Record<string, unknown>;
type Schema = Obj & { properties: Record<string, Obj>; required?: string[]; allOf?: Obj[] };

/**
 * The schema as it applies to this data: each allOf's if/then whose condition holds is merged in (required fields,
 * narrower ranges), and only the fields kept are drawn. The same rules the validator applies, resolved for drawing.
 */
export function subSchema(schema: Schema, data: Obj, keep: readonly string[]): Schema {
  let properties: Record<string, Obj> = { ...schema.properties };
  let required = [...(schema.required ?? [])];
  const apply = (parts: Obj[] | undefined) => {
    for (const part of parts ?? []) {
      const cond = part.if as { properties: Record<string, { const: unknown }> } | undefined;
      const then = part.then as Schema | undefined;
      if (!cond || !then) continue;
      if (!Object.entries(cond.properties).every(([k, v]) => data[k] === v.const)) continue;
      required = [...required, ...(then.required ?? [])];
      for (const [k, v] of Object.entries(then.properties ?? {})) properties[k] = { ...properties[k], ...v };
      apply(then.allOf);
    }
  };
  apply(schema.allOf);
  properties = Object.fromEntries(Object.entries(properties).filter(([k]) => keep.includes(k)));
  return { type: 'object', properties, required: [...new Set(required)].filter((k) => keep.includes(k)) };
}

/** A new part of the document when its type changes: the type's defaults, nothing of the type before. */
export function triggerOf(type: TriggerType): RuleTrigger {
  const defaults: Partial<Record<TriggerType, Partial<RuleTrigger>>> = {
    data_usage: { unit: 'MB', window: 'cycle' },
    sms_mo: { window: 'cycle' },
    sms_mt: { window: 'cycle' },
    status_change: { from: 'any', to: 'any' },
    imei_change: { mode: 'any' },
  };
  return { type, ...defaults[type] };
}
export function scopeOf(type: ScopeType): RuleScope {
  return { type };
}
export function actionOf(type: ActionType): RuleAction {
  return type === 'throttle' ? { type, speedKbps: 128 } : { type };
}
const pick = <T extends Obj>(o: T, keys: readonly string[]) => Object.fromEntries(Object.entries(o).filter(([k]) => k === 'type' || keys.includes(k))) as T;

/** One ICCID or IMEI a line (pasted from a sheet), at most the schema's maxItems. */
function LinesWidget({ id, value, onChange, onBlur, disabled, readonly, schema }: WidgetProps) {
  const { t } = useTranslation();
  const list = Array.isArray(value) ? (value as string[]) : [];
  const [text, setText] = useState(list.join('\n'));
  useEffect(() => {
    if (
      text
        .split(/[\s,;]+/)
        .filter(Boolean)
        .join('\n') !== list.join('\n')
    )
      setText(list.join('\n'));
    // Only a change from outside (another node, a template) rewrites the box.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [list.join('\n')]);
  return (
    <>
      <Input.TextArea
        id={id}
        rows={6}
        value={text}
        disabled={disabled || readonly}
        placeholder={t('autoflow.linesHelp')}
        onChange={(e) => {
          setText(e.target.value);
          const next = e.target.value.split(/[\s,;]+/).filter(Boolean);
          onChange(next.length ? next : undefined);
        }}
        onBlur={() => onBlur(id, value)}
      />
      <Typography.Text type="secondary">{t('autoflow.lineCount', { count: list.length, max: schema.maxItems })}</Typography.Text>
    </>
  );
}

/** The countries a country-change trigger may name, by name in the interface language (the server's list). */
function CountriesWidget({ id, value, onChange, disabled, readonly }: WidgetProps) {
  const { t, i18n } = useTranslation();
  const [options, setOptions] = useState<Array<{ value: string; label: string }>>([]);
  useEffect(
    () =>
      void autoflowApi.countries().then(
        (l) => setOptions(l.map((c) => ({ value: c.code, label: `${c.name} (${c.code})` }))),
        () => undefined,
      ),
    [i18n.language],
  );
  return (
    <Select
      id={id}
      mode="multiple"
      showSearch
      optionFilterProp="label"
      placeholder={t('autoflow.anyCountry')}
      value={Array.isArray(value) ? value : []}
      disabled={disabled || readonly}
      options={options}
      onChange={(v: string[]) => onChange(v.length ? v : undefined)}
    />
  );
}

/** The organisation's shared pools by name (the server's list): a pool scope names one of them. */
function PoolWidget({ id, value, onChange, disabled, readonly }: WidgetProps) {
  const { t } = useTranslation();
  const [options, setOptions] = useState<Array<{ value: string; label: string }> | null>(null);
  useEffect(
    () =>
      void fetchPools().then(
        (l) => setOptions(l.map((p) => ({ value: p.id, label: p.name }))),
        () => setOptions([]),
      ),
    [],
  );
  return (
    <Select
      id={id}
      showSearch
      optionFilterProp="label"
      loading={options === null}
      placeholder={t('autoflow.pickPool')}
      notFoundContent={options === null ? undefined : t('autoflow.noPools')}
      value={typeof value === 'string' && value ? value : undefined}
      disabled={disabled || readonly}
      options={options ?? (typeof value === 'string' && value ? [{ value, label: value }] : [])}
      onChange={(v: string | undefined) => onChange(v || undefined)}
    />
  );
}

/** A time not earlier than now, in the browser's zone; sent as an ISO instant. */
function DateTimeWidget({ id, value, onChange, disabled, readonly }: WidgetProps) {
  return (
    <DatePicker
      id={id}
      showTime={{ format: 'HH:mm' }}
      format="YYYY-MM-DD HH:mm"
      value={value ? dayjs(value as string) : null}
      disabled={disabled || readonly}
      disabledDate={(d) => d.isBefore(dayjs().startOf('day'))}
      onChange={(d) => onChange(d ? d.second(0).millisecond(0).toISOString() : undefined)}
    />
  );
}

const WIDGETS = { lines: LinesWidget, countries: CountriesWidget, pool: PoolWidget, dateTime: DateTimeWidget };

/** A file of ICCIDs (scope) or IMEIs (trigger) validated by the server; its template in two formats. */
function ValidatedUpload({
  kind,
  fileName,
  onValidated,
  error,
}: {
  kind: 'scope' | 'imei_change';
  fileName?: string;
  onValidated: (f: { token: string; sha256: string; fileName: string; count: number }) => void;
  error?: string;
}) {
  const { t } = useTranslation();
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const [count, setCount] = useState<number | null>(null);
  return (
    <Space direction="vertical" style={{ width: '100%', marginBottom: 16 }}>
      <Typography.Text strong>{t(kind === 'scope' ? 'autoflow.scopeFile' : 'autoflow.imeiFile')}</Typography.Text>
      <Typography.Text type="secondary">{t('autoflow.fileHelp')}</Typography.Text>
      <Space wrap>
        <Upload
          accept=".csv,.xls,.xlsx"
          maxCount={1}
          showUploadList={false}
          beforeUpload={(file) => {
            setBusy(true);
            setProblem(null);
            autoflowApi
              .validate(kind, file)
              .then(
                (f) => (setCount(f.count), onValidated(f)),
                (e: { message: string }) => setProblem(e.message),
              )
              .finally(() => setBusy(false));
            return false;
          }}
        >
          <Button icon={<UploadOutlined />} loading={busy}>
            {t('autoflow.chooseFile')}
          </Button>
        </Upload>
        {(['xlsx', 'csv'] as const).map((f) => (
          <Button
            key={f}
            type="link"
            icon={<DownloadOutlined />}
            onClick={() => void autoflowApi.template(kind, f).then((d) => saveFile(d, `autoflow-template.${f}`))}
          >
            {t('autoflow.template', { format: f.toUpperCase() })}
          </Button>
        ))}
      </Space>
      {fileName && !problem && (
        <Alert
          type="success"
          showIcon
          message={count === null ? t('autoflow.fileKept', { name: fileName }) : t('autoflow.fileValid', { name: fileName, count })}
        />
      )}
      {(problem || (!fileName && error)) && <Alert type="error" showIcon message={problem ?? error} />}
    </Space>
  );
}

interface PanelProps {
  node: NodeKey;
  doc: AutoflowRuleDocument;
  onChange: (doc: AutoflowRuleDocument) => void;
  onClose: () => void;
  errors: FieldError[];
  readOnly: boolean;
}

const hidden = { 'ui:widget': 'hidden' };

/** The panel of one node. */
export function NodePanel({ node, doc, onChange, onClose, errors, readOnly }: PanelProps) {
  const { t } = useTranslation();
  const first = errors[0] ?? null;
  const actionIndex = node.startsWith('action-') ? Number(node.slice(7)) : -1;
  const title = node.startsWith('action-') ? t('autoflow.node.actionN', { n: actionIndex + 1 }) : t(`autoflow.node.${node}`);

  const form = useMemo(() => {
    if (node === 'trigger') {
      return {
        prefix: 'autoflow.trigger',
        schema: subSchema(TRIGGER_SCHEMA as unknown as Schema, doc.trigger as unknown as Obj, ['type']),
        data: { type: doc.trigger.type } as Obj,
        ui: {},
        apply: (d: Obj) => (d.type === doc.trigger.type ? doc : { ...doc, trigger: triggerOf(d.type as TriggerType) }),
      };
    }
    if (node === 'condition') {
      const keep = TRIGGER_FIELDS[doc.trigger.type].filter(
        (k) => !(doc.trigger.mode !== 'outside_list' && ['imeis', 'imeiFileToken', 'imeiFileSha256'].includes(k)),
      );
      return {
        prefix: 'autoflow.trigger',
        schema: subSchema(TRIGGER_SCHEMA as unknown as Schema, doc.trigger as unknown as Obj, keep),
        data: doc.trigger as unknown as Obj,
        ui: {
          imeis: { 'ui:widget': 'lines' },
          imeiFileToken: hidden,
          imeiFileSha256: hidden,
          countries: { 'ui:widget': 'countries' },
          'ui:order': [...keep, '*'],
        },
        apply: (d: Obj) => ({ ...doc, trigger: pick({ ...d, type: doc.trigger.type } as Obj, TRIGGER_FIELDS[doc.trigger.type]) as unknown as RuleTrigger }),
      };
    }
    if (node === 'scope') {
      const keep = ['type', ...SCOPE_FIELDS[doc.scope.type]];
      return {
        prefix: 'autoflow.scope',
        schema: subSchema(SCOPE_SCHEMA as unknown as Schema, doc.scope as unknown as Obj, keep),
        data: doc.scope as unknown as Obj,
        ui: { iccids: { 'ui:widget': 'lines' }, poolId: { 'ui:widget': 'pool' }, fileToken: hidden, fileSha256: hidden, fileName: hidden, 'ui:order': keep },
        apply: (d: Obj) => ({
          ...doc,
          scope: d.type === doc.scope.type ? (pick(d, SCOPE_FIELDS[doc.scope.type]) as unknown as RuleScope) : scopeOf(d.type as ScopeType),
        }),
      };
    }
    if (node === 'settings') {
      const props = AUTOFLOW_RULE_SCHEMA.properties;
      const schema = {
        type: 'object',
        properties: { activationAt: { ...props.activationAt, type: 'string' }, expiryAt: { ...props.expiryAt, type: 'string' } },
      } as unknown as Schema;
      return {
        prefix: 'autoflow.settings',
        schema,
        data: { activationAt: doc.activationAt ?? undefined, expiryAt: doc.expiryAt ?? undefined } as Obj,
        ui: { activationAt: { 'ui:widget': 'dateTime' }, expiryAt: { 'ui:widget': 'dateTime' } },
        apply: (d: Obj) => ({ ...doc, activationAt: (d.activationAt as string | undefined) ?? null, expiryAt: (d.expiryAt as string | undefined) ?? null }),
      };
    }
    const action = doc.actions[actionIndex] ?? actionOf('suspend');
    const keep = ['type', ...ACTION_FIELDS[action.type]];
    return {
      prefix: 'autoflow.action',
      schema: subSchema(ACTION_SCHEMA as unknown as Schema, action as unknown as Obj, keep),
      data: action as unknown as Obj,
      ui: { text: { 'ui:widget': 'textarea' }, 'ui:order': keep },
      apply: (d: Obj) => {
        const next = d.type === action.type ? (pick(d, ACTION_FIELDS[action.type]) as unknown as RuleAction) : actionOf(d.type as ActionType);
        return { ...doc, actions: doc.actions.map((a, i) => (i === actionIndex ? next : a)) };
      },
    };
  }, [node, doc, actionIndex]);

  const fieldError = first ? { field: first.field, message: first.message } : null;
  return (
    <Card
      size="small"
      className="autoflow-panel"
      title={<span id="autoflow-panel-title">{title}</span>}
      role="region"
      aria-labelledby="autoflow-panel-title"
      extra={<Button type="text" size="small" icon={<CloseOutlined />} aria-label={t('autoflow.closePanel')} onClick={onClose} />}
    >
      {errors.length > 1 && <Alert type="error" showIcon style={{ marginBottom: 12 }} message={errors.map((e) => e.message).join(' · ')} />}
      {node === 'scope' && doc.scope.type === 'file' && !readOnly && (
        <ValidatedUpload
          kind="scope"
          fileName={doc.scope.fileName}
          error={errors.find((e) => e.field.startsWith('file'))?.message}
          onValidated={(f) => onChange({ ...doc, scope: { type: 'file', fileToken: f.token, fileSha256: f.sha256, fileName: f.fileName } })}
        />
      )}
      {node === 'condition' && doc.trigger.type === 'imei_change' && doc.trigger.mode === 'outside_list' && !readOnly && (
        <ValidatedUpload
          kind="imei_change"
          fileName={doc.trigger.imeiFileToken ? t('autoflow.imeiFileChosen') : undefined}
          error={errors.find((e) => e.field.startsWith('imeiFile'))?.message}
          onValidated={(f) => onChange({ ...doc, trigger: { type: 'imei_change', mode: 'outside_list', imeiFileToken: f.token, imeiFileSha256: f.sha256 } })}
        />
      )}
      <fieldset disabled={readOnly} style={{ border: 0, padding: 0, margin: 0 }}>
        <SchemaForm
          key={`${node}-${String(form.data.type)}`}
          schema={form.schema as never}
          prefix={form.prefix}
          uiSchema={form.ui}
          formData={form.data}
          widgets={WIDGETS}
          units={node === 'condition' ? { threshold: doc.trigger.unit } : undefined}
          serverError={fieldError}
          onChange={(d) => onChange(form.apply(d))}
          onSubmit={() => onClose()}
          submitText={t('autoflow.done')}
        />
      </fieldset>
      {actionIndex >= 0 && !readOnly && (
        <Button
          danger
          block
          icon={<DeleteOutlined />}
          style={{ marginTop: 12 }}
          disabled={doc.actions.length <= 1}
          onClick={() => {
            onChange({ ...doc, actions: doc.actions.filter((_, i) => i !== actionIndex) });
            onClose();
          }}
        >
          {t('autoflow.removeAction')}
        </Button>
      )}
    </Card>
  );
}

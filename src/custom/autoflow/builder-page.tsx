/**
 * workFlowOperation: create (?template= to start from one) and edit (?id=) an automation rule on a canvas.
 * The document is one object; the canvas draws it and each node's panel edits its part. Saving checks it against the
 * rule's schema first (the same the server uses), marking the nodes that are wrong, then sends it; the server's
 * refusal is shown on the node its field belongs to. Leaving with unsaved changes asks first. The menu keeps autoflow
 * highlighted (src/shell/routes.ts).
 */
import { PlusOutlined, SaveOutlined, SettingOutlined } from '@ant-design/icons';
import type { RJSFSchema } from '@rjsf/utils';
import { Alert, App, Button, Card, Dropdown, Form, Input, Modal, Skeleton, Space, Typography } from 'antd';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useBlocker, useNavigate, useParams, useSearchParams } from 'react-router';
import {
  ACTION_SCHEMA,
  ACTION_TYPES,
  AUTOFLOW_RULE_SCHEMA,
  MAX_ACTIONS,
  SCOPE_SCHEMA,
  TRIGGER_SCHEMA,
  type AutoflowRuleDocument,
} from '../../../common/autoflow-rule';
import { schemaMessage } from '../../../common/validation-messages';
import { LIMITS } from '../../../common/limits';
import type { HttpError } from '../../providers/http';
import { store } from '../../providers/session-store';
import { cspSafeValidator } from '../../resources/csp-validator';
import { canWrite } from './access';
import { autoflowApi } from './api';
import Canvas from './canvas';
import { confirmEnable } from './enable-confirm';
import { actionOf, NodePanel, subSchema, type FieldError, type NodeKey } from './node-forms';
import { BLANK, TEMPLATES, type TemplateKey } from './templates';
import { useAutoflowTexts } from './texts';

const validator = cspSafeValidator();
type Target = NodeKey | 'name' | 'actions';

/** Where a document path's problem is shown: "trigger.threshold" on the condition, "actions.1.emails" on action 2. */
export function targetOf(path: string): { node: Target; section: string; field: string } {
  const [head, second, third] = path.replace(/^\./, '').split('.');
  if (head === 'trigger')
    return second === 'type' || !second ? { node: 'trigger', section: 'trigger', field: 'type' } : { node: 'condition', section: 'trigger', field: second };
  if (head === 'scope') return { node: 'scope', section: 'scope', field: second ?? 'type' };
  if (head === 'actions' && second && /^\d+$/.test(second)) return { node: `action-${Number(second)}`, section: 'action', field: third ?? 'type' };
  if (head === 'activationAt' || head === 'expiryAt') return { node: 'settings', section: 'settings', field: head };
  return { node: head === 'actions' ? 'actions' : 'name', section: '', field: head };
}

/** JSON with sorted keys: two documents that say the same compare equal. */
const stable = (v: unknown): string =>
  JSON.stringify(v, (_, x: unknown) =>
    x && typeof x === 'object' && !Array.isArray(x) ? Object.fromEntries(Object.entries(x as object).sort(([a], [b]) => a.localeCompare(b))) : x,
  );
const withoutLang = (p: string) => p.replace(/^\/[^/]+/, '');

export function WorkFlowOperationPage() {
  const [params] = useSearchParams();
  if (!useAutoflowTexts()) return <Skeleton active />;
  const key = `${params.get('id') ?? ''}|${params.get('template') ?? ''}`;
  return <Builder key={key} id={params.get('id')} template={params.get('template') as TemplateKey | null} />;
}

function Builder({ id, template }: { id: string | null; template: TemplateKey | null }) {
  const { t, i18n } = useTranslation();
  const { lang } = useParams();
  const navigate = useNavigate();
  const { message, modal } = App.useApp();
  const [doc, setDoc] = useState<AutoflowRuleDocument | null>(null);
  const [open, setOpen] = useState<NodeKey | null>(null);
  const [errors, setErrors] = useState<Partial<Record<Target, FieldError[]>>>({});
  const [busy, setBusy] = useState(false);
  const saved = useRef('');
  const leaving = useRef(false);
  const readOnly = !canWrite(id ? 'update' : 'create');

  useEffect(() => {
    if (id) {
      void autoflowApi.detail(id).then(
        (r) => {
          const d: AutoflowRuleDocument = {
            name: r.name,
            trigger: r.trigger,
            scope: r.scope,
            actions: r.actions,
            activationAt: r.activationAt,
            expiryAt: r.expiryAt,
            status: r.status,
          };
          saved.current = stable(d);
          setDoc(d);
        },
        () => navigate(`/${lang}/autoflow`),
      );
    } else {
      const start =
        template && template in TEMPLATES
          ? { name: t(`autoflow.templates.${template}`), ...structuredClone(TEMPLATES[template]) }
          : { name: '', ...structuredClone(BLANK) };
      saved.current = stable(start);
      setDoc(start as AutoflowRuleDocument);
    }
  }, [id, template, lang, navigate, t]);

  const dirty = !!doc && !readOnly && stable(doc) !== saved.current;
  const dirtyRef = useRef(dirty);
  dirtyRef.current = dirty;
  const blocker = useBlocker(
    ({ currentLocation, nextLocation }) => dirtyRef.current && !leaving.current && withoutLang(currentLocation.pathname) !== withoutLang(nextLocation.pathname),
  );
  useEffect(() => {
    if (!dirty) return;
    const warn = (e: BeforeUnloadEvent) => e.preventDefault();
    window.addEventListener('beforeunload', warn);
    return () => window.removeEventListener('beforeunload', warn);
  }, [dirty]);

  if (!doc) return <Skeleton active />;

  const label = (section: string, field: string) => (section ? t(`autoflow.${section}.fields.${field}`) : t(`autoflow.fields.${field}`));
  const change = (next: AutoflowRuleDocument) => {
    setDoc(next);
    // A part edited again is judged again when saved; its marks go.
    if (open && errors[open]) setErrors(({ [open]: _, ...rest }) => rest);
  };

  /** The schema's word on the whole document, problem by problem, grouped by the node that shows it. */
  const check = (d: AutoflowRuleDocument): Partial<Record<Target, FieldError[]>> => {
    const out: Partial<Record<Target, FieldError[]>> = {};
    const { errors: found } = validator.validateFormData(d, AUTOFLOW_RULE_SCHEMA as unknown as RJSFSchema);
    // The trigger's fields as they apply to its type and unit (a threshold in MB has MB's range).
    const trigger = subSchema(TRIGGER_SCHEMA as never, d.trigger as never, Object.keys(TRIGGER_SCHEMA.properties)).properties;
    const schemaOf = (path: string): Record<string, unknown> | undefined => {
      const [head, second, third, fourth] = path.replace(/^\./, '').split('.');
      const props = (s: { properties: Record<string, unknown> }, k?: string) => (k ? (s.properties[k] as Record<string, unknown> | undefined) : undefined);
      if (head === 'trigger') return trigger[second];
      if (head === 'scope') return props(SCOPE_SCHEMA, second);
      if (head === 'actions' && third) {
        const field = props(ACTION_SCHEMA, third);
        return fourth !== undefined ? (field?.items as Record<string, unknown> | undefined) : field;
      }
      return props(AUTOFLOW_RULE_SCHEMA, head);
    };
    for (const e of found) {
      const p = (e.params ?? {}) as Record<string, unknown>;
      const path =
        e.name === 'required' && p.missingProperty && !String(e.property).endsWith(String(p.missingProperty))
          ? `${e.property}.${String(p.missingProperty)}`
          : String(e.property ?? '');
      const where = targetOf(path);
      const schema = schemaOf(path);
      const email = schema?.['x-rule'] === 'email' && e.name !== 'required' && e.name !== 'type';
      const unit = where.field === 'threshold' ? d.trigger.unit : undefined;
      const message = schemaMessage(
        t,
        i18n.language,
        label(where.section, where.field),
        email ? { keyword: 'format', params: { format: 'email' } } : { keyword: e.name ?? 'pattern', params: p, schema, unit },
      );
      const list = (out[where.node] ??= []);
      if (!list.some((x) => x.field === where.field)) list.push({ field: where.field, message });
    }
    if (d.scope.type === 'file' && !d.scope.fileToken) out.scope = [{ field: 'fileToken', message: t('autoflow.noFileChosen') }];
    return out;
  };

  /** The server's refusal shown on the node its field belongs to. */
  const refusedBy = (e: unknown) => {
    const err = e as HttpError;
    if (!err.field) return;
    const where = targetOf(err.field);
    setErrors({ [where.node]: [{ field: where.field, message: err.message }] });
    if (where.node !== 'name' && where.node !== 'actions') setOpen(where.node);
  };

  const save = async () => {
    const body = { ...doc, name: doc.name.trim() };
    const found = check(body);
    setErrors(found);
    const marked = Object.keys(found) as Target[];
    if (marked.length) {
      void message.error(t('autoflow.fixMarked'));
      const node = marked.find((m) => m !== 'name' && m !== 'actions') as NodeKey | undefined;
      if (node) setOpen(node);
      return;
    }
    setBusy(true);
    try {
      // A new rule is enabled as it is created: one that acts on SIMs first says on how many, and asks.
      if (!id && body.status !== 'disabled' && !(await confirmEnable(modal, t, i18n.language, body, t('autoflow.enableConfirm.saveEnable')))) return;
      await autoflowApi.save(body, { id: id ?? undefined, scene: template && !id ? 'template' : 'console', operator: store.get('userEmail') ?? '' });
      leaving.current = true;
      saved.current = stable(doc);
      void message.success(t(id ? 'autoflow.savedRule' : 'autoflow.createdRule', { name: body.name }));
      window.dispatchEvent(new Event('autoflow:changed'));
      navigate(`/${lang}/autoflow`);
    } catch (e) {
      refusedBy(e);
    } finally {
      setBusy(false);
    }
  };

  const addAction = (type: (typeof ACTION_TYPES)[number]) => {
    const next = { ...doc, actions: [...doc.actions, actionOf(type)] };
    setDoc(next);
    setOpen(`action-${next.actions.length - 1}`);
  };

  return (
    <>
      <Typography.Title level={3}>{id ? t('autoflow.editTitle') : t('autoflow.createTitle')}</Typography.Title>
      {readOnly && <Alert type="warning" showIcon style={{ marginBottom: 16 }} message={t('errors.autoflowWriteMissing')} />}
      <Card style={{ marginBottom: 16 }}>
        <Space wrap align="start" style={{ width: '100%', justifyContent: 'space-between' }}>
          <Form layout="inline" component="div">
            <Form.Item
              label={t('autoflow.fields.name')}
              htmlFor="autoflow-name"
              required
              validateStatus={errors.name ? 'error' : undefined}
              help={errors.name?.[0]?.message}
            >
              <Input
                id="autoflow-name"
                value={doc.name}
                // The count turns red past the limit; nothing typed is cut (saving says the limit).
                count={{ show: true, max: LIMITS.autoflowName.max }}
                status={doc.name.length > LIMITS.autoflowName.max ? 'error' : undefined}
                readOnly={readOnly}
                style={{ width: 420, maxWidth: '100%' }}
                placeholder={t('autoflow.namePlaceholder')}
                onChange={(e) => (setDoc({ ...doc, name: e.target.value }), errors.name && setErrors(({ name: _, ...rest }) => rest))}
              />
            </Form.Item>
          </Form>
          <Space wrap>
            {!readOnly && (
              <Dropdown
                trigger={['click']}
                disabled={doc.actions.length >= MAX_ACTIONS}
                menu={{
                  items: ACTION_TYPES.map((a) => ({ key: a, label: t(`autoflow.action.enum.type.${a}`) })),
                  onClick: ({ key }) => addAction(key as (typeof ACTION_TYPES)[number]),
                }}
              >
                <Button icon={<PlusOutlined />}>{t('autoflow.addAction')}</Button>
              </Dropdown>
            )}
            <Button icon={<SettingOutlined />} onClick={() => setOpen('settings')}>
              {t('autoflow.node.settings')}
            </Button>
            <Button onClick={() => navigate(`/${lang}/autoflow`)}>{t('autoflow.cancel')}</Button>
            {!readOnly && (
              <Button type="primary" icon={<SaveOutlined />} loading={busy} onClick={() => void save()}>
                {t('autoflow.save')}
              </Button>
            )}
          </Space>
        </Space>
        {errors.actions && <Alert type="error" showIcon style={{ marginTop: 12 }} message={errors.actions[0].message} />}
      </Card>
      <div className="af-layout">
        <Card className="af-main" size="small" title={t('autoflow.canvasTitle')}>
          <Typography.Paragraph type="secondary" style={{ marginBottom: 8 }}>
            {t('autoflow.canvasHelp')}
          </Typography.Paragraph>
          <Canvas doc={doc} open={open} errors={errors} onOpen={setOpen} />
        </Card>
        {open && <NodePanel key={open} node={open} doc={doc} onChange={change} onClose={() => setOpen(null)} errors={errors[open] ?? []} readOnly={readOnly} />}
      </div>
      <Modal
        open={blocker.state === 'blocked'}
        title={t('autoflow.leaveTitle')}
        okText={t('autoflow.leave')}
        cancelText={t('autoflow.stay')}
        okButtonProps={{ danger: true }}
        onOk={() => blocker.proceed?.()}
        onCancel={() => blocker.reset?.()}
      >
        {t('autoflow.leaveText')}
      </Modal>
    </>
  );
}

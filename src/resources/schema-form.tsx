/**
 * RJSF with antd, wired to the console's languages: field titles from <i18n>.fields.<field>, error messages from the
 * same rule texts the server answers with (rules.* in common/locales), a country picker, and the server's answer to a
 * field shown under that field. noHtml5Validate, or the browser's own bubbles would hide these messages. The
 * validator interprets schemas (csp-validator.ts): the console's CSP allows no eval.
 *
 * It should read like a hand-made form: a message is a sentence naming its field ("First name is required"), a
 * choice has no blank first option, a list of short texts (tags) is one tags box, and a step's Previous sits left
 * of its Next.
 */
import Form, { Templates } from '@rjsf/antd';
import type { BaseInputTemplateProps, ErrorSchema, IconButtonProps, RJSFSchema, RJSFValidationError, UiSchema, WidgetProps } from '@rjsf/utils';
import { ArrowDownOutlined, ArrowUpOutlined, CloseOutlined, CopyOutlined, DeleteOutlined, PlusOutlined } from '@ant-design/icons';
import { Button, Input, Select, Space, Tag } from 'antd';
import { useMemo, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { ISO_COUNTRIES } from '../../common/countries';
import { generatePassword } from '../../common/passwords';
import { ruleMessage, schemaMessage } from '../../common/validation-messages';
import { cspSafeValidator } from './csp-validator';
import { itemLabel, itemMessage } from './item-message';

const validator = cspSafeValidator();

type Props = Record<string, unknown> & { properties: Record<string, Record<string, unknown>> };

/** Countries by name in the interface language, searchable. */
function CountryWidget({ id, value, onChange, disabled, readonly }: WidgetProps) {
  const { i18n, t } = useTranslation();
  const options = useMemo(() => {
    const names = new Intl.DisplayNames([i18n.language], { type: 'region' });
    return [...ISO_COUNTRIES].map((c) => ({ value: c, label: `${names.of(c) ?? c} (${c})` })).sort((a, b) => a.label.localeCompare(b.label, i18n.language));
  }, [i18n.language]);
  return (
    <Select
      id={id}
      aria-label={t('forms.country')}
      showSearch
      optionFilterProp="label"
      value={value}
      disabled={disabled || readonly}
      onChange={(v) => onChange(v)}
      options={options}
    />
  );
}

/** A password field with a Generate button: SPEC.md section 5's generated password, shown so it can be passed on. */
function GeneratedPasswordWidget({ id, value, onChange, onBlur, disabled, readonly }: WidgetProps) {
  const { t } = useTranslation();
  // A generated password is shown, so that it can be noted down and passed on.
  const [visible, setVisible] = useState(false);
  return (
    <Space.Compact style={{ width: '100%' }}>
      <Input.Password
        id={id}
        value={value ?? ''}
        disabled={disabled || readonly}
        autoComplete="new-password"
        visibilityToggle={{ visible, onVisibleChange: setVisible }}
        onChange={(e) => onChange(e.target.value || undefined)}
        onBlur={() => onBlur(id, value)}
      />
      <Button
        onClick={() => {
          onChange(generatePassword());
          setVisible(true);
        }}
        disabled={disabled || readonly}
      >
        {t('accounts.generate')}
      </Button>
    </Space.Compact>
  );
}

/** A choice among the schema's values: no blank first option (RJSF's own adds one); an optional field can be cleared. */
function ChoiceWidget({ id, value, onChange, onBlur, onFocus, disabled, readonly, required, options, placeholder }: WidgetProps) {
  const { t } = useTranslation();
  const choices = (options.enumOptions ?? []).map((o: { value: unknown; label: string }, i: number) => ({ value: i, label: o.label, raw: o.value }));
  const at = choices.findIndex((c: { raw: unknown }) => c.raw === value);
  return (
    <Select
      id={id}
      value={at >= 0 ? at : undefined}
      disabled={disabled || readonly}
      allowClear={!required}
      placeholder={placeholder || t('forms.choose')}
      options={choices.map(({ value: v, label }: { value: number; label: string }) => ({ value: v, label }))}
      onChange={(i: number | undefined) => onChange(i === undefined ? undefined : choices[i]?.raw)}
      onBlur={() => onBlur(id, value)}
      onFocus={() => onFocus(id, value)}
    />
  );
}

/**
 * Short texts (a SIM's tags, an e-mail group) in one box: typed and added with Enter, a comma or a semicolon, at most
 * the schema's maxItems. A text the list's item rule refuses (an address that is not one, a tag too long, a repeat,
 * one too many) is not added: it stays in the box, said wrong under it, to be corrected.
 */
function TagsWidget({ id, value, onChange, onBlur, disabled, readonly, schema, label, options }: WidgetProps) {
  const { t, i18n } = useTranslation();
  const list = Array.isArray(value) ? (value as string[]).filter((v): v is string => typeof v === 'string') : [];
  const [text, setText] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const items = (schema.items ?? {}) as Record<string, unknown>;
  const max = typeof schema.maxItems === 'number' ? schema.maxItems : undefined;
  const refusal = (entry: string): string | null => {
    // A refused entry is said of itself ("Tag “x” …"), not of the list ("Tags “x” …").
    const item = typeof options.itemLabel === 'string' ? options.itemLabel : label;
    const say = (keyword: string, params: Record<string, unknown> = {}) => itemMessage(t, i18n.language, item, entry, { keyword, params });
    if (items['x-rule'] === 'email' || items.format === 'email') {
      if (typeof items.pattern === 'string' && !new RegExp(items.pattern).test(entry)) return say('format', { format: 'email' });
    } else if (typeof items.pattern === 'string' && !new RegExp(items.pattern).test(entry)) return say('pattern');
    if (typeof items.maxLength === 'number' && entry.length > items.maxLength) return say('maxLength', { limit: items.maxLength });
    if (list.some((v) => v.toLowerCase() === entry.toLowerCase())) return t('forms.alreadyListed', { value: entry });
    if (max !== undefined && list.length >= max) return schemaMessage(t, i18n.language, label, { keyword: 'maxItems', params: { limit: max } });
    return null;
  };
  /** Add what is typed (several at once when pasted with separators); what is refused stays in the box. */
  const commit = (raw: string) => {
    const entries = raw
      .split(/[,;\n]+/)
      .map((v) => v.trim())
      .filter(Boolean);
    if (!entries.length) {
      setText('');
      setProblem(null);
      return;
    }
    const added: string[] = [];
    for (const [i, entry] of entries.entries()) {
      const no = refusal(entry) ?? (added.some((a) => a.toLowerCase() === entry.toLowerCase()) ? t('forms.alreadyListed', { value: entry }) : null);
      if (no || (max !== undefined && list.length + added.length >= max)) {
        if (added.length) onChange([...list, ...added]);
        setText(entries.slice(i).join(', '));
        setProblem(no ?? schemaMessage(t, i18n.language, label, { keyword: 'maxItems', params: { limit: max } }));
        return;
      }
      added.push(entry);
    }
    onChange([...list, ...added]);
    setText('');
    setProblem(null);
  };
  const remove = (i: number) => {
    const next = list.filter((_, j) => j !== i);
    onChange(next.length ? next : undefined);
  };
  const off = disabled || readonly;
  return (
    <div>
      {list.length > 0 && (
        <Space size={[4, 4]} wrap style={{ marginBottom: 6 }}>
          {list.map((v, i) => (
            <Tag
              key={`${v}-${i}`}
              closable={!off}
              onClose={(e) => (e.preventDefault(), remove(i))}
              closeIcon={<CloseOutlined aria-label={t('forms.removeEntry', { value: v })} />}
            >
              {v}
            </Tag>
          ))}
        </Space>
      )}
      <Input
        id={id}
        value={text}
        disabled={off}
        status={problem ? 'error' : undefined}
        aria-invalid={problem ? true : undefined}
        aria-describedby={problem ? `${id}-problem` : undefined}
        placeholder={t('forms.tagsHelp')}
        onChange={(e) => {
          const v = e.target.value;
          // A separator typed (or pasted) ends an entry.
          if (/[,;]/.test(v)) return commit(v);
          setText(v);
          if (problem) setProblem(null);
        }}
        onKeyDown={(e) => {
          if (e.key === 'Enter') {
            e.preventDefault();
            commit(text);
          } else if (e.key === 'Backspace' && !text && list.length) remove(list.length - 1);
        }}
        onBlur={() => {
          if (text.trim()) commit(text);
          onBlur(id, value);
        }}
      />
      {problem && (
        <div id={`${id}-problem`} role="alert" className="ant-form-item-explain-error" style={{ color: 'var(--ant-color-error, #ff4d4f)', marginTop: 4 }}>
          {problem}
        </div>
      )}
    </div>
  );
}

/**
 * Text and number inputs of RJSF's antd theme without the schema's minimum and maximum: antd's InputNumber would
 * clamp a value outside them when the field is left (0 became 1), so a value out of range stays as typed and the
 * form's validation says the range instead. Nothing typed is cut or rounded.
 */
function UnclampedInput(props: BaseInputTemplateProps) {
  const {
    minimum: _min,
    maximum: _max,
    exclusiveMinimum: _emin,
    exclusiveMaximum: _emax,
    maxLength: _len,
    ...schema
  } = props.schema as Record<string, unknown>;
  const Base = Templates.BaseInputTemplate as (p: BaseInputTemplateProps) => ReactNode;
  return <Base {...props} schema={schema as BaseInputTemplateProps['schema']} />;
}

/** A list field's buttons with their names (RJSF's antd theme draws icons only, which no screen reader can name). */
function AddButton({ onClick, disabled }: IconButtonProps) {
  const { t } = useTranslation();
  return (
    <Button type="dashed" icon={<PlusOutlined />} onClick={onClick} disabled={disabled}>
      {t('forms.addItem')}
    </Button>
  );
}
const iconButton = (icon: ReactNode, key: string, danger = false) =>
  function LabelledButton({ onClick, disabled }: IconButtonProps) {
    const { t } = useTranslation();
    return <Button icon={icon} danger={danger} aria-label={t(key)} title={t(key)} onClick={onClick} disabled={disabled} />;
  };
const buttonTemplates = {
  AddButton,
  RemoveButton: iconButton(<DeleteOutlined />, 'forms.removeItem', true),
  MoveUpButton: iconButton(<ArrowUpOutlined />, 'forms.moveUp'),
  MoveDownButton: iconButton(<ArrowDownOutlined />, 'forms.moveDown'),
  CopyButton: iconButton(<CopyOutlined />, 'forms.copyItem'),
};

/** The schema with each field's title in the interface language. */
export function localize(schema: Props, prefix: string, t: (k: string) => string): RJSFSchema {
  return {
    ...schema,
    properties: Object.fromEntries(Object.entries(schema.properties).map(([f, p]) => [f, { ...p, title: t(`${prefix}.fields.${f}`) }])),
  } as RJSFSchema;
}

/** Arrays of plain strings (tags) are edited in one tags box. */
const isTextList = (p: Record<string, unknown>) =>
  String(p.type).includes('array') && (p.items as Record<string, unknown> | undefined)?.type === 'string' && !(p.items as Record<string, unknown>).enum;

interface SchemaFormProps {
  schema: Props;
  prefix: string;
  uiSchema?: Record<string, unknown>;
  formData: Record<string, unknown>;
  onChange: (data: Record<string, unknown>) => void;
  onSubmit: (data: Record<string, unknown>) => void;
  /** The server's word on a field (400 naming it), shown under that field. */
  serverError?: { field: string; message: string } | null;
  submitText: string;
  busy?: boolean;
  /** A step back (a wizard's Previous), shown left of the submit button. */
  back?: { text: string; onClick: () => void };
  /** More widgets by name (uiSchema's ui:widget), beside the console's own. */
  widgets?: Record<string, (props: WidgetProps) => ReactNode>;
  /** The unit a numeric field is counted in (a threshold's "KB"), said after its range. */
  units?: Record<string, string | undefined>;
}

export function SchemaForm({ schema, prefix, uiSchema, formData, onChange, onSubmit, serverError, submitText, busy, back, widgets, units }: SchemaFormProps) {
  const { t, i18n } = useTranslation();
  const localized = useMemo(() => localize(schema, prefix, t), [schema, prefix, t]);
  // Enum values read as their labels in the interface language (the value sent stays the schema's).
  const withEnumNames = useMemo(() => {
    const out: Record<string, unknown> = { ...(uiSchema ?? {}) };
    for (const [f, p] of Object.entries(schema.properties)) {
      const values = p.enum as unknown[] | undefined;
      if (values) out[f] = { ...((out[f] as object) ?? {}), 'ui:enumNames': values.map((v) => t(`${prefix}.enum.${f}.${String(v)}`)) };
      if (isTextList(p)) {
        const own = (out[f] ?? {}) as Record<string, unknown>;
        out[f] = { 'ui:widget': 'tags', ...own, 'ui:options': { itemLabel: itemLabel(t, prefix, f), ...((own['ui:options'] as object) ?? {}) } };
      }
    }
    return out;
  }, [schema, uiSchema, prefix, t]);
  // Each failed check is a sentence naming its field and the whole rule ("Threshold must be between 1 and
  // 1,073,741,824 KB"), the same words the server answers with (common/validation-messages.ts).
  const transformErrors = (errors: RJSFValidationError[]) =>
    errors.map((e) => {
      const p = (e.params ?? {}) as Record<string, unknown>;
      // ".tags.3": the fourth tag; its message goes under the tags box, naming the tag.
      const [field, item] = (e.property ?? '').replace(/^\./, '').split('.');
      const fieldSchema = (schema.properties[field] ?? {}) as Record<string, unknown>;
      const isItem = item !== undefined && /^\d+$/.test(item);
      const checked = ((isItem ? fieldSchema.items : fieldSchema) ?? {}) as Record<string, unknown>;
      const own = checked['x-rule'] ?? fieldSchema['x-rule'];
      // A field that names its own rule (x-rule: "password") shows that rule's sentence for any broken check, as the server does.
      const ownRule = typeof own === 'string' && e.name !== 'required' && e.name !== 'type';
      const label = t(`${prefix}.fields.${field}`);
      const entry = String((formData[field] as unknown[] | undefined)?.[Number(item)] ?? '');
      const named = isItem ? t('forms.itemName', { item: itemLabel(t, prefix, field), value: entry }) : label;
      if (ownRule && own !== 'email') return { ...e, property: `.${field}`, message: ruleMessage(t, i18n.language, named, own) };
      const problem = ownRule ? { keyword: 'format', params: { format: 'email' } } : { keyword: e.name ?? 'pattern', params: p };
      // An entry is said of itself ("Tag “x” must be …"), the field of itself ("Tags can have at most 10 entries").
      if (isItem) return { ...e, property: `.${field}`, message: itemMessage(t, i18n.language, itemLabel(t, prefix, field), entry, problem) };
      return { ...e, property: `.${field}`, message: schemaMessage(t, i18n.language, named, { ...problem, schema: checked, unit: units?.[field] }) };
    });
  const extraErrors = serverError ? ({ [serverError.field]: { __errors: [serverError.message] } } as ErrorSchema) : undefined;
  return (
    <Form
      schema={localized}
      uiSchema={withEnumNames as UiSchema}
      validator={validator}
      formData={formData}
      onChange={(e) => onChange(e.formData as Record<string, unknown>)}
      onSubmit={(e) => onSubmit(e.formData as Record<string, unknown>)}
      widgets={{ country: CountryWidget, generatedPassword: GeneratedPasswordWidget, tags: TagsWidget, SelectWidget: ChoiceWidget, ...(widgets as object) }}
      templates={{ ButtonTemplates: buttonTemplates, BaseInputTemplate: UnclampedInput }}
      transformErrors={transformErrors}
      extraErrors={extraErrors}
      noHtml5Validate
      showErrorList={false}
      liveValidate="onBlur"
    >
      <Space>
        {back && <Button onClick={back.onClick}>{back.text}</Button>}
        <Button type="primary" htmlType="submit" disabled={busy}>
          {submitText}
        </Button>
      </Space>
    </Form>
  );
}

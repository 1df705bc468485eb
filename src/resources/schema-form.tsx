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
import Form from '@rjsf/antd';
import type { ErrorSchema, IconButtonProps, RJSFSchema, RJSFValidationError, UiSchema, WidgetProps } from '@rjsf/utils';
import { ArrowDownOutlined, ArrowUpOutlined, CopyOutlined, DeleteOutlined, PlusOutlined } from '@ant-design/icons';
import { Button, Input, Select, Space } from 'antd';
import { useMemo, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { ISO_COUNTRIES } from '../../common/countries';
import { generatePassword } from '../../common/passwords';
import { cspSafeValidator } from './csp-validator';

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
    <Select id={id} aria-label={t('forms.country')} showSearch optionFilterProp="label" value={value} disabled={disabled || readonly} onChange={(v) => onChange(v)} options={options} />
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

/** Short texts (a SIM's tags) in one box: typed and added with Enter, a comma or a semicolon, at most the schema's maxItems. */
function TagsWidget({ id, value, onChange, onBlur, disabled, readonly, schema }: WidgetProps) {
  const { t } = useTranslation();
  const list = Array.isArray(value) ? (value as string[]) : [];
  return (
    <Select
      id={id}
      mode="tags"
      open={false}
      suffixIcon={null}
      value={list}
      disabled={disabled || readonly}
      maxCount={typeof schema.maxItems === 'number' ? schema.maxItems : undefined}
      tokenSeparators={[',', ';']}
      placeholder={t('forms.tagsHelp')}
      onChange={(v: string[]) => onChange(v.map((s) => s.trim()).filter(Boolean))}
      onBlur={() => onBlur(id, value)}
    />
  );
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
  return { ...schema, properties: Object.fromEntries(Object.entries(schema.properties).map(([f, p]) => [f, { ...p, title: t(`${prefix}.fields.${f}`) }])) } as RJSFSchema;
}

/** Rule texts that are already a sentence naming their field (SPEC.md's password message); the others are said after the field's name. */
const WHOLE_SENTENCES = new Set(['password', 'passwordMismatch']);

/** Arrays of plain strings (tags) are edited in one tags box. */
const isTextList = (p: Record<string, unknown>) => String(p.type).includes('array') && (p.items as Record<string, unknown> | undefined)?.type === 'string' && !(p.items as Record<string, unknown>).enum;

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
}

export function SchemaForm({ schema, prefix, uiSchema, formData, onChange, onSubmit, serverError, submitText, busy, back, widgets }: SchemaFormProps) {
  const { t } = useTranslation();
  const localized = useMemo(() => localize(schema, prefix, t), [schema, prefix, t]);
  // Enum values read as their labels in the interface language (the value sent stays the schema's).
  const withEnumNames = useMemo(() => {
    const out: Record<string, unknown> = { ...(uiSchema ?? {}) };
    for (const [f, p] of Object.entries(schema.properties)) {
      const values = p.enum as unknown[] | undefined;
      if (values) out[f] = { ...((out[f] as object) ?? {}), 'ui:enumNames': values.map((v) => t(`${prefix}.enum.${f}.${String(v)}`)) };
      if (isTextList(p)) out[f] = { 'ui:widget': 'tags', ...((out[f] as object) ?? {}) };
    }
    return out;
  }, [schema, uiSchema, prefix, t]);
  const transformErrors = (errors: RJSFValidationError[]) =>
    errors.map((e) => {
      const p = (e.params ?? {}) as Record<string, unknown>;
      // ".tags.3": the fourth tag; its message goes under the tags box, naming the tag.
      const [field, item] = (e.property ?? '').replace(/^\./, '').split('.');
      const own = schema.properties[field]?.['x-rule'];
      // A field that names its own rule (x-rule: "password") shows that rule's text for any broken check, as the server does.
      const ownRule = typeof own === 'string' && e.name !== 'required' && e.name !== 'type';
      if (ownRule && WHOLE_SENTENCES.has(own)) return { ...e, message: t(`rules.${own}`) };
      const name = e.name === 'pattern' ? 'pattern' : e.name === 'type' ? 'type' : e.name ?? 'pattern';
      // count picks the singular (rules.minLength_one) for a limit of 1.
      const rule = ownRule ? t(`rules.${own}`) : t(`rules.${name}`, { limit: p.limit, count: typeof p.limit === 'number' ? p.limit : undefined, type: p.type, values: (p.allowedValues as unknown[] | undefined)?.join(', ') });
      // The rule texts are the server's ("Device name: must be at most 40 characters"); a form says them as a sentence.
      if (item !== undefined && /^\d+$/.test(item)) {
        const value = (formData[field] as unknown[] | undefined)?.[Number(item)];
        return { ...e, property: `.${field}`, message: t('forms.itemRule', { item: t(`${prefix}.items.${field}`, { defaultValue: t(`${prefix}.fields.${field}`) }), value: String(value ?? ''), rule }) };
      }
      return { ...e, message: t('forms.fieldRule', { field: t(`${prefix}.fields.${field}`), rule }) };
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
      templates={{ ButtonTemplates: buttonTemplates }}
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

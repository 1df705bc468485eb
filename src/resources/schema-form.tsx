/**
 * RJSF with antd, wired to the console's languages: field titles from <i18n>.fields.<field>, error messages from the
 * same rule texts the server answers with (rules.* in common/locales), a country picker, and the server's answer to a
 * field shown under that field. noHtml5Validate, or the browser's own bubbles would hide these messages. The
 * validator interprets schemas (csp-validator.ts): the console's CSP allows no eval.
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
}

export function SchemaForm({ schema, prefix, uiSchema, formData, onChange, onSubmit, serverError, submitText, busy }: SchemaFormProps) {
  const { t } = useTranslation();
  const localized = useMemo(() => localize(schema, prefix, t), [schema, prefix, t]);
  // Enum values read as their labels in the interface language (the value sent stays the schema's).
  const withEnumNames = useMemo(() => {
    const out: Record<string, unknown> = { ...(uiSchema ?? {}) };
    for (const [f, p] of Object.entries(schema.properties)) {
      const values = p.enum as unknown[] | undefined;
      if (values) out[f] = { ...((out[f] as object) ?? {}), 'ui:enumNames': values.map((v) => t(`${prefix}.enum.${f}.${String(v)}`)) };
    }
    return out;
  }, [schema, uiSchema, prefix, t]);
  const transformErrors = (errors: RJSFValidationError[]) =>
    errors.map((e) => {
      const p = (e.params ?? {}) as Record<string, unknown>;
      // A field that names its own rule (x-rule: "password") shows that rule's text for any broken check, as the server does.
      const field = (e.property ?? '').replace(/^\./, '');
      const own = schema.properties[field]?.['x-rule'];
      if (typeof own === 'string' && e.name !== 'required' && e.name !== 'type') return { ...e, message: t(`rules.${own}`) };
      const rule = e.name === 'pattern' ? 'pattern' : e.name === 'type' ? 'type' : e.name ?? 'pattern';
      // count picks the singular (rules.minLength_one) for a limit of 1.
      return { ...e, message: t(`rules.${rule}`, { limit: p.limit, count: typeof p.limit === 'number' ? p.limit : undefined, type: p.type, values: (p.allowedValues as unknown[] | undefined)?.join(', ') }) };
    });
  const extraErrors = serverError ? ({ [serverError.field]: { __errors: [serverError.message] } } as ErrorSchema) : undefined;
  return (
    <Form
      schema={localized}
      uiSchema={{ ...(withEnumNames as UiSchema), 'ui:submitButtonOptions': { submitText, props: { disabled: busy, type: 'primary' } } }}
      validator={validator}
      formData={formData}
      onChange={(e) => onChange(e.formData as Record<string, unknown>)}
      onSubmit={(e) => onSubmit(e.formData as Record<string, unknown>)}
      widgets={{ country: CountryWidget, generatedPassword: GeneratedPasswordWidget }}
      templates={{ ButtonTemplates: buttonTemplates }}
      transformErrors={transformErrors}
      extraErrors={extraErrors}
      noHtml5Validate
      showErrorList={false}
      liveValidate="onBlur"
    />
  );
}

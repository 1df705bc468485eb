/** The search bar of a schema list: search by whole value or trailing characters, enum filters, bulk search, columns. */
import { SearchOutlined, TableOutlined } from '@ant-design/icons';
import { useCustom } from '@refinedev/core';
import { Badge, Button, Checkbox, DatePicker, Dropdown, Flex, Input, Select, Space, Typography } from 'antd';
import dayjs from 'dayjs';
import { useEffect, useId, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { rangeProblem, type ResourceSchema } from '../../common/resources';
import { BulkSearchDialog } from './bulk-search-dialog';

export interface Criteria {
  search?: { field: string; value: string };
  bulk?: string[];
  filters: Record<string, string | boolean | undefined>;
  /** from–to windows by field, as ISO times. */
  ranges?: Record<string, [string, string] | undefined>;
}

/** The chosen date windows as the list body names them (<field>From, <field>To). */
export function windowBodyOf(c: Criteria): Record<string, string> {
  return Object.fromEntries(
    Object.entries(c.ranges ?? {}).flatMap(([f, v]) =>
      v
        ? [
            [`${f}From`, v[0]],
            [`${f}To`, v[1]],
          ]
        : [],
    ),
  );
}

/** What the typed search lacks before it may be sent (SPEC.md section 5: more than one character; digits for numbers). */
export function searchProblem(resource: ResourceSchema, field: string, value: string): string | null {
  const v = value.trim();
  if (!v) return null;
  if (v.length < 2) return 'resources.searchTooShort';
  if (resource.properties[field].pattern && !/^\d+$/.test(v)) return 'resources.searchDigits';
  return null;
}

interface Props {
  resource: ResourceSchema;
  criteria: Criteria;
  onChange: (c: Criteria) => void;
  /** Filters the list always carries, by field, as the bar shows them: read-only, not offered to change or clear. */
  fixed?: Record<string, string>;
  shown: string[];
  onColumns: (fields: string[]) => void;
  /** The search text as typed (the page debounces it). */
  text: string;
  onText: (field: string, value: string) => void;
  searchField: string;
}

/**
 * One filter with its name above it, as a hand-made filter bar has: two date windows (activated, expires) look alike
 * without their names. note: a short warning under the control (too short a search, too long a window), named by
 * `<htmlFor>-note` for the control's aria-describedby. It hangs below the control rather than taking a line of the
 * row, so that the controls of a row stay aligned; the bar leaves room for it (NOTE_ROOM).
 */
export function Labelled({ label, htmlFor, note, children }: { label: string; htmlFor: string; note?: string | null; children: ReactNode }) {
  return (
    <div style={{ display: 'flex', flexDirection: 'column', gap: 4, position: 'relative' }}>
      <label htmlFor={htmlFor} style={{ fontSize: 12, lineHeight: '20px', whiteSpace: 'nowrap' }}>
        <Typography.Text type="secondary">{label}</Typography.Text>
      </label>
      {children}
      <div aria-live="polite" style={{ position: 'absolute', top: '100%', insetInlineStart: 0, marginTop: 2, whiteSpace: 'nowrap' }}>
        {note && (
          <Typography.Text id={`${htmlFor}-note`} type="warning" style={{ fontSize: 12, lineHeight: '20px' }}>
            {note}
          </Typography.Text>
        )}
      </div>
    </div>
  );
}

/** The height a note under a control takes, which the bar adds below itself while one is shown. */
const NOTE_ROOM = 22;

export function ListToolbar({ resource, criteria, onChange, fixed = {}, shown, onColumns, text, onText, searchField }: Props) {
  const { t } = useTranslation();
  const admin = resource['x-admin'];
  const label = (f: string) => t(`${admin.i18n}.fields.${f}`);
  const [bulkOpen, setBulkOpen] = useState(false);
  const problem = searchProblem(resource, searchField, text);
  const open = admin.list.filters.filter((f) => fixed[f] === undefined);
  const enumFilters = open.filter((f) => resource.properties[f].enum);
  const valueFilters = open.filter((f) => !resource.properties[f].enum && !String(resource.properties[f].type).includes('array'));
  const required = admin.list.requiredRange;
  const windowProblem = rangeProblem(resource, windowBodyOf(criteria));
  const noted = !!problem || (!!windowProblem && !!required);
  const idBase = useId();
  const idOf = (f: string) => `${idBase}-${f}`;

  return (
    <Flex wrap gap={12} align="flex-end" style={{ rowGap: 12 + (noted ? NOTE_ROOM : 0), marginBottom: 16 + (noted ? NOTE_ROOM : 0) }}>
      {admin.list.search?.length ? (
        <Labelled label={t('resources.search')} htmlFor={idOf('__search')} note={problem && t(problem)}>
          <Space.Compact>
            <Select
              aria-label={t('resources.searchField')}
              value={searchField}
              style={{ width: 150 }}
              onChange={(f) => onText(f, text)}
              options={admin.list.search.map((f) => ({ value: f, label: label(f) }))}
            />
            <Input
              id={idOf('__search')}
              aria-label={t('resources.searchPlaceholder')}
              placeholder={t('resources.searchPlaceholder')}
              prefix={<SearchOutlined />}
              allowClear
              value={text}
              status={problem ? 'warning' : undefined}
              aria-describedby={problem ? `${idOf('__search')}-note` : undefined}
              onChange={(e) => onText(searchField, e.target.value)}
              style={{ width: 300 }}
            />
          </Space.Compact>
        </Labelled>
      ) : null}
      {(admin.list.ranges ?? []).map((f) => (
        <Labelled
          key={f}
          label={label(f)}
          htmlFor={idOf(f)}
          note={windowProblem && required?.field === f ? t('resources.rangeTooLong', { days: required.maxDays }) : null}
        >
          <DatePicker.RangePicker
            id={{ start: idOf(f), end: `${idOf(f)}-end` }}
            aria-label={t('resources.range', { field: label(f) })}
            placeholder={[t('resources.from'), t('resources.to')]}
            showTime
            allowClear={required?.field !== f}
            value={criteria.ranges?.[f] ? [dayjs(criteria.ranges[f]![0]), dayjs(criteria.ranges[f]![1])] : null}
            onChange={(v) =>
              onChange({ ...criteria, ranges: { ...criteria.ranges, [f]: v?.[0] && v[1] ? [v[0].toISOString(), v[1].toISOString()] : undefined } })
            }
          />
        </Labelled>
      ))}
      {admin.list.filters
        .filter((f) => fixed[f] !== undefined)
        .map((f) => (
          <Labelled key={f} label={label(f)} htmlFor={idOf(f)}>
            <Input id={idOf(f)} aria-label={label(f)} readOnly variant="filled" value={fixed[f]} style={{ minWidth: 220, width: `${fixed[f].length + 4}ch` }} />
          </Labelled>
        ))}
      {enumFilters.map((f) => (
        <Labelled key={f} label={label(f)} htmlFor={idOf(f)}>
          <Select
            id={idOf(f)}
            aria-label={label(f)}
            allowClear
            placeholder={t('resources.all')}
            value={criteria.filters[f]}
            style={{ minWidth: 160 }}
            popupMatchSelectWidth={false}
            onChange={(v) => onChange({ ...criteria, filters: { ...criteria.filters, [f]: v } })}
            options={(resource.properties[f].enum as string[]).map((v) => ({ value: v, label: t(`${admin.i18n}.enum.${f}.${v}`) }))}
          />
        </Labelled>
      ))}
      {valueFilters.map((f) => (
        <Labelled key={f} label={label(f)} htmlFor={idOf(f)}>
          <ValueFilter
            id={idOf(f)}
            label={label(f)}
            type={resource.properties[f].type}
            optionsCall={admin.list.filterOptions?.[f]}
            value={criteria.filters[f]}
            onChange={(v) => onChange({ ...criteria, filters: { ...criteria.filters, [f]: v as string | boolean | undefined } })}
          />
        </Labelled>
      ))}
      <Space wrap>
        {admin.list.bulk && (
          <Badge count={criteria.bulk?.length ?? 0} overflowCount={admin.list.bulk.max}>
            <Button onClick={() => setBulkOpen(true)}>{t('resources.bulk')}</Button>
          </Badge>
        )}
        <Dropdown
          trigger={['click']}
          popupRender={() => (
            <div style={{ background: '#fff', padding: 12, borderRadius: 8, boxShadow: '0 6px 16px rgba(0,0,0,.12)' }}>
              <Checkbox.Group
                style={{ display: 'grid', gap: 6 }}
                value={shown}
                onChange={(v) => v.length > 0 && onColumns(admin.list.columns.filter((c) => (v as string[]).includes(c)))}
                options={admin.list.columns.map((c) => ({ value: c, label: label(c), disabled: c === admin.key }))}
              />
            </div>
          )}
        >
          <Button icon={<TableOutlined />}>{t('resources.columns')}</Button>
        </Dropdown>
        {/* Only where there is something to clear (organisations and accounts have no filters). */}
        {(admin.list.search?.length || admin.list.filters.length || admin.list.ranges?.length || admin.list.bulk) && (
          <Button
            type="link"
            onClick={() => {
              onText(searchField, '');
              onChange({ filters: {}, ranges: required ? { [required.field]: criteria.ranges?.[required.field] } : {} });
            }}
          >
            {t('resources.clear')}
          </Button>
        )}
      </Space>
      {admin.list.bulk && (
        <BulkSearchDialog
          key={bulkOpen ? 'open' : 'closed'}
          resource={resource}
          open={bulkOpen}
          onClose={() => setBulkOpen(false)}
          onApply={(values) => {
            setBulkOpen(false);
            onChange({ ...criteria, bulk: values });
          }}
        />
      )}
    </Flex>
  );
}

/**
 * A filter on a field without an enum: yes/no for a boolean, the values a call offers (networks seen), or a value
 * typed whole and applied on Enter or when the field is left.
 */
function ValueFilter({
  id,
  label,
  type,
  optionsCall,
  value,
  onChange,
}: {
  id: string;
  label: string;
  type: unknown;
  optionsCall?: string;
  value: unknown;
  onChange: (v: string | boolean | undefined) => void;
}) {
  const { t } = useTranslation();
  const [typed, setTyped] = useState(String(value ?? ''));
  const { result } = useCustom<string[]>({
    url: optionsCall?.split(' ')[1] ?? '',
    method: 'get',
    queryOptions: { enabled: Boolean(optionsCall), staleTime: 60_000, queryKey: ['filter-options', optionsCall] },
    errorNotification: false,
  });
  useEffect(() => setTyped(String(value ?? '')), [value]);
  const placeholder = t('resources.all');
  if (String(type).includes('boolean')) {
    return (
      <Select
        id={id}
        aria-label={label}
        allowClear
        placeholder={placeholder}
        value={value as boolean | undefined}
        style={{ minWidth: 160 }}
        onChange={(v) => onChange(v)}
        options={[
          { value: true, label: t('resources.yes') },
          { value: false, label: t('resources.no') },
        ]}
      />
    );
  }
  if (optionsCall) {
    // While loading, Refine's result holds an empty object, not the array.
    const values: unknown = result?.data;
    // A call answers plain values (networks) or { value, label } pairs (countries named in the reader's language).
    const options = (Array.isArray(values) ? (values as Array<string | { value: string; label: string }>) : []).map((v) =>
      typeof v === 'string' ? { value: v, label: v } : { value: v.value, label: v.label },
    );
    return (
      <Select
        id={id}
        aria-label={label}
        allowClear
        showSearch
        placeholder={placeholder}
        value={value as string | undefined}
        style={{ minWidth: 200 }}
        popupMatchSelectWidth={false}
        onChange={(v) => onChange(v)}
        options={options}
        optionFilterProp="label"
      />
    );
  }
  const apply = () => onChange(typed.trim() || undefined);
  return (
    <Input
      id={id}
      aria-label={label}
      allowClear
      placeholder={placeholder}
      value={typed}
      style={{ width: 170 }}
      onChange={(e) => {
        setTyped(e.target.value);
        if (!e.target.value) onChange(undefined);
      }}
      onPressEnter={apply}
      onBlur={apply}
    />
  );
}

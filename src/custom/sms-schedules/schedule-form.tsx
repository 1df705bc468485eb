/**
 * Create and edit a scheduled SMS (SPEC.md section 2, scheduleSmsAdd; ?id= edits): name 1-50, content up to 140
 * (text, or binary as hex) with a live counter, once or repeated (weekdays, send time, the schedule's time zone),
 * start, end or never, target SIMs, e-mail notification. Times are wall-clock times of the chosen zone. The checks
 * are the server's (common/limits.ts, common/sms.ts); what only the server knows (SIMs of the organisation) comes
 * back under its field.
 */
import { Button, Card, Checkbox, DatePicker, Form, Input, Radio, Select, Skeleton, Space, Switch, TimePicker, Typography } from 'antd';
import dayjs, { type Dayjs } from 'dayjs';
import timezone from 'dayjs/plugin/timezone';
import utc from 'dayjs/plugin/utc';
import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useParams, useSearchParams } from 'react-router';
import { EMAIL_PATTERN, LIMITS } from '../../../common/limits';
import { checkSmsContent, smsLength, smsLimit, type SmsType } from '../../../common/sms';
import type { HttpError } from '../../providers/http';
import { schedulesApi, weekdayNames, type ScheduleDetail, type ScheduleInput } from './api';
import { iccidsOf, TargetsField } from './targets-field';
import { useScheduleTexts } from './texts';

dayjs.extend(utc);
dayjs.extend(timezone);

interface Values {
  name: string;
  smsType: SmsType;
  content: string;
  mode: 'once' | 'repeated';
  timezone: string;
  sendAt?: Dayjs;
  weekdays?: number[];
  sendTime?: Dayjs;
  startDate?: Dayjs;
  ends: 'never' | 'date';
  endDate?: Dayjs;
  targets: string;
  emailNotify: boolean;
  notifyEmails: string[];
}

const ZONES: string[] = (Intl as unknown as { supportedValuesOf?: (k: string) => string[] }).supportedValuesOf?.('timeZone') ?? ['UTC'];
const browserZone = Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
/** A picker's wall-clock value read in a zone. */
const inZone = (d: Dayjs, fmt: string, zone: string) => dayjs.tz(d.format(fmt), zone);
/** An instant as a picker value showing the zone's wall clock. */
const fromZone = (iso: string, zone: string) => dayjs(dayjs(iso).tz(zone).format('YYYY-MM-DDTHH:mm'));

/**
 * The body to save. Editing, a time the person left as it was keeps the stored instant: the form shows a repeated
 * schedule's start as a day and a once-only one to the minute, so rebuilding the instant from what is shown would move
 * a start of 21:24:37 to 00:00 (or to 21:24:00) when only the name was changed.
 */
function toInput(v: Values, original?: ScheduleDetail): ScheduleInput {
  const repeated = v.mode === 'repeated';
  const sameZone = !!original && original.timezone === v.timezone;
  const shown = original ? toValues(original) : undefined;
  const unchanged = (a: Dayjs | undefined, b: Dayjs | undefined, fmt: string) => !!a && !!b && a.format(fmt) === b.format(fmt);
  const keepStart =
    sameZone &&
    original.mode === v.mode &&
    unchanged(repeated ? v.startDate : v.sendAt, repeated ? shown!.startDate : shown!.sendAt, repeated ? 'YYYY-MM-DD' : 'YYYY-MM-DDTHH:mm');
  const startAt = keepStart
    ? dayjs(original.startAt)
    : repeated
      ? inZone(v.startDate!, 'YYYY-MM-DD', v.timezone)
      : inZone(v.sendAt!, 'YYYY-MM-DDTHH:mm', v.timezone);
  // The end day is the last day it sends: the schedule stops at the start of the next day in its zone.
  const keepEnd = sameZone && !!original.endAt && unchanged(v.endDate, shown!.endDate, 'YYYY-MM-DD');
  const endAt =
    repeated && v.ends === 'date' && v.endDate ? (keepEnd ? dayjs(original!.endAt) : inZone(v.endDate, 'YYYY-MM-DD', v.timezone).add(1, 'day')) : null;
  return {
    name: v.name.trim(),
    smsType: v.smsType,
    content: v.content,
    mode: v.mode,
    timezone: v.timezone,
    weekdays: repeated ? [...(v.weekdays ?? [])].sort() : [],
    sendTime: repeated ? v.sendTime!.format('HH:mm') : startAt.tz(v.timezone).format('HH:mm'),
    startAt: startAt.toISOString(),
    endAt: endAt?.toISOString() ?? null,
    neverEnds: repeated && v.ends === 'never',
    iccids: iccidsOf(v.targets),
    emailNotify: v.emailNotify,
    notifyEmails: v.emailNotify ? v.notifyEmails.map((e) => e.trim()) : [],
  };
}

function toValues(s: ScheduleDetail): Values {
  return {
    name: s.name,
    smsType: s.smsType,
    content: s.content,
    mode: s.mode,
    timezone: s.timezone,
    sendAt: fromZone(s.startAt, s.timezone),
    weekdays: s.weekdays,
    sendTime: dayjs(`2000-01-01T${s.sendTime}`),
    startDate: fromZone(s.startAt, s.timezone),
    ends: s.neverEnds || !s.endAt ? 'never' : 'date',
    endDate: s.endAt ? fromZone(dayjs(s.endAt).subtract(1, 'minute').toISOString(), s.timezone) : undefined,
    targets: s.iccids.join('\n'),
    emailNotify: s.emailNotify,
    notifyEmails: s.notifyEmails,
  };
}

/** scheduleSmsAdd, once the page's words are there. */
export function ScheduleFormPage() {
  return useScheduleTexts() ? <ScheduleForm /> : <Skeleton active />;
}

function ScheduleForm() {
  const { t, i18n } = useTranslation();
  const { lang } = useParams();
  const [params] = useSearchParams();
  const id = params.get('id');
  const navigate = useNavigate();
  const [form] = Form.useForm<Values>();
  const [loaded, setLoaded] = useState(!id);
  const [original, setOriginal] = useState<ScheduleDetail>();
  const [busy, setBusy] = useState(false);
  const mode = Form.useWatch('mode', form);
  const ends = Form.useWatch('ends', form);
  const smsType = Form.useWatch('smsType', form) ?? 'text';
  const content = Form.useWatch('content', form) ?? '';
  const notify = Form.useWatch('emailNotify', form);
  const days = useMemo(() => weekdayNames(i18n.language, 'long'), [i18n.language]);
  useEffect(() => {
    if (id)
      void schedulesApi.detail(id).then(
        (s) => (form.setFieldsValue(toValues(s)), setOriginal(s), setLoaded(true)),
        () => navigate(`/${lang}/scheduleSmsDetails`),
      );
  }, [id, form, lang, navigate]);

  const submit = async (v: Values) => {
    setBusy(true);
    try {
      const body = toInput(v, original);
      const saved = id ? await schedulesApi.update(id, body) : await schedulesApi.create(body);
      navigate(`/${lang}/scheduleSmsDetails?id=${encodeURIComponent(saved.id)}`);
    } catch (e) {
      // The server's refusal (offenders listed) under its field as well as in the toast.
      const err = e as HttpError;
      const field =
        ({ iccids: 'targets', startAt: mode === 'repeated' ? 'startDate' : 'sendAt', endAt: 'endDate', sendTime: 'sendTime' } as Record<string, keyof Values>)[
          err.field ?? ''
        ] ?? err.field?.split('.')[0];
      if (field && field in form.getFieldsValue(true)) form.setFields([{ name: field as keyof Values, errors: [err.message] }]);
    } finally {
      setBusy(false);
    }
  };

  const check = checkSmsContent(content, smsType);
  const contentRule = (_: unknown, v: string) => {
    const c = checkSmsContent(v ?? '', smsType);
    if (c.ok) return Promise.resolve();
    const rule = c.rule === 'tooLong' && smsType === 'binary' ? 'tooLongBinary' : c.rule;
    return Promise.reject(new Error(t(`errors.sms.content.${rule}`, { length: c.length, limit: c.limit, characters: (c.offenders ?? []).join(' ') })));
  };
  if (!loaded) return <Skeleton active />;
  const initial: Partial<Values> = {
    smsType: 'text',
    mode: 'repeated',
    timezone: browserZone,
    weekdays: [1],
    sendTime: dayjs('2000-01-01T09:00'),
    startDate: dayjs(),
    ends: 'never',
    emailNotify: false,
    notifyEmails: [],
    targets: '',
  };

  return (
    <>
      <Typography.Title level={3}>{t(id ? 'smsSchedules.editTitle' : 'menu.scheduleSmsAdd')}</Typography.Title>
      <Card style={{ maxWidth: 880 }}>
        <Form form={form} layout="vertical" initialValues={initial} onFinish={(v) => void submit(v)} requiredMark scrollToFirstError>
          <Form.Item
            name="name"
            label={t('smsSchedules.fields.name')}
            rules={[
              { required: true, whitespace: true, message: t('smsSchedules.rules.name') },
              { max: LIMITS.scheduledSmsName.max, message: t('smsSchedules.rules.name') },
            ]}
          >
            {/* The count turns red past the limit; nothing typed is cut (the rule above refuses it). */}
            <Input count={{ show: true, max: LIMITS.scheduledSmsName.max }} />
          </Form.Item>
          <Form.Item name="smsType" label={t('smsSchedules.fields.smsType')}>
            <Radio.Group
              options={(['text', 'binary'] as const).map((v) => ({ value: v, label: t(`smsSchedules.smsType.${v}`) }))}
              onChange={() => void form.validateFields(['content']).catch(() => undefined)}
            />
          </Form.Item>
          <Form.Item
            name="content"
            label={t('smsSchedules.fields.content')}
            required
            rules={[{ validator: contentRule }]}
            extra={
              <Typography.Text type={check.ok || !content ? 'secondary' : 'danger'}>
                {t(smsType === 'binary' ? 'smsSchedules.octets' : 'smsSchedules.characters', { count: smsLength(content, smsType), limit: smsLimit(smsType) })}
              </Typography.Text>
            }
          >
            <Input.TextArea rows={3} placeholder={t(smsType === 'binary' ? 'smsSchedules.hexPlaceholder' : 'smsSchedules.textPlaceholder')} />
          </Form.Item>
          <Space size="large" wrap align="start">
            <Form.Item name="mode" label={t('smsSchedules.fields.mode')}>
              <Radio.Group optionType="button" options={(['repeated', 'once'] as const).map((v) => ({ value: v, label: t(`smsSchedules.mode.${v}`) }))} />
            </Form.Item>
            {/* Always set (the browser's zone by default); a required rule would put aria-required on antd's wrapper. */}
            <Form.Item name="timezone" label={t('smsSchedules.fields.timezone')}>
              <Select showSearch style={{ width: 260 }} options={ZONES.map((z) => ({ value: z, label: z }))} />
            </Form.Item>
          </Space>
          {mode === 'once' ? (
            <Form.Item name="sendAt" label={t('smsSchedules.fields.sendAt')} rules={[{ required: true, message: t('smsSchedules.rules.required') }]}>
              <DatePicker showTime={{ format: 'HH:mm' }} format="YYYY-MM-DD HH:mm" />
            </Form.Item>
          ) : (
            <>
              {/* A validator, not required: a checkbox group's wrapper may not carry aria-required. */}
              <Form.Item
                name="weekdays"
                label={t('smsSchedules.fields.weekdays')}
                rules={[{ validator: (_, v?: number[]) => (v?.length ? Promise.resolve() : Promise.reject(new Error(t('smsSchedules.rules.weekdays')))) }]}
              >
                <Checkbox.Group options={days.map((d, i) => ({ value: i + 1, label: d }))} />
              </Form.Item>
              <Space size="large" wrap align="start">
                <Form.Item name="sendTime" label={t('smsSchedules.fields.sendTime')} rules={[{ required: true, message: t('smsSchedules.rules.required') }]}>
                  <TimePicker format="HH:mm" minuteStep={5} />
                </Form.Item>
                <Form.Item name="startDate" label={t('smsSchedules.fields.startDate')} rules={[{ required: true, message: t('smsSchedules.rules.required') }]}>
                  <DatePicker />
                </Form.Item>
                <Form.Item name="ends" label={t('smsSchedules.fields.ends')}>
                  <Radio.Group
                    options={[
                      { value: 'never', label: t('smsSchedules.neverEnds') },
                      { value: 'date', label: t('smsSchedules.endsOn') },
                    ]}
                  />
                </Form.Item>
                {ends === 'date' && (
                  <Form.Item name="endDate" label={t('smsSchedules.fields.endDate')} rules={[{ required: true, message: t('smsSchedules.rules.required') }]}>
                    <DatePicker />
                  </Form.Item>
                )}
              </Space>
            </>
          )}
          <Form.Item
            name="targets"
            label={t('smsSchedules.fields.targets')}
            required
            rules={[
              {
                validator: (_, v: string) => {
                  const n = iccidsOf(v ?? '').length;
                  if (n === 0) return Promise.reject(new Error(t('smsSchedules.rules.targets')));
                  if (n > LIMITS.iccidList) return Promise.reject(new Error(t('smsSchedules.rules.tooManyTargets', { max: LIMITS.iccidList })));
                  return Promise.resolve();
                },
              },
            ]}
          >
            <TargetsField />
          </Form.Item>
          <Form.Item name="emailNotify" label={t('smsSchedules.fields.emailNotify')} valuePropName="checked">
            <Switch />
          </Form.Item>
          {notify && (
            <Form.Item
              name="notifyEmails"
              label={t('smsSchedules.fields.notifyEmails')}
              required
              extra={t('smsSchedules.emailsHint', { max: LIMITS.emailsPerGroup })}
              rules={[
                {
                  validator: (_, v: string[] = []) => {
                    const bad = v.filter((e) => !new RegExp(EMAIL_PATTERN).test(e.trim()));
                    const lower = v.map((e) => e.trim().toLowerCase());
                    if (!v.length) return Promise.reject(new Error(t('smsSchedules.rules.emailsRequired')));
                    if (v.length > LIMITS.emailsPerGroup)
                      return Promise.reject(new Error(t('smsSchedules.rules.tooManyEmails', { max: LIMITS.emailsPerGroup })));
                    if (bad.length) return Promise.reject(new Error(t('smsSchedules.rules.badEmails', { list: bad.join(', ') })));
                    if (new Set(lower).size !== lower.length) return Promise.reject(new Error(t('smsSchedules.rules.duplicateEmails')));
                    return Promise.resolve();
                  },
                },
              ]}
            >
              <Select mode="tags" tokenSeparators={[',', ' ', ';']} open={false} suffixIcon={null} placeholder={t('smsSchedules.emailPlaceholder')} />
            </Form.Item>
          )}
          <Space>
            <Button type="primary" htmlType="submit" loading={busy}>
              {t(id ? 'smsSchedules.save' : 'smsSchedules.create')}
            </Button>
            <Button onClick={() => navigate(id ? `/${lang}/scheduleSmsDetails?id=${encodeURIComponent(id)}` : `/${lang}/scheduleSmsDetails`)}>
              {t('smsSchedules.cancel')}
            </Button>
          </Space>
        </Form>
      </Card>
    </>
  );
}

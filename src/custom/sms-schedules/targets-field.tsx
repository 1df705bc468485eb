/**
 * The target SIMs of a schedule: picked by searching the organisation's SIMs (whole ICCID, MSISDN or their last
 * digits), pasted one ICCID a line, or from an XLSX, XLS, CSV or text file (the template's first column), which the
 * server reads (POST /api/customer/sms/task/targets/parse: no spreadsheet library in the console) and answers with its
 * ICCIDs or the offenders. At most 1000; the server refuses duplicates and SIMs not of the organisation by name.
 */
import { DownloadOutlined, UploadOutlined } from '@ant-design/icons';
import { App, Button, Input, Select, Space, Typography, Upload } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { LIMITS } from '../../../common/limits';
import { useDebouncedValue } from '../../components/use-debounced-value';
import { api, download, saveFile, upload } from '../../providers/http';

/** The ICCIDs of a text: every run of 18-22 digits, in order (a header, commas and blanks are skipped). */
export const iccidsOf = (text: string): string[] => text.match(/\b\d{18,22}\b/g) ?? [];

interface SimHit {
  iccid: string;
  msisdn: string | null;
  deviceName: string | null;
}

export function TargetsField({ value = '', onChange, id }: { value?: string; onChange?: (v: string) => void; id?: string }) {
  const { t } = useTranslation();
  const { message } = App.useApp();
  const [query, setQuery] = useState('');
  const search = useDebouncedValue(query);
  const [hits, setHits] = useState<SimHit[]>([]);
  const count = iccidsOf(value).length;
  useEffect(() => {
    const q = search.trim();
    if (q.length < 2) return void setHits([]);
    // Digits are an ICCID's or an MSISDN's (whole or trailing); anything else a device name.
    const fields = /^\d+$/.test(q) ? ['iccid', 'msisdn'] : ['deviceName'];
    let live = true;
    void Promise.all(
      fields.map((field) =>
        api<{ items: SimHit[] }>('POST', '/api/main/sim/list/es', { page: 1, pageSize: 10, search: { field, value: q } }, { quiet: true }).then(
          (r) => r.items,
          () => [],
        ),
      ),
    ).then((lists) => live && setHits([...new Map(lists.flat().map((h) => [h.iccid, h])).values()]));
    return () => void (live = false);
  }, [search]);
  const add = (iccids: string[]) => {
    const have = iccidsOf(value);
    const next = [...have, ...iccids.filter((i) => !have.includes(i))];
    onChange?.(next.join('\n'));
  };
  return (
    <Space direction="vertical" style={{ width: '100%' }}>
      <Select
        showSearch
        value={null}
        filterOption={false}
        placeholder={t('smsSchedules.pickSim')}
        aria-label={t('smsSchedules.pickSim')}
        onSearch={setQuery}
        onSelect={(v: string | null) => (v && add([v]), setQuery(''))}
        notFoundContent={query.trim().length < 2 ? t('smsSchedules.pickHint') : t('smsSchedules.noSims')}
        options={hits.map((h) => ({ value: h.iccid, label: `${h.iccid}${h.msisdn ? ` · ${h.msisdn}` : ''}${h.deviceName ? ` · ${h.deviceName}` : ''}` }))}
        style={{ width: '100%' }}
      />
      <Input.TextArea
        id={id}
        rows={6}
        value={value}
        onChange={(e) => onChange?.(e.target.value)}
        placeholder={t('smsSchedules.pastePlaceholder')}
        style={{ fontFamily: 'monospace' }}
      />
      <Space wrap>
        <Upload
          accept=".xlsx,.xls,.csv,.txt"
          showUploadList={false}
          beforeUpload={(file) => {
            if (file.size > LIMITS.uploadBytes) {
              void message.error(t('smsSchedules.fileTooLarge'));
              return false;
            }
            const form = new FormData();
            form.append('file', file, file.name);
            // A refusal (type, rows, cells that are no ICCID, duplicates, foreign SIMs) is the server's toast, in the
            // person's language.
            void upload<{ iccids: string[] }>('/api/customer/sms/task/targets/parse', form).then(
              ({ iccids }) => {
                if (!iccids.length) return void message.error(t('smsSchedules.fileEmpty'));
                add(iccids);
                void message.success(t('smsSchedules.fileRead', { name: file.name, count: iccids.length }));
              },
              () => undefined,
            );
            return false;
          }}
        >
          <Button icon={<UploadOutlined />}>{t('smsSchedules.fromFile')}</Button>
        </Upload>
        <Button
          type="link"
          icon={<DownloadOutlined />}
          onClick={() => void download('GET', '/api/customer/sms/sendTemplate').then((f) => saveFile(f, 'scheduled-sms-targets.csv'))}
        >
          {t('smsSchedules.template')}
        </Button>
        <Typography.Text type={count > LIMITS.iccidList ? 'danger' : 'secondary'}>
          {t('smsSchedules.targetCount', { count, max: LIMITS.iccidList })}
        </Typography.Text>
      </Space>
    </Space>
  );
}

/** The detail page of any resource with x-admin.show: its record's fields in the schema's titled sections. */
import { ArrowLeftOutlined } from '@ant-design/icons';
import { useOne } from '@refinedev/core';
import { Breadcrumb, Button, Card, Descriptions, Result, Skeleton, Space, Typography } from 'antd';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useParams, useSearchParams } from 'react-router';
import type { ResourceSchema } from '../../common/resources';
import type { HttpError } from '../providers/http';
import { LayoutTables } from '../components/layout-tables';
import { Cell } from './cell';

interface Props {
  resource: ResourceSchema;
  id: string;
  /** The page's title: a text, or the record's own name drawn from it (a generic resource's list's first column). */
  title: string | ((record: Record<string, unknown>) => string);
  /** What the record is, as a link above the title (the resource's list: "APN profiles / Fleet internet EU"). */
  context?: { title: string; path: string };
  /** Buttons beside the title (Edit, actions the role may use); reload fetches the record again after an action. */
  extra?: (record: Record<string, unknown>, reload: () => void) => ReactNode;
  onBack: () => void;
  /** Shown above the sections (a usage bar), from the record. */
  before?: (record: Record<string, unknown>) => ReactNode;
  /** Shown below the sections (nested lists). */
  children?: ReactNode;
  /** Puts the sections in a frame of the page's own (a SIM's tabs), given the record and its reload. */
  wrap?: (sections: ReactNode, record: Record<string, unknown>, reload: () => void) => ReactNode;
}

export function ResourceShowPage({ resource, id, title, context, extra, onBack, before, children, wrap }: Props) {
  const { t } = useTranslation();
  const admin = resource['x-admin'];
  // Quiet: the page itself says what went wrong, once, as soon as the answer comes (a 404 is not tried again).
  const { result, query } = useOne<Record<string, unknown>>({
    resource: admin.resource,
    id,
    meta: { one: admin.show!.call, quiet: true },
    errorNotification: false,
  });
  const back = (
    <Button icon={<ArrowLeftOutlined />} onClick={onBack}>
      {t('resources.back')}
    </Button>
  );
  if (query.isLoading) return <Skeleton active paragraph={{ rows: 8 }} />;
  if (query.isError || !result) {
    const status = (query.error as unknown as HttpError | null)?.statusCode;
    // The server names what is missing ("SIM 8949… does not exist."), in the page's language.
    return <Result status={status === 404 ? '404' : 'warning'} title={query.error?.message ?? t('resources.notFound')} extra={back} />;
  }
  const reload = () => void query.refetch();
  const sections = (
    <Space direction="vertical" size="middle" style={{ width: '100%' }}>
      {admin.show!.sections.map((section) => (
        <Card key={section.key} title={t(`${admin.i18n}.sections.${section.key}`)} size="small">
          <LayoutTables>
            <Descriptions
              column={{ xs: 1, md: 2, xl: 3 }}
              items={section.fields.map((f) => ({
                key: f,
                label: t(`${admin.i18n}.fields.${f}`),
                children: <Cell resource={resource} field={f} value={result[f]} row={result} />,
              }))}
            />
          </LayoutTables>
        </Card>
      ))}
    </Space>
  );
  const heading = typeof title === 'function' ? title(result) : title;
  return (
    <Space direction="vertical" size="middle" style={{ width: '100%' }}>
      {context && <Breadcrumb items={[{ title: <Link to={context.path}>{context.title}</Link> }, { title: heading }]} />}
      <div style={{ display: 'flex', justifyContent: 'space-between', alignItems: 'center', gap: 16, flexWrap: 'wrap' }}>
        <Space align="center" size="middle">
          <Button type="text" aria-label={t('resources.back')} icon={<ArrowLeftOutlined />} onClick={onBack} />
          <Typography.Title level={3} style={{ margin: 0 }}>
            {heading}
          </Typography.Title>
        </Space>
        <Space wrap>{extra?.(result, reload)}</Space>
      </div>
      {before?.(result)}
      {wrap ? wrap(sections, result, reload) : sections}
      {children}
    </Space>
  );
}

/**
 * What a page opened on one record reads from its address (/{lang}/page?id=…): the language, the query, the record's
 * key (the `id` parameter unless named), and navigate, to go on to another page in the same language.
 */
export function usePageAddress(key = 'id') {
  const navigate = useNavigate();
  const { lang } = useParams();
  const [params] = useSearchParams();
  return { navigate, lang, params, id: params.get(key) ?? '' };
}

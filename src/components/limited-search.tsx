/**
 * A search box that keeps what is typed: text longer than the server accepts is neither cut nor sent; the box turns
 * red and a short line under it says how long a search may be. The caller searches with `useSearchable(text, max)`,
 * the last text that fitted, so the list goes on showing what it showed. A caller that sends only some texts (a whole
 * ICCID) says why another is not searched in `note`, under the box as the schema lists' search bar does. The box
 * names its line (aria-describedby). The filters beside the box are aligned to its top (Space align="start") so that
 * the line does not push them down.
 */
import { Input, Typography } from 'antd';
import { useId, useState } from 'react';
import type { SearchProps } from 'antd/es/input';
import { useTranslation } from 'react-i18next';
import { formatNumber } from '../../common/numbers';

/** The last of the texts given that was at most `max` characters long: a longer one is not searched. */
export function useSearchable(text: string, max: number): string {
  const [kept, setKept] = useState(text.length > max ? '' : text);
  if (text.length <= max && text !== kept) setKept(text);
  return text.length <= max ? text : kept;
}

interface LimitedSearchProps extends Omit<SearchProps, 'maxLength' | 'count'> {
  max: number;
  value?: string;
  /** Why what is typed (short enough) is not searched, said under the box; nothing when it is. */
  note?: string | null;
}

export function LimitedSearch({ max, note, style, ...props }: LimitedSearchProps) {
  const { t, i18n } = useTranslation();
  const noteId = `${useId()}-note`;
  const over = (props.value ?? '').length > max;
  const said = over || !!note;
  return (
    <div style={{ display: 'inline-flex', flexDirection: 'column', width: style?.width }}>
      <Input.Search {...props} style={style} status={over ? 'error' : note ? 'warning' : props.status} aria-describedby={said ? noteId : undefined} />
      <div aria-live="polite">
        {over ? (
          <Typography.Text id={noteId} type="danger" role="alert" style={{ fontSize: 12, lineHeight: '20px' }}>
            {t('forms.searchTooLong', { limit: formatNumber(max, i18n.language) })}
          </Typography.Text>
        ) : note ? (
          <Typography.Text id={noteId} type="warning" style={{ fontSize: 12, lineHeight: '20px' }}>
            {note}
          </Typography.Text>
        ) : null}
      </div>
    </div>
  );
}

/**
 * Beside figures the server read from a stored snapshot (organisations with a large fleet): when they were computed,
 * and on hover or focus why they may trail the rest. Live figures, and answers of a server that does not say, get nothing.
 */
import { HistoryOutlined } from '@ant-design/icons';
import { Tooltip, Typography } from 'antd';
import { useId } from 'react';
import { useTimeFormat } from '../../components/date-time';
import { snapshotTime } from './format';
import type { Freshness } from './use-dashboard';

interface SnapshotNoteProps {
  answer: Freshness | null;
  /** The note for a formatted time, e.g. "As of …". */
  text: (time: string) => string;
  hint: string;
}

export function SnapshotNote({ answer, text, hint }: SnapshotNoteProps) {
  // The formatter and UTC/local toggle of the analysis page's own "as of".
  const format = useTimeFormat();
  const hintId = useId();
  const at = snapshotTime(answer);
  if (!at) return null;
  return (
    <Tooltip title={hint}>
      {/* Focusable, so keyboard users see the explanation too; screen readers read it as the note's description. */}
      <Typography.Text type="secondary" tabIndex={0} aria-describedby={hintId} style={{ fontSize: 12, fontWeight: 'normal', whiteSpace: 'nowrap' }}>
        <HistoryOutlined /> <time dateTime={at}>{text(format(at))}</time>
        <span id={hintId} hidden>
          {hint}
        </span>
      </Typography.Text>
    </Tooltip>
  );
}

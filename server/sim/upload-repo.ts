/** SQL for SIM file uploads (transfer, batch info): the stored file and its task, written together. */
import type { Queryable } from '../db/db.js';
import { newId } from '../db/ids.js';
import { insertTask } from '../job/task-repo.js';

/** The uploaded file's row (kept 7 days) and the task that processes it; the payload gains the file's key, id and name. */
export async function insertUploadTask(
  q: Queryable,
  t: {
    orgId: string;
    taskId: string;
    accountId: string;
    referenceId: string;
    kind: 'sim_transfer' | 'sim_info_upload';
    quantity: number;
    storageKey: string;
    fileName: string;
    contentType: string;
    size: number;
    payload: Record<string, unknown>;
  },
): Promise<void> {
  const fileId = newId();
  await q.query(
    `INSERT INTO files (org_id, id, account_id, kind, storage_key, name, content_type, size_bytes, expires_at)
     VALUES ($1, $2, $3, 'upload', $4, $5, $6, $7, now() + interval '7 days')`,
    [t.orgId, fileId, t.accountId, t.storageKey, t.fileName, t.contentType, t.size],
  );
  await insertTask(q, {
    orgId: t.orgId,
    id: t.taskId,
    accountId: t.accountId,
    referenceId: t.referenceId,
    kind: t.kind,
    quantity: t.quantity,
    remark: t.fileName,
    payload: { ...t.payload, fileKey: t.storageKey, fileId, fileName: t.fileName },
  });
}

/** SQL for SIM file uploads (transfer, batch info): the stored file and its task, written together. */
import type { Queryable } from '../db/db.js';
import { newId } from '../db/ids.js';

/** The uploaded file's row (kept 7 days) and the task that processes it; the payload gains the file's key, id and name. */
export async function insertUploadTask(
  q: Queryable,
  t: {
    orgId: string; taskId: string; accountId: string; referenceId: string; kind: 'sim_transfer' | 'sim_info_upload'; quantity: number;
    storageKey: string; fileName: string; contentType: string; size: number; payload: Record<string, unknown>;
  },
): Promise<void> {
  const fileId = newId();
  await q.query(
    `INSERT INTO files (org_id, id, account_id, kind, storage_key, name, content_type, size_bytes, expires_at)
     VALUES ($1, $2, $3, 'upload', $4, $5, $6, $7, now() + interval '7 days')`,
    [t.orgId, fileId, t.accountId, t.storageKey, t.fileName, t.contentType, t.size],
  );
  await q.query(`INSERT INTO tasks (org_id, id, account_id, reference_id, kind, quantity, remark, payload) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`, [
    t.orgId, t.taskId, t.accountId, t.referenceId, t.kind, t.quantity, t.fileName,
    JSON.stringify({ ...t.payload, fileKey: t.storageKey, fileId, fileName: t.fileName }),
  ]);
}

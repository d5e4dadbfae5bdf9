import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ActionRequestRecord } from '../../simulator/model';

/**
 * Every action request ever made, with the protected call it was made for. The control API reads one request at a
 * time only, so they come from the state the simulator persists in its data directory after every change.
 */
export async function persistedActionRequests(dataDir: string): Promise<ActionRequestRecord[]> {
  const text = await readFile(join(dataDir, 'state.json'), 'utf8');
  const state = JSON.parse(text) as { actionRequests?: Record<string, ActionRequestRecord> };
  return Object.values(state.actionRequests ?? {});
}

/** The snapshot an action request was made for, from its operation key (`{resourceId, snapshotId, body}`). */
export function snapshotOfRequest(record: ActionRequestRecord): string | undefined {
  try {
    const key = JSON.parse(record.operationKey) as { snapshotId?: unknown };
    return typeof key.snapshotId === 'string' ? key.snapshotId : undefined;
  } catch {
    return undefined;
  }
}

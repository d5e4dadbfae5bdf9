import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { request } from 'undici';
import type { BackupJob, MpaRequest, RestoreJob } from '../../api';
import type { ActionRequestRecord, JobsConfig } from '../../simulator/model';

export interface SimulatorDatabase {
  resourceId: string;
  databaseName: string;
  tables: string[];
  snapshotIds: string[];
}

export interface SimulatorJobs {
  backupJobs: BackupJob[];
  restoreJobs: RestoreJob[];
}

/** The simulator's control API (README, "Control API"), plus its persisted state for what the API does not list. */
export class SimulatorControl {
  constructor(
    readonly baseUrl: string,
    private readonly dataDir: string,
  ) {}

  async call<T = unknown>(method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown): Promise<T> {
    const res = await request(`${this.baseUrl}/_simulator${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.body.text();
    if (res.statusCode >= 300) throw new Error(`${method} /_simulator${path} answered ${res.statusCode}: ${text}`);
    return (text ? JSON.parse(text) : undefined) as T;
  }

  healthy(): Promise<boolean> {
    return this.call<{ ok: boolean }>('GET', '/health').then(
      (r) => r.ok,
      () => false,
    );
  }

  credentials(): Promise<{ clientId: string; clientSecret: string }> {
    return this.call('POST', '/credentials', {});
  }

  state(): Promise<{ projectId: string; now: string; databases: SimulatorDatabase[] }> {
    return this.call('GET', '/state');
  }

  jobsConfig(config: Partial<JobsConfig>): Promise<JobsConfig> {
    return this.call('PUT', '/jobs/config', config);
  }

  /** Every job ever created. */
  jobs(): Promise<SimulatorJobs> {
    return this.call('GET', '/jobs');
  }

  addPolicy(requiredApprovals: number): Promise<{ id: string }> {
    return this.call('POST', '/policies', {
      operations: ['MPA_OPERATION_RESTORE_RESOURCE'],
      requiredApprovals,
      approvalWindowHours: 48,
      executionWindowHours: 24,
      description: 'reliability harness: restores need two reviewers',
    });
  }

  /**
   * One fault on the next matching request, injected by the simulator itself (`method` and `times`). False when this
   * simulator does not know `times`: it would then fault every request, so the fault is removed again.
   */
  async faultOnce(kind: string, method: string, pathPrefix: string): Promise<boolean> {
    const fault = { rate: 1, kinds: [kind], method, pathPrefix, times: 1 };
    const answer = await this.call<{ faults?: { times?: number } }>('PUT', '/faults', fault).catch(() => undefined);
    if (answer?.faults?.times === 1) return true;
    await this.call('DELETE', '/faults').catch(() => undefined);
    return false;
  }

  actionRequest(id: string): Promise<{ actionApprovalRequest: MpaRequest }> {
    return this.call('GET', `/action-requests/${encodeURIComponent(id)}`);
  }

  /** One more reviewer approves (each call without an e-mail counts as a new reviewer). */
  approve(id: string): Promise<{ actionApprovalRequest: MpaRequest }> {
    return this.call('POST', `/action-requests/${encodeURIComponent(id)}/approve`, {});
  }

  /**
   * Every action request ever made, with the protected call it was made for. The control API reads one request at a
   * time only, so they come from the state the simulator persists in its data directory after every change.
   */
  async actionRequests(): Promise<ActionRequestRecord[]> {
    const text = await readFile(join(this.dataDir, 'state.json'), 'utf8');
    const state = JSON.parse(text) as { actionRequests?: Record<string, ActionRequestRecord> };
    return Object.values(state.actionRequests ?? {});
  }
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

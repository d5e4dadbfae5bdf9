import { request } from 'undici';
import type {
  BackupJobDocument as BackupJob,
  MpaRequestDocument as MpaRequest,
  RestoreJobDocument as RestoreJob,
} from '../api';
import type { CorruptionRecord, FaultConfig, JobsConfig } from './model';

/**
 * A typed client of the simulator's control API (`/_simulator/…`, docs/development.md): what the demo, the end-to-end
 * tests and the reliability harness use to play the reviewers, move the clock and inject faults.
 */

export interface SimulatorDatabase {
  resourceId: string;
  databaseName: string;
  tables: string[];
  snapshotIds: string[];
}

export interface SimulatorState {
  projectId: string;
  now: string;
  counts: {
    resources: number;
    snapshots: number;
    backupJobs: number;
    restoreJobs: number;
    actionRequests: number;
    queries: number;
  };
  databases: SimulatorDatabase[];
  buckets?: { name: string; region: string }[];
}

export interface SimulatorJobs {
  backupJobs: BackupJob[];
  restoreJobs: RestoreJob[];
}

export interface ClientCredentials {
  clientId: string;
  clientSecret: string;
}

export interface ApprovalPolicy {
  requiredApprovals?: number;
  approvalWindowHours: number;
  executionWindowHours: number;
  description?: string;
}

/** A reviewer's decision; without an e-mail, each call counts as a new reviewer. */
export interface Review {
  reviewerEmail?: string;
  comment?: string;
}

export interface ActionRequestView {
  actionApprovalRequest: MpaRequest;
}

/** What to corrupt: `from`, `snapshotIds` or both; `kind` defaults to `rows-changed` and `table` to `customers`. */
export type CorruptionRequest = Pick<CorruptionRecord, 'from' | 'snapshotIds'> &
  Partial<Pick<CorruptionRecord, 'kind' | 'table'>>;

export interface SimulatorCorruption {
  resourceId: string;
  /** As stored, with its defaults; null when the resource's snapshots are clean. */
  corruption: CorruptionRecord | null;
  /** The resource's snapshots it covers now, oldest first. */
  coveredSnapshotIds: string[];
}

export type ControlMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

export class SimulatorControlClient {
  /** `fail` builds the error for a refused call (the CLI wants its own error class). */
  constructor(
    readonly baseUrl: string,
    private readonly fail: (message: string) => Error = (message) => new Error(message),
  ) {}

  async call<T = unknown>(method: ControlMethod, path: string, body?: unknown): Promise<T> {
    const res = await request(`${this.baseUrl}/_simulator${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.body.text();
    if (res.statusCode >= 300)
      throw this.fail(`simulator ${method} /_simulator${path} answered ${res.statusCode}: ${text}`);
    return (text ? JSON.parse(text) : undefined) as T;
  }

  healthy(): Promise<boolean> {
    return this.call<{ ok: boolean }>('GET', '/health').then(
      (r) => r.ok,
      () => false,
    );
  }

  async state(): Promise<SimulatorState> {
    const state = await this.call<SimulatorState>('GET', '/state');
    return { ...state, databases: state.databases ?? [] };
  }

  /** A new API client with every permission. */
  credentials(): Promise<ClientCredentials> {
    return this.call('POST', '/credentials', {});
  }

  jobsConfig(config: Partial<JobsConfig>): Promise<JobsConfig> {
    return this.call('PUT', '/jobs/config', config);
  }

  /** Every job ever created. */
  jobs(): Promise<SimulatorJobs> {
    return this.call('GET', '/jobs');
  }

  /** An approval policy over restores: what makes a restore wait for reviewers. */
  addPolicy(policy: ApprovalPolicy): Promise<{ id: string }> {
    return this.call('POST', '/policies', {
      operations: ['MPA_OPERATION_RESTORE_RESOURCE'],
      requiredApprovals: policy.requiredApprovals ?? 1,
      approvalWindowHours: policy.approvalWindowHours,
      executionWindowHours: policy.executionWindowHours,
      description: policy.description ?? 'restores need a second pair of eyes',
    });
  }

  clearPolicies(): Promise<void> {
    return this.call('DELETE', '/policies');
  }

  /** What a reviewer's console shows of a request. */
  actionRequest(id: string): Promise<ActionRequestView> {
    return this.call('GET', `/action-requests/${encodeURIComponent(id)}`);
  }

  approve(id: string, review: Review = {}): Promise<ActionRequestView> {
    return this.call('POST', `/action-requests/${encodeURIComponent(id)}/approve`, review);
  }

  deny(id: string, review: Review = {}): Promise<ActionRequestView> {
    return this.call('POST', `/action-requests/${encodeURIComponent(id)}/deny`, review);
  }

  advanceClock(seconds: number): Promise<{ now: string }> {
    return this.call('POST', '/clock/advance', { seconds });
  }

  /** Delay every `/v1` request by `ms` (0 removes it). */
  latency(ms: number): Promise<{ ms: number }> {
    return this.call('PUT', '/latency', { ms });
  }

  /** The row count of the generated `events_large` table, for queries submitted from now on. */
  generatedTable(rows: number): Promise<{ table: string; rows: number }> {
    return this.call('PUT', '/tables/events_large', { rows });
  }

  /** Replaces the corruption of a relational resource's snapshots: queries on them read damaged data. */
  corrupt(resourceId: string, body: CorruptionRequest): Promise<SimulatorCorruption> {
    return this.call('PUT', `/corruption/${encodeURIComponent(resourceId)}`, body);
  }

  corruption(resourceId: string): Promise<SimulatorCorruption> {
    return this.call('GET', `/corruption/${encodeURIComponent(resourceId)}`);
  }

  clearCorruption(resourceId: string): Promise<void> {
    return this.call('DELETE', `/corruption/${encodeURIComponent(resourceId)}`);
  }

  faults(config: FaultConfig): Promise<{ faults: FaultConfig }> {
    return this.call('PUT', '/faults', config);
  }

  clearFaults(): Promise<void> {
    return this.call('DELETE', '/faults');
  }

  /**
   * One fault on the next matching request, injected by the simulator itself (`method` and `times`). False when this
   * simulator does not know `times`: it would then fault every request, so the fault is removed again.
   */
  async faultOnce(kind: FaultConfig['kinds'][number], method: string, pathPrefix: string): Promise<boolean> {
    const fault = { rate: 1, kinds: [kind], method, pathPrefix, times: 1 };
    const answer = await this.faults(fault).catch(() => undefined);
    if (answer?.faults?.times === 1) return true;
    await this.clearFaults().catch(() => undefined);
    return false;
  }
}

/** Approvals gathered and needed: the least progressed rule counts. */
export function approvalsOf(view: Pick<MpaRequest, 'policyDetails'>): { current: number; required: number } {
  const current = Math.min(...view.policyDetails.map((d) => d.currentApprovals));
  const required = Math.max(...view.policyDetails.map((d) => d.requiredApprovals));
  return { current: Number.isFinite(current) ? current : 0, required: Number.isFinite(required) ? required : 0 };
}

import { WorkflowNotFoundError, type Client, type WorkflowExecutionInfo } from '@temporalio/client';
import {
  ApprovalStatusKey,
  nudgeSignal,
  RunbookKindKey,
  RunbookResourceKey,
  SEARCH_ATTRIBUTE_KEYS,
  type RunbookStatus,
} from '../contracts';
import { waitingApprovals } from '../operator/approvals';
import type { WaitingApproval } from '../operator/output-shapes';
import { statusesOf } from '../operator/watch';
import { RUNBOOK_NAMES } from '../runbooks/registry';

/** A run as the Runs page shows it: what visibility and the search attributes say, and the status of an open one. */
export interface ConsoleRun {
  workflowId: string;
  runId: string;
  runbook: string;
  state: string;
  startTime: string;
  closeTime?: string;
  resource?: string;
  approvalStatus?: string;
  /** Asked of the run itself (a worker answers), for runs still open. */
  status?: RunbookStatus;
}

/** Why a nudge was not sent. */
export class NudgeRefused extends Error {
  constructor(
    readonly status: 404 | 409,
    message: string,
  ) {
    super(message);
  }
}

/** What the pages read from Temporal, and the one action. */
export interface ConsoleData {
  runs(limit: number): Promise<ConsoleRun[]>;
  approvals(limit: number): Promise<WaitingApproval[]>;
  /** Sends the nudge signal to a run that waits for approval; refuses any other run. */
  nudge(workflowId: string): Promise<void>;
}

/** Temporal could not answer a page: the page says why, with status 503. */
export class TemporalUnavailable extends Error {
  readonly statusCode = 503;
}

/**
 * A listing refused because the namespace lacks one of the runbooks' search attributes, as the error that names the
 * attribute and the command that registers it; undefined for any other error.
 */
export function missingSearchAttribute(err: unknown, namespace: string): TemporalUnavailable | undefined {
  const message = err instanceof Error ? err.message : String(err);
  if (!/search attribute/i.test(message)) return undefined;
  const key = SEARCH_ATTRIBUTE_KEYS.find((k) => new RegExp(`\\b${k.name}\\b`).test(message));
  if (!key) return undefined;
  const type = key.type === 'KEYWORD' ? 'Keyword' : key.type;
  return new TemporalUnavailable(
    `Temporal's namespace ${namespace} has no search attribute ${key.name}, which the runbooks set and this page ` +
      `lists by. Register it: temporal operator search-attribute create --namespace ${namespace} ` +
      `--name ${key.name} --type ${type} (runbooks doctor checks all of them).`,
  );
}

/** `fn`, with a missing search attribute said as such. */
async function listing<T>(namespace: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw missingSearchAttribute(err, namespace) ?? err;
  }
}

/**
 * The pages' data when Temporal did not answer at start: a request tries to connect again (at most every `retryMs`),
 * and until one does, the Runs and Approvals pages say Temporal is unreachable (503). The history pages read the
 * output folder and do not need it.
 */
export function reconnectingData(
  connect: () => Promise<{ client: Client; namespace: string; close(): Promise<void> }>,
  address: string,
  firstError: string,
  retryMs = 5_000,
  now: () => number = Date.now,
): ConsoleData & { close(): Promise<void> } {
  let session: { data: ConsoleData; close(): Promise<void> } | undefined;
  let lastTry = now();
  let lastError = firstError;
  const connected = async (): Promise<ConsoleData> => {
    if (session) return session.data;
    if (now() - lastTry >= retryMs) {
      lastTry = now();
      try {
        const s = await connect();
        session = { data: temporalData(s.client, s.namespace), close: () => s.close() };
        return session.data;
      } catch (err) {
        lastError = err instanceof Error ? err.message : String(err);
      }
    }
    throw new TemporalUnavailable(
      `Temporal is unreachable at ${address} (${lastError}). The Drills, Coverage, Plans, Posture and Exports pages read the output ` +
        'folder and work without it.',
    );
  };
  return {
    runs: async (limit) => (await connected()).runs(limit),
    approvals: async (limit) => (await connected()).approvals(limit),
    nudge: async (workflowId) => (await connected()).nudge(workflowId),
    close: async () => session?.close(),
  };
}

export function temporalData(client: Client, namespace = client.options.namespace): ConsoleData {
  return {
    runs: (limit) => listing(namespace, () => listRuns(client, limit)),
    approvals: (limit) => listing(namespace, () => waitingApprovals(client, limit)),
    async nudge(workflowId) {
      const handle = client.workflow.getHandle(workflowId);
      const description = await handle.describe().catch((err: unknown) => {
        if (err instanceof WorkflowNotFoundError) throw new NudgeRefused(404, `no workflow '${workflowId}'`);
        throw err;
      });
      // The console nudges what it lists: a running run whose request waits for reviewers.
      const waiting =
        description.status.name === 'RUNNING' &&
        description.typedSearchAttributes.get(ApprovalStatusKey) === 'PENDING_APPROVAL';
      if (!waiting) throw new NudgeRefused(409, `${workflowId} does not wait for approval`);
      // As `runbooks nudge` sends it.
      await handle.signal(nudgeSignal);
    },
  };
}

/** Every runbook's runs, newest first, as `runbooks list` finds them, with the status of the open ones. */
async function listRuns(client: Client, limit: number): Promise<ConsoleRun[]> {
  const query = `WorkflowType IN (${RUNBOOK_NAMES.map((n) => `'${n}'`).join(', ')})`;
  const infos: WorkflowExecutionInfo[] = [];
  for await (const info of client.workflow.list({ query })) {
    infos.push(info);
    if (infos.length >= limit) break;
  }
  const runs = infos.map(consoleRun);
  const open = runs.filter((r) => r.state === 'RUNNING');
  const statuses = await statusesOf(client, open);
  open.forEach((run, i) => {
    run.status = statuses[i];
  });
  return runs;
}

function consoleRun(info: WorkflowExecutionInfo): ConsoleRun {
  const attributes = info.typedSearchAttributes;
  return {
    workflowId: info.workflowId,
    runId: info.runId,
    runbook: attributes.get(RunbookKindKey) ?? info.type,
    state: info.status.name,
    startTime: info.startTime.toISOString(),
    closeTime: info.closeTime?.toISOString(),
    resource: attributes.get(RunbookResourceKey),
    approvalStatus: attributes.get(ApprovalStatusKey),
  };
}

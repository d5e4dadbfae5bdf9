import { Client, Connection, isGrpcServiceError, WorkflowNotFoundError } from '@temporalio/client';
import { SearchAttributeType } from '@temporalio/common';
import { encodeSearchAttributeIndexedValueType } from '@temporalio/common/lib/search-attributes';
import { SEARCH_ATTRIBUTE_KEYS } from '../contracts';
import { slotsQuery, snapshotSlotsWorkflowId, type SlotsStatus } from '../runbooks/snapshot-slots/contract';
import { CEILING_MEMORY_MS, PROBE_RESET_MS } from '../runbooks/snapshot-slots/limits';
import {
  ConfigError,
  loadCodecKeys,
  loadTemporalConfig,
  loadVersioningConfig,
  type VersioningConfig,
} from '../runtime/config';
import { codecDataConverter } from '../runtime/codec';
import { temporalConnectionOptions } from '../runtime/temporal-connection';
import { resolveAddress } from '../operator/connection';
import { deploymentStatus, NoDeploymentError, stalls, type DeploymentStatus } from './deployment-command';
import { POLLER_MEMORY } from './deployment-runs';
import { bounded, fail, ok, reason, skip, warn, type CheckResult, type DoctorReport } from './doctor-report';

/**
 * Temporal's checks, on the connection the worker would use: the namespace, the runbooks' search attributes with their
 * types, and who would run the runbooks (the deployment's current version and its workers, or the unversioned
 * workers polling the task queue).
 */

type Env = Record<string, string | undefined>;

const CONNECTION = { id: 'temporal.connection', check: 'temporal connection' };
const NAMESPACE = { id: 'temporal.namespace', check: 'temporal namespace' };
const ATTRIBUTES = { id: 'temporal.search-attributes', check: 'search attributes' };
const DEPLOYMENT = { id: 'temporal.deployment', check: 'worker deployment' };
const WORKERS = { id: 'temporal.workers', check: 'workers polling' };
const LIMITER = { id: 'temporal.snapshot-limiter', check: 'snapshot limiter' };

// gRPC status codes.
const NOT_FOUND = 5;
const PERMISSION_DENIED = 7;
const UNIMPLEMENTED = 12;
// temporal.api.enums.v1.TaskQueueType and TaskQueueKind
const WORKFLOW_TASK_QUEUE = 1;
const NORMAL_KIND = 1;

const TYPE_NAMES = new Map(
  Object.values(SearchAttributeType).map((name) => [encodeSearchAttributeIndexedValueType(name), name]),
);
const CLI_TYPE: Record<string, string> = {
  TEXT: 'Text',
  KEYWORD: 'Keyword',
  INT: 'Int',
  DOUBLE: 'Double',
  BOOL: 'Bool',
  DATETIME: 'Datetime',
  KEYWORD_LIST: 'KeywordList',
};

const skipAll = (lines: { id: string; check: string }[], because: string) =>
  lines.map((l) => skip(l.id, l.check, because));

export async function temporalChecks(
  env: Env,
  budgetMs: number,
): Promise<{ lines: CheckResult[]; context?: DoctorReport['temporal'] }> {
  const rest = [NAMESPACE, ATTRIBUTES, DEPLOYMENT, WORKERS, LIMITER];
  let versioning: VersioningConfig | undefined;
  let connection: Connection;
  let context: NonNullable<DoctorReport['temporal']> | undefined;
  let connecting: Promise<Connection> | undefined;
  try {
    const temporal = loadTemporalConfig(env);
    versioning = loadVersioningConfig(env);
    const { address, source } = resolveAddress(temporal, env);
    context = { address, namespace: temporal.namespace, taskQueue: temporal.taskQueue, source };
    connecting = Connection.connect({ ...temporalConnectionOptions(temporal, address), connectTimeout: budgetMs });
    connection = await bounded(budgetMs, () => connecting ?? Promise.reject(new Error('not connecting')));
  } catch (err) {
    // A connection that arrives after its time is closed, not leaked.
    void connecting?.then((late) => late.close()).catch(() => undefined);
    const fix =
      err instanceof ConfigError
        ? `set ${err.issues.map((i) => i.variable).join(', ')}`
        : 'check TEMPORAL_ADDRESS (or the profile) and that the server is up; without an address, start the worker (npm start)';
    const detail =
      err instanceof ConfigError
        ? err.issues.map((i) => `${i.variable} ${i.message}`).join('; ')
        : context
          ? `cannot reach ${context.address} (${context.source}): ${reason(err)}`
          : reason(err);
    return { lines: [fail(CONNECTION.id, CONNECTION.check, detail, fix), ...skipAll(rest, 'no connection')], context };
  }
  try {
    const { namespace, taskQueue } = context;
    const call = <T>(fn: () => Promise<T>) =>
      bounded(budgetMs, () => connection.withDeadline(Date.now() + budgetMs, fn));
    const lines: CheckResult[] = [
      ok(CONNECTION.id, CONNECTION.check, `connected to ${context.address} (${context.source})`),
    ];
    const namespaceLine = await call(() => connection.workflowService.describeNamespace({ namespace })).then(
      () => ok(NAMESPACE.id, NAMESPACE.check, `${namespace} exists`),
      (err: unknown) => namespaceFailure(namespace, err),
    );
    lines.push(namespaceLine);
    if (namespaceLine.status !== 'ok')
      return { lines: [...lines, ...skipAll(rest.slice(1), `namespace ${namespace}`)], context };
    lines.push(
      await call(() => searchAttributesLine(connection, namespace)).catch((err: unknown) => failed(ATTRIBUTES, err)),
    );
    const client = new Client({ connection, namespace });
    lines.push(
      ...(await call(() => workersLines(client, taskQueue, versioning)).catch((err: unknown) => [
        failed(DEPLOYMENT, err),
        skip(WORKERS.id, WORKERS.check, 'the deployment check failed'),
      ])),
    );
    lines.push(await limiterLine(connection, namespace, env, budgetMs));
    return { lines, context };
  } finally {
    await connection.close().catch(() => undefined);
  }
}

const failed = (at: { id: string; check: string }, err: unknown) =>
  fail(
    at.id,
    at.check,
    reason(err),
    'check that the Temporal server is up and answering, then run runbooks doctor again',
  );

function namespaceFailure(namespace: string, err: unknown): CheckResult {
  if (isGrpcServiceError(err) && Number(err.code) === NOT_FOUND) {
    const fix = `create it (temporal operator namespace create --namespace ${namespace}; on Temporal Cloud, in its console), or set TEMPORAL_NAMESPACE to the one the workers use`;
    return fail(NAMESPACE.id, NAMESPACE.check, `namespace ${namespace} does not exist`, fix);
  }
  if (isGrpcServiceError(err) && Number(err.code) === PERMISSION_DENIED) {
    return fail(
      NAMESPACE.id,
      NAMESPACE.check,
      `not allowed to use namespace ${namespace}: ${err.details}`,
      'check TEMPORAL_API_KEY or the client certificate, and their namespace',
    );
  }
  return failed(NAMESPACE, err);
}

/**
 * The project's limiter of snapshot starts (runbooks/snapshot-slots): the limit it allows, and the ceiling the service
 * showed at its last 429 with its age, since an old ceiling holding the limit down is what makes a drill slow.
 * Informational: a limiter that does not exist yet, or cannot be asked (no worker answers queries), only warns.
 */
async function limiterLine(connection: Connection, namespace: string, env: Env, budgetMs: number) {
  const projectId = env.BACKUP_PROJECT_ID?.trim();
  if (!projectId) {
    return ok(LIMITER.id, LIMITER.check, 'no BACKUP_PROJECT_ID: the embedded simulator has a limiter of its own');
  }
  try {
    const dataConverter = codecDataConverter(loadCodecKeys(env));
    const client = new Client({ connection, namespace, ...(dataConverter ? { dataConverter } : {}) });
    const handle = client.workflow.getHandle(snapshotSlotsWorkflowId(projectId));
    const status = await bounded(budgetMs, () =>
      connection.withDeadline(Date.now() + budgetMs, () => handle.query(slotsQuery)),
    );
    return ok(LIMITER.id, LIMITER.check, limiterDetail(status));
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) {
      return ok(LIMITER.id, LIMITER.check, 'none yet: the first snapshot a drill takes starts it, with a limit of 10');
    }
    return warn(
      LIMITER.id,
      LIMITER.check,
      `${snapshotSlotsWorkflowId(projectId)} did not answer: ${reason(err)}`,
      'start a worker: the limiter answers through one',
    );
  }
}

/** The limit, and the ceiling with its age: what holds the project's snapshot starts at their pace. */
export function limiterDetail(status: SlotsStatus): string {
  const head = `limit ${status.limit} snapshot starts at once (${status.held} held, ${status.waiting} waiting)`;
  if (status.ceiling === undefined) return `${head}; no ceiling: no 429 yet, or the last one forgotten`;
  const age = status.ceilingAgeSeconds;
  const ago = age === undefined ? 'before ages were kept' : `${formatAge(age)} ago`;
  // A ceiling is kept until a start holds past it; only a limiter run started before that rule forgets one by age.
  const pace =
    age === undefined || age < PROBE_RESET_MS / 1000
      ? 'probed past slowly for a minute after its last 429'
      : age < CEILING_MEMORY_MS / 1000
        ? 'probed past at the normal pace now'
        : 'probed past at the normal pace now (a limiter run from before ceilings were kept forgets it at the next start)';
  return `${head}; the service refused a start at ${status.ceiling - 1} running, ${ago}: ${pace}`;
}

const formatAge = (seconds: number) =>
  seconds < 120
    ? `${seconds} s`
    : seconds < 7200
      ? `${Math.round(seconds / 60)} min`
      : `${Math.round(seconds / 3600)} h`;

async function searchAttributesLine(connection: Connection, namespace: string): Promise<CheckResult> {
  let registered: Record<string, number>;
  try {
    const answer = await connection.operatorService.listSearchAttributes({ namespace });
    registered = Object.fromEntries(Object.entries(answer.customAttributes ?? {}).map(([k, v]) => [k, Number(v)]));
  } catch (err) {
    // Temporal Cloud answers this call only to some roles: the worker warns at start instead.
    if (isGrpcServiceError(err) && [PERMISSION_DENIED, UNIMPLEMENTED].includes(Number(err.code))) {
      return warn(
        ATTRIBUTES.id,
        ATTRIBUTES.check,
        `the server would not list them: ${err.details}`,
        `check them in the namespace's settings: ${SEARCH_ATTRIBUTE_KEYS.map((k) => `${k.name} (${CLI_TYPE[k.type]})`).join(', ')}`,
      );
    }
    throw err;
  }
  const problems: string[] = [];
  const fixes: string[] = [];
  for (const key of SEARCH_ATTRIBUTE_KEYS) {
    const wanted = Number(encodeSearchAttributeIndexedValueType(key.type));
    const has = registered[key.name];
    const create = `temporal operator search-attribute create --namespace ${namespace} --name ${key.name} --type ${CLI_TYPE[key.type] ?? key.type}`;
    if (has === undefined) {
      problems.push(`${key.name} is not registered`);
      fixes.push(create);
    } else if (has !== wanted) {
      problems.push(`${key.name} is registered as ${TYPE_NAMES.get(has) ?? has}, the runbooks set a ${key.type}`);
      fixes.push(
        `temporal operator search-attribute remove --namespace ${namespace} --name ${key.name}, then ${create}`,
      );
    }
  }
  const names = SEARCH_ATTRIBUTE_KEYS.map((k) => `${k.name} (${k.type})`).join(', ');
  if (problems.length === 0) return ok(ATTRIBUTES.id, ATTRIBUTES.check, `registered: ${names}`);
  // Every workflow task that sets one would fail: the runbooks could not run at all.
  return fail(ATTRIBUTES.id, ATTRIBUTES.check, problems.join('; '), fixes.join('; '));
}

async function workersLines(client: Client, taskQueue: string, versioning?: VersioningConfig): Promise<CheckResult[]> {
  if (!versioning) {
    const deployment = ok(DEPLOYMENT.id, DEPLOYMENT.check, 'unversioned workers (RUNBOOKS_DEPLOYMENT_NAME is not set)');
    const { pollers } = await client.workflowService.describeTaskQueue({
      namespace: client.options.namespace,
      taskQueue: { name: taskQueue, kind: NORMAL_KIND },
      taskQueueType: WORKFLOW_TASK_QUEUE,
    });
    const count = pollers?.length ?? 0;
    if (count > 0)
      return [deployment, ok(WORKERS.id, WORKERS.check, `${count} worker(s) poll task queue ${taskQueue}`)];
    const detail = `no worker has polled task queue ${taskQueue} in the last ${POLLER_MEMORY}: runs would wait for one`;
    return [
      deployment,
      warn(WORKERS.id, WORKERS.check, detail, 'start the worker (npm start, or its image) with this configuration'),
    ];
  }
  const name = versioning.deploymentName;
  let status: DeploymentStatus;
  try {
    status = await deploymentStatus(client, name);
  } catch (err) {
    if (!(err instanceof NoDeploymentError)) throw err;
    const detail = `deployment ${name} has no version yet: no worker of it has polled`;
    const fix = `start the worker with RUNBOOKS_DEPLOYMENT_NAME=${name}: it registers its version${versioning.mode === 'auto-upgrade' ? ' and makes it current' : ' (the first one becomes current)'}`;
    return [
      warn(DEPLOYMENT.id, DEPLOYMENT.check, detail, fix),
      skip(WORKERS.id, WORKERS.check, `deployment ${name} has no version`),
    ];
  }
  const versions = status.versions.map((v) => v.buildId).join(', ') || 'none';
  if (!status.current) {
    const detail = `deployment ${name} has no current version (versions: ${versions}): new runs go to unversioned workers`;
    const served = status.versions.find((v) => v.pollers > 0)?.buildId;
    const fix = `runbooks deployment promote ${served ?? '<buildId>'} (RUNBOOKS_DEPLOYMENT_NAME=${name})`;
    return [fail(DEPLOYMENT.id, DEPLOYMENT.check, detail, fix), skip(WORKERS.id, WORKERS.check, 'no current version')];
  }
  const ramp = status.ramping ? `, ${status.ramping.buildId} ramping at ${status.ramping.percent}%` : '';
  const deployment = ok(
    DEPLOYMENT.id,
    DEPLOYMENT.check,
    `deployment ${name}: current version ${status.current}${ramp} (${versioning.mode})`,
  );
  const current = status.versions.find((v) => v.buildId === status.current);
  const stalled = stalls(status).filter((line) => line.startsWith('STALLED'));
  if (!current || current.pollers === 0 || stalled.length > 0) {
    const detail = stalled.join(' ') || `no worker of ${status.current} has polled in the last ${POLLER_MEMORY}`;
    return [
      deployment,
      fail(
        WORKERS.id,
        WORKERS.check,
        detail.replace(/ Recover: .*$/, ''),
        `start a worker of build ${status.current}, or promote a build whose workers run (runbooks deployment status)`,
      ),
    ];
  }
  return [
    deployment,
    ok(WORKERS.id, WORKERS.check, `${current.pollers} worker(s) of ${status.current} poll task queue ${taskQueue}`),
  ];
}

// Checks of the two runbooks that act on accounts rather than on jobs: the worker's own secret rotation, and the
// offboarding of a source account.
import { readFile } from 'node:fs/promises';
import { request } from 'undici';
import { NotFoundError, type BackupServiceClient } from '../../api';
import type { RotationResult } from '../../runbooks/rotate-credentials/activities';
import type { OffboardResult } from '../../runbooks/offboard-source-account/contract';
import type { RunCheck } from './checks';
import type { SeenRequest } from '../http-proxy';
import type { RunRecord } from './runs';

const ROTATE = /^\/v1\/api-credentials\/current\/rotate$/;

export interface AccountContext {
  service: BackupServiceClient;
  /** The simulator itself, not the proxy: the harness's own token calls must not count as the workers'. */
  serviceUrl: string;
  credentialsFile: string;
  /** The secret in the credentials file when the trial began. */
  secretBefore?: string;
  /** Every request the workers made during the trial, with the service's status. */
  seen: SeenRequest[];
  /** The runs (workflow IDs) a kill or a lost answer hit. */
  disruptedRuns: Set<string>;
}

/** The status of `POST /v1/token` for a secret, asked of the simulator directly. */
async function tokenStatus(serviceUrl: string, clientId: string, clientSecret: string): Promise<number> {
  const res = await request(`${serviceUrl}/v1/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ clientId, clientSecret }),
  });
  await res.body.dump();
  return res.statusCode;
}

/**
 * The run verified its new secret; the file's secret gets a token and the one from before the trial no longer does.
 * Each rotate call the service answered rotated once: one for the run, plus at most one more after a disruption (the
 * rotation finished with the held token, or retried after the lost answer).
 */
export async function checkRotation(run: RunRecord, ctx: AccountContext, check: RunCheck): Promise<void> {
  const rotations = ctx.seen.filter((r) => r.method === 'POST' && ROTATE.test(r.path) && r.status === 200).length;
  const most = ctx.disruptedRuns.has(run.workflowId) ? 2 : 1;
  check.notes.push(`${run.workflowId}: ${rotations} rotation(s) at the service`);
  if (rotations > most) check.problems.push(`${run.workflowId}: ${rotations} rotations, expected at most ${most}`);
  if (!check.completed) return;
  const result = run.result as RotationResult;
  if (!result.verified) check.problems.push(`${run.workflowId}: the new secret was not verified`);
  const stored = JSON.parse(await readFile(ctx.credentialsFile, 'utf8')) as { clientId: string; clientSecret: string };
  const now = await tokenStatus(ctx.serviceUrl, stored.clientId, stored.clientSecret);
  if (now !== 200) check.problems.push(`${run.workflowId}: the file's secret gets ${now} from /v1/token, not 200`);
  if (ctx.secretBefore === undefined) {
    check.problems.push(`${run.workflowId}: no secret in ${ctx.credentialsFile} before the trial`);
  } else if (ctx.secretBefore === stored.clientSecret) {
    check.problems.push(`${run.workflowId}: the file still holds the secret from before the trial`);
  } else {
    const before = await tokenStatus(ctx.serviceUrl, stored.clientId, ctx.secretBefore);
    if (before !== 404) check.problems.push(`${run.workflowId}: the old secret gets ${before}, not 404`);
  }
}

/** The run deleted its account, and the service deleted it once: one successful delete call, whatever the retries. */
export async function checkOffboarding(run: RunRecord, ctx: AccountContext, check: RunCheck): Promise<void> {
  if (run.plan.runbook !== 'offboardSourceAccount') return;
  const { accountId } = run.plan.input;
  const path = new RegExp(`/source-accounts/${accountId}$`);
  const deletes = ctx.seen.filter((r) => r.method === 'DELETE' && path.test(r.path));
  const done = deletes.filter((r) => (r.status ?? 0) >= 200 && (r.status ?? 0) < 300).length;
  check.jobs = done;
  if (done !== 1) check.problems.push(`${run.workflowId}: the service deleted ${accountId} ${done} times`);
  const odd = deletes.filter((r) => r.status !== undefined && r.status >= 300 && r.status !== 404);
  if (odd.length > 0) check.problems.push(`${run.workflowId}: a delete answered ${odd.map((r) => r.status).join(',')}`);
  if (!check.completed) return;
  const result = run.result as OffboardResult;
  if (!result.deleted) check.problems.push(`${run.workflowId}: the result says not deleted`);
  const gone = await ctx.service.getSourceAccount(accountId).then(
    () => false,
    (err: unknown) => err instanceof NotFoundError,
  );
  if (!gone) check.problems.push(`${run.workflowId}: ${accountId} is still there (or its look-up failed otherwise)`);
}

import { randomUUID } from 'node:crypto';
import { pathOf, type HttpRequest, type HttpTransport } from '../api/http';
import type { PermissionNeed, PermissionType } from '../contracts/runbook';
import { RUNBOOK_NAMES, RUNBOOKS, type RunbookName } from '../runbooks/registry';
import { fail, ok, warn, type CheckResult } from './doctor-report';

/**
 * How `runbooks doctor` finds out, for the permissions each runbook's contract says its calls need
 * (docs/service-interface.md §7), whether the caller's role holds them. The service shows no call that
 * names the caller's own role or grants, so each permission is asked by a probe: a call that needs it and cannot
 * change anything (a read of one item, or a call on an ID that does not exist with a body the call refuses). A 403
 * means the role lacks it; any other answer means the service let the call past its permission check.
 */

/** Every permission some runbook needs, once each. */
export const NEEDED_PERMISSIONS: PermissionType[] = [
  ...new Set(RUNBOOK_NAMES.flatMap((name) => RUNBOOKS[name].permissions.map((n) => n.permission))),
];

/** A probe's verdict: allowed (the call got past the permission check), refused (403), or unknown. */
export type Probe = { verdict: 'allowed' } | { verdict: 'refused' } | { verdict: 'unknown'; why: string };

/**
 * A call that needs the permission and changes nothing: reads ask for one item; the others name an ID that does not
 * exist and send an empty body, which the service refuses (400 or 404) once it has let the caller past the check.
 */
function probeRequest(permission: PermissionType, projectId: string): HttpRequest {
  const none = `runbooks-doctor-${randomUUID()}`;
  const project = (strings: TemplateStringsArray, ...params: string[]) =>
    pathOf`/v1/projects/${projectId}` + pathOf(strings, ...params);
  const day = 24 * 3600_000;
  switch (permission) {
    case 'inventory.view':
      return { method: 'POST', path: project`/resources`, query: { pageSize: 1 }, json: {} };
    case 'jobs.view':
      return { method: 'POST', path: project`/restore-jobs`, query: { pageSize: 1 }, json: {} };
    case 'cost_explorer.view': {
      const end = Math.floor(Date.now() / day) * day;
      const timeFrame = { startTime: new Date(end - 2 * day).toISOString(), endTime: new Date(end).toISOString() };
      return {
        method: 'POST',
        path: '/v1/cost-data',
        query: { pageSize: 1 },
        json: { timeFrame, granularity: 'TOTAL' },
      };
    }
    case 'snapshots.take_or_convert':
      return { method: 'POST', path: project`/resources/${none}/take-snapshot`, json: {} };
    case 'resources.restore':
      return { method: 'POST', path: project`/resources/${none}/snapshots/${none}/restore-bucket`, json: {} };
    case 'files.restore':
      return { method: 'POST', path: project`/resources/${none}/snapshots/${none}/restore-files`, json: {} };
    case 'databases.query':
      return { method: 'POST', path: project`/snapshots/${none}/databases/query`, json: {} };
    case 'mpa_requests.manage':
      return { method: 'GET', path: project`/action-approvals/my-requests/${none}` };
    case 'source_accounts.manage':
      // An empty update of an account that does not exist: nothing to change even if it did.
      return { method: 'PATCH', path: project`/source-accounts/${none}`, json: {} };
    case 'api_credentials.rotate_secret':
      return { method: 'POST', path: pathOf`/v1/api-credentials/${none}/rotate` };
  }
}

/** Asks the service, with the caller's token, whether its role holds `permission`. */
export async function probePermission(
  transport: HttpTransport,
  token: string,
  projectId: string,
  permission: PermissionType,
): Promise<Probe> {
  const req = probeRequest(permission, projectId);
  try {
    const res = await transport.send(req, `Bearer ${token}`);
    if (res.status === 403) return { verdict: 'refused' };
    if (res.status === 401) return { verdict: 'unknown', why: 'the token was refused (401)' };
    if (res.status >= 500 || res.status === 429)
      return { verdict: 'unknown', why: `the service answered ${res.status}` };
    return { verdict: 'allowed' };
  } catch (err) {
    return { verdict: 'unknown', why: err instanceof Error ? (err.message.split('\n')[0] ?? '') : String(err) };
  }
}

export interface PermissionFacts {
  /** The permission types the service lists (GET /v1/permissions); undefined when it would not list them. */
  catalogue?: ReadonlySet<string>;
  probes: ReadonlyMap<PermissionType, Probe>;
  clientId: string;
}

/** One line per runbook: fail when a permission it always needs is missing, warn when an optional one is. */
export function runbookLine(runbook: RunbookName, facts: PermissionFacts): CheckResult {
  const id = `runbook.${runbook}`;
  const check = `permissions: ${runbook}`;
  const needs = RUNBOOKS[runbook].permissions;
  const problems: { need: PermissionNeed; why: string; certain: boolean }[] = [];
  for (const need of needs) {
    const probe = facts.probes.get(need.permission);
    if (facts.catalogue && !facts.catalogue.has(need.permission)) {
      problems.push({ need, why: 'not a permission the service lists', certain: true });
    } else if (probe?.verdict === 'refused') {
      problems.push({ need, why: 'refused (403)', certain: true });
    } else if (probe === undefined || probe.verdict === 'unknown') {
      problems.push({ need, why: `could not be asked: ${probe?.why ?? 'not probed'}`, certain: false });
    }
  }
  const names = needs.map((n) => (n.when ? `${n.permission} (with ${n.when})` : n.permission)).join(', ');
  if (problems.length === 0) return ok(id, check, `holds ${names}`);
  const describe = (p: (typeof problems)[number]) =>
    `${p.need.permission} for ${p.need.for}${p.need.when ? ` (with ${p.need.when})` : ''}: ${p.why}`;
  const failing = problems.filter((p) => p.certain && !p.need.when);
  const missing = problems.filter((p) => p.certain).map((p) => p.need.permission);
  const fix = missing.length
    ? `grant ${[...new Set(missing)].join(', ')} to the role of API client ${facts.clientId} (the service's console: Roles), ` +
      'or use credentials whose role holds them'
    : 'run runbooks doctor again once the service answers';
  const detail = problems.map(describe).join('; ');
  return failing.length > 0 ? fail(id, check, detail, fix) : warn(id, check, detail, fix);
}

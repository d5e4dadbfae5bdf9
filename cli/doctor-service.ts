import {
  BackupServiceClient,
  BackupServiceError,
  ForbiddenError,
  HttpTransport,
  IssuedToken,
  type ClientOptions,
  type HttpResponse,
  type RestoreAccount,
  type Vault,
} from '../api';
import { RUNBOOK_NAMES } from '../runbooks/registry';
import { checkDialect } from './doctor-dialect';
import type { PermissionType } from '../contracts/runbook';
import { NEEDED_PERMISSIONS, probePermission, runbookLine, type Probe } from './doctor-permissions';
import { bounded, fail, ok, reason, skip, warn, type CheckResult } from './doctor-report';
import type { ServiceTarget } from './doctor-target';

/**
 * The service's checks: the token, the clock, the dialect, each runbook's permissions, the restore accounts and a
 * vault in every region. Each runs within `budgetMs`; one that cannot run because the token failed is skipped.
 */

export interface ServiceCheckOptions {
  budgetMs: number;
  /** Restore accounts the runbooks use (`--restore-account`); each must be connected and allowed. */
  restoreAccounts?: readonly string[];
}

/**
 * Clock skew between this machine and the service's `Date` header. The client measures job lookups and approval
 * windows on the service's clock (read from that header, to the whole second), so a skew never breaks exactly-once;
 * what is measured here or on Temporal's clock against the service's timestamps is off by it, though: a drill's RPO,
 * its window for reusing a recent snapshot, and the age of a waiting approval. Past 5 s the skew is beyond the header's
 * one-second steps and the 3 s margin of the job lookups: worth fixing. Past a minute the clocks are not synchronised
 * at all, and evidence (RPO, RTO, report times) would be that far off.
 */
export const SKEW_WARN_MS = 5_000;
export const SKEW_FAIL_MS = 60_000;

/** Resources read for the region check at most; a larger inventory is sampled (and the line says so). */
const MAX_RESOURCES = 20_000;

const TOKEN = { id: 'service.token', check: 'service token' };
const CLOCK = { id: 'service.clock', check: 'clock skew' };
const DIALECT = { id: 'service.dialect', check: 'dialect' };
const CATALOGUE = { id: 'service.permissions', check: 'permission catalogue' };
const ACCOUNTS = { id: 'service.restore-accounts', check: 'restore accounts' };
const VAULTS = { id: 'service.vaults', check: 'vault in each region' };

/** The lines that depend on a working token, skipped when it fails. */
function skippedAfterToken(because: string): CheckResult[] {
  return [
    skip(CLOCK.id, CLOCK.check, because),
    skip(DIALECT.id, DIALECT.check, because),
    skip(CATALOGUE.id, CATALOGUE.check, because),
    ...RUNBOOK_NAMES.map((name) => skip(`runbook.${name}`, `permissions: ${name}`, because)),
    skip(ACCOUNTS.id, ACCOUNTS.check, because),
    skip(VAULTS.id, VAULTS.check, because),
  ];
}

/** Every service line but the configuration's, in the order the report shows them. */
export async function serviceChecks(target: ServiceTarget, options: ServiceCheckOptions): Promise<CheckResult[]> {
  const budget = options.budgetMs;
  const transport = new HttpTransport({ baseUrl: target.baseUrl, timeoutMs: Math.min(target.timeoutMs, budget) });
  const token = await bounded(budget, () => tokenCheck(transport, target)).catch((err: unknown) => ({
    line: fail(TOKEN.id, TOKEN.check, `${target.baseUrl}: ${reason(err)}`, 'check that the service is reachable'),
    token: undefined,
  }));
  if (token.token === undefined) return [token.line, ...skippedAfterToken('no token')];

  let dateHeaders = 0;
  const clientOptions: ClientOptions = {
    baseUrl: target.baseUrl,
    projectId: target.projectId,
    credentials: target.credentials,
    tokenEndpoint: target.tokenEndpoint,
    timeoutMs: Math.min(target.timeoutMs, budget),
  };
  // As the worker's: in the configured dialect.
  const client = new BackupServiceClient({
    ...clientOptions,
    dialect: target.dialect,
    around: async (_call, send) => {
      const res: HttpResponse = await send();
      if (res.headers.date) dateHeaders += 1;
      return res;
    },
  });
  const accessToken = token.token;
  const probes = new Map<PermissionType, Probe>();
  const [clock, catalogue, accounts, vaults] = await Promise.all([
    settle(CLOCK, budget, () => clockCheck(client, () => dateHeaders)),
    settle(CATALOGUE, budget, () => catalogueCheck(client)),
    settle(ACCOUNTS, budget, (signal) => restoreAccountsCheck(client, options.restoreAccounts ?? [], signal)),
    settle(VAULTS, budget, (signal) => vaultsCheck(client, signal)),
    bounded(budget, async () => {
      await Promise.all(
        NEEDED_PERMISSIONS.map(async (p) =>
          probes.set(p, await probePermission(transport, accessToken, target.projectId, p)),
        ),
      );
    }).catch(() => undefined),
  ]);
  const dialect = await settle(DIALECT, budget, () => checkDialect(target, clientOptions));
  const runbooks = RUNBOOK_NAMES.map((name) =>
    keepsSecret(
      target,
      runbookLine(name, { catalogue: catalogue.catalogue, probes, clientId: target.credentials.clientId }),
    ),
  );
  return [token.line, clock.line, dialect.line, catalogue.line, ...runbooks, accounts.line, vaults.line];
}

/** rotateCredentials keeps the new secret in the credentials file: without one, it refuses to run. */
function keepsSecret(target: ServiceTarget, line: CheckResult): CheckResult {
  if (line.id !== 'runbook.rotateCredentials' || line.status !== 'ok' || target.rotatable !== false) return line;
  const detail = `${line.detail}; but BACKUP_CREDENTIALS_FILE is not set, so a new secret could not be kept: it refuses to run`;
  const fix =
    'set BACKUP_CREDENTIALS_FILE (mode 0600, on a volume): the worker creates it from BACKUP_CLIENT_ID and BACKUP_CLIENT_SECRET';
  return warn(line.id, line.check, detail, fix);
}

interface Outcome {
  line: CheckResult;
  catalogue?: ReadonlySet<string>;
}

/** Runs a check within its time; a timeout or an unexpected error fails its line with the reason. */
async function settle(
  at: { id: string; check: string },
  budgetMs: number,
  run: (signal: AbortSignal) => Promise<Outcome>,
): Promise<Outcome> {
  try {
    return await bounded(budgetMs, run);
  } catch (err) {
    const refused = err instanceof ForbiddenError;
    const fix = refused
      ? 'grant the role of these credentials the permission to read it (inventory.view), or use credentials that have it'
      : 'check that the service is reachable and answering, then run runbooks doctor again';
    return { line: fail(at.id, at.check, reason(err), fix) };
  }
}

async function tokenCheck(
  transport: HttpTransport,
  target: ServiceTarget,
): Promise<{ line: CheckResult; token?: string }> {
  const { clientId, clientSecret } = target.credentials;
  const path = target.tokenEndpoint === 'json' ? '/v1/token' : '/v1/oauth2/token';
  const res = await transport.send(
    target.tokenEndpoint === 'json'
      ? { method: 'POST', path, json: { clientId, clientSecret } }
      : {
          method: 'POST',
          path,
          form: { client_id: clientId, client_secret: clientSecret, grant_type: 'client_credentials' },
        },
  );
  if (res.status === 404) {
    const detail = `POST ${path} refused the credentials of client ${clientId} (404: unknown client or wrong secret)`;
    return { line: fail(TOKEN.id, TOKEN.check, detail, target.credentialsFix) };
  }
  if (res.status !== 200) {
    const detail = `POST ${path} answered ${res.status} for client ${clientId}`;
    return {
      line: fail(TOKEN.id, TOKEN.check, detail, `check the service address (${target.baseUrl}) and its status`),
    };
  }
  const issued = IssuedToken.safeParse(res.body);
  if (!issued.success) {
    const detail = `POST ${path} answered 200 without a token this client can read`;
    return { line: fail(TOKEN.id, TOKEN.check, detail, `check that ${target.baseUrl} is the service's API address`) };
  }
  const hours = Math.round((issued.data.expiresInSeconds / 3600) * 10) / 10;
  const detail = `client ${clientId} got a token from POST ${path}, valid ${hours} h`;
  return { line: ok(TOKEN.id, TOKEN.check, detail), token: issued.data.accessToken };
}

/** One authorised call (any answer carries the service's `Date`), then the client's view of the service's clock. */
async function clockCheck(client: BackupServiceClient, dateHeaders: () => number): Promise<Outcome> {
  // The token first, so that the round trip timed below is the one call's.
  await client.tokens.getToken();
  const before = Date.now();
  await client.listRestoreAccountsPage({}, { pageSize: 1 }).catch((err: unknown) => {
    // A refusal still carries the header; only a call that got no answer tells nothing.
    if (!(err instanceof BackupServiceError) || err.code === 'NETWORK_ERROR') throw err;
  });
  const roundTrip = Date.now() - before;
  if (dateHeaders() === 0) {
    const detail = "the service's answers carry no Date header, so the client cannot read its clock";
    return {
      line: warn(CLOCK.id, CLOCK.check, detail, 'keep this machine on NTP: job lookups then use its clock'),
    };
  }
  // The header counts whole seconds (rounded down), and came somewhere within the round trip.
  const skew = client.serviceNow() + 500 - Date.now() + roundTrip / 2;
  const seconds = Math.abs(skew) / 1000;
  const side = skew >= 0 ? 'ahead of' : 'behind';
  const detail = `the service's clock is ${seconds.toFixed(1)} s ${side} this machine's (±1 s: its Date header counts whole seconds)`;
  const fix = `synchronise this machine's clock (NTP: timedatectl set-ntp true, or chronyc makestep); if it is right, the service's clock is off: tell its operators`;
  if (Math.abs(skew) >= SKEW_FAIL_MS)
    return { line: fail(CLOCK.id, CLOCK.check, `${detail}; at most ${SKEW_FAIL_MS / 1000} s`, fix) };
  if (Math.abs(skew) >= SKEW_WARN_MS)
    return { line: warn(CLOCK.id, CLOCK.check, `${detail}; best under ${SKEW_WARN_MS / 1000} s`, fix) };
  return { line: ok(CLOCK.id, CLOCK.check, detail) };
}

async function catalogueCheck(client: BackupServiceClient): Promise<Outcome> {
  let listed: string[];
  try {
    listed = (await client.listPermissions()).map((p) => p.permissionType);
  } catch (err) {
    if (!(err instanceof ForbiddenError)) throw err;
    const detail =
      'the service would not list its permission types to these credentials (403; listing them needs a role that ' +
      'may manage roles): the runbook lines rely on probes alone';
    const fix =
      'nothing, for the runbooks; to compare with the catalogue, run doctor with credentials that may manage roles';
    return { line: warn(CATALOGUE.id, CATALOGUE.check, detail, fix) };
  }
  const catalogue = new Set(listed);
  const unknown = NEEDED_PERMISSIONS.filter((p) => !catalogue.has(p));
  if (unknown.length > 0) {
    const detail = `the service lists ${listed.length} permission types, without ${unknown.join(', ')}`;
    const fix =
      "this service's permissions differ from the documented ones: the runbooks that need them cannot run there";
    return { line: fail(CATALOGUE.id, CATALOGUE.check, detail, fix), catalogue };
  }
  const detail = `the service lists ${listed.length} permission types, among them all ${NEEDED_PERMISSIONS.length} the runbooks use`;
  return { line: ok(CATALOGUE.id, CATALOGUE.check, detail), catalogue };
}

const usable = (a: RestoreAccount) => a.status === 'CONNECTED' && a.isRestoreAllowed;
const whyNot = (a: RestoreAccount) =>
  a.status !== 'CONNECTED' ? `status ${a.status}` : 'restores not allowed (isRestoreAllowed: false)';

async function restoreAccountsCheck(
  client: BackupServiceClient,
  named: readonly string[],
  signal: AbortSignal,
): Promise<Outcome> {
  const accounts: RestoreAccount[] = [];
  for await (const account of client.listRestoreAccounts({}, { pageSize: 200 })) {
    if (signal.aborted) break;
    accounts.push(account);
  }
  const label = (a: RestoreAccount) => `${a.name} (${a.id})`;
  const fixFor = (bad: RestoreAccount[]) =>
    `reconnect or allow restores into ${bad.map((a) => a.name).join(', ')} in the service's console, or name ` +
    "another restore account in the runbooks' input (restoreAccountId)";
  if (named.length > 0) {
    const missing = named.filter((id) => !accounts.some((a) => a.id === id));
    const bad = accounts.filter((a) => named.includes(a.id) && !usable(a));
    const problems = [
      ...missing.map((id) => `${id}: no such restore account`),
      ...bad.map((a) => `${label(a)}: ${whyNot(a)}`),
    ];
    if (problems.length > 0) {
      const fix =
        missing.length > 0 && bad.length === 0
          ? 'check the restore account IDs (runbooks doctor lists them without --restore-account)'
          : fixFor(bad);
      return { line: fail(ACCOUNTS.id, ACCOUNTS.check, problems.join('; '), fix) };
    }
    return { line: ok(ACCOUNTS.id, ACCOUNTS.check, `${named.length} named, each connected and allowed`) };
  }
  const good = accounts.filter(usable);
  const others = accounts.filter((a) => !usable(a));
  const unusable = others.length > 0 ? `; not usable: ${others.map((a) => `${a.name} (${whyNot(a)})`).join(', ')}` : '';
  if (good.length === 0) {
    const detail =
      accounts.length === 0
        ? 'the project has no restore account'
        : `no restore account is connected and allowed${unusable}`;
    const fix =
      accounts.length === 0
        ? "add a restore account in the service's console: restores and queries write into one"
        : fixFor(others);
    return { line: fail(ACCOUNTS.id, ACCOUNTS.check, detail, fix) };
  }
  // Which of them the runbooks name is in their inputs: a locked account is a choice, not a fault, until named.
  const detail = `${good.length} connected and allowed: ${good.map(label).join(', ')}${unusable}`;
  return { line: ok(ACCOUNTS.id, ACCOUNTS.check, detail) };
}

async function vaultsCheck(client: BackupServiceClient, signal: AbortSignal): Promise<Outcome> {
  const vaults: Vault[] = [];
  for await (const vault of client.listVaults({ pageSize: 200 })) vaults.push(vault);
  const regions = new Map<string, number>();
  let read = 0;
  let sampled = false;
  for await (const resource of client.listResources({}, { pageSize: 1000 })) {
    read += 1;
    // Terminated resources need no vault any more.
    if (resource.backupStatus !== 'TERMINATED') regions.set(resource.region, (regions.get(resource.region) ?? 0) + 1);
    if (read >= MAX_RESOURCES || signal.aborted) {
      sampled = true;
      break;
    }
  }
  const vaultRegions = new Set(vaults.map((v) => v.region));
  const missing = [...regions].filter(([region]) => !vaultRegions.has(region)).sort(([a], [b]) => a.localeCompare(b));
  const scope = `${read}${sampled ? '+ (first ones only)' : ''} resources in ${regions.size} region(s), ${vaults.length} vault(s)`;
  if (missing.length > 0) {
    const detail = `no vault in ${missing.map(([r, n]) => `${r} (${n} resources)`).join(', ')}; ${scope}`;
    const fix =
      `create a vault in ${missing.map(([r]) => r).join(', ')} (POST /v1/projects/{projectId}/vaults with name, region ` +
      "and vaultAttributes, or the service's console): snapshots and query results stay in their region";
    return { line: fail(VAULTS.id, VAULTS.check, detail, fix) };
  }
  if (regions.size === 0) return { line: ok(VAULTS.id, VAULTS.check, `no resources yet; ${vaults.length} vault(s)`) };
  return { line: ok(VAULTS.id, VAULTS.check, `${scope}: every region has one`) };
}

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { registerSecret, type Credentials, type TokenEndpoint } from '../api';
import type { DialectSetting } from '../api/dialect';
import { ConfigError, dataDirOf, DEFAULT_TIMEOUT_MS, loadServiceConfig } from '../runtime/config';
import { CredentialsFileError, readCredentialsFile } from '../runtime/credentials-file';
import { keyFileProblem, sharedKeyFilesAllowed } from '../runtime/key-file-permissions';
import { EMBEDDED_CREDENTIALS_FILE, SIMULATOR_URL_FILE } from '../runtime/stack-files';
import { fail, ok, reason, type CheckResult } from './doctor-report';

/**
 * Which service `runbooks doctor` checks, read as the worker reads it: BACKUP_SERVICE_URL and its credentials (the
 * credentials file first, as the worker uses it); else a simulator named with `--service-url`; else the simulator
 * that a running worker started in-process (its address and credentials are in the data directory). Nothing is
 * written: a credentials file that does not exist yet is what the worker will create from the environment.
 */

type Env = Record<string, string | undefined>;

export interface ServiceTarget {
  baseUrl: string;
  projectId: string;
  credentials: Credentials;
  tokenEndpoint: TokenEndpoint;
  timeoutMs: number;
  dialect: DialectSetting;
  /** Where the address came from, for the report. */
  source: string;
  /** Where the credentials came from, for details and fixes. */
  credentialsFrom: string;
  /** The variable or file to change when the credentials are refused. */
  credentialsFix: string;
  /**
   * Whether the worker keeps its credentials in a file that a rotation can rewrite: BACKUP_CREDENTIALS_FILE, or the
   * embedded simulator's. Undefined when the check is not of the worker's configuration (`--service-url`).
   */
  rotatable?: boolean;
}

const ID = 'service.config';
const CHECK = 'service configuration';

const requireHere: (id: string) => unknown = createRequire(__filename);

/** The service to check, with the configuration line of the report; `target` is absent when that line failed. */
export async function resolveServiceTarget(
  env: Env,
  serviceUrl: string | undefined,
  timeoutMs: number,
): Promise<{ line: CheckResult; target?: ServiceTarget }> {
  try {
    const service = loadServiceConfig(env);
    // BACKUP_SERVICE_DIALECT, as the worker's client takes it: `auto` unless set.
    const dialect = service.dialect ?? 'auto';
    if (serviceUrl !== undefined) return await simulatorTarget(serviceUrl, '--service-url', env, dialect, timeoutMs);
    if (service.mode === 'remote') {
      const found = await remoteCredentials(service, env);
      if ('line' in found) return found;
      const target: ServiceTarget = {
        baseUrl: service.baseUrl,
        projectId: service.projectId,
        credentials: found.credentials,
        tokenEndpoint: service.tokenEndpoint,
        timeoutMs: Math.min(service.timeoutMs, timeoutMs),
        dialect,
        source: 'BACKUP_SERVICE_URL',
        credentialsFrom: found.from,
        credentialsFix: found.fix,
        rotatable: service.credentialsFile !== undefined,
      };
      const detail = `${service.baseUrl}, project ${service.projectId}, client ${found.credentials.clientId} (${found.from})`;
      return { line: ok(ID, CHECK, `${detail}${found.note ? `; ${found.note}` : ''}`), target };
    }
    return await embeddedTarget(env, dialect, timeoutMs);
  } catch (err) {
    if (err instanceof ConfigError) {
      const variables = err.issues.map((i) => i.variable).join(', ');
      return {
        line: fail(ID, CHECK, err.issues.map((i) => `${i.variable} ${i.message}`).join('; '), `set ${variables}`),
      };
    }
    throw err;
  }
}

type Remote = Extract<ReturnType<typeof loadServiceConfig>, { mode: 'remote' }>;

async function remoteCredentials(
  service: Remote,
  env: Env,
): Promise<{ credentials: Credentials; from: string; fix: string; note?: string } | { line: CheckResult }> {
  const file = service.credentialsFile;
  const fromEnv = 'BACKUP_CLIENT_ID and BACKUP_CLIENT_SECRET';
  if (!file) {
    const credentials = { clientId: service.clientId ?? '', clientSecret: service.clientSecret ?? '' };
    registerSecret(credentials.clientSecret);
    return { credentials, from: fromEnv, fix: `check ${fromEnv} (the API credentials from the service's console)` };
  }
  const shared = keyFileProblem(file, sharedKeyFilesAllowed(env));
  if (shared) return { line: fail(ID, CHECK, `BACKUP_CREDENTIALS_FILE ${shared}`, `chmod 600 ${file}`) };
  try {
    const stored = await readCredentialsFile(file);
    registerSecret(stored.clientSecret);
    const credentials = { clientId: stored.clientId, clientSecret: stored.clientSecret };
    if (service.clientId && service.clientId !== stored.clientId) {
      const detail = `BACKUP_CLIENT_ID is ${service.clientId}, but ${file} holds credentials of ${stored.clientId}`;
      return { line: fail(ID, CHECK, detail, `unset BACKUP_CLIENT_ID, or point BACKUP_CREDENTIALS_FILE elsewhere`) };
    }
    const note = stored.pendingRotation
      ? 'the file holds an interrupted rotation, which the worker finishes'
      : undefined;
    const fix = `check ${file}: rotations keep the current secret there (runbooks rotateCredentials)`;
    return { credentials, from: file, fix, ...(note ? { note } : {}) };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' && service.clientId && service.clientSecret) {
      registerSecret(service.clientSecret);
      return {
        credentials: { clientId: service.clientId, clientSecret: service.clientSecret },
        from: fromEnv,
        fix: `check ${fromEnv}`,
        note: `the worker creates ${file} from them at start`,
      };
    }
    const detail =
      err instanceof CredentialsFileError
        ? `BACKUP_CREDENTIALS_FILE ${err.message}`
        : code === 'ENOENT'
          ? `BACKUP_CREDENTIALS_FILE ${file} does not exist`
          : `BACKUP_CREDENTIALS_FILE ${file} cannot be read (${code ?? reason(err)})`;
    const fix = `create it ({"clientId", "clientSecret"}, mode 0600) or set ${fromEnv} to seed it`;
    return { line: fail(ID, CHECK, detail, fix) };
  }
}

/** A simulator at `baseUrl`: its project from the control API, its bootstrap credentials unless given. */
async function simulatorTarget(
  baseUrl: string,
  source: string,
  env: Env,
  dialect: DialectSetting,
  timeoutMs: number,
  stored?: { credentials: Credentials; file: string },
): Promise<{ line: CheckResult; target?: ServiceTarget }> {
  let url: URL;
  try {
    url = new URL(baseUrl);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('not http(s)');
  } catch {
    return {
      line: fail(ID, CHECK, `${source} '${baseUrl}' is not an http(s) URL`, 'e.g. --service-url http://127.0.0.1:8080'),
    };
  }
  const base = baseUrl.replace(/\/+$/, '');
  let projectId: string;
  try {
    const { SimulatorControlClient } = requireHere(
      '../simulator/control-client',
    ) as typeof import('../simulator/control-client');
    const control = new SimulatorControlClient(base);
    const state = await Promise.race([
      control.state(),
      new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs).unref(),
      ),
    ]);
    projectId = state.projectId;
  } catch (err) {
    const detail = `no simulator answers at ${base} (${source}): ${reason(err)}`;
    const fix =
      source === '--service-url'
        ? 'start one (runbooks simulator --port 8080), or configure a real service with BACKUP_SERVICE_URL instead'
        : 'start the worker again (npm start), or set BACKUP_SERVICE_URL';
    return { line: fail(ID, CHECK, detail, fix) };
  }
  const credentials = stored?.credentials ?? defaultSimulatorCredentials(env);
  registerSecret(credentials.clientSecret);
  const from = stored ? stored.file : "the simulator's default credentials, or SIMULATOR_CLIENT_ID/SECRET";
  const target: ServiceTarget = {
    baseUrl: base,
    projectId,
    credentials,
    tokenEndpoint: 'json',
    timeoutMs: Math.min(DEFAULT_TIMEOUT_MS, timeoutMs),
    dialect,
    source,
    credentialsFrom: from,
    ...(stored ? { rotatable: true } : {}),
    credentialsFix: stored
      ? `check ${stored.file}`
      : 'set SIMULATOR_CLIENT_ID and SIMULATOR_CLIENT_SECRET as the simulator has them',
  };
  return {
    line: ok(ID, CHECK, `simulator at ${base}, project ${projectId}, client ${credentials.clientId} (${from})`),
    target,
  };
}

function defaultSimulatorCredentials(env: Env): Credentials {
  // Loaded only here: the simulator's module brings fastify with it.
  const sim = requireHere('../simulator/server') as typeof import('../simulator/server');
  return {
    clientId: env.SIMULATOR_CLIENT_ID?.trim() || sim.DEFAULT_CLIENT_ID,
    clientSecret: env.SIMULATOR_CLIENT_SECRET?.trim() || sim.DEFAULT_CLIENT_SECRET,
  };
}

/** The simulator a running worker started (BACKUP_SERVICE_URL unset), from the files it leaves in the data dir. */
async function embeddedTarget(
  env: Env,
  dialect: DialectSetting,
  timeoutMs: number,
): Promise<{ line: CheckResult; target?: ServiceTarget }> {
  const dataDir = resolve(dataDirOf(env));
  const urlFile = join(dataDir, SIMULATOR_URL_FILE);
  let url: string;
  try {
    url = readFileSync(urlFile, 'utf8').trim();
  } catch {
    const detail = `BACKUP_SERVICE_URL is not set, and no worker's simulator is running (${urlFile} does not exist)`;
    const fix =
      'set BACKUP_SERVICE_URL, BACKUP_PROJECT_ID and the credentials for a real service; or check a simulator with ' +
      '--service-url <url>; or start the worker (npm start), which runs one in-process';
    return { line: fail(ID, CHECK, detail, fix) };
  }
  const file = join(dataDir, EMBEDDED_CREDENTIALS_FILE);
  const stored = await readCredentialsFile(file).then(
    (c) => ({ credentials: { clientId: c.clientId, clientSecret: c.clientSecret }, file }),
    () => undefined,
  );
  return simulatorTarget(url, `${urlFile} (the worker's simulator)`, env, dialect, timeoutMs, stored);
}

// A real Temporal deployment for the harness: PostgreSQL from the system's packages, the Temporal server built from
// its Go module (the dev server's server version), its schema set up by the server's own SQL tool. Each is a separate
// process that a trial can kill -9.
import { execFileSync } from 'node:child_process';
import { chownSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Connection } from '@temporalio/client';
import { encodeSearchAttributeIndexedValueType } from '@temporalio/common/lib/search-attributes';
import { msToTs } from '@temporalio/common/lib/time';
import { SEARCH_ATTRIBUTE_KEYS } from '../../contracts';
import { freePort } from '../../worker/dev-server';
import { ManagedProcess, sleep } from './processes';

// The scripts are plain CommonJS (they run before any build), found from the sources and from dist/.
const requireScript = (name: string): unknown => {
  const requireHere = createRequire(__filename);
  for (const dir of ['../../scripts', '../../../scripts']) {
    try {
      return requireHere(`${dir}/${name}`);
    } catch (err) {
      if ((err as { code?: string }).code !== 'MODULE_NOT_FOUND') throw err;
    }
  }
  throw new Error(`scripts/${name} not found above ${__dirname}`);
};
const { ensureTemporalServer } = requireScript(
  'ensure-temporal-server.js',
) as typeof import('../../scripts/ensure-temporal-server');
const { ensurePostgres } = requireScript('ensure-postgres.js') as typeof import('../../scripts/ensure-postgres');

const DB_USER = 'temporal';
const DB_PASSWORD = 'temporal';
const NAMESPACE = 'default';

export interface TemporalCluster {
  address: string;
  /** The Temporal server (frontend, history, matching and worker services in one process). */
  server: ManagedProcess;
  postgres: ManagedProcess;
  version: string;
  /** Stops the server, then the database, and removes the database's files. */
  close(): Promise<void>;
}

/** PostgreSQL refuses to run as root: as root, its programs run as the `postgres` user the package created. */
function asDatabaseUser(command: string, args: string[]): { command: string; args: string[] } {
  if (process.getuid?.() !== 0) return { command, args };
  return { command: 'setpriv', args: ['--reuid=postgres', '--regid=postgres', '--init-groups', command, ...args] };
}

function postgresUserIds(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const [uid, gid] = ['-u', '-g'].map((flag) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' })));
  return { uid: uid ?? 0, gid: gid ?? 0 };
}

async function startPostgres(dir: string): Promise<{ process: ManagedProcess; port: number; home: string }> {
  const bin = ensurePostgres();
  const owner = postgresUserIds();
  // The database user cannot enter a private folder of root's, so then its files live in a folder of their own.
  const home = owner ? mkdtempSync(join(tmpdir(), 'runbooks-postgres-')) : join(dir, 'postgres');
  mkdirSync(home, { recursive: true });
  if (owner) chownSync(home, owner.uid, owner.gid);
  const data = join(home, 'data');
  const initdb = asDatabaseUser(join(bin, 'initdb'), ['-D', data, '-U', DB_USER, '--auth=trust', '-E', 'UTF8']);
  execFileSync(initdb.command, initdb.args, { stdio: 'pipe' });
  const port = await freePort();
  const command = asDatabaseUser(join(bin, 'postgres'), [
    '-D',
    data,
    '-p',
    String(port),
    '-k',
    home,
    '-c',
    'listen_addresses=127.0.0.1',
  ]);
  const postgres = new ManagedProcess({
    name: 'postgresql',
    ...command,
    logFile: join(dir, 'postgres.log'),
    readyLine: /database system is ready to accept connections/,
  });
  await postgres.start();
  return { process: postgres, port, home };
}

/** The databases and their schemas, by the server's own tool and the schemas embedded in it. */
function setUpSchemas(sqlTool: string, port: number): void {
  const env = {
    ...process.env,
    SQL_PLUGIN: 'postgres12',
    SQL_HOST: '127.0.0.1',
    SQL_PORT: String(port),
    SQL_USER: DB_USER,
    SQL_PASSWORD: DB_PASSWORD,
  };
  for (const [database, schema] of [
    ['temporal', 'postgresql/v12/temporal'],
    ['temporal_visibility', 'postgresql/v12/visibility'],
  ] as const) {
    for (const args of [
      ['create-database'],
      ['setup-schema', '-v', '0.0'],
      ['update-schema', '--schema-name', schema],
    ]) {
      execFileSync(sqlTool, ['--db', database, ...args], { env, stdio: 'pipe' });
    }
  }
}

function serverConfig(dbPort: number, ports: number[], dynamicConfigFile: string): object {
  const [frontend, http, history, matching, worker, ...membership] = ports;
  const datastore = (databaseName: string, maxConns: number) => ({
    sql: {
      pluginName: 'postgres12',
      databaseName,
      connectAddr: `127.0.0.1:${dbPort}`,
      connectProtocol: 'tcp',
      user: DB_USER,
      password: DB_PASSWORD,
      maxConns,
      maxIdleConns: maxConns,
      maxConnLifetime: '1h',
    },
  });
  const rpc = (grpcPort: number | undefined, membershipPort: number | undefined) => ({
    rpc: { grpcPort, membershipPort, bindOnLocalHost: true },
  });
  return {
    log: { stdout: true, level: 'warn' },
    persistence: {
      defaultStore: 'default',
      visibilityStore: 'visibility',
      numHistoryShards: 4,
      datastores: { default: datastore('temporal', 20), visibility: datastore('temporal_visibility', 4) },
    },
    global: { membership: { maxJoinDuration: '30s', broadcastAddress: '127.0.0.1' } },
    services: {
      frontend: { rpc: { ...rpc(frontend, membership[0]).rpc, httpPort: http } },
      history: rpc(history, membership[1]),
      matching: rpc(matching, membership[2]),
      worker: rpc(worker, membership[3]),
    },
    clusterMetadata: {
      enableGlobalNamespace: false,
      failoverVersionIncrement: 10,
      masterClusterName: 'active',
      currentClusterName: 'active',
      clusterInformation: {
        active: { enabled: true, initialFailoverVersion: 1, rpcName: 'frontend', rpcAddress: `127.0.0.1:${frontend}` },
      },
    },
    dcRedirectionPolicy: { policy: 'noop' },
    dynamicConfigClient: { filepath: dynamicConfigFile, pollInterval: '10s' },
  };
}

// A new namespace and its search attributes reach every service within a second, not ten.
const DYNAMIC_CONFIG = {
  'system.namespaceCacheRefreshInterval': [{ value: '1s' }],
  'system.enableDeploymentVersions': [{ value: true }],
  'frontend.workerVersioningWorkflowAPIs': [{ value: true }],
};

/** Whether the server at `address` knows the namespace (a probe: any failure means not yet). */
export async function temporalAnswers(address: string, namespace: string): Promise<boolean> {
  const connection = await Connection.connect({ address, connectTimeout: 1_000 });
  try {
    await connection.workflowService.describeNamespace({ namespace });
    return true;
  } finally {
    await connection.close();
  }
}

/** Registers the namespace and the runbooks' search attributes, once, and waits until both can be used. */
async function registerNamespace(address: string): Promise<void> {
  const connection = await Connection.connect({ address });
  try {
    await connection.workflowService.registerNamespace({
      namespace: NAMESPACE,
      workflowExecutionRetentionPeriod: msToTs('1 day'),
    });
    const searchAttributes = Object.fromEntries(
      SEARCH_ATTRIBUTE_KEYS.map((key) => [key.name, encodeSearchAttributeIndexedValueType(key.type) ?? 0]),
    );
    for (let attempt = 0; ; attempt++) {
      try {
        await connection.operatorService.addSearchAttributes({ namespace: NAMESPACE, searchAttributes });
        break;
      } catch (err) {
        // The frontend may not know the namespace for a moment.
        if (attempt >= 30) throw err;
        await sleep(500);
      }
    }
    const deadline = Date.now() + 30_000;
    for (;;) {
      const listed = await connection.operatorService.listSearchAttributes({ namespace: NAMESPACE });
      if (SEARCH_ATTRIBUTE_KEYS.every((key) => key.name in listed.customAttributes)) break;
      if (Date.now() > deadline) throw new Error('the search attributes were not registered within 30 s');
      await sleep(250);
    }
    // The namespace cache refreshes every second (DYNAMIC_CONFIG); let every service see the attributes.
    await sleep(2_000);
  } finally {
    await connection.close();
  }
}

/**
 * A free port below the ephemeral range: the server keeps membership ports in a smallint column, and a port picked by
 * the system (32768 and up) would not fit.
 */
async function lowPort(taken: readonly number[]): Promise<number> {
  for (;;) {
    const candidate = 20_000 + Math.floor(Math.random() * 12_000);
    if (!taken.includes(candidate) && (await freePort(candidate)) === candidate) return candidate;
  }
}

/** Starts PostgreSQL and the Temporal server under `dir`, with the namespace and search attributes registered. */
export async function startCluster(dir: string, log: (line: string) => void): Promise<TemporalCluster> {
  const { server: serverBinary, sqlTool, version } = ensureTemporalServer();
  mkdirSync(dir, { recursive: true });
  const postgres = await startPostgres(dir);
  let server: ManagedProcess | undefined;
  const close = async () => {
    await server?.close();
    await postgres.process.close();
    rmSync(postgres.home, { recursive: true, force: true });
  };
  try {
    setUpSchemas(sqlTool, postgres.port);
    const ports: number[] = [];
    while (ports.length < 9) ports.push(await lowPort(ports));
    const dynamicConfigFile = join(dir, 'temporal-dynamic-config.yaml');
    const configFile = join(dir, 'temporal-server.yaml');
    // JSON is YAML: the server reads both files as YAML.
    writeFileSync(dynamicConfigFile, JSON.stringify(DYNAMIC_CONFIG, null, 2));
    writeFileSync(configFile, JSON.stringify(serverConfig(postgres.port, ports, dynamicConfigFile), null, 2));
    const address = `127.0.0.1:${ports[0]}`;
    server = new ManagedProcess({
      name: `temporal server ${version}`,
      command: serverBinary,
      args: ['--config-file', configFile, '--allow-no-auth', 'start'],
      logFile: join(dir, 'temporal-server.log'),
      // The system namespace exists from the first start; `default` is checked after registration.
      probe: () => temporalAnswers(address, 'temporal-system'),
      readyTimeoutMs: 120_000,
    });
    await server.start();
    await registerNamespace(address);
    log(`temporal: server ${version} on PostgreSQL at ${address} (${dir})`);
    return { address, server, postgres: postgres.process, version, close };
  } catch (err) {
    // A half-started cluster must not keep the test process alive.
    await close();
    throw err;
  }
}

import { writeFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { redact } from '../../api';
import {
  ConfigError,
  loadConfig,
  loadServiceConfig,
  loadTemporalConfig,
  loadVersioningConfig,
  type ServiceConfig,
} from '../../runtime/config';
import { temporalConnectionOptions } from '../../runtime/temporal-connection';
import { resolveCredentials } from '../../worker/credentials';
import { buildIdOfBundle } from '../../worker/versioning';

/** The variables a ConfigError names, in order. */
function variablesOf(load: () => unknown): string[] {
  try {
    load();
  } catch (err) {
    if (err instanceof ConfigError) return err.issues.map((i) => i.variable);
    throw err;
  }
  throw new Error('expected a ConfigError');
}

const remote = {
  BACKUP_SERVICE_URL: 'https://backup.example.com/api',
  BACKUP_PROJECT_ID: '5b1c1f7e-0000-4000-8000-000000000001',
  BACKUP_CLIENT_ID: 'client-1',
  BACKUP_CLIENT_SECRET: 'a-long-client-secret',
};

describe('loadConfig', () => {
  test('an empty environment means the embedded dev server and simulator, with defaults', () => {
    expect(loadConfig({})).toEqual({
      temporal: {
        address: undefined,
        namespace: 'default',
        taskQueue: 'backup-runbooks',
        tls: false,
        apiKey: undefined,
      },
      service: { mode: 'embedded', dialect: 'auto' },
      dataDir: '.data',
      outputDir: join('.data', 'output'),
      logLevel: 'info',
      maxCachedWorkflows: 50,
      waitLooks: 'watch',
      temporalConnectTimeoutMs: 60_000,
      shutdownGraceTimeMs: 8_000,
    });
  });

  test('the start-up and shutdown bounds are whole milliseconds, named when wrong', () => {
    const config = loadConfig({ RUNBOOKS_TEMPORAL_CONNECT_TIMEOUT_MS: '0', RUNBOOKS_SHUTDOWN_GRACE_TIME_MS: '20000' });
    expect(config).toMatchObject({ temporalConnectTimeoutMs: 0, shutdownGraceTimeMs: 20_000 });
    expect(() => loadConfig({ RUNBOOKS_TEMPORAL_CONNECT_TIMEOUT_MS: '1m' })).toThrow(
      /RUNBOOKS_TEMPORAL_CONNECT_TIMEOUT_MS: must be a whole number of milliseconds/,
    );
    expect(() => loadConfig({ RUNBOOKS_SHUTDOWN_GRACE_TIME_MS: '900000' })).toThrow(
      /RUNBOOKS_SHUTDOWN_GRACE_TIME_MS: must be at most 600000/,
    );
  });

  test('empty strings count as unset', () => {
    expect(loadConfig({ TEMPORAL_ADDRESS: '', BACKUP_SERVICE_URL: ' ', LOG_LEVEL: '' }).service).toEqual({
      mode: 'embedded',
      dialect: 'auto',
    });
  });

  test('a remote service takes its settings and defaults', () => {
    const config = loadConfig({ ...remote, BACKUP_TOKEN_ENDPOINT: 'oauth2', BACKUP_TIMEOUT_MS: '5000' });
    expect(config.service).toEqual({
      mode: 'remote',
      dialect: 'auto',
      baseUrl: remote.BACKUP_SERVICE_URL,
      projectId: remote.BACKUP_PROJECT_ID,
      clientId: 'client-1',
      clientSecret: 'a-long-client-secret',
      credentialsFile: undefined,
      tokenEndpoint: 'oauth2',
      timeoutMs: 5000,
    });
  });

  test('every bad variable of every group is named at once', () => {
    const env = {
      TEMPORAL_ADDRESS: 'no-port',
      BACKUP_SERVICE_URL: 'ftp://example.com',
      BACKUP_TIMEOUT_MS: '12s',
      BACKUP_TOKEN_ENDPOINT: 'saml',
      LOG_LEVEL: 'loud',
    };
    expect(variablesOf(() => loadConfig(env))).toEqual([
      'TEMPORAL_ADDRESS',
      'BACKUP_SERVICE_URL',
      'BACKUP_TOKEN_ENDPOINT',
      'BACKUP_TIMEOUT_MS',
      'LOG_LEVEL',
    ]);
  });

  test('the message says what is wrong with each variable', () => {
    expect(() => loadConfig({ TEMPORAL_ADDRESS: 'localhost' })).toThrow(
      'TEMPORAL_ADDRESS: must be host:port, e.g. localhost:7233',
    );
    expect(() => loadConfig({ ...remote, BACKUP_TIMEOUT_MS: '50' })).toThrow('BACKUP_TIMEOUT_MS: must be at least 100');
  });

  test('LOG_LEVEL is case-insensitive and RUNBOOKS_OUTPUT_DIR overrides the default', () => {
    const config = loadConfig({
      LOG_LEVEL: 'WARN',
      RUNBOOKS_DATA_DIR: '/var/lib/runbooks',
      RUNBOOKS_OUTPUT_DIR: '/out',
    });
    expect(config).toMatchObject({ logLevel: 'warn', dataDir: '/var/lib/runbooks', outputDir: '/out' });
  });

  test('RUNBOOKS_METRICS_ADDRESS is off unless set, and must be host:port', () => {
    expect(loadConfig({}).metricsAddress).toBeUndefined();
    expect(loadConfig({ RUNBOOKS_METRICS_ADDRESS: '0.0.0.0:9464' }).metricsAddress).toBe('0.0.0.0:9464');
    expect(variablesOf(() => loadConfig({ RUNBOOKS_METRICS_ADDRESS: '9464' }))).toEqual(['RUNBOOKS_METRICS_ADDRESS']);
    expect(() => loadConfig({ RUNBOOKS_METRICS_ADDRESS: 'http://x:1' })).toThrow(
      'RUNBOOKS_METRICS_ADDRESS: must be host:port, e.g. 0.0.0.0:9464',
    );
  });

  test('RUNBOOKS_MAX_CACHED_WORKFLOWS bounds the sticky cache: 50 unless set, a whole number', () => {
    expect(loadConfig({}).maxCachedWorkflows).toBe(50);
    expect(loadConfig({ RUNBOOKS_MAX_CACHED_WORKFLOWS: '0' }).maxCachedWorkflows).toBe(0);
    expect(variablesOf(() => loadConfig({ RUNBOOKS_MAX_CACHED_WORKFLOWS: 'lots' }))).toEqual([
      'RUNBOOKS_MAX_CACHED_WORKFLOWS',
    ]);
  });

  test('RUNBOOKS_WAIT_LOOKS: waits watch unless set to attempts', () => {
    expect(loadConfig({}).waitLooks).toBe('watch');
    expect(loadConfig({ RUNBOOKS_WAIT_LOOKS: 'attempts' }).waitLooks).toBe('attempts');
    expect(variablesOf(() => loadConfig({ RUNBOOKS_WAIT_LOOKS: 'often' }))).toEqual(['RUNBOOKS_WAIT_LOOKS']);
  });
});

describe('loadVersioningConfig', () => {
  test('unversioned unless RUNBOOKS_DEPLOYMENT_NAME is set (locally, the demo and tests)', () => {
    expect(loadVersioningConfig({})).toBeUndefined();
    expect(loadVersioningConfig({ RUNBOOKS_DEPLOYMENT_NAME: ' ', RUNBOOKS_BUILD_ID: '' })).toBeUndefined();
    expect(loadConfig({}).versioning).toBeUndefined();
  });

  test('a deployment name, with a build ID or without one (derived from the bundle); auto-upgrade unless pinned', () => {
    expect(loadConfig({ RUNBOOKS_DEPLOYMENT_NAME: 'backup-runbooks' }).versioning).toEqual({
      deploymentName: 'backup-runbooks',
      buildId: undefined,
      mode: 'auto-upgrade',
    });
    expect(
      loadVersioningConfig({
        RUNBOOKS_DEPLOYMENT_NAME: 'backup-runbooks',
        RUNBOOKS_BUILD_ID: '2026.11.1',
        RUNBOOKS_VERSIONING: 'pinned',
      }),
    ).toEqual({ deploymentName: 'backup-runbooks', buildId: '2026.11.1', mode: 'pinned' });
  });

  test('a build ID or a mode needs a deployment; a dot in the name, spaces or an unknown mode are refused', () => {
    expect(variablesOf(() => loadConfig({ RUNBOOKS_BUILD_ID: 'v1' }))).toEqual(['RUNBOOKS_BUILD_ID']);
    expect(variablesOf(() => loadConfig({ RUNBOOKS_VERSIONING: 'pinned' }))).toEqual(['RUNBOOKS_VERSIONING']);
    expect(() => loadVersioningConfig({ RUNBOOKS_DEPLOYMENT_NAME: 'd', RUNBOOKS_VERSIONING: 'rolling' })).toThrow(
      /RUNBOOKS_VERSIONING: must be 'pinned' or 'auto-upgrade'/,
    );
    expect(
      variablesOf(() =>
        loadVersioningConfig({ RUNBOOKS_DEPLOYMENT_NAME: 'backup.runbooks', RUNBOOKS_BUILD_ID: 'v 1' }),
      ),
    ).toEqual(['RUNBOOKS_DEPLOYMENT_NAME', 'RUNBOOKS_BUILD_ID']);
  });

  test('the default build ID changes exactly when the workflow code does, prebuilt or bundled', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'bundle-'));
    const file = join(dir, 'workflow-bundle.js');
    await writeFile(file, 'workflow code, release 1');
    const first = await buildIdOfBundle({ codePath: file });
    expect(first).toMatch(/^[0-9a-f]{12}$/);
    expect(await buildIdOfBundle({ code: 'workflow code, release 1' })).toBe(first);
    expect(await buildIdOfBundle({ code: 'workflow code, release 2' })).not.toBe(first);
    // A valid RUNBOOKS_BUILD_ID too.
    expect(loadVersioningConfig({ RUNBOOKS_DEPLOYMENT_NAME: 'd', RUNBOOKS_BUILD_ID: first })?.buildId).toBe(first);
    await rm(dir, { recursive: true, force: true });
  });
});

describe('loadServiceConfig', () => {
  test('a service URL needs a project and credentials', () => {
    expect(variablesOf(() => loadServiceConfig({ BACKUP_SERVICE_URL: remote.BACKUP_SERVICE_URL }))).toEqual([
      'BACKUP_PROJECT_ID',
      'BACKUP_CLIENT_ID',
      'BACKUP_CLIENT_SECRET',
    ]);
  });

  test('a credentials file stands in for the client ID and secret', () => {
    const { BACKUP_CLIENT_ID: _id, BACKUP_CLIENT_SECRET: _secret, ...rest } = remote;
    const config = loadServiceConfig({ ...rest, BACKUP_CREDENTIALS_FILE: '/etc/runbooks/credentials.json' });
    expect(config).toMatchObject({ mode: 'remote', credentialsFile: '/etc/runbooks/credentials.json' });
  });

  test('BACKUP_SERVICE_DIALECT picks the wire dialect (auto by default); a bad value names the allowed ones', () => {
    expect(loadServiceConfig(remote)).toMatchObject({ mode: 'remote', dialect: 'auto' });
    for (const dialect of ['neutral', 'public', 'auto']) {
      expect(loadServiceConfig({ ...remote, BACKUP_SERVICE_DIALECT: dialect })).toMatchObject({ dialect });
      expect(loadServiceConfig({ BACKUP_SERVICE_DIALECT: dialect })).toEqual({ mode: 'embedded', dialect });
    }
    let err: unknown;
    try {
      loadConfig({ ...remote, BACKUP_SERVICE_DIALECT: 'aws' });
    } catch (caught) {
      err = caught;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).issues).toEqual([
      { variable: 'BACKUP_SERVICE_DIALECT', message: 'must be one of neutral, public, auto' },
    ]);
  });

  test('service credentials without a service URL are refused, not silently replaced by the simulator', () => {
    expect(variablesOf(() => loadServiceConfig({ BACKUP_CLIENT_ID: 'x', BACKUP_CLIENT_SECRET: 'y' }))).toEqual([
      'BACKUP_CLIENT_ID',
      'BACKUP_CLIENT_SECRET',
    ]);
  });
});

describe('loadTemporalConfig', () => {
  test('TLS files and an API key are read from the standard variables', () => {
    const config = loadTemporalConfig({
      TEMPORAL_ADDRESS: 'ns.tmprl.cloud:7233',
      TEMPORAL_NAMESPACE: 'ns',
      TEMPORAL_TLS_CLIENT_CERT_PATH: '/certs/client.pem',
      TEMPORAL_TLS_CLIENT_KEY_PATH: '/certs/client.key',
      TEMPORAL_TLS_SERVER_NAME: 'ns.tmprl.cloud',
      RUNBOOKS_TASK_QUEUE: 'runbooks-prod',
    });
    expect(config).toEqual({
      address: 'ns.tmprl.cloud:7233',
      namespace: 'ns',
      taskQueue: 'runbooks-prod',
      tls: {
        clientCertPath: '/certs/client.pem',
        clientKeyPath: '/certs/client.key',
        serverCaCertPath: undefined,
        serverName: 'ns.tmprl.cloud',
      },
      apiKey: undefined,
    });
  });

  test('an API key turns TLS on unless TEMPORAL_TLS=false says otherwise', () => {
    const base = { TEMPORAL_ADDRESS: 'localhost:7233', TEMPORAL_API_KEY: 'key-123456' };
    expect(loadTemporalConfig(base).tls).toEqual(expect.objectContaining({ clientCertPath: undefined }));
    expect(loadTemporalConfig({ ...base, TEMPORAL_TLS: 'false' }).tls).toBe(false);
  });

  test('a client certificate needs its key, and TLS settings need an address', () => {
    expect(
      variablesOf(() =>
        loadTemporalConfig({ TEMPORAL_ADDRESS: 'localhost:7233', TEMPORAL_TLS_CLIENT_CERT_PATH: '/c.pem' }),
      ),
    ).toEqual(['TEMPORAL_TLS_CLIENT_KEY_PATH']);
    expect(variablesOf(() => loadTemporalConfig({ TEMPORAL_API_KEY: 'key-123456' }))).toEqual(['TEMPORAL_API_KEY']);
    expect(variablesOf(() => loadTemporalConfig({ TEMPORAL_TLS: 'yes' }))).toEqual(['TEMPORAL_TLS']);
  });
});

describe('loadTemporalConfig with a TOML profile', () => {
  let file: string;
  beforeAll(async () => {
    file = join(await mkdtemp(join(tmpdir(), 'temporal-toml-')), 'temporal.toml');
    await writeFile(
      file,
      [
        '[profile.default]',
        'address = "localhost:7233"',
        '',
        '[profile.prod]',
        'address = "prod.example.com:7233"',
        'namespace = "runbooks-prod"',
        'api_key = "prod-key-123456"',
        '[profile.prod.tls]',
        'server_name = "prod.example.com"',
        'client_cert_path = "/certs/prod.pem"',
        '',
      ].join('\n'),
    );
  });

  test('the default profile, unless TEMPORAL_PROFILE picks another', () => {
    expect(loadTemporalConfig({ TEMPORAL_CONFIG_FILE: file })).toEqual(
      expect.objectContaining({ address: 'localhost:7233', namespace: 'default', tls: false }),
    );
    const prod = loadTemporalConfig({
      TEMPORAL_CONFIG_FILE: file,
      TEMPORAL_PROFILE: 'prod',
      TEMPORAL_TLS_CLIENT_KEY_PATH: '/certs/prod.key',
    });
    expect(prod).toEqual(
      expect.objectContaining({
        address: 'prod.example.com:7233',
        namespace: 'runbooks-prod',
        apiKey: 'prod-key-123456',
      }),
    );
    expect(prod.tls).toEqual(
      expect.objectContaining({
        serverName: 'prod.example.com',
        clientCertPath: '/certs/prod.pem',
        clientKeyPath: '/certs/prod.key',
      }),
    );
    expect(prod.profile).toEqual(expect.objectContaining({ name: 'prod', file }));
  });

  test('the environment overrides the file, field by field', () => {
    const config = loadTemporalConfig({
      TEMPORAL_CONFIG_FILE: file,
      TEMPORAL_PROFILE: 'prod',
      TEMPORAL_ADDRESS: 'other.example.com:7233',
      TEMPORAL_TLS_CLIENT_KEY_PATH: '/certs/prod.key',
    });
    expect(config.address).toBe('other.example.com:7233');
    expect(config.namespace).toBe('runbooks-prod');
    // TEMPORAL_TLS=false against the profile's TLS settings is refused rather than guessed.
    expect(() => loadTemporalConfig({ TEMPORAL_CONFIG_FILE: file, TEMPORAL_PROFILE: 'prod' })).toThrow(
      `profile.prod.tls.client_key_path: is required with its pair`,
    );
    const plain = loadTemporalConfig({ TEMPORAL_CONFIG_FILE: file, TEMPORAL_NAMESPACE: 'ns' });
    expect(plain).toEqual(expect.objectContaining({ address: 'localhost:7233', namespace: 'ns' }));
  });

  test('problems name the profile field or the variable', () => {
    expect(
      variablesOf(() =>
        loadTemporalConfig({ TEMPORAL_CONFIG_FILE: file, TEMPORAL_PROFILE: 'prod', TEMPORAL_TLS: 'false' }),
      ),
    ).toEqual(['profile.prod.tls.client_key_path', 'TEMPORAL_TLS']);
    expect(variablesOf(() => loadTemporalConfig({ TEMPORAL_CONFIG_FILE: file, TEMPORAL_PROFILE: 'staging' }))).toEqual([
      'TEMPORAL_PROFILE',
    ]);
    expect(variablesOf(() => loadTemporalConfig({ TEMPORAL_CONFIG_FILE: `${file}.missing` }))).toEqual([
      'TEMPORAL_CONFIG_FILE',
    ]);
    // Strict parsing: a misspelled field is refused, not ignored.
    const typo = `${file}.typo`;
    writeFileSync(typo, '[profile.default]\nadress = "x:1"\n');
    expect(() => loadTemporalConfig({ TEMPORAL_CONFIG_FILE: typo })).toThrow(/TEMPORAL_CONFIG_FILE: .*adress/);
    expect(variablesOf(() => loadTemporalConfig({ TEMPORAL_CONFIG_FILE: file, TEMPORAL_ADDRESS: 'nohost' }))).toEqual([
      'TEMPORAL_ADDRESS',
    ]);
  });

  test('an unreadable TLS file names its profile field when connecting', () => {
    const config = loadTemporalConfig({
      TEMPORAL_CONFIG_FILE: file,
      TEMPORAL_PROFILE: 'prod',
      TEMPORAL_TLS_CLIENT_KEY_PATH: '/certs/prod.key',
    });
    expect(() => temporalConnectionOptions(config, 'prod.example.com:7233')).toThrow(
      `profile.prod.tls.client_cert_path in ${file}: cannot read /certs/prod.pem: ENOENT`,
    );
    const fromEnv = loadTemporalConfig({
      TEMPORAL_ADDRESS: 'localhost:7233',
      TEMPORAL_TLS_SERVER_CA_CERT_PATH: '/certs/none.pem',
    });
    expect(variablesOf(() => temporalConnectionOptions(fromEnv, 'localhost:7233'))).toEqual([
      'TEMPORAL_TLS_SERVER_CA_CERT_PATH',
    ]);
  });

  test('PEM text from the *_DATA variables is used as given', () => {
    const config = loadTemporalConfig({
      TEMPORAL_ADDRESS: 'localhost:7233',
      TEMPORAL_TLS_SERVER_CA_CERT_DATA: 'ca-pem-text',
    });
    const options = temporalConnectionOptions(config, 'localhost:7233');
    expect(options.tls).toEqual(
      expect.objectContaining({ serverRootCACertificate: new Uint8Array(Buffer.from('ca-pem-text')) }),
    );
  });
});

describe('resolveCredentials', () => {
  const log = pino({ level: 'silent' });
  const service = (extra: Partial<Extract<ServiceConfig, { mode: 'remote' }>>) => ({
    ...(loadServiceConfig(remote) as Extract<ServiceConfig, { mode: 'remote' }>),
    ...extra,
  });

  test('a missing credentials file is created, mode 0600, from the client ID and secret', async () => {
    const file = join(await mkdtemp(join(tmpdir(), 'creds-')), 'credentials.json');
    const resolved = await resolveCredentials(service({ credentialsFile: file }), log);
    expect(resolved).toEqual({
      credentials: { clientId: 'client-1', clientSecret: 'a-long-client-secret' },
      credentialsFile: file,
    });
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual(resolved.credentials);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
  });

  test('an existing file wins over the environment (a rotation has updated it)', async () => {
    const file = join(await mkdtemp(join(tmpdir(), 'creds-')), 'credentials.json');
    await writeFile(file, JSON.stringify({ clientId: 'client-1', clientSecret: 'rotated-secret-value' }), {
      mode: 0o600,
    });
    const resolved = await resolveCredentials(service({ credentialsFile: file }), log);
    expect(resolved.credentials.clientSecret).toBe('rotated-secret-value');
  });

  test('a file of another client, or not the right JSON, is a ConfigError naming the variable', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'creds-'));
    const other = join(dir, 'other.json');
    await writeFile(other, JSON.stringify({ clientId: 'client-2', clientSecret: 'another-secret' }), { mode: 0o600 });
    await expect(resolveCredentials(service({ credentialsFile: other }), log)).rejects.toThrow(
      /BACKUP_CLIENT_ID: is client-1, but .* holds credentials of client-2/,
    );
    const broken = join(dir, 'broken.json');
    await writeFile(broken, '{"clientId": "client-1"}', { mode: 0o600 });
    await expect(resolveCredentials(service({ credentialsFile: broken }), log)).rejects.toThrow(
      /BACKUP_CREDENTIALS_FILE: .* must hold JSON/,
    );
  });
});

describe('secrets in the configuration are redacted wherever they would be logged', () => {
  test('the API key, TLS key data, secret gRPC headers, the client secret and the codec keys', () => {
    const pem = `-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7\n-----END PRIVATE KEY-----\n`;
    const codecKey = Buffer.alloc(32, 7).toString('base64');
    loadTemporalConfig({
      TEMPORAL_ADDRESS: 'temporal.example.com:7233',
      TEMPORAL_API_KEY: 'temporal-api-key-5f1e',
      TEMPORAL_TLS_CLIENT_CERT_DATA: '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n',
      TEMPORAL_TLS_CLIENT_KEY_DATA: pem,
      TEMPORAL_GRPC_META_X_VENDOR_TOKEN: 'vendor-token-77aa',
      TEMPORAL_GRPC_META_X_TENANT: 'tenant-one',
    });
    loadServiceConfig({ ...remote, BACKUP_CLIENT_SECRET: 'service-secret-9c2d' });
    loadConfig({ RUNBOOKS_CODEC_KEY: `k1:${codecKey}` });
    const line = JSON.stringify({
      msg: `connecting with temporal-api-key-5f1e, vendor-token-77aa for tenant-one; secret service-secret-9c2d`,
      key: pem,
      codec: codecKey,
    });
    const out = redact(line);
    for (const secret of ['temporal-api-key-5f1e', 'vendor-token-77aa', 'service-secret-9c2d', codecKey, 'MIIEvQIB']) {
      expect(out).not.toContain(secret);
    }
    // An ordinary header is no secret.
    expect(out).toContain('tenant-one');
  });

  test('a TLS client key read from its file, when connecting', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tls-key-'));
    try {
      const keyLine = 'MC4CAQAwBQYDK2VwBCIEIFileKeyLine0123456789abcdefghijklmnopqrstu';
      await writeFile(join(dir, 'client.key'), `-----BEGIN PRIVATE KEY-----\n${keyLine}\n-----END PRIVATE KEY-----\n`);
      await writeFile(join(dir, 'client.pem'), '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n');
      const config = loadTemporalConfig({
        TEMPORAL_ADDRESS: 'temporal.example.com:7233',
        TEMPORAL_TLS_CLIENT_CERT_PATH: join(dir, 'client.pem'),
        TEMPORAL_TLS_CLIENT_KEY_PATH: join(dir, 'client.key'),
      });
      expect(redact(`line: ${keyLine}`)).toContain(keyLine);
      temporalConnectionOptions(config, 'temporal.example.com:7233');
      expect(redact(`line: ${keyLine}`)).toBe('line: [REDACTED]');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

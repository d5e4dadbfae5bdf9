// Key files readable by the group or others stop the worker and the CLI, naming the variable and the chmod to run;
// RUNBOOKS_REQUIRE_ENCRYPTION stops them without a codec key.
import { spawnSync } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { connectTemporal } from '../../operator/connection';
import { UsageError } from '../../operator/errors';
import {
  allowSharedKeyFiles,
  ConfigError,
  loadCodecKeys,
  loadConfig,
  loadEvidenceKeyFile,
  loadServiceConfig,
  type ServiceConfig,
} from '../../runtime/config';
import { loadOrCreateEvidenceKey } from '../../runtime/evidence-key';
import { sharedModeProblem } from '../../runtime/key-file-permissions';
import { resolveCredentials } from '../../worker/credentials';

const ALLOW = { RUNBOOKS_ALLOW_SHARED_KEY_FILES: 'true' };

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'key-modes-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

/** Writes `content` at `name` with exactly `mode` (whatever the umask). */
async function keyFile(name: string, content: string, mode: number): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, content);
  await chmod(path, mode);
  return path;
}

function configError(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error('expected a ConfigError');
}

const codecKeysJson = () => JSON.stringify({ current: 'k1', keys: { k1: randomBytes(32).toString('base64') } });
const evidencePem = () => generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();

test('only owner-only modes pass; the message says what to run', () => {
  expect(sharedModeProblem('/k', 0o100600)).toBeUndefined();
  expect(sharedModeProblem('/k', 0o100400)).toBeUndefined();
  for (const mode of [0o644, 0o640, 0o604, 0o660]) {
    expect(sharedModeProblem('/k', mode)).toContain('chmod 600 /k');
  }
});

test('a shared codec keys file stops the configuration, naming RUNBOOKS_CODEC_KEYS_FILE; the variable allows it', async () => {
  const path = await keyFile('codec-keys.json', codecKeysJson(), 0o644);
  const err = configError(() => loadCodecKeys({ RUNBOOKS_CODEC_KEYS_FILE: path }));
  expect(err.issues).toEqual([
    { variable: 'RUNBOOKS_CODEC_KEYS_FILE', message: expect.stringContaining(`chmod 600 ${path}`) as string },
  ]);
  expect(err.message).toContain('mode 0644');
  expect(loadCodecKeys({ RUNBOOKS_CODEC_KEYS_FILE: path, ...ALLOW })?.current).toBe('k1');
  await chmod(path, 0o600);
  expect(loadCodecKeys({ RUNBOOKS_CODEC_KEYS_FILE: path })?.current).toBe('k1');
});

test('a shared evidence key stops the configuration, naming RUNBOOKS_EVIDENCE_KEY_FILE', async () => {
  const path = await keyFile('evidence.pem', evidencePem(), 0o640);
  const err = configError(() => loadEvidenceKeyFile({ RUNBOOKS_EVIDENCE_KEY_FILE: path }));
  expect(err.issues[0]?.variable).toBe('RUNBOOKS_EVIDENCE_KEY_FILE');
  expect(err.message).toContain(`chmod 600 ${path}`);
  expect(loadEvidenceKeyFile({ RUNBOOKS_EVIDENCE_KEY_FILE: path, ...ALLOW })).toBe(path);
  // The worker's whole configuration stops on it.
  const whole = configError(() => loadConfig({ RUNBOOKS_EVIDENCE_KEY_FILE: path }));
  expect(whole.issues.map((i) => i.variable)).toEqual(['RUNBOOKS_EVIDENCE_KEY_FILE']);
  expect(loadConfig({ RUNBOOKS_EVIDENCE_KEY_FILE: path, ...ALLOW }).allowSharedKeyFiles).toBe(true);
});

test('the key the worker loads at start is refused too when shared, naming where it comes from', async () => {
  const path = await keyFile('evidence-signing-key.pem', evidencePem(), 0o644);
  await expect(loadOrCreateEvidenceKey(path, { variable: 'RUNBOOKS_DATA_DIR' })).rejects.toThrow(
    `RUNBOOKS_DATA_DIR: ${path} can be read by its group or others (mode 0644): run chmod 600 ${path}`,
  );
  expect((await loadOrCreateEvidenceKey(path, { allowShared: true })).keyId).toMatch(/^[0-9a-f]{16}$/);
});

test('a shared credentials file stops the worker, naming BACKUP_CREDENTIALS_FILE', async () => {
  const remote = {
    BACKUP_SERVICE_URL: 'https://backup.example.com/api',
    BACKUP_PROJECT_ID: '5b1c1f7e-0000-4000-8000-000000000001',
    BACKUP_CLIENT_ID: 'client-1',
  };
  const path = await keyFile(
    'credentials.json',
    JSON.stringify({ clientId: 'client-1', clientSecret: 's3cret' }),
    0o644,
  );
  const service = loadServiceConfig({ ...remote, BACKUP_CREDENTIALS_FILE: path }) as Extract<
    ServiceConfig,
    { mode: 'remote' }
  >;
  const log = pino({ level: 'silent' });
  const refused = await resolveCredentials(service, log, false).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(refused).toBeInstanceOf(ConfigError);
  expect((refused as ConfigError).issues[0]?.variable).toBe('BACKUP_CREDENTIALS_FILE');
  expect((refused as ConfigError).message).toContain(`chmod 600 ${path}`);
  const allowed = await resolveCredentials(service, log, allowSharedKeyFiles(ALLOW));
  expect(allowed.credentials.clientSecret).toBe('s3cret');
});

test('RUNBOOKS_ALLOW_SHARED_KEY_FILES is true or false, nothing else', () => {
  expect(allowSharedKeyFiles({})).toBe(false);
  expect(allowSharedKeyFiles({ RUNBOOKS_ALLOW_SHARED_KEY_FILES: 'false' })).toBe(false);
  expect(configError(() => loadConfig({ RUNBOOKS_ALLOW_SHARED_KEY_FILES: 'yes' })).issues[0]?.variable).toBe(
    'RUNBOOKS_ALLOW_SHARED_KEY_FILES',
  );
});

test('the CLI refuses to start without a codec key when RUNBOOKS_REQUIRE_ENCRYPTION=true (exit code 2)', async () => {
  const cli = await connectTemporal({ RUNBOOKS_REQUIRE_ENCRYPTION: 'true', TEMPORAL_ADDRESS: '127.0.0.1:1' }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(cli).toBeInstanceOf(UsageError);
  expect((cli as UsageError).exitCode).toBe(2);
  expect((cli as UsageError).message).toContain('RUNBOOKS_REQUIRE_ENCRYPTION: is true, but no codec key is configured');
});

test('the CLI refuses a shared codec keys file too', async () => {
  const path = await keyFile('codec-keys.json', codecKeysJson(), 0o644);
  const cli = await connectTemporal({ RUNBOOKS_CODEC_KEYS_FILE: path, TEMPORAL_ADDRESS: '127.0.0.1:1' }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(cli).toBeInstanceOf(UsageError);
  expect((cli as UsageError).message).toContain(`chmod 600 ${path}`);
});

test('the built worker stops at once on a shared key file, with one line naming the variable and the chmod', async () => {
  const codecKeys = await keyFile('codec-keys.json', codecKeysJson(), 0o644);
  const evidenceKey = await keyFile('evidence.pem', evidencePem(), 0o644);
  const worker = join(__dirname, '..', '..', 'dist', 'worker', 'main.js');
  const env = {
    PATH: process.env.PATH,
    RUNBOOKS_DATA_DIR: join(dir, 'data'),
    RUNBOOKS_CODEC_KEYS_FILE: codecKeys,
    RUNBOOKS_EVIDENCE_KEY_FILE: evidenceKey,
  };
  const run = spawnSync(process.execPath, [worker], { env, encoding: 'utf8', timeout: 30_000 });
  // Non-zero, within the spawn's timeout (a hung process would have status null).
  expect(run.status ?? 0).toBeGreaterThan(0);
  expect(run.stderr).toContain(`RUNBOOKS_CODEC_KEYS_FILE: ${codecKeys} can be read by its group or others`);
  expect(run.stderr).toContain(`RUNBOOKS_EVIDENCE_KEY_FILE: ${evidenceKey} can be read by its group or others`);
  expect(run.stderr).toContain(`chmod 600 ${evidenceKey}`);
});

// The CLI reaches Temporal through a TOML profile (TEMPORAL_CONFIG_FILE, TEMPORAL_PROFILE), on a real dev server, and
// a profile's bad TLS file is a usage error naming the profile field.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { connectTemporal } from '../../operator/connection';
import { startTestEnv } from '../helpers/temporal';
import { runCliFromSource } from '../helpers/cli-from-source';

let env: TestWorkflowEnvironment;
let dir: string;
let configFile: string;

/** The environment of a shell with nothing of Temporal's set but the profile; an empty data dir (no address file). */
function cliEnv(extra: Record<string, string>): Record<string, string | undefined> {
  const clean = Object.entries(process.env).filter(([k]) => !k.startsWith('TEMPORAL_') || k.endsWith('_PATH'));
  return {
    ...Object.fromEntries(clean),
    TEMPORAL_ADDRESS: undefined,
    TEMPORAL_CONFIG_FILE: configFile,
    RUNBOOKS_DATA_DIR: join(dir, 'data'),
    RUNBOOKS_DEBUG: '',
    ...extra,
  };
}

function runCli(args: string[], extra: Record<string, string>) {
  return runCliFromSource(args, cliEnv(extra));
}

beforeAll(async () => {
  env = await startTestEnv();
  dir = await mkdtemp(join(tmpdir(), 'temporal-profile-'));
  configFile = join(dir, 'temporal.toml');
  await writeFile(
    configFile,
    [
      '[profile.default]',
      'address = "127.0.0.1:1"',
      '',
      '[profile.dev]',
      `address = "${env.address}"`,
      `namespace = "${env.namespace}"`,
      '',
      '[profile.broken]',
      `address = "${env.address}"`,
      `tls.server_ca_cert_path = "${join(dir, 'missing-ca.pem')}"`,
      '',
    ].join('\n'),
  );
}, 120_000);

afterAll(async () => {
  await env?.teardown();
  if (dir) await rm(dir, { recursive: true, force: true });
});

test('connectTemporal uses the profile TEMPORAL_PROFILE names', async () => {
  const session = await connectTemporal(cliEnv({ TEMPORAL_PROFILE: 'dev' }));
  try {
    expect(session.address).toBe(env.address);
    const info = await session.client.workflowService.getSystemInfo({});
    expect(info.serverVersion).toBeTruthy();
  } finally {
    await session.close();
  }
});

test('runbooks list reaches the dev server through the profile', () => {
  const result = runCli(['list', '--limit', '1'], { TEMPORAL_PROFILE: 'dev' });
  expect(result.stderr).toBe('');
  expect(result.status).toBe(0);
});

test("a profile's unreadable TLS file exits 2 naming the profile field", () => {
  const result = runCli(['list'], { TEMPORAL_PROFILE: 'broken' });
  expect(result.stderr).toContain(`profile.broken.tls.server_ca_cert_path in ${configFile}: cannot read`);
  expect(result.stderr).toContain('ENOENT');
  expect(result.stderr).not.toMatch(/^\s+at .+[:(]/m);
  expect(result.status).toBe(2);
});

test('an unknown profile exits 2 naming TEMPORAL_PROFILE', () => {
  const result = runCli(['list'], { TEMPORAL_PROFILE: 'nope' });
  expect(result.stderr).toContain(`TEMPORAL_PROFILE: no profile 'nope' in ${configFile}`);
  expect(result.status).toBe(2);
});

// `runbooks deployment …` refuses bad input before it connects: these need no Temporal server.
import { runCliFromSource } from '../helpers/cli-from-source';

const env = { ...process.env, RUNBOOKS_DEPLOYMENT_NAME: undefined, TEMPORAL_ADDRESS: '127.0.0.1:1' };

function run(args: string[], extra: Record<string, string> = {}) {
  const { status, stderr } = runCliFromSource(['deployment', ...args], { ...env, ...extra });
  return { status, stderr };
}

test('without RUNBOOKS_DEPLOYMENT_NAME or --deployment there is no deployment to act on', () => {
  for (const args of [['status'], ['promote', 'v2']]) {
    const result = run(args);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('no deployment: set RUNBOOKS_DEPLOYMENT_NAME');
  }
});

test('a bad deployment name, a missing build ID or a ramp out of range are usage errors', () => {
  expect(run(['status', '--deployment', 'backup.runbooks']).stderr).toContain('--deployment must be letters');
  expect(run(['promote'], { RUNBOOKS_DEPLOYMENT_NAME: 'backup-runbooks' }).stderr).toContain('missing <buildId>');
  const ramp = run(['promote', 'v2', '--ramp', '150'], { RUNBOOKS_DEPLOYMENT_NAME: 'backup-runbooks' });
  expect(ramp.status).toBe(2);
  expect(ramp.stderr).toContain('--ramp must be a percentage from 0 to 100');
  expect(run(['rollback']).stderr).toContain("unknown deployment command 'rollback'");
});

test('move needs the build to move from, and takes --to but not --ramp', () => {
  const withName = { RUNBOOKS_DEPLOYMENT_NAME: 'backup-runbooks' };
  expect(run(['move'], withName).stderr).toContain('missing <fromBuildId>');
  const ramp = run(['move', 'v1', '--ramp', '10'], withName);
  expect(ramp.status).toBe(2);
  expect(ramp.stderr).toContain("unknown option '--ramp' for 'deployment move'");
  expect(run(['promote', 'v2', '--to', 'v3'], withName).stderr).toContain(
    "unknown option '--to' for 'deployment promote'",
  );
});

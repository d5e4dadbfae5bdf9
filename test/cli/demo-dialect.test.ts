// `runbooks demo --dialect`: its usage names the option, and a dialect it does not know is a usage error (exit 2)
// before anything starts (TEMPORAL_ADDRESS points nowhere, and no simulator or dev server is started).
import { runCliFromSource } from '../helpers/cli-from-source';

const env = { ...process.env, TEMPORAL_ADDRESS: '127.0.0.1:1' };

test('the demo usage offers --dialect neutral|public', () => {
  const { status, stdout } = runCliFromSource(['demo', '--help'], env);
  expect(status).toBe(0);
  expect(stdout).toContain('[--dialect neutral|public]');
});

test.each([['martian'], ['auto'], ['']])('--dialect %j is a usage error naming the choices', (value) => {
  const { status, stdout, stderr } = runCliFromSource(['demo', '--dialect', value], env);
  expect(stdout).not.toContain('== Starting');
  expect(stderr).toContain(`--dialect must be neutral or public, not '${value}'`);
  expect(status).toBe(2);
});

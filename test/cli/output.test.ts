// `-o, --output text|json` refuses any other format before it connects: no Temporal server needed.
import { outputFormat } from '../../operator/output';
import { UsageError } from '../../operator/errors';
import { runCliFromSource } from '../helpers/cli-from-source';

const env = { ...process.env, TEMPORAL_ADDRESS: '127.0.0.1:1', RUNBOOKS_DEPLOYMENT_NAME: 'backup-runbooks' };

test('text and json are the formats; any other is a usage error naming it and both allowed ones', () => {
  const help = { usage: 'usage: x', text: 'usage: x\n\nX.' };
  expect(outputFormat('text', help)).toBe('text');
  expect(outputFormat('json', help)).toBe('json');
  for (const wrong of ['yaml', 'JSON', '']) {
    expect(() => outputFormat(wrong, help)).toThrow(UsageError);
    expect(() => outputFormat(wrong, help)).toThrow(`--output must be text or json, not '${wrong}'\nusage: x`);
  }
});

test.each([
  [['status', 'some-run', '-o', 'yaml']],
  [['list', '--output', 'yaml']],
  [['approvals', '--json', '-o', 'yaml']],
  [['schedule', 'list', '-o', 'yaml']],
  [['schedule', 'describe', 'nightly', '-o', 'yaml']],
  [['schedule', 'backfill', 'nightly', '--from', '2026-01-01', '--to', '2026-01-02', '-o', 'yaml']],
  [['deployment', 'status', '--output=yaml']],
])('runbooks %j exits 2 naming yaml', (args) => {
  const { status, stdout, stderr } = runCliFromSource(args, env);
  expect(stdout).toBe('');
  expect(stderr).toMatch(/^--output must be text or json, not 'yaml'\nusage: runbooks /);
  expect(status).toBe(2);
});

// IDs of runs and schedules about to be created: nothing that would make a hidden or misleading report file name.
import { startCommand } from '../../cli/workflow-commands';
import { parseCreate } from '../../cli/schedule-create';
import { idArgument, newIdArgument } from '../../operator/args';
import { UsageError } from '../../operator/errors';
import { helpFor } from '../../operator/help';

const HELP = helpFor('start');

test.each([
  ['.hidden', /--id must not start with '\.'/],
  ['team/.hidden', /--id must not start with '\.' \(nor have '\.' after a '\/'\)/],
  ['drill\u202Egnp.lmth', /--id holds U\+202E, a bidirectional formatting character/],
  ['drill\u2066x', /--id holds U\+2066, a bidirectional/],
  ['drill\u200Fx', /--id holds U\+200F, a bidirectional/],
  ['drill\u0085x', /--id holds U\+0085, a control character/],
  ['drill\u0007x', /--id must not hold control characters/],
])('a new ID %j is a usage error naming why', (id, message) => {
  expect(() => newIdArgument(id, '--id', HELP)).toThrow(UsageError);
  expect(() => newIdArgument(id, '--id', HELP)).toThrow(message);
});

test('ordinary IDs pass; an existing ID with a leading dot can still be looked up', () => {
  for (const id of ['drill-nightly', 'team/weekly', 'a..b', 'v1.2']) expect(newIdArgument(id, '--id', HELP)).toBe(id);
  expect(idArgument('.hidden', '<workflowId>', HELP)).toBe('.hidden');
});

test('runbooks start --id and schedule create refuse such an ID before connecting', async () => {
  const started = startCommand(['drDrill', '--input', '{"name":"x"}', '--id', '.x']).then(
    () => undefined,
    (e: unknown) => e,
  );
  const err = await started;
  expect(err).toBeInstanceOf(UsageError);
  expect((err as Error).message).toMatch(/--id must not start with '\.'/);
  expect(() => parseCreate(['.nightly', '--runbook', 'costExport', '--input', '{"window":"previous-day"}'])).toThrow(
    /<scheduleId> must not start with '\.'/,
  );
});

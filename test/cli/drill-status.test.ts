import { statusBlock } from '../../operator/progress';
import type { RunbookStatus } from '../../contracts';

test('`runbooks status` of a drill shows its resources and batches as its batches last reported', () => {
  const status: RunbookStatus = {
    runbook: 'drDrill',
    phase: 'drilling',
    ids: {},
    progress: { done: 120, total: 5000, unit: 'resources' },
    drill: {
      total: 5000,
      done: 120,
      failed: 3,
      running: 40,
      waitingForSlot: 2,
      waitingForVerdict: 1,
      batches: { total: 129, done: 3, running: 2 },
    },
    updatedAt: '2026-11-26T01:00:00.000Z',
  };
  expect(statusBlock(status)).toEqual([
    'phase:       drilling',
    'progress:    [----------] 120/5000 resources',
    'resources:   120 done (3 failed), 40 running, 2 waiting for a snapshot slot, 1 waiting for a verdict, of 5000',
    'batches:     3 done, 2 running, of 129',
    'updated:     2026-11-26T01:00:00.000Z',
  ]);
});

// The control API bounds its inputs: every body is a strict object, numbers have limits, and a refused call changes
// nothing (the clock, the jobs configuration, the policies).
import { type RunningSimulator } from '../../simulator/server';
import { control, errorOf, type Method, simulatorForSuite, stateOf, tokenFor } from './helpers';

let sim: RunningSimulator;

simulatorForSuite({ seed: 9 }, (started) => {
  sim = started;
});

const policy = {
  operations: ['MPA_OPERATION_RESTORE_RESOURCE'],
  requiredApprovals: 2,
  approvalWindowHours: 24,
  executionWindowHours: 24,
};

interface Case {
  method: Method;
  path: string;
  body: unknown;
  field: string;
  /** The problem, when it matters (an unknown key). */
  problem?: string;
}

/** A new policy that differs from a valid one by `change`. */
function policyCase(change: Record<string, unknown>, field: string, problem?: string): Case {
  return { method: 'POST', path: '/policies', body: { ...policy, ...change }, field, ...(problem ? { problem } : {}) };
}

const cases: Case[] = [
  // Clock
  { method: 'POST', path: '/clock/advance', body: { seconds: 1e308 }, field: 'body.seconds' },
  { method: 'POST', path: '/clock/advance', body: { seconds: 315_360_001 }, field: 'body.seconds' },
  { method: 'POST', path: '/clock/advance', body: { seconds: -1 }, field: 'body.seconds' },
  { method: 'POST', path: '/clock/advance', body: { seconds: 'soon' }, field: 'body.seconds' },
  { method: 'POST', path: '/clock/advance', body: {}, field: 'body.seconds' },
  {
    method: 'POST',
    path: '/clock/advance',
    body: { seconds: 60, minutes: 1 },
    field: 'body.minutes',
    problem: 'unrecognized key',
  },
  // Credentials
  {
    method: 'POST',
    path: '/credentials',
    body: { permissions: ['jobs.view'], role: 'admin' },
    field: 'body.role',
    problem: 'unrecognized key',
  },
  { method: 'POST', path: '/credentials', body: { permissions: ['jobs.fly'] }, field: 'body.permissions.0' },
  // Policies
  policyCase({ requiredApprovals: 0 }, 'body.requiredApprovals'),
  policyCase({ requiredApprovals: 21 }, 'body.requiredApprovals'),
  policyCase({ approvalWindowHours: 8761 }, 'body.approvalWindowHours'),
  policyCase({ executionWindowHours: 0 }, 'body.executionWindowHours'),
  policyCase({ approvalWindowHours: 1.5 }, 'body.approvalWindowHours'),
  policyCase({ approvers: 2 }, 'body.approvers', 'unrecognized key'),
  // Reviews
  {
    method: 'POST',
    path: '/action-requests/none/approve',
    body: { reviewerEmail: 'r@example.com', vote: 'yes' },
    field: 'body.vote',
    problem: 'unrecognized key',
  },
  // Jobs configuration
  { method: 'PUT', path: '/jobs/config', body: { backupSeconds: 86_401 }, field: 'body.backupSeconds' },
  { method: 'PUT', path: '/jobs/config', body: { restoreSeconds: -1 }, field: 'body.restoreSeconds' },
  { method: 'PUT', path: '/jobs/config', body: { querySeconds: 1e308 }, field: 'body.querySeconds' },
  { method: 'PUT', path: '/jobs/config', body: { maxConcurrentBackups: 1001 }, field: 'body.maxConcurrentBackups' },
  { method: 'PUT', path: '/jobs/config', body: { outcomes: { 'r-1': 'JOB_COMPLETED' } }, field: 'body.outcomes.r-1' },
  {
    method: 'PUT',
    path: '/jobs/config',
    body: { backupSecond: 5 },
    field: 'body.backupSecond',
    problem: 'unrecognized key',
  },
  // Restore account buckets
  {
    method: 'PUT',
    path: '/restore-accounts/none/buckets',
    body: { buckets: [{ name: 'b-1', region: 'pa-east-1', versioned: true }] },
    field: 'body.buckets.0.versioned',
    problem: 'unrecognized key',
  },
];

test.each(cases)('$method $path $body → 400 naming $field, state unchanged', async (c) => {
  const before = stateOf(sim);
  const reply = await control(sim, c.method, c.path, c.body);
  expect(reply.status).toBe(400);
  const error = errorOf(reply);
  expect(error.startsWith(`invalid ${c.field}: `)).toBe(true);
  if (c.problem) expect(error).toBe(`invalid ${c.field}: ${c.problem}`);
  expect(stateOf(sim)).toEqual(before);
});

test('after a refused 1e308 s advance the clock is where it was, and tokens still work', async () => {
  const token = await tokenFor(sim);
  const offset = sim.ctx.state.clockOffsetMs;
  expect((await control(sim, 'POST', '/clock/advance', { seconds: 1e308 })).status).toBe(400);
  expect(sim.ctx.state.clockOffsetMs).toBe(offset);
  const state = await control(sim, 'GET', '/state');
  expect(Math.abs(Date.parse((state.body as { now: string }).now) - Date.now() - offset)).toBeLessThan(5000);
  expect(Object.keys(sim.ctx.state.tokens)).toContain(token);
  expect(sim.ctx.state.tokens[token]?.expiresAt).toBeGreaterThan(sim.ctx.clock.now());
});

test('the largest allowed advance is accepted; one that would pass the year 9999 is not', async () => {
  const ok = await control(sim, 'POST', '/clock/advance', { seconds: 315_360_000 });
  expect(ok.status).toBe(200);
  const offset = sim.ctx.state.clockOffsetMs;
  // Ten years at a time until the next step would pass 9999: refused, and the clock stays.
  let reply = ok;
  for (let i = 0; i < 1000 && reply.status === 200; i++) {
    reply = await control(sim, 'POST', '/clock/advance', { seconds: 315_360_000 });
  }
  expect(reply.status).toBe(400);
  expect(errorOf(reply)).toBe('invalid body.seconds: the clock would pass the year 9999');
  expect(sim.ctx.state.clockOffsetMs).toBeGreaterThan(offset);
  expect(new Date(sim.ctx.clock.now()).getUTCFullYear()).toBeLessThanOrEqual(9999);
});

test('a valid policy and a valid jobs configuration are accepted (control)', async () => {
  expect((await control(sim, 'POST', '/policies', policy)).status).toBe(201);
  const config = await control(sim, 'PUT', '/jobs/config', { backupSeconds: 86_400, maxConcurrentBackups: 1000 });
  expect(config.status).toBe(200);
  expect(config.body).toMatchObject({ backupSeconds: 86_400, maxConcurrentBackups: 1000 });
});

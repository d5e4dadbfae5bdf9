// Every answer carries the service's clock in its `Date` header, so that a client can measure time windows on it.
import { type RunningSimulator } from '../../simulator/server';
import { call, control, projectPath, type Reply, simulatorForSuite, tokenFor } from './helpers';

let sim: RunningSimulator;
let token: string;

simulatorForSuite({ seed: 11 }, (started, bootstrap) => {
  [sim, token] = [started, bootstrap];
});

const HTTP_DATE =
  /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT$/;
const DAY_MS = 86_400_000;

/** The `Date` header in milliseconds, after checking its format. */
function dateOf(reply: Reply): number {
  const header = reply.headers.date;
  expect(typeof header).toBe('string');
  expect(header).toMatch(HTTP_DATE);
  return Date.parse(String(header));
}

test('after a clock advance, 200, 202, 201, 204, 400, 401, 404 and 503 answers all carry the simulated time', async () => {
  const advanced = await control(sim, 'POST', '/clock/advance', { seconds: 3 * 86_400 });
  expect(advanced.status).toBe(200);
  const now = Date.parse((advanced.body as { now: string }).now);
  expect(now - Date.now()).toBeGreaterThan(3 * DAY_MS - 60_000);
  // The old token expired with the advance.
  token = await tokenFor(sim);

  const resource = Object.values(sim.ctx.state.resources)[0]?.resource;
  const vault = Object.values(sim.ctx.state.vaults).find((v) => v.region === resource?.region);
  const p = projectPath(sim);
  const replies: [number, Reply][] = [
    [200, await call(sim, 'POST', `${p}/vaults/list`, { body: {}, token })],
    [
      202,
      await call(sim, 'POST', `${p}/resources/${resource?.id}/take-snapshot`, {
        body: { vaultId: vault?.id, retentionDays: 1 },
        token,
      }),
    ],
    [201, await control(sim, 'POST', '/credentials', {})],
    [204, await control(sim, 'DELETE', '/policies')],
    [400, await call(sim, 'POST', `${p}/vaults/list?pageSize=0`, { body: {}, token })],
    [401, await call(sim, 'POST', `${p}/vaults/list`, { body: {} })],
    [404, await call(sim, 'GET', '/v1/nowhere', { token })],
  ];
  await control(sim, 'PUT', '/faults', { rate: 1, kinds: ['503'], times: 1 });
  replies.push([503, await call(sim, 'POST', `${p}/vaults/list`, { body: {}, token })]);

  for (const [status, reply] of replies) {
    expect(reply.status).toBe(status);
    // The header has whole seconds; allow for the time the calls took.
    const date = dateOf(reply);
    expect(date).toBeGreaterThanOrEqual(Math.floor(now / 1000) * 1000);
    expect(date).toBeLessThan(now + 30_000);
  }
});

test('the header follows each further advance', async () => {
  const first = dateOf(await control(sim, 'GET', '/health'));
  await control(sim, 'POST', '/clock/advance', { seconds: 3600 });
  const second = dateOf(await control(sim, 'GET', '/health'));
  expect(second - first).toBeGreaterThanOrEqual(3600_000 - 1000);
  expect(second - first).toBeLessThan(3600_000 + 30_000);
});

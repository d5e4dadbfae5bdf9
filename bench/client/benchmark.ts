// The typed client's per-call cost: a GET of one resource and a paged POST (a page of the resource list), each timed
// call by call against raw undici doing the same exchange, interleaved in blocks, the simulator on loopback in its own
// process with no injected latency.
import { fork, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { Pool } from 'undici';
import { BackupServiceClient } from '../../api/client';
import { closeHttpPools, type CallRecord, type HttpCall, type HttpResponse } from '../../api/http';
import { compared, percentile, type Benchmark, type Measurement } from '../measure';
import type { SimulatorAddress } from './simulator-process';

const PAGE_SIZE = 20;
const BLOCK = 100;
const GOAL = { text: 'p50 ≤1.15× raw undici', met: (ratio: number) => ratio <= 1.15 };

type Call = () => Promise<unknown>;

interface Variant {
  name: string;
  get: Call;
  list: Call;
}

function startSimulator(): Promise<{ child: ChildProcess; address: SimulatorAddress }> {
  // No inherited execArgv: a `--cpu-prof` of the benchmark must not profile the simulator too.
  const child = fork(join(__dirname, 'simulator-process.js'), [], {
    execArgv: [],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    child.once('message', (address) => resolve({ child, address: address as SimulatorAddress }));
    child.once('exit', (code) => reject(new Error(`the simulator exited with ${String(code)}`)));
  });
}

/** Raw undici: the same keep-alive settings as the client's pool and the same headers; JSON parsed, nothing checked. */
function rawVariant(address: SimulatorAddress, token: string, resourceId: string): { variant: Variant; pool: Pool } {
  const url = new URL(address.baseUrl);
  const pool = new Pool(url.origin, { connections: 16, keepAliveTimeout: 30_000 });
  const base = `${url.pathname.replace(/\/+$/, '')}/v1/projects/${address.projectId}/resources`;
  const headers = { accept: 'application/json', authorization: `Bearer ${token}` };
  const postHeaders = { ...headers, 'content-type': 'application/json' };
  const exchange = async (options: Parameters<Pool['request']>[0]): Promise<unknown> => {
    const res = await pool.request(options);
    const text = await res.body.text();
    if (res.statusCode !== 200) throw new Error(`raw undici: ${res.statusCode} ${text}`);
    return JSON.parse(text) as unknown;
  };
  const getPath = `${base}/${resourceId}`;
  const listPath = `${base}?pageSize=${PAGE_SIZE}`;
  return {
    pool,
    variant: {
      name: 'raw undici',
      get: () => exchange({ method: 'GET', path: getPath, headers }),
      list: () => exchange({ method: 'POST', path: listPath, headers: postHeaders, body: '{}' }),
    },
  };
}

function typedVariant(name: string, client: BackupServiceClient, resourceId: string): Variant {
  return {
    name,
    get: () => client.getResource(resourceId),
    list: () => client.listResourcesPage({}, { pageSize: PAGE_SIZE }),
  };
}

/** Hooks shaped like the worker's: a counter by endpoint and status, and a span around each call. */
function hooks() {
  const counts = new Map<string, number>();
  const spans: { name: string; ms: number }[] = [];
  return {
    onCall: (call: CallRecord) => {
      const key = `${call.endpoint} ${call.status}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
    },
    around: async (call: HttpCall, send: () => Promise<HttpResponse>) => {
      const began = performance.now();
      try {
        return await send();
      } finally {
        if (spans.push({ name: call.endpoint, ms: performance.now() - began }) > 1000) spans.length = 0;
      }
    },
  };
}

async function timeBlock(call: Call, n: number, into: number[]): Promise<void> {
  for (let i = 0; i < n; i++) {
    const began = performance.now();
    await call();
    into.push((performance.now() - began) * 1000);
  }
}

export const clientBenchmark: Benchmark = {
  name: 'client',
  async run({ quick, log }) {
    const calls = quick ? 500 : 2000;
    const rounds = calls / BLOCK;
    const { child, address } = await startSimulator();
    let raw: Pool | undefined;
    try {
      const options = { baseUrl: address.baseUrl, projectId: address.projectId, credentials: address };
      const typed = new BackupServiceClient(options);
      const hooked = new BackupServiceClient({ ...options, tokenProvider: typed.tokens, ...hooks() });
      const first = (await typed.listResourcesPage({}, { pageSize: 1 })).resources[0];
      if (!first) throw new Error('the simulator has no resources');
      const made = rawVariant(address, await typed.tokens.getToken(), first.id);
      raw = made.pool;
      const variants = [made.variant, typedVariant('typed client', typed, first.id)];
      variants.push(typedVariant('typed client + onCall/around hooks', hooked, first.id));

      const ops = ['get', 'list'] as const;
      const samples = ops.map(() => variants.map((): number[] => []));
      // Untimed: JIT, connections and the simulator's own warm-up.
      for (const op of ops) for (const v of variants) await timeBlock(v[op], quick ? 200 : 500, []);
      for (let round = 0; round < rounds; round++) {
        // Interleaved blocks (raw, typed, hooked, raw, …): drift on a shared machine lands on every variant alike.
        // Each round starts one variant later, so that none always runs right after the same other.
        for (const [o, op] of ops.entries()) {
          for (let k = 0; k < variants.length; k++) {
            const i = (round + k) % variants.length;
            const v = variants[i];
            if (v) await timeBlock(v[op], BLOCK, samples[o]?.[i] ?? []);
          }
        }
      }

      const labels = { get: 'GET one resource', list: `paged POST, ${PAGE_SIZE} resources` };
      const notes = `${calls} calls each, ${rounds} interleaved rounds of ${BLOCK}, sequential, simulator in its own process`;
      const out: Measurement[] = [];
      for (const [o, op] of ops.entries()) {
        const [base, ...others] = samples[o] ?? [];
        if (!base) continue;
        const p50 = percentile(base, 50);
        const p99 = percentile(base, 99);
        log(`${labels[op]}: raw undici p50 ${p50.toFixed(0)} µs, p99 ${p99.toFixed(0)} µs`);
        for (const [i, mine] of others.entries()) {
          const name = variants[i + 1]?.name ?? '';
          const baseline = (value: number) => ({ name: 'raw undici', value });
          out.push(
            compared(`${labels[op]}, ${name}, p50`, 'µs', percentile(mine, 50), baseline(p50), GOAL, notes),
            compared(`${labels[op]}, ${name}, p99`, 'µs', percentile(mine, 99), baseline(p99), undefined, notes),
          );
        }
      }
      return out;
    } finally {
      await raw?.close();
      await closeHttpPools();
      child.disconnect();
    }
  },
};

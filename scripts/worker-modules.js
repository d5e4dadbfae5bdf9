// What the built production worker loads: `npm run build && node scripts/worker-modules.js [repo] [--runs N]
// [--embedded] [--list]`. It runs `node dist/worker/main.js` (of this repository, or of `repo`) configured for a real
// service and a real Temporal, both at closed ports, with one attempt to connect (RUNBOOKS_TEMPORAL_CONNECT_TIMEOUT_MS=0)
// and a prebuilt bundle it never reads: the worker loads what it loads in production up to its connection, then exits
// with `cannot reach Temporal`. `--embedded` leaves the service unset, so the worker starts the simulator it embeds.
//
// It prints the modules loaded (all, ours under dist/, the simulator's, Fastify's, sql.js's and webpack's), the time
// and the CPU time from the process's start to the end of main.js's synchronous start-up (its modules loaded, the
// configuration read, Temporal's Runtime installed) and the RSS then, each the median of the runs.
'use strict';

const { spawnSync } = require('node:child_process');
const { mkdtempSync, readFileSync, rmSync, writeFileSync } = require('node:fs');
const { createServer } = require('node:net');
const { tmpdir } = require('node:os');
const { join, resolve, sep } = require('node:path');

const PRELOAD = `
const { writeFileSync } = require('node:fs');
const { performance } = require('node:perf_hooks');
let sync;
setImmediate(() => {
  const cpu = process.cpuUsage();
  sync = {
    ms: performance.now(),
    cpuMs: (cpu.user + cpu.system) / 1000,
    modules: Object.keys(require.cache).length,
    rssMb: process.memoryUsage().rss / 2 ** 20,
  };
});
process.on('exit', () => {
  const modules = Object.keys(require.cache).filter((m) => m !== __filename);
  writeFileSync(process.env.MODULES_OUT, JSON.stringify({ sync, modules }));
});
`;

function parseArgs(argv) {
  const options = { root: resolve(__dirname, '..'), runs: 5, embedded: false, list: false };
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i];
    if (arg === '--runs') options.runs = Number(argv[(i += 1)]);
    else if (arg === '--embedded') options.embedded = true;
    else if (arg === '--list') options.list = true;
    else if (!arg.startsWith('-')) options.root = resolve(arg);
    else throw new Error(`unknown option ${arg}`);
  }
  if (!Number.isInteger(options.runs) || options.runs < 1) throw new Error('--runs takes a positive integer');
  return options;
}

/** A port nothing listens on (taken, then released). */
function closedPort() {
  return new Promise((done, fail) => {
    const server = createServer();
    server.on('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => done(port));
    });
  });
}

/**
 * The variables (PATH the only one inherited) of a worker that lists its modules into `modulesOut` on exit and stops at
 * its one attempt to reach a Temporal at a closed port; its bundle, `<dir>/workflow-bundle.js`, is never read.
 * test/worker/lean-worker.test.ts runs the worker from its sources with them.
 */
async function moduleListingEnv(dir, modulesOut, dataDir) {
  return {
    PATH: process.env.PATH ?? '',
    HOME: dir,
    MODULES_OUT: modulesOut,
    TEMPORAL_ADDRESS: `127.0.0.1:${await closedPort()}`,
    RUNBOOKS_TEMPORAL_CONNECT_TIMEOUT_MS: '0',
    RUNBOOKS_WORKFLOW_BUNDLE: join(dir, 'workflow-bundle.js'),
    RUNBOOKS_DATA_DIR: dataDir,
  };
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)];

async function runOnce(options, dir, index) {
  const out = join(dir, `modules-${index}.json`);
  const env = { ...(await moduleListingEnv(dir, out, join(dir, `data-${index}`))), LOG_LEVEL: 'warn' };
  if (!options.embedded) {
    Object.assign(env, {
      BACKUP_SERVICE_URL: `http://127.0.0.1:${await closedPort()}`,
      BACKUP_PROJECT_ID: 'p-measure',
      BACKUP_CLIENT_ID: 'measure',
      BACKUP_CLIENT_SECRET: 'measure-secret',
    });
  }
  const main = join(options.root, 'dist', 'worker', 'main.js');
  const started = process.hrtime.bigint();
  const result = spawnSync(process.execPath, ['-r', join(dir, 'preload.js'), main], {
    cwd: options.root,
    env,
    encoding: 'utf8',
    timeout: 120_000,
  });
  const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
  if (result.status !== 1 || !/cannot reach Temporal/.test(result.stderr)) {
    throw new Error(`${main} exited ${result.status} without 'cannot reach Temporal':\n${result.stderr}`);
  }
  return { ...JSON.parse(readFileSync(out, 'utf8')), wallMs };
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  const dir = mkdtempSync(join(tmpdir(), 'worker-modules-'));
  try {
    writeFileSync(join(dir, 'preload.js'), PRELOAD);
    writeFileSync(join(dir, 'workflow-bundle.js'), '');
    const runs = [];
    for (let i = 0; i < options.runs; i += 1) runs.push(await runOnce(options, dir, i));
    const { modules } = runs[runs.length - 1];
    const dist = join(options.root, 'dist') + sep;
    const count = (fragment) => modules.filter((m) => m.includes(fragment)).length;
    const nodeModules = (name) => count(`${sep}node_modules${sep}${name}${sep}`);
    const figures = {
      worker: join(options.root, 'dist', 'worker', 'main.js'),
      mode: options.embedded ? 'embedded simulator (BACKUP_SERVICE_URL unset)' : 'production (BACKUP_SERVICE_URL set)',
      runs: options.runs,
      modulesAtExit: modules.length,
      ours: count(dist),
      simulator: count(join(dist, 'simulator') + sep),
      devServerStarter: count(join(dist, 'worker', 'dev-server.js')),
      fastify: nodeModules('fastify'),
      sqlJs: nodeModules('sql.js'),
      webpack: nodeModules('webpack'),
      // The preload is among the modules counted at the first tick, not at exit.
      modulesAtSyncEnd: median(runs.map((r) => r.sync.modules - 1)),
      syncStartupMs: Math.round(median(runs.map((r) => r.sync.ms))),
      // CPU time (user and system, all threads) to the same point: less sensitive than the clock to a busy machine.
      syncStartupCpuMs: Math.round(median(runs.map((r) => r.sync.cpuMs))),
      rssAtSyncEndMb: Math.round(median(runs.map((r) => r.sync.rssMb))),
      wallToExitMs: Math.round(median(runs.map((r) => r.wallMs))),
    };
    process.stdout.write(`${JSON.stringify(figures, null, 2)}\n`);
    if (options.list) process.stdout.write(`${modules.join('\n')}\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

module.exports = { closedPort, moduleListingEnv };

if (require.main === module) {
  main().catch((err) => {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}

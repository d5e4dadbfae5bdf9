// No Docker engine runs the tests: this checks the deployment's structure instead of running it.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { RunbookMetric, SEARCH_ATTRIBUTE_KEYS } from '../../contracts';
import { loadConfig } from '../../runtime/config';
import { parseSimulatorFlags } from '../../simulator/command';
import { startSimulator } from '../../simulator/server';
import { CONFIG_NAMES, unread } from './config-names';
import { ComposeRefusal, interpolate as interpolateValue } from './image-layout';

const ROOT = join(__dirname, '..', '..');
const LOOPBACK_PORT = /^127\.0\.0\.1:\d+:\d+$/;
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

interface HealthCheck {
  test: string | string[];
}
interface Service {
  image?: string;
  build?: string | { context: string };
  command?: string[];
  entrypoint?: string[];
  environment?: Record<string, string>;
  volumes?: string[];
  healthcheck?: HealthCheck;
  ports?: string[];
  depends_on?: Record<string, { condition: string }>;
  deploy?: { replicas?: number };
}
interface Compose {
  services: Record<string, Service>;
  volumes?: Record<string, unknown>;
}

const compose = parse(read('docker-compose.yml')) as Compose;

function service(name: string): Service {
  const found = compose.services[name];
  if (!found) throw new Error(`docker-compose.yml has no service ${name}`);
  return found;
}

/** What compose makes of `${NAME:-default}` and `${NAME}` with the shell's `variables`. */
function interpolate(env: Record<string, string>, variables: Record<string, string> = {}): Record<string, string> {
  return Object.fromEntries(
    Object.entries(env).map(([key, value]) => [
      key,
      value.replace(/\$\{([A-Z0-9_]+)(?::-([^}]*))?\}/g, (_, name: string, fallback?: string) => {
        return variables[name] || (fallback ?? '');
      }),
    ]),
  );
}

const worker = service('worker');
const workerEnv = interpolate(worker.environment ?? {});

describe('docker-compose.yml', () => {
  it('names every service of the deployment', () => {
    expect(Object.keys(compose.services).sort()).toEqual(
      [
        'grafana',
        'postgresql',
        'prometheus',
        'simulator',
        'temporal',
        'temporal-register',
        'temporal-schema',
        'temporal-ui',
        'worker',
      ].sort(),
    );
  });

  it('runs Temporal 1.32 (the dev server tests use) on PostgreSQL, and builds the runbooks from this directory', () => {
    expect(service('postgresql').image).toMatch(/^postgres:\d+/);
    expect(service('temporal').image).toMatch(/^temporalio\/server:1\.32\.\d+$/);
    expect(service('temporal-schema').image).toMatch(/^temporalio\/admin-tools:1\.32\.\d+$/);
    expect(service('temporal-register').image).toMatch(/^temporalio\/admin-tools:1\.32\.\d+$/);
    expect(service('temporal-ui').image).toMatch(/^temporalio\/ui:/);
    expect(service('prometheus').image).toMatch(/^prom\/prometheus:/);
    expect(service('grafana').image).toMatch(/^grafana\/grafana:/);
    for (const name of ['simulator', 'worker']) {
      expect(service(name).build).toBe('.');
      expect(service(name).image).toBe(service('simulator').image);
    }
    expect(service('temporal').environment).toMatchObject({ DB: 'postgres12', POSTGRES_SEEDS: 'postgresql' });
  });

  it('gives every long-running service a healthcheck', () => {
    for (const name of ['postgresql', 'temporal', 'temporal-ui', 'simulator', 'worker', 'prometheus', 'grafana']) {
      const test = service(name).healthcheck?.test;
      expect([name, Array.isArray(test) && ['CMD', 'CMD-SHELL'].includes(test[0] ?? '')]).toEqual([name, true]);
    }
    expect(service('worker').healthcheck?.test).toEqual(['CMD', 'node', 'dist/worker/healthcheck.js']);
    expect(existsSync(join(ROOT, 'worker', 'healthcheck.ts'))).toBe(true);
    expect(JSON.stringify(service('simulator').healthcheck?.test)).toContain('/_simulator/health');
  });

  it('starts each service after what it needs, with conditions', () => {
    const deps = (name: string) => service(name).depends_on;
    expect(deps('temporal-schema')).toEqual({ postgresql: { condition: 'service_healthy' } });
    expect(deps('temporal')).toEqual({ 'temporal-schema': { condition: 'service_completed_successfully' } });
    expect(deps('temporal-register')).toEqual({ temporal: { condition: 'service_healthy' } });
    expect(deps('temporal-ui')).toEqual({ temporal: { condition: 'service_healthy' } });
    expect(deps('worker')).toEqual({
      'temporal-register': { condition: 'service_completed_successfully' },
      simulator: { condition: 'service_healthy' },
    });
    expect(deps('grafana')).toEqual({ prometheus: { condition: 'service_healthy' } });
    // Every dependency is a service of this file.
    for (const s of Object.values(compose.services)) {
      for (const dep of Object.keys(s.depends_on ?? {})) expect(Object.keys(compose.services)).toContain(dep);
    }
  });

  it('sets up the schema and registers the namespace and every search attribute the runbooks set', () => {
    const script = (name: string) => {
      const command = service(name).command ?? [];
      const inContainer = command[command.length - 1] ?? '';
      expect(inContainer).toMatch(/^\/deploy\//);
      return read(join('deploy/temporal', inContainer.slice('/deploy/'.length)));
    };
    const schema = script('temporal-schema');
    expect(schema).toContain('temporal-sql-tool --plugin postgres12');
    expect(schema).toMatch(/--db temporal update-schema/);
    expect(schema).toMatch(/--db temporal_visibility update-schema/);
    const register = script('temporal-register');
    expect(register).toContain('temporal operator namespace create');
    expect(register).toContain('--type Keyword');
    for (const key of SEARCH_ATTRIBUTE_KEYS) expect(register).toMatch(new RegExp(`\\b${key.name}\\b`));
    expect(service('temporal-register').environment).toMatchObject({
      TEMPORAL_ADDRESS: workerEnv.TEMPORAL_ADDRESS,
      TEMPORAL_NAMESPACE: workerEnv.TEMPORAL_NAMESPACE,
    });
  });

  it('mounts only files and folders that exist, and named volumes it declares', () => {
    for (const [name, s] of Object.entries(compose.services)) {
      for (const volume of s.volumes ?? []) {
        const source = volume.split(':')[0] ?? '';
        if (source.startsWith('./')) expect([name, existsSync(join(ROOT, source))]).toEqual([name, true]);
        else expect([name, Object.keys(compose.volumes ?? {})]).toEqual([name, expect.arrayContaining([source])]);
      }
    }
  });

  it('publishes every port on 127.0.0.1 only', () => {
    const published = Object.entries(compose.services).flatMap(([name, s]) => (s.ports ?? []).map((p) => [name, p]));
    expect(published.length).toBeGreaterThanOrEqual(5);
    for (const [name, port] of published) expect([name, port]).toEqual([name, expect.stringMatching(LOOPBACK_PORT)]);
  });

  it('gives Grafana no anonymous access and an admin password from the shell, without which compose refuses', () => {
    const grafana = service('grafana').environment ?? {};
    expect(grafana.GF_AUTH_ANONYMOUS_ENABLED).toBe('false');
    expect(grafana.GF_AUTH_ANONYMOUS_ORG_ROLE).toBeUndefined();
    expect(grafana.GF_USERS_ALLOW_SIGN_UP).toBe('false');
    const password = grafana.GF_SECURITY_ADMIN_PASSWORD ?? '';
    expect(() => interpolateValue(password, {})).toThrow(ComposeRefusal);
    expect(() => interpolateValue(password, { GRAFANA_ADMIN_PASSWORD: '' })).toThrow(/GRAFANA_ADMIN_PASSWORD/);
    expect(interpolateValue(password, { GRAFANA_ADMIN_PASSWORD: 'from-the-shell' })).toBe('from-the-shell');
  });

  it('shares one evidence key on the volume, and replaces the workers in place (auto-upgrade)', () => {
    const shared = (worker.volumes ?? []).map((v) => v.split(':')[1] ?? '');
    const keyFile = workerEnv.RUNBOOKS_EVIDENCE_KEY_FILE ?? '';
    expect(shared.some((dir) => keyFile.startsWith(`${dir}/`))).toBe(true);
    expect(workerEnv.RUNBOOKS_VERSIONING).toBe('auto-upgrade');
  });

  it('lets the workers finish their grace time before Docker kills them', () => {
    const period = /^(\d+)s$/.exec((worker as { stop_grace_period?: string }).stop_grace_period ?? '');
    const grace = Number(workerEnv.RUNBOOKS_SHUTDOWN_GRACE_TIME_MS);
    expect(grace).toBeGreaterThan(0);
    // The worker exits at most 5 s after its grace time (worker/main.ts).
    expect(Number(period?.[1]) * 1000).toBeGreaterThanOrEqual(grace + 5_000);
  });

  it('runs two worker replicas', () => {
    expect(worker.deploy?.replicas).toBe(2);
  });

  it('gives the workers only variables runtime/config/ reads, and a configuration it accepts', () => {
    expect(CONFIG_NAMES.size).toBeGreaterThan(10);
    expect(unread(Object.keys(workerEnv), workerEnv)).toEqual([]);
    const config = loadConfig(workerEnv);
    expect(config.temporal.address).toBe('temporal:7233');
    expect(config.workflowBundle).toBe('/app/dist/workflow-bundle.js');
    expect(config.service).toMatchObject({ mode: 'remote', baseUrl: 'http://simulator:8080' });
  });

  it('versions the workers: one deployment, a build ID from the bundle unless the shell names the release', () => {
    expect(loadConfig(workerEnv).versioning).toMatchObject({ deploymentName: 'backup-runbooks', buildId: undefined });
    const named = interpolate(worker.environment ?? {}, { RUNBOOKS_BUILD_ID: '2026.11.2' });
    expect(loadConfig(named).versioning).toMatchObject({ deploymentName: 'backup-runbooks', buildId: '2026.11.2' });
  });

  it('runs the simulator with flags it has, where the workers look for it', () => {
    const command = service('simulator').command ?? [];
    expect(command.slice(0, 3)).toEqual(['node', 'dist/cli/main.js', 'simulator']);
    const flags = parseSimulatorFlags(command.slice(3));
    expect(flags.options).toMatchObject({ host: '0.0.0.0', dataDir: '/data' });
    expect(workerEnv.BACKUP_SERVICE_URL).toBe(`http://simulator:${flags.options.port}`);
  });

  it("hands the workers the simulator's project and bootstrap credentials, and shares the credentials file", async () => {
    const simEnv = service('simulator').environment ?? {};
    expect(workerEnv.BACKUP_CLIENT_ID).toBe(simEnv.SIMULATOR_CLIENT_ID);
    expect(workerEnv.BACKUP_CLIENT_SECRET).toBe(simEnv.SIMULATOR_CLIENT_SECRET);
    const flags = parseSimulatorFlags((service('simulator').command ?? []).slice(3));
    const sim = await startSimulator({ ...flags.options, host: '127.0.0.1', port: 0, dataDir: undefined });
    try {
      expect(workerEnv.BACKUP_PROJECT_ID).toBe(sim.projectId);
    } finally {
      await sim.close();
    }
    // The credentials file (with its lock) and the output live on one volume every replica mounts.
    const shared = (worker.volumes ?? []).map((v) => v.split(':')[1] ?? '');
    for (const variable of ['BACKUP_CREDENTIALS_FILE', 'RUNBOOKS_OUTPUT_DIR']) {
      expect([variable, shared.some((dir) => (workerEnv[variable] ?? '').startsWith(`${dir}/`))]).toEqual([
        variable,
        true,
      ]);
    }
    // The data directory (heartbeat, address files) stays each replica's own.
    expect(shared.some((dir) => (workerEnv.RUNBOOKS_DATA_DIR ?? '').startsWith(`${dir}/`))).toBe(false);
  });

  it('has Prometheus scrape every worker replica on the metrics port and load the alert rules', () => {
    const metricsPort = (workerEnv.RUNBOOKS_METRICS_ADDRESS ?? '').split(':')[1];
    expect(metricsPort).toBe('9464');
    // The folder holds the configuration and the rules it loads, at the image's default configuration path.
    const mount = (service('prometheus').volumes ?? []).find((v) => v.endsWith(':/etc/prometheus:ro'));
    expect(mount?.split(':')[0]).toBe('./deploy/prometheus');
    const prometheus = parse(read('deploy/prometheus/prometheus.yml')) as {
      rule_files?: string[];
      scrape_configs: { job_name: string; dns_sd_configs?: { names: string[]; type: string; port: number }[] }[];
    };
    expect(prometheus.rule_files).toEqual(['rules.yml']);
    expect(existsSync(join(ROOT, 'deploy/prometheus/rules.yml'))).toBe(true);
    const targets = prometheus.scrape_configs.flatMap((c) => c.dns_sd_configs ?? []);
    expect(targets).toContainEqual(
      expect.objectContaining({ names: ['worker'], type: 'A', port: Number(metricsPort) }),
    );
  });

  it('provisions Grafana with the Prometheus datasource and a dashboard of the runbook metrics', () => {
    const volumes = service('grafana').volumes ?? [];
    expect(volumes).toContain('./deploy/grafana/provisioning:/etc/grafana/provisioning:ro');
    const datasources = parse(read('deploy/grafana/provisioning/datasources/prometheus.yml')) as {
      datasources: { uid: string; type: string; url: string }[];
    };
    expect(datasources.datasources).toEqual([
      expect.objectContaining({ uid: 'prometheus', type: 'prometheus', url: 'http://prometheus:9090' }),
    ]);
    const providers = parse(read('deploy/grafana/provisioning/dashboards/runbooks.yml')) as {
      providers: { options: { path: string } }[];
    };
    const dashboardsDir = providers.providers[0]?.options.path;
    const dashboardsMount = volumes.find((v) => v.split(':')[1] === dashboardsDir);
    expect(dashboardsMount?.split(':')[0]).toBe('./deploy/grafana/dashboards');

    const dashboard = JSON.parse(read('deploy/grafana/dashboards/runbooks.json')) as {
      panels: { title: string; datasource: { uid: string }; targets: { expr: string }[] }[];
    };
    const exprs = dashboard.panels.flatMap((p) => p.targets.map((t) => t.expr)).join('\n');
    for (const metric of [
      'runbooks_runs_started_total',
      'runbooks_runs_finished_total{outcome="completed"}',
      'runbooks_runs_finished_total{outcome="failed"}',
      'runbooks_approval_wait_seconds_bucket',
      'runbooks_exported_rows_total',
      'sum by (status) (rate(runbooks_service_calls_total',
      'runbooks_service_throttled_total',
    ]) {
      expect(exprs).toContain(metric);
    }
    // Every drill and plan gauge is shown; each worker holds the gauges of the runs it wrote, so every panel that reads
    // a run's figures keeps only the worker that wrote the drill's (or the plan's) newest run.
    const families = [
      { prefix: 'runbooks_drill_', label: 'drill', lastRun: RunbookMetric.drillLastRun },
      { prefix: 'runbooks_plan_', label: 'plan', lastRun: RunbookMetric.planLastRun },
    ];
    for (const { prefix, label, lastRun } of families) {
      const gauges = Object.values(RunbookMetric).filter((m) => m.startsWith(prefix));
      expect(gauges.length).toBeGreaterThanOrEqual(7);
      const newestRun = `and on (instance, ${label}) (${lastRun} == on (${label}) group_left () max by (${label}) (${lastRun}))`;
      for (const metric of gauges) {
        const reading = dashboard.panels.flatMap((p) => p.targets.map((t) => t.expr)).filter((e) => e.includes(metric));
        expect([metric, reading.length > 0]).toEqual([metric, true]);
        if (metric !== lastRun) for (const expr of reading) expect(expr).toContain(newestRun);
      }
    }
    expect(exprs).not.toMatch(/\b(resource|step)\b[=,)]/);
    for (const panel of dashboard.panels) expect(panel.datasource.uid).toBe('prometheus');
  });
});

/** Dockerfile instructions: continuation lines joined, comments dropped. */
function instructions(text: string): { op: string; args: string }[] {
  return text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const [op = '', ...rest] = line.split(/\s+/);
      return { op: op.toUpperCase(), args: rest.join(' ') };
    });
}

describe('Dockerfile', () => {
  const all = instructions(read('Dockerfile'));
  const stages: { from: string; name: string; lines: { op: string; args: string }[] }[] = [];
  for (const line of all) {
    if (line.op === 'FROM') {
      const [from = '', , name = ''] = line.args.split(/\s+/);
      stages.push({ from, name, lines: [] });
    } else {
      stages[stages.length - 1]?.lines.push(line);
    }
  }
  const final = stages[stages.length - 1];
  const stage = (name: string) => stages.find((s) => s.name === name);
  const args = (lines: { op: string; args: string }[] | undefined, op: string) =>
    (lines ?? []).filter((l) => l.op === op).map((l) => l.args);

  it('builds in stages on Node 24 (the current LTS) slim', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    for (const s of stages) expect(s.from).toBe('node:24-slim');
    expect(args(stage('build')?.lines, 'RUN')).toContainEqual(expect.stringMatching(/^npm ci\b/));
    expect(args(stage('build')?.lines, 'RUN')).toContainEqual(expect.stringMatching(/^npm run build\b/));
  });

  it('copies every source folder the build compiles', () => {
    const include = (JSON.parse(read('tsconfig.build.json')) as { include: string[] }).include;
    // Every source of each COPY (the last word is the destination).
    const copied = args(stage('build')?.lines, 'COPY').flatMap((a) => a.split(/\s+/).slice(0, -1));
    expect(copied).toEqual(expect.arrayContaining([...include, 'tsconfig.json', 'tsconfig.build.json']));
  });

  it('prebuilds the workflow bundle where RUNBOOKS_WORKFLOW_BUNDLE points', () => {
    const bundleStep = args(stage('build')?.lines, 'RUN').find((a) => a.includes('bundle-workflows.js'));
    expect(bundleStep).toBe('node dist/worker/bundle-workflows.js dist/workflow-bundle.js');
    expect(existsSync(join(ROOT, 'worker', 'bundle-workflows.ts'))).toBe(true);
    const workdir = args(final?.lines, 'WORKDIR')[0];
    expect(args(final?.lines, 'ENV').join(' ')).toContain(
      `RUNBOOKS_WORKFLOW_BUNDLE=${workdir}/dist/workflow-bundle.js`,
    );
    expect(args(final?.lines, 'COPY')).toContain('--from=build /app/dist ./dist');
  });

  it('ships production dependencies only', () => {
    const installs = stages.flatMap((s) => args(s.lines, 'RUN')).filter((a) => a.startsWith('npm ci'));
    expect(installs).toContainEqual(expect.stringContaining('--omit=dev'));
    const fromDeps = args(final?.lines, 'COPY').find((a) => a.includes('node_modules'));
    const depsStage = stages.find((s) => fromDeps?.startsWith(`--from=${s.name} `));
    expect(args(depsStage?.lines, 'RUN').some((a) => a.includes('npm ci --omit=dev'))).toBe(true);
  });

  it('runs as a non-root user, with a healthcheck, the worker by default', () => {
    const user = args(final?.lines, 'USER');
    expect(user).toHaveLength(1);
    expect(user[0]).not.toMatch(/^(root|0)(:|$)/);
    // The user is set before the command, and nothing after it runs as root.
    const ops = final?.lines.map((l) => l.op) ?? [];
    expect(ops.slice(ops.indexOf('USER')).filter((op) => op === 'RUN')).toEqual([]);
    expect(args(final?.lines, 'HEALTHCHECK')[0]).toMatch(/CMD \["node", "dist\/worker\/healthcheck\.js"\]$/);
    expect(args(final?.lines, 'CMD')).toEqual(['["node", "dist/worker/main.js"]']);
  });

  it('sets only variables runtime/config/ reads', () => {
    const names = args(final?.lines, 'ENV')
      .flatMap((a) => a.split(/\s+/))
      .map((pair) => pair.split('=')[0] ?? '')
      .filter((name) => name !== 'NODE_ENV');
    expect(names.length).toBeGreaterThan(0);
    expect(unread(names)).toEqual([]);
  });

  it('keeps host builds, tools and state out of the build context', () => {
    const ignored = read('.dockerignore')
      .split('\n')
      .map((l) => l.trim());
    expect(ignored).toEqual(expect.arrayContaining(['node_modules', 'dist', '.tools', '.data', '.git', 'coverage']));
  });
});

// The Helm chart, linted and rendered by a real helm (scripts/ensure-helm.js), with its default values and with the
// production example: the manifests give the worker only variables it reads, in a configuration it accepts with the
// Secrets mounted as Kubernetes mounts them, and the values that would break a deployment are refused.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, posix } from 'node:path';
import { parse } from 'yaml';
import { loadConfig, loadVersioningConfig } from '../../runtime/config';
import { HEALTH_PATHS } from '../../worker/health-server';
import { foldersOf } from '../../worker/stack';
import { unread } from './config-names';
import {
  CHART,
  containerEnv,
  manifestsOf,
  only,
  PRODUCTION_VALUES,
  render,
  ROOT,
  runHelm,
  workerOf,
  type Manifest,
} from './helm-chart';
import { rooted, runtimeImage } from './image-layout';

const IMAGE = runtimeImage(readFileSync(join(ROOT, 'Dockerfile'), 'utf8'));
/** The scrape job of the workers in the shipped Prometheus configuration, which the alert rules select. */
const WORKERS_JOB = (
  parse(readFileSync(join(ROOT, 'deploy/prometheus/prometheus.yml'), 'utf8')) as {
    scrape_configs: { job_name: string }[];
  }
).scrape_configs[0]?.job_name;
/** Variables that hold secrets: never in a ConfigMap, only from a Secret. */
const SECRET_VARIABLES = [
  'BACKUP_CLIENT_ID',
  'BACKUP_CLIENT_SECRET',
  'TEMPORAL_API_KEY',
  'RUNBOOKS_CODEC_KEY',
  'RUNBOOKS_WEBHOOK_URL',
  'RUNBOOKS_WEBHOOK_SECRET',
  'RUNBOOKS_CODEC_SERVER_TOKEN',
];

let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'helm-chart-'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** What a Secret's key holds in these tests: a file the worker accepts, by the name the chart mounts it under. */
function secretFile(key: string): string {
  if (key.endsWith('.pem'))
    return generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  if (key.startsWith('codec'))
    return JSON.stringify({ current: 'k1', keys: { k1: randomBytes(32).toString('base64') } });
  if (key.startsWith('webhooks'))
    return JSON.stringify([{ url: 'https://hooks.example.com/r', secret: 'a'.repeat(32) }]);
  return `${key} of the test\n`;
}

/**
 * The pod's file system under `dir`: each Secret volume's items written where the container mounts them, mode 0440 as
 * Kubernetes leaves them with fsGroup set; and the environment with every absolute path moved under `dir`.
 */
function layOutPod(dir: string, manifests: Manifest[]): { env: Record<string, string>; mounts: Map<string, boolean> } {
  const { pod, container } = workerOf(manifests);
  const mounts = new Map<string, boolean>();
  for (const mount of container.volumeMounts ?? []) {
    const volume = pod.spec.volumes?.find((v) => v.name === mount.name);
    // Every mount names a volume of the pod.
    expect([mount.name, volume?.name]).toEqual([mount.name, mount.name]);
    mounts.set(mount.mountPath, volume?.secret === undefined && mount.readOnly !== true);
    for (const item of volume?.secret?.items ?? []) {
      const file = join(dir, mount.mountPath, item.path);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, secretFile(item.key), { mode: 0o440 });
    }
  }
  const env = containerEnv(manifests, container, (ref, name) => `${name} from ${ref.name}/${ref.key}`);
  const withImage = { ...IMAGE.env, ...env };
  delete withImage.NODE_ENV;
  return { env: Object.fromEntries(Object.entries(withImage).map(([k, v]) => [k, rooted(dir, v)])), mounts };
}

const port = (address: string | undefined) => Number(address?.split(':').at(-1));

describe.each([
  ['the default values', [] as string[]],
  ['the production example', [PRODUCTION_VALUES]],
])('helm with %s', (label, values) => {
  let manifests: Manifest[];
  beforeAll(() => {
    manifests = manifestsOf(values);
  }, 15 * 60_000);

  test('helm lint --strict passes', () => {
    const lint = runHelm(['lint', '--strict', CHART, ...values.flatMap((v) => ['--values', v])]);
    expect([lint.status, lint.stdout]).toEqual([0, expect.stringContaining('1 chart(s) linted, 0 chart(s) failed')]);
  });

  test('the container gets only variables the worker reads, in a configuration it accepts', () => {
    const dir = join(root, label.replace(/\W+/g, '-'));
    const { container } = workerOf(manifests);
    const { env, mounts } = layOutPod(dir, manifests);
    const names = Object.keys(containerEnv(manifests, container, () => 'from a secret'));
    expect(names.length).toBeGreaterThan(10);
    expect(unread(names, env)).toEqual([]);
    const config = loadConfig(env);
    expect(config.healthAddress).toMatch(/^0\.0\.0\.0:\d+$/);
    expect(config.metricsAddress).toMatch(/^0\.0\.0\.0:\d+$/);
    // Every folder the worker writes to is on a writable volume: the root file system is read-only.
    expect(container.securityContext?.readOnlyRootFilesystem).toBe(true);
    const unrooted = (path: string) => `/${posix.relative(dir, path)}`;
    const writes = [...foldersOf(config, config.dataDir).map((f) => unrooted(f.path)), '/tmp'];
    for (const folder of writes) {
      const mount = [...mounts.keys()].find((m) => folder === m || folder.startsWith(`${m}/`));
      expect([folder, mount !== undefined && mounts.get(mount)]).toEqual([folder, true]);
    }
    // Each worker's data dir is its own; the output is on the volume every replica shares.
    const volumeOf = (path: string) => {
      const mount = [...mounts.keys()]
        .filter((m) => path.startsWith(`${m}/`) || path === m)
        .sort()
        .at(-1);
      return workerOf(manifests).container.volumeMounts?.find((m) => m.mountPath === mount)?.name;
    };
    expect(volumeOf(unrooted(config.outputDir))).toBe('shared');
    expect(volumeOf(unrooted(config.dataDir))).toBe('data');
  });

  test('the worker runs as a non-root user, without privileges', () => {
    const { pod, container } = workerOf(manifests);
    expect(pod.spec.securityContext?.runAsNonRoot).toBe(true);
    expect(pod.spec.securityContext?.runAsUser).toBeGreaterThan(0);
    expect(container.securityContext).toMatchObject({
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ['ALL'] },
    });
  });

  test("the probes ask the worker's health endpoint, on the port it listens on", () => {
    const { pod, container } = workerOf(manifests);
    const env = containerEnv(manifests, container, () => 'secret');
    const health = container.ports?.find((p) => p.name === 'health');
    expect(health?.containerPort).toBe(port(env.RUNBOOKS_HEALTH_ADDRESS));
    expect(container.startupProbe?.httpGet).toEqual({ path: HEALTH_PATHS.live, port: 'health' });
    expect(container.livenessProbe?.httpGet).toEqual({ path: HEALTH_PATHS.live, port: 'health' });
    expect(container.readinessProbe?.httpGet).toEqual({ path: HEALTH_PATHS.ready, port: 'health' });
    // The worker's grace time and its 5 s of cleanup fit before the kubelet kills it.
    const grace = Number(env.RUNBOOKS_SHUTDOWN_GRACE_TIME_MS);
    expect((pod.spec.terminationGracePeriodSeconds ?? 30) * 1000).toBeGreaterThanOrEqual(grace + 5_000);
  });

  test('secrets are referenced, never inlined', () => {
    expect(manifests.filter((m) => m.kind === 'Secret')).toEqual([]);
    const { pod, container } = workerOf(manifests);
    for (const entry of container.env ?? []) {
      expect([entry.name, entry.value, entry.valueFrom?.secretKeyRef?.name]).toEqual([
        entry.name,
        undefined,
        expect.stringMatching(/^runbooks-/),
      ]);
    }
    const configMap = only(manifests, 'ConfigMap').data ?? {};
    for (const name of SECRET_VARIABLES) expect([name, configMap[name]]).toEqual([name, undefined]);
    for (const volume of pod.spec.volumes ?? []) {
      if (volume.secret) expect([volume.name, volume.secret.defaultMode]).toEqual([volume.name, 0o400]);
    }
  });

  test('the build ID is the image tag, for Worker Versioning', () => {
    const { container } = workerOf(manifests);
    const env = containerEnv(manifests, container, () => 'secret');
    const tag = container.image.split(':').at(-1);
    expect(tag).toMatch(/^\d/);
    expect(loadVersioningConfig(env)).toMatchObject({ deploymentName: 'backup-runbooks', buildId: tag });
  });

  test('several replicas: a disruption budget, and one ReadWriteMany volume for them all', () => {
    const deployment = only(manifests, 'Deployment');
    const replicas = deployment.spec?.replicas ?? 1;
    const budgets = manifests.filter((m) => m.kind === 'PodDisruptionBudget');
    const { pod } = workerOf(manifests);
    const claim = pod.spec.volumes?.find((v) => v.name === 'shared')?.persistentVolumeClaim?.claimName;
    expect(only(manifests, 'PersistentVolumeClaim').metadata.name).toBe(claim);
    if (replicas > 1) {
      expect(budgets).toHaveLength(1);
      expect(budgets[0]?.spec?.maxUnavailable).toBeLessThan(replicas);
      expect(pod.metadata.labels).toMatchObject(budgets[0]?.spec?.selector?.matchLabels ?? { none: 'matched' });
      expect(only(manifests, 'PersistentVolumeClaim').spec?.accessModes).toContain('ReadWriteMany');
    } else {
      expect(budgets).toEqual([]);
    }
  });

  test('the metrics port is served, and a ServiceMonitor scrapes it only when asked', () => {
    const { container } = workerOf(manifests);
    const env = containerEnv(manifests, container, () => 'secret');
    expect(container.ports?.find((p) => p.name === 'metrics')?.containerPort).toBe(port(env.RUNBOOKS_METRICS_ADDRESS));
    const service = only(manifests, 'Service');
    expect(service.spec?.ports).toContainEqual(expect.objectContaining({ name: 'metrics', targetPort: 'metrics' }));
    const monitors = manifests.filter((m) => m.kind === 'ServiceMonitor');
    if (values.length === 0) {
      expect(monitors).toEqual([]);
    } else {
      expect(monitors).toHaveLength(1);
      expect(monitors[0]?.spec?.endpoints).toEqual([
        expect.objectContaining({
          port: 'metrics',
          path: '/metrics',
          // The job the alert rules select the workers by.
          relabelings: [{ targetLabel: 'job', replacement: WORKERS_JOB }],
        }),
      ]);
      expect(service.metadata.labels).toMatchObject(monitors[0]?.spec?.selector?.matchLabels ?? { none: 'matched' });
    }
  });
});

describe('the helm the tests use', () => {
  const { ensureHelm } = createRequire(__filename)(
    '../../scripts/ensure-helm.js',
  ) as typeof import('../../scripts/ensure-helm');

  test('is helm 3.22, built from its Go module unless HELM_PATH names another', () => {
    expect(runHelm(['version', '--template', '{{.Version}}']).stdout).toMatch(/^v3\.22(\.|$)/);
  });

  test('a HELM_PATH that is not helm is refused, not passed over', () => {
    const saved = process.env.HELM_PATH;
    process.env.HELM_PATH = process.execPath;
    try {
      const refusal = (() => {
        try {
          return ensureHelm();
        } catch (err) {
          return err as Error & { code?: string };
        }
      })();
      expect(refusal).toBeInstanceOf(Error);
      expect([(refusal as Error & { code?: string }).code, (refusal as Error).message]).toEqual([
        'HELM_PATH_INVALID',
        `HELM_PATH=${process.execPath} is not a helm executable.`,
      ]);
    } finally {
      if (saved === undefined) delete process.env.HELM_PATH;
      else process.env.HELM_PATH = saved;
    }
  });
});

describe('values the chart refuses', () => {
  const refusal = (values: string[], set: string[]) => {
    const rendered = render(values, set);
    return rendered.error ?? `rendered ${rendered.manifests.length} manifests`;
  };

  test.each([
    ['a negative replica count', [], ['replicaCount=-1'], /\/replicaCount': minimum/],
    ['several workers without a service', [], ['replicaCount=2'], /\/backupService\/url': minLength/],
    [
      'production without the credentials Secret',
      [PRODUCTION_VALUES],
      ['backupService.credentials.existingSecret='],
      /\/backupService\/credentials\/existingSecret': minLength/,
    ],
    [
      'several workers on a ReadWriteOnce volume',
      [PRODUCTION_VALUES],
      ['persistence.accessModes={ReadWriteOnce}'],
      /\/persistence\/accessModes': no items match/,
    ],
    [
      'a root user',
      [PRODUCTION_VALUES],
      ['podSecurityContext.runAsNonRoot=false'],
      /runAsNonRoot': value must be true/,
    ],
    [
      'required encryption without a key',
      [PRODUCTION_VALUES],
      ['codec.existingSecret='],
      /\/codec\/existingSecret': minLength/,
    ],
    ['the latest tag as build ID', [], ['image.tag=latest'], /image.tag 'latest' names no single build/],
    [
      'a kill before the grace time ends',
      [PRODUCTION_VALUES],
      ['terminationGracePeriodSeconds=60'],
      /terminationGracePeriodSeconds \(60\) must cover worker.shutdownGraceTimeMs \(60000 ms\)/,
    ],
    ['a misspelt value', [], ['replicas=3'], /additional properties 'replicas' not allowed/],
  ])('%s', (_, values, set, message) => {
    expect(refusal(values, set)).toMatch(message);
  });
});

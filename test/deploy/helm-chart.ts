// The Helm chart read as data: helm itself (built into .tools/ by scripts/ensure-helm.js) lints and renders it, and the
// rendered manifests are parsed here, so that the tests check what Kubernetes would be given.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';

const { ensureHelm } = createRequire(__filename)(
  '../../scripts/ensure-helm.js',
) as typeof import('../../scripts/ensure-helm');

export const ROOT = join(__dirname, '..', '..');
export const CHART = join(ROOT, 'deploy', 'helm', 'backup-runbooks');
export const PRODUCTION_VALUES = join(CHART, 'examples', 'production.yaml');
/** helm's own default when built with `go install` is 1.20, older than the chart's kubeVersion. */
const KUBE_VERSION = '1.31.0';

let helmPath: string | undefined;

/** helm: HELM_PATH or .tools/helm-<version>/helm, built with Go when missing; a missing helm fails, never skips. */
export function helm(): string {
  helmPath ??= ensureHelm().helm;
  return helmPath;
}

export interface HelmRun {
  status: number | null;
  stdout: string;
  stderr: string;
}

export function runHelm(args: string[]): HelmRun {
  const result = spawnSync(helm(), args, { encoding: 'utf8', timeout: 120_000 });
  if (result.error) throw result.error;
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

export interface KeyRef {
  name: string;
  key: string;
}
export interface EnvEntry {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: KeyRef; configMapKeyRef?: KeyRef };
}
export interface HttpProbe {
  httpGet?: { path: string; port: string | number };
  exec?: unknown;
}
export interface Container {
  name: string;
  image: string;
  env?: EnvEntry[];
  envFrom?: { configMapRef?: { name: string }; secretRef?: { name: string } }[];
  ports?: { name: string; containerPort: number }[];
  startupProbe?: HttpProbe;
  livenessProbe?: HttpProbe;
  readinessProbe?: HttpProbe;
  securityContext?: {
    allowPrivilegeEscalation?: boolean;
    readOnlyRootFilesystem?: boolean;
    runAsNonRoot?: boolean;
    runAsUser?: number;
    capabilities?: { drop?: string[] };
  };
  volumeMounts?: { name: string; mountPath: string; readOnly?: boolean }[];
}
export interface Volume {
  name: string;
  emptyDir?: object;
  persistentVolumeClaim?: { claimName: string };
  secret?: { secretName: string; defaultMode?: number; items?: { key: string; path: string }[] };
}
export interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
  data?: Record<string, string>;
  spec?: {
    replicas?: number;
    selector?: { matchLabels?: Record<string, string> } | Record<string, string>;
    accessModes?: string[];
    maxUnavailable?: number | string;
    ports?: { name: string; port: number; targetPort: string | number }[];
    endpoints?: { port: string; path: string; relabelings?: { targetLabel: string; replacement: string }[] }[];
    template?: {
      metadata: { labels: Record<string, string> };
      spec: {
        securityContext?: { runAsNonRoot?: boolean; runAsUser?: number; fsGroup?: number };
        terminationGracePeriodSeconds?: number;
        containers: Container[];
        volumes?: Volume[];
      };
    };
  };
}

/** `helm template` of the chart with `valueFiles` and `--set` pairs: the manifests, or helm's refusal. */
export function render(
  valueFiles: string[] = [],
  set: string[] = [],
): { manifests: Manifest[]; error?: undefined } | { manifests?: undefined; error: string } {
  const args = ['template', 'runbooks', CHART, '--namespace', 'runbooks', '--kube-version', KUBE_VERSION];
  for (const file of valueFiles) args.push('--values', file);
  for (const pair of set) args.push('--set', pair);
  const run = runHelm(args);
  if (run.status !== 0) return { error: run.stderr };
  const manifests = parseAllDocuments(run.stdout)
    .map((doc) => doc.toJS() as Manifest | null)
    .filter((m): m is Manifest => m !== null);
  return { manifests };
}

/** The rendered manifests; a refusal fails the test with helm's message. */
export function manifestsOf(valueFiles: string[] = [], set: string[] = []): Manifest[] {
  const rendered = render(valueFiles, set);
  if (rendered.error !== undefined) throw new Error(`helm template refused the values:\n${rendered.error}`);
  return rendered.manifests;
}

export function only(manifests: Manifest[], kind: string): Manifest {
  const found = manifests.filter((m) => m.kind === kind);
  if (found.length !== 1) throw new Error(`expected one ${kind}, rendered ${found.length}`);
  return found[0] as Manifest;
}

/** The Deployment's worker container and its pod. */
export function workerOf(manifests: Manifest[]) {
  const pod = only(manifests, 'Deployment').spec?.template;
  const container = pod?.spec.containers.find((c) => c.name === 'worker');
  if (!pod || !container) throw new Error('the Deployment has no worker container');
  return { pod, container };
}

/**
 * The container's environment as the pod gets it: the ConfigMaps it takes whole, then its own entries; a value from a
 * Secret is `secretValue(ref)` (the chart never holds it).
 */
export function containerEnv(
  manifests: Manifest[],
  container: Container,
  secretValue: (ref: KeyRef, name: string) => string,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const from of container.envFrom ?? []) {
    if (from.secretRef) throw new Error(`envFrom a whole Secret (${from.secretRef.name}) hides what is read`);
    const map = manifests.find((m) => m.kind === 'ConfigMap' && m.metadata.name === from.configMapRef?.name);
    if (!map) throw new Error(`envFrom names a ConfigMap the chart does not render: ${from.configMapRef?.name}`);
    Object.assign(env, map.data);
  }
  for (const entry of container.env ?? []) {
    const ref = entry.valueFrom?.secretKeyRef;
    env[entry.name] = ref ? secretValue(ref, entry.name) : (entry.value ?? '');
  }
  return env;
}

// Prometheus and promtool for the tests, built from their Go module into .tools/ by scripts/ensure-prometheus.js (as
// the cluster test's Temporal server is): a machine without them and without Go fails these tests, never skips them.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse } from 'yaml';
import { ensurePrometheus } from '../../scripts/ensure-prometheus';

export const REPO = resolve(__dirname, '../..');
export const PROMETHEUS_DIR = join(REPO, 'deploy/prometheus');
export const RULES_FILE = join(PROMETHEUS_DIR, 'rules.yml');
export const DASHBOARD_FILE = join(REPO, 'deploy/grafana/dashboards/runbooks.json');

/** The binaries, built on a first run (minutes): callers give their beforeAll a long timeout. */
export function prometheusTools(): { prometheus: string; promtool: string } {
  return ensurePrometheus();
}

export interface AlertRule {
  alert: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

/** Every alerting rule of deploy/prometheus/rules.yml, in file order. */
export function alertRules(): AlertRule[] {
  const file = parse(readFileSync(RULES_FILE, 'utf8')) as { groups: { name: string; rules: AlertRule[] }[] };
  return file.groups.flatMap((g) => g.rules).filter((r) => typeof r.alert === 'string');
}

export interface PanelQuery {
  panel: string;
  refId: string;
  expr: string;
}

/** Every query of every panel of the provisioned dashboard (rows' nested panels included). */
export function panelQueries(): PanelQuery[] {
  interface Panel {
    title: string;
    targets?: { refId?: string; expr?: string }[];
    panels?: Panel[];
  }
  const dashboard = JSON.parse(readFileSync(DASHBOARD_FILE, 'utf8')) as { panels: Panel[] };
  const walk = (panels: Panel[]): PanelQuery[] =>
    panels.flatMap((p) => [
      ...(p.targets ?? [])
        .filter((t): t is { refId?: string; expr: string } => typeof t.expr === 'string')
        .map((t) => ({ panel: p.title, refId: t.refId ?? '', expr: t.expr })),
      ...walk(p.panels ?? []),
    ]);
  return walk(dashboard.panels);
}

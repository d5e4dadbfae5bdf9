// The shipped Prometheus files through the real promtool (built into .tools/ from the Prometheus Go module): the
// configuration and the rules check, the rules' unit tests (rules.test.yml) pass and fire and spare every alert, and
// every alert links to its own section of docs/operations/alerts.md.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { alertRules, PROMETHEUS_DIR, prometheusTools, REPO } from '../helpers/prometheus';

let promtool: string;

beforeAll(() => {
  ({ promtool } = prometheusTools());
}, 20 * 60_000);

/** Runs promtool in deploy/prometheus; `expected` must be in its output. Its output is the failure message. */
function expectPromtool(args: string[], expected: string): void {
  const result = spawnSync(promtool, args, { cwd: PROMETHEUS_DIR, encoding: 'utf8', timeout: 60_000 });
  const output = `${result.stdout}${result.stderr}`;
  const passed = result.status === 0 && output.includes(expected);
  expect(passed ? 'passed' : `exit ${result.status}, no "${expected}" in:\n${output}`).toBe('passed');
}

test('promtool check config passes on the shipped prometheus.yml, and it loads the rules', () => {
  expectPromtool(['check', 'config', 'prometheus.yml'], 'SUCCESS: 1 rule files found');
  expectPromtool(['check', 'config', 'prometheus.yml'], 'is valid prometheus config file');
});

test('promtool check rules passes on the shipped rules.yml', () => {
  expectPromtool(['check', 'rules', 'rules.yml'], `SUCCESS: ${alertRules().length} rules found`);
});

test('promtool test rules passes, and its cases fire and spare every alert', () => {
  expectPromtool(['test', 'rules', 'rules.test.yml'], 'SUCCESS');

  interface Case {
    alertname: string;
    exp_alerts: unknown[];
  }
  const tests = parse(readFileSync(join(PROMETHEUS_DIR, 'rules.test.yml'), 'utf8')) as {
    tests: { alert_rule_test?: Case[] }[];
  };
  const cases = tests.tests.flatMap((t) => t.alert_rule_test ?? []);
  for (const { alert } of alertRules()) {
    const mine = cases.filter((c) => c.alertname === alert);
    const fires = mine.some((c) => c.exp_alerts.length > 0);
    const spares = mine.some((c) => c.exp_alerts.length === 0);
    expect({ alert, fires, spares }).toEqual({ alert, fires: true, spares: true });
  }
});

/** GitHub's anchor of a Markdown heading: lower case, punctuation dropped, spaces to hyphens. */
const anchorOf = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');

test('every alert has a severity, a summary, a description and a runbook link to its own heading in the docs', () => {
  const doc = readFileSync(join(REPO, 'docs/operations/alerts.md'), 'utf8');
  const anchors = new Set([...doc.matchAll(/^#{1,6} (.+)$/gm)].map((m) => anchorOf(m[1] ?? '')));
  const rules = alertRules();
  expect(rules.length).toBeGreaterThanOrEqual(12);
  const links = new Set<string>();
  for (const rule of rules) {
    const { severity } = rule.labels ?? {};
    const { summary, description, runbook_url: url = '' } = rule.annotations ?? {};
    expect([rule.alert, severity]).toEqual([rule.alert, severity === 'warning' ? 'warning' : 'critical']);
    expect([rule.alert, summary && description ? 'described' : 'missing']).toEqual([rule.alert, 'described']);
    const [path, anchor = ''] = url.split('#');
    expect({ alert: rule.alert, path, anchorFound: anchors.has(anchor) }).toEqual({
      alert: rule.alert,
      path: 'docs/operations/alerts.md',
      anchorFound: true,
    });
    links.add(anchor);
  }
  // One section per alert.
  expect(links.size).toBe(rules.length);
});

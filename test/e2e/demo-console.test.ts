// `runbooks demo --serve`: the demo runs its runbooks, then keeps its own dev server, simulator and worker up and
// serves the console over them. Every run in the demo's summary is on the Runs page, its drill (sealed, verified) on
// the Drills page, its exports on the Exports page, its posture report on the Posture page; the Coverage page's readiness
// scores are those `runbooks evidence score` computes from the demo's output; Ctrl-C stops it all, exit 0.
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { EvidenceScoreOutput } from '../../operator/output-shapes';
import { runCliInProcess } from '../helpers/cli-in-process';
import { spawnCliFromSource } from '../helpers/cli-from-source';

const { TEMPORAL_ADDRESS: _ignored, ...env } = process.env;

/** The text a child has printed so far, and a wait for a pattern in it. */
function watch(stream: NodeJS.ReadableStream) {
  let text = '';
  let ended = false;
  const waiters: (() => void)[] = [];
  const wakeAll = () => {
    for (const wake of waiters.splice(0)) wake();
  };
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    text += chunk;
    wakeAll();
  });
  stream.on('end', () => {
    ended = true;
    wakeAll();
  });
  const waitFor = async (pattern: RegExp, what: string): Promise<RegExpMatchArray> => {
    for (;;) {
      const found = text.match(pattern);
      if (found) return found;
      if (ended) throw new Error(`the demo ended before ${what}:\n${text}`);
      await new Promise<void>((wake) => waiters.push(wake));
    }
  };
  return { text: () => text, waitFor };
}

/** The page's text without tags, entities decoded enough to read names and numbers. */
async function pageText(url: string): Promise<string> {
  const res = await fetch(url);
  expect(res.status).toBe(200);
  const html = await res.text();
  return html
    .replace(/<(style|svg)[\s\S]*?<\/\1>/g, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ');
}

test('the demo with --serve serves the console over its own runs and reports until Ctrl-C', async () => {
  const demo = spawnCliFromSource(['demo', '--serve', '--port', '0'], env);
  const exited = new Promise<number | null>((resolve) => demo.on('exit', (code) => resolve(code)));
  const stdout = watch(demo.stdout);
  const stderr = watch(demo.stderr);
  let dataDir: string | undefined;
  try {
    dataDir = (await stdout.waitFor(/data directory (\S+)/, 'its data directory'))[1];
    const [, url] = await stdout.waitFor(
      /console over this demo's runs and reports: (http:\/\/127\.0\.0\.1:\d+)\/runs/,
      'the console',
    );
    // The summary's workflow IDs: one row per runbook, the ID the second column.
    const summary = stdout.text().split('== Summary\n')[1]?.split('\n\n')[0] ?? '';
    const ids = summary
      .split('\n')
      .slice(1)
      .map((row) => row.match(/\s((?:restore|drill|query-export|cost-export|posture-report|plan)-\S+)\s/)?.[1]);
    expect(ids).toHaveLength(6);

    const runs = await pageText(`${url}/runs`);
    // The recovery plan's four restores are runs of their own (approvalGatedRestore children).
    expect(runs).toContain('0 in flight, 10 closed');
    for (const id of ids) expect(runs).toContain(`${id} `);
    for (const runbook of [
      'approvalGatedRestore',
      'drDrill',
      'queryExport',
      'costExport',
      'postureReport',
      'recoveryPlan',
    ]) {
      expect(runs).toContain(runbook);
    }

    const drills = await pageText(`${url}/drills`);
    expect(drills).toContain('1 drill report in the output folder');
    expect(drills).toMatch(/drill-demo-\S+ demo \S+ \S+ PASS 3\/3 .* verified/);

    const exports = await pageText(`${url}/exports`);
    const costId = ids.find((id) => id?.startsWith('cost-export-'));
    const queryId = ids.find((id) => id?.startsWith('query-export-'));
    expect(exports).toContain(`cost ${costId}.csv`);
    // A query export is named for its run (docs/runbooks/query-export.md); a cost export for its window.
    expect(exports).toMatch(new RegExp(`query ${queryId}--[0-9a-f-]+\\.csv`));

    const posture = await pageText(`${url}/posture`);
    const [, unprotected, stale] = stdout.text().match(/done in [\d.]+ s: (\d+) unprotected, (\d+) stale of \d+/) ?? [];
    expect(posture).toMatch(
      new RegExp(`1 posture report; the newest, as of .*: ${unprotected} unprotected, ${stale} stale`),
    );

    // The score the console shows is the one anyone recomputes from the demo's output folder.
    const coverage = await (await fetch(`${url}/coverage`)).text();
    const shown = [...coverage.matchAll(/data-score-scope="([^"]*)" data-score="([^"]*)"/g)].map(([, s, v]) => [s, v]);
    const score = await runCliInProcess(['evidence', 'score', '--dir', join(dataDir ?? '', 'output'), '-o', 'json']);
    expect(score.status).toBe(0);
    const doc = JSON.parse(score.stdout) as EvidenceScoreOutput;
    expect(doc.drills.map((d) => d.scope)).toEqual(['demo']);
    expect(shown).toEqual([['', doc.estate.score.toFixed(1)], ...doc.drills.map((d) => [d.scope, d.score.toFixed(1)])]);
    expect(doc.estate.score).toBeGreaterThan(0);

    demo.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(stdout.text()).toContain('worker, simulator and Temporal dev server stopped');
  } finally {
    if (demo.exitCode === null) demo.kill('SIGKILL');
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
    if (demo.exitCode !== 0) console.log(stderr.text());
  }
}, 300_000);

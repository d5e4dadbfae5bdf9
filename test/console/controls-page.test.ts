// The Drills page by control (`/drills?by=control`) over sealed drill reports, through the console's routes over real
// HTTP: each control of the catalogue, satisfied or not over its own period, its satisfying drills and its gaps with
// the gate's status; values from the reports escaped; the Drills page links to it.
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { request } from 'undici';
import { buildConsole } from '../../console/server';
import { ConsoleGuard } from '../../console/security';
import { HistoryIndex } from '../../history';
import { CONTROLS } from '../../history/controls';
import { loadOrCreateEvidenceKey } from '../../runtime/evidence-key';
import { measured, writeDrill } from '../history/fixtures';

let root: string;
let app: FastifyInstance;
let base: string;
const EVIL = 'vm-<script>alert(1)</script>';
let recent = '';

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'console-controls-'));
  const key = await loadOrCreateEvidenceKey(join(root, 'evidence-signing-key.pem'));
  const day = (daysAgo: number) => new Date(Date.now() - daysAgo * 86_400_000).toISOString();
  // bucket-old passed 200 days ago: within the yearly controls' period, not the quarterly ones'.
  await writeDrill(root, key, {
    name: 'yearly',
    runId: 'run-old',
    finishedAt: day(200),
    resources: [measured('bucket-old', 50, 60, 'archive-bucket')],
  });
  recent = await writeDrill(root, key, {
    runId: 'run-1',
    finishedAt: day(10),
    resources: [measured('db-1', 100, 600, 'orders-db'), measured(EVIL, 100, 600, 'evil-vm')],
  });
  app = buildConsole({
    data: { runs: async () => [], approvals: async () => [], nudge: async () => undefined },
    guard: new ConsoleGuard({}),
    history: new HistoryIndex({ outputDir: root }),
    namespace: 'default',
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await app?.close();
  await rm(root, { recursive: true, force: true });
});

async function get(path: string): Promise<string> {
  const res = await request(`${base}${path}`);
  expect(res.statusCode).toBe(200);
  return res.body.text();
}

const text = (html: string) =>
  html
    .replace(/<[^>]+>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();

/** A control's section of the page. */
function section(page: string, id: string): string {
  const start = page.indexOf(`<section class="control" id="control-${id}">`);
  expect(start).toBeGreaterThan(-1);
  return page.slice(start, page.indexOf('</section>', start));
}

test('the Drills page links to the view by control, and the view back', async () => {
  expect(await get('/drills')).toContain('<a href="/drills?by=control">by control</a>');
  const page = await get('/drills?by=control');
  expect(page).toContain('<a href="/drills">Drills by report</a>');
  // Another value of ?by= is the usual page.
  expect(await get('/drills?by=nothing')).toContain('<a href="/drills?by=control">');
});

test('each control, satisfied or not over its own period, with its satisfying drills and gaps', async () => {
  const page = await get('/drills?by=control');
  const yearly = CONTROLS.filter((c) => c.evidence.within.days >= 365);
  const quarterly = CONTROLS.filter((c) => c.evidence.within.days < 200);
  expect(yearly.length + quarterly.length).toBe(CONTROLS.length);
  expect(page).toContain(`${yearly.length} of ${CONTROLS.length} controls satisfied`);

  // The overview: one row per control, linked to its section.
  const overview = /<tbody>([\s\S]*?)<\/tbody>/.exec(page)?.[1] ?? '';
  const rows = [...overview.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((m) => text(m[1] ?? ''));
  expect(rows).toHaveLength(CONTROLS.length);
  for (const [i, c] of CONTROLS.entries()) {
    expect(rows[i]).toContain(c.id);
    expect(rows[i]).toContain(c.evidence.within.days >= 365 ? 'satisfied' : 'not satisfied');
    expect(overview).toContain(`<a href="#control-${c.id}">`);
  }

  const dora = section(page, 'dora-art-11');
  expect(dora).toMatch(/<span class="verdict-PASS">satisfied<\/span>/);
  expect(text(dora)).toContain('Period: 365 days (as the standard states)');
  // Its satisfying drills: the recent one for db-1 and the VM, the yearly one for the bucket.
  expect(text(dora)).toContain(`${recent} `);
  expect(text(dora)).toContain('bucket-old');
  expect(dora).toContain('None: every resource the reports name has a verified PASS within the period.');

  const iso = section(page, 'iso27001-2022-a.8.13');
  expect(iso).toMatch(/<span class="verdict-FAIL">not satisfied<\/span>/);
  const gaps = /<h3>Gaps<\/h3>([\s\S]*)/.exec(iso)?.[1] ?? '';
  expect(text(gaps)).toMatch(/archive-bucket bucket-old too old last verified PASS \S+/);
  expect(text(gaps)).not.toContain('orders-db');
});

test('values from the reports are escaped, as on the other pages', async () => {
  const page = await get('/drills?by=control');
  expect(page).not.toContain('<script>');
  expect(page).toContain('vm-&lt;script&gt;alert(1)&lt;/script&gt;');
});

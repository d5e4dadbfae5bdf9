import { appendFile, rm } from 'node:fs/promises';
import { request } from 'undici';
import { csvRecord } from '../../runtime/csv';

/** The two baselines of the export benchmark: raw HTTP fetching, and the script anyone would write first. */

export interface ResultsEndpoint {
  baseUrl: string;
  projectId: string;
  queryId: string;
  token: string;
}

function resultsUrl(ep: ResultsEndpoint, params: Record<string, string | number | undefined>): string {
  const query = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined) query.set(k, String(v));
  const q = query.toString();
  return `${ep.baseUrl}/v1/projects/${ep.projectId}/queries/${encodeURIComponent(ep.queryId)}/results${q ? `?${q}` : ''}`;
}

// The service serialises `nextToken` last: reading it from the body's tail leaves the rest unparsed.
const TOKEN_AT_END = /"nextToken":(?:null|"([^"]*)")\}\s*$/;

/**
 * The limit: every page in order with raw undici at the largest page size, bodies received and discarded (only the
 * token is read from the tail). No export can be faster on one connection.
 */
export async function fetchLimit(ep: ResultsEndpoint, pageSize: number): Promise<{ pages: number; bytes: number }> {
  let pageToken: string | undefined;
  let pages = 0;
  let bytes = 0;
  do {
    const res = await request(resultsUrl(ep, { pageSize, pageToken }), {
      headers: { authorization: `Bearer ${ep.token}` },
    });
    let tail: Buffer = Buffer.alloc(0);
    for await (const chunk of res.body) {
      const buffer = chunk as Buffer;
      bytes += buffer.length;
      tail = buffer.length >= 256 ? buffer : Buffer.concat([tail, buffer]);
    }
    if (res.statusCode !== 200) throw new Error(`results page answered ${res.statusCode}`);
    const match = TOKEN_AT_END.exec(tail.subarray(-512).toString('utf8'));
    if (!match) throw new Error('no nextToken at the end of a results page');
    pageToken = match[1];
    pages += 1;
  } while (pageToken);
  return { pages, bytes };
}

/** The naive script: fetch a page at the default size, parse it, append it to the CSV, repeat. */
export async function naiveExport(ep: ResultsEndpoint, path: string): Promise<{ rows: number }> {
  await rm(path, { force: true });
  let pageToken: string | undefined;
  let rows = 0;
  do {
    const res = await fetch(resultsUrl(ep, { pageToken }), { headers: { authorization: `Bearer ${ep.token}` } });
    if (!res.ok) throw new Error(`results page answered ${res.status}`);
    const page = (await res.json()) as { columns: string[]; records: string[][]; nextToken: string | null };
    const exact = { exact: true };
    const text =
      (rows === 0 ? csvRecord(page.columns, exact) : '') + page.records.map((r) => csvRecord(r, exact)).join('');
    await appendFile(path, text);
    rows += page.records.length;
    pageToken = page.nextToken ?? undefined;
  } while (pageToken);
  return { rows };
}

/** A bearer token for raw calls. */
export async function tokenOf(baseUrl: string, credentials: { clientId: string; clientSecret: string }) {
  const res = await request(`${baseUrl}/v1/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(credentials),
  });
  // Either dialect of the token answer (docs/service-interface.md §1, §9).
  const body = (await res.body.json()) as { accessToken?: string; access_token?: string };
  const token = body.accessToken ?? body.access_token;
  if (res.statusCode !== 200 || !token) throw new Error(`token call answered ${res.statusCode} without a token`);
  return token;
}

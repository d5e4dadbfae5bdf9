// The compiled response checks accept exactly what zod accepts, and return what zod would (the body itself); every
// body they refuse gets zod's own answer. Each fixture is mutated at every field in turn to find a disagreement.
import { z } from 'zod';
import { compile, decode } from '../../api/decode';
import * as s from '../../api/schemas';
import { bodies } from './helpers';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const CASES: [string, z.ZodType, unknown][] = [
  ['ResourceBody', s.ResourceBody, { resource: bodies.resource() }],
  [
    'ResourcePage',
    s.ResourcePage,
    { resources: [bodies.resource('a'), bodies.resource('b')], totalCount: 2, nextToken: null },
  ],
  ['SnapshotBody', s.SnapshotBody, { snapshot: bodies.snapshot() }],
  ['VaultPage', s.VaultPage, { vaults: [bodies.vault()] }],
  ['SourceAccountBody', s.SourceAccountBody, { sourceAccount: bodies.sourceAccount() }],
  ['RestoreAccountBody', s.RestoreAccountBody, { restoreAccount: bodies.restoreAccount() }],
  ['RolePage', s.RolePage, { roles: [bodies.role()] }],
  ['IdpPage', s.IdpPage, { idps: [bodies.idp()] }],
  ['IdpGroupBody', s.IdpGroupBody, { group: bodies.idpGroup() }],
  ['ActionRequestBody', s.ActionRequestBody, { actionApprovalRequest: bodies.mpaRequest() }],
  ['QueryResults', s.QueryResults, bodies.queryResults('next')],
  ['CostDataPage', s.CostDataPage, { records: [bodies.costRecord()], nextToken: null }],
  // A null read as absent is zod's to change; any other value passes the compiled check as it is.
  ['BackupJobBody', s.BackupJobBody, { job: bodies.backupJob() }],
  ['RestoreJobPage', s.RestoreJobPage, { jobs: [bodies.restoreJob()], nextToken: 'n' }],
];

/** A request read picks its form (plain or wrapped) before decoding: zod decodes it. */
const ZOD_CASES: [string, z.ZodType, unknown][] = [['MpaRequestRead', s.MpaRequestRead, bodies.mpaRequest()]];

const REPLACEMENTS: Json[] = [null, 'text', '', 0, -1, 1.5, 2 ** 60, true, [], {}, [1], ['a'], { x: 1 }];

/** Every way to change one place of `value`: each field replaced, removed, or joined by an unknown one. */
function* mutations(value: Json): Generator<Json> {
  for (const r of REPLACEMENTS) yield r;
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) {
      for (const m of mutations(item)) yield value.map((v, j) => (j === i ? m : v));
      yield value.filter((_, j) => j !== i);
    }
  } else if (value !== null && typeof value === 'object') {
    yield { ...value, unknownField: 'kept' };
    yield JSON.parse(`{"__proto__": {"polluted": true}, "x": ${JSON.stringify(value)}}`) as Json;
    yield { ...value, constructor: { prototype: 1 } };
    for (const key of Object.keys(value)) {
      const { [key]: removed, ...rest } = value;
      yield rest;
      if (removed === undefined) continue;
      for (const m of mutations(removed)) yield { ...value, [key]: m };
    }
  }
}

function sameAsZod(schema: z.ZodType, body: unknown): void {
  const ours = decode(schema, body);
  const zods = schema.safeParse(body);
  expect(ours.success).toBe(zods.success);
  if (ours.success && zods.success) expect(ours.data).toStrictEqual(zods.data);
  else expect(ours.error?.issues).toEqual(zods.error?.issues);
}

describe('compiled response checks', () => {
  test.each(CASES)('%s compiles, and agrees with zod on every one-place change of a valid body', (_, schema, body) => {
    expect(compile(schema)).toBeDefined();
    const json = JSON.parse(JSON.stringify(body)) as Json;
    sameAsZod(schema, json);
    let count = 0;
    for (const changed of mutations(json)) {
      sameAsZod(schema, changed);
      count++;
    }
    expect(count).toBeGreaterThan(50);
  });

  test.each(ZOD_CASES)('%s is left to zod, and decodes as zod does on every one-place change', (_, schema, body) => {
    expect(compile(schema)).toBeUndefined();
    const json = JSON.parse(JSON.stringify(body)) as Json;
    for (const changed of [json, ...mutations(json)]) sameAsZod(schema, changed);
  });

  test('a valid body comes back as it is, without a copy', () => {
    const body = JSON.parse(JSON.stringify({ resource: bodies.resource() })) as unknown;
    expect(decode(s.ResourceBody, body)).toEqual({ success: true, data: body });
    expect(decode(s.ResourceBody, body).data).toBe(body);
  });

  test('schemas whose output can differ from their input are left to zod', () => {
    expect(compile(z.object({ a: z.string() }))).toBeUndefined(); // strips unknown keys
    expect(compile(z.strictObject({ a: z.string() }))).toBeUndefined();
    expect(compile(z.looseObject({ a: z.string().trim() }))).toBeUndefined();
    expect(compile(z.looseObject({ a: z.string().default('x') }))).toBeUndefined();
    expect(compile(z.looseObject({ a: z.string().transform((v) => v.length) }))).toBeUndefined();
    expect(compile(z.looseObject({ a: z.number() }).refine(() => false))).toBeUndefined();
    expect(compile(z.array(z.string()).min(1))).toBeUndefined();
    expect(compile(z.number().multipleOf(2))).toBeUndefined();
  });

  test('number bounds and integers are checked as zod checks them', () => {
    const schema = z.looseObject({ n: z.number().int().min(1).max(10), f: z.number().gt(0).lt(1).optional() });
    for (const n of [0, 1, 5.5, 10, 11, Number.MAX_SAFE_INTEGER + 2, NaN, Infinity])
      for (const f of [undefined, 0, 0.5, 1]) sameAsZod(schema, f === undefined ? { n } : { n, f });
  });
});

import { z } from 'zod';
import { issueField, issueMessage, issuesInOrder } from '../../api/validate';
import { InventoryFilters, QueryTarget, RestoreTarget, costRequest, strictDeep } from '../../runtime/input-rules';
import { CostDataInput } from '../../api/schemas/cost';

function firstIssue(schema: z.ZodType, value: unknown): string {
  const result = schema.safeParse(value);
  if (result.success) return 'accepted';
  const issue = result.error.issues[0];
  return issue ? `${issueField(issue)}: ${issueMessage(issue)}` : 'no issue';
}

describe('strictDeep', () => {
  const loose = z.object({
    filters: z.object({ resourceType: z.object({ in: z.array(z.string()) }).optional() }).optional(),
    items: z.array(z.object({ path: z.string() })).default([]),
    window: z.union([z.literal('day'), z.object({ start: z.string() })]),
  });
  const strict = strictDeep(loose);

  test('an unknown key anywhere is refused, named by its path, with the closest known key', () => {
    expect(firstIssue(strict, { filters: { resourceTypes: {} }, window: 'day' })).toBe(
      "filters.resourceTypes: unknown field (did you mean 'resourceType'?)",
    );
    expect(firstIssue(strict, { items: [{ path: '/', isDir: true }], window: 'day' })).toBe(
      'items.0.isDir: unknown field (known fields: path)',
    );
    expect(firstIssue(strict, { window: { start: 'x', end: 'y' } })).toMatch(/^window\.end: unknown field/);
    expect(firstIssue(strict, { window: 'day', extra: 1, more: 2 })).toBe(
      "extra: unknown field (known fields: filters, items, window); also unknown: 'more'",
    );
  });

  test('the schema it was built from stays as it was; defaults and refinements survive', () => {
    expect(loose.safeParse({ window: 'day', extra: 1 }).success).toBe(true);
    expect(strict.parse({ window: 'day' })).toEqual({ items: [], window: 'day' });
    const refined = strictDeep(z.object({ a: z.number() }).refine((v) => v.a > 1, 'too small'));
    expect(firstIssue(refined, { a: 1 })).toBe('input: too small');
  });
});

test('a misspelled key is reported before the missing key it was meant to be', () => {
  const schema = strictDeep(z.object({ isDirectory: z.boolean() }));
  const result = schema.safeParse({ isDir: true });
  expect(result.success).toBe(false);
  const [first] = issuesInOrder(result.error?.issues ?? []);
  expect(first && issueField(first)).toBe('isDir');
});

describe('destinations in either dialect, or by concept', () => {
  const bucket = { bucketName: 'restored', prefix: 'p/' };
  const wire = { bucketA: bucket };

  test.each([
    ['the neutral member', { bucketA: bucket }],
    ['the public member', { s3Bucket: bucket }],
    ['the concept', { amazonBucket: bucket }],
  ])('a restore target named by %s reaches the call in the wire dialect', (_how, destination) => {
    expect(RestoreTarget.parse(destination)).toEqual(wire);
    expect(QueryTarget.parse(destination)).toEqual(wire);
  });

  test('the other providers translate too, and a member no dialect names is refused', () => {
    expect(RestoreTarget.parse({ gcsBucket: { bucketName: 'g' } })).toEqual({ bucketC: { bucketName: 'g' } });
    expect(RestoreTarget.parse({ azureBlobContainer: { name: 'a', container: 'c' } })).toEqual({
      storageAccount: { name: 'a', container: 'c' },
    });
    expect(firstIssue(RestoreTarget, { s3Buckt: bucket })).toMatch(/^s3Buckt: unknown field/);
    // Named as given: a query's Google bucket is refused as gcsBucket, never as the neutral name it would become.
    expect(firstIssue(QueryTarget, { gcsBucket: bucket })).toBe(
      'gcsBucket: a query writes its results only to amazonBucket, bucketA, s3Bucket',
    );
    expect(firstIssue(QueryTarget, { googleBucket: bucket })).toMatch(/^googleBucket: a query writes/);
  });

  test('no target at all is refused, naming every accepted member', () => {
    expect(firstIssue(RestoreTarget, {})).toMatch(/name a target \(amazonBucket, bucketA, s3Bucket, googleBucket/);
    expect(firstIssue(QueryTarget, {})).toBe(
      'input: name the bucket the results go to (amazonBucket, bucketA, s3Bucket)',
    );
  });

  test('a refusal inside a target names its member as the input gave it', () => {
    expect(firstIssue(RestoreTarget, { s3Bucket: { bucketName: '' } })).toMatch(/^s3Bucket\.bucketName: /);
    expect(firstIssue(QueryTarget, { amazonBucket: { bucketName: 'b', prefx: 'p/' } })).toMatch(
      /^amazonBucket\.prefx: unknown field/,
    );
    expect(firstIssue(RestoreTarget, { s3Bucket: bucket, bucketA: bucket })).toBe(
      's3Bucket: names the same target as bucketA',
    );
  });
});

describe('filters in either dialect', () => {
  test('provider and resource-type values of either dialect, or provider concepts, are kept in the neutral vocabulary', () => {
    expect(
      InventoryFilters.parse({
        cloudProvider: { in: ['AWS', 'googleCloud'], notIn: ['PROVIDER_B'] },
        resourceType: { in: ['AWS_RDS', 'PC_SQL_INSTANCE'] },
      }),
    ).toEqual({
      cloudProvider: { in: ['PROVIDER_A', 'PROVIDER_C'], notIn: ['PROVIDER_B'] },
      resourceType: { in: ['PA_RELATIONAL_DB', 'PC_SQL_INSTANCE'] },
    });
  });

  test('a public type the tables lack is kept for the client to judge; a misspelt key or a non-token is refused', () => {
    expect(InventoryFilters.parse({ resourceType: { in: ['AWS_REDSHIFT'] } })).toEqual({
      resourceType: { in: ['AWS_REDSHIFT'] },
    });
    expect(firstIssue(InventoryFilters, { resourceTypes: { in: ['AWS_RDS'] } })).toMatch(
      /^resourceTypes: unknown field \(did you mean 'resourceType'\?\)/,
    );
    expect(firstIssue(InventoryFilters, { resourceType: { in: ['aws rds'] } })).toMatch(/^resourceType\.in\.0: /);
    expect(firstIssue(InventoryFilters, { cloudProvider: { in: ['PROVIDER_UNSPECIFIED'] } })).toMatch(
      /^cloudProvider\.in\.0: /,
    );
  });

  test('a cost request takes them in its filters too', () => {
    const options = costRequest(CostDataInput.omit({ timeFrame: true }));
    expect(options.parse({ groupBy: 'RESOURCE', filters: { cloudProvider: { in: ['AZURE'] } } })).toEqual({
      groupBy: 'RESOURCE',
      filters: { cloudProvider: { in: ['PROVIDER_B'] } },
    });
    expect(firstIssue(options, { groupby: 'RESOURCE' })).toMatch(/^groupby: unknown field/);
  });
});

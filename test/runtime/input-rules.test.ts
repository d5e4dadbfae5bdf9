import { z } from 'zod';
import { issueField, issueMessage, issuesInOrder } from '../../api/validate';
import { QueryTarget, RestoreTarget, strictDeep } from '../../runtime/input-rules';

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
    expect(firstIssue(QueryTarget, { gcsBucket: bucket })).toMatch(/^bucketC: unknown field/);
  });

  test('no target at all is refused, naming every accepted member', () => {
    expect(firstIssue(RestoreTarget, {})).toMatch(/name a target \(amazonBucket, bucketA, s3Bucket, googleBucket/);
    expect(firstIssue(QueryTarget, {})).toBe(
      'bucketA: name the bucket the results go to (amazonBucket, bucketA, s3Bucket)',
    );
  });
});

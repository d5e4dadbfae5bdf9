import { z } from 'zod';
import { issueField, issueMessage, issuesInOrder } from '../../api/validate';
import { strictDeep } from '../../runtime/input-rules';

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

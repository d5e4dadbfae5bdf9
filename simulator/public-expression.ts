import { z } from 'zod';

/**
 * A role's access-condition expression in the public dialect (interface-facts §11): not a string but a tree. Each node
 * names exactly one condition, `{<field>: {operator, <values>}}`, or a `group` of at least two nodes joined by AND or
 * OR. The neutral state keeps an expression as the string the specification shows; a public one is stored as its
 * JSON, with its provider and resource-type values in the neutral vocabulary.
 */

/** The fields a condition may test: §11's list, plus `apps`, which the public document also names. */
export const CONDITION_FIELDS = [
  'resourceId',
  'resourceType',
  'resourceName',
  'resourceGroupName',
  'accountId',
  'cloudProvider',
  'sourceRegion',
  'vpc',
  'subnets',
  'tagKeys',
  'tagKeyValues',
  'dataClasses',
  'environment',
  'apps',
] as const;

export type Expression = Record<string, unknown>;

/** `{operator, <values>}`: an operator such as IN or CONTAINS_ANY_OF, and one list of values under any name. */
const Condition = z
  .object({ operator: z.string().regex(/^[A-Z][A-Z_]*$/, 'must be an operator such as IN or CONTAINS_ANY_OF') })
  .catchall(z.array(z.unknown()))
  .refine((c) => Object.keys(c).length === 2, 'must hold an operator and one list of values');

const fields = Object.fromEntries(CONDITION_FIELDS.map((f) => [f, Condition.optional()]));

export const ExpressionInput: z.ZodType<Expression> = z.lazy(() =>
  z
    .strictObject({
      ...fields,
      group: z
        .strictObject({
          operator: z.enum(['AND', 'OR']),
          operands: z.array(ExpressionInput).min(2, 'a group joins at least two expressions'),
        })
        .optional(),
    })
    .refine((e) => Object.keys(e).length === 1, 'must name exactly one condition, or a group'),
);

/** The stored text of a public expression read back as the tree it was, or null for one that is not (a neutral text). */
export function expressionOf(text: string): Expression | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  const parsed = ExpressionInput.safeParse(value);
  return parsed.success ? parsed.data : null;
}

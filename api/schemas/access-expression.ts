import { z } from 'zod';

/**
 * A role's access-condition expression. The neutral vocabulary writes it as a string; the public dialect as a tree
 * (docs/service-interface.md §11): each node names one condition on a resource attribute, `{<attribute>: {operator,
 * <values>}}`, or a `group` `{operator: AND|OR, operands}` of two or more nodes. Kept as structured data, never
 * flattened to text. The public simulator checks requests by the same rules.
 */

export const ACCESS_CONDITION_ATTRIBUTES = [
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
  // Not in the list of docs/service-interface.md §11, but named by the public document.
  'apps',
] as const;
export type AccessConditionAttribute = (typeof ACCESS_CONDITION_ATTRIBUTES)[number];

export const GROUP_OPERATORS = ['AND', 'OR'] as const;

/** A tree of conditions, as the service keeps it; `AccessExpressionTreeInput` says what a request may hold. */
export interface AccessExpressionTree {
  readonly [member: string]: unknown;
}

/** String (neutral vocabulary) or tree (public dialect); null where the public document allows it. */
export type AccessExpression = string | AccessExpressionTree;

/**
 * Decoding is open and shallow: the tree is kept as the service sent it, whatever attributes or operators it uses
 * (and a flat check keeps role pages on the compiled decoding path, api/decode.ts).
 */
export const AccessExpressionTreeRecord: z.ZodType<AccessExpressionTree> = z.looseObject({});

/** `{operator, <values>}`: an operator such as IN or CONTAINS_ANY_OF, and one list of values under any name. */
const conditionInput = z
  .looseObject({ operator: z.string().regex(/^[A-Z][A-Z_]*$/, 'must be an operator such as IN or CONTAINS_ANY_OF') })
  .refine(
    (c) => Object.keys(c).length === 2 && Object.values(c).some(Array.isArray),
    'must hold an operator and one list of values',
  );

/** A tree as a request takes it: only the listed attributes and `group`, so that a misspelt attribute is refused. */
export const AccessExpressionTreeInput: z.ZodType<AccessExpressionTree> = z.lazy(() =>
  z
    .strictObject({
      ...Object.fromEntries(ACCESS_CONDITION_ATTRIBUTES.map((a) => [a, conditionInput.optional()])),
      group: z
        .strictObject({
          operator: z.enum(GROUP_OPERATORS),
          operands: z.array(AccessExpressionTreeInput).min(2, 'a group joins at least two expressions'),
        })
        .optional(),
    })
    .refine((tree) => Object.keys(tree).length === 1, 'must name exactly one condition, or a group'),
);

export const AccessExpressionRecord = z.union([z.string(), AccessExpressionTreeRecord]).nullable();
export const AccessExpressionInput = z.union([z.string().min(1), AccessExpressionTreeInput]).nullable();

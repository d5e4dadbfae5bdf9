import { z } from 'zod';

/**
 * A role's access-condition expression. The specification's vocabulary writes it as a string; the public dialect as a
 * tree (facts §11): conditions on resource attributes, each `{operator, <values>}`, joined by `group`
 * `{operator: AND|OR, operands}`. Kept as structured data, never flattened to text.
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
] as const;
export type AccessConditionAttribute = (typeof ACCESS_CONDITION_ATTRIBUTES)[number];

export const GROUP_OPERATORS = ['AND', 'OR'] as const;

/** A tree of conditions, as the service keeps it; `AccessExpressionTreeInput` says what a request may hold. */
export interface AccessExpressionTree {
  readonly [member: string]: unknown;
}

/** String (specification) or tree (public dialect); null where the public document allows it. */
export type AccessExpression = string | AccessExpressionTree;

/**
 * Decoding is open and shallow: the tree is kept as the service sent it, whatever attributes or operators it uses
 * (and a flat check keeps role pages on the compiled decoding path, api/decode.ts).
 */
export const AccessExpressionTreeRecord: z.ZodType<AccessExpressionTree> = z.looseObject({});

const conditionInput = z.looseObject({ operator: z.string().min(1) });

/** A tree as a request takes it: only the listed attributes and `group`, so that a misspelt attribute is refused. */
export const AccessExpressionTreeInput: z.ZodType<AccessExpressionTree> = z.lazy(() =>
  z
    .strictObject({
      ...Object.fromEntries(ACCESS_CONDITION_ATTRIBUTES.map((a) => [a, conditionInput.optional()])),
      group: z
        .strictObject({
          operator: z.enum(GROUP_OPERATORS),
          operands: z.array(AccessExpressionTreeInput).min(1, 'a group joins at least one condition'),
        })
        .optional(),
    })
    .refine((tree) => Object.values(tree).some((v) => v !== undefined), 'an expression names at least one condition'),
);

export const AccessExpressionRecord = z.union([z.string(), AccessExpressionTreeRecord]).nullable();
export const AccessExpressionInput = z.union([z.string().min(1), AccessExpressionTreeInput]).nullable();

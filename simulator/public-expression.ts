import { AccessExpressionTreeInput, type AccessExpressionTree } from '../api/schemas';

/**
 * A role's access-condition expression in the public dialect (docs/service-interface.md §11) is a tree, whose rules are
 * the interface's own (api/schemas/access-expression.ts). The neutral state keeps an expression as the string the
 * neutral vocabulary writes; a public one is stored as its JSON, with its provider and resource-type values in the
 * neutral vocabulary.
 */

export const ExpressionInput = AccessExpressionTreeInput;

/** The stored text of a public expression read back as the tree it was, or null for one that is not (a neutral text). */
export function expressionOf(text: string): AccessExpressionTree | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  const parsed = AccessExpressionTreeInput.safeParse(value);
  return parsed.success ? parsed.data : null;
}

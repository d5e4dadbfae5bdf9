/** Drill check expectations: `rows <op> <n>`, e.g. `rows >= 1`. */
export const EXPECTATION = /^\s*rows\s*(>=|<=|==|=|>|<|!=)\s*(\d+)\s*$/;

/** The comparisons an expectation may ask for. */
export type Operator = '>=' | '<=' | '==' | '=' | '>' | '<' | '!=';

export function checkExpectation(expectation: string, rows: number): boolean {
  const match = EXPECTATION.exec(expectation);
  return match ? compare(rows, match[1] as Operator, Number(match[2])) : false;
}

/** `value <op> n`; `=` and `==` are the same. */
export function compare(value: number, op: Operator, n: number): boolean {
  switch (op) {
    case '>=':
      return value >= n;
    case '<=':
      return value <= n;
    case '>':
      return value > n;
    case '<':
      return value < n;
    case '!=':
      return value !== n;
    default:
      return value === n;
  }
}

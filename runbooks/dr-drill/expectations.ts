/** Drill check expectations: `rows <op> <n>`, e.g. `rows >= 1`. */
export const EXPECTATION = /^\s*rows\s*(>=|<=|==|=|>|<|!=)\s*(\d+)\s*$/;

export function checkExpectation(expectation: string, rows: number): boolean {
  const match = EXPECTATION.exec(expectation);
  if (!match) return false;
  const n = Number(match[2]);
  switch (match[1]) {
    case '>=':
      return rows >= n;
    case '<=':
      return rows <= n;
    case '>':
      return rows > n;
    case '<':
      return rows < n;
    case '!=':
      return rows !== n;
    default:
      return rows === n;
  }
}

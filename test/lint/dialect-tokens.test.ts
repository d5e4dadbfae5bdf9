// Concepts inside, dialects at the edge (design decision 12): a wire token of the neutral dialect written into a
// runbook works on the simulator and fails on the real service. The dialect tables in api/ are the one place for them.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

const ROOT = join(__dirname, '..', '..');
/** Where the runbooks reason: no wire token of the neutral dialect belongs here. */
const SCANNED = ['runbooks', 'steps', 'runtime', 'worker', 'cli'];
/** Neutral resource types and metering names, providers, provider members, destination members. */
const NEUTRAL_TOKEN =
  /(?<![A-Za-z0-9_])(?:P[A-D]_[A-Z0-9_]*|PROVIDER_[A-Z0-9_]+|bucket[AC]|provider[A-D])(?![A-Za-z0-9])/g;

/**
 * Occurrences known and not fixed yet, as `file: token`. Each is pending issue 17: empty now, and a new entry needs a
 * comment saying why it cannot use api/dialect.
 */
const PENDING_ISSUE_17: readonly string[] = [];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

/** The neutral tokens in a file's code: names, and string or template text, never comments. */
function tokensIn(text: string, fileName = 'code.ts'): { line: number; token: string }[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const found: { line: number; token: string }[] = [];
  const visit = (node: ts.Node): void => {
    const literal =
      ts.isIdentifier(node) ||
      ts.isPrivateIdentifier(node) ||
      ts.isStringLiteral(node) ||
      ts.isNoSubstitutionTemplateLiteral(node) ||
      ts.isTemplateHead(node) ||
      ts.isTemplateMiddle(node) ||
      ts.isTemplateTail(node);
    if (literal) {
      const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
      for (const match of node.text.matchAll(NEUTRAL_TOKEN)) found.push({ line, token: match[0] });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

test('no runbook, step, runtime, worker or CLI code names a neutral-dialect token (they live in api/dialect)', () => {
  const found = SCANNED.flatMap((dir) =>
    sourceFiles(join(ROOT, dir)).flatMap((path) => {
      const file = relative(ROOT, path);
      return tokensIn(readFileSync(path, 'utf8'), path).map(({ line, token }) => ({ file, line, token }));
    }),
  );
  const offending = found
    .filter(({ file, token }) => !PENDING_ISSUE_17.includes(`${file}: ${token}`))
    .map(({ file, line, token }) => `${file}:${line} ${token}`);
  expect(offending).toEqual([]);
});

test('the scan finds tokens in names, strings and templates, and none in comments or in a longer name', () => {
  const sample = [
    '// bucketA in a comment, PA_VM too',
    "const t = { type: 'PA_VM' };",
    'const m = `${x}providerA ${y} at PROVIDER_B`;',
    'const GRPC_CODE = 1;',
    'if (d.bucketC) use(d);',
    "const fine = 'PA_VMS_ARE_NOT' && 'bucketAB';",
  ].join('\n');
  expect(tokensIn(sample)).toEqual([
    { line: 2, token: 'PA_VM' },
    { line: 3, token: 'providerA' },
    { line: 3, token: 'PROVIDER_B' },
    { line: 5, token: 'bucketC' },
    { line: 6, token: 'PA_VMS_ARE_NOT' },
  ]);
});

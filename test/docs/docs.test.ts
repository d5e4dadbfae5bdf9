// The docs hold together: README.md and docs/**/*.md link only to files and headings that exist, name in backticks
// only paths the repository has, show only commands
// and options the CLI has, and name only environment variables the code reads (configuration.test.ts checks that
// docs/configuration.md lists every variable the product reads, as runtime/config/ documents it). Each test fails with
// the whole list of what is wrong, file and line first.
import { execFileSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { commandLines, problemsOf } from './cli-lines';
import { variablesNamed, variablesRead } from './env-vars';
import { anchors, inlineCode, links, loadPages, ROOT, type Page } from './markdown';

const pages = loadPages();
const byPath = new Map(pages.map((p) => [p.path, p]));

/** Fails with one line per problem, so that the report reads as a to-do list. */
function expectNone(problems: string[]): void {
  expect(problems.join('\n')).toBe('');
}

test('the pages are the README and the docs tree, with the runbooks and operations pages', () => {
  const paths = pages.map((p) => p.path);
  expect(paths).toEqual(expect.arrayContaining(['README.md', 'docs/configuration.md', 'docs/cli.md']));
  expect(paths.filter((p) => p.startsWith('docs/runbooks/')).length).toBeGreaterThanOrEqual(7);
});

test('every relative link resolves to a file, and every #anchor to a heading of it', () => {
  const problems: string[] = [];
  for (const page of pages) {
    for (const { target, line } of links(page)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target === '') continue;
      const [path = '', anchor] = target.split('#') as [string, string | undefined];
      const file = path === '' ? page.path : join(dirname(page.path), decodeURI(path)).split('\\').join('/');
      const where = `${page.path}:${line}: ${target}`;
      if (!existsSync(join(ROOT, file))) {
        problems.push(`${where}: no file ${file}`);
        continue;
      }
      if (anchor === undefined) continue;
      const linked: Page | undefined = byPath.get(file);
      if (!linked || statSync(join(ROOT, file)).isDirectory()) {
        problems.push(`${where}: an anchor into ${file}, which is not a page of the docs`);
      } else if (!anchors(linked).has(anchor)) {
        problems.push(`${where}: no heading '#${anchor}' in ${file}`);
      }
    }
  }
  expectNone(problems);
});

test('every repository path the docs show in backticks exists in the repository', () => {
  // A path is what names a file by its extension (`docs/cli.md`, `spec/facts.md`) or starts with a tracked folder
  // (`deploy/helm/`): a user has only the repository, so nothing else may be pointed at. Relative to the root or the
  // page's own folder, as links are.
  const tracked = execFileSync('git', ['ls-files'], { cwd: ROOT, encoding: 'utf8' }).split('\n');
  const folders = new Set(tracked.filter((f) => f.includes('/')).map((f) => f.split('/')[0]));
  const problems: string[] = [];
  let checked = 0;
  for (const page of pages) {
    for (const { code, line } of inlineCode(page)) {
      if (!/^[\w.-]+(\/[\w.-]+)*\/?$/.test(code) || !code.includes('/')) continue;
      const file = /\/[\w.-]+\.(md|ts|js|mjs|cjs|json|ya?ml|sh|png|html)$/.test(code);
      if (!file && !folders.has(code.split('/')[0] ?? '')) continue;
      checked++;
      if (!existsSync(join(ROOT, code)) && !existsSync(join(ROOT, dirname(page.path), code))) {
        problems.push(`${page.path}:${line}: \`${code}\` is not in the repository`);
      }
    }
  }
  expect(checked).toBeGreaterThan(50);
  expectNone(problems);
});

test('every runbooks command, subcommand and option the docs show is in the CLI command table', () => {
  const lines = pages.flatMap(commandLines);
  // The docs show the CLI at work: a check that finds nothing to check would prove nothing.
  expect(lines.length).toBeGreaterThan(50);
  expectNone(lines.flatMap((line) => problemsOf(line)));
});

test('every environment variable the docs name is read by the code', () => {
  const { names, prefixes } = variablesRead();
  const problems = pages
    .flatMap(variablesNamed)
    .filter((v) => (v.family ? ![...names, ...prefixes].some((n) => n.startsWith(v.name)) : !names.has(v.name)))
    .map((v) => `${v.where}: ${v.name}${v.family ? '*' : ''} is read nowhere in the code`);
  expectNone(problems);
});

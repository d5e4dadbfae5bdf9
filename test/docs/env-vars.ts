import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, type Page } from './markdown';

/**
 * Environment variables, as the docs name them and as the code reads them.
 *
 * Named in the docs: every word with a prefix of ours or of the libraries configured by the environment (RUNBOOKS_,
 * BACKUP_, TEMPORAL_, OTEL_, SIMULATOR_, BENCH_), and any other upper-case name a shell line of the docs assigns
 * (`NAME=…`) or expands (`$NAME`). `TEMPORAL_GRPC_META_*` and `TEMPORAL_TLS_*` name families.
 *
 * Read by the code (for "every variable the docs name exists"): our tracked source, tools and deployment files
 * (scripts, bench, tests, compose, the image), plus the two libraries the worker and the CLI hand their environment
 * to: @temporalio/envconfig (the TEMPORAL_* connection settings) and OpenTelemetry (the OTEL_* exporter settings).
 *
 * Must be in docs/configuration.md (the reverse): what the product reads, meaning the worker, the CLI and its
 * console, the simulator and the demo (worker/, cli/, console/, runtime/, simulator/, demo/, api/, steps/, runbooks/,
 * contracts/, tests excluded): the keys of the schemas in runtime/config/, every `env.NAME` or `env['NAME']` read,
 * and every quoted variable name of our prefixes (runtime/config/ names the TEMPORAL_* it checks that way). Variables
 * of the tools (scripts/, the benchmarks and the tests) configure the development machine, not a deployment: the docs
 * that mention them are checked the first way, not required in the reference. HOME, XDG_CONFIG_HOME and APPDATA only
 * locate Temporal's default config file, as every Temporal tool does; configuration.md says so at TEMPORAL_CONFIG_FILE
 * rather than listing the platform's variables.
 */

const PREFIXED = /\b((?:RUNBOOKS|BACKUP|TEMPORAL|OTEL|SIMULATOR|BENCH)_[A-Z0-9_]*)(\*|<[A-Za-z_]+>)?/g;
const ASSIGNED = /(?:^|[\s;(])([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)=/g;
const EXPANDED = /\$\{?([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)\b/g;
const PRODUCT_PREFIX = /^(?:RUNBOOKS|BACKUP|TEMPORAL|OTEL|SIMULATOR)_/;

export interface NamedVariable {
  name: string;
  /** A family such as TEMPORAL_GRPC_META_* : `name` is its prefix. */
  family: boolean;
  where: string;
}

/** The variables a page names, each with the first line that names it. */
export function variablesNamed(page: Page): NamedVariable[] {
  const found = new Map<string, NamedVariable>();
  page.text.split('\n').forEach((line, i) => {
    const where = `${page.path}:${i + 1}`;
    const add = (name: string, family: boolean) => {
      const key = `${name}${family ? '*' : ''}`;
      if (!found.has(key)) found.set(key, { name, family, where });
    };
    for (const m of line.matchAll(PREFIXED)) {
      const family = m[2] !== undefined || m[1]!.endsWith('_');
      // A word that stops at an underscore names a family only when marked so (`_*`, `_<NAME>`).
      if (m[1]!.endsWith('_') && m[2] === undefined) continue;
      add(m[1]!, family);
    }
    for (const m of line.matchAll(ASSIGNED)) add(m[1]!, false);
    for (const m of line.matchAll(EXPANDED)) add(m[1]!, false);
  });
  return [...found.values()];
}

const CODE_FILE = /\.(?:ts|js|cjs|mjs|sh|ya?ml|json)$|(?:^|\/)(?:Dockerfile|run)$/;

/** Tracked files and new ones not yet committed (ignored files excepted), without those deleted from the tree. */
function trackedFiles(): string[] {
  return execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], {
    cwd: ROOT,
    encoding: 'utf8',
  })
    .split('\n')
    .filter((f) => CODE_FILE.test(f) && !f.startsWith('test/fixtures/') && !f.startsWith('docs/'))
    .filter((f) => existsSync(join(ROOT, f)))
    .filter((f) => !/^(?:package-lock\.json|schemas\/|examples\/)/.test(f));
}

// The docs lines of runtime/config/ (`…_SETTINGS: readonly SettingDoc[]`) name variables to document, and read none.
const DOCS_LINES = /^export const \w+: readonly SettingDoc\[\] = \[$[\s\S]*?^\];$/gm;
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8').replace(DOCS_LINES, '');

/** Names the code reads (every pattern a read takes here) in one file's text. */
// The tool scripts' error codes (TEMPORAL_CLI_NOT_FOUND, …) are quoted like variables and are none.
const ERROR_CODE = /_(?:NOT_FOUND|FAILED|INVALID)$/;

function readsIn(text: string, literals: RegExp): Set<string> {
  const names = new Set<string>();
  for (const m of text.matchAll(/\benv\??\.([A-Z][A-Z0-9_]*)\b/g)) names.add(m[1]!);
  for (const m of text.matchAll(/\benv\[['"`]([A-Z][A-Z0-9_]*)['"`]\]/g)) names.add(m[1]!);
  // A quoted name counts in a file that reads the environment at all; elsewhere it is an enum value or a code.
  if (/\benv\b/.test(text)) for (const m of text.matchAll(literals)) if (!ERROR_CODE.test(m[1]!)) names.add(m[1]!);
  return names;
}

// A name ending in `_` is a family's prefix (TEMPORAL_GRPC_META_), documented as `TEMPORAL_GRPC_META_<NAME>`.
const OUR_LITERALS = /['"`]((?:RUNBOOKS|BACKUP|TEMPORAL|OTEL|SIMULATOR)_[A-Z0-9_]+)['"`]/g;

/** The variables the product reads: what docs/configuration.md must list (see the comment at the top). */
export function productVariables(): Set<string> {
  // scripts/ensure-temporal.js is loaded by the worker for its embedded dev server.
  const product =
    /^(?:(?:worker|cli|console|runtime|simulator|demo|api|steps|runbooks|contracts)\/.*\.ts|scripts\/ensure-temporal\.js)$/;
  const names = new Set<string>();
  for (const file of trackedFiles().filter((f) => product.test(f) && !f.endsWith('.test.ts'))) {
    const text = read(file);
    for (const name of readsIn(text, OUR_LITERALS)) names.add(name);
    if (file.startsWith('runtime/config/')) {
      for (const m of text.matchAll(/^\s+([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+):/gm)) names.add(m[1]!);
    }
  }
  // runtime/config/temporal.ts names the TLS files by a base that it completes with _PATH or _DATA (variableOf).
  for (const base of ['TEMPORAL_TLS_CLIENT_CERT', 'TEMPORAL_TLS_CLIENT_KEY', 'TEMPORAL_TLS_SERVER_CA_CERT']) {
    if (names.delete(base)) for (const suffix of ['_PATH', '_DATA']) names.add(`${base}${suffix}`);
  }
  return names;
}

/** JavaScript files of a package's CommonJS build, where its environment names are. */
function packageFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.js') && !/(?:^|\/)(?:esm|esnext)\//.test(f))
    .map((f) => join(dir, f));
}

/** Every variable anything of ours reads, plus what the two libraries we hand the environment to read. */
export function variablesRead(): { names: Set<string>; prefixes: string[] } {
  const names = new Set(productVariables());
  const anyLiteral = /['"`]([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)['"`]/g;
  for (const file of trackedFiles()) {
    const text = read(file);
    for (const name of readsIn(text, anyLiteral)) names.add(name);
    // Compose and shell files read ${NAME}; the image and scripts set what they pass on.
    if (/\.(?:ya?ml|sh)$|Dockerfile$|\.ci\/run$/.test(file)) {
      for (const m of text.matchAll(EXPANDED)) names.add(m[1]!);
    }
  }
  const modules = join(ROOT, 'node_modules');
  const libraries = [
    join(modules, '@temporalio', 'envconfig', 'lib'),
    ...readdirSync(join(modules, '@opentelemetry')).map((p) => join(modules, '@opentelemetry', p, 'build', 'src')),
  ];
  const prefixes: string[] = [];
  for (const file of libraries.flatMap((dir) => safeList(dir))) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/\b((?:TEMPORAL|OTEL)_[A-Z0-9_]*)/g)) {
      if (m[1]!.endsWith('_')) prefixes.push(m[1]!);
      else names.add(m[1]!);
    }
  }
  return { names, prefixes };
}

function safeList(dir: string): string[] {
  try {
    return packageFiles(dir);
  } catch {
    return [];
  }
}

/** A table of docs/configuration.md: its section, its header's cells, and its rows' cells, each with its line. */
export interface DocTable {
  section: string;
  header: string[];
  rows: { cells: string[]; line: number }[];
}

// A cell ends at a pipe that no backslash escapes.
const cellsOf = (row: string) =>
  row
    .trim()
    .replace(/^\|/, '')
    .replace(/\|$/, '')
    .split(/(?<!\\)\|/)
    .map((c) => c.trim());

/** The tables of a page (outside code blocks), in order. */
export function tablesOf(page: Page): DocTable[] {
  const tables: DocTable[] = [];
  let section = '';
  let open: DocTable | undefined;
  page.prose.split('\n').forEach((line, i) => {
    const heading = /^#{1,6}\s+(.*)$/.exec(line);
    if (heading) section = heading[1]!.trim();
    if (!line.trim().startsWith('|')) {
      open = undefined;
      return;
    }
    const cells = cellsOf(line);
    if (!open) {
      open = { section, header: cells, rows: [] };
      tables.push(open);
    } else if (!cells.every((c) => /^:?-+:?$/.test(c))) {
      open.rows.push({ cells, line: i + 1 });
    }
  });
  return tables;
}

/** A variable's row of docs/configuration.md: the names of its first cell, its default and its meaning. */
export interface SettingRow {
  names: string[];
  default: string;
  meaning: string;
  section: string;
  line: number;
}

/** The rows of the page's `Variable | Default | Meaning` tables. */
export function settingRows(configuration: Page): SettingRow[] {
  return tablesOf(configuration)
    .filter((t) => t.header.join('|') === 'Variable|Default|Meaning')
    .flatMap((t) =>
      t.rows.map(({ cells, line }) => ({
        names: [...(cells[0] ?? '').matchAll(/`([^`]+)`/g)].map((m) => m[1]!),
        default: cells[1] ?? '',
        meaning: cells[2] ?? '',
        section: t.section,
        line,
      })),
    );
}

/** A documented name as the code reads it: `TEMPORAL_GRPC_META_<NAME>` is the family TEMPORAL_GRPC_META_. */
export const readName = (documented: string) => documented.replace(/(?:\*|<[A-Za-z_]+>)$/, '');

export const isProductPrefixed = (name: string) => PRODUCT_PREFIX.test(name);

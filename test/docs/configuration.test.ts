// docs/configuration.md against the docs lines of runtime/config/: each concern's module has a table of its variables
// ({ name, default, meaning }, SETTING_TABLES), and the page's variable tables say the same, row for row, default and
// meaning verbatim; and every variable the product reads is in one of those tables. Each test fails with the whole
// list of what is wrong, file and line first.
import { SETTING_TABLES, type SettingDoc } from '../../runtime/config';
import { productVariables, readName, settingRows, tablesOf } from './env-vars';
import { parsePage } from './markdown';

const PAGE = 'docs/configuration.md';
const page = parsePage(PAGE);
const rows = settingRows(page);
const lines: (SettingDoc & { module: string })[] = Object.entries(SETTING_TABLES).flatMap(([module, table]) =>
  table.map((setting) => ({ ...setting, module: `runtime/config/${module}` })),
);
const lineOf = new Map(lines.map((l) => [l.name, l]));

function expectNone(problems: string[]): void {
  expect(problems.join('\n')).toBe('');
}

test('the variable tables have a Default column, except the development tools', () => {
  expect(rows.length).toBeGreaterThan(50);
  const others = tablesOf(page).filter((t) => !rows.some((r) => r.section === t.section));
  // The tools' variables configure the development machine: none is a setting of the product, none has a docs line.
  expect(others.map((t) => t.section)).toEqual(['Development only']);
});

test(`every row of ${PAGE} is a docs line of runtime/config/, with the same default and meaning`, () => {
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const row of rows) {
    const where = `${PAGE}:${row.line}`;
    if (row.names.length !== 1) {
      problems.push(`${where}: a row names one variable in backticks, not ${row.names.length}`);
      continue;
    }
    const name = row.names[0]!;
    if (seen.has(name)) problems.push(`${where}: a second row for ${name}`);
    seen.add(name);
    const line = lineOf.get(name);
    if (!line) {
      problems.push(`${where}: ${name} is in no table of runtime/config/ (add its docs line to its concern's module)`);
      continue;
    }
    for (const column of ['default', 'meaning'] as const) {
      if (row[column] !== line[column]) {
        problems.push(`${where}: ${name}'s ${column} is '${row[column]}', ${line.module} says '${line[column]}'`);
      }
    }
  }
  expectNone(problems);
});

test(`every docs line of runtime/config/ has its row in ${PAGE}, and is in one table only`, () => {
  const documented = new Set(rows.flatMap((r) => r.names));
  const problems = lines
    .filter((l) => !documented.has(l.name))
    .map((l) => `${l.module}: ${l.name} has no row in ${PAGE}`);
  const modules = new Map<string, string>();
  for (const l of lines) {
    const other = modules.get(l.name);
    if (other !== undefined) problems.push(`${l.module}: ${l.name} is ${other}'s too`);
    modules.set(l.name, l.module);
  }
  expectNone(problems);
});

test('every variable the worker, the CLI and the simulator read has a docs line in runtime/config/', () => {
  const read = productVariables();
  expect(read.size).toBeGreaterThan(30);
  const known = new Set(lines.map((l) => readName(l.name)));
  const missing = [...read].filter((name) => !known.has(name)).sort();
  expectNone(missing.map((name) => `runtime/config/: no docs line for ${name}, which the code reads`));
});

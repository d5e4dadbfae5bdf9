// test/tiers.js places each test file in one tier: a file it names must exist (a renamed file would otherwise move to
// the unit tier unseen), and no file runs twice in one dialect.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const ROOT = join(__dirname, '..');
type Tiers = Record<'E2E' | 'PUBLIC' | 'PUBLIC_FULL' | 'FULL' | 'RELIABILITY', string[]> & {
  PROJECTS: Record<string, string[]>;
};
// Plain CommonJS, read by jest.config.js before any transform.
const tiers = createRequire(__filename)('./tiers') as Tiers;
const jestConfig = createRequire(__filename)('../jest.config.js') as { projects: { displayName: string }[] };

test('every file the tiers name exists', () => {
  const named = [tiers.E2E, tiers.PUBLIC, tiers.PUBLIC_FULL, tiers.FULL, tiers.RELIABILITY].flat();
  expect(named.length).toBeGreaterThan(40);
  expect(named.filter((path) => !existsSync(join(ROOT, path)))).toEqual([]);
});

test('a file runs in one tier of the neutral dialect, and at most once more in the public one', () => {
  const neutral = [...tiers.E2E, ...tiers.FULL, ...tiers.RELIABILITY];
  expect(neutral.filter((path, i) => neutral.indexOf(path) !== i)).toEqual([]);
  const publicDialect = [...tiers.PUBLIC, ...tiers.PUBLIC_FULL];
  expect(publicDialect.filter((path, i) => publicDialect.indexOf(path) !== i)).toEqual([]);
  // The public dialect's files are e2e files that also run in the neutral one.
  expect(publicDialect.filter((path) => !neutral.includes(path))).toEqual([]);
  // `npm test`'s public file is one of its own e2e files.
  expect(tiers.PUBLIC.filter((path) => !tiers.E2E.includes(path))).toEqual([]);
});

test('npm test and npm run test:full together run every jest project, each once', () => {
  const run = Object.values(tiers.PROJECTS).flat().sort();
  expect(run).toEqual(jestConfig.projects.map((project) => project.displayName).sort());
});

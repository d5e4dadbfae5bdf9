import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

// A new top-level folder of sources must reach the build and the image: tsc compiles an unlisted folder only through
// imports, and the image's build stage copies folders by name, so a folder missing here builds on a laptop and breaks
// the container build.
const ROOT = join(__dirname, '..', '..');
const NOT_SOURCES = new Set(['node_modules', 'dist', 'coverage', 'test', 'scripts', 'docs', 'deploy', 'examples']);

const hasSources = (dir: string): boolean =>
  readdirSync(dir).some((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? hasSources(path) : /\.ts$/.test(name) && !/\.(test|d)\.ts$/.test(name);
  });

const sourceFolders = readdirSync(ROOT)
  .filter((name) => !name.startsWith('.') && !NOT_SOURCES.has(name))
  .filter((name) => statSync(join(ROOT, name)).isDirectory() && hasSources(join(ROOT, name)))
  .sort();

const includeOf = (file: string) =>
  (JSON.parse(readFileSync(join(ROOT, file), 'utf8')) as { include: string[] }).include;

describe('every top-level folder of sources', () => {
  it('is found (the list the checks below read)', () => {
    expect(sourceFolders).toEqual(expect.arrayContaining(['contracts', 'api', 'runbooks', 'cli']));
  });

  it.each(['tsconfig.json', 'tsconfig.build.json'])('is in the include of %s', (file) => {
    expect(sourceFolders.filter((folder) => !includeOf(file).includes(folder))).toEqual([]);
  });

  it("is copied by the Dockerfile's build stage", () => {
    const copied = [...readFileSync(join(ROOT, 'Dockerfile'), 'utf8').matchAll(/^COPY (\S+) \.\/\1$/gm)].map(
      (m) => m[1],
    );
    expect(sourceFolders.filter((folder) => !copied.includes(folder))).toEqual([]);
  });
});

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

// The script the note and docs/development.md quote, so that the test and the figures read the same graph.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { folderGraph } = require('../../scripts/import-graph.js') as {
  folderGraph: (root: string) => { edges: Map<string, Map<string, number>>; cycles: string[]; leafImports: string[] };
};

const ROOT = join(__dirname, '..', '..');

describe('the folder import graph', () => {
  const graph = folderGraph(ROOT);

  it('has no folder cycle', () => {
    expect(graph.cycles).toEqual([]);
  });

  it('imports cli/, console/ and demo/ only from the command table that loads them (cli/run.ts)', () => {
    expect(graph.leafImports).toEqual([]);
  });

  it('has runtime/ import nothing from steps/, the floor above it', () => {
    expect([...(graph.edges.get('runtime')?.keys() ?? [])]).not.toContain('steps');
  });

  it('finds a cycle and a leaf import when a tree has them, so the checks above can fail', () => {
    const root = mkdtempSync(join(tmpdir(), 'import-graph-'));
    try {
      const files: Record<string, string> = {
        'runtime/a.ts': "import { b } from '../steps/b';\nexport const a = b;\n",
        'steps/b.ts': "export { c as b } from '../runtime/c';\n",
        'runtime/c.ts': 'export const c = 1;\n',
        'console/page.ts': "import { main } from '../cli/main';\nexport const page = main;\n",
        'cli/main.ts': 'export const main = 1;\n',
      };
      for (const [path, text] of Object.entries(files)) {
        mkdirSync(dirname(join(root, path)), { recursive: true });
        writeFileSync(join(root, path), text);
      }
      const found = folderGraph(root);
      expect(found.cycles).toEqual(['runtime → steps']);
      expect(found.leafImports).toEqual(['console/page.ts → ../cli/main']);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

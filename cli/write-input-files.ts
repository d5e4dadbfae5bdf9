import { exampleInput, exampleNames, namedExample } from '../operator/runbooks';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { exampleFile, inputJsonSchema, jsonFileText, RUNBOOKS_WITH_INPUT } from '../operator/input-schemas';
import type { RunbookName } from '../runbooks/registry';

/** Where an example is written: examples/<runbook>.json, and a named one examples/<runbook>.<name>.json. */
export const examplePath = (runbook: RunbookName, name?: string) =>
  `examples/${runbook}${name === undefined ? '' : `.${name}`}.json`;

/** Every generated file under the repository, by its path from the root: schemas/ and examples/. */
export function inputFiles(): Map<string, string> {
  const files = new Map<string, string>();
  for (const runbook of RUNBOOKS_WITH_INPUT) {
    files.set(`schemas/${runbook}.json`, jsonFileText(inputJsonSchema(runbook)));
    const example = exampleInput(runbook);
    if (example) files.set(examplePath(runbook), jsonFileText(exampleFile(runbook, example)));
    for (const name of exampleNames(runbook)) {
      files.set(examplePath(runbook, name), jsonFileText(exampleFile(runbook, namedExample(runbook, name))));
    }
  }
  return files;
}

/** Writes them (`npm run schemas`). */
export function writeInputFiles(root: string): string[] {
  const written: string[] = [];
  for (const [path, text] of inputFiles()) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), text);
    written.push(path);
  }
  return written;
}

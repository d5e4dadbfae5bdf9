import { exampleInput } from '../operator/runbooks';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { exampleFile, inputJsonSchema, jsonFileText, RUNBOOKS_WITH_INPUT } from '../operator/input-schemas';

/** Every generated file under the repository, by its path from the root: schemas/ and examples/. */
export function inputFiles(): Map<string, string> {
  const files = new Map<string, string>();
  for (const runbook of RUNBOOKS_WITH_INPUT) {
    files.set(`schemas/${runbook}.json`, jsonFileText(inputJsonSchema(runbook)));
    const example = exampleInput(runbook);
    if (example) files.set(`examples/${runbook}.json`, jsonFileText(exampleFile(runbook, example)));
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

// Jest's global setup for every run: a folder that lives as long as the run, where the first file to bundle the
// workflows leaves the bundle for the others (test/helpers/temporal.ts).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const RUN_DIR_ENV = 'RUNBOOKS_TEST_RUN_DIR';

export default function makeRunDir(): void {
  // Workers are started after the global setup, with this environment.
  process.env[RUN_DIR_ENV] ??= mkdtempSync(join(tmpdir(), 'runbooks-test-run-'));
}

export function removeRunDir(): void {
  const dir = process.env[RUN_DIR_ENV];
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
}

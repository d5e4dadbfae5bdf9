#!/usr/bin/env node
// `npm run build:bundle` (and the Dockerfile): bundles the workflows once at build time, as Temporal's production
// sample does, so a worker started with RUNBOOKS_WORKFLOW_BUNDLE skips webpack at every start.
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { bundleWorkflowCode, DefaultLogger } from '@temporalio/worker';
import { runbookBundleOptions } from './runbook-worker';

export const DEFAULT_BUNDLE_PATH = 'dist/workflow-bundle.js';

/** Writes the workflow bundle to `outFile` and returns its absolute path. */
export async function writeWorkflowBundle(outFile: string): Promise<string> {
  const { code } = await bundleWorkflowCode({
    // Traces are switched on where the image runs, so its bundle carries the workflow interceptors.
    ...runbookBundleOptions(true),
    logger: new DefaultLogger('WARN'),
  });
  const path = resolve(outFile);
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, code);
  return path;
}

if (require.main === module) {
  writeWorkflowBundle(process.argv[2] ?? DEFAULT_BUNDLE_PATH).then(
    (path) => console.log(`workflow bundle written to ${path}`),
    (err: unknown) => {
      process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      process.exitCode = 1;
    },
  );
}

// Which run an export file under a name chosen in the input belongs to: a marker beside it, created once.
import { activityInfo } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { mkdir, readdir, readFile, stat } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { FailureType } from '../../contracts';
import { createFileOnce } from '../../runtime/atomic-file';
import type { ExportCheckpoint } from '../../runtime/export-file';

/** The marker beside a claimed file, `<fileName>.owner`: JSON naming the run that claimed it (not a CSV: no export). */
export const OWNER_SUFFIX = '.owner';

export interface FileOwner {
  workflowId: string;
  runId: string;
}

/**
 * Claims `path` for this activity's run before it writes there, so that an export whose name came from its input never
 * replaces another run's file. The claim is the marker `<path>.owner`, created only if absent (written aside, then
 * hard-linked into place), so that of two runs asking for one name at once exactly one gets it.
 *
 * The run may go on when the marker names it: its own earlier attempt claimed the name, and left a partial file to
 * resume or a finished one to write again. It is refused, with a non-retryable `CONFLICT` naming the file, when the
 * marker names another run, when another run's partial file for that name is there (a run in flight), or when the file
 * is there with no marker (written before names were claimed) unless this activity's own last checkpoint covers that
 * file whole (its earlier attempt finished it and was lost before it could answer).
 */
export async function claimExportFile(path: string): Promise<void> {
  const info = activityInfo();
  // As `exportPages` names this run's partial file.
  const mine: FileOwner = {
    workflowId: info.workflowExecution?.workflowId ?? info.workflowType ?? '',
    runId: info.workflowExecution?.runId ?? info.activityId,
  };
  const marker = `${path}${OWNER_SUFFIX}`;
  const claimed = await readOwner(marker);
  if (claimed) return ownedOrRefused(path, claimed, mine);

  const size = await stat(path).then(
    (s) => s.size,
    () => undefined,
  );
  if (size !== undefined && !finishedByThisActivity(size)) refuse(path, undefined);
  const writing = await otherRunWriting(path, mine.runId);
  if (writing !== undefined) refuse(path, { runId: writing }, 'is being written by');
  await mkdir(dirname(path), { recursive: true });
  if (await createFileOnce(marker, JSON.stringify(mine) + '\n')) return;
  // Another run created the marker since it was read: that run has the name.
  const winner = await readOwner(marker);
  if (!winner) throw new Error(`${marker} was created and is gone again`);
  ownedOrRefused(path, winner, mine);
}

function ownedOrRefused(path: string, owner: FileOwner, mine: FileOwner): void {
  if (owner.runId !== mine.runId) refuse(path, owner, 'belongs to');
}

function refuse(
  path: string,
  owner: Partial<FileOwner> | undefined,
  verb: 'belongs to' | 'was written by' | 'is being written by' = 'was written by',
): never {
  const file = `${basename(dirname(path))}/${basename(path)}`;
  const who = owner
    ? `run ${owner.runId ?? '?'}${owner.workflowId === undefined ? '' : ` of workflow ${owner.workflowId}`}`
    : 'another run';
  throw ApplicationFailure.create({
    type: FailureType.Conflict,
    nonRetryable: true,
    message:
      `${file} ${verb} ${who}; it is left as it is. Give another fileName, or none for a file of this run's own ` +
      `(<workflowId>--<runId>.csv); to reuse the name, remove the file and its ${OWNER_SUFFIX} marker first`,
    details: [{ file: path, owner: owner ?? null }],
  });
}

async function readOwner(marker: string): Promise<FileOwner | undefined> {
  let text: string;
  try {
    text = await readFile(marker, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  let owner: Partial<FileOwner> | null = null;
  try {
    owner = JSON.parse(text) as Partial<FileOwner> | null;
  } catch {
    // Not JSON: refused below, as a marker naming no run.
  }
  if (typeof owner?.workflowId !== 'string' || typeof owner.runId !== 'string') {
    throw ApplicationFailure.create({
      type: FailureType.Conflict,
      nonRetryable: true,
      message: `${marker} names no run; it is left as it is`,
      details: [{ file: marker }],
    });
  }
  return { workflowId: owner.workflowId, runId: owner.runId };
}

/** Whether this activity's last checkpoint says an earlier attempt wrote every page, to a file of exactly `size`. */
function finishedByThisActivity(size: number): boolean {
  const own = activityInfo().heartbeatDetails as ExportCheckpoint | undefined;
  return own !== undefined && own !== null && own.nextToken === null && own.bytes === size;
}

/** The run ID of another run's partial file for `path` (`<name>.<runId>.partial`, see `exportPages`), if any. */
async function otherRunWriting(path: string, runId: string): Promise<string | undefined> {
  const prefix = `${basename(path)}.`;
  const names = await readdir(dirname(path)).catch((err: unknown) => {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  });
  for (const name of names) {
    if (!name.startsWith(prefix) || !name.endsWith('.partial')) continue;
    const run = name.slice(prefix.length, -'.partial'.length);
    // A longer name's partial (`<name>.x.<runId>.partial`) is not this file's.
    if (run !== runId && !run.includes('.')) return run;
  }
  return undefined;
}

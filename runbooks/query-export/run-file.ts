// Names of the files a run writes under its own name. Workflow code: no Node modules, so that workflows can import it.

/**
 * Room left in a file name (255 bytes) for the run ID, the separator, a suffix such as `-remaining.csv`, and what the
 * export writer adds to the name of its partial file (`.<runId>.partial`).
 */
const MAX_WORKFLOW_PART = 150;

/** A short stable hash that workflow code can compute (Node's crypto is not there): FNV-1a, 64 bits, as hex. */
function fnv1a64(text: string): string {
  let hash = 0xcbf29ce484222325n;
  for (let i = 0; i < text.length; i++) {
    hash = BigInt.asUintN(64, (hash ^ BigInt(text.charCodeAt(i))) * 0x100000001b3n);
  }
  return hash.toString(16).padStart(16, '0');
}

/**
 * The name of a file a run writes for itself: `<workflowId>--<runId><suffix>`, as drill and posture reports are named.
 * The run ID is unique, so that two runs of one workflow ID (a rerun after completion, a schedule reusing an ID), and
 * two workflow IDs that differ only in characters a file name cannot hold, never share a file. Those characters become
 * `_` (`exportPath` would otherwise keep only what follows a `/`), a leading dot too (a hidden file stays out of
 * listings), and a workflow ID too long for a file name is cut, with a hash of the whole so that two long IDs stay
 * apart.
 *
 * Decided in the workflow from `workflowInfo()`: every attempt of the activity that writes the file gets the same name
 * in its input, so that a retry resumes the file its predecessor started. A workflow that continues as new mid-export
 * must hand the name to the next run rather than compute it again (neither queryExport nor offboardSourceAccount does).
 */
export function runFileName(run: { workflowId: string; runId: string }, suffix: string): string {
  const { workflowId, runId } = run;
  const workflowPart =
    workflowId.length <= MAX_WORKFLOW_PART
      ? workflowId
      : `${workflowId.slice(0, MAX_WORKFLOW_PART - 17)}-${fnv1a64(workflowId)}`;
  return `${workflowPart}--${runId}${suffix}`.replace(/[^A-Za-z0-9._-]/g, '_').replace(/^\./, '_');
}

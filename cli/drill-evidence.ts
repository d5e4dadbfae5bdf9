// The drill reports `coverage` and `evidence score` read, with their seals checked: from an output folder, an unpacked
// evidence pack or an evidence pack file. Without --public-key, the keys beside the reports (a pack's own keys), as
// the console reads them: what they show is that the reports match those keys, which the output says.
import type { KeyObject } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { dataDirOf } from '../runtime/config';
import { keyIdOf, parsePublicKeys } from '../runtime/evidence-key';
import { DAY_MS } from '../history/coverage';
import { DRILL_REPORTS_FOLDER, DrillReader, type DrillEntry } from '../history/drill-index';
import type { SkippedReport } from '../history/drill-files';
import { PACK_KEYS, PACK_REPORTS } from '../history/pack';
import { packKeys } from '../history/pack-verify';
import { UsageError } from '../operator/errors';
import type { Help } from '../operator/help';
import type { EvidenceReadOutput } from '../operator/output-shapes';
import { readPublicKeys } from '../operator/public-keys';
import { outputDirOf } from './evidence-inputs';
import { readPackFile } from './evidence-pack-command';
import { parseDuration } from './schedule-policies';

export const DEFAULT_WITHIN = '90d';

export interface DrillEvidence {
  drills: DrillEntry[];
  skipped: SkippedReport[];
  /** The drill-reports/ folder read, or the pack file. */
  dir: string;
  keySource: 'given' | 'folder' | 'pack';
  keyIds: string[];
}

/** `--within` as a period: its text and its length in days; a usage error when it is not a duration above 0. */
export function withinOf(value: string | undefined, help: Help): { text: string; days: number } {
  const text = value ?? DEFAULT_WITHIN;
  const ms = parseDuration(text);
  if (ms === undefined || ms === 0) {
    throw new UsageError(
      `--within must be a period such as 90d, 12h or 1d12h (days, hours, minutes, seconds), not '${text}'\n${help.usage}`,
    );
  }
  return { text, days: ms / DAY_MS };
}

/** The JSON fields every reading of the evidence starts with, from the period the report was computed over. */
export function evidenceReadOutput(
  evidence: DrillEvidence,
  within: { text: string },
  period: { now: string; withinDays: number; since: string },
): EvidenceReadOutput {
  return {
    checkedAt: period.now,
    within: within.text,
    withinDays: period.withinDays,
    since: period.since,
    dir: evidence.dir,
    keySource: evidence.keySource,
    keyIds: evidence.keyIds,
  };
}

/** The reports that could not be read, and why: last in the JSON, and a line each in the text. */
export const skippedOutput = (evidence: DrillEvidence) =>
  evidence.skipped.map((s) => ({ file: s.file, reason: s.reason }));

/** `--dir`, else RUNBOOKS_OUTPUT_DIR, else <data dir>/output. */
export const dirArgOf = (dir: string | undefined, env: NodeJS.ProcessEnv): string =>
  dir ?? (env.RUNBOOKS_OUTPUT_DIR?.trim() || join(dataDirOf(env), 'output'));

const isFile = (path: string) =>
  stat(path).then(
    (s) => s.isFile(),
    () => false,
  );

/**
 * The drill reports at `arg` (an output folder, its drill-reports/, an unpacked pack or a pack file), each with its
 * seal checked against `keyFiles`, else the keys found with the reports. A missing folder is a NotFoundError (exit 5).
 */
export async function readDrillEvidence(arg: string, keyFiles: readonly string[], help: Help): Promise<DrillEvidence> {
  const given =
    keyFiles.length > 0 ? (await Promise.all(keyFiles.map(readPublicKeys))).flat().map((k) => k.key) : undefined;
  const path = resolve(arg);
  if (await isFile(path)) return readPackDrills(path, given);
  const outputDir = await outputDirOf(path, help);
  // An unpacked pack keeps its keys in keys/, not beside the reports.
  const packKeyFiles = given ? [] : await packFolderKeys(outputDir);
  const publicKeys = given ?? (packKeyFiles.length > 0 ? packKeyFiles : undefined);
  const index = await new DrillReader({ outputDir, ...(publicKeys ? { publicKeys } : {}) }).read();
  return {
    drills: index.drills,
    skipped: index.skipped,
    dir: join(outputDir, DRILL_REPORTS_FOLDER),
    keySource: given ? 'given' : packKeyFiles.length > 0 ? 'pack' : 'folder',
    keyIds: index.keyIds,
  };
}

async function packFolderKeys(outputDir: string): Promise<KeyObject[]> {
  const folder = join(outputDir, PACK_KEYS);
  const names = await readdir(folder).catch(() => []);
  const keys: KeyObject[] = [];
  for (const name of names.filter((n) => n.endsWith('.pem')).sort()) {
    const file = join(folder, name);
    try {
      keys.push(...parsePublicKeys(await readFile(file, 'utf8'), file));
    } catch {
      // A file that is not a key verifies nothing: the reports it would have verified stay unverified.
    }
  }
  return keys;
}

/** A pack file's drill reports, read from a scratch copy of its drill-reports/, removed after. */
async function readPackDrills(path: string, given: KeyObject[] | undefined): Promise<DrillEvidence> {
  const entries = await readPackFile(path);
  const scratch = await mkdtemp(join(tmpdir(), 'runbooks-pack-'));
  try {
    for (const e of entries) {
      if (!e.path.startsWith(`${PACK_REPORTS}/`) || e.path.includes('..')) continue;
      const file = join(scratch, e.path);
      await mkdir(dirname(file), { recursive: true });
      await writeFile(file, e.data);
    }
    const keys = given ?? packKeys(entries);
    const index = await new DrillReader({ outputDir: scratch, publicKeys: keys }).read();
    return {
      drills: index.drills,
      skipped: index.skipped,
      dir: path,
      keySource: given ? 'given' : 'pack',
      keyIds: given ? index.keyIds : keys.map(keyIdOf).sort(),
    };
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

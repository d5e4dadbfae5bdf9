import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomicSync } from '../runtime/atomic-file';
import type { SimState } from './model';

const STATE_FILE = 'state.json';

/** Reads the state a previous run left in `dataDir`, if any. */
export function loadState(dataDir: string | undefined): SimState | undefined {
  if (!dataDir) return undefined;
  try {
    return JSON.parse(readFileSync(join(dataDir, STATE_FILE), 'utf8')) as SimState;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/** Writes the whole state atomically, so that a crash mid-write leaves the previous copy. */
export function saveState(dataDir: string | undefined, state: SimState): void {
  if (!dataDir) return;
  mkdirSync(dataDir, { recursive: true });
  writeFileAtomicSync(join(dataDir, STATE_FILE), JSON.stringify(state));
}

import { constants } from 'node:fs';
import { access, mkdir } from 'node:fs/promises';
import { ConfigError, type ConfigIssue } from './config';

/** A folder the worker writes to, and the variable that names it (for the error when it cannot). */
export interface WorkerFolder {
  variable: string;
  path: string;
}

/**
 * Creates each folder (and its parents) with mode 0700: the worker's secrets, keys and exports are nobody else's.
 * A folder that exists keeps its mode. One that cannot be created or written is a ConfigError naming its variable.
 */
export async function prepareFolders(folders: readonly WorkerFolder[]): Promise<void> {
  const issues: ConfigIssue[] = [];
  for (const { variable, path } of folders) {
    try {
      await mkdir(path, { recursive: true, mode: 0o700 });
      await access(path, constants.W_OK | constants.X_OK);
    } catch (err) {
      const { code, message } = err as NodeJS.ErrnoException;
      issues.push({ variable, message: `cannot create or write the folder ${path} (${code ?? message})` });
    }
  }
  if (issues.length > 0) throw new ConfigError(issues);
}

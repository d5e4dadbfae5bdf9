import { z } from 'zod';
import { ALLOW_SHARED_KEY_FILES, keyFileProblem } from '../key-file-permissions';
import { bool, mdCode, ConfigError, type Env, parseEnv, type SettingDoc } from './env';

/** Key files (codec keys, the evidence key, the console's and the codec server's tokens): owner-only, by default. */

const SharedKeyFilesEnv = z.object({ [ALLOW_SHARED_KEY_FILES]: bool.optional() });

/** RUNBOOKS_ALLOW_SHARED_KEY_FILES (runtime/key-file-permissions.ts); false unless set. */
export function allowSharedKeyFiles(env: Env = process.env): boolean {
  return parseEnv(SharedKeyFilesEnv, env)[ALLOW_SHARED_KEY_FILES] ?? false;
}

/** A ConfigError naming `variable` when the key file at `path` can be read by its group or others. */
export function refuseSharedKeyFile(path: string, variable: string, env: Env): void {
  const problem = keyFileProblem(path, allowSharedKeyFiles(env));
  if (problem) throw new ConfigError([{ variable, message: problem }]);
}

/** docs/configuration.md, "Encryption and keys". */
export const KEY_FILE_SETTINGS: readonly SettingDoc[] = [
  {
    name: ALLOW_SHARED_KEY_FILES,
    default: mdCode('false'),
    meaning:
      '`true` accepts key files that the group or others can read (a secret volume mounted 0440 for a group of one)',
  },
];

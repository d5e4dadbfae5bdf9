import { access } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { dataDirOf } from '../runtime/config';
import {
  DEFAULT_EVIDENCE_KEY_FILE,
  EvidenceKeyError,
  fingerprintOf,
  readEvidenceKey,
  rotateEvidenceKey,
} from '../runtime/evidence-key';
import { keyHistoryPath, readKeyHistory } from '../runtime/evidence-key-history';
import { parseCommandLine, positionals } from '../operator/args';
import { CliError, NotFoundError, UsageError } from '../operator/errors';
import { helpFor } from '../operator/help';
import { describeHistoryEntry } from '../operator/public-keys';

const KEY_HELP = helpFor('evidence key');

/** The key to show or rotate does not exist. */
export class NoEvidenceKeyError extends NotFoundError {}

export async function evidenceKeyCommand(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const { values, positionals: given } = parseCommandLine(argv, KEY_HELP);
  const [action = ''] = positionals(given, ['show|rotate'], KEY_HELP);
  const keyFile = resolve(
    values['key-file'] ?? env.RUNBOOKS_EVIDENCE_KEY_FILE?.trim() ?? join(dataDirOf(env), DEFAULT_EVIDENCE_KEY_FILE),
  );
  if (action === 'show') return show(keyFile);
  if (action === 'rotate') return rotate(keyFile);
  throw new UsageError(`unknown evidence key command '${action}'\n${KEY_HELP.usage}`);
}

async function show(keyFile: string): Promise<void> {
  const present = await access(keyFile).then(
    () => true,
    () => false,
  );
  if (!present) {
    throw new NoEvidenceKeyError(
      `no evidence key at ${keyFile} yet: the worker creates it at start (or run runbooks evidence key rotate)`,
    );
  }
  const key = await readEvidenceKey(keyFile).catch(rethrowAsCliError);
  const history = await readKeyHistory(keyFile).catch(rethrowAsCliError);
  console.log(`key file: ${keyFile}`);
  console.log(`current key: ${key.keyId} ${fingerprintOf(key.publicKey)}`);
  console.log(`key history: ${keyHistoryPath(keyFile)} (public keys only: give it to auditors)`);
  for (const entry of history.keys) console.log(`  ${describeHistoryEntry(entry)}`);
  if (!history.keys.some((k) => k.keyId === key.keyId)) {
    console.log('  (the current key is not listed: the worker lists it at start when it can write beside the key)');
  }
}

async function rotate(keyFile: string): Promise<void> {
  const { previous, current, history } = await rotateEvidenceKey(keyFile).catch(rethrowAsCliError);
  console.log(
    previous
      ? `rotated the evidence key at ${keyFile}: ${previous.keyId} retired, ${current.keyId} current`
      : `created the evidence key at ${keyFile}: ${current.keyId}`,
  );
  console.log(`key history: ${keyHistoryPath(keyFile)}`);
  for (const entry of history.keys) console.log(`  ${describeHistoryEntry(entry)}`);
  console.log(
    'restart the workers now: until then they sign with the key they loaded at start, and verify against the history ' +
      'fails those seals (made after the old key was retired)',
  );
}

function rethrowAsCliError(err: unknown): never {
  if (err instanceof EvidenceKeyError) throw new CliError(err.message);
  throw err;
}

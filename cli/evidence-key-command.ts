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
import {
  KEY_HISTORY_FORMAT,
  keyHistoryPath,
  readKeyHistory,
  UNSIGNED_KEY_HISTORY_FORMAT,
  type KeyHistory,
  type KeyHistoryEntry,
} from '../runtime/evidence-key-history';
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
  console.log(`  ${signedState(history)}`);
  for (const entry of history.keys) console.log(`  ${describeHistoryEntry(entry)}${linkOf(entry)}`);
  const current = history.keys.at(-1);
  if (!history.keys.some((k) => k.keyId === key.keyId)) {
    console.log(
      history.format === KEY_HISTORY_FORMAT && current
        ? `  (the current key is not listed: it was put in place by hand, and no key it replaced vouches for it; ` +
            `put ${current.keyId} back and run runbooks evidence key rotate)`
        : '  (the current key is not listed: the worker lists it at start when it can write beside the key)',
    );
  }
}

function signedState(history: KeyHistory): string {
  if (history.format === UNSIGNED_KEY_HISTORY_FORMAT) {
    return (
      `unsigned (${UNSIGNED_KEY_HISTORY_FORMAT}, from an earlier release): auditors' verify refuses it; a worker ` +
      'starting with this key, or runbooks evidence key rotate, signs it'
    );
  }
  const current = history.keys.at(-1);
  return current
    ? `signed (${KEY_HISTORY_FORMAT}) by the current key ${current.keyId}; each key's entry by the key it replaced`
    : 'no key listed yet';
}

/** Who vouches for an entry, when not the key it replaced. */
function linkOf(entry: KeyHistoryEntry): string {
  if (!('link' in entry)) return '';
  if (entry.link.signedBy === 'self') return ' (signed by itself: the first key)';
  if (entry.link.signedBy === 'current-at-upgrade') {
    return ` (signed by ${entry.link.signerKeyId} when the history was first signed)`;
  }
  return '';
}

async function rotate(keyFile: string): Promise<void> {
  const { previous, current, history } = await rotateEvidenceKey(keyFile).catch(rethrowAsCliError);
  console.log(
    previous
      ? `rotated the evidence key at ${keyFile}: ${previous.keyId} retired, ${current.keyId} current`
      : `created the evidence key at ${keyFile}: ${current.keyId}`,
  );
  console.log(`key history: ${keyHistoryPath(keyFile)}`);
  if (previous) console.log(`  ${current.keyId}'s entry signed by ${previous.keyId}, the history by ${current.keyId}`);
  for (const entry of history.keys) console.log(`  ${describeHistoryEntry(entry)}${linkOf(entry)}`);
  console.log(
    'restart the workers now: until then they sign with the key they loaded at start, and verify against the history ' +
      'fails those seals (made after the old key was retired)',
  );
}

function rethrowAsCliError(err: unknown): never {
  if (err instanceof EvidenceKeyError) throw new CliError(err.message);
  throw err;
}

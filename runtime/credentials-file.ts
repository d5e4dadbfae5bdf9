import { mkdir, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { z } from 'zod';
import {
  NotFoundError,
  registerSecret,
  UnauthorizedError,
  requestToken,
  rotateWithToken,
  type Credentials,
  type CredentialsSource,
  type HttpTransport,
  type TokenEndpoint,
} from '../api';
import { writeFileAtomic } from './atomic-file';
import { withLockFile } from './file-lock';

/**
 * A rotation under way. The token was issued with the secret before the rotation; the service keeps such tokens valid
 * for up to 12 hours, so whoever finds this record (a retry, a restarted worker) can rotate again with it.
 */
const PendingRotation = z.object({
  accessToken: z.string().min(1),
  /** ISO time, on this machine's clock, when the service stops accepting the token. */
  expiresAt: z.string().min(1),
  /** ISO time it was issued; with `expiresAt` it gives the lifetime, which the safety margin scales with. */
  issuedAt: z.string().optional(),
  /** The rotation that holds it: `<workflowId>/<runId>/<activityId>`, or `worker` for one a worker finished. */
  rotationId: z.string().min(1),
  /** Whether `clientSecret` already is the secret that rotation returned (it still has to be proved). */
  secretStored: z.boolean(),
});
export type PendingRotation = z.infer<typeof PendingRotation>;

const StoredCredentials = z.object({
  clientId: z.string().min(1),
  clientSecret: z.string().min(1),
  pendingRotation: PendingRotation.optional(),
  /** The last rotation that completed, so that its retry (after a lost completion) does not rotate twice. */
  lastRotation: z.string().optional(),
});
export type StoredCredentials = z.infer<typeof StoredCredentials>;

export class CredentialsFileError extends Error {
  override name = 'CredentialsFileError';
}

/** The file's secret is refused and no token from before a rotation is left to rotate with. */
export class CredentialsLostError extends CredentialsFileError {
  override name = 'CredentialsLostError';
}

/** Reads and checks a credentials file; registers its secrets for redaction. */
export async function readCredentialsFile(path: string): Promise<StoredCredentials> {
  const text = await readFile(path, 'utf8');
  let json: unknown;
  try {
    json = JSON.parse(text) as unknown;
  } catch {
    json = undefined;
  }
  const parsed = StoredCredentials.safeParse(json);
  if (!parsed.success)
    throw new CredentialsFileError(`${path} must hold JSON {"clientId": "...", "clientSecret": "..."}`);
  registerSecret(parsed.data.clientSecret);
  if (parsed.data.pendingRotation) registerSecret(parsed.data.pendingRotation.accessToken);
  return parsed.data;
}

/**
 * Writes credentials atomically with mode 0600: a crash leaves either the old file or the new one. A missing folder
 * is created, 0700 (a fresh volume has none).
 */
export async function writeCredentialsFile(path: string, credentials: StoredCredentials): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  await writeFileAtomic(path, JSON.stringify(credentials, null, 2) + '\n', { mode: 0o600 });
}

/**
 * Runs `fn` holding `<path>.lock`, so that the workers sharing a file (and a retry racing a slow attempt) never
 * rotate with the same held token at once: two rotations would each store a secret, and the first would be dead.
 */
export function withFileLock<T>(path: string, waitMs: number, fn: (held: AbortSignal) => Promise<T>): Promise<T> {
  return withLockFile(path, waitMs, fn, (lock) => new CredentialsFileError(`${lock} is held by another rotation`));
}

export interface CredentialsFileOptions {
  path: string;
  /** Token and rotate calls go straight to the service, outside any token provider. */
  transport: () => HttpTransport;
  endpoint?: TokenEndpoint;
  /** Milliseconds since the epoch. */
  now?: () => number;
  /** Tests inject failing writes here. */
  write?: (path: string, credentials: StoredCredentials) => Promise<void>;
}

/** What a rotation did: rotated now, or found that this same rotation had already completed. */
export type RotationOutcome = 'rotated' | 'alreadyDone';

// A held token is used only while it has this much life left: a rotation must finish before the service refuses it.
const HELD_TOKEN_MARGIN_MS = 10 * 60_000;

/**
 * The worker's credentials file: the source its token provider reads, and the record that makes a rotation
 * recoverable. Every rotation first stores a token issued with the current secret (the pending rotation), then
 * rotates with it, stores the new secret, proves it, and only then drops the token.
 */
export class CredentialsFile implements CredentialsSource {
  readonly path: string;
  private readonly now: () => number;
  private readonly writeFile: (path: string, credentials: StoredCredentials) => Promise<void>;

  constructor(private readonly options: CredentialsFileOptions) {
    this.path = options.path;
    this.now = options.now ?? Date.now;
    this.writeFile = options.write ?? writeCredentialsFile;
  }

  read(): Promise<StoredCredentials> {
    return readCredentialsFile(this.path);
  }

  async current(): Promise<Credentials> {
    return pick(await this.read());
  }

  /**
   * After the service refused `refused`: the file's secret if it changed meanwhile (another worker rotated), or, when
   * the file's secret is dead but a rotation left a token behind, the secret of that rotation finished now.
   */
  async recover(refused: Credentials): Promise<Credentials | undefined> {
    return withFileLock(this.path, 60_000, async (lock) => {
      const stored = await this.read();
      if (stored.clientId !== refused.clientId || stored.clientSecret !== refused.clientSecret) return pick(stored);
      const held = stored.pendingRotation;
      if (!held || !this.usable(held)) return undefined;
      return pick(await this.finish(stored, held, lock));
    });
  }

  /** Rotates the secret, recoverably; a retry of the same `rotationId` picks up where the last attempt stopped. */
  rotate(rotationId: string): Promise<RotationOutcome> {
    return withFileLock(this.path, 30_000, async (lock) => {
      const write = (credentials: StoredCredentials) => this.write(credentials, lock);
      const stored = await this.read();
      if (stored.lastRotation === rotationId && !stored.pendingRotation) return 'alreadyDone';
      let held = stored.pendingRotation;
      if (held?.rotationId === rotationId && held.secretStored) {
        // Stored, but not yet proved: prove it rather than rotate again.
        if (await this.works(pick(stored))) {
          await write({ ...pick(stored), lastRotation: rotationId });
          return 'rotated';
        }
      }
      if (held && this.usable(held)) {
        held = { ...held, rotationId, secretStored: false };
      } else {
        // A fresh token with the current secret; a 404 here with no usable held token means the secret is lost.
        const issuedAt = this.now();
        const token = await requestToken(this.options.transport(), pick(stored), this.options.endpoint).catch(
          (err: unknown) => {
            if (!(err instanceof NotFoundError)) throw err;
            throw new CredentialsLostError(
              `the service refuses the secret in ${this.path} and no token from before a rotation is left; ` +
                'create new API credentials in the management console and put them in the file',
            );
          },
        );
        const expiresAt = new Date(issuedAt + token.expiresInSeconds * 1000).toISOString();
        held = {
          accessToken: token.accessToken,
          issuedAt: new Date(issuedAt).toISOString(),
          expiresAt,
          rotationId,
          secretStored: false,
        };
        await write({ ...pick(stored), pendingRotation: held });
      }
      await this.finish(stored, held, lock);
      return 'rotated';
    });
  }

  /**
   * Rotates with the held token, stores the new secret, proves it, drops the token. Rotating again after a lost
   * answer leaves the secret of the lost answer on the service unused, but this rotation has already invalidated it.
   */
  private async finish(
    stored: StoredCredentials,
    held: PendingRotation,
    lock: AbortSignal,
  ): Promise<StoredCredentials> {
    const transport = this.options.transport();
    const rotated = await rotateWithToken(transport, held.accessToken).catch(async (err: unknown) => {
      if (!(err instanceof UnauthorizedError)) throw err;
      // The held token died early (revoked, or the service's clock is ahead): forget it; the next try gets a new one.
      await this.write(pick(stored), lock);
      throw new CredentialsFileError('the token held for the rotation was refused; it was dropped');
    });
    const fresh = { clientId: rotated.clientId || stored.clientId, clientSecret: rotated.clientSecret };
    await this.write({ ...fresh, pendingRotation: { ...held, secretStored: true } }, lock);
    if (!(await this.works(fresh))) {
      // Rotated again by someone outside this file; the next try rotates once more with the held token.
      throw new CredentialsFileError('the new secret was refused right after it was stored');
    }
    const done = { ...fresh, lastRotation: held.rotationId };
    await this.write(done, lock);
    return done;
  }

  private async works(credentials: Credentials): Promise<boolean> {
    try {
      await requestToken(this.options.transport(), credentials, this.options.endpoint);
      return true;
    } catch (err) {
      if (err instanceof NotFoundError) return false;
      throw err;
    }
  }

  private usable(held: PendingRotation): boolean {
    const expiresAt = Date.parse(held.expiresAt);
    const issuedAt = held.issuedAt ? Date.parse(held.issuedAt) : Number.NaN;
    // Short-lived tokens (a simulator with --token-ttl) get a margin of a quarter of their life instead.
    const margin = Number.isNaN(issuedAt)
      ? HELD_TOKEN_MARGIN_MS
      : Math.min(HELD_TOKEN_MARGIN_MS, (expiresAt - issuedAt) / 4);
    return expiresAt - this.now() > margin;
  }

  /** A holder that lost its lock (it froze past the staleness limit) must not overwrite its successor's file. */
  private async write(credentials: StoredCredentials, lock: AbortSignal): Promise<void> {
    if (lock.aborted) throw new CredentialsFileError(`${this.path}.lock was taken over while this rotation held it`);
    await this.writeFile(this.path, credentials);
  }
}

function pick({ clientId, clientSecret }: StoredCredentials): Credentials {
  return { clientId, clientSecret };
}

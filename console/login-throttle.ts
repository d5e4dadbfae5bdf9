/**
 * Failed sign-ins per client address. The first few are free (a mistyped token); then each failure locks the address
 * out for twice as long as the last, up to a cap. While locked, no attempt is checked, the right token included. A
 * success forgets the address. The table is bounded: past `maxClients`, the address seen least recently is dropped.
 */

export interface ThrottleOptions {
  /** Failures allowed before the first lockout. */
  freeFailures?: number;
  firstLockoutMs?: number;
  maxLockoutMs?: number;
  maxClients?: number;
  now?: () => number;
}

interface Client {
  failures: number;
  lockedUntil: number;
}

export class LoginThrottle {
  private readonly clients = new Map<string, Client>();
  private readonly freeFailures: number;
  private readonly firstLockoutMs: number;
  private readonly maxLockoutMs: number;
  private readonly maxClients: number;
  readonly now: () => number;

  constructor(options: ThrottleOptions = {}) {
    this.freeFailures = options.freeFailures ?? 5;
    this.firstLockoutMs = options.firstLockoutMs ?? 1_000;
    this.maxLockoutMs = options.maxLockoutMs ?? 15 * 60_000;
    this.maxClients = options.maxClients ?? 10_000;
    this.now = options.now ?? Date.now;
  }

  /** How long the address stays locked out, in ms; 0 when it may try. */
  lockedFor(address: string): number {
    const client = this.clients.get(address);
    return client ? Math.max(0, client.lockedUntil - this.now()) : 0;
  }

  /** Counts a failure; returns the lockout it starts, in ms (0: none yet). */
  failed(address: string): number {
    const client = this.clients.get(address) ?? { failures: 0, lockedUntil: 0 };
    client.failures += 1;
    const over = client.failures - this.freeFailures;
    // 2^over, with `over` capped so that the number stays finite; the cap bounds it anyway.
    const lockout = over > 0 ? Math.min(this.maxLockoutMs, this.firstLockoutMs * 2 ** Math.min(over - 1, 40)) : 0;
    client.lockedUntil = lockout > 0 ? this.now() + lockout : 0;
    // Re-inserted: a Map keeps insertion order, so the first key is the address seen least recently.
    this.clients.delete(address);
    this.clients.set(address, client);
    while (this.clients.size > this.maxClients) {
      const oldest = this.clients.keys().next().value;
      if (oldest === undefined) break;
      this.clients.delete(oldest);
    }
    return lockout;
  }

  succeeded(address: string): void {
    this.clients.delete(address);
  }

  get size(): number {
    return this.clients.size;
  }
}

// A real RFC 3161 time-stamping authority for tests: sigstore's timestamp-server (built into .tools/ by
// scripts/ensure-timestamp-authority.js), in its own process, with an in-memory signing key and certificate chain.
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { ensureTimestampAuthority } from '../../scripts/ensure-timestamp-authority';

export interface TimestampAuthority {
  /** Where tokens are asked for (POST application/timestamp-query). */
  url: string;
  port: number;
  /** The authority's certificate chain, PEM: signer, intermediate, root. */
  chainPem: string;
  /** kill -9 of the server process. */
  kill(): Promise<void>;
}

/** A free TCP port on 127.0.0.1 (free when asked: a test that needs it held must take it at once). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * Starts the authority on `port` (a free one by default) and waits until it publishes its chain. The server also
 * serves its metrics on port 2112, which it does not let anyone change: while another test's authority holds it, this
 * one waits its turn (a minute at most, far longer than a test holds it), then fails saying what holds the port.
 */
export async function startTimestampAuthority(port?: number): Promise<TimestampAuthority> {
  const listen = port ?? (await freePort());
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      return await startOnce(listen);
    } catch (err) {
      if (!(err instanceof MetricsPortTaken)) throw err;
      if (Date.now() > deadline) {
        throw new Error(
          "port 2112 stayed taken for a minute: sigstore's timestamp-server serves its metrics there and cannot be " +
            'told otherwise; stop what listens on it (ss -ltnp | grep 2112) and run the test again',
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
}

class MetricsPortTaken extends Error {}

async function startOnce(listen: number): Promise<TimestampAuthority> {
  const binary = ensureTimestampAuthority().path;
  const args = ['serve', '--host', '127.0.0.1', '--port', String(listen), '--timestamp-signer', 'memory'];
  const child = spawn(binary, [...args, '--disable-ntp-monitoring', '--log-type', 'prod'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let output = '';
  child.stderr?.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000)));
  const base = `http://127.0.0.1:${listen}/api/v1/timestamp`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) {
      if (output.includes(':2112: bind: address already in use')) throw new MetricsPortTaken(output);
      throw new Error(`timestamp-server exited (${child.exitCode}): ${output}`);
    }
    const chain = await fetch(`${base}/certchain`)
      .then((r) => (r.ok ? r.text() : undefined))
      .catch(() => undefined);
    if (chain?.includes('BEGIN CERTIFICATE'))
      return { url: base, port: listen, chainPem: chain, kill: () => killed(child) };
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`timestamp-server did not serve within 30 s: ${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function killed(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

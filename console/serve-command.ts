import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import type { KeyObject } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { redact } from '../api/redact';
import { readPublicKeys } from '../operator/public-keys';
import { HistoryIndex } from '../history';
import { parseCommandLine, positionals, wholeNumber } from '../operator/args';
import { acceptedHosts } from '../operator/exposure';
import { connectTemporal, resolveAddress, type TemporalSession } from '../operator/connection';
import { checkExposure as checkServerExposure } from '../operator/exposure';
import { NotConnectedError, UsageError } from '../operator/errors';
import { helpFor } from '../operator/help';
import {
  ConfigError,
  dataDirOf,
  DEFAULT_CONSOLE_PORT,
  loadConsoleSettings,
  loadConsoleToken,
  loadTemporalConfig,
  type ConsoleSettings,
} from '../runtime/config';
import { ADDRESS_FILE, TEMPORAL_UI_URL_FILE } from '../runtime/stack-files';
import { reconnectingData, temporalData, type ConsoleData } from './data';
import { buildConsole, type ConsoleLog } from './server';
import { ConsoleGuard } from './security';

export interface StartConsoleOptions {
  /** Temporal, for the Runs and Approvals pages; or `data`, what they read instead. */
  client?: Client;
  data?: ConsoleData;
  /** The output folder the workers write their reports to (RUNBOOKS_OUTPUT_DIR). */
  outputDir: string;
  /** Keys obtained out of band to check the drills' seals against; else the keys beside the reports. */
  publicKeys?: KeyObject[];
  namespace: string;
  host?: string;
  port?: number;
  token?: string;
  behindProxy?: boolean;
  temporalUiUrl?: string;
  log?: ConsoleLog;
}

export interface RunningConsole {
  url: string;
  close(): Promise<void>;
}

/** The console off localhost: a token, or --behind-proxy (operator/exposure.ts). */
export function checkExposure(host: string, token: string | undefined, behindProxy: boolean): void {
  checkServerExposure(
    host,
    token,
    behindProxy,
    (at) =>
      `the console would listen on ${at} with no token: anyone who reaches it could read the runs and nudge them.\n` +
      'Give it a token (--token-file or RUNBOOKS_CONSOLE_TOKEN_FILE), or, when your proxy authenticates every ' +
      'request, say so with --behind-proxy (RUNBOOKS_CONSOLE_BEHIND_PROXY=true). See docs/console.md.',
  );
}

export async function startConsole(options: StartConsoleOptions): Promise<RunningConsole> {
  const host = options.host ?? '127.0.0.1';
  const behindProxy = options.behindProxy === true;
  checkExposure(host, options.token, behindProxy);
  const guard = new ConsoleGuard({ token: options.token });
  const data = options.data ?? (options.client ? temporalData(options.client, options.namespace) : undefined);
  if (!data) throw new Error('startConsole needs a client or data');
  const app = buildConsole({
    data,
    guard,
    history: new HistoryIndex({ outputDir: options.outputDir, publicKeys: options.publicKeys }),
    namespace: options.namespace,
    temporalUiUrl: options.temporalUiUrl,
    behindProxy,
    log: options.log,
  });
  const wanted = options.port ?? DEFAULT_CONSOLE_PORT;
  try {
    await app.listen({ host, port: wanted });
  } catch (err) {
    await app.close();
    if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      throw new UsageError(
        `port ${wanted} is in use on ${host}: pass --port <n> or set RUNBOOKS_CONSOLE_PORT to another port`,
      );
    }
    throw err;
  }
  const { address, port } = app.server.address() as AddressInfo;
  // Without a token, only the names of its own address reach it: a rebound DNS name does not (docs/console.md).
  if (options.token === undefined && !behindProxy) guard.hosts = acceptedHosts(host, port, '*');
  const shown = address.includes(':') ? `[${address}]` : address;
  return { url: `http://${shown}:${port}`, close: () => app.close() };
}

/**
 * The dev server's Web UI, when the worker started one (it writes its URL beside the Temporal address) and the
 * console talks to that same server.
 */
function embeddedUiUrl(address: string): string | undefined {
  const dir = resolve(dataDirOf());
  try {
    if (readFileSync(join(dir, ADDRESS_FILE), 'utf8').trim() !== address) return undefined;
    return readFileSync(join(dir, TEMPORAL_UI_URL_FILE), 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

/** What the Runs and Approvals pages read, when Temporal answers at start or not. */
export interface ConsoleTemporal {
  data: ConsoleData;
  address: string;
  namespace: string;
  /** False: Temporal did not answer; `data` tries again on each page and says it is unreachable meanwhile. */
  connected: boolean;
  close(): Promise<void>;
}

/**
 * Temporal for the console. Unreachable, the console starts all the same (the history pages need only the output
 * folder); a configuration error still stops it.
 */
export async function consoleTemporal(
  env: Record<string, string | undefined> = process.env,
  retryMs?: number,
): Promise<ConsoleTemporal> {
  let session: TemporalSession;
  try {
    session = await connectTemporal(env);
  } catch (err) {
    if (!(err instanceof NotConnectedError)) throw err;
    const temporal = loadTemporalConfig(env);
    let address = 'no configured address';
    try {
      address = resolveAddress(temporal, env).address;
    } catch {
      // No address and no embedded server: the error says what to set.
    }
    const data = reconnectingData(() => connectTemporal(env), address, err.message, retryMs);
    return { data, address, namespace: temporal.namespace, connected: false, close: () => data.close() };
  }
  return {
    data: temporalData(session.client, session.namespace),
    address: session.address,
    namespace: session.namespace,
    connected: true,
    close: () => session.close(),
  };
}

const HELP = helpFor('serve');

/** `runbooks serve`: the web console, until SIGINT or SIGTERM. */
export async function serveCommand(argv: string[]): Promise<void> {
  const { values, positionals: extra } = parseCommandLine(argv, HELP);
  positionals(extra, [], HELP);
  let settings: ConsoleSettings;
  let token: string | undefined;
  try {
    settings = loadConsoleSettings();
    const tokenFile = values['token-file'] ?? settings.tokenFile;
    const variable = values['token-file'] !== undefined ? '--token-file' : 'RUNBOOKS_CONSOLE_TOKEN_FILE';
    token = tokenFile === undefined ? undefined : loadConsoleToken(tokenFile, variable);
  } catch (err) {
    if (err instanceof ConfigError) throw new UsageError(err.message);
    throw err;
  }
  const port = values.port === undefined ? settings.port : wholeNumber(values.port, '--port', 0, 65535, HELP);
  const host = values.host ?? settings.host ?? '127.0.0.1';
  const behindProxy = values['behind-proxy'] || settings.behindProxy === true;
  const ui = values['temporal-ui'];
  if (ui !== undefined && !/^https?:\/\/\S+$/.test(ui)) {
    throw new UsageError(`--temporal-ui must be an http(s) URL, not '${ui}'\n${HELP.usage}`);
  }
  // Refused before connecting: an exposed console without a token never starts.
  checkExposure(host, token, behindProxy);
  // Where the workers write their reports, as `runbooks evidence pack` reads it.
  const outputDir = resolve(values.dir ?? (process.env.RUNBOOKS_OUTPUT_DIR?.trim() || join(dataDirOf(), 'output')));
  const keyFiles = values['public-key'] ?? [];
  const publicKeys =
    keyFiles.length > 0 ? (await Promise.all(keyFiles.map(readPublicKeys))).flat().map((k) => k.key) : undefined;
  const temporal = await consoleTemporal();
  if (!temporal.connected) {
    console.error(
      `Temporal is unreachable at ${temporal.address}: the console starts without it; its Runs and Approvals pages ` +
        'say so until Temporal answers, its Drills, Coverage, Plans, Posture and Exports pages read the output folder.',
    );
  }
  try {
    const running = await startConsole({
      data: temporal.data,
      outputDir,
      publicKeys,
      namespace: temporal.namespace,
      host,
      port,
      token,
      behindProxy,
      temporalUiUrl: ui ?? settings.temporalUiUrl ?? embeddedUiUrl(temporal.address),
      log: consoleLog,
    });
    console.log(
      `console at ${running.url} (Temporal ${temporal.address}${temporal.connected ? '' : ' (unreachable)'}, ` +
        `namespace ${temporal.namespace}; token: ${token ? 'required' : 'none'}` +
        `${behindProxy ? '; behind a proxy' : ''}; reports: ${outputDir})`,
    );
    await new Promise<void>((done) => {
      process.once('SIGINT', done);
      process.once('SIGTERM', done);
    });
    await running.close();
  } finally {
    await temporal.close();
  }
}

/** Failed sign-ins and lockouts, one line each on stderr (the token given is never in it). */
const consoleLog: ConsoleLog = {
  warn: (fields, message) =>
    // Through the scrubber all the same, as every log line.
    console.error(redact(JSON.stringify({ level: 'warn', time: new Date().toISOString(), ...fields, msg: message }))),
};

import { isGrpcServiceError, ServiceError } from '@temporalio/client';
import { NamespaceNotFoundError } from '@temporalio/common';

/**
 * The exit codes of every command, one table (docs/cli.md "Exit codes" shows it, and a test keeps the two equal):
 * - `ok` 0: done (`--help` too; `status` of a failed run reports it and exits 0).
 * - `failed` 1: the command ran and could not do what was asked: a check failed (`doctor`, `evidence verify`, a pack
 *   written with a report that does not verify), the target refused (a verdict the drill does not take, a workflow
 *   already running), or an unexpected error.
 * - `usage` 2: a wrong command line, input or configuration, or what the Temporal server refuses as invalid.
 * - `unreachable` 3: Temporal or the Backup Management Service is not configured, or does not answer.
 * - `runFailed` 4: a run that was waited for failed, timed out or, for a drill, ended without `PASS`.
 * - `notFound` 5: the workflow, schedule, namespace, deployment, build ID, file or folder named does not exist.
 * - `interrupted` 130: Ctrl-C while following a run (`start --wait`, `status --watch`), as a shell reports it.
 */
export const EXIT_CODES = {
  ok: 0,
  failed: 1,
  usage: 2,
  unreachable: 3,
  runFailed: 4,
  notFound: 5,
  interrupted: 130,
} as const;

export type ExitCode = (typeof EXIT_CODES)[keyof typeof EXIT_CODES];

/** Errors the CLI reports without a stack trace; each carries the process exit code. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: ExitCode = EXIT_CODES.failed,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** A CliError class whose errors exit with `code`: a class per kind of failure, so that callers can tell them apart. */
function exitingWith(code: ExitCode) {
  return class extends CliError {
    constructor(message: string) {
      super(message, code);
    }
  };
}

/** Wrong command line or input: exit code 2, like most Unix tools. */
export class UsageError extends exitingWith(EXIT_CODES.usage) {}

/** `--help` or `-h` anywhere before `--`: the command's help goes to standard output, and the exit code is 0. */
export class HelpRequested extends CliError {
  constructor(readonly help: string) {
    super(help, EXIT_CODES.ok);
  }
}

/** Temporal, or the service, is not configured or not reachable. */
export class NotConnectedError extends exitingWith(EXIT_CODES.unreachable) {}

/** A workflow ran and failed (start --wait), or the demo did not complete. */
export class RunFailedError extends exitingWith(EXIT_CODES.runFailed) {}

/** What the command names (a workflow, a schedule, a deployment or build ID, a file or folder) does not exist. */
export class NotFoundError extends exitingWith(EXIT_CODES.notFound) {}

/** Ctrl-C while following a run: the run goes on in Temporal; the message says how to follow it again. */
export class InterruptedError extends CliError {
  constructor(workflowId: string) {
    super(
      `interrupted: only the following stopped; ${workflowId} goes on running in Temporal. ` +
        `Follow it again with \`runbooks status ${workflowId} --watch\``,
      EXIT_CODES.interrupted,
    );
  }
}

// gRPC's status codes for a request the server refuses as malformed, for what it does not have, and for a server
// that does not answer (any more).
const GRPC_INVALID_ARGUMENT = 3;
const GRPC_NOT_FOUND = 5;
const GRPC_UNAVAILABLE = 14;

/**
 * One message per error, never a stack trace (RUNBOOKS_DEBUG=1 shows it, to report a bug). What the Temporal server
 * refuses as invalid is bad input too: exit code 2; what it does not have is not found (5), and a server that stopped
 * answering is unreachable (3).
 */
export function describeCliError(err: unknown, debug = false): { text: string; exitCode: ExitCode } {
  if (err instanceof CliError) return { text: err.message, exitCode: err.exitCode };
  if (err instanceof NamespaceNotFoundError) {
    return {
      text: `no namespace '${err.namespace}' on the Temporal server: check TEMPORAL_NAMESPACE (or the profile's namespace)`,
      exitCode: EXIT_CODES.notFound,
    };
  }
  const grpc = err instanceof ServiceError ? err.cause : err;
  const grpcCode = isGrpcServiceError(grpc) ? Number(grpc.code) : undefined;
  if (isGrpcServiceError(grpc) && grpcCode === GRPC_INVALID_ARGUMENT) {
    return {
      text: `the Temporal server refused the request: ${grpc.details || grpc.message}`,
      exitCode: EXIT_CODES.usage,
    };
  }
  const message = err instanceof Error ? err.message : String(err);
  const text =
    debug && err instanceof Error && err.stack
      ? err.stack
      : `error: ${message.split('\n')[0] ?? message} (set RUNBOOKS_DEBUG=1 for details)`;
  const exitCode =
    grpcCode === GRPC_NOT_FOUND
      ? EXIT_CODES.notFound
      : grpcCode === GRPC_UNAVAILABLE
        ? EXIT_CODES.unreachable
        : EXIT_CODES.failed;
  return { text, exitCode };
}

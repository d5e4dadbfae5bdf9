import { isGrpcServiceError, ServiceError } from '@temporalio/client';

/** Errors the CLI reports without a stack trace; each carries the process exit code. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** Wrong command line or input: exit code 2, like most Unix tools. */
export class UsageError extends CliError {
  constructor(message: string) {
    super(message, 2);
  }
}

/** `--help` or `-h` anywhere before `--`: the command's help goes to standard output, and the exit code is 0. */
export class HelpRequested extends CliError {
  constructor(readonly help: string) {
    super(help, 0);
  }
}

/** Temporal is not configured or not reachable. */
export class NotConnectedError extends CliError {
  constructor(message: string) {
    super(message, 3);
  }
}

/** A workflow ran and failed (start --wait), or the demo did not complete. */
export class RunFailedError extends CliError {
  constructor(message: string) {
    super(message, 4);
  }
}

// gRPC's status code for a request the server refuses as malformed.
const GRPC_INVALID_ARGUMENT = 3;

/**
 * One message per error, never a stack trace (RUNBOOKS_DEBUG=1 shows it, to report a bug). What the Temporal server
 * refuses as invalid is bad input too: exit code 2.
 */
export function describeCliError(err: unknown, debug = false): { text: string; exitCode: number } {
  if (err instanceof CliError) return { text: err.message, exitCode: err.exitCode };
  const grpc = err instanceof ServiceError ? err.cause : err;
  if (isGrpcServiceError(grpc) && Number(grpc.code) === GRPC_INVALID_ARGUMENT) {
    return { text: `the Temporal server refused the request: ${grpc.details || grpc.message}`, exitCode: 2 };
  }
  const message = err instanceof Error ? err.message : String(err);
  const text =
    debug && err instanceof Error && err.stack
      ? err.stack
      : `error: ${message.split('\n')[0] ?? message} (set RUNBOOKS_DEBUG=1 for details)`;
  return { text, exitCode: 1 };
}

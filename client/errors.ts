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

import { closeHttpPools } from '../api';
import { parseCommandLine, positionals, wholeNumber } from '../operator/args';
import { temporalChecks } from './doctor-temporal';
import { buildReport, renderReport, type CheckResult, type DoctorReport } from './doctor-report';
import { serviceChecks } from './doctor-service';
import { resolveServiceTarget } from './doctor-target';
import { EXIT_CODES } from '../operator/errors';
import { helpFor } from '../operator/help';

const HELP = helpFor('doctor');

export interface DoctorOptions {
  serviceUrl?: string;
  restoreAccounts?: string[];
  /** Each check's time; a check that takes longer fails with that said. */
  timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 10_000;

/** Every check, the service's and Temporal's side by side; what `runbooks doctor` prints. */
export async function runDoctor(
  options: DoctorOptions = {},
  env: Record<string, string | undefined> = process.env,
): Promise<DoctorReport> {
  const budgetMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const serviceSide = async (): Promise<{ lines: CheckResult[]; context?: DoctorReport['service'] }> => {
    const { line, target } = await resolveServiceTarget(env, options.serviceUrl, budgetMs);
    if (!target) return { lines: [line] };
    const context = { url: target.baseUrl, projectId: target.projectId, source: target.source };
    const lines = await serviceChecks(target, { budgetMs, restoreAccounts: options.restoreAccounts });
    return { lines: [line, ...lines], context };
  };
  const [service, temporal] = await Promise.all([serviceSide(), temporalChecks(env, budgetMs)]);
  return buildReport([...service.lines, ...temporal.lines], {
    ...(service.context ? { service: service.context } : {}),
    ...(temporal.context ? { temporal: temporal.context } : {}),
  });
}

/** `runbooks doctor`: the table (or `--json`), exit code 1 when any check failed. */
export async function doctorCommand(argv: string[]): Promise<void> {
  const { values, positionals: extra } = parseCommandLine(argv, HELP);
  positionals(extra, [], HELP);
  const timeoutMs = wholeNumber(values.timeout, '--timeout', 1, 600, HELP) * 1000;
  try {
    const report = await runDoctor({
      serviceUrl: values['service-url'],
      restoreAccounts: values['restore-account'],
      timeoutMs,
    });
    console.log(values.json ? JSON.stringify(report, null, 2) : renderReport(report));
    // A failed check, a service or Temporal that does not answer included: the report says which.
    if (!report.ok) process.exitCode = EXIT_CODES.failed;
  } finally {
    await closeHttpPools();
  }
}

import { keysToTrust, outputDirOf, readTsaCertificates, refuseUntrusted } from './evidence-inputs';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { dataDirOf } from '../runtime/config';
import { DRILL_REPORTS_FOLDER, DrillReader } from '../history/drill-index';
import { formatSeconds } from '../history/line-chart';
import { PLAN_REPORTS_FOLDER, PlanReader } from '../history/plan-index';
import { CONTROLS, type Control } from '../history/controls';
import {
  evaluateControls,
  evaluationText,
  type ControlEvaluation,
  type GivenPeriod,
} from '../history/control-evaluation';
import {
  evidenceGate,
  GATE_STATUS_TEXT,
  PLAN_GATE_STATUS_TEXT,
  planGate,
  type GatePlan,
  type GatePlanRun,
  type GateReport,
  type GateResource,
} from '../history/gate';
import { parseCommandLine, positionals } from '../operator/args';
import { CliError, EXIT_CODES, NotConnectedError, NotFoundError, UsageError } from '../operator/errors';
import { helpFor } from '../operator/help';
import { outputFormat, printJson, printTable } from '../operator/output';
import type {
  EvidenceGateOutput,
  GateControlOutput,
  GatePlanOutput,
  GatePlanRunOutput,
  GateReportOutput,
  GateResourceOutput,
} from '../operator/output-shapes';
import { parseDuration } from './schedule-policies';
import { configuredService } from './discover-inputs';
import { BackupServiceError } from '../api';
import { isSelection, SELECTION_RULES, SELECTION_SHAPE, type Selection } from '../runbooks/dr-drill/selection';
import { listSelected } from '../runbooks/dr-drill/selection-listing';

const GATE_HELP = helpFor('evidence gate');

/** The gate ran and a resource in scope, or a plan named, lacks a verified PASS within the period; the message names each. */
export class GateFailedError extends CliError {
  constructor(message: string) {
    super(message, EXIT_CODES.failed);
  }
}

/** A drill's selection by conditions (runbooks/dr-drill/selection.ts), checked by the rules a drill's input is. */
const GateSelection = Object.values(SELECTION_RULES).reduce(
  (schema, rule) => schema.refine(rule.check, { message: rule.message, path: rule.path }),
  z.strictObject(SELECTION_SHAPE).refine(isSelection, { message: SELECTION_RULES.somethingTaken.message }),
);

/** `{"resources": ["<id>", ...]}` or `{"selection": {...}}`, exactly one. */
const ScopeFile = z
  .strictObject({
    resources: z.array(z.string().trim().min(1)).min(1).optional(),
    selection: GateSelection.optional(),
  })
  .refine((f) => f.resources !== undefined || f.selection !== undefined, {
    message: 'give resources (resource IDs) or selection (a drill selection)',
  })
  .refine((f) => f.resources === undefined || f.selection === undefined, {
    message: 'give resources or selection, not both',
    path: ['selection'],
  });

const SCOPE_FORMAT = `{"resources": ["<resource id>", ...]} or {"selection": {<a drill's selection>}}`;

/** What a --scope file holds: resource IDs, or a selection to resolve against the service's inventory. */
type ScopeFileContent = { path: string } & ({ ids: string[] } | { selection: Selection });

/** The resources in scope; with a selection, the service whose inventory it was resolved against. */
interface Scope {
  path: string;
  ids: string[];
  serviceUrl?: string;
}

/**
 * `evidence gate --within <duration> | --control <id>... [--scope <file>] [--plan <name>...] [--dir <output dir>]
 * --public-key <file>... | --trust-folder-keys [-o text|json]`. Every argument is checked before a report is read;
 * nothing is written. With --control, each control is judged by the same rule over its own period (unless --within).
 * With --plan, each recovery plan named must have passed within the period too, its RTO target met; with --plan and no
 * --scope or --control, the plans alone are checked. A --scope selection is resolved against the configured service's
 * inventory once the arguments and keys are checked.
 */
export async function evidenceGateCommand(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const { values, positionals: given } = parseCommandLine(argv, GATE_HELP);
  positionals(given, [], GATE_HELP);
  const format = outputFormat(values.output, GATE_HELP);
  const controls = values.control === undefined ? undefined : controlsNamed(values.control);
  const planNames = values.plan === undefined ? undefined : plansNamed(values.plan);
  if (values.within === undefined && controls === undefined) {
    throw new UsageError(`give --within, the period: 30d, 12h (or --control <id>, its period)\n${GATE_HELP.usage}`);
  }
  let givenPeriod: GivenPeriod | undefined;
  if (values.within !== undefined) {
    const ms = parseDuration(values.within);
    if (ms === undefined || ms === 0) {
      throw new UsageError(
        `--within must be a period such as 30d, 12h or 1d12h (days, hours, minutes, seconds), not '${values.within}'\n${GATE_HELP.usage}`,
      );
    }
    givenPeriod = { ms, text: values.within };
  }
  const keyFiles = values['public-key'] ?? [];
  const trustFolder = values['trust-folder-keys'];
  refuseUntrusted(keyFiles, trustFolder === true, GATE_HELP);
  const outputDir = await outputDirOf(
    values.dir ?? (env.RUNBOOKS_OUTPUT_DIR?.trim() || join(dataDirOf(env), 'output')),
    GATE_HELP,
  );
  const scopeFile = values.scope === undefined ? undefined : await readScope(values.scope);
  // --plan alone names what is checked: the plans, and no resource.
  const plansOnly = planNames !== undefined && scopeFile === undefined && controls === undefined;
  const requireTimestamp = values['require-timestamp'] === true;
  if (requireTimestamp && values['tsa-cert'] === undefined) {
    throw new UsageError(
      `--require-timestamp needs --tsa-cert <the authority's certificate chain>: a token counts only once it ` +
        `verifies\n${GATE_HELP.usage}`,
    );
  }
  const timestampCertificates =
    values['tsa-cert'] === undefined ? undefined : await readTsaCertificates(values['tsa-cert'], GATE_HELP);
  const dir = join(outputDir, DRILL_REPORTS_FOLDER);
  const planDir = join(outputDir, PLAN_REPORTS_FOLDER);
  const folders = [...(plansOnly ? [] : [dir]), ...(planNames ? [planDir] : [])];

  // In JSON mode standard output holds the document alone: the notes go to standard error.
  const note = format === 'json' ? (line: string) => console.error(line) : (line: string) => console.log(line);
  const { keys, given: keysGiven } = await keysToTrust(
    { keyFiles, trustFolder: trustFolder === true, dir: folders },
    GATE_HELP,
  );
  note(
    keysGiven
      ? 'public keys given:'
      : `trusting the public keys beside the reports in ${folders.join(' and ')} (--trust-folder-keys):`,
  );
  for (const k of keys) note(`  ${k.line}`);

  const scope = scopeFile && (await resolveScope(scopeFile, env));
  const now = Date.now();
  const readOptions = {
    outputDir,
    publicKeys: keys.map((k) => k.key),
    ...(timestampCertificates ? { timestampCertificates } : {}),
  };
  const index = plansOnly ? undefined : await new DrillReader(readOptions).read();
  const planIndex = planNames ? await new PlanReader(readOptions).read() : undefined;
  const drills = index?.drills ?? [];
  const evaluations = controls
    ? evaluateControls(controls, drills, {
        nowMs: now,
        ...(givenPeriod ? { within: givenPeriod } : {}),
        ...(scope ? { scope: scope.ids } : {}),
        ...(requireTimestamp ? { requireTimestamp } : {}),
      })
    : undefined;
  // Without --within, the shortest period of the controls named: a resource that passes it passes every longer one
  // (its newest drill within the shortest period is its newest within each), so the list below is what all need.
  const shortest = evaluations?.reduce((a, b) => (b.period.ms < a.period.ms ? b : a)).period;
  const withinMs = givenPeriod?.ms ?? shortest?.ms ?? 0;
  const within = givenPeriod?.text ?? `${shortest?.days ?? 0}d`;
  const sinceMs = now - withinMs;
  const resources = index ? evidenceGate(drills, { scope: scope?.ids, sinceMs, requireTimestamp }) : [];
  const failing = resources.filter((r) => r.status !== 'pass');
  const plans = planIndex && planNames ? planGate(planIndex.plans, planNames, { sinceMs, requireTimestamp }) : [];
  const failingPlans = plans.filter((p) => p.status !== 'pass');
  const since = new Date(sinceMs).toISOString();
  const unsatisfied = (evaluations ?? []).filter((e) => !e.satisfied);
  const skipped = [...(index?.skipped ?? []), ...(planIndex?.skipped ?? [])];
  const resourcesHold = plansOnly || (failing.length === 0 && resources.length > 0);

  if (format === 'json') {
    printJson({
      result: resourcesHold && unsatisfied.length === 0 && failingPlans.length === 0 ? 'pass' : 'fail',
      within,
      since,
      checkedAt: new Date(now).toISOString(),
      scope: scope?.serviceUrl ? 'selection' : scope ? 'file' : plansOnly ? 'plans' : 'reports',
      ...(scope ? { scopeFile: scope.path } : {}),
      ...(scope?.serviceUrl ? { selection: { serviceUrl: scope.serviceUrl, resolved: scope.ids.length } } : {}),
      dir,
      keySource: keyFiles.length > 0 ? 'given' : 'folder',
      keyIds: [...new Set([...(index?.keyIds ?? []), ...(planIndex?.keyIds ?? [])])].sort(),
      resources: resources.map(resourceOutput),
      skipped: skipped.map((s) => ({ file: s.file, reason: s.reason })),
      ...(evaluations ? { controls: evaluations.map((e) => controlOutput(e, givenPeriod?.text)) } : {}),
      ...(planNames ? { plans: plans.map(planOutput), planDir } : {}),
    } satisfies EvidenceGateOutput);
  } else {
    if (!plansOnly) {
      console.log(`drills within ${within} (since ${since}) in ${dir}, for ${scopeText(scope)}:`);
      if (resources.length > 0) printTable(resources.map(row));
    }
    if (planNames) {
      console.log(`recovery plans within ${within} (since ${since}) in ${planDir}:`);
      printTable(plans.map(planRow));
    }
    for (const s of skipped) console.log(`  not read: ${s.file}: ${s.reason}`);
    for (const e of evaluations ?? []) console.log(controlLine(e));
  }

  // One line per failure: the resources (or the controls), then each plan that did not pass, naming it.
  const failures: string[] = [];
  // A gate with nothing to check proves nothing: a selection that takes no resource, or no scope file and no report
  // that names a resource.
  if (!plansOnly && resources.length === 0) {
    failures.push(
      scope?.serviceUrl
        ? `evidence gate failed: the selection of ${scope.path} matched no resource in the inventory of ` +
            `${scope.serviceUrl}: an empty scope proves nothing`
        : `evidence gate failed: no drill report in ${dir} names a resource; give --scope`,
    );
  } else if (evaluations) {
    // One line per control not satisfied, each naming the resources that lack a verified PASS, and why.
    for (const e of unsatisfied) {
      failures.push(
        `evidence gate failed: control ${e.control.id} not satisfied: ${e.gaps.length} of ` +
          `${count(e.resources.length, 'resource')} without a verified PASS within ${e.period.text}: ` +
          `${gapList(e.gaps)}`,
      );
    }
  } else if (failing.length > 0) {
    failures.push(
      `evidence gate failed: ${failing.length} of ${count(resources.length, 'resource')} without a verified PASS ` +
        `within ${within}: ${gapList(failing)}`,
    );
  }
  for (const p of failingPlans) {
    failures.push(
      `evidence gate failed: plan ${p.name} without a verified PASS within ${within}: ` +
        `${PLAN_GATE_STATUS_TEXT[p.status]}: ${p.reason ?? ''}`,
    );
  }
  if (failures.length > 0) throw new GateFailedError(failures.join('\n'));

  const passed: string[] = [];
  if (evaluations) {
    passed.push(
      `${evaluations.map((e) => `control ${e.control.id}`).join(', ')} satisfied: ` +
        `${count(resources.length, 'resource')}, each with a verified PASS within ${within}`,
    );
  } else if (!plansOnly) {
    passed.push(`${count(resources.length, 'resource')}, each with a verified PASS within ${within}`);
  }
  if (planNames) {
    const named = plans.map((p) => p.name).join(', ');
    passed.push(
      `${plans.length === 1 ? 'plan' : 'plans'} ${named}, each passed within ${within} with its RTO target met`,
    );
  }
  note(`evidence gate passed: ${passed.join('; ')}`);
}

/** A recovery plan's name, as the plan's `name` takes it (runbooks/recovery-plan/plan.ts). */
const PLAN_NAME = /^[a-z0-9][a-z0-9-]{0,62}$/;

/** `--plan`, repeated or comma-separated, in the order given; a name no plan could have is a usage error. */
function plansNamed(args: readonly string[]): string[] {
  const names = [...new Set(args.flatMap((a) => a.split(',')).map((n) => n.trim()))];
  for (const name of names) {
    if (!PLAN_NAME.test(name)) {
      const what = name === '' ? 'an empty --plan' : `--plan '${name}' is not a plan's name`;
      throw new UsageError(`${what}: a plan's name is lowercase letters, digits and dashes\n${GATE_HELP.usage}`);
    }
  }
  return names;
}

function planRow(p: GatePlan): string[] {
  const words = [PLAN_GATE_STATUS_TEXT[p.status], p.name];
  const run = p.decidedBy;
  if (p.status !== 'pass' || !run) return [...words, p.reason ?? ''];
  const rto = `RTO ${formatSeconds(run.rto.seconds)} of ${formatSeconds(run.rto.targetSeconds)}`;
  return [...words, `${run.finishedAt} ${run.file}: ${rto}`];
}

function planOutput(p: GatePlan): GatePlanOutput {
  return {
    name: p.name,
    status: p.status,
    ...(p.reason === undefined ? {} : { reason: p.reason }),
    ...(p.lastVerifiedPass ? { lastVerifiedPass: planRunOutput(p.lastVerifiedPass) } : {}),
    ...(p.decidedBy ? { decidedBy: planRunOutput(p.decidedBy) } : {}),
  };
}

function planRunOutput(r: GatePlanRun): GatePlanRunOutput {
  return {
    reportFile: `${r.file}.json`,
    workflowId: r.workflowId,
    runId: r.runId,
    mode: r.mode,
    finishedAt: r.finishedAt,
    verdict: r.verdict,
    rto: r.rto,
    seal: r.seal,
  };
}

const gapList = (gaps: readonly GateResource[]) =>
  gaps.map((r) => `${r.resourceId} (${GATE_STATUS_TEXT[r.status]}: ${r.reason ?? ''})`).join('; ');

/** `--control`, repeated or comma-separated, in the order given; an ID the catalogue lacks is a usage error. */
function controlsNamed(args: readonly string[]): Control[] {
  const ids = [...new Set(args.flatMap((a) => a.split(',')).map((id) => id.trim()))];
  const known = CONTROLS.map((c) => c.id).join(', ');
  return ids.map((id) => {
    const control = CONTROLS.find((c) => c.id === id);
    if (!control) {
      const what = id === '' ? 'an empty --control' : `unknown control '${id}' (--control)`;
      throw new UsageError(`${what}: the known controls are ${known}\n${GATE_HELP.usage}`);
    }
    return control;
  });
}

function controlLine(e: ControlEvaluation): string {
  const c = e.control;
  const head = `control ${c.id} (${c.framework} ${c.source.clause} ${c.title}), within ${e.period.text}`;
  const review = c.evidence.reviewer ? ' It asks for a review of the results too, which no report shows.' : '';
  return `${head}: ${e.satisfied ? 'satisfied' : 'NOT satisfied'}. ${evaluationText(e)}${review}`;
}

/** `given`: --within as given, which replaces the control's own period. */
function controlOutput(e: ControlEvaluation, given: string | undefined): GateControlOutput {
  const c = e.control;
  return {
    controlId: c.id,
    framework: c.framework,
    title: c.title,
    clause: c.source.clause,
    within: given ?? `${e.period.days}d`,
    periodBasis: e.period.basis,
    since: new Date(e.period.sinceMs).toISOString(),
    reviewerRequired: c.evidence.reviewer,
    result: e.satisfied ? 'satisfied' : 'not-satisfied',
    reason: evaluationText(e),
    gaps: e.gaps.map(resourceOutput),
    satisfiedBy: e.satisfyingDrills.map((d) => ({
      reportFile: `${d.file}.json`,
      workflowId: d.workflowId,
      runId: d.runId,
      finishedAt: d.finishedAt,
      resourceIds: d.resourceIds,
    })),
  };
}

function resourceOutput(r: GateResource): GateResourceOutput {
  return {
    resourceId: r.resourceId,
    ...(r.resourceName === undefined ? {} : { resourceName: r.resourceName }),
    status: r.status,
    ...(r.reason === undefined ? {} : { reason: r.reason }),
    ...(r.lastVerifiedPass ? { lastVerifiedPass: reportOutput(r.lastVerifiedPass) } : {}),
    ...(r.decidedBy ? { decidedBy: reportOutput(r.decidedBy) } : {}),
  };
}

function row(r: GateResource): string[] {
  const words = [GATE_STATUS_TEXT[r.status], r.resourceId, r.resourceName ?? ''];
  if (r.status !== 'pass') return [...words, r.reason ?? ''];
  return [...words, `${r.decidedBy?.finishedAt ?? ''} ${r.decidedBy?.file ?? ''}`];
}

function reportOutput(r: GateReport): GateReportOutput {
  return {
    reportFile: `${r.file}.json`,
    workflowId: r.workflowId,
    runId: r.runId,
    finishedAt: r.finishedAt,
    verdict: r.verdict,
    seal: r.seal,
  };
}

const count = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;

/** What a --scope file holds; a file that is not a scope file is a usage error naming the field and what is wrong. */
async function readScope(arg: string): Promise<ScopeFileContent> {
  const path = resolve(arg);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? '';
    const message = `--scope ${path} cannot be read (${code})`;
    throw code === 'ENOENT' ? new NotFoundError(message) : new UsageError(message);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`--scope ${path} is not valid JSON (${(err as Error).message}): expected ${SCOPE_FORMAT}`);
  }
  const parsed = ScopeFile.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue ? `${issue.path.join('.') || '(top)'}: ${issue.message}` : 'unknown';
    throw new UsageError(`--scope ${path} is not a scope file (${where}): expected ${SCOPE_FORMAT}`);
  }
  const { resources, selection } = parsed.data;
  return selection ? { path, selection } : { path, ids: [...new Set(resources ?? [])] };
}

/**
 * The resources in scope: a selection is resolved against the configured service's inventory as it is now. Any
 * failure to do so exits 3 (unreachable), not 1: the gate did not judge the evidence, it could not know the scope.
 */
async function resolveScope(file: ScopeFileContent, env: NodeJS.ProcessEnv): Promise<Scope> {
  if (!('selection' in file)) return file;
  const { client, baseUrl, close } = await configuredService(`--scope ${file.path} (a selection)`, env);
  try {
    // As a drill's run lists it, without the drill's bound: the gate judges the whole selection.
    const selected = await listSelected(client, file.selection);
    return { path: file.path, ids: selected.map((r) => r.id), serviceUrl: baseUrl };
  } catch (err) {
    if (!(err instanceof BackupServiceError)) throw err;
    throw new NotConnectedError(
      `--scope ${file.path}: the selection could not be resolved against ${baseUrl}: ${err.message}`,
    );
  } finally {
    await close();
  }
}

function scopeText(scope: Scope | undefined): string {
  if (!scope) return 'every resource named';
  const resources = count(scope.ids.length, 'resource');
  return scope.serviceUrl
    ? `the ${resources} the selection of ${scope.path} takes in the inventory of ${scope.serviceUrl}`
    : `the ${resources} of ${scope.path}`;
}

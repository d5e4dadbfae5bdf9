// A recovery plan as a graph of steps: what each step waits for, what is wrong with the graph, the order it runs in,
// what a failure skips, and the RTO with its critical path. Pure: the workflow, the contract's schema and the CLI
// import it (types only from the contract, which imports this file for its check).
import { closest } from '../../runtime/input-rules';
import type { PlanPhase, PlanRto, PlanStepResult } from './contract';
import type { RecoveryPlan } from './plan';

/** A step as the graph sees it: a plan's step, a step's result, or its view in `runbooks plan status`. */
export interface GraphStep {
  id: string;
  kind: string;
  after: string[];
  of?: string;
}

/** The steps a step waits for: its `after`, and a validate step's `of` (it always runs after what it validates). */
export function dependenciesOf(step: GraphStep): string[] {
  const all = step.kind === 'validate' && step.of !== undefined ? [...step.after, step.of] : step.after;
  return [...new Set(all)];
}

/** One thing wrong with a plan, at its path in the plan (`['steps', 3, 'after', 0]`). */
export interface PlanProblem {
  path: (string | number)[];
  message: string;
}

/** A dependency, in the list of the step that waits: on the step at `to`, where `path` (in the plan) says so. */
interface Edge {
  to: number;
  path: (string | number)[];
}

/**
 * Everything wrong with a plan's graph, each once, in plan order and then the cycles: a duplicate step id, an `after`
 * or `of` naming no step (with the closest id, when one is close), a step depending on itself, a validate step whose
 * `of` is not a restore step, and each cycle of dependencies.
 */
export function planProblems(plan: RecoveryPlan): PlanProblem[] {
  const problems: PlanProblem[] = [];
  const firstIndex = new Map<string, number>();
  plan.steps.forEach((step, i) => {
    const first = firstIndex.get(step.id);
    if (first === undefined) firstIndex.set(step.id, i);
    else
      problems.push({ path: ['steps', i, 'id'], message: `step id '${step.id}' is used by steps ${first} and ${i}` });
  });
  const ids = [...firstIndex.keys()];
  const edges: Edge[][] = plan.steps.map(() => []);
  plan.steps.forEach((step, i) => {
    const references: { id: string; path: (string | number)[] }[] = step.after.map((id, k) => ({
      id,
      path: ['steps', i, 'after', k],
    }));
    if (step.kind === 'validate') references.push({ id: step.of, path: ['steps', i, 'of'] });
    for (const { id, path } of references) {
      const target = firstIndex.get(id);
      if (id === step.id) {
        problems.push({ path, message: `step '${step.id}' depends on itself` });
      } else if (target === undefined) {
        const guess = closest(id, ids);
        const hint = guess ? ` (did you mean '${guess}'?)` : '';
        problems.push({ path, message: `step '${step.id}' names '${id}', which is no step of the plan${hint}` });
      } else if (!edges[i]?.some((e) => e.to === target)) {
        // One edge per pair of steps: an `after` and an `of` naming the same step make one dependency.
        edges[i]?.push({ to: target, path });
      }
    }
    if (step.kind === 'validate' && step.of !== step.id) {
      const target = firstIndex.get(step.of);
      const kind = target === undefined ? undefined : plan.steps[target]?.kind;
      if (kind !== undefined && kind !== 'restore') {
        problems.push({
          path: ['steps', i, 'of'],
          message: `validate step '${step.id}' validates '${step.of}', a ${kind} step: 'of' must name a restore step`,
        });
      }
    }
  });
  // Step by step, in plan order (a duplicate id is found before the references are looked at).
  problems.sort((a, b) => Number(a.path[1]) - Number(b.path[1]));
  const cycles = cyclesOf(edges);
  for (const cycle of cycles.slice(0, MAX_CYCLES_REPORTED)) {
    // Named in run order: each step comes after the one before it.
    const names = [...cycle.steps, cycle.steps[0] ?? 0].map((i) => plan.steps[i]?.id ?? '');
    problems.push({
      path: cycle.path,
      message: `a cycle of dependencies: ${names.join(' → ')} (each step comes after the one before it)`,
    });
  }
  if (cycles.length > MAX_CYCLES_REPORTED) {
    problems.push({ path: ['steps'], message: `more cycles than the ${MAX_CYCLES_REPORTED} named` });
  }
  // `latest-clean` searches the resources of restore steps.
  plan.pointInTime.clean?.forEach(({ step }, k) => {
    const target = firstIndex.get(step);
    const kind = target === undefined ? undefined : plan.steps[target]?.kind;
    if (kind === 'restore') return;
    const guess = kind === undefined ? closest(step, ids) : undefined;
    const what =
      kind === undefined ? `no step of the plan${guess ? ` (did you mean '${guess}'?)` : ''}` : `a ${kind} step`;
    problems.push({
      path: ['pointInTime', 'clean', k, 'step'],
      message: `'latest-clean' searches the resources of '${step}', ${what}: it must name a restore step`,
    });
  });
  return problems;
}

/** The most cycles reported: past it, a plan needs its graph redrawn, not a longer list. */
export const MAX_CYCLES_REPORTED = 20;

/**
 * Every elementary cycle of the graph once (one more than MAX_CYCLES_REPORTED at most, to tell that there are more),
 * in run order from its step listed first in the plan, with the path of the edge that closes it: that step's
 * dependency on the cycle's last. A cycle is found from its first-listed step `start` by extending a trail of
 * dependencies over steps listed after `start` only, and only to a step that can still reach `start` off the trail:
 * no search ends in a dead end, so each cycle costs polynomial work however many paths the graph has. Only steps of
 * one strongly connected component can share a cycle: an acyclic plan costs one pass.
 */
function cyclesOf(edges: Edge[][]): { steps: number[]; path: (string | number)[] }[] {
  const cycles: { steps: number[]; path: (string | number)[] }[] = [];
  const full = () => cycles.length > MAX_CYCLES_REPORTED;
  const component = componentsOf(edges);
  const sizes = new Map<number, number>();
  for (const c of component) sizes.set(c, (sizes.get(c) ?? 0) + 1);
  // The edges inside each component: the only ones a cycle through its steps can take.
  const insideOf = new Map<number, Edge[][]>();
  const inside = (c: number): Edge[][] => {
    const known = insideOf.get(c);
    if (known) return known;
    const local = edges.map((list, i) => (component[i] === c ? list.filter((e) => component[e.to] === c) : []));
    insideOf.set(c, local);
    return local;
  };
  for (let start = 0; start < edges.length && !full(); start++) {
    const c = component[start] ?? -1;
    if ((sizes.get(c) ?? 0) < 2) continue;
    const local = inside(c);
    // Against the edges: `start` waits for trail[1], which waits for trail[2]...; reversed, it is run order.
    const trail = [start];
    const extend = (at: number): void => {
      for (const edge of local[at] ?? []) {
        if (full()) return;
        if (edge.to === start) {
          const closing = local[start]?.find((e) => e.to === trail[1]);
          cycles.push({ steps: [start, ...trail.slice(1).reverse()], path: closing?.path ?? ['steps', start] });
        } else if (edge.to > start && !trail.includes(edge.to) && reaches(edge.to, start, trail, local)) {
          trail.push(edge.to);
          extend(edge.to);
          trail.pop();
        }
      }
    };
    extend(start);
  }
  return cycles;
}

/** Each step's strongly connected component, by Tarjan's algorithm: steps that all reach one another share one. */
function componentsOf(edges: Edge[][]): number[] {
  const component = edges.map(() => -1);
  const index = edges.map(() => -1);
  const low = edges.map(() => 0);
  const stack: number[] = [];
  const onStack = new Set<number>();
  let next = 0;
  let count = 0;
  const visit = (v: number): void => {
    index[v] = low[v] = next++;
    stack.push(v);
    onStack.add(v);
    for (const { to } of edges[v] ?? []) {
      if (index[to] === -1) {
        visit(to);
        low[v] = Math.min(low[v] ?? 0, low[to] ?? 0);
      } else if (onStack.has(to)) {
        low[v] = Math.min(low[v] ?? 0, index[to] ?? 0);
      }
    }
    if (low[v] !== index[v]) return;
    // v is the root of a component: it and every step above it on the stack.
    let w: number | undefined;
    do {
      w = stack.pop();
      if (w === undefined) break;
      onStack.delete(w);
      component[w] = count;
    } while (w !== v);
    count++;
  };
  edges.forEach((_, v) => {
    if (index[v] === -1) visit(v);
  });
  return component;
}

/** Whether `from` reaches `target` over steps listed after it and not on `trail`. */
function reaches(from: number, target: number, trail: number[], edges: Edge[][]): boolean {
  const seen = new Set(trail);
  const queue = [from];
  seen.add(from);
  while (queue.length > 0) {
    const at = queue.pop() ?? target;
    for (const { to } of edges[at] ?? []) {
      if (to === target) return true;
      if (to > target && !seen.has(to)) {
        seen.add(to);
        queue.push(to);
      }
    }
  }
  return false;
}

/** A plan with problems, refused by the functions that need a well-formed graph. */
function assertWellFormed(plan: RecoveryPlan): void {
  const problems = planProblems(plan);
  if (problems.length > 0) {
    const lines = problems.map((p) => `  ${p.path.join('.')}: ${p.message}`);
    throw new Error(`plan '${plan.name}' has problems:\n${lines.join('\n')}`);
  }
}

/**
 * The steps by depth: layer 0 waits for nothing, a step's layer is one more than its deepest dependency's. Each layer
 * keeps plan order. A plan with problems (a cycle has no depth) throws.
 */
export function topologicalLayers(plan: RecoveryPlan): string[][] {
  assertWellFormed(plan);
  return layersOf(plan.steps);
}

/**
 * The steps by depth as topologicalLayers gives them, unchecked: for steps already checked (a running plan's). A
 * dependency on no step is left out, and a cycle is cut where it is met, so that any steps get layers.
 */
export function layersOf(steps: readonly GraphStep[]): string[][] {
  const byId = new Map(steps.map((s) => [s.id, s]));
  const depth = new Map<string, number>();
  const depthOf = (id: string): number => {
    const known = depth.get(id);
    if (known !== undefined) return known;
    // Taken as 0 while its dependencies are looked at: a cycle back to it ends there.
    depth.set(id, 0);
    const step = byId.get(id);
    const deps = step ? dependenciesOf(step).filter((d) => byId.has(d)) : [];
    const d = deps.length === 0 ? 0 : 1 + Math.max(...deps.map(depthOf));
    depth.set(id, d);
    return d;
  };
  const layers: string[][] = [];
  for (const step of steps) {
    const d = depthOf(step.id);
    while (layers.length <= d) layers.push([]);
    // A duplicate id is listed once, at its first step.
    if (!layers.some((layer) => layer.includes(step.id))) layers[d]?.push(step.id);
  }
  // A cut cycle can leave a depth with no step.
  return layers.filter((layer) => layer.length > 0);
}

/** Every step that waits for `stepId`, directly or not: what its failure skips. In plan order; none for no such step. */
export function dependentsOf(plan: RecoveryPlan, stepId: string): string[] {
  const reached = new Set([stepId]);
  // Plan order need not be run order: go over the steps until a round adds none.
  for (let added = true; added;) {
    added = false;
    for (const step of plan.steps) {
      if (reached.has(step.id)) continue;
      if (dependenciesOf(step).some((d) => reached.has(d))) {
        reached.add(step.id);
        added = true;
      }
    }
  }
  return plan.steps.map((s) => s.id).filter((id) => id !== stepId && reached.has(id));
}

/** A step's time as epoch milliseconds; none when absent or not a time. */
function msOf(time: string | undefined): number | undefined {
  const ms = time === undefined ? NaN : Date.parse(time);
  return Number.isFinite(ms) ? ms : undefined;
}

/** A step that ran: both its times known. */
interface RanStep {
  step: PlanStepResult;
  index: number;
  start: number;
  end: number;
}

type PhaseTotals = Record<PlanPhase | 'between', number>;

const noTime = (): PhaseTotals => ({ approval: 0, restore: 0, validate: 0, manual: 0, wait: 0, between: 0 });

/**
 * The application's RTO and its parts. The RTO runs from `startedAt` to the end of the validate step that ended last
 * (the step that ended last, when no validate step ran; 0 when none ran). The critical path goes back from that step
 * to its dependency that ended last, and so on to a step with no dependency that ran. Its time is split into each
 * step's span (by phase) and the gaps before each step started (`between`). All is summed in whole milliseconds and
 * turned into seconds once per figure, so that the parts add up to the whole exactly: by phase, and by step plus
 * `between`.
 */
export function planRto(input: { startedAt: string; steps: PlanStepResult[]; targetSeconds: number }): PlanRto {
  const { startedAt, steps, targetSeconds } = input;
  const ran = new Map<string, RanStep>();
  steps.forEach((step, index) => {
    const start = msOf(step.startedAt);
    const end = msOf(step.endedAt);
    if (start !== undefined && end !== undefined && !ran.has(step.id)) ran.set(step.id, { step, index, start, end });
  });
  const all = [...ran.values()];
  const validations = all.filter((r) => r.step.kind === 'validate');
  const last = lastEnded(validations.length > 0 ? validations : all);
  const planStart = msOf(startedAt) ?? 0;
  if (last === undefined) return rtoOf(0, targetSeconds, [], noTime(), []);

  // Back from the last step, each time to the dependency that ended last; a step is never visited twice.
  const path = [last];
  for (let at = last; ;) {
    const deps = dependenciesOf(at.step).flatMap((id) => ran.get(id) ?? []);
    const next = lastEnded(deps.filter((d) => !path.includes(d)));
    if (next === undefined) break;
    path.unshift(next);
    at = next;
  }

  // A cursor walks the path from the plan's start to its end: each step's span is clipped to begin no earlier than the
  // cursor and to end within the RTO, so that gaps and spans tile [start, end] however the times fall.
  const windowEnd = Math.max(planStart, last.end);
  const byPhase = noTime();
  const byStep: { stepId: string; ms: number }[] = [];
  let cursor = planStart;
  for (const { step, start, end } of path) {
    const from = clamp(start, cursor, windowEnd);
    const to = clamp(end, from, windowEnd);
    byPhase.between += from - cursor;
    for (const [phase, ms] of phaseSplit(step, from, to)) byPhase[phase] += ms;
    byStep.push({ stepId: step.id, ms: to - from });
    cursor = to;
  }
  return rtoOf(
    windowEnd - planStart,
    targetSeconds,
    path.map((r) => r.step.id),
    byPhase,
    byStep,
  );
}

function rtoOf(
  ms: number,
  targetSeconds: number,
  criticalPath: string[],
  byPhaseMs: PhaseTotals,
  byStepMs: { stepId: string; ms: number }[],
): PlanRto {
  const seconds = ms / 1000;
  const byPhase = noTime();
  for (const phase of Object.keys(byPhase) as (keyof PhaseTotals)[]) byPhase[phase] = byPhaseMs[phase] / 1000;
  return {
    seconds,
    targetSeconds,
    met: seconds <= targetSeconds,
    criticalPath,
    byPhase,
    byStep: byStepMs.map(({ stepId, ms: stepMs }) => ({ stepId, seconds: stepMs / 1000 })),
  };
}

/** The step that ended last; of two that ended together, the one listed later. */
function lastEnded(candidates: RanStep[]): RanStep | undefined {
  let best: RanStep | undefined;
  for (const c of candidates) {
    if (!best || c.end > best.end || (c.end === best.end && c.index > best.index)) best = c;
  }
  return best;
}

const clamp = (value: number, low: number, high: number) => Math.min(Math.max(value, low), Math.max(low, high));

/**
 * The phase a step's own time belongs to where no interval of it says otherwise (a restore's child starting, a query
 * being sent): inside a step's span, time is the step's; `between` is only the time between steps.
 */
const OWN_PHASE: Record<PlanStepResult['kind'], PlanPhase> = {
  restore: 'restore',
  validate: 'validate',
  manual: 'manual',
  wait: 'wait',
};

/**
 * A step's span [from, to] by phase, in milliseconds: its intervals clipped to the span; where two overlap, the time
 * goes to the one listed first; time no interval covers is the step's own phase (`OWN_PHASE`). Cut at every interval's ends, each piece of the
 * span goes to the first interval that covers it whole.
 */
function phaseSplit(step: PlanStepResult, from: number, to: number): [PlanPhase | 'between', number][] {
  const intervals = step.phases.flatMap((p) => {
    const start = msOf(p.startedAt);
    const end = msOf(p.endedAt);
    if (start === undefined || end === undefined) return [];
    const lo = clamp(start, from, to);
    const hi = clamp(end, lo, to);
    return hi > lo ? [{ phase: p.phase, lo, hi }] : [];
  });
  const cuts = [...new Set([from, to, ...intervals.flatMap((i) => [i.lo, i.hi])])].sort((a, b) => a - b);
  const parts: [PlanPhase | 'between', number][] = [];
  for (let k = 0; k + 1 < cuts.length; k++) {
    const lo = cuts[k] ?? from;
    const hi = cuts[k + 1] ?? lo;
    const covering = intervals.find((i) => i.lo <= lo && i.hi >= hi);
    parts.push([covering?.phase ?? OWN_PHASE[step.kind], hi - lo]);
  }
  return parts;
}

// The RTO of a run and its parts: to the last validation, back along the dependencies that ended last, split by
// phase; the parts sum to the whole to the millisecond however the times fall (random cases from a seeded generator,
// the same on every run: no fast-check in the repository).
import { PLAN_PHASES, type PhaseInterval, type PlanStepResult } from './contract';
import { dependenciesOf, planRto } from './graph';

/** The same numbers on every run. */
function seeded(seed: number): (n: number) => number {
  let state = seed;
  return (n) => {
    state = (state * 48_271) % 2_147_483_647;
    return state % n;
  };
}

describe('planRto', () => {
  const START = '2026-11-29T02:00:00.000Z';
  const at = (seconds: number) => new Date(Date.parse(START) + seconds * 1000).toISOString();
  const phase = (name: PhaseInterval['phase'], from: number, to: number): PhaseInterval => ({
    phase: name,
    startedAt: at(from),
    endedAt: at(to),
  });
  const ran = (
    id: string,
    kind: PlanStepResult['kind'],
    after: string[],
    span: [number, number] | undefined,
    phases: PhaseInterval[] = [],
    of?: string,
  ): PlanStepResult => ({
    id,
    kind,
    after,
    ...(of === undefined ? {} : { of }),
    status: span ? 'passed' : 'skipped',
    ...(span ? { startedAt: at(span[0]), endedAt: at(span[1]) } : {}),
    phases,
  });

  test('to the last validation, back along the dependencies that ended last, split by phase', () => {
    const steps = [
      ran('db', 'restore', [], [5, 1205], [phase('approval', 5, 305), phase('restore', 305, 1205)]),
      ran('bucket', 'restore', [], [0, 600], [phase('restore', 0, 600)]),
      // Its of (db) ended after its after (bucket): the path goes through db.
      ran('check', 'validate', ['bucket'], [1210, 1300], [phase('validate', 1220, 1300)], 'db'),
      ran('dns', 'manual', ['check'], [1300, 2000], [phase('manual', 1300, 2000)]),
      ran('later', 'validate', ['bucket'], [600, 650], [phase('validate', 600, 650)], 'bucket'),
    ];
    expect(planRto({ startedAt: START, steps, targetSeconds: 1300 })).toEqual({
      seconds: 1300,
      targetSeconds: 1300,
      met: true,
      criticalPath: ['db', 'check'],
      // check's 10 s before its validate interval are its own (validate); between: the gaps before db and check.
      byPhase: { approval: 300, restore: 900, validate: 90, manual: 0, wait: 0, between: 5 + 5 },
      byStep: [
        { stepId: 'db', seconds: 1200 },
        { stepId: 'check', seconds: 90 },
      ],
    });
  });

  test('without a validation that ran, to the step that ended last; missed when over the target', () => {
    const steps = [
      ran('db', 'restore', [], [0, 100], [phase('restore', 0, 100)]),
      ran('check', 'validate', ['db'], undefined, [], 'db'),
      ran('warm', 'wait', ['db'], [100, 160], [phase('wait', 100, 160)]),
      ran('dns', 'manual', ['db'], [100, 130.5], [phase('manual', 100, 130.5)]),
    ];
    const rto = planRto({ startedAt: START, steps, targetSeconds: 150 });
    expect(rto).toMatchObject({ seconds: 160, met: false, criticalPath: ['db', 'warm'] });
    expect(rto.byPhase).toEqual({ approval: 0, restore: 100, validate: 0, manual: 0, wait: 60, between: 0 });
  });

  test('nothing ran: 0, met, no path', () => {
    const steps = [ran('db', 'restore', [], undefined)];
    expect(planRto({ startedAt: START, steps, targetSeconds: 60 })).toEqual({
      seconds: 0,
      targetSeconds: 60,
      met: true,
      criticalPath: [],
      byPhase: { approval: 0, restore: 0, validate: 0, manual: 0, wait: 0, between: 0 },
      byStep: [],
    });
  });

  test("overlapping phases count once, for the one listed first; uncovered time is the step's own phase", () => {
    const phases = [phase('restore', 10, 50), phase('approval', 0, 30), phase('wait', 60, 200)];
    const rto = planRto({ startedAt: START, steps: [ran('db', 'restore', [], [0, 100], phases)], targetSeconds: 1 });
    // approval 0–10 (restore is first from 10), restore 10–50, uncovered 50–60 (the restore step's own), wait 60–100
    // (clipped to the span).
    expect(rto.byPhase).toEqual({ approval: 10, restore: 50, validate: 0, manual: 0, wait: 40, between: 0 });
    expect(rto.byStep).toEqual([{ stepId: 'db', seconds: 100 }]);
  });

  const kinds: PlanStepResult['kind'][] = ['restore', 'validate', 'manual', 'wait'];
  /** Seconds back to whole milliseconds: exact for the figures planRto gives. */
  const ms = (seconds: number) => Math.round(seconds * 1000);
  const sumMs = (seconds: number[]) => seconds.reduce((sum, s) => sum + ms(s), 0);

  test('random timings, in any order: the phases sum to the whole to the millisecond, each part within it', () => {
    for (let seed = 1; seed <= 500; seed++) {
      const random = seeded(seed);
      const n = 1 + random(8);
      // To the millisecond, some before the plan's start, in no order the dependencies would give.
      const time = () => (random(2_000_000) - 100_000) / 1000;
      const steps = Array.from({ length: n }, (_, i): PlanStepResult => {
        const deps = Array.from({ length: i }, (_, j) => `s${j}`).filter(() => random(3) === 0);
        const [from, to] = [time(), time()].sort((a, b) => a - b) as [number, number];
        const phases = Array.from({ length: random(4) }, () => {
          const [a, b] = [time(), time()].sort((x, y) => x - y) as [number, number];
          return phase(PLAN_PHASES[random(PLAN_PHASES.length)] ?? 'restore', a, b);
        });
        const kind = kinds[random(kinds.length)] ?? 'restore';
        return ran(`s${i}`, kind, deps, random(6) === 0 ? undefined : [from, to], phases);
      });
      const rto = planRto({ startedAt: START, steps, targetSeconds: 1000 });
      const whole = ms(rto.seconds);
      expect({ seed, byPhase: sumMs(Object.values(rto.byPhase)) }).toEqual({ seed, byPhase: whole });
      expect(sumMs(rto.byStep.map((s) => s.seconds))).toBeLessThanOrEqual(whole);
      expect(Object.values(rto.byPhase).every((s) => s >= 0) && rto.byStep.every((s) => s.seconds >= 0)).toBe(true);
      expect(rto.met).toBe(rto.seconds <= 1000);
      expect(rto.criticalPath).toEqual(rto.byStep.map((s) => s.stepId));
      // Each step of the path is a dependency of the next.
      for (let k = 1; k < rto.criticalPath.length; k++) {
        const step = steps.find((s) => s.id === rto.criticalPath[k]);
        expect(step && dependenciesOf(step)).toContain(rto.criticalPath[k - 1]);
      }
    }
  });

  test('random runs as the workflow runs them: spans and gaps sum to the whole, the gaps are between', () => {
    for (let seed = 1; seed <= 500; seed++) {
      const random = seeded(seed);
      const n = 1 + random(10);
      const ended = new Map<string, number>();
      const steps = Array.from({ length: n }, (_, i): PlanStepResult => {
        const deps = Array.from({ length: i }, (_, j) => `s${j}`).filter(() => random(3) === 0);
        // Started once its dependencies ended, its phases one after the other from its start to its end.
        const ready = Math.max(0, ...deps.map((d) => ended.get(d) ?? 0));
        const from = ready + random(5_000) / 1000;
        const phases: PhaseInterval[] = [];
        let to = from;
        for (let k = 0; k < 1 + random(3); k++) {
          const next = to + random(100_000) / 1000;
          phases.push(phase(PLAN_PHASES[random(PLAN_PHASES.length)] ?? 'restore', to, next));
          to = next;
        }
        ended.set(`s${i}`, to);
        return ran(`s${i}`, kinds[random(kinds.length)] ?? 'restore', deps, [from, to], phases);
      });
      const rto = planRto({ startedAt: START, steps, targetSeconds: 1000 });
      let previousEnd = 0;
      const gaps = rto.criticalPath.reduce((sum, id) => {
        const step = steps.find((s) => s.id === id);
        const gap = ms(Date.parse(step?.startedAt ?? '') / 1000 - Date.parse(START) / 1000 - previousEnd);
        previousEnd = (Date.parse(step?.endedAt ?? '') - Date.parse(START)) / 1000;
        return sum + gap;
      }, 0);
      const spans = sumMs(rto.byStep.map((s) => s.seconds));
      const { between, ...inPhases } = rto.byPhase;
      expect({ seed, spansAndGaps: spans + gaps, between: ms(between) }).toEqual({
        seed,
        spansAndGaps: ms(rto.seconds),
        between: gaps,
      });
      expect(sumMs(Object.values(inPhases))).toBe(spans);
      // The RTO runs to the last validation that ran, else to the last step.
      const validations = steps.filter((s) => s.kind === 'validate');
      const candidates = validations.length > 0 ? validations : steps;
      const lastEnd = Math.max(...candidates.map((s) => Date.parse(s.endedAt ?? '')));
      expect(ms(rto.seconds)).toBe(lastEnd - Date.parse(START));
    }
  });
});

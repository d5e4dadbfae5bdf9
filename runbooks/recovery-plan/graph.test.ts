// The plan's graph: its problems (checked against brute force on random small graphs), its layers and what a failure
// skips (rto.test.ts: the RTO). No fast-check in the repository: the random cases come from a seeded generator, the
// same on every run.
import { explainIssue } from '../../api/validate';
import { RecoveryPlanRunInput } from './contract';
import {
  dependenciesOf,
  dependentsOf,
  layersOf,
  MAX_CYCLES_REPORTED,
  planProblems,
  topologicalLayers,
  type PlanProblem,
} from './graph';
import { RecoveryPlan, type PlanStep, type RecoveryPlanInput } from './plan';

type StepInput = RecoveryPlanInput['steps'][number];

const DESTINATION = { amazonBucket: { bucketName: 'recovery-pa-east-1', prefix: 'payments/' } };

const restore = (id: string, after: string[] = []): StepInput => ({
  id,
  kind: 'restore',
  after,
  resource: { id: `res-${id}` },
  destination: DESTINATION,
});
const validate = (id: string, of: string, after: string[] = []): StepInput => ({
  id,
  kind: 'validate',
  of,
  after,
  external: { windowHours: 1 },
});
const manual = (id: string, after: string[] = []): StepInput => ({ id, kind: 'manual', after, instructions: 'do it' });
const wait = (id: string, after: string[] = []): StepInput => ({ id, kind: 'wait', after, seconds: 60 });

/** A plan as the schema gives it (defaults filled), its graph unchecked. */
const planOf = (steps: StepInput[]): RecoveryPlan =>
  RecoveryPlan.parse({ name: 'payments', restoreAccountId: 'ra-1', rtoTargetMinutes: 240, steps });

/** The same numbers on every run. */
function seeded(seed: number): (n: number) => number {
  let state = seed;
  return (n) => {
    state = (state * 48_271) % 2_147_483_647;
    return state % n;
  };
}

describe('dependenciesOf', () => {
  test("its after, then a validate step's of, once each", () => {
    const [db, check, dns] = planOf([restore('db'), validate('check', 'db', ['db', 'net']), manual('dns', ['a', 'a'])])
      .steps as [PlanStep, PlanStep, PlanStep];
    expect(dependenciesOf(db)).toEqual([]);
    expect(dependenciesOf(check)).toEqual(['db', 'net']);
    expect(dependenciesOf({ ...check, after: ['net'] })).toEqual(['net', 'db']);
    expect(dependenciesOf(dns)).toEqual(['a']);
  });
});

describe('planProblems', () => {
  test('a well-formed plan has none', () => {
    expect(planProblems(planOf([restore('db'), validate('check', 'db'), wait('warm', ['check'])]))).toEqual([]);
  });

  test('a duplicate id names both indexes', () => {
    expect(planProblems(planOf([restore('db'), manual('dns'), restore('db')]))).toEqual([
      { path: ['steps', 2, 'id'], message: "step id 'db' is used by steps 0 and 2" },
    ]);
  });

  test('an unknown step is named with the reference, and the closest id when one is close', () => {
    const plan = planOf([restore('database'), manual('dns', ['databse', 'load-balancer']), validate('v', 'dtabase')]);
    expect(planProblems(plan)).toEqual([
      {
        path: ['steps', 1, 'after', 0],
        message: "step 'dns' names 'databse', which is no step of the plan (did you mean 'database'?)",
      },
      { path: ['steps', 1, 'after', 1], message: "step 'dns' names 'load-balancer', which is no step of the plan" },
      {
        path: ['steps', 2, 'of'],
        message: "step 'v' names 'dtabase', which is no step of the plan (did you mean 'database'?)",
      },
    ]);
  });

  test('a step depending on itself, by after or by of', () => {
    expect(planProblems(planOf([restore('db', ['db']), validate('v', 'v')]))).toEqual([
      { path: ['steps', 0, 'after', 0], message: "step 'db' depends on itself" },
      { path: ['steps', 1, 'of'], message: "step 'v' depends on itself" },
    ]);
  });

  test("a validate step's of must name a restore step", () => {
    expect(planProblems(planOf([manual('dns'), validate('v', 'dns')]))).toEqual([
      {
        path: ['steps', 1, 'of'],
        message: "validate step 'v' validates 'dns', a manual step: 'of' must name a restore step",
      },
    ]);
  });

  test('latest-clean searches restore steps: a manual step or no step is named, with the closest id', () => {
    const check = {
      name: 'no encrypted emails',
      databaseName: 'payments',
      destination: DESTINATION,
      queries: [{ name: 'encrypted', sql: 'SELECT count(*) FROM t', expect: 'value = 0' }],
    };
    const plan = RecoveryPlan.parse({
      name: 'payments',
      restoreAccountId: 'ra-1',
      rtoTargetMinutes: 240,
      steps: [restore('database'), manual('dns')],
      pointInTime: {
        target: 'latest-clean',
        clean: [
          { step: 'database', check },
          { step: 'dns', check },
          { step: 'databse', check },
        ],
      },
    });
    expect(planProblems(plan)).toEqual([
      {
        path: ['pointInTime', 'clean', 1, 'step'],
        message: "'latest-clean' searches the resources of 'dns', a manual step: it must name a restore step",
      },
      {
        path: ['pointInTime', 'clean', 2, 'step'],
        message:
          "'latest-clean' searches the resources of 'databse', no step of the plan (did you mean 'database'?): it " +
          'must name a restore step',
      },
    ]);
    // The searches come with latest-clean, and only with it.
    const parsed = (pointInTime: object) =>
      RecoveryPlan.safeParse({ ...plan, pointInTime }).error?.issues.map((i) => i.path.join('.'));
    expect(parsed({ target: 'latest-clean' })).toEqual(['pointInTime.clean']);
    expect(parsed({ target: 'latest', clean: [{ step: 'database', check }] })).toEqual(['pointInTime.clean']);
  });

  test('a cycle is named in run order from its first-listed step, at the dependency that closes it', () => {
    // b after a, c after b, a after c: a → b → c → a.
    const plan = planOf([restore('a', ['x', 'c']), restore('b', ['a']), restore('c', ['b']), restore('x')]);
    expect(planProblems(plan)).toEqual([
      {
        path: ['steps', 0, 'after', 1],
        message: 'a cycle of dependencies: a → b → c → a (each step comes after the one before it)',
      },
    ]);
  });

  test('two cycles through one step are each reported once; one through a validate step names its of', () => {
    const plan = planOf([
      restore('a', ['b', 'c']),
      restore('b', ['a']),
      restore('c', ['a']),
      restore('db', ['check']),
      validate('check', 'db'),
    ]);
    expect(planProblems(plan).map((p) => [p.path.join('.'), p.message.replace(/ \(each.*/, '')])).toEqual([
      ['steps.0.after.0', 'a cycle of dependencies: a → b → a'],
      ['steps.0.after.1', 'a cycle of dependencies: a → c → a'],
      ['steps.3.after.0', 'a cycle of dependencies: db → check → db'],
    ]);
  });

  test('past the cap, cycles are summed up in one more problem', () => {
    // Every pair of 10 steps waits for each other: hundreds of cycles.
    const ids = Array.from({ length: 10 }, (_, i) => `s${i}`);
    const problems = planProblems(
      planOf(
        ids.map((id) =>
          restore(
            id,
            ids.filter((o) => o !== id),
          ),
        ),
      ),
    );
    expect(problems).toHaveLength(MAX_CYCLES_REPORTED + 1);
    expect(problems.at(-1)).toEqual({ path: ['steps'], message: `more cycles than the ${MAX_CYCLES_REPORTED} named` });
  });

  test('a plan of the most steps, each after the 20 before it, is checked quickly, listed in either order', () => {
    const ids = Array.from({ length: 500 }, (_, i) => `s${i}`);
    const steps = ids.map((id, i) => restore(id, ids.slice(Math.max(0, i - 20), i)));
    for (const plan of [planOf(steps), planOf([...steps].reverse())]) {
      const began = Date.now();
      expect(planProblems(plan)).toEqual([]);
      expect(topologicalLayers(plan)).toHaveLength(500);
      expect(Date.now() - began).toBeLessThan(2_000);
    }
  });

  test('random graphs: a cycle is reported once for each elementary cycle brute force finds, and is one', () => {
    let cycles = 0;
    for (let seed = 1; seed <= 300; seed++) {
      const random = seeded(seed);
      const n = 1 + random(6);
      const ids = Array.from({ length: n }, (_, i) => `s${i}`);
      const after = ids.map((id) => ids.filter((other) => other !== id && random(4) === 0));
      const plan = planOf(ids.map((id, i) => restore(id, after[i])));
      const problems = planProblems(plan);
      expect({ seed, found: problems.map(cycleKey).sort() }).toEqual({ seed, found: bruteForceCycles(after) });
      for (const problem of problems) {
        // The path names the dependency that closes the cycle: its first step's on its last.
        const names = cycleNames(problem);
        const [i, , k] = problem.path.slice(1) as [number, string, number];
        expect(plan.steps[i]?.id).toBe(names[0]);
        expect(plan.steps[i]?.after[k]).toBe(names.at(-2));
        // Each step of it comes after the one before it.
        for (let j = 1; j < names.length; j++) expect(after[ids.indexOf(names[j] ?? '')]).toContain(names[j - 1]);
      }
      cycles += problems.length;
    }
    // The graphs had cycles to find.
    expect(cycles).toBeGreaterThan(100);
  });
});

const cycleNames = (problem: PlanProblem) =>
  (/: (.*) \(each/.exec(problem.message)?.[1] ?? problem.message).split(' → ');

/** A cycle as a key: its steps from the lowest-numbered one, without the return. */
const cycleKey = (problem: PlanProblem) => cycleNames(problem).slice(0, -1).join(',');

/** Every elementary cycle of `after` (step i comes after each of after[i]), by trying every sequence of steps. */
function bruteForceCycles(after: string[][]): string[] {
  const n = after.length;
  const comesAfter = (later: number, earlier: number) => after[later]?.includes(`s${earlier}`) ?? false;
  const found: string[] = [];
  const extend = (sequence: number[]) => {
    const last = sequence.at(-1) ?? 0;
    const first = sequence[0] ?? 0;
    if (sequence.length > 1 && comesAfter(first, last)) found.push(sequence.map((i) => `s${i}`).join(','));
    for (let next = first + 1; next < n; next++) {
      if (!sequence.includes(next) && comesAfter(next, last)) extend([...sequence, next]);
    }
  };
  for (let start = 0; start < n; start++) extend([start]);
  return found.sort();
}

describe('the run input refuses a plan with problems, before anything starts', () => {
  const input = (steps: StepInput[]) => ({
    mode: 'drill',
    plan: { name: 'payments', restoreAccountId: 'ra-1', rtoTargetMinutes: 240, steps },
  });

  test('a cycle is an issue at plan.steps.N.after.K naming its steps', () => {
    const given = input([restore('db', ['dns']), validate('check', 'db'), manual('dns', ['check'])]);
    const result = RecoveryPlanRunInput.safeParse(given);
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((issue) => explainIssue(issue, given))).toEqual([
      'plan.steps.0.after.0: a cycle of dependencies: db → check → dns → db (each step comes after the one before ' +
        'it); got "dns"',
    ]);
  });

  test('every problem is an issue; a well-formed plan parses', () => {
    const bad = RecoveryPlanRunInput.safeParse(input([restore('db', ['db']), restore('db'), validate('v', 'dbb')]));
    expect(bad.error?.issues.map((i) => i.path.join('.'))).toEqual([
      'plan.steps.0.after.0',
      'plan.steps.1.id',
      'plan.steps.2.of',
    ]);
    expect(RecoveryPlanRunInput.safeParse(input([restore('db'), validate('v', 'db')])).success).toBe(true);
  });
});

describe('topologicalLayers', () => {
  test('by depth, each layer in plan order; a validate step is after its of', () => {
    const plan = planOf([
      manual('dns', ['servers', 'check']),
      restore('servers', ['bucket']),
      validate('check', 'db'),
      restore('bucket'),
      restore('db'),
    ]);
    expect(topologicalLayers(plan)).toEqual([['bucket', 'db'], ['servers', 'check'], ['dns']]);
  });

  test('a plan with problems throws, naming them', () => {
    expect(() => topologicalLayers(planOf([restore('a', ['b']), restore('b', ['a'])]))).toThrow(
      "plan 'payments' has problems:\n  steps.0.after.0: a cycle of dependencies: a → b → a",
    );
  });

  test('unchecked, for a running plan: unknown dependencies left out, a cycle cut where it is met', () => {
    const steps = [
      { id: 'a', kind: 'restore', after: ['b'] },
      { id: 'b', kind: 'restore', after: ['a', 'gone'] },
      { id: 'c', kind: 'validate', after: [], of: 'b' },
    ];
    expect(layersOf(steps)).toEqual([['b'], ['a', 'c']]);
  });

  test('random acyclic plans: every step once, each one layer past its deepest dependency', () => {
    for (let seed = 1; seed <= 200; seed++) {
      const random = seeded(seed);
      const n = 1 + random(30);
      // Depending on earlier steps only, listed in a shuffled order: acyclic, plan order not run order.
      const ids = Array.from({ length: n }, (_, i) => `s${i}`);
      const steps = ids.map((id, i) =>
        restore(
          id,
          ids.slice(0, i).filter(() => random(5) === 0),
        ),
      );
      const plan = planOf(shuffled(steps, random));
      const layers = topologicalLayers(plan);
      const layerOf = new Map(layers.flatMap((layer, d) => layer.map((id) => [id, d] as const)));
      expect(layers.flat().sort()).toEqual([...ids].sort());
      for (const step of plan.steps) {
        const deps = dependenciesOf(step).map((d) => layerOf.get(d) ?? NaN);
        expect(layerOf.get(step.id)).toBe(deps.length === 0 ? 0 : 1 + Math.max(...deps));
      }
      const order = plan.steps.map((s) => s.id);
      for (const layer of layers) expect(layer).toEqual(order.filter((id) => layer.includes(id)));
    }
  });
});

function shuffled<T>(items: T[], random: (n: number) => number): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = random(i + 1);
    [copy[i], copy[j]] = [copy[j] as T, copy[i] as T];
  }
  return copy;
}

describe('dependentsOf', () => {
  test('every step after it, directly or not, in plan order; plan order need not be run order', () => {
    const plan = planOf([
      manual('dns', ['servers']),
      restore('servers', ['bucket']),
      validate('check', 'db'),
      restore('bucket', ['check']),
      restore('db'),
      wait('other'),
    ]);
    expect(dependentsOf(plan, 'db')).toEqual(['dns', 'servers', 'check', 'bucket']);
    expect(dependentsOf(plan, 'bucket')).toEqual(['dns', 'servers']);
    expect(dependentsOf(plan, 'dns')).toEqual([]);
    expect(dependentsOf(plan, 'nothing')).toEqual([]);
  });

  test('random acyclic plans: the steps whose dependencies, followed back, reach it', () => {
    for (let seed = 1; seed <= 200; seed++) {
      const random = seeded(seed);
      const ids = Array.from({ length: 1 + random(15) }, (_, i) => `s${i}`);
      const plan = planOf(
        shuffled(
          ids.map((id, i) =>
            restore(
              id,
              ids.slice(0, i).filter(() => random(4) === 0),
            ),
          ),
          random,
        ),
      );
      const byId = new Map(plan.steps.map((s) => [s.id, s]));
      const reaches = (from: string, target: string): boolean =>
        dependenciesOf(byId.get(from) ?? { id: from, kind: 'restore', after: [] }).some(
          (d) => d === target || reaches(d, target),
        );
      const target = ids[random(ids.length)] ?? 's0';
      expect(dependentsOf(plan, target)).toEqual(plan.steps.map((s) => s.id).filter((id) => reaches(id, target)));
    }
  });
});

// The coverage benchmark's estate and selection (bench/coverage/selection.ts), over the same generated inventory the
// benchmark builds at --quick, and its failure draw (bench/coverage/evidence.ts).
import { failsOn } from '../../bench/coverage/evidence';
import {
  accountSizes,
  conditionsOf,
  drillSelection,
  GENERATED_PROVIDERS,
  GENERATION_SEED,
} from '../../bench/coverage/selection';
import type { InventoryResource } from '../../api';
import { meetsConditions, selectIds } from '../../runbooks/dr-drill/selection';
import { buildSimulator } from '../../simulator/app';
import { generateInventory } from '../../simulator/seed-inventory-bulk';

const TOTAL = 5_000;

/** The seeded simulator's inventory with the benchmark's four generated accounts, and the first (main) account. */
function estate(): { inventory: InventoryResource[]; mainAccount: string } {
  // Built, not listening: only its state is read.
  const sim = buildSimulator({
    seed: 1,
    tokenTtlSeconds: 3_600,
    bootstrapClientId: 'test',
    bootstrapClientSecret: 'test',
  });
  const { state, clock } = sim.ctx;
  const sizes = accountSizes(TOTAL, Object.keys(state.resources).length);
  const accounts = GENERATED_PROVIDERS.map((cloudProvider, i) =>
    generateInventory(state, clock.now(), {
      resources: sizes[i] ?? 0,
      snapshotsPerResource: 0,
      cloudProvider,
      seed: GENERATION_SEED + i,
    }),
  );
  return {
    inventory: Object.values(state.resources).map((r) => r.resource),
    mainAccount: accounts[0]?.providerAccountId ?? '',
  };
}

let built: ReturnType<typeof estate>;
beforeAll(() => {
  built = estate();
});

test('the generated accounts fill the inventory up to the size asked', () => {
  // The remainder goes to the first account.
  expect(accountSizes(50_000, 221)).toEqual([12_447, 12_444, 12_444, 12_444]);
  expect(accountSizes(5_000, 221).reduce((a, b) => a + b, 0)).toBe(4_779);
  expect(() => accountSizes(223, 221)).toThrow('no room');
  expect(built.inventory).toHaveLength(TOTAL);
});

test('the selection takes its conditions’ resources, with its includes and without its excludes', () => {
  const { inventory, mainAccount } = built;
  const selection = drillSelection(inventory, mainAccount);
  const byConditions = selectIds(inventory, conditionsOf(mainAccount));
  const taken = selectIds(inventory, selection);
  const byId = new Map(inventory.map((r) => [r.id, r]));
  const include = selection.include ?? [];
  const exclude = selection.exclude ?? [];

  expect(include).toHaveLength(5);
  expect(exclude).toHaveLength(Math.floor(byConditions.length / 100));
  for (const id of include) expect(meetsConditions(byId.get(id) as InventoryResource, selection)).toBe(false);
  expect(exclude.every((id) => byConditions.includes(id))).toBe(true);
  expect(taken).toHaveLength(byConditions.length + include.length - exclude.length);
  expect(taken.filter((id) => exclude.includes(id))).toEqual([]);
  // About 1,200 of 50,000: the same share here.
  expect(taken.length / TOTAL).toBeGreaterThan(0.015);
  expect(taken.length / TOTAL).toBeLessThan(0.035);
});

test('about one drill in twenty fails, the same at every run', () => {
  const draws = Array.from({ length: 2_000 }, (_, i) => failsOn(`r-${i % 200}`, Math.floor(i / 200)));
  const rate = draws.filter(Boolean).length / draws.length;
  expect(rate).toBeGreaterThan(0.03);
  expect(rate).toBeLessThan(0.07);
  expect(failsOn('r-1', 3)).toBe(failsOn('r-1', 3));
});

// Lanes of a drill's batch (drillInLanes): resources in order, lanes that end when none is left, and lanes opened later.
import type { ResourceRef } from './activities';
import { drillInLanes, type Drilled } from './drill-one';
import type { DrillResourceResult } from './report';

const resources: ResourceRef[] = Array.from({ length: 7 }, (_, i) => ({
  id: `r${i}`,
  resourceName: `resource ${i}`,
  resourceType: 'PA_OBJECT_STORE',
  providerResourceId: `p${i}`,
  region: 'east-1',
}));

const passed = (resource: ResourceRef): DrillResourceResult => ({
  resourceId: resource.id,
  resourceName: resource.resourceName,
  resourceType: resource.resourceType,
  snapshotReused: false,
  verdict: 'PASS',
  reasons: [],
});

/** A drill of each resource that waits until the test lets it end, recording how many run at once. */
function heldDriller() {
  const waiting: { resource: ResourceRef; end: () => void }[] = [];
  let running = 0;
  let most = 0;
  const drillOne = (resource: ResourceRef) =>
    new Promise<Drilled>((resolve) => {
      running += 1;
      most = Math.max(most, running);
      waiting.push({
        resource,
        end: () => {
          running -= 1;
          resolve(passed(resource));
        },
      });
    });
  const endAll = async () => {
    for (const w of waiting.splice(0)) w.end();
    await new Promise((r) => setImmediate(r));
  };
  return { drillOne, waiting, endAll, most: () => most };
}

test('lanes take the resources in order, and each lane says when it found none left', async () => {
  const d = heldDriller();
  const finished: number[] = [];
  let left = 0;
  const done = drillInLanes(resources, 3, d.drillOne, { finished: (i) => finished.push(i), left: () => (left += 1) });
  await new Promise((r) => setImmediate(r));
  expect(d.waiting.map((w) => w.resource.id)).toEqual(['r0', 'r1', 'r2']);
  await d.endAll();
  await d.endAll();
  // Six done: the seventh takes one lane, the other two found nothing left.
  expect(d.waiting.map((w) => w.resource.id)).toEqual(['r6']);
  expect(left).toBe(2);
  await d.endAll();
  // No resource waits for a verdict.
  expect(await done).toEqual([]);
  expect(left).toBe(3);
  expect(finished).toEqual([0, 1, 2, 3, 4, 5, 6]);
  expect(d.most()).toBe(3);
});

test('lanes opened later take from the same resources, and the run ends only when they have', async () => {
  const d = heldDriller();
  let addLanes: (count: number) => void = () => undefined;
  let left = 0;
  let returned = false;
  const done = drillInLanes(resources, 2, d.drillOne, {
    finished: () => undefined,
    left: () => (left += 1),
    grow: (add) => (addLanes = add),
  }).then(() => (returned = true));
  await new Promise((r) => setImmediate(r));
  addLanes(3);
  expect(d.waiting.map((w) => w.resource.id)).toEqual(['r0', 'r1', 'r2', 'r3', 'r4']);
  await d.endAll();
  // Two left for five lanes: three end at once.
  expect(d.waiting.map((w) => w.resource.id)).toEqual(['r5', 'r6']);
  expect(left).toBe(3);
  expect(returned).toBe(false);
  // A lane opened when nothing is left ends at once, and is told as such.
  addLanes(1);
  expect(left).toBe(4);
  await d.endAll();
  await done;
  expect(returned).toBe(true);
  // Six lanes in all (two, three and one), each told once.
  expect(left).toBe(6);
  expect(d.most()).toBe(5);
});

// The worker's activity slots: watches (waits sleeping inside their attempt) take none, every other activity does.
import type { ActivitySlotInfo, SlotReserveContext } from '@temporalio/worker';
import { WatchAwareActivitySlots } from '../../worker/slots';

const ctx: SlotReserveContext = {
  slotType: 'activity',
  taskQueue: 'runbooks',
  workerIdentity: 'test',
  workerBuildId: '',
  isSticky: false,
};
const task = (activityType: string): ActivitySlotInfo => ({ type: 'activity', activityType });

/** Reserves a slot and runs `activityType` in it, as the SDK does: reserve, then mark used once the task arrives. */
async function run(slots: WatchAwareActivitySlots, activityType: string): Promise<() => void> {
  const permit = await slots.reserveSlot(ctx, new AbortController().signal);
  slots.markSlotUsed({ slotInfo: task(activityType), permit });
  return () => slots.releaseSlot({ slotInfo: task(activityType), permit });
}

test('a thousand watches leave every slot to the other activities', async () => {
  const slots = new WatchAwareActivitySlots(3);
  for (let i = 0; i < 1_000; i++) await run(slots, 'checkApproval');
  expect(slots.watches).toBe(1_000);
  const others = [await run(slots, 'startRestore'), await run(slots, 'startBackup'), await run(slots, 'queryExport')];
  // The fourth service call waits for one of the three to end.
  expect(slots.tryReserveSlot(ctx)).toBeNull();
  let reserved = false;
  const fourth = slots.reserveSlot(ctx, new AbortController().signal).then(() => (reserved = true));
  await new Promise((resolve) => setImmediate(resolve));
  expect(reserved).toBe(false);
  others[0]?.();
  await fourth;
  expect(reserved).toBe(true);
});

test('a slot reserved for a poll counts until its task arrives, and a poll that brings nothing gives it back', async () => {
  const slots = new WatchAwareActivitySlots(1);
  const permit = await slots.reserveSlot(ctx, new AbortController().signal);
  expect(slots.tryReserveSlot(ctx)).toBeNull();
  slots.releaseSlot({ permit });
  const again = slots.tryReserveSlot(ctx);
  expect(again).not.toBeNull();
  // The poll brought a watch: the slot is free again for the next poll.
  slots.markSlotUsed({ slotInfo: task('checkApproval'), permit: again ?? {} });
  expect(slots.tryReserveSlot(ctx)).not.toBeNull();
});

test('a reservation waiting for a slot ends when the worker shuts down (its abort signal)', async () => {
  const slots = new WatchAwareActivitySlots(1);
  await run(slots, 'startRestore');
  const abort = new AbortController();
  const waiting = slots.reserveSlot(ctx, abort.signal);
  abort.abort();
  await expect(waiting).rejects.toMatchObject({ name: 'AbortError' });
  expect(slots.tryReserveSlot(ctx)).toBeNull();
});

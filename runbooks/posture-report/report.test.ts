import { emptyCounts, MAX_VALUES_PER_DIMENSION, mergeCounts, OTHER_VALUES } from './report';

test('counts of the same values add up, keys sorted whatever the order of the pages', () => {
  const a = { ...emptyCounts(), resourceType: { PB_VM: 2, PA_VM: 1 } };
  const b = { ...emptyCounts(), resourceType: { PA_VM: 3, PC_VM: 1 } };
  expect(Object.entries(mergeCounts(a, b).resourceType)).toEqual([
    ['PA_VM', 4],
    ['PB_VM', 2],
    ['PC_VM', 1],
  ]);
  expect(mergeCounts(b, a)).toEqual(mergeCounts(a, b));
});

test('a dimension keeps its most counted values and sums the rest, so that counts stay bounded', () => {
  // A value per resource, as a service sending a new one each time would give: 1,000 values, one of them common.
  const many = Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`TYPE_${i}`, 1]));
  const counts = mergeCounts(emptyCounts(), { ...emptyCounts(), resourceType: { ...many, PA_VM: 500 } });
  const entries = Object.entries(counts.resourceType);
  expect(entries).toHaveLength(MAX_VALUES_PER_DIMENSION);
  expect(counts.resourceType.PA_VM).toBe(500);
  expect(entries.reduce((sum, [, n]) => sum + n, 0)).toBe(1500);
  // Merging again keeps the bound and the total.
  const again = mergeCounts(counts, { ...emptyCounts(), resourceType: { TYPE_NEW: 1 } });
  expect(Object.keys(again.resourceType)).toHaveLength(MAX_VALUES_PER_DIMENSION);
  expect(Object.values(again.resourceType).reduce((sum, n) => sum + n, 0)).toBe(1501);
  expect(again.resourceType[OTHER_VALUES]).toBeGreaterThan(0);
});

import type { CheckedQuery } from './contract';
import { resumeFrom } from './progress';

const names = ['orders present', 'no encrypted emails'];
const first: CheckedQuery = { name: 'orders present', queryId: 'q-1', rows: 1200, expect: 'rows >= 1000', met: true };

describe('resumeFrom', () => {
  test('a first attempt, with no details, starts from the first query', () => {
    expect(resumeFrom(undefined, names)).toEqual({ answered: [] });
    expect(resumeFrom(null, names)).toEqual({ answered: [] });
  });

  test('details of answers only, as earlier workers wrote them, still resume after the last answer', () => {
    expect(resumeFrom({ answered: [first] }, names)).toEqual({ answered: [first] });
  });

  test('a query started and not yet answered is resumed by its ID', () => {
    const running = { index: 1, name: 'no encrypted emails', queryId: 'q-2' };
    expect(resumeFrom({ answered: [first], running }, names)).toEqual({ answered: [first], running });
    const firstRunning = { index: 0, name: 'orders present', queryId: 'q-1' };
    expect(resumeFrom({ answered: [], running: firstRunning }, names)).toEqual({ answered: [], running: firstRunning });
  });

  test.each([
    ['the place of an answered one', { index: 0, name: 'orders present', queryId: 'q-1' }],
    ["another query's name", { index: 1, name: 'orders present', queryId: 'q-2' }],
    ['a place past the check', { index: 2, name: 'no encrypted emails', queryId: 'q-3' }],
    ['no ID', { index: 1, name: 'no encrypted emails', queryId: '' }],
    ['no place', { name: 'no encrypted emails', queryId: 'q-2' }],
  ])('a running query with %s is no start of the next query, which is started afresh', (_, running) => {
    expect(resumeFrom({ answered: [first], running }, names)).toEqual({ answered: [first] });
  });

  test('the answers returned are a copy: appending to them leaves the details as they were', () => {
    const details = { answered: [first] };
    resumeFrom(details, names).answered.push(first);
    expect(details.answered).toHaveLength(1);
  });
});

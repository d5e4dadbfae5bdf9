import { costWindow } from './windows';

const at = (iso: string) => new Date(iso);
/** The window `costWindow` should give: its label and time frame. */
const window = (label: string, startTime: string, endTime: string) => ({ label, timeFrame: { startTime, endTime } });

/** A window computed at the first and at the last instant of a period is one window, with this label. */
function sameWindowThrough(kind: 'previous-day' | 'previous-month', first: string, last: string, label: string) {
  const fromFirst = costWindow(kind, at(first));
  expect(fromFirst.label).toBe(label);
  expect(costWindow(kind, at(last))).toEqual(fromFirst);
}

// The whole UTC day or month before the reference, labelled with its date or its year and month; across a year's end
// too (January's previous month is December).
test.each([
  ['previous-day', '2026-11-21T09:30:00Z', '2026-11-20', '2026-11-20T00:00:00.000Z', '2026-11-21T00:00:00.000Z'],
  ['previous-day', '2027-01-01T00:30:00Z', '2026-12-31', '2026-12-31T00:00:00.000Z', '2027-01-01T00:00:00.000Z'],
  ['previous-month', '2026-11-21T09:30:00Z', '2026-10', '2026-10-01T00:00:00.000Z', '2026-11-01T00:00:00.000Z'],
  ['previous-month', '2027-01-15T00:00:00Z', '2026-12', '2026-12-01T00:00:00.000Z', '2027-01-01T00:00:00.000Z'],
] as const)('%s at %s is %s, from %s to %s', (kind, reference, label, startTime, endTime) => {
  expect(costWindow(kind, at(reference))).toEqual(window(label, startTime, endTime));
});

describe('previous-day', () => {
  test('is the same window at the first and the last millisecond of the reference day', () => {
    sameWindowThrough('previous-day', '2026-11-21T00:00:00.000Z', '2026-11-21T23:59:59.999Z', '2026-11-20');
  });

  test('crosses month and year ends', () => {
    expect(costWindow('previous-day', at('2026-03-01T12:00:00Z')).label).toBe('2026-02-28');
    expect(costWindow('previous-day', at('2028-03-01T12:00:00Z')).label).toBe('2028-02-29');
  });

  test('counts days in UTC, whatever offset the reference was written with', () => {
    // 01:30 at +02:00 is still the previous UTC day.
    expect(costWindow('previous-day', at('2026-03-01T01:30:00+02:00')).label).toBe('2026-02-27');
  });
});

describe('previous-month', () => {
  test('from the first and the last instant of a month is the same window', () => {
    sameWindowThrough('previous-month', '2026-05-01T00:00:00.000Z', '2026-05-31T23:59:59.999Z', '2026-04');
  });

  test('ends at the first of the reference month after a month of 31 days', () => {
    // Month arithmetic on the 31st must not roll over into the month after.
    expect(costWindow('previous-month', at('2026-03-31T18:00:00Z')).timeFrame).toEqual({
      startTime: '2026-02-01T00:00:00.000Z',
      endTime: '2026-03-01T00:00:00.000Z',
    });
  });

  test.each([
    ['2028-03-10T00:00:00Z', '2028-02', 29],
    ['2026-03-10T00:00:00Z', '2026-02', 28],
    ['2100-03-10T00:00:00Z', '2100-02', 28],
    ['2000-03-10T00:00:00Z', '2000-02', 29],
  ])('a February (reference %s) has its leap-year length', (reference, label, days) => {
    const february = costWindow('previous-month', at(reference));
    expect(february.label).toBe(label);
    const length = Date.parse(february.timeFrame.endTime) - Date.parse(february.timeFrame.startTime);
    expect(length).toBe(days * 24 * 3600 * 1000);
  });
});

describe('explicit windows', () => {
  test('keep their bounds, in UTC ISO form, and are labelled `<start>_<end>` without colons or dots', () => {
    expect(
      costWindow({ startTime: '2026-11-01T00:00:00Z', endTime: '2026-11-15T12:30:00Z' }, at('2030-01-01')),
    ).toEqual(window('2026-11-01T000000Z_2026-11-15T123000Z', '2026-11-01T00:00:00.000Z', '2026-11-15T12:30:00.000Z'));
  });

  test('do not depend on the reference time', () => {
    const bounds = { startTime: '2026-11-01T00:00:00Z', endTime: '2026-11-02T00:00:00Z' };
    expect(costWindow(bounds, at('2026-11-21T00:00:00Z'))).toEqual(costWindow(bounds, at('1999-01-01T00:00:00Z')));
  });

  test('are normalised to UTC and keep milliseconds in the label', () => {
    expect(
      costWindow(
        { startTime: '2026-11-01T02:00:00.250+02:00', endTime: '2026-11-01T01:00:00-05:00' },
        at('2030-01-01'),
      ),
    ).toEqual(
      window('2026-11-01T000000250Z_2026-11-01T060000Z', '2026-11-01T00:00:00.250Z', '2026-11-01T06:00:00.000Z'),
    );
  });

  test('labels are safe file names', () => {
    const { label } = costWindow({ startTime: '2026-11-01T00:00:00Z', endTime: '2026-11-15T12:30:00Z' }, new Date());
    expect(label).toMatch(/^[0-9TZ_-]+$/);
  });

  test('an unreadable time throws instead of producing a window', () => {
    expect(() => costWindow({ startTime: 'yesterday', endTime: '2026-11-15T12:30:00Z' }, new Date())).toThrow(
      RangeError,
    );
  });
});

import { costWindow } from './windows';

const at = (iso: string) => new Date(iso);

describe('previous-day', () => {
  test('is the whole UTC day before the reference, labelled with its date', () => {
    expect(costWindow('previous-day', at('2026-11-21T09:30:00Z'))).toEqual({
      label: '2026-11-20',
      timeFrame: { startTime: '2026-11-20T00:00:00.000Z', endTime: '2026-11-21T00:00:00.000Z' },
    });
  });

  test('is the same window at the first and the last millisecond of the reference day', () => {
    const first = costWindow('previous-day', at('2026-11-21T00:00:00.000Z'));
    const last = costWindow('previous-day', at('2026-11-21T23:59:59.999Z'));
    expect(first.label).toBe('2026-11-20');
    expect(last).toEqual(first);
  });

  test('crosses month and year ends', () => {
    expect(costWindow('previous-day', at('2026-03-01T12:00:00Z')).label).toBe('2026-02-28');
    expect(costWindow('previous-day', at('2028-03-01T12:00:00Z')).label).toBe('2028-02-29');
    expect(costWindow('previous-day', at('2027-01-01T00:30:00Z'))).toEqual({
      label: '2026-12-31',
      timeFrame: { startTime: '2026-12-31T00:00:00.000Z', endTime: '2027-01-01T00:00:00.000Z' },
    });
  });

  test('counts days in UTC, whatever offset the reference was written with', () => {
    // 01:30 at +02:00 is still the previous UTC day.
    expect(costWindow('previous-day', at('2026-03-01T01:30:00+02:00')).label).toBe('2026-02-27');
  });
});

describe('previous-month', () => {
  test('is the whole UTC month before the reference, labelled with year and month', () => {
    expect(costWindow('previous-month', at('2026-11-21T09:30:00Z'))).toEqual({
      label: '2026-10',
      timeFrame: { startTime: '2026-10-01T00:00:00.000Z', endTime: '2026-11-01T00:00:00.000Z' },
    });
  });

  test('in January is the previous December', () => {
    expect(costWindow('previous-month', at('2027-01-15T00:00:00Z'))).toEqual({
      label: '2026-12',
      timeFrame: { startTime: '2026-12-01T00:00:00.000Z', endTime: '2027-01-01T00:00:00.000Z' },
    });
  });

  test('from the first and the last instant of a month is the same window', () => {
    const first = costWindow('previous-month', at('2026-05-01T00:00:00.000Z'));
    const last = costWindow('previous-month', at('2026-05-31T23:59:59.999Z'));
    expect(first.label).toBe('2026-04');
    expect(last).toEqual(first);
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
    const window = costWindow('previous-month', at(reference));
    expect(window.label).toBe(label);
    const length = Date.parse(window.timeFrame.endTime) - Date.parse(window.timeFrame.startTime);
    expect(length).toBe(days * 24 * 3600 * 1000);
  });
});

describe('explicit windows', () => {
  test('keep their bounds, in UTC ISO form, and are labelled `<start>_<end>` without colons or dots', () => {
    expect(
      costWindow({ startTime: '2026-11-01T00:00:00Z', endTime: '2026-11-15T12:30:00Z' }, at('2030-01-01')),
    ).toEqual({
      label: '2026-11-01T000000Z_2026-11-15T123000Z',
      timeFrame: { startTime: '2026-11-01T00:00:00.000Z', endTime: '2026-11-15T12:30:00.000Z' },
    });
  });

  test('do not depend on the reference time', () => {
    const window = { startTime: '2026-11-01T00:00:00Z', endTime: '2026-11-02T00:00:00Z' };
    expect(costWindow(window, at('2026-11-21T00:00:00Z'))).toEqual(costWindow(window, at('1999-01-01T00:00:00Z')));
  });

  test('are normalised to UTC and keep milliseconds in the label', () => {
    expect(
      costWindow(
        { startTime: '2026-11-01T02:00:00.250+02:00', endTime: '2026-11-01T01:00:00-05:00' },
        at('2030-01-01'),
      ),
    ).toEqual({
      label: '2026-11-01T000000250Z_2026-11-01T060000Z',
      timeFrame: { startTime: '2026-11-01T00:00:00.250Z', endTime: '2026-11-01T06:00:00.000Z' },
    });
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

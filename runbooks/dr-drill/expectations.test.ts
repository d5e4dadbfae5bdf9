import { checkExpectation, EXPECTATION } from './expectations';

describe('checkExpectation', () => {
  // [expectation, rows below n, rows equal to n, rows above n] with n = 5.
  test.each([
    ['rows >= 5', false, true, true],
    ['rows <= 5', true, true, false],
    ['rows > 5', false, false, true],
    ['rows < 5', true, false, false],
    ['rows == 5', false, true, false],
    ['rows = 5', false, true, false],
    ['rows != 5', true, false, true],
  ])('%s', (expectation, below, equal, above) => {
    expect(EXPECTATION.test(expectation)).toBe(true);
    expect([4, 5, 6].map((rows) => checkExpectation(expectation, rows))).toEqual([below, equal, above]);
  });

  test('zero rows against zero', () => {
    expect(checkExpectation('rows >= 0', 0)).toBe(true);
    expect(checkExpectation('rows > 0', 0)).toBe(false);
    expect(checkExpectation('rows == 0', 0)).toBe(true);
    expect(checkExpectation('rows != 0', 0)).toBe(false);
  });

  test('whitespace around and between the parts is optional', () => {
    for (const expectation of ['rows>=1', '  rows >=   1  ', '\trows\t>=\t1\n']) {
      expect(EXPECTATION.test(expectation)).toBe(true);
      expect(checkExpectation(expectation, 1)).toBe(true);
      expect(checkExpectation(expectation, 0)).toBe(false);
    }
  });

  test('the number is read in full, with leading zeros as decimal', () => {
    expect(checkExpectation('rows >= 1000', 999)).toBe(false);
    expect(checkExpectation('rows >= 1000', 1000)).toBe(true);
    expect(checkExpectation('rows == 010', 10)).toBe(true);
  });

  test.each([
    '',
    'rows',
    'rows >=',
    '>= 1',
    '1 <= rows',
    'row >= 1',
    'ROWS >= 1',
    'cols >= 1',
    'rows => 1',
    'rows =< 1',
    'rows <> 1',
    'rows === 1',
    'rows !== 1',
    'rows >== 1',
    'rows ~ 1',
    'rows >= -1',
    'rows >= 1.5',
    'rows >= 1e3',
    'rows >= one',
    'rows >= 1 and rows <= 2',
    'rows >= 1;',
  ])('%j is rejected by the input rule and never passes', (expectation) => {
    expect(EXPECTATION.test(expectation)).toBe(false);
    // A bad expression fails the check for any row count, rather than passing by accident.
    for (const rows of [0, 1, 2, 1000]) expect(checkExpectation(expectation, rows)).toBe(false);
  });
});

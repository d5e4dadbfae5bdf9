import { canonicalCheck, CleanCheck, type CleanCheckInput, meetsExpectation, parseExpectation } from './check';

const check: CleanCheckInput = {
  name: 'orders ledger balanced',
  databaseName: 'orders',
  queries: [
    { name: 'no orphan lines', sql: 'SELECT count(*) FROM lines l LEFT JOIN orders o USING (id)', expect: 'value = 0' },
    { name: 'history kept', sql: 'SELECT id FROM orders', expect: 'rows >= 1000' },
  ],
  destination: { amazonBucket: { bucketName: 'checks-pa-east-1', prefix: 'clean-point/' } },
};

const hint = `like 'rows >= 1' or "value = 'abc'"`;

/** The messages of a refused check, each with its path. */
function refusals(input: unknown): string[] {
  const parsed = CleanCheck.safeParse(input);
  return parsed.success ? [] : parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
}

describe('parseExpectation', () => {
  test.each([
    ['rows >= 1000', { kind: 'rows', op: '>=', count: 1000 }],
    ['rows=0', { kind: 'rows', op: '=', count: 0 }],
    ['value = 0', { kind: 'value', op: '=', literal: 0 }],
    ['  value<=-2.5 ', { kind: 'value', op: '<=', literal: -2.5 }],
    ['value != 10', { kind: 'value', op: '!=', literal: 10 }],
    ["value = '9f2c'", { kind: 'value', op: '=', literal: '9f2c' }],
    ["value == 'it''s'", { kind: 'value', op: '==', literal: "it's" }],
    ["value != ''", { kind: 'value', op: '!=', literal: '' }],
    ["value = ''''", { kind: 'value', op: '=', literal: "'" }],
    ["value = 'a = b, rows >= 1'", { kind: 'value', op: '=', literal: 'a = b, rows >= 1' }],
  ])('%j', (text, expectation) => {
    expect(parseExpectation(text)).toEqual({ ok: true, expectation });
  });

  test.each([
    '',
    'value',
    'value =',
    'value = abc',
    'value = "abc"',
    "value = 'abc",
    "value = 'it's'",
    'value === 1',
    'value <> 1',
    'value = 1e3',
    'value = .5',
    'value = 1 and rows >= 1',
    'VALUE = 1',
    'values = 1',
    'rows >= -1',
  ])('%j is refused, named in the message', (text) => {
    const parsed = parseExpectation(text);
    expect(parsed).toEqual({ ok: false, error: `${JSON.stringify(text)} is no expectation: ${hint}` });
  });

  test.each([">= 'a'", "<= 'a'", "> 'a'", "< 'a'"])('value %s: strings are not ordered', (rest) => {
    expect(parseExpectation(`value ${rest}`)).toEqual({
      ok: false,
      error: `${JSON.stringify(`value ${rest}`)} orders a string: compare strings with =, == or != only`,
    });
  });
});

describe('meetsExpectation', () => {
  test('rows, as the drill reads them', () => {
    expect([999, 1000, 1001].map((rows) => meetsExpectation('rows >= 1000', { rows }))).toEqual([false, true, true]);
    expect([0, 1].map((rows) => meetsExpectation('rows = 0', { rows, firstValue: null }))).toEqual([true, false]);
    const parsed = parseExpectation('rows < 3');
    expect(parsed.ok && [2, 3].map((rows) => meetsExpectation(parsed.expectation, { rows }))).toEqual([true, false]);
  });

  // [expectation, value below, equal, above] with the literal 5 and values 4, 5, 6 given as numbers and as text.
  test.each([
    ['value >= 5', false, true, true],
    ['value <= 5', true, true, false],
    ['value > 5', false, false, true],
    ['value < 5', true, false, false],
    ['value = 5', false, true, false],
    ['value == 5', false, true, false],
    ['value != 5', true, false, true],
  ])('%s on numbers and numeric strings alike', (expectation, below, equal, above) => {
    const outcomes = (values: (string | number)[]) =>
      values.map((firstValue) => meetsExpectation(expectation, { rows: 1, firstValue }));
    expect(outcomes([4, 5, 6])).toEqual([below, equal, above]);
    expect(outcomes(['4', '5', '6'])).toEqual([below, equal, above]);
    expect(outcomes(['4.0', '5.000', ' 6 '])).toEqual([below, equal, above]);
    expect(outcomes(['4e0', '0.5e1', '+6'])).toEqual([below, equal, above]);
  });

  test('numbers compare as numbers, not as text', () => {
    expect(meetsExpectation('value > 9', { rows: 1, firstValue: '10' })).toBe(true);
    expect(meetsExpectation('value < 10', { rows: 1, firstValue: '9' })).toBe(true);
    expect(meetsExpectation('value = 0', { rows: 1, firstValue: '-0.0' })).toBe(true);
    expect(meetsExpectation('value >= -1.5', { rows: 1, firstValue: '-1.25' })).toBe(true);
  });

  test('strings compare as exact text, numbers given for them as their text', () => {
    expect(meetsExpectation("value = '9f2c'", { rows: 1, firstValue: '9f2c' })).toBe(true);
    expect(meetsExpectation("value = '9f2c'", { rows: 1, firstValue: '9F2C' })).toBe(false);
    expect(meetsExpectation("value = '9f2c'", { rows: 1, firstValue: '9f2c ' })).toBe(false);
    expect(meetsExpectation("value != '9f2c'", { rows: 1, firstValue: '9f2d' })).toBe(true);
    expect(meetsExpectation("value = 'it''s'", { rows: 1, firstValue: "it's" })).toBe(true);
    expect(meetsExpectation("value = '42'", { rows: 1, firstValue: 42 })).toBe(true);
    expect(meetsExpectation("value = '42'", { rows: 1, firstValue: '42.0' })).toBe(false);
    // A big integer as a string keeps every digit; as a number, it would not.
    expect(meetsExpectation("value = '12345678901234567891'", { rows: 1, firstValue: '12345678901234567890' })).toBe(
      false,
    );
  });

  test.each([
    ['a NULL', { rows: 1, firstValue: null }],
    ['no row', { rows: 0 }],
    ['text for a number', { rows: 1, firstValue: 'abc' }],
    ['an empty string for a number', { rows: 1, firstValue: '' }],
    ['hexadecimal text', { rows: 1, firstValue: '0x0' }],
    ['a number that is not finite', { rows: 1, firstValue: Number.NaN }],
  ])('%s fails every operator, never throws', (_, result) => {
    for (const op of ['=', '==', '!=', '>=', '<=', '>', '<']) {
      expect(meetsExpectation(`value ${op} 0`, result)).toBe(false);
    }
  });

  test('a NULL or no row fails a string expectation too, != included', () => {
    for (const result of [{ rows: 1, firstValue: null }, { rows: 0 }]) {
      expect(["value = ''", "value = 'null'", "value != 'x'"].map((e) => meetsExpectation(e, result))).toEqual([
        false,
        false,
        false,
      ]);
    }
  });

  test('a text that is no expectation fails, rather than passing by accident', () => {
    for (const firstValue of [0, '0', null, 'x']) {
      expect(meetsExpectation('value => 0', { rows: 1, firstValue })).toBe(false);
      expect(meetsExpectation("value > 'a'", { rows: 1, firstValue })).toBe(false);
    }
  });
});

describe('CleanCheck', () => {
  test('a good check is taken, its destination in the interface names', () => {
    const parsed = CleanCheck.parse(check);
    expect(parsed.queries.map((q) => q.expect)).toEqual(['value = 0', 'rows >= 1000']);
    expect(parsed.destination).toEqual({ bucketA: { bucketName: 'checks-pa-east-1', prefix: 'clean-point/' } });
  });

  test('a bad expectation is refused at input, with the grammar in the message', () => {
    const bad = { ...check, queries: [{ name: 'q', sql: 'SELECT 1', expect: 'value => 1' }] };
    expect(refusals(bad)).toEqual([`queries.0.expect: "value => 1" is no expectation: ${hint}`]);
  });

  test('blank names, SQL out of bounds, and query counts out of bounds are refused', () => {
    const query = { name: 'q', sql: 'SELECT 1', expect: 'rows = 1' };
    expect(refusals({ ...check, name: ' ' })).toEqual(['name: must not be blank']);
    expect(refusals({ ...check, databaseName: '' })).toEqual(['databaseName: must not be blank']);
    expect(refusals({ ...check, queries: [{ ...query, name: '\t' }] })).toEqual(['queries.0.name: must not be blank']);
    expect(refusals({ ...check, queries: [{ ...query, sql: '  ' }] })).toEqual([
      'queries.0.sql: must not be blank: give a SELECT statement',
    ]);
    const long = `SELECT 1 ${'-'.repeat(10_000 - 9)}`;
    expect(refusals({ ...check, queries: [{ ...query, sql: long }] })).toEqual([]);
    expect(refusals({ ...check, queries: [{ ...query, sql: `${long}-` }] })).toEqual([
      'queries.0.sql: at most 10,000 characters',
    ]);
    expect(refusals({ ...check, queries: [] })).toEqual(['queries: a check runs at least one query']);
    const many = (count: number) => Array.from({ length: count }, (_, i) => ({ ...query, name: `q${i}` }));
    expect(refusals({ ...check, queries: many(20) })).toEqual([]);
    expect(refusals({ ...check, queries: many(21) })).toEqual([
      'queries: at most 20 queries: each runs on every snapshot probed',
    ]);
    expect(refusals({ ...check, queries: [query, query] })).toEqual([
      'queries: names a query twice: reports tell queries by name',
    ]);
  });

  test('unknown keys and a missing destination are refused', () => {
    const query = { name: 'q', sql: 'SELECT 1', expect: 'rows = 1', expectation: 'x' };
    expect(refusals({ ...check, queries: [query] })).toEqual(['queries.0: Unrecognized key: "expectation"']);
    expect(refusals({ ...check, retries: 2 })).toEqual([': Unrecognized key: "retries"']);
    const { destination: _, ...withoutDestination } = check;
    expect(refusals(withoutDestination).map((refusal) => refusal.split(':')[0])).toEqual(['destination']);
  });
});

describe('canonicalCheck', () => {
  test('the same check gives the same text, whatever its keys were ordered', () => {
    const reordered: CleanCheckInput = {
      destination: { amazonBucket: { prefix: 'clean-point/', bucketName: 'checks-pa-east-1' } },
      queries: check.queries.map(({ name, sql, expect }) => ({ expect, sql, name })),
      databaseName: 'orders',
      name: 'orders ledger balanced',
    };
    const text = canonicalCheck(CleanCheck.parse(check));
    expect(canonicalCheck(CleanCheck.parse(reordered))).toBe(text);
    expect(text).toBe(
      JSON.stringify({
        databaseName: 'orders',
        destination: { bucketA: { bucketName: 'checks-pa-east-1', prefix: 'clean-point/' } },
        name: 'orders ledger balanced',
        queries: check.queries.map(({ name, sql, expect }) => ({ expect, name, sql })),
      }),
    );
  });

  test('a destination named in either vocabulary gives the same text', () => {
    const neutral = { ...check, destination: { bucketA: { bucketName: 'checks-pa-east-1', prefix: 'clean-point/' } } };
    expect(canonicalCheck(CleanCheck.parse(neutral))).toBe(canonicalCheck(CleanCheck.parse(check)));
  });

  test('any change to what is checked changes the text, the order of queries too', () => {
    const text = canonicalCheck(CleanCheck.parse(check));
    const [first, second] = check.queries as [CleanCheckInput['queries'][number], CleanCheckInput['queries'][number]];
    const changed: CleanCheckInput[] = [
      { ...check, name: 'orders ledger' },
      { ...check, databaseName: 'orders2' },
      { ...check, queries: [{ ...first, sql: `${first.sql} ` }, second] },
      { ...check, queries: [{ ...first, expect: 'value = 1' }, second] },
      { ...check, queries: [second, first] },
      { ...check, destination: { amazonBucket: { bucketName: 'checks-pa-east-1' } } },
    ];
    const texts = changed.map((c) => canonicalCheck(CleanCheck.parse(c)));
    expect(new Set([text, ...texts]).size).toBe(changed.length + 1);
  });
});

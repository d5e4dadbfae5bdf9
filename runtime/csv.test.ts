import { csvRecord, csvRecordsBuffer } from './csv';

test('csvRecordsBuffer holds the UTF-8 bytes of every csvRecord, past its first guess of the size', () => {
  const rows = [
    ['1', 'plain', ''],
    ['2', 'a, comma', 'a "quote"'],
    ['3', 'line\nbreak', 'Łódź 東京 🚀'],
    [null, undefined, 4],
    // Longer than the 128 bytes a row is first given.
    ['5', 'é'.repeat(3000), '"'.repeat(100)],
  ];
  const expected = Buffer.from(rows.map((r) => csvRecord(r)).join(''), 'utf8');
  expect(csvRecordsBuffer(rows).equals(expected)).toBe(true);
  expect(csvRecordsBuffer([]).length).toBe(0);
});

describe('cells a spreadsheet would run as formulas', () => {
  test.each([
    ['=HYPERLINK("http://evil.example","x")', `"'=HYPERLINK(""http://evil.example"",""x"")"`],
    ['+cmd|calc', "'+cmd|calc"],
    ['-2+3', "'-2+3"],
    ['@SUM(A1)', "'@SUM(A1)"],
    ['\tname', "'\tname"],
    ['\r=1', `"'\r=1"`],
  ])('%j gets a leading quote by default', (cell, written) => {
    expect(csvRecord(['ok', cell])).toBe(`ok,${written}\r\n`);
  });

  test('numbers, plain numeric text and ordinary text stay as they are', () => {
    expect(csvRecord([-12.5, '-12.5', '+3', '1e-3', 'a=b', 'name-with-dash', ''])).toBe(
      '-12.5,-12.5,+3,1e-3,a=b,name-with-dash,\r\n',
    );
  });

  test('with exact, every cell is kept as it is (query exports)', () => {
    const rows = [['=1+1', '@x', '-y']];
    expect(csvRecord(rows[0] ?? [], { exact: true })).toBe('=1+1,@x,-y\r\n');
    expect(csvRecordsBuffer(rows, { exact: true }).toString()).toBe('=1+1,@x,-y\r\n');
    expect(csvRecordsBuffer(rows).toString()).toBe("'=1+1,'@x,'-y\r\n");
  });
});

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

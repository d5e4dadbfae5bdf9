import { page, table, tableRow } from './html';

test('a missing cell is empty and a number is its digits', () => {
  expect(tableRow([undefined, null, 3])).toBe('<tr><td></td><td></td><td>3</td></tr>\n');
});

test('cells, headers and titles go through the escaping', () => {
  expect(tableRow(['<b>', 1])).toBe('<tr><td>&lt;b&gt;</td><td>1</td></tr>\n');
  expect(table(['a&b'], tableRow(['x']), 'none')).toContain('<th>a&amp;b</th>');
  expect(table(['a'], '', '<none>')).toBe('<p class="empty">&lt;none&gt;</p>\n');
  const html = page('<Posture>', '');
  expect(html).toContain('<title>&lt;Posture&gt;</title>');
  expect(html).not.toContain('<Posture>');
});

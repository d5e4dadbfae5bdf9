import { escapeHtml, page, table, tableRow } from './html';

test('every character that could open markup or close an attribute is escaped', () => {
  expect(escapeHtml(`<script>alert("x" & 'y')</script>`)).toBe(
    '&lt;script&gt;alert(&quot;x&quot; &amp; &#39;y&#39;)&lt;/script&gt;',
  );
  expect(escapeHtml(undefined)).toBe('');
  expect(escapeHtml(3)).toBe('3');
});

test('cells, headers and titles go through the escaping', () => {
  expect(tableRow(['<b>', 1])).toBe('<tr><td>&lt;b&gt;</td><td>1</td></tr>\n');
  expect(table(['a&b'], tableRow(['x']), 'none')).toContain('<th>a&amp;b</th>');
  expect(table(['a'], '', '<none>')).toBe('<p class="empty">&lt;none&gt;</p>\n');
  const html = page('<Posture>', '');
  expect(html).toContain('<title>&lt;Posture&gt;</title>');
  expect(html).not.toContain('<Posture>');
});

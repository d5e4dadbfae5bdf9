import { escapeHtml } from './escape-html';

test('escapes every character that could open markup or close an attribute', () => {
  expect(escapeHtml(`<img src=x onerror="alert('1')"> & co`)).toBe(
    '&lt;img src=x onerror=&quot;alert(&#39;1&#39;)&quot;&gt; &amp; co',
  );
  expect(escapeHtml('plain name-01')).toBe('plain name-01');
});

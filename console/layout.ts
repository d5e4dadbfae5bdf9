import { createHash } from 'node:crypto';
import { markup, trusted, type Html } from './html';

/**
 * The page around every view: one stylesheet (inline, allowed by its hash in the CSP), the navigation, no script.
 * Charts are inline SVG styled by attributes and classes, never by `style` attributes, which the CSP refuses.
 */

const STYLE = `
:root { color-scheme: light dark; --fg: #1b1f24; --muted: #57606a; --line: #d0d7de; --bg: #fff; --accent: #0969da;
  --ok: #1a7f37; --bad: #cf222e; --warn: #9a6700; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6edf3; --muted: #9198a1; --line: #3d444d; --bg: #0d1117;
  --accent: #4493f8; --ok: #3fb950; --bad: #f85149; --warn: #d29922; } }
body { margin: 0; font: 14px/1.45 system-ui, sans-serif; color: var(--fg); background: var(--bg); }
header { display: flex; gap: 1.5rem; align-items: baseline; padding: .75rem 1.5rem; border-bottom: 1px solid var(--line); }
header strong { font-size: 1.05rem; }
nav a { margin-right: 1rem; color: var(--accent); text-decoration: none; }
nav a[aria-current="page"] { color: var(--fg); font-weight: 600; border-bottom: 2px solid var(--accent); }
main { padding: 1rem 1.5rem 3rem; max-width: 80rem; }
h1 { font-size: 1.3rem; margin: .5rem 0 1rem; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: .35rem .6rem; border-bottom: 1px solid var(--line); vertical-align: top; }
th { color: var(--muted); font-weight: 600; }
td.num { font-variant-numeric: tabular-nums; }
.muted { color: var(--muted); }
.notice { padding: .5rem .75rem; border: 1px solid var(--line); border-left: 4px solid var(--accent); margin-bottom: 1rem; }
.error { border-left-color: var(--bad); }
.state-RUNNING { color: var(--accent); } .state-COMPLETED { color: var(--ok); }
.state-FAILED, .state-TERMINATED, .state-TIMED_OUT { color: var(--bad); } .state-CANCELED { color: var(--warn); }
svg.bar rect.track { fill: var(--line); } svg.bar rect.done { fill: var(--accent); }
button { font: inherit; padding: .2rem .7rem; border: 1px solid var(--line); border-radius: 4px; background: var(--bg);
  color: var(--fg); cursor: pointer; }
button:hover { border-color: var(--accent); }
form.inline { margin: 0; }
header form.logout { margin: 0 0 0 auto; }
h2 { font-size: 1.1rem; margin: 2rem 0 .75rem; } h3 { font-size: 1rem; margin: 1.25rem 0 .25rem; }
.verdict-PASS { color: var(--ok); } .verdict-PARTIAL { color: var(--warn); } .verdict-FAIL { color: var(--bad); }
svg.chart { max-width: 100%; height: auto; display: block; margin: .5rem 0 1rem; background: #fff; }
svg.gantt { max-width: 100%; height: auto; display: block; margin: .5rem 0 1rem; background: #fff;
  font: 12px system-ui, sans-serif; }
ul.failed-steps { margin: 0; padding-left: 1rem; }
section.plan { margin-bottom: 2.5rem; }
code.hash { font-size: .8em; word-break: break-all; }
code { font-size: .92em; }
`;

export const STYLE_HASH = `sha256-${createHash('sha256').update(STYLE).digest('base64')}`;

/** A link of the navigation (console/pages.ts lists them). */
export interface NavItem {
  path: string;
  label: string;
}

/** `nav`: the header's links (console/pages.ts); `signOut`: a signed-in session's CSRF token, for its sign-out button. */
export function page(
  title: string,
  current: string,
  body: Html,
  nav: readonly NavItem[],
  signOut?: { csrf: string },
): Html {
  const logout = signOut
    ? markup`<form class="logout" method="post" action="/logout">
        <input type="hidden" name="csrf" value="${signOut.csrf}" /><button type="submit">Sign out</button>
      </form>`
    : '';
  const links = nav.map(
    (item) =>
      markup`<a href="${item.path}"${item.path === current ? trusted(' aria-current="page"') : ''}>${item.label}</a>`,
  );
  return markup`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · runbooks console</title>
<style>${trusted(STYLE)}</style>
</head>
<body>
<header><strong>runbooks</strong><nav aria-label="Console">${links}</nav>${logout}</header>
<main>
<h1>${title}</h1>
${body}
</main>
</body>
</html>
`;
}

/** A progress bar as inline SVG, with its numbers as text beside it for readers and screen readers. */
export function progressBar(done: number, total: number, unit: string): Html {
  const width = 100;
  const filled = total > 0 ? Math.round((Math.min(Math.max(done, 0), total) / total) * width) : 0;
  return markup`<svg
      class="bar"
      width="${width}"
      height="8"
      viewBox="0 0 ${width} 8"
      role="img"
      aria-label="${done} of ${total} ${unit}"
    >
      <rect class="track" width="${width}" height="8" rx="2" />
      <rect class="done" width="${filled}" height="8" rx="2" />
    </svg>
    <span>${done}/${total} ${unit}</span>`;
}

/** A table of `rows` under a header row naming its columns, indented as the Runs and Approvals pages place it. */
export function table(columns: readonly string[], rows: readonly Html[]): Html {
  const header = columns.map(
    (column) => markup`
          <th scope="col">${column}</th>`,
  );
  return markup`<table>
      <thead>
        <tr>${header}
        </tr>
      </thead>
      <tbody>
        ${rows}
      </tbody>
    </table>`;
}

/** A timestamp as people read it, kept machine-readable in `datetime`. */
export function time(iso: string | undefined): Html {
  if (!iso) return markup`<span class="muted">–</span>`;
  return markup`<time datetime="${iso}">${iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z')}</time>`;
}

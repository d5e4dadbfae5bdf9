// The headless Chromium the browser tests drive: the one scripts/ensure-chromium.js finds or installs.
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

const REPO = resolve(__dirname, '..', '..');
// Chromium's background connections fail on a closed network; these keep it to the page.
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface Chromium {
  context: BrowserContext;
  /** A scratch folder of the test's own, removed by close(). */
  profile: string;
  close(): Promise<void>;
}

/** Launches Chromium with a fresh profile. `bypassCSP` lets a test inject a script (axe-core) into a strict page. */
export async function launchChromium(options: { bypassCSP?: boolean } = {}): Promise<Chromium> {
  const executablePath = execFileSync(process.execPath, [join(REPO, 'scripts', 'ensure-chromium.js')], {
    encoding: 'utf8',
  }).trim();
  const profile = await mkdtemp(join(tmpdir(), 'runbooks-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath,
    headless: true,
    args: CHROMIUM_ARGS,
    bypassCSP: options.bypassCSP === true,
  });
  return {
    context,
    profile,
    close: async () => {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

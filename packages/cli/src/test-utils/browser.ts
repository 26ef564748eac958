import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

/**
 * Debian's Chromium driven by playwright-core — never a downloaded browser. `CHROMIUM_PATH`
 * overrides the executable. Tests skip with {@link CHROMIUM_MISSING} where it is absent.
 */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const HAS_CHROMIUM = existsSync(CHROMIUM_PATH);
export const CHROMIUM_MISSING = `headless Chromium not found at ${CHROMIUM_PATH}: install it with "apt-get install -y --no-install-recommends chromium" (.ci/run does) or set CHROMIUM_PATH`;

const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/**
 * Launches headless Chromium on a new, empty profile directory and returns its browser context;
 * `close()` stops the browser and removes the profile.
 */
export async function launchChromium(options: { javaScriptEnabled?: boolean } = {}): Promise<{ context: BrowserContext; close(): Promise<void> }> {
  const profile = mkdtempSync(join(tmpdir(), 'zerda-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: FLAGS,
    viewport: { width: 1280, height: 900 },
    javaScriptEnabled: options.javaScriptEnabled ?? true,
    offline: false,
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

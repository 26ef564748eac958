import { mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ContextEngine, ContextResult } from '@zerda/context';
import { startInspectorServer, type InspectorServer } from '../commands/serve-command.js';
import { CHROMIUM_MISSING, HAS_CHROMIUM, launchChromium } from '../test-utils/browser.js';
import { ARABIC_QUESTION, libraryEngine, writeLibrary } from '../test-utils/corpus.js';
import { renderInspector } from './render.js';

// The README's screenshot: written to docs/inspector.png when UPDATE_SCREENSHOTS=1, to a temporary file otherwise.
const SCREENSHOT = process.env.UPDATE_SCREENSHOTS ? join(import.meta.dirname, '..', '..', 'docs', 'inspector.png') : join(tmpdir(), `zerda-inspector-${process.pid}.png`);

if (!HAS_CHROMIUM) console.warn(`skipping the inspector browser tests: ${CHROMIUM_MISSING}`);

describe.skipIf(!HAS_CHROMIUM)('the inspector in headless Chromium', () => {
  let directory: string;
  let engine: ContextEngine;
  let result: ContextResult;
  let reportPath: string;

  beforeAll(async () => {
    directory = writeLibrary();
    engine = await libraryEngine(directory, 'citations');
    result = await engine.run(ARABIC_QUESTION, { overrideBudget: 1500 });
    reportPath = join(directory, 'report.html');
    writeFileSync(reportPath, renderInspector(result, { origin: '.zerda' }));
  });
  afterAll(() => rmSync(directory, { recursive: true, force: true }));

  async function assertReport(page: import('playwright-core').Page, expected: ContextResult): Promise<void> {
    expect(await page.locator('article.chunk').count()).toBe(expected.chunks.length);
    expect(await page.locator('#budget-gauge').evaluate((meter: HTMLMeterElement) => [meter.value, meter.max])).toEqual([expected.budget.used, expected.budget.limit]);
    const arabic = page.locator('.context-block[dir="rtl"]').first();
    expect(await arabic.evaluate((element) => getComputedStyle(element).direction)).toBe('rtl');
    expect(await page.locator('h1').evaluate((element) => getComputedStyle(element).direction)).toBe('rtl');
    const duplicate = page.locator('tr.dropped-row[data-reason="near_duplicate"] td.reason');
    expect(await duplicate.count()).toBe(1);
    expect(await duplicate.innerText()).toMatch(/^near duplicate of docs\/hours-ar\.md#0$/);
  }

  it('renders the static report: chunks, right-to-left Arabic, the gauge, a dropped reason, the injection — with no request leaving the page', async () => {
    const browser = await launchChromium();
    try {
      const page = await browser.context.newPage();
      const requests: string[] = [];
      page.on('request', (request) => requests.push(request.url()));
      await page.goto(pathToFileURL(reportPath).href);
      await assertReport(page, result);
      const flagged = page.locator('article.chunk.flagged');
      expect(await flagged.count()).toBe(1);
      expect(await flagged.locator('.flag.injection').innerText()).toBe('prompt injection');
      expect(await page.locator('li.warning.injection').count()).toBe(1);
      // The bars are drawn at their value's width.
      const composite = result.chunks[0]!.scores.composite!;
      const [fill, track] = await page.locator('article.chunk').first().locator('[data-factor="composite"] .bar').evaluate((bar) => [(bar.firstElementChild as HTMLElement).getBoundingClientRect().width, bar.getBoundingClientRect().width]);
      expect(fill! / track!).toBeCloseTo(composite, 1);
      expect(requests).toEqual([pathToFileURL(reportPath).href]);
      mkdirSync(join(SCREENSHOT, '..'), { recursive: true });
      await page.screenshot({ path: SCREENSHOT, fullPage: true });
      expect(statSync(SCREENSHOT).size).toBeGreaterThan(20_000);
    } finally {
      await browser.close();
    }
  });

  it('reads the same without JavaScript', async () => {
    const browser = await launchChromium({ javaScriptEnabled: false });
    try {
      const page = await browser.context.newPage();
      await page.goto(pathToFileURL(reportPath).href);
      await assertReport(page, result);
      expect(await page.locator('#context').innerText()).toContain('تفتح الْمَكْتَبَةُ العامة أبوابها');
    } finally {
      await browser.close();
    }
  });

  describe('the live server', () => {
    let server: InspectorServer;
    beforeAll(async () => {
      server = await startInspectorServer(engine, { index: '.zerda', host: '127.0.0.1', port: 0, budget: 1500 }, '.zerda');
    });
    afterAll(async () => {
      await server?.close();
    });

    it('takes an Arabic question typed into the query box and shows its report', async () => {
      const browser = await launchChromium();
      try {
        const page = await browser.context.newPage();
        await page.goto(server.url);
        expect(await page.locator('article.chunk').count()).toBe(0);
        await page.locator('#q').fill(ARABIC_QUESTION);
        await Promise.all([page.waitForURL(/\?q=/), page.locator('#q').press('Enter')]);
        expect(new URL(page.url()).searchParams.get('q')).toBe(ARABIC_QUESTION);
        const expected = await engine.run(ARABIC_QUESTION, { overrideBudget: 1500 });
        await assertReport(page, expected);
        expect(await page.locator('#q').inputValue()).toBe(ARABIC_QUESTION);
        expect(await page.locator('#q').evaluate((input) => getComputedStyle(input).direction)).toBe('rtl');
      } finally {
        await browser.close();
      }
    });

    it('answers JSON on /api/query and refuses bad requests with a clear message', async () => {
      const json = await fetch(`${server.url}api/query?q=${encodeURIComponent('opening hours')}&budget=300`);
      expect(json.status).toBe(200);
      const body = (await json.json()) as ContextResult;
      expect(body.budget.limit).toBe(300);
      expect(body.chunks.length).toBeGreaterThan(0);
      const missing = await fetch(`${server.url}api/query`);
      expect(missing.status).toBe(400);
      expect(((await missing.json()) as { error: string }).error).toMatch(/q \(the question\) is required/);
      const badBudget = await fetch(`${server.url}?q=x&budget=-3`);
      expect(badBudget.status).toBe(400);
      expect(await badBudget.text()).toContain('budget must be a positive integer, got &quot;-3&quot;');
      const tooLong = await fetch(`${server.url}api/query?q=${'a'.repeat(2001)}`);
      expect(tooLong.status).toBe(400);
      expect((await fetch(`${server.url}nowhere`)).status).toBe(404);
      expect((await fetch(server.url, { method: 'POST' })).status).toBe(405);
      const badFilter = await fetch(`${server.url}api/query?q=x`, {});
      expect(badFilter.status).toBe(200);
    });
  });
});

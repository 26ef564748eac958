// The page as a person uses it, in headless Chromium: paste Arabic and English documents, index
// them, ask in Arabic, in English and with a language filter, and read the context and its sources.
import { join } from 'node:path';
import { locateRuntime, openStaticSite, type StaticSite } from '@zerda/runtimes';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SAMPLE_TEXT } from './documents.js';

const chromium = locateRuntime('chromium');
const missing = 'missing' in chromium ? chromium.missing : undefined;
const site = join(import.meta.dirname, '..', 'dist', 'site');
let opened: StaticSite;

describe.skipIf(missing !== undefined)(`examples/browser in Chromium${missing ? ` (skipped: ${missing})` : ''}`, { timeout: 180_000 }, () => {
  beforeAll(async () => {
    if (!('executable' in chromium)) return;
    opened = await openStaticSite(chromium.executable, site);
    await opened.page.waitForSelector('html[data-ready="true"]');
  }, 120_000);
  afterAll(async () => opened?.close());

  async function ask(query: string, language = ''): Promise<{ context: string; sources: string[]; direction: string; used: string }> {
    const { page } = opened;
    await page.fill('#query', query);
    await page.selectOption('#language', language);
    await page.evaluate(() => {
      document.getElementById('context')!.textContent = '';
    });
    await page.click('#run');
    await page.waitForFunction(() => (document.getElementById('context')?.textContent ?? '') !== '');
    return {
      context: await page.textContent('#context') ?? '',
      sources: await page.$$eval('#chunks li', (items) => items.map((item) => item.textContent ?? '')),
      direction: await page.$eval('#context', (element) => getComputedStyle(element).direction),
      used: await page.textContent('#budget-used') ?? '',
    };
  }

  it('says what is missing before anything is pasted', async () => {
    await opened.page.click('#index');
    expect(await opened.page.textContent('#status')).toBe('Paste some text first.');
    expect(await opened.page.isDisabled('#run')).toBe(true);
  });

  it('indexes pasted documents', async () => {
    await opened.page.fill('#documents', SAMPLE_TEXT);
    await opened.page.click('#index');
    await opened.page.waitForFunction(() => document.getElementById('status')?.textContent?.startsWith('Indexed'));
    expect(await opened.page.textContent('#status')).toMatch(/^Indexed 3 documents as \d+ chunks\.$/);
    expect(await opened.page.isDisabled('#run')).toBe(false);
  });

  it('answers an Arabic query with a right-to-left context and Arabic sources', async () => {
    const answer = await ask('ما هو التوليد المعزز بالاسترجاع؟');
    expect(answer.context).toContain('[1] التوليد المعزَّز بالاسترجاع');
    expect(answer.context).toContain('المصادر:\n[1] pasted-1 — التوليد المعزز بالاسترجاع');
    expect(answer.direction).toBe('rtl');
    expect(answer.sources[0]).toMatch(/^pasted-1 — التوليد المعزز بالاسترجاع \(score/);
    const budget = /^(\d+) \/ (\d+) chars$/.exec(answer.used);
    expect(budget, answer.used).not.toBeNull();
    expect(Number(budget![1])).toBeLessThanOrEqual(Number(budget![2]));
    await opened.page.screenshot({ path: join(import.meta.dirname, '..', 'dist', 'arabic-query.png'), fullPage: true });
  });

  it('answers an English query with the BM25 document first, left to right', async () => {
    const answer = await ask('How does BM25 rank documents?');
    expect(answer.sources[0]).toMatch(/^pasted-2 — Keyword search with BM25/);
    expect(answer.context).toContain('Sources:\n[1] pasted-2 — Keyword search with BM25');
    expect(answer.direction).toBe('ltr');
  });

  it('keeps to the chosen language when filtered', async () => {
    const answer = await ask('search vectors retrieval الاسترجاع', 'en');
    expect(answer.sources.length).toBeGreaterThan(0);
    expect(answer.sources.every((source) => source.startsWith('pasted-2') || source.startsWith('pasted-3'))).toBe(true);
  });

  it('counts tokens after re-indexing with a token counter (the rank table loads on demand)', async () => {
    await opened.page.selectOption('#counter', 'cl100k_base');
    await opened.page.fill('#budget', '200');
    await opened.page.click('#index');
    await opened.page.waitForFunction(() => document.getElementById('status')?.textContent?.startsWith('Indexed'));
    const before = opened.requests.length;
    const answer = await ask('What is vector search?');
    expect(answer.used).toMatch(/^\d+ \/ 200 tokens$/);
    expect(opened.requests.slice(before).some((url) => /chunk-[\w]+\.js$/.test(url))).toBe(true);
    expect(opened.pageErrors).toEqual([]);
    expect(opened.requests.every((url) => url.startsWith('http://zerda.localhost/'))).toBe(true);
  });
});

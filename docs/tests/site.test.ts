// The built documentation site in headless Chromium (Debian's, through playwright-core — the CLI's
// launcher, one implementation): every page reachable from the home page is opened, every internal
// link on it must lead to a page that exists and, for a link with a #fragment, to an element with
// that id; the search box finds an Arabic and an English word; the right-to-left examples render
// right to left. Skips with a message when the site is not built or Chromium is absent.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { extname, join, normalize, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { CHROMIUM_MISSING, HAS_CHROMIUM, launchChromium } from '../../packages/cli/src/test-utils/browser.js';

const dist = resolve(import.meta.dirname, '..', '.vitepress', 'dist');
const BUILT = existsSync(join(dist, 'index.html'));
const NOT_BUILT = `the site is not built: run "pnpm --filter @zerda/docs build" (npm test builds it)`;
const skipReason = !BUILT ? NOT_BUILT : !HAS_CHROMIUM ? CHROMIUM_MISSING : undefined;

const TYPES: Record<string, string> = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.css': 'text/css', '.json': 'application/json', '.svg': 'image/svg+xml', '.png': 'image/png', '.woff2': 'font/woff2' };

/** The file a site path maps to, as a static host serves VitePress output (`/a/` → a/index.html, `/a` → a.html). */
function fileFor(pathname: string): string | undefined {
  const path = normalize(decodeURIComponent(pathname)).replace(/^(\.\.[/\\])+/, '');
  const candidates = path.endsWith('/') ? [join(path, 'index.html')] : [path, `${path}.html`, join(path, 'index.html')];
  for (const candidate of candidates) {
    const file = join(dist, candidate);
    if (file.startsWith(dist) && existsSync(file) && statSync(file).isFile()) return file;
  }
  return undefined;
}

let server: Server | undefined;
let origin = '';
let browser: { context: BrowserContext; close(): Promise<void> } | undefined;
/** The pages are rendered at build time: the link crawl reads them without running their scripts (much quicker on the large API pages). */
let staticBrowser: { context: BrowserContext; close(): Promise<void> } | undefined;

beforeAll(async () => {
  if (skipReason) return;
  server = createServer((request, response) => {
    const file = fileFor(new URL(request.url ?? '/', 'http://localhost').pathname);
    if (!file) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    response.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' }).end(readFileSync(file));
  });
  await new Promise<void>((ready) => server!.listen(0, '127.0.0.1', ready));
  const address = server.address();
  origin = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  browser = await launchChromium();
  staticBrowser = await launchChromium({ javaScriptEnabled: false });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await staticBrowser?.close();
  await new Promise<void>((done) => (server ? server.close(() => done()) : done()));
});

interface Visited {
  status: number;
  ids: Set<string>;
  links: string[];
}

describe('the documentation site', () => {
  it('opens every page reachable from the home page; every internal link and fragment resolves', async (context) => {
    if (skipReason) return context.skip(skipReason);
    const page = await staticBrowser!.context.newPage();
    const visited = new Map<string, Visited>();
    const queue = ['/'];
    while (queue.length > 0) {
      const path = queue.shift()!;
      if (visited.has(path)) continue;
      const response = await page.goto(`${origin}${path}`, { waitUntil: 'domcontentloaded' });
      const status = response?.status() ?? 0;
      if (status !== 200) {
        visited.set(path, { status, ids: new Set(), links: [] });
        continue;
      }
      const { ids, links } = await page.evaluate(() => ({
        ids: [...document.querySelectorAll('[id]')].map((element) => element.id),
        links: [...document.querySelectorAll('a[href]')].map((anchor) => (anchor as HTMLAnchorElement).href),
      }));
      const internal = links.filter((link) => link.startsWith(origin)).map((link) => link.slice(origin.length));
      visited.set(path, { status, ids: new Set(ids), links: internal });
      for (const link of internal) {
        const target = link.split('#')[0]!;
        if (!visited.has(target) && !/\.(png|svg|jpe?g|json|txt)$/.test(target)) queue.push(target);
      }
    }

    const broken: string[] = [];
    for (const [from, { links }] of visited) {
      for (const link of links) {
        const [target, fragment] = link.split('#') as [string, string | undefined];
        const page = visited.get(target);
        if (!page) {
          if (!fileFor(target)) broken.push(`${from} → ${link} (no such file)`);
        } else if (page.status !== 200) broken.push(`${from} → ${link} (HTTP ${page.status})`);
        else if (fragment && !page.ids.has(decodeURIComponent(fragment))) broken.push(`${from} → ${link} (no element with id "${decodeURIComponent(fragment)}")`);
      }
    }
    const pages = [...visited.keys()];
    expect(pages.length).toBeGreaterThan(40);
    for (const expected of ['/guide/getting-started.html', '/concepts/pipeline.html', '/concepts/budgets.html', '/concepts/answer-in-context.html', '/concepts/scopes.html', '/inspector.html', '/arabic.html', '/benchmarks.html', '/migration.html', '/packages/context.html', '/api/']) {
      expect(pages, `${expected} is reachable from the home page`).toContain(expected);
    }
    expect(broken).toEqual([]);
    await page.close();
  }, 600_000);

  async function search(page: Page, word: string): Promise<string[]> {
    await page.goto(`${origin}/`, { waitUntil: 'networkidle' });
    await page.locator('.VPNavBarSearch button').first().click();
    const input = page.locator('.VPLocalSearchBox input');
    await input.fill(word);
    const results = page.locator('.VPLocalSearchBox .results a');
    await results.first().waitFor({ timeout: 15_000 });
    return results.evaluateAll((anchors) => anchors.map((anchor) => (anchor as HTMLAnchorElement).pathname));
  }

  it('finds an Arabic and an English word with the search box', async (context) => {
    if (skipReason) return context.skip(skipReason);
    const page = await browser!.context.newPage();
    const arabic = await search(page, 'المكتبة');
    expect(arabic, 'the Arabic page holds المكتبة').toContain('/arabic.html');
    const english = await search(page, 'LlamaIndex');
    expect(english, 'the migration page').toContain('/migration.html');
    await page.close();
  }, 120_000);

  it('renders the right-to-left examples right to left', async (context) => {
    if (skipReason) return context.skip(skipReason);
    const page = await browser!.context.newPage();
    await page.goto(`${origin}/arabic.html`, { waitUntil: 'networkidle' });
    const examples = await page.evaluate(() =>
      [...document.querySelectorAll('.vp-doc [dir="rtl"]')].map((element) => {
        // Where the first character is drawn: right to left, it starts at the right edge of its line.
        const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT, { acceptNode: (node) => (/\p{Script=Arabic}/u.test(node.textContent ?? '') ? NodeFilter.FILTER_ACCEPT : NodeFilter.FILTER_SKIP) });
        const text = walker.nextNode() as Text | null;
        const offset = text ? (text.textContent ?? '').search(/\p{Script=Arabic}/u) : -1;
        const range = document.createRange();
        if (text) range.setStart(text, offset), range.setEnd(text, offset + 1);
        const first = text ? range.getBoundingClientRect() : undefined;
        const line = text?.parentElement?.getBoundingClientRect();
        return { direction: getComputedStyle(element).direction, block: element.tagName === 'DIV', firstRight: first?.right ?? 0, firstLeft: first?.left ?? 0, lineLeft: line?.left ?? 0, lineRight: line?.right ?? 0 };
      }),
    );
    expect(examples.length).toBeGreaterThan(4);
    for (const example of examples) expect(example.direction).toBe('rtl');
    const block = examples.find((example) => example.block)!;
    expect(block, 'the question-and-context example').toBeDefined();
    // Its first Arabic character sits at the right end of its line, not the left.
    expect(block.lineRight - block.firstRight).toBeLessThan(block.firstLeft - block.lineLeft);
    await page.close();
  }, 120_000);
});

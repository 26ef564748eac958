import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import TurndownService from 'turndown';
import turndownPluginGfm from '@joplin/turndown-plugin-gfm';
import type { Metadata } from '@zerda/types';
import type { ParsedDocument } from '../types.js';

// Never content: code, styling, embedded apps, forms and elements hidden from readers.
const NEVER_CONTENT = 'script, style, noscript, template, iframe, object, embed, svg, canvas, form, button, input, select, textarea, link, meta, [hidden], [aria-hidden="true"]';
// Page chrome around the main content.
const BOILERPLATE = 'nav, header, footer, aside, [role="navigation"], [role="banner"], [role="contentinfo"], [role="complementary"], [role="search"]';

let turndown: TurndownService | undefined;

function converter(): TurndownService {
  if (turndown) return turndown;
  turndown = new TurndownService({ headingStyle: 'atx', bulletListMarker: '-', codeBlockStyle: 'fenced', emDelimiter: '*', hr: '---' });
  turndown.use(turndownPluginGfm.gfm);
  // "- item" rather than turndown's "-   item"; ordered items keep their number.
  turndown.addRule('listItem', {
    filter: 'li',
    replacement(content, node) {
      const parent = node.parentNode as (Element & { getAttribute(name: string): string | null }) | null;
      let marker = '- ';
      if (parent?.nodeName === 'OL') {
        const start = Number(parent.getAttribute('start') ?? '1');
        const index = Array.prototype.indexOf.call(parent.children, node);
        marker = `${(Number.isFinite(start) ? start : 1) + index}. `;
      }
      const body = content.replace(/^\n+/, '').replace(/\n+$/, '\n').replace(/\n/gm, `\n${' '.repeat(marker.length)}`);
      return marker + body + (node.nextSibling && !/\n$/.test(body) ? '\n' : '');
    },
  });
  // Links keep their text; the URL goes in parentheses only when it is absolute (relative links are noise for retrieval).
  turndown.addRule('link', {
    filter: (node) => node.nodeName === 'A' && Boolean((node as Element).getAttribute('href')),
    replacement(content, node) {
      const href = (node as Element).getAttribute('href') ?? '';
      return /^https?:\/\//i.test(href) && content.trim() !== '' && content.trim() !== href ? `[${content}](${href})` : content;
    },
  });
  turndown.remove(['script', 'style', 'noscript', 'template', 'iframe'] as never);
  turndown.addRule('image', { filter: 'img', replacement: (_content, node) => ((node as Element).getAttribute('alt') ?? '').trim() });
  return turndown;
}

/** HTML (an element's inner HTML or a fragment) to Markdown: headings, lists, tables, emphasis and code kept. */
export function htmlToMarkdown(html: string): string {
  return converter()
    .turndown(html)
    .replace(/[ \t]+\n/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

interface HtmlElement {
  innerHTML: string;
  textContent: string | null;
  getAttribute(name: string): string | null;
  querySelector(selector: string): HtmlElement | null;
  querySelectorAll(selector: string): ArrayLike<HtmlElement & { remove(): void }>;
}

function removeAll(root: HtmlElement, selector: string): void {
  for (const element of Array.from(root.querySelectorAll(selector))) element.remove();
}

function textOf(element: HtmlElement | null): string | undefined {
  const text = element?.textContent?.replace(/\s+/g, ' ').trim();
  return text ? text : undefined;
}

/**
 * HTML: the main content as Markdown. The content is, in this order, the page's `<main>` (or
 * `role="main"`), its only `<article>`, what Mozilla Readability (Firefox's reader view) extracts,
 * or the body; scripts, styles, forms and page chrome (navigation, header, footer, aside) are
 * dropped. Title from `<title>` (else the first `<h1>`); `lang`, `dir` and the meta description go
 * into metadata with `extraction` saying which rule chose the content.
 */
export function parseHtml(html: string): ParsedDocument {
  const { document } = parseHTML(html);
  const root = document.documentElement as unknown as HtmlElement | null;
  const metadata: Metadata = {};
  const lang = root?.getAttribute('lang')?.trim();
  const dir = root?.getAttribute('dir')?.trim().toLowerCase() ?? (document.body as unknown as HtmlElement | null)?.getAttribute('dir')?.trim().toLowerCase();
  if (lang) metadata.lang = lang;
  if (dir === 'rtl' || dir === 'ltr') metadata.dir = dir;
  const description = (document as unknown as HtmlElement).querySelector('meta[name="description"]')?.getAttribute('content')?.trim();
  if (description) metadata.description = description;
  const documentRoot = document as unknown as HtmlElement;
  let title = textOf(documentRoot.querySelector('title')) ?? documentRoot.querySelector('meta[property="og:title"]')?.getAttribute('content')?.trim();

  const body = documentRoot.querySelector('body');
  if (body) removeAll(body, NEVER_CONTENT);
  const main = documentRoot.querySelector('main, [role="main"]');
  const articles = Array.from(documentRoot.querySelectorAll('article'));
  let content: string | undefined;
  if (main) {
    removeAll(main, BOILERPLATE);
    content = main.innerHTML;
    metadata.extraction = 'main';
  } else if (articles.length === 1) {
    removeAll(articles[0]!, BOILERPLATE);
    content = articles[0]!.innerHTML;
    metadata.extraction = 'article';
  } else {
    const article = new Readability((document as unknown as { cloneNode(deep: boolean): Document }).cloneNode(true), { charThreshold: 100 }).parse();
    if (article?.content && (article.textContent ?? '').trim().length > 0) {
      content = article.content;
      metadata.extraction = 'readability';
    } else if (body) {
      removeAll(body, BOILERPLATE);
      content = body.innerHTML;
      metadata.extraction = 'body';
    }
  }
  title ??= textOf(documentRoot.querySelector('h1'));
  const text = content ? htmlToMarkdown(content) : '';
  return { text, ...(title ? { title } : {}), metadata };
}

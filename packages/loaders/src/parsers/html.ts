import { Readability, isProbablyReaderable } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import TurndownService from 'turndown';
import turndownPluginGfm from '@joplin/turndown-plugin-gfm';
import type { Metadata } from '@zerda/types';
import { isHiddenByAttributes, linearHtmlText, measureHtml } from '../guards/html-shape.js';
import { DEFAULT_LIMITS, type ResolvedLimits } from '../limits.js';
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
  // An image keeps its alternative text, unless that is a file name or the TeX source of a formula
  // (what Wikipedia and galleries put there): noise for retrieval, and not what a reader sees.
  turndown.addRule('image', {
    filter: 'img',
    replacement: (_content, node) => {
      const alt = ((node as Element).getAttribute('alt') ?? '').trim();
      return /^\S+\.(?:jpe?g|png|gif|webp|svg|bmp|tiff?)$/i.test(alt) || /^\{\\|\\displaystyle/.test(alt) ? '' : alt;
    },
  });
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
  hasAttribute(name: string): boolean;
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
 * Removes what readers never see: elements with `hidden`, `aria-hidden="true"` (except Readability's
 * `fallback-image` convention) or an inline `display:none` / `visibility:hidden`. Text hidden this
 * way is a classic place for injected instructions.
 */
function removeHidden(root: HtmlElement): void {
  for (const element of Array.from(root.querySelectorAll('[hidden], [aria-hidden], [style]'))) {
    const attributes: Record<string, string | undefined> = {};
    for (const name of ['hidden', 'aria-hidden', 'style']) {
      if (element.hasAttribute(name)) attributes[name] = element.getAttribute(name) ?? '';
    }
    if (attributes['aria-hidden'] !== undefined && (element.getAttribute('class') ?? '').includes('fallback-image')) delete attributes['aria-hidden'];
    if (isHiddenByAttributes(attributes)) element.remove();
  }
}

function directionOf(value: string | null | undefined): 'rtl' | 'ltr' | undefined {
  const direction = value?.trim().toLowerCase();
  return direction === 'rtl' || direction === 'ltr' ? direction : undefined;
}

/**
 * HTML: the main content as Markdown. Mozilla Readability (Firefox's reader view, default options)
 * chooses the content; when it finds none, the page's `<main>` (or `role="main"`), its only
 * `<article>` or its body, without page chrome (navigation, header, footer, aside). Scripts, styles,
 * forms and hidden elements (`hidden`, `aria-hidden`, inline `display:none`) are never content. The
 * title is Readability's (the `<title>` without the site name), else `og:title`, `<title>` or the
 * first `<h1>`; `lang`, `dir` (the content's, else the page's), the meta description, `readerable`
 * (Readability's `isProbablyReaderable`) and `extraction` (which rule chose the content) go into
 * metadata. A page nested deeper than `limits.maxHtmlDepth` or with more than
 * `limits.maxHtmlElements` elements is read by a linear text extraction instead (`extraction:
 * 'linear'`), because DOM algorithms are quadratic on such trees.
 */
export function parseHtml(html: string, limits: ResolvedLimits = DEFAULT_LIMITS): ParsedDocument {
  const shape = measureHtml(html);
  if (shape.depth > limits.maxHtmlDepth || shape.elements > limits.maxHtmlElements) {
    const linear = linearHtmlText(html);
    const metadata: Metadata = { extraction: 'linear', htmlDepth: shape.depth, htmlElements: shape.elements };
    if (linear.lang) metadata.lang = linear.lang;
    const direction = directionOf(linear.dir);
    if (direction) metadata.dir = direction;
    return { text: linear.text, ...(linear.title ? { title: linear.title } : {}), metadata };
  }
  const { document } = parseHTML(html);
  const documentRoot = document as unknown as HtmlElement;
  const root = document.documentElement as unknown as HtmlElement | null;
  const body = documentRoot.querySelector('body');
  const metadata: Metadata = {};
  const description = documentRoot.querySelector('meta[name="description"]')?.getAttribute('content')?.trim();
  if (description) metadata.description = description;
  const ogTitle = documentRoot.querySelector('meta[property="og:title"]')?.getAttribute('content')?.trim();
  const pageTitle = textOf(documentRoot.querySelector('title'));
  removeAll(documentRoot, 'script, style, noscript, template');
  removeHidden(documentRoot);

  let readerable = false;
  try {
    readerable = isProbablyReaderable(document as unknown as Document);
  } catch {
    // A page the heuristic cannot judge is simply not known to be readerable.
  }
  metadata.readerable = readerable;
  // Readability is built for article pages, and its own readerable heuristic can miss one (a parser
  // difference, markup it does not score): it runs on every page, and on a page not judged
  // readerable (a short page, a list, a fragment) its choice must hold at least a quarter of the
  // page's text, else the whole content without the chrome is kept.
  const article = new Readability((document as unknown as { cloneNode(deep: boolean): Document }).cloneNode(true)).parse();
  let content: string | undefined;
  const container = body ?? root;
  const articleLength = (article?.textContent ?? '').trim().length;
  const pageLength = (container?.textContent ?? '').trim().length;
  if (article?.content && articleLength > 0 && (readerable || articleLength >= 0.25 * pageLength)) {
    content = article.content;
    metadata.extraction = 'readability';
  } else if (container) {
    removeAll(container, `${NEVER_CONTENT}, ${BOILERPLATE}`);
    const main = container.querySelector('main, [role="main"]');
    const articles = Array.from(container.querySelectorAll('article'));
    const chosen = main ?? (articles.length === 1 ? articles[0]! : container);
    content = chosen.innerHTML;
    metadata.extraction = main ? 'main' : articles.length === 1 ? 'article' : 'body';
  }
  const lang = article?.lang?.trim() || root?.getAttribute('lang')?.trim() || body?.getAttribute('lang')?.trim();
  if (lang) metadata.lang = lang;
  const direction = directionOf(article?.dir) ?? directionOf(root?.getAttribute('dir')) ?? directionOf(body?.getAttribute('dir'));
  if (direction) metadata.dir = direction;
  const title = article?.title?.trim() || ogTitle || pageTitle || textOf(documentRoot.querySelector('h1'));
  const text = content ? htmlToMarkdown(content) : '';
  return { text, ...(title ? { title } : {}), metadata };
}

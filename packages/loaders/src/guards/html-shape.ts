import { Parser } from 'htmlparser2';

/** How big and how deep an HTML page's element tree is, as a browser would build it. */
export interface HtmlShape {
  elements: number;
  depth: number;
}

/**
 * Counts the elements of a page and the deepest nesting in one linear pass of htmlparser2's
 * tokenizer (implied end tags and void elements handled as the parser does). Deep trees make DOM
 * algorithms quadratic (Readability) or overflow the stack (recursive converters); measuring first
 * lets the loader choose the linear path for them.
 */
export function measureHtml(html: string): HtmlShape {
  let depth = 0;
  let deepest = 0;
  let elements = 0;
  const parser = new Parser(
    {
      onopentag() {
        elements++;
        depth++;
        if (depth > deepest) deepest = depth;
      },
      onclosetag() {
        depth = Math.max(0, depth - 1);
      },
    },
    { decodeEntities: false },
  );
  parser.end(html);
  return { elements, depth: deepest };
}

// Elements whose content is never text a reader sees.
const SKIPPED = new Set(['script', 'style', 'noscript', 'template', 'iframe', 'object', 'embed', 'svg', 'canvas', 'head', 'button', 'select', 'textarea', 'math']);
// Elements that start a new block of text.
const BLOCKS = new Set(['address', 'article', 'aside', 'blockquote', 'br', 'dd', 'details', 'div', 'dl', 'dt', 'fieldset', 'figcaption', 'figure', 'footer', 'form', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'header', 'hr', 'li', 'main', 'nav', 'ol', 'p', 'pre', 'section', 'summary', 'table', 'td', 'th', 'tr', 'ul']);
const HIDDEN_STYLE = /(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*hidden)\b/i;

/** True for an element hidden from readers by its attributes (`hidden`, `aria-hidden="true"`, an inline `display:none` / `visibility:hidden`). */
export function isHiddenByAttributes(attributes: Record<string, string | undefined>): boolean {
  if (attributes.hidden !== undefined) return true;
  if ((attributes['aria-hidden'] ?? '').trim().toLowerCase() === 'true') return true;
  return HIDDEN_STYLE.test(attributes.style ?? '');
}

/** What the linear extraction reads from a page. */
export interface LinearHtml {
  text: string;
  title?: string;
  lang?: string;
  dir?: string;
}

/**
 * The visible text of a page in one linear pass (htmlparser2, entities decoded): scripts, styles,
 * the head and hidden elements dropped, a blank line between blocks. No DOM is built, so the time
 * is linear in the size of the page however deep or broken its markup; headings and lists are not
 * kept as Markdown.
 */
export function linearHtmlText(html: string): LinearHtml {
  const parts: string[] = [];
  const skipping: boolean[] = [];
  let skipDepth = 0;
  let inTitle = false;
  let title = '';
  let lang: string | undefined;
  let dir: string | undefined;
  const parser = new Parser(
    {
      onopentag(name, attributes) {
        if ((name === 'html' || name === 'body') && attributes.lang && !lang) lang = attributes.lang.trim();
        if ((name === 'html' || name === 'body') && attributes.dir && !dir) dir = attributes.dir.trim().toLowerCase();
        if (name === 'title') inTitle = true;
        const skip = SKIPPED.has(name) || isHiddenByAttributes(attributes);
        skipping.push(skip);
        if (skip) skipDepth++;
        if (BLOCKS.has(name)) parts.push('\n\n');
      },
      onclosetag(name) {
        if (name === 'title') inTitle = false;
        if (skipping.pop()) skipDepth--;
        if (BLOCKS.has(name)) parts.push('\n\n');
      },
      ontext(text) {
        if (inTitle) title += text;
        if (skipDepth === 0) parts.push(text);
      },
    },
    { decodeEntities: true },
  );
  parser.end(html);
  const text = parts
    .join('')
    .split(/\n{2,}/)
    .map((block) => block.replace(/\s+/g, ' ').trim())
    .filter((block) => block !== '')
    .join('\n\n');
  const cleanTitle = title.replace(/\s+/g, ' ').trim();
  return { text, ...(cleanTitle ? { title: cleanTitle } : {}), ...(lang ? { lang } : {}), ...(dir ? { dir } : {}) };
}

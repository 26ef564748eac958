import { Tokenizer, type TokenizerCallbacks } from 'htmlparser2';

/** How big and how deep an HTML page's element tree is, about as a browser would build it. */
export interface HtmlShape {
  elements: number;
  depth: number;
}

interface HtmlVisitor {
  open(name: string, attributes: Record<string, string>, depth: number): void;
  close(name: string): void;
  text(text: string): void;
}

const VOID = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'param', 'source', 'track', 'wbr', 'keygen']);
// Opening one of these closes an open <p> (as the HTML parser does).
const CLOSES_P = new Set(['address', 'article', 'aside', 'blockquote', 'details', 'div', 'dl', 'fieldset', 'figcaption', 'figure', 'footer', 'form', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'header', 'hr', 'main', 'nav', 'ol', 'p', 'pre', 'section', 'table', 'ul', 'li', 'dd', 'dt']);
// Opening one of these closes the open element of the same group, up to its container.
const SIBLINGS: Record<string, { closes: Set<string>; container: Set<string> }> = {
  li: { closes: new Set(['li']), container: new Set(['ul', 'ol', 'menu']) },
  dt: { closes: new Set(['dt', 'dd']), container: new Set(['dl']) },
  dd: { closes: new Set(['dt', 'dd']), container: new Set(['dl']) },
  tr: { closes: new Set(['tr', 'td', 'th']), container: new Set(['table', 'tbody', 'thead', 'tfoot']) },
  td: { closes: new Set(['td', 'th']), container: new Set(['tr', 'table']) },
  th: { closes: new Set(['td', 'th']), container: new Set(['tr', 'table']) },
  option: { closes: new Set(['option']), container: new Set(['select', 'datalist', 'optgroup']) },
};
// How far down the stack an end tag or an implied end is looked for: keeps every step O(1), so a
// page of any depth is walked in linear time. Further down, the tag is treated as unmatched.
const SEARCH = 64;

/**
 * Walks HTML in one linear pass: htmlparser2's tokenizer (entities decoded, script and style as raw
 * text) and an element stack with the HTML parser's common implied end tags (`<p>` closed by a
 * block, `<li>`, `<dt>`/`<dd>`, table cells and options by their next sibling) and void elements.
 * Every stack step looks at most a fixed number of entries down, so time stays linear in the size
 * of the page however deep or broken its markup (htmlparser2's own parser keeps its stack with
 * `unshift`, quadratic in the depth).
 */
function walkHtml(html: string, visitor: HtmlVisitor): void {
  const stack: string[] = [];
  let name = '';
  let attributes: Record<string, string> = {};
  let attributeName = '';
  let attributeValue = '';
  const popTo = (index: number): void => {
    while (stack.length > index) visitor.close(stack.pop()!);
  };
  const find = (names: Set<string>, stopAt?: Set<string>): number => {
    for (let index = stack.length - 1; index >= Math.max(0, stack.length - SEARCH); index--) {
      if (names.has(stack[index]!)) return index;
      if (stopAt?.has(stack[index]!)) return -1;
    }
    return -1;
  };
  const open = (selfClosing: boolean): void => {
    if (CLOSES_P.has(name) && stack[stack.length - 1] === 'p') popTo(stack.length - 1);
    const sibling = SIBLINGS[name];
    if (sibling) {
      const index = find(sibling.closes, sibling.container);
      if (index >= 0) popTo(index);
    }
    visitor.open(name, attributes, stack.length + 1);
    if (VOID.has(name) || selfClosing) visitor.close(name);
    else stack.push(name);
  };
  const callbacks: TokenizerCallbacks = {
    onattribdata: (start, end) => void (attributeValue += html.slice(start, end)),
    onattribentity: (codepoint) => void (attributeValue += String.fromCodePoint(codepoint)),
    onattribend: () => {
      if (!(attributeName in attributes)) attributes[attributeName] = attributeValue;
    },
    onattribname: (start, end) => {
      attributeName = html.slice(start, end).toLowerCase();
      attributeValue = '';
    },
    oncdata: () => {},
    onclosetag: (start, end) => {
      const closing = html.slice(start, end).toLowerCase();
      if (VOID.has(closing)) return;
      const index = find(new Set([closing]));
      if (index >= 0) popTo(index);
    },
    oncomment: () => {},
    ondeclaration: () => {},
    onend: () => popTo(0),
    onopentagend: () => open(false),
    onopentagname: (start, end) => {
      name = html.slice(start, end).toLowerCase();
      attributes = {};
    },
    onprocessinginstruction: () => {},
    onselfclosingtag: () => open(true),
    ontext: (start, end) => visitor.text(html.slice(start, end)),
    ontextentity: (codepoint) => visitor.text(String.fromCodePoint(codepoint)),
  };
  const tokenizer = new Tokenizer({ decodeEntities: true, xmlMode: false }, callbacks);
  tokenizer.write(html);
  tokenizer.end();
}

/**
 * Counts the elements of a page and its deepest nesting in one linear pass (see `walkHtml`). Deep
 * trees make DOM algorithms quadratic (Readability) or overflow the stack (recursive converters);
 * measuring first lets the loader choose the linear path for them.
 */
export function measureHtml(html: string): HtmlShape {
  let elements = 0;
  let deepest = 0;
  walkHtml(html, {
    open(_name, _attributes, depth) {
      elements++;
      if (depth > deepest) deepest = depth;
    },
    close() {},
    text() {},
  });
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
 * The visible text of a page in one linear pass (see `walkHtml`): scripts, styles, the head and
 * hidden elements dropped, a blank line between blocks. No DOM is built, so the time is linear in
 * the size of the page however deep or broken its markup; headings and lists are not kept as
 * Markdown.
 */
export function linearHtmlText(html: string): LinearHtml {
  const parts: string[] = [];
  // Per open element: does it hide its content? (a stack parallel to the walker's)
  const hiding: boolean[] = [];
  let hiddenDepth = 0;
  let inTitle = false;
  let title = '';
  let lang: string | undefined;
  let dir: string | undefined;
  walkHtml(html, {
    open(name, attributes) {
      if ((name === 'html' || name === 'body') && attributes.lang && !lang) lang = attributes.lang.trim();
      if ((name === 'html' || name === 'body') && attributes.dir && !dir) dir = attributes.dir.trim().toLowerCase();
      if (name === 'title') inTitle = true;
      const hides = SKIPPED.has(name) || isHiddenByAttributes(attributes);
      hiding.push(hides);
      if (hides) hiddenDepth++;
      if (BLOCKS.has(name)) parts.push('\n\n');
    },
    close(name) {
      if (name === 'title') inTitle = false;
      if (hiding.pop()) hiddenDepth--;
      if (BLOCKS.has(name)) parts.push('\n\n');
    },
    text(text) {
      if (inTitle) title += text;
      else if (hiddenDepth === 0) parts.push(text);
    },
  });
  const text = parts
    .join('')
    .split(/\n{2,}/)
    .map((block) => block.replace(/\s+/g, ' ').trim())
    .filter((block) => block !== '')
    .join('\n\n');
  const cleanTitle = title.replace(/\s+/g, ' ').trim();
  return { text, ...(cleanTitle ? { title: cleanTitle } : {}), ...(lang ? { lang } : {}), ...(dir ? { dir } : {}) };
}

/**
 * Third-party test material (pdf.js, Readability and mammoth test files with the expectations their
 * own projects test against), read from `../shared/thirdparty` beside the repository or
 * `$ZERDA_THIRDPARTY`. Used by this package's fidelity tests and by `scripts/measure-documents.mjs`;
 * nothing here is exported from the package.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseHTML } from 'linkedom';

/** The third-party folder, or undefined when it is absent. */
export function thirdpartyDirectory(): string | undefined {
  const configured = process.env.ZERDA_THIRDPARTY;
  // src/fidelity (or dist/fidelity) → repository root → its sibling `shared`.
  const directory = configured && configured !== '' ? configured : fileURLToPath(new URL('../../../../../shared/thirdparty', import.meta.url));
  return existsSync(join(directory, 'README.md')) ? directory : undefined;
}

/** How to get the material, for skip messages. */
export const THIRDPARTY_HINT = 'third-party test material not found: put it in ../shared/thirdparty beside the repository (see its README) or set ZERDA_THIRDPARTY';

/** Lower-case words (letters, digits and marks), for word-level comparisons. */
export function wordsOf(text: string): string[] {
  return text.normalize('NFKC').toLowerCase().match(/[\p{L}\p{N}][\p{L}\p{N}\p{M}]*/gu) ?? [];
}

/** Word-level F1 of a candidate text against a reference (bags of words); 1 when both are empty. */
export function wordF1(candidate: string, reference: string): number {
  const counts = new Map<string, number>();
  const referenceWords = wordsOf(reference);
  const candidateWords = wordsOf(candidate);
  if (referenceWords.length === 0 && candidateWords.length === 0) return 1;
  if (referenceWords.length === 0 || candidateWords.length === 0) return 0;
  for (const word of referenceWords) counts.set(word, (counts.get(word) ?? 0) + 1);
  let overlap = 0;
  for (const word of candidateWords) {
    const left = counts.get(word) ?? 0;
    if (left > 0) {
      overlap++;
      counts.set(word, left - 1);
    }
  }
  if (overlap === 0) return 0;
  const precision = overlap / candidateWords.length;
  const recall = overlap / referenceWords.length;
  return (2 * precision * recall) / (precision + recall);
}

/**
 * What a reader sees of Markdown: link targets removed (`[text](https://…)` → `text`) and list
 * markers (`1. `, `- `) dropped — a browser draws those, they are not in the page's text.
 */
export function readableText(markdown: string): string {
  return markdown.replace(/\]\((?:[^()\s]|\([^()\s]*\))*\)/g, ']').replace(/^[ \t]*(?:\d{1,9}\.|[-*+])[ \t]+/gm, '');
}

/** The text a browser would show for an HTML fragment (tags dropped, entities decoded). */
export function textOfHtml(html: string): string {
  // Block elements start on a new line, as a browser shows them (textContent alone would glue "Apple" to "Banana").
  const separated = html.replace(/<(?:p|li|td|th|tr|h[1-6]|div|dt|dd|br|table|ol|ul|blockquote|pre|section|article|figcaption|hr)\b/gi, '\n$&');
  const { document } = parseHTML(`<!doctype html><html><body>${separated}</body></html>`);
  return (document.body as unknown as { textContent: string | null }).textContent ?? '';
}

/** Decodes one JavaScript string literal (quotes included) without evaluating code. */
export function decodeStringLiteral(literal: string): string {
  const body = literal.slice(1, -1);
  return body.replace(/\\(x[0-9a-fA-F]{2}|u\{[0-9a-fA-F]+\}|u[0-9a-fA-F]{4}|\r?\n|.)/g, (_match, escape: string) => {
    if (escape.startsWith('x')) return String.fromCharCode(parseInt(escape.slice(1), 16));
    if (escape.startsWith('u{')) return String.fromCodePoint(parseInt(escape.slice(2, -1), 16));
    if (escape.startsWith('u')) return String.fromCharCode(parseInt(escape.slice(1), 16));
    if (escape === '\n' || escape === '\r\n') return '';
    return ({ n: '\n', t: '\t', r: '\r', '0': '\0' } as Record<string, string>)[escape] ?? escape;
  });
}

const STRING_LITERAL = /"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|`(?:[^`\\$]|\\[\s\S])*`/g;

function literalsIn(expression: string): string[] {
  return (expression.match(STRING_LITERAL) ?? []).map(decodeStringLiteral);
}

/** The argument text of a call starting at `open` (the index of its opening parenthesis). */
function argumentsAt(source: string, open: number): string {
  let depth = 0;
  for (let index = open; index < source.length; index++) {
    const character = source[index]!;
    if (character === '"' || character === "'" || character === '`') {
      STRING_LITERAL.lastIndex = index;
      const match = STRING_LITERAL.exec(source);
      if (match && match.index === index) {
        index += match[0].length - 1;
        continue;
      }
    }
    if (character === '(' || character === '[') depth++;
    else if (character === ')' || character === ']') {
      depth--;
      if (depth === 0) return source.slice(open + 1, index);
    }
  }
  return source.slice(open + 1);
}

/** One text expectation of pdf.js's `api_spec.js` on page 1 of a test PDF. */
export interface PdfTextExpectation {
  test: string;
  file: string;
  /** `equal`: the page's whole text; `includes`: a passage of it. */
  kind: 'equal' | 'includes';
  text: string;
}

/**
 * The `getTextContent` expectations of pdf.js's `api_spec.js` on page 1 of the test PDFs present
 * here: `expect(text).toEqual(…)`, `text.includes(…)` on the merged text, a list of item strings,
 * or a single item's `str`.
 */
export function pdfjsExpectations(directory: string): PdfTextExpectation[] {
  const spec = readFileSync(join(directory, 'pdfjs', 'api_spec.js'), 'utf8');
  const out: PdfTextExpectation[] = [];
  const blocks = spec.split(/\n\s*it\(/).slice(1);
  for (const block of blocks) {
    if (!block.includes('getTextContent')) continue;
    const test = decodeStringLiteral(block.match(STRING_LITERAL)?.[0] ?? '""');
    const file = /buildGetDocumentParams\(\s*"([^"]+\.pdf)"/.exec(block)?.[1] ?? (/describe\("Page"/.test(block) ? undefined : undefined);
    const pageOne = /getPage\(1\)/.test(block) || /await page\.getTextContent\(\)/.test(block);
    const resolved = file ?? (/await page\.getTextContent\(\)/.test(block) ? 'basicapi.pdf' : undefined);
    if (!resolved || !pageOne || !existsSync(join(directory, 'pdfjs', resolved))) continue;
    const add = (kind: 'equal' | 'includes', text: string): void => {
      if (!out.some((item) => item.file === resolved && item.kind === kind && item.text.normalize('NFKC') === text.normalize('NFKC'))) out.push({ test, file: resolved, kind, text });
    };
    for (const match of block.matchAll(/expect\(text\)\s*\.toEqual\(/g)) add('equal', literalsIn(argumentsAt(block, match.index + match[0].length - 1)).join(''));
    for (const match of block.matchAll(/text\.includes\(/g)) {
      const argument = argumentsAt(block, match.index + match[0].length - 1);
      if (/^\s*expected\s*$/.test(argument)) {
        for (const assignment of block.matchAll(/expected = (`(?:[^`\\$]|\\[\s\S])*`)/g)) add('includes', decodeStringLiteral(assignment[1]!));
      } else add('includes', literalsIn(argument).join(''));
    }
    for (const match of block.matchAll(/expect\(items\.map\(i => i\.str\)\)\.toEqual\(/g)) add('equal', literalsIn(argumentsAt(block, match.index + match[0].length - 1)).join(''));
    if (/expect\(items\)\.toEqual\(\[\s*jasmine\.objectContaining|expect\(items\[0\]\)\.toEqual\(/.test(block) && /expect\(items\.length\)\.toEqual\(1\)|expect\(items\)\.toEqual\(\[\s*jasmine\.objectContaining\(\{[^}]*\}\),?\s*\]\)/.test(block)) {
      const str = /str: ("(?:[^"\\]|\\.)*")/.exec(block)?.[1];
      if (str) add('equal', decodeStringLiteral(str));
    }
  }
  return out;
}

/** PDFs of the pdf.js material that need pdf.js's CMaps or standard fonts to give their text. */
export const CMAP_DEPENDENT_PDFS = [
  '90ms_rksj_h_sample.pdf',
  'XiaoBiaoSong.pdf',
  'arial_unicode_ab_cidfont.pdf',
  'arial_unicode_en_cidfont.pdf',
  'issue16176.pdf',
  'issue16538.pdf',
  'issue5010.pdf',
  'noembed-eucjp.pdf',
  'noembed-identity-2.pdf',
  'noembed-identity.pdf',
  'noembed-jis7.pdf',
  'noembed-sjis.pdf',
  'SimFang-variant.pdf',
  'vertical.pdf',
];

/** Whitespace collapsed and compatibility forms folded (ﬁ → fi), for comparing extracted text. */
export function comparable(text: string): string {
  return text.normalize('NFKC').replace(/\s+/g, ' ').trim();
}

/** True when a page's text meets an expectation (whitespace-insensitive, ligatures folded). */
export function meetsExpectation(pageText: string, expectation: PdfTextExpectation): boolean {
  const page = comparable(pageText);
  const expected = comparable(expectation.text);
  return expectation.kind === 'equal' ? page === expected : page.includes(expected);
}

/** One expectation of mammoth's own tests that applies to default conversion options. */
export interface MammothExpectation {
  test: string;
  file: string;
  /** The text of the HTML mammoth's test expects (empty when it expects no content). */
  text: string | undefined;
  /** The test expects the conversion to fail. */
  error: boolean;
}

// Options that change what mammoth produces; tests using them do not describe default output.
const NON_DEFAULT = /styleMap|transformDocument|convertImage|ignoreEmptyParagraphs|includeEmbeddedStyleMap|includeDefaultStyleMap|prettyPrint|externalFileAccess|convertToMarkdown|imgElement|embedStyleMap|readEmbeddedStyleMap/;

/**
 * mammoth's tests (`mammoth.tests.js`) that convert a test DOCX with default options (an `idPrefix`
 * does not change the text) and assert the HTML or raw text, or assert an error.
 */
export function mammothExpectations(directory: string): MammothExpectation[] {
  const source = readFileSync(join(directory, 'mammoth', 'mammoth.tests.js'), 'utf8');
  const out: MammothExpectation[] = [];
  for (const block of source.split(/\ntest\(/).slice(1)) {
    const test = decodeStringLiteral(block.match(STRING_LITERAL)?.[0] ?? '""');
    const file = /"test-data\/([^"]+\.(?:docx|zip))"/.exec(block)?.[1];
    if (!file || !existsSync(join(directory, 'mammoth', file))) continue;
    if (NON_DEFAULT.test(block) || !/mammoth\.(convertToHtml|extractRawText)\(/.test(block)) continue;
    if (/assert\.ok\(false, "Expected error"\)/.test(block)) {
      out.push({ test, file, text: undefined, error: true });
      continue;
    }
    const assertion = /assert\.equal\(result\.value,\s*/.exec(block);
    if (!assertion) continue;
    let expression = argumentsAt(block, assertion.index + 'assert.equal'.length);
    expression = expression.slice(expression.indexOf(',') + 1).trim();
    if (/^\w+$/.test(expression)) {
      const assigned = new RegExp(`var ${expression} =([\\s\\S]*?);\\n`).exec(block)?.[1];
      if (!assigned) continue;
      expression = assigned;
    }
    const literal = literalsIn(expression).join('');
    const raw = /extractRawText/.test(block);
    out.push({ test, file, text: raw ? literal : textOfHtml(literal), error: false });
  }
  return out;
}

/** One of Readability's test pages: its source and the content and metadata Readability expects. */
export interface ReadabilityPage {
  name: string;
  source: string;
  expectedText: string;
  metadata: { title?: string | null; dir?: string | null; lang?: string | null; readerable?: boolean };
}

/** Readability's test pages present here, in name order. */
export function readabilityPages(directory: string): ReadabilityPage[] {
  const root = join(directory, 'readability');
  return readdirSync(root, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(root, entry.name, 'source.html')))
    .map((entry) => entry.name)
    .sort()
    .map((name) => ({
      name,
      source: join(root, name, 'source.html'),
      expectedText: textOfHtml(readFileSync(join(root, name, 'expected.html'), 'utf8')),
      metadata: JSON.parse(readFileSync(join(root, name, 'expected-metadata.json'), 'utf8')) as ReadabilityPage['metadata'],
    }));
}

/** The value at quantile `q` (0…1) of numbers, by nearest rank on the sorted list. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

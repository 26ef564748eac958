import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { getDocumentProxy } from 'unpdf';
import { isStackOverflow, limitExceeded, messageOf, unreadable } from '../errors.js';
import { checkPdfStreams } from '../guards/pdf-guard.js';
import { DEFAULT_LIMITS, type ResolvedLimits } from '../limits.js';
import { layoutPdfPage, type PdfTextRun } from '../pdf-layout.js';
import type { PageRange, ParsedDocument } from '../types.js';

const PAGE_SEPARATOR = '\n\n';
// Titles producers write when the author gave none.
const PLACEHOLDER_TITLE = /^(untitled|about:blank|microsoft word - .*|document\d*|\s*)$/i;

let resources: { cMapUrl: string; standardFontDataUrl: string } | undefined | null = null;

/**
 * pdf.js's CMaps and standard fonts, from the `pdfjs-dist` package of the pdf.js version unpdf
 * bundles: CID fonts (Chinese, Japanese, Korean, and some Western fonts stored as CID) and
 * non-embedded standard fonts give their text only with them. Plain directory paths: pdf.js reads
 * them with `fs` in Node (a `file:` URL is not read).
 */
function pdfResources(): { cMapUrl: string; standardFontDataUrl: string } | undefined {
  if (resources !== null) return resources;
  try {
    const base = dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json'));
    resources = { cMapUrl: `${join(base, 'cmaps')}/`, standardFontDataUrl: `${join(base, 'standard_fonts')}/` };
  } catch {
    resources = undefined;
  }
  return resources;
}

interface TextItemLike {
  str?: string;
  transform?: number[];
  width?: number;
  height?: number;
}

/**
 * PDF, through PDF.js (via unpdf, with pdf.js's CMaps and standard fonts): the text of every page in
 * reading order, pages separated by a blank line, with `metadata.pages` giving each page's character
 * range in the text and `metadata.pageCount`. A page that cannot be read is left out and listed in
 * `metadata.failedPages`; the others load. The title comes from the document information when it is
 * a real title. Compressed streams are checked before PDF.js reads them (`limits.maxPdfStreamBytes`).
 * An encrypted PDF, a damaged one and one without a text layer (a scan) are errors.
 */
export async function parsePdf(bytes: Uint8Array, file: string, limits: ResolvedLimits = DEFAULT_LIMITS): Promise<ParsedDocument> {
  await checkPdfStreams(bytes, file, limits);
  let pdf: Awaited<ReturnType<typeof getDocumentProxy>>;
  try {
    // PDF.js takes ownership of (and detaches) the buffer it is given: hand it a copy.
    pdf = await getDocumentProxy(new Uint8Array(bytes), { isEvalSupported: false, disableFontFace: true, useSystemFonts: false, verbosity: 0, cMapPacked: true, ...(pdfResources() ?? {}) } as never);
  } catch (error) {
    const name = (error as { name?: string }).name;
    if (name === 'PasswordException') throw unreadable(file, 'pdf', 'encrypted', 'it is encrypted with a password', error);
    throw unreadable(file, 'pdf', 'corrupt', `it is not a readable PDF (${messageOf(error)})`, error);
  }
  try {
    const pages: PageRange[] = [];
    const failedPages: Array<{ page: number; reason: string }> = [];
    let text = '';
    for (let number = 1; number <= pdf.numPages; number++) {
      let pageText: string;
      try {
        const page = await pdf.getPage(number);
        // Presentation forms are normalised by the layout, which needs PDF.js's raw mapping.
        const content = await page.getTextContent({ disableNormalization: true } as never);
        const runs: PdfTextRun[] = [];
        for (const item of content.items as TextItemLike[]) {
          if (typeof item.str !== 'string' || !item.transform) continue;
          runs.push({ str: item.str, x: item.transform[4] ?? 0, y: item.transform[5] ?? 0, width: item.width ?? 0, height: item.height ?? 0 });
        }
        page.cleanup();
        pageText = layoutPdfPage(runs);
      } catch (error) {
        if (isStackOverflow(error)) throw limitExceeded(file, 'pdf', 'nesting', undefined, `page ${number} is nested too deeply to read (${messageOf(error)})`);
        // One unreadable page (a broken page tree entry, a damaged content stream) loses that page only.
        failedPages.push({ page: number, reason: messageOf(error).slice(0, 200) });
        continue;
      }
      if (text !== '' && pageText !== '') text += PAGE_SEPARATOR;
      const start = text.length;
      text += pageText;
      pages.push({ page: number, start, end: text.length });
    }
    if (text.trim() === '') {
      if (failedPages.length === pdf.numPages) throw unreadable(file, 'pdf', 'corrupt', `none of its ${pdf.numPages} page(s) can be read (${failedPages[0]?.reason ?? 'no pages'})`);
      throw unreadable(file, 'pdf', 'empty', `none of its ${pdf.numPages} page(s) has a text layer (a scanned PDF needs OCR first)`);
    }
    let title: string | undefined;
    try {
      const info = (await pdf.getMetadata()).info as { Title?: unknown } | undefined;
      if (typeof info?.Title === 'string' && !PLACEHOLDER_TITLE.test(info.Title.trim())) title = info.Title.trim();
    } catch {
      // A broken information dictionary loses the title, not the document.
    }
    return {
      text,
      ...(title ? { title } : {}),
      metadata: {
        pageCount: pdf.numPages,
        pages: pages.map((range) => ({ page: range.page, start: range.start, end: range.end })),
        ...(failedPages.length > 0 ? { failedPages } : {}),
      },
    };
  } finally {
    await pdf.destroy();
  }
}

/**
 * The pages a character range of a PDF document's text falls on (e.g. a chunk's
 * `position.start`/`end`), from the document's `metadata.pages`. Empty when `pages` is missing.
 */
export function pagesOfRange(pages: unknown, start: number, end: number): number[] {
  if (!Array.isArray(pages)) return [];
  const out: number[] = [];
  for (const range of pages as PageRange[]) {
    if (typeof range?.page !== 'number' || range.end <= range.start) continue;
    if (range.start < Math.max(end, start + 1) && range.end > start) out.push(range.page);
  }
  return out;
}

/**
 * Fidelity against each format's own project: pdf.js's `api_spec.js` text expectations, the pages
 * of Readability's test suite (word-level F1 of our text against `expected.html`), and mammoth's
 * own expectations. The material is read from ../shared/thirdparty (or $ZERDA_THIRDPARTY); the
 * tests skip with a message when it is absent.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  CMAP_DEPENDENT_PDFS,
  THIRDPARTY_HINT,
  mammothExpectations,
  meetsExpectation,
  pdfjsExpectations,
  quantile,
  readabilityPages,
  readableText,
  thirdpartyDirectory,
  wordF1,
  wordsOf,
} from './fidelity/thirdparty.js';
import { loadDocuments, type LoadedDocument } from './index.js';

const directory = thirdpartyDirectory();
if (!directory) console.warn(`@zerda/loaders fidelity tests skipped: ${THIRDPARTY_HINT}`);
const withMaterial = directory ? describe : describe.skip;

function pageOne(document: LoadedDocument): string {
  const range = (document.metadata.pages as Array<{ start: number; end: number }> | undefined)?.[0];
  return range ? document.text.slice(range.start, range.end) : document.text;
}

withMaterial('pdf.js test PDFs', () => {
  it("meets pdf.js's own getTextContent expectations (at least 20 of 21), and every file that needs CMaps loads with text", async () => {
    const root = join(directory!, 'pdfjs');
    const expectations = pdfjsExpectations(directory!);
    const files = [...new Set([...expectations.map((expectation) => expectation.file), ...CMAP_DEPENDENT_PDFS, 'ArabicCIDTrueType.pdf', 'Pages-tree-refs.pdf'])];
    const { documents, report } = await loadDocuments(
      files.map((file) => join(root, file)),
      { root },
    );
    const bySource = new Map(documents.map((document) => [document.source, document]));
    expect(expectations.length).toBe(21);
    const met = expectations.filter((expectation) => {
      const document = bySource.get(expectation.file);
      return document !== undefined && meetsExpectation(pageOne(document), expectation);
    });
    expect(met.length, `missed: ${expectations.filter((expectation) => !met.includes(expectation)).map((expectation) => expectation.file).join(', ')}`).toBeGreaterThanOrEqual(20);
    for (const file of CMAP_DEPENDENT_PDFS) expect(bySource.get(file)?.text.trim(), `${file}: ${report.failed.find((failure) => failure.source === file)?.error.message}`).toBeTruthy();
    // English in a CID font, Korean, Japanese vertical text.
    expect(bySource.get('arial_unicode_en_cidfont.pdf')!.text).toContain('This is an Arial Unicode PDF');
    expect(bySource.get('issue5010.pdf')!.text).toContain('인터뷰');
    expect(bySource.get('vertical.pdf')!.text).toContain('日本語');
    // Arabic: narrow explicit spaces are word boundaries; pdf.js's find test expects 4 × ة.
    const arabic = bySource.get('ArabicCIDTrueType.pdf')!.text;
    expect(arabic.split('\n')[2]).toBe('انواع الخطوط العربية');
    expect(arabic.match(/ة/g)).toHaveLength(4);
    // A page the page tree loops on is lost alone.
    const loop = bySource.get('Pages-tree-refs.pdf')!;
    expect(loop.metadata.failedPages).toEqual([{ page: 2, reason: expect.stringMatching(/circular/i) }]);
    expect(loop.text).toContain('Pages loop');
  }, 180_000);
});

withMaterial('Readability test pages', () => {
  it('keeps what Readability keeps: word F1 against expected.html p10 ≥ 0.95 and median ≥ 0.99, with titles and direction', async () => {
    const pages = readabilityPages(directory!);
    expect(pages.length).toBe(130);
    const scores: number[] = [];
    let titles = 0;
    let directions = 0;
    let expectedDirections = 0;
    for (const page of pages) {
      const { documents } = await loadDocuments(page.source);
      const document = documents[0];
      scores.push(document ? wordF1(readableText(document.text), page.expectedText) : 0);
      if (document && page.metadata.title && document.title === page.metadata.title) titles++;
      if (page.metadata.dir) {
        expectedDirections++;
        if (document?.metadata.dir === page.metadata.dir) directions++;
      }
    }
    expect(quantile(scores, 0.1)).toBeGreaterThanOrEqual(0.95);
    expect(quantile(scores, 0.5)).toBeGreaterThanOrEqual(0.99);
    expect(titles).toBeGreaterThanOrEqual(110);
    expect(directions).toBe(expectedDirections);
  }, 300_000);
});

withMaterial('mammoth test DOCX files', () => {
  it("meets mammoth's own expectations for default conversion (20 of 20)", async () => {
    const root = join(directory!, 'mammoth');
    const expectations = mammothExpectations(directory!);
    expect(expectations.length).toBe(20);
    const { documents, report } = await loadDocuments(root, { root, include: ['*.docx', '*.zip'] });
    const bySource = new Map(documents.map((document) => [document.source, document]));
    for (const expectation of expectations) {
      const document = bySource.get(expectation.file);
      if (expectation.error) {
        expect(document, expectation.test).toBeUndefined();
        expect(report.failed.some((failure) => failure.source === expectation.file), expectation.test).toBe(true);
        continue;
      }
      const expected = wordsOf(expectation.text ?? '');
      if (expected.length === 0) expect(document ? wordsOf(document.text) : [], expectation.test).toEqual([]);
      else expect(wordsOf(readableText(document?.text ?? '')), expectation.test).toEqual(expected);
    }
  }, 120_000);
});

import { splitSentences, truncateAtWordBoundary } from '@zerda/text';
import type { LengthCounter } from '@zerda/types';

/**
 * Context-quality measures: how much of a relevant document's own text reaches the final
 * context (gold-in-context@B), and how much of the budget goes to text that is repeated or comes
 * from no relevant document. Comparisons are verbatim after collapsing whitespace runs to one space
 * (so a composer's line breaks or indentation neither help nor hurt).
 */

/** The least a relevant document must contribute to count: 200 characters, or its whole text if shorter. */
export const GOLD_MINIMUM_CHARACTERS = 200;
/** Sentences shorter than this are not credited on their own (too likely to match by accident). */
const MINIMUM_SENTENCE = 20;
/** Repeated sentences shorter than this are not counted as duplicates. */
const MINIMUM_DUPLICATE = 30;

/** Collapses every whitespace run to one space and trims. */
export function collapseWhitespace(text: string): string {
  return text.replace(/\s+/gu, ' ').trim();
}

/** What one document contributes to a context. */
export interface Contribution {
  /** Characters of the document's own text found verbatim (opening run plus whole later sentences). */
  characters: number;
  /** Length of the document's text (whitespace collapsed). */
  length: number;
  /** Character ranges of the (collapsed) context that hold this text, first occurrences. */
  spans: Array<[number, number]>;
}

/** Length of the longest prefix of `text` that occurs in `context` (binary search: occurrence is monotone in the prefix length). */
function longestPrefixIn(context: string, text: string): number {
  let low = 0;
  let high = text.length;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (context.includes(text.slice(0, middle))) low = middle;
    else high = middle - 1;
  }
  return low;
}

/**
 * The verbatim contribution of `documentText` to `context` (both compared with whitespace
 * collapsed; pass an already collapsed context): its opening run (the longest prefix found) plus
 * every later sentence of 20+ characters that appears whole, so that query-focused compression,
 * which keeps the relevant sentences rather than the start, is credited too.
 */
export function contributionOf(context: string, documentText: string): Contribution {
  const text = collapseWhitespace(documentText);
  const spans: Array<[number, number]> = [];
  if (text.length === 0 || context.length === 0) return { characters: 0, length: text.length, spans };
  const opening = longestPrefixIn(context, text);
  let characters = opening;
  if (opening > 0) {
    const at = context.indexOf(text.slice(0, opening));
    spans.push([at, at + opening]);
  }
  if (opening < text.length) {
    for (const sentence of splitSentences(text)) {
      if (sentence.end <= opening || sentence.text.length < MINIMUM_SENTENCE) continue;
      const at = context.indexOf(sentence.text);
      if (at < 0) continue;
      characters += sentence.end - Math.max(sentence.start, opening);
      spans.push([at, at + sentence.text.length]);
    }
  }
  return { characters, length: text.length, spans };
}

/** True when the contribution reaches {@link GOLD_MINIMUM_CHARACTERS} (or the whole document if shorter). */
export function isGoldContribution(contribution: Contribution): boolean {
  return contribution.length > 0 && contribution.characters >= Math.min(GOLD_MINIMUM_CHARACTERS, contribution.length);
}

/** How one context spends its characters. */
export interface ContextAudit {
  /** Some relevant document contributes enough (gold-in-context). */
  gold: boolean;
  /** Characters of the collapsed context. */
  characters: number;
  /** Characters of relevant documents' text (first occurrences). */
  relevant: number;
  /** Characters of sentences that already appeared earlier in the context. */
  duplicate: number;
  /** Characters neither relevant nor duplicate (other documents' text, headers, separators). */
  irrelevant: number;
}

/** Audits one context against the texts of the query's relevant documents. */
export function auditContext(context: string, relevantTexts: readonly string[]): ContextAudit {
  const collapsed = collapseWhitespace(context);
  const length = collapsed.length;
  const relevantMask = new Uint8Array(length);
  let gold = false;
  for (const text of relevantTexts) {
    const contribution = contributionOf(collapsed, text);
    if (isGoldContribution(contribution)) gold = true;
    for (const [start, end] of contribution.spans) relevantMask.fill(1, start, end);
  }
  const duplicateMask = new Uint8Array(length);
  for (const sentence of splitSentences(collapsed)) {
    if (sentence.text.length < MINIMUM_DUPLICATE) continue;
    const first = collapsed.indexOf(sentence.text);
    if (first >= 0 && first < sentence.start) duplicateMask.fill(1, sentence.start, sentence.end);
  }
  let relevant = 0;
  let duplicate = 0;
  for (let index = 0; index < length; index++) {
    if (duplicateMask[index]) duplicate++;
    else if (relevantMask[index]) relevant++;
  }
  return { gold, characters: length, relevant, duplicate, irrelevant: length - relevant - duplicate };
}

/** Aggregate context quality of one system at one budget. */
export interface ContextQuality {
  queries: number;
  /** Share of queries whose context holds enough of a relevant document (0–1). */
  goldInContext: number;
  /** Mean share of the budget spent on repeated text. */
  duplicateShare: number;
  /** Mean share of the budget spent on text from no relevant document. */
  irrelevantShare: number;
  /** Mean share of the budget used at all. */
  budgetUsed: number;
}

/**
 * Averages audits over queries. Shares are of the budget: a context's duplicate and irrelevant
 * characters, as fractions of its characters, scaled by how much of the budget it uses (its length
 * in the budget's unit divided by the budget), so char and token budgets read alike.
 */
export function summarizeAudits(entries: ReadonlyArray<{ audit: ContextAudit; used: number; budget: number }>): ContextQuality {
  let gold = 0;
  let duplicate = 0;
  let irrelevant = 0;
  let used = 0;
  for (const { audit, used: usedUnits, budget } of entries) {
    if (audit.gold) gold++;
    const fill = budget > 0 ? Math.min(1, usedUnits / budget) : 0;
    used += fill;
    if (audit.characters > 0) {
      duplicate += (audit.duplicate / audit.characters) * fill;
      irrelevant += (audit.irrelevant / audit.characters) * fill;
    }
  }
  const count = entries.length;
  const mean = (value: number): number => (count === 0 ? 0 : value / count);
  return { queries: count, goldInContext: mean(gold), duplicateShare: mean(duplicate), irrelevantShare: mean(irrelevant), budgetUsed: mean(used) };
}

/**
 * Naive packing, what a user of a plain retriever does: the top documents' contents joined by a
 * blank line, cut at the budget (at a word boundary, no ellipsis) with the same counter the engine uses.
 */
export function packNaively(contents: readonly string[], budget: number, counter: LengthCounter): string {
  const joined = contents.join('\n\n');
  // Counting tokens of the whole top 10 is the slow part: cut far beyond the budget first. When that
  // head already exceeds the budget, the answer lies inside it and is the same as over the whole text.
  const head = joined.slice(0, Math.max(0, budget) * HEAD_CHARACTERS_PER_UNIT + 1);
  const text = head.length < joined.length && counter(head) > budget ? head : joined;
  return truncateAtWordBoundary(text, budget, counter, { ellipsis: '' });
}

/** More characters than any budget unit (a character, a word, a BPE token) spans in natural text. */
const HEAD_CHARACTERS_PER_UNIT = 32;

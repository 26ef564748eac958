import { detectLanguage } from '@zerda/text';
import type { DocumentChunk } from '@zerda/types';

/** The PostgreSQL text-search configurations the store uses by default. */
export const DEFAULT_TEXT_SEARCH_CONFIGURATIONS = ['arabic', 'english', 'simple'] as const;

/**
 * Picks a chunk's text-search configuration from its text (title included): `arabic` when the
 * text is Arabic, `english` when it is English (Latin script), `simple` for mixed or other text
 * (`simple` lowercases without stemming or stop words, so it treats both scripts alike). Language
 * detection is `@zerda/text`'s, the same the query analyser uses.
 */
export function chooseTextSearchConfiguration(chunk: Pick<DocumentChunk, 'text' | 'title'>): string {
  const language = detectLanguage(chunk.title ? `${chunk.title}\n${chunk.text}` : chunk.text);
  return language === 'ar' ? 'arabic' : language === 'en' ? 'english' : 'simple';
}

import { detectLanguage } from '@zerda/context';

/** One document of the pasted text. */
export interface PastedDocument {
  docId: string;
  source: string;
  title?: string;
  text: string;
  metadata: { lang: string };
}

/**
 * Splits pasted text into documents at lines holding only `---`. A first line `# Title` names the
 * document (it is kept out of its text); each document's language (`ar`, `en`, `mixed`, `other`)
 * becomes its `lang` metadata, so queries can be filtered by language. Empty parts are skipped.
 */
export function splitDocuments(pasted: string): PastedDocument[] {
  if (typeof pasted !== 'string') throw new TypeError(`pasted text must be a string, got ${typeof pasted}`);
  const documents: PastedDocument[] = [];
  for (const part of pasted.split(/^[ \t]*-{3,}[ \t]*$/mu)) {
    const lines = part.trim().split('\n');
    const heading = /^#\s+(.+)$/u.exec(lines[0] ?? '');
    const text = (heading ? lines.slice(1) : lines).join('\n').trim();
    if (text.length === 0) continue;
    const number = documents.length + 1;
    documents.push({
      docId: `pasted-${number}`,
      source: `pasted-${number}`,
      ...(heading ? { title: heading[1]!.trim() } : {}),
      text,
      metadata: { lang: detectLanguage(text) },
    });
  }
  return documents;
}

/** A bilingual sample for the "Load the example" button. */
export const SAMPLE_TEXT = `# التوليد المعزز بالاسترجاع
التوليد المعزَّز بالاسترجاع تقنيةٌ تمنح النموذجَ اللغوي الوثائقَ التي يحتاجها وقتَ السؤال، بدلاً من الاعتماد على ما حفظه أثناء التدريب. يبحث المسترجِع عن المقاطع ذات الصلة، ثم توضع في الموجِّه سياقاً يجيب منه النموذج ويستشهد به.

وتعتمد جودة النظام أساساً على السياق الذي يبنيه: أيّ المقاطع تُختار، وكم منها يتسع له الحدّ المسموح، وبأيّ ترتيب تظهر.
---
# Keyword search with BM25
BM25 ranks documents by how often the query terms occur in them, discounted by how common each term is across the collection and normalised by document length. The parameter k1 controls term-frequency saturation and b controls length normalisation.
---
# Vector search
Vector search embeds queries and passages as vectors and returns the nearest neighbours by cosine similarity. Approximate indexes such as HNSW answer in milliseconds over millions of passages.
`;

import { invalidArgument, type ContextTemplate, type DocumentChunk, type QueryAnalysis, type TemplateName, type TemplatePassage } from '@zerda/types';

/**
 * A passage as the composer hands it to a template: the chunk it starts with, its text (whole,
 * compressed or truncated), its 1-based number, and every chunk merged into it (more than one only
 * with `ordering: 'document'`, where adjacent chunks of one document become one passage).
 */
export interface ComposerPassage extends TemplatePassage {
  chunks: DocumentChunk[];
}

/** The words built-in templates print around passages. */
export interface TemplateLabels {
  /** Heading label of the markdown template (`### Source: …`). */
  source: string;
  /** Title of the source list of the citations template (`Sources:`). */
  sources: string;
}

/** English labels, used unless the query is Arabic. */
export const ENGLISH_LABELS: Readonly<TemplateLabels> = Object.freeze({ source: 'Source', sources: 'Sources' });
/** Arabic labels, used when `analysis.language` is `'ar'`. */
export const ARABIC_LABELS: Readonly<TemplateLabels> = Object.freeze({ source: 'المصدر', sources: 'المصادر' });

/** What a built-in template needs beyond the passages. */
export interface BuiltInTemplateContext {
  analysis?: QueryAnalysis;
  rtl: boolean;
  labels: TemplateLabels;
  /** Separator between passages of the `default` template. */
  separator: string;
}

type BuiltInTemplate = (passages: readonly ComposerPassage[], context: BuiltInTemplateContext) => string;

/** Names of the built-in templates, in documentation order. */
export const TEMPLATE_NAMES: readonly TemplateName[] = ['default', 'numbered', 'markdown', 'xml', 'citations'];

/** Escapes a value for use inside a double-quoted XML attribute. */
export function escapeXmlAttribute(value: string): string {
  if (typeof value !== 'string') throw invalidArgument('value', 'a string', value);
  return value.replace(/[&<>"']/g, (character) => XML_ENTITIES[character] ?? character);
}

const XML_ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };

/**
 * Keeps a passage from closing its own `<document>` element early: a literal `</document` inside
 * chunk text (a prompt-injection favourite) gets its `<` escaped. Everything else stays verbatim, so
 * code samples and RTL text reach the model as written.
 */
function neutralizeClosingTag(text: string): string {
  return text.replace(/<\/(document\b)/gi, '&lt;/$1');
}

function sourceLine(passage: ComposerPassage): string {
  const title = passage.chunk.title;
  return title && title !== passage.chunk.source ? `${passage.chunk.source} — ${title}` : passage.chunk.source;
}

const builtInTemplates: Record<TemplateName, BuiltInTemplate> = {
  default: (passages, context) => passages.map((passage) => passage.text).join(context.separator),
  numbered: (passages) => passages.map((passage) => `[${passage.number}] ${passage.text}`).join('\n\n'),
  markdown: (passages, context) =>
    passages.map((passage) => `### ${context.labels.source}: ${passage.chunk.source}\n\n${passage.text}`).join('\n\n'),
  xml: (passages) =>
    passages
      .map((passage) => {
        const ids = passage.chunks.map((chunk) => chunk.id).join(' ');
        return `<document source="${escapeXmlAttribute(passage.chunk.source)}" id="${escapeXmlAttribute(ids)}">\n${neutralizeClosingTag(passage.text)}\n</document>`;
      })
      .join('\n'),
  citations: (passages, context) => {
    if (passages.length === 0) return '';
    const body = passages.map((passage) => `[${passage.number}] ${passage.text}`).join('\n\n');
    const list = passages.map((passage) => `[${passage.number}] ${sourceLine(passage)}`).join('\n');
    return `${body}\n\n${context.labels.sources}:\n${list}`;
  },
};

/** A template ready to render: its reported name and a function of the passages. */
export interface ResolvedTemplate {
  name: string;
  /** Whether passages carry citation numbers the model can refer to. */
  numbered: boolean;
  render(passages: readonly ComposerPassage[], context: BuiltInTemplateContext): string;
  /**
   * What of a chunk the frame around its passage (header, separator, footer line) depends on, for a
   * built-in template: two chunks with the same key cost the same frame in one composition. Absent
   * for a custom template (anything of the chunk may show in its frame).
   */
  frameKey?: (chunk: DocumentChunk) => string;
}

/** Per built-in template, the chunk fields its frame prints (see {@link ResolvedTemplate.frameKey}). */
const FRAME_KEYS: Record<TemplateName, (chunk: DocumentChunk) => string> = {
  default: () => '',
  numbered: () => '',
  markdown: (chunk) => chunk.source,
  xml: (chunk) => `${chunk.source}\u0000${chunk.id}`,
  citations: (chunk) => `${chunk.source}\u0000${chunk.title ?? ''}`,
};

/** True when `value` names a built-in template. */
export function isTemplateName(value: unknown): value is TemplateName {
  return typeof value === 'string' && (TEMPLATE_NAMES as readonly string[]).includes(value);
}

/**
 * Turns a template name or a custom template function into something the composer can render.
 * A custom function's name (or `custom`) is reported as the template name.
 */
export function resolveTemplate(template: TemplateName | ContextTemplate): ResolvedTemplate {
  if (typeof template === 'function') {
    return {
      name: template.name ? `custom:${template.name}` : 'custom',
      numbered: false,
      render: (passages, context) => template(passages as ComposerPassage[], { analysis: context.analysis, rtl: context.rtl }),
    };
  }
  const render = builtInTemplates[template];
  return { name: template, numbered: template === 'numbered' || template === 'citations', render, frameKey: FRAME_KEYS[template] };
}

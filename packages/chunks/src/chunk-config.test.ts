import { describe, expect, it } from 'vitest';
import { ZerdaError, type LengthCounter } from '@zerda/types';
import { wordCounter } from '@zerda/text';
import { createChunkConfig, resolveChunkConfig } from './chunk-config.js';
import { RecursiveChunker } from './recursive-chunker.js';
import { StructureAwareChunker } from './structure-aware-chunker.js';

function configError(run: () => unknown): ZerdaError {
  try {
    run();
  } catch (error) {
    expect(ZerdaError.isInstance(error)).toBe(true);
    return error as ZerdaError;
  }
  throw new Error('expected a ZerdaError');
}

describe('ChunkConfig', () => {
  it('applies defaults: 1000 characters, no overlap, no minimum', () => {
    const config = resolveChunkConfig();
    expect(config).toMatchObject({ size: 1000, overlap: 0, minChunkSize: 0, unit: 'chars' });
    expect(config.counter('مرحبا 😀')).toBe(7);
  });

  it('names the field, the value and the expectation when invalid', () => {
    const overlap = configError(() => resolveChunkConfig({ size: 100, overlap: 100 }));
    expect(overlap.code).toBe('ZERDA_INVALID_CONFIG');
    expect(overlap.message).toBe('config.overlap must be smaller than size (100), got number 100');
    expect(configError(() => resolveChunkConfig({ size: 50, minChunkSize: 51 })).details.field).toBe('config.minChunkSize');
    for (const size of [0, -5, 1.5, 'big', Number.NaN]) {
      expect(configError(() => resolveChunkConfig({ size: size as number })).details.field).toBe('config.size');
    }
    expect(configError(() => resolveChunkConfig({ chunkSize: 10 } as never)).details.field).toBe('config.chunkSize');
    expect(configError(() => resolveChunkConfig({ unit: 'tokens' })).message).toContain('pass a counter');
    expect(configError(() => resolveChunkConfig({ counter: 5 as never })).details.field).toBe('config.counter');
    expect(configError(() => new RecursiveChunker({ overlap: -1 })).details.field).toBe('config.overlap');
  });

  it('measures in words or with any counter, and names its unit', () => {
    expect(resolveChunkConfig({ unit: 'words' }).counter).toBe(wordCounter);
    const tokens: LengthCounter = Object.assign((text: string) => Math.ceil(text.length / 4), { unit: 'tokens' });
    const config = resolveChunkConfig({ size: 5, counter: tokens });
    expect(config.unit).toBe('tokens');
    const chunks = new RecursiveChunker(config).chunk('one two three four five six seven eight nine ten eleven twelve');
    expect(chunks.length).toBeGreaterThan(1);
    for (const chunk of chunks) expect(tokens(chunk.text)).toBeLessThanOrEqual(5);
    const byWords = new RecursiveChunker({ size: 3, unit: 'words' }).chunk('الكتاب في المكتبة، والقلم على الطاولة. The pen is here.');
    for (const chunk of byWords) expect(wordCounter(chunk.text)).toBeLessThanOrEqual(3);
  });

  it('can be built once and shared by several chunkers', () => {
    const shared = createChunkConfig({ size: 40, overlap: 5, counter: Object.assign((text: string) => text.length, { unit: 'utf16' }) });
    expect(new RecursiveChunker(shared).config).toEqual(shared);
    expect(new StructureAwareChunker(shared).config.unit).toBe('utf16');
  });

  it('rejects a counter that returns something other than a finite number', () => {
    const chunker = new RecursiveChunker({ counter: () => Number.NaN });
    const error = configError(() => chunker.chunk('some text'));
    expect(error.code).toBe('ZERDA_INVALID_CONFIG');
    expect(error.details.field).toBe('config.counter');
  });
});

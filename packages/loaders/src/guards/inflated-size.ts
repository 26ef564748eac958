import { createInflate, createInflateRaw } from 'node:zlib';

/**
 * Bytes compressed data inflates to (`zlib`: a zlib stream as in PDF; `raw`: raw deflate as in
 * ZIP), counted while streaming and stopped as soon as the count passes `cap`: the output is never
 * kept, so a bomb costs its compressed size and a bounded amount of work. Damaged or encrypted data
 * ends the count where inflating stops; deciding what it means is the document parser's job.
 */
export function inflatedSize(data: Uint8Array, cap: number, format: 'zlib' | 'raw'): Promise<number> {
  return new Promise((resolve) => {
    const inflate = format === 'raw' ? createInflateRaw() : createInflate();
    let size = 0;
    let done = false;
    const finish = (): void => {
      if (done) return;
      done = true;
      resolve(size);
    };
    inflate.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > cap) {
        finish();
        inflate.destroy();
      }
    });
    inflate.on('end', finish);
    inflate.on('close', finish);
    inflate.on('error', finish);
    inflate.end(data);
  });
}

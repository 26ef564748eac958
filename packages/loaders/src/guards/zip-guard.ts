import { limitExceeded, unreadable } from '../errors.js';
import { inflatedSize } from './inflated-size.js';
import type { ResolvedLimits } from '../limits.js';

interface CentralEntry {
  name: string;
  method: number;
  compressedSize: number;
  size: number;
  localOffset: number;
}

// Parts mammoth never reads when images are not converted: their size does not matter.
const MEDIA = /^word\/media\//i;

function entriesOf(bytes: Uint8Array, file: string, limits: ResolvedLimits): CentralEntry[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  // The end-of-central-directory record sits in the last 22 + 65 535 bytes (its comment can be that long).
  let end = -1;
  for (let offset = bytes.byteLength - 22; offset >= Math.max(0, bytes.byteLength - 22 - 0xffff); offset--) {
    if (view.getUint32(offset, true) === 0x06054b50) {
      end = offset;
      break;
    }
  }
  if (end < 0) throw unreadable(file, 'docx', 'corrupt', 'it is not a ZIP archive (no end of central directory), so not a DOCX file');
  const count = view.getUint16(end + 10, true);
  const directorySize = view.getUint32(end + 12, true);
  const directoryOffset = view.getUint32(end + 16, true);
  if (count === 0xffff || directoryOffset === 0xffffffff) {
    throw limitExceeded(file, 'docx', 'maxZipEntries', limits.maxZipEntries, 'it is a ZIP64 archive (more than 65 535 entries or 4 GiB), far beyond what a DOCX holds');
  }
  if (count > limits.maxZipEntries) throw limitExceeded(file, 'docx', 'maxZipEntries', limits.maxZipEntries, `its ZIP archive has ${count} entries`);
  if (directoryOffset + directorySize > bytes.byteLength) throw unreadable(file, 'docx', 'corrupt', 'its ZIP central directory lies outside the file');
  const entries: CentralEntry[] = [];
  let offset = directoryOffset;
  const decoder = new TextDecoder();
  for (let index = 0; index < count; index++) {
    if (offset + 46 > bytes.byteLength || view.getUint32(offset, true) !== 0x02014b50) throw unreadable(file, 'docx', 'corrupt', 'its ZIP central directory is damaged');
    const nameLength = view.getUint16(offset + 28, true);
    const extraLength = view.getUint16(offset + 30, true);
    const commentLength = view.getUint16(offset + 32, true);
    entries.push({
      name: decoder.decode(bytes.subarray(offset + 46, offset + 46 + nameLength)),
      method: view.getUint16(offset + 10, true),
      compressedSize: view.getUint32(offset + 20, true),
      size: view.getUint32(offset + 24, true),
      localOffset: view.getUint32(offset + 42, true),
    });
    offset += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

/**
 * Checks a DOCX (ZIP) archive before it is parsed: the number of entries, the declared
 * uncompressed sizes of the parts that are read (everything but `word/media/`), then their real
 * sizes, inflated as a stream whose output is counted and dropped, stopping past the budget — a
 * size the archive lies about is caught too. Throws a `ZERDA_DOCUMENT_LIMIT` error naming
 * `maxZipEntries` or `maxInflatedBytes`.
 */
export async function checkZipArchive(bytes: Uint8Array, file: string, limits: ResolvedLimits): Promise<void> {
  const entries = entriesOf(bytes, file, limits).filter((entry) => !MEDIA.test(entry.name) && !entry.name.endsWith('/'));
  const declared = entries.reduce((sum, entry) => sum + entry.size, 0);
  const budget = limits.maxInflatedBytes;
  if (declared > budget) throw limitExceeded(file, 'docx', 'maxInflatedBytes', budget, `its parts declare ${declared} bytes uncompressed`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let total = 0;
  for (const entry of entries) {
    if (entry.localOffset + 30 > bytes.byteLength || view.getUint32(entry.localOffset, true) !== 0x04034b50) continue;
    const start = entry.localOffset + 30 + view.getUint16(entry.localOffset + 26, true) + view.getUint16(entry.localOffset + 28, true);
    const data = bytes.subarray(start, Math.min(bytes.byteLength, start + entry.compressedSize));
    total += entry.method === 8 ? await inflatedSize(data, budget - total, 'raw') : data.byteLength;
    if (total > budget) throw limitExceeded(file, 'docx', 'maxInflatedBytes', budget, `its parts inflate to more than ${budget} bytes (${entry.name} alone declares ${entry.size})`);
  }
}

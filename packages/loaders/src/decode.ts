import { unreadable } from './errors.js';

/**
 * Decodes text bytes: a byte-order mark (UTF-8, UTF-16 LE/BE) wins, otherwise `encoding`. Invalid
 * bytes are an error (kind `encoding`), never replacement characters: a wrong encoding would
 * otherwise index garbage silently.
 */
export function decodeText(bytes: Uint8Array, file: string, format: string, encoding = 'utf-8'): string {
  let label = encoding;
  let offset = 0;
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) {
    label = 'utf-8';
    offset = 3;
  } else if (bytes[0] === 0xff && bytes[1] === 0xfe) {
    label = 'utf-16le';
    offset = 2;
  } else if (bytes[0] === 0xfe && bytes[1] === 0xff) {
    label = 'utf-16be';
    offset = 2;
  }
  try {
    return new TextDecoder(label, { fatal: true, ignoreBOM: true }).decode(bytes.subarray(offset));
  } catch (error) {
    throw unreadable(file, format, 'encoding', `its bytes are not valid ${label} text (set the encoding option, e.g. "windows-1256", if it uses another one)`, error);
  }
}

/** True when `label` names an encoding this runtime's TextDecoder knows. */
export function isKnownEncoding(label: string): boolean {
  try {
    new TextDecoder(label);
    return true;
  } catch {
    return false;
  }
}

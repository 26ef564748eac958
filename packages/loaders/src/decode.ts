import { unreadable } from './errors.js';

// How much of a file the binary check looks at.
const SNIFF_BYTES = 64 * 1024;

/**
 * The UTF-16 byte order of text saved without a byte-order mark, or undefined: ASCII characters
 * (spaces, digits, Latin letters) leave a NUL in their high byte, on odd offsets for little-endian
 * and even ones for big-endian, while the other half of the bytes holds (almost) no NUL. The guess
 * is confirmed by decoding: the result must be valid UTF-16 that reads as text.
 */
export function utf16WithoutBom(bytes: Uint8Array): 'utf-16le' | 'utf-16be' | undefined {
  const length = Math.min(bytes.byteLength, SNIFF_BYTES) & ~1;
  if (length < 4) return undefined;
  let evenNul = 0;
  let oddNul = 0;
  for (let index = 0; index < length; index += 2) {
    if (bytes[index] === 0) evenNul++;
    if (bytes[index + 1] === 0) oddNul++;
  }
  const pairs = length / 2;
  // Binary content has NULs on both sides (runs of them); text in another script than Latin has
  // fewer ASCII characters, so a small share of NULs on one side is enough.
  const label = oddNul >= 0.02 * pairs && evenNul <= 0.005 * pairs ? 'utf-16le' : evenNul >= 0.02 * pairs && oddNul <= 0.005 * pairs ? 'utf-16be' : undefined;
  if (!label) return undefined;
  try {
    const text = new TextDecoder(label, { fatal: true }).decode(bytes.subarray(0, length));
    return looksLikeText(text) ? label : undefined;
  } catch {
    return undefined;
  }
}

// Control characters that text does not hold (tab, line breaks, form feed and escape are allowed).
const CONTROL = /[\u0000-\u0008\u000E-\u001A\u001C-\u001F\u007F]/g;

/** True when decoded text holds (almost) no control characters. */
function looksLikeText(text: string): boolean {
  const controls = text.match(CONTROL)?.length ?? 0;
  return controls <= Math.max(0, 0.001 * text.length);
}

/**
 * Refuses binary content in a text format (a tar archive named `.md`, an image named `.txt` …): a
 * NUL byte, or more than 1% control bytes, in the first 64 KiB, unless the bytes are UTF-16 text
 * without a byte-order mark (see {@link utf16WithoutBom}), whose encoding is then returned.
 */
export function checkNotBinary(bytes: Uint8Array, file: string, format: string): 'utf-16le' | 'utf-16be' | undefined {
  const head = bytes.subarray(0, SNIFF_BYTES);
  if ((head[0] === 0xff && head[1] === 0xfe) || (head[0] === 0xfe && head[1] === 0xff)) return undefined;
  let nul = 0;
  let control = 0;
  for (const byte of head) {
    if (byte === 0) nul++;
    else if (byte < 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0c && byte !== 0x0d && byte !== 0x1b) control++;
  }
  if (nul === 0 && control <= 0.01 * head.byteLength) return undefined;
  const utf16 = nul > 0 ? utf16WithoutBom(bytes) : undefined;
  if (utf16) return utf16;
  throw unreadable(file, format, 'binary', nul > 0 ? `it holds binary content (${nul} NUL bytes in its first ${head.byteLength} bytes), not ${format} text` : `it holds binary content (${control} control bytes in its first ${head.byteLength} bytes), not ${format} text`);
}

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

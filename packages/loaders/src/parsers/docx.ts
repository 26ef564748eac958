import mammoth from 'mammoth';
import { unreadable, messageOf } from '../errors.js';
import { checkZipArchive } from '../guards/zip-guard.js';
import { DEFAULT_LIMITS, type ResolvedLimits } from '../limits.js';
import type { ParsedDocument } from '../types.js';
import { htmlToMarkdown } from './html.js';

const OLE_SIGNATURE = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];

/**
 * DOCX, through mammoth: the document's semantic HTML (headings from Word's heading styles, lists,
 * tables) turned into Markdown with the same converter as HTML pages. Title: the first heading.
 * A password-protected DOCX (stored as an OLE container) and a damaged one are errors. The archive
 * is checked first (entry count, inflated size: see `checkZipArchive`), and images are never read
 * (only their alternative text is kept), so media cannot cost memory.
 */
export async function parseDocx(bytes: Uint8Array, file: string, limits: ResolvedLimits = DEFAULT_LIMITS): Promise<ParsedDocument> {
  if (OLE_SIGNATURE.every((byte, index) => bytes[index] === byte)) {
    throw unreadable(file, 'docx', 'encrypted', 'it is an OLE container: a password-protected Word document or a legacy .doc file');
  }
  await checkZipArchive(bytes, file, limits);
  let html: string;
  try {
    const options = { convertImage: mammoth.images.imgElement(() => Promise.resolve({ src: '' })) };
    html = (await mammoth.convertToHtml({ buffer: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) }, options)).value;
  } catch (error) {
    throw unreadable(file, 'docx', 'corrupt', `it is not a readable DOCX file (${messageOf(error)})`, error);
  }
  const text = htmlToMarkdown(html);
  const title = /^#{1,6} (.+)$/m.exec(text)?.[1]?.trim();
  return { text, ...(title ? { title } : {}), metadata: {} };
}

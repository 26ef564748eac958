import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';

const encoder = new TextEncoder();

/**
 * Internal: SHA-256 of a string's UTF-8 bytes, as 64 lower-case hex digits. Synchronous and pure
 * JavaScript (@noble/hashes), so the modules that hash load in browsers and workers as well as in
 * Node (Web Crypto's `digest` is asynchronous, and `node:crypto` exists only in Node-like
 * runtimes). `TextEncoder` turns a lone surrogate into U+FFFD exactly as Node's Buffer does, so
 * every digest equals `createHash('sha256').update(text, 'utf8').digest('hex')`.
 */
export function sha256Hex(text: string): string {
  return bytesToHex(sha256(encoder.encode(text)));
}

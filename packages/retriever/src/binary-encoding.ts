/**
 * Base64 encoding of typed arrays for the JSON form of an index. Bytes are always written
 * little-endian, whatever the platform, so a serialized index loads anywhere.
 */

import { LITTLE_ENDIAN, swapByteOrder } from '@zerda/types';

interface BufferLike {
  from(data: ArrayBuffer | string, byteOffsetOrEncoding?: number | string, length?: number): { toString(encoding: string): string; buffer: ArrayBuffer; byteOffset: number; byteLength: number };
}

/** Node's Buffer when present (fast); the browser falls back to btoa/atob. */
const NodeBuffer = (globalThis as { Buffer?: BufferLike }).Buffer;

function bytesToBase64(bytes: Uint8Array): string {
  if (NodeBuffer) return NodeBuffer.from(bytes.buffer as ArrayBuffer, bytes.byteOffset, bytes.byteLength).toString('base64');
  let binary = '';
  const step = 0x8000;
  for (let start = 0; start < bytes.length; start += step) {
    binary += String.fromCharCode(...bytes.subarray(start, start + step));
  }
  return btoa(binary);
}

function base64ToBytes(text: string): Uint8Array {
  if (NodeBuffer) {
    const decoded = NodeBuffer.from(text, 'base64');
    // Copy into a fresh, aligned buffer: Buffer slices of the shared pool are not 4-byte aligned.
    const copy = new Uint8Array(decoded.byteLength);
    copy.set(new Uint8Array(decoded.buffer, decoded.byteOffset, decoded.byteLength));
    return copy;
  }
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let index = 0; index < binary.length; index++) bytes[index] = binary.charCodeAt(index);
  return bytes;
}


/** Encodes the first `length` elements of a Uint32Array as little-endian base64. */
export function encodeUint32(array: Uint32Array, length = array.length): string {
  const bytes = new Uint8Array(array.buffer, array.byteOffset, length * 4);
  return bytesToBase64(LITTLE_ENDIAN ? bytes : swapByteOrder(bytes, 4));
}

/**
 * Decodes little-endian base64 into a Uint32Array. Returns undefined when the text is not base64
 * of a whole number of 32-bit values, so the caller can report which field is corrupt.
 */
export function decodeUint32(text: unknown): Uint32Array | undefined {
  if (typeof text !== 'string' || !/^[A-Za-z0-9+/]*={0,2}$/.test(text)) return undefined;
  const bytes = base64ToBytes(text);
  if (bytes.length % 4 !== 0) return undefined;
  const ordered = LITTLE_ENDIAN ? bytes : swapByteOrder(bytes, 4);
  return new Uint32Array(ordered.buffer, ordered.byteOffset, ordered.length / 4);
}

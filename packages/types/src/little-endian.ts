/**
 * Typed arrays as little-endian bytes and back: the one byte order zerda writes to disk, whatever
 * the platform, so that a file written on one machine opens on any other. On the (usual)
 * little-endian platforms both directions are views, not copies.
 */

/** True on little-endian platforms (x86, ARM as run by Node, Bun, Deno and browsers). */
export const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** The numeric typed arrays that persisted formats use. */
export type PersistedTypedArray = Uint8Array | Uint16Array | Uint32Array | Int32Array | Float32Array | Float64Array;

type TypedArrayConstructor<T extends PersistedTypedArray> = { new (buffer: ArrayBuffer, byteOffset: number, length: number): T; new (length: number): T; BYTES_PER_ELEMENT: number };

/** Reverses the byte order of every `width`-byte element of `bytes` into a new array. */
export function swapByteOrder(bytes: Uint8Array, width: number): Uint8Array {
  const out = new Uint8Array(bytes.length);
  for (let start = 0; start < bytes.length; start += width) {
    for (let offset = 0; offset < width; offset++) out[start + offset] = bytes[start + width - 1 - offset]!;
  }
  return out;
}

/** The little-endian bytes of `array` (a view on little-endian platforms, a swapped copy elsewhere). */
export function littleEndianBytes(array: PersistedTypedArray): Uint8Array {
  const bytes = new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
  return LITTLE_ENDIAN || array.BYTES_PER_ELEMENT === 1 ? bytes : swapByteOrder(bytes, array.BYTES_PER_ELEMENT);
}

/**
 * Reads little-endian `bytes` as a typed array of `type`. Returns undefined when the byte count is
 * not a whole number of elements (so that the caller can name the corrupt file). Adopts the bytes
 * without copying when they are aligned and the platform is little-endian.
 */
export function fromLittleEndianBytes<T extends PersistedTypedArray>(bytes: Uint8Array, type: TypedArrayConstructor<T>): T | undefined {
  const width = type.BYTES_PER_ELEMENT;
  if (bytes.byteLength % width !== 0) return undefined;
  const length = bytes.byteLength / width;
  if (!LITTLE_ENDIAN && width > 1) {
    const swapped = swapByteOrder(bytes, width);
    return new type(swapped.buffer as ArrayBuffer, 0, length);
  }
  if (bytes.byteOffset % width === 0) return new type(bytes.buffer as ArrayBuffer, bytes.byteOffset, length);
  const copy = new Uint8Array(bytes.byteLength);
  copy.set(bytes);
  return new type(copy.buffer, 0, length);
}

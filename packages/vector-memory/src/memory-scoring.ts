import type { JsonValue, Metadata } from '@zerda/types';

// The scoring kernels of the exact scan, and the copy a stored chunk leaves the store as.

/** Dot product of `query` with the row starting at `base` in `data`. */
export function dotAt(query: Float32Array, data: Float32Array, base: number, dimensions: number): number {
  // Four independent accumulators let the CPU overlap the multiply-adds.
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  let d = 0;
  for (const end = dimensions - 3; d < end; d += 4) {
    s0 += query[d]! * data[base + d]!;
    s1 += query[d + 1]! * data[base + d + 1]!;
    s2 += query[d + 2]! * data[base + d + 2]!;
    s3 += query[d + 3]! * data[base + d + 3]!;
  }
  for (; d < dimensions; d++) s0 += query[d]! * data[base + d]!;
  return s0 + s1 + s2 + s3;
}

/** Squared euclidean distance between `query` and the row starting at `base` in `data`. */
export function squaredDistanceAt(query: Float32Array, data: Float32Array, base: number, dimensions: number): number {
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  let d = 0;
  for (const end = dimensions - 3; d < end; d += 4) {
    const e0 = query[d]! - data[base + d]!;
    const e1 = query[d + 1]! - data[base + d + 1]!;
    const e2 = query[d + 2]! - data[base + d + 2]!;
    const e3 = query[d + 3]! - data[base + d + 3]!;
    s0 += e0 * e0;
    s1 += e1 * e1;
    s2 += e2 * e2;
    s3 += e3 * e3;
  }
  for (; d < dimensions; d++) {
    const e = query[d]! - data[base + d]!;
    s0 += e * e;
  }
  return s0 + s1 + s2 + s3;
}

/** `1 / |vector|` in double precision (0 for a zero vector: it scores 0 against everything). */
export function inverseNorm(vector: ArrayLike<number>, start = 0, end = vector.length): number {
  let sum = 0;
  for (let i = start; i < end; i++) sum += vector[i]! * vector[i]!;
  return sum > 0 ? 1 / Math.sqrt(sum) : 0;
}

/** Deep copy of JSON-safe metadata; several times faster than `structuredClone` for small records. */
function copyJson(value: JsonValue): JsonValue {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(copyJson);
  const out: Record<string, JsonValue> = {};
  for (const key in value) out[key] = copyJson(value[key]!);
  return out;
}

export function copyMetadata(metadata: Metadata): Metadata {
  return copyJson(metadata) as Metadata;
}

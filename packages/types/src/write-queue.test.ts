import { describe, expect, it } from 'vitest';
import { VECTOR_METRICS, isVectorMetric } from './vector-store.js';
import { WriteQueue } from './write-queue.js';

describe('WriteQueue', () => {
  it('runs operations one at a time in call order, and a failure does not block the next', async () => {
    const queue = new WriteQueue();
    const log: string[] = [];
    const slow = queue.run(async () => {
      log.push('a start');
      await new Promise((resolve) => setTimeout(resolve, 10));
      log.push('a end');
      return 1;
    });
    const failing = queue.run(() => {
      log.push('b');
      throw new Error('b failed');
    });
    const last = queue.run(() => (log.push('c'), 3));
    await expect(slow).resolves.toBe(1);
    await expect(failing).rejects.toThrow('b failed');
    await expect(last).resolves.toBe(3);
    expect(log).toEqual(['a start', 'a end', 'b', 'c']);
    await expect(queue.idle()).resolves.toBeUndefined();
  });
});

describe('VECTOR_METRICS', () => {
  it('lists the three metrics once, frozen', () => {
    expect(VECTOR_METRICS).toEqual(['cosine', 'ip', 'l2']);
    expect(Object.isFrozen(VECTOR_METRICS)).toBe(true);
    expect(isVectorMetric('ip')).toBe(true);
    expect(isVectorMetric('dot')).toBe(false);
  });
});

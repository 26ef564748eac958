import { describe, expect, it } from 'vitest';
import * as node from './index.js';
import * as unavailable from './unavailable.js';

describe('the default (non-Node) export', () => {
  it('has every name of the Node implementation, constants equal', () => {
    expect(Object.keys(unavailable).sort()).toEqual(Object.keys(node).sort());
    for (const name of ['LOCK_FILE', 'POINTER_FILE', 'MANIFEST_FILE', 'FILE_MAGIC'] as const) expect(unavailable[name]).toBe(node[name]);
  });

  it('fails every operation with ZERDA_UNSUPPORTED naming it', () => {
    for (const [name, value] of Object.entries(unavailable)) {
      if (typeof value !== 'function') continue;
      let thrown: unknown;
      try {
        (value as (...parameters: unknown[]) => unknown)('/tmp/x');
      } catch (error) {
        thrown = error;
      }
      expect(thrown, name).toMatchObject({ code: 'ZERDA_UNSUPPORTED' });
      expect(String((thrown as Error).message), name).toContain(name.replace(/ .*/, ''));
    }
  });
});

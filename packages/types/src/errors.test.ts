import { describe, expect, it } from 'vitest';
import { ERROR_MESSAGES, ZerdaError, createError, describeValue, invalidArgument } from './index.js';

describe('ZerdaError', () => {
  it('carries code, details, message from the code table and cause', () => {
    const cause = new Error('root');
    const error = createError('ZERDA_INVALID_ARGUMENT', { field: 'chunk.text', expected: 'a string', received: 'number 5' }, cause);
    expect(error).toBeInstanceOf(Error);
    expect(error.code).toBe('ZERDA_INVALID_ARGUMENT');
    expect(error.message).toBe('chunk.text must be a string, got number 5');
    expect(error.details.field).toBe('chunk.text');
    expect(error.cause).toBe(cause);
    expect(error.toJSON()).toMatchObject({ code: 'ZERDA_INVALID_ARGUMENT', details: { field: 'chunk.text' } });
  });

  it('isInstance recognises errors from another copy of the package through the Symbol.for marker', () => {
    const foreign = Object.assign(new Error('x'), { [Symbol.for('zerda.error')]: true });
    expect(ZerdaError.isInstance(foreign)).toBe(true);
    expect(ZerdaError.isInstance(new Error('plain'))).toBe(false);
    expect(ZerdaError.isInstance(null)).toBe(false);
    expect(ZerdaError.isInstance(invalidArgument('a', 'b', 1))).toBe(true);
  });

  it('has a message template for every code', () => {
    for (const [code, template] of Object.entries(ERROR_MESSAGES)) {
      const message = template({ field: 'f', expected: 'e', received: 'r' });
      expect(message.length, code).toBeGreaterThan(5);
    }
  });

  it('describes values briefly', () => {
    expect(describeValue(Number.NaN)).toBe('number NaN');
    expect(describeValue('x'.repeat(100))).toMatch(/^string ".{37}…"$/);
    expect(describeValue([1, 2])).toBe('array(2)');
    expect(describeValue(new Float32Array(3))).toBe('Float32Array(3)');
    expect(describeValue(new Map())).toBe('Map instance');
    expect(describeValue(undefined)).toBe('undefined');
  });
});

describe('option checks', () => {
  it('checkInteger and checkBoolean name the field, the value and the range', async () => {
    const { checkInteger, checkBoolean } = await import('./index.js');
    expect(checkInteger(5, 'options.k', 1, 10)).toBe(5);
    expect(() => checkInteger(0, 'options.k', 1, 10)).toThrow('options.k must be an integer from 1 to 10, got number 0');
    expect(() => checkInteger(2.5, 'options.k', 1, 10)).toThrow('got number 2.5');
    expect(() => checkInteger('3', 'options.k', 1, 10)).toThrow('got string "3"');
    expect(checkBoolean(false, 'options.flag')).toBe(false);
    expect(() => checkBoolean(1, 'options.flag')).toThrow('options.flag must be a boolean, got number 1');
  });
});

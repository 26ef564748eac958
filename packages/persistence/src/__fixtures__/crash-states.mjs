// The states the persistence crash suite saves: several files whose every byte depends on the
// state's label, so that a mix of two states can never pass for either.
export const FILES = ['a.bin', 'b/c.bin', 'b/d.bin', 'e.bin', 'f/g/h.bin', 'i.bin'];
export const FILE_BYTES = 256 * 1024;
const cache = new Map();

export function content(label, file) {
  const key = `${label}:${file}`;
  if (cache.has(key)) return cache.get(key);
  const bytes = new Uint8Array(FILE_BYTES);
  let state = [...`${label}:${file}`].reduce((hash, character) => Math.imul(hash ^ character.charCodeAt(0), 0x01000193), 0x811c9dc5) >>> 0;
  for (let index = 0; index < bytes.length; index++) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    bytes[index] = state >>> 24;
  }
  cache.set(key, bytes);
  return bytes;
}

export const FORMAT = { format: 'zerda-crash-test', formatVersion: 1, producer: 'crash test', zerdaVersion: '0.0.0' };

export async function writeState(writer, label) {
  for (const file of FILES) {
    const bytes = content(label, file);
    // Streamed in pieces, so that a kill can land between two writes of one file.
    await writer.writeFile(file, (function* () {
      for (let start = 0; start < bytes.length; start += 64 * 1024) yield bytes.subarray(start, start + 64 * 1024);
    })());
  }
  await writer.writeFile('label.txt', label);
}

export async function identifyState(reader) {
  const label = new TextDecoder().decode(await reader.readFile('label.txt'));
  for (const file of FILES) {
    const expected = content(label, file);
    const actual = await reader.readFile(file);
    if (actual.length !== expected.length || !Buffer.from(actual).equals(Buffer.from(expected))) return `mix(${label}, ${file})`;
  }
  return label;
}

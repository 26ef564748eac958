import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MODELS_DIRECTORY_VARIABLE, defaultModelsDirectory, findModelFiles, requiredModelFiles, staticGloveModelPath } from './model-location.js';

const saved = process.env[MODELS_DIRECTORY_VARIABLE];
const folders: string[] = [];
function folder(): string {
  const path = mkdtempSync(join(tmpdir(), 'zerda-models-'));
  folders.push(path);
  return path;
}
afterEach(() => {
  if (saved === undefined) delete process.env[MODELS_DIRECTORY_VARIABLE];
  else process.env[MODELS_DIRECTORY_VARIABLE] = saved;
  for (const path of folders.splice(0)) rmSync(path, { recursive: true, force: true });
});

describe('defaultModelsDirectory', () => {
  it('prefers ZERDA_MODELS_DIR', () => {
    const root = folder();
    process.env[MODELS_DIRECTORY_VARIABLE] = root;
    expect(defaultModelsDirectory('/somewhere/else')).toBe(root);
  });

  it('finds the nearest .cache/models in a parent folder, else uses the starting folder', () => {
    delete process.env[MODELS_DIRECTORY_VARIABLE];
    const root = folder();
    const nested = join(root, 'packages', 'bench');
    mkdirSync(nested, { recursive: true });
    expect(defaultModelsDirectory(nested)).toBe(join(nested, '.cache', 'models'));
    mkdirSync(join(root, '.cache', 'models'), { recursive: true });
    expect(defaultModelsDirectory(nested)).toBe(join(root, '.cache', 'models'));
  });
});

describe('staticGloveModelPath', () => {
  it('locates the model folder and reports whether it was built', () => {
    const root = folder();
    const before = staticGloveModelPath(root);
    expect(before).toEqual({
      modelId: 'zerda/glove-sg-100d',
      localModelPath: root,
      directory: join(root, 'zerda', 'glove-sg-100d'),
      available: false,
    });
    mkdirSync(join(before.directory, 'onnx'), { recursive: true });
    writeFileSync(join(before.directory, 'tokenizer.json'), '{}');
    writeFileSync(join(before.directory, 'onnx', 'model_quantized.onnx'), '');
    expect(staticGloveModelPath(root).available).toBe(true);
  });
});

describe('findModelFiles', () => {
  it('accepts each file from the cache folder or the local folder, and lists the missing ones', () => {
    const local = folder();
    const cache = folder();
    const files = requiredModelFiles({ quantized: true, modelFileName: 'model' });
    expect(files).toEqual(['config.json', 'tokenizer.json', 'tokenizer_config.json', 'onnx/model_quantized.onnx']);
    mkdirSync(join(local, 'org', 'm', 'onnx'), { recursive: true });
    mkdirSync(join(cache, 'org', 'm'), { recursive: true });
    writeFileSync(join(local, 'org', 'm', 'onnx', 'model_quantized.onnx'), '');
    writeFileSync(join(cache, 'org', 'm', 'tokenizer.json'), '');
    const search = findModelFiles({ modelId: 'org/m', localModelPath: local, cacheDir: cache, allowLocalModels: true, revision: 'main', files });
    expect(search.searched).toEqual([join(cache, 'org', 'm'), join(local, 'org', 'm')]);
    expect(search.missing).toEqual(['config.json', 'tokenizer_config.json']);
    const cacheOnly = findModelFiles({ modelId: 'org/m', localModelPath: local, cacheDir: cache, allowLocalModels: false, revision: 'v2', files });
    expect(cacheOnly.searched).toEqual([join(cache, 'org', 'm', 'v2')]);
    expect(cacheOnly.missing).toEqual(files);
  });
});

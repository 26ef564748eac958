/** The part of Node's `process` this module uses (declared here: no Node types at run time). */
interface ProcessWithBuiltins {
  getBuiltinModule?: (id: string) => { createRequire?: (url: string) => (id: string) => unknown } | undefined;
}

/**
 * A CommonJS `require` that resolves from `moduleUrl` (pass `import.meta.url`), when the runtime
 * can give one synchronously — Node.js 20.16+, Bun and Deno, through `process.getBuiltinModule`
 * — and `undefined` elsewhere (browsers, Cloudflare Workers). No Node built-in is imported when a
 * module using it loads, so zerda's core packages load in every runtime; code that must stay
 * synchronous (a length counter, a stemmer) loads its data with it where it can, and otherwise
 * asks the caller to await the package's async loader first.
 */
export function nodeRequire(moduleUrl: string): ((id: string) => unknown) | undefined {
  const processObject = (globalThis as { process?: ProcessWithBuiltins }).process;
  if (typeof processObject?.getBuiltinModule !== 'function') return undefined;
  return processObject.getBuiltinModule('node:module')?.createRequire?.(moduleUrl);
}

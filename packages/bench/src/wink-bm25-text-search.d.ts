// wink-bm25-text-search ships no type declarations; the benchmark types the part it uses itself.
declare module 'wink-bm25-text-search' {
  const bm25: () => unknown;
  export default bm25;
}

// @nlpjs/lang-ar ships no type declarations. Only the Snowball stemmer class is used, through the
// low-level Snowball protocol (setCurrent → innerStem → getCurrent) to bypass its unbounded cache.
declare module '@nlpjs/lang-ar' {
  export class StemmerAr {
    constructor();
    setCurrent(value: string): void;
    innerStem(): void;
    getCurrent(): string;
  }
  const lang: { StemmerAr: typeof StemmerAr };
  export default lang;
}

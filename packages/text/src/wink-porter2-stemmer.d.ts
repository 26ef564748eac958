// wink-porter2-stemmer ships no type declarations: its CommonJS export is one function.
declare module 'wink-porter2-stemmer' {
  const stem: (word: string) => string;
  export default stem;
}

// The entry of the browser/worker bundle (see bundle.ts): everything @zerda/context exports.
export * from '@zerda/context';

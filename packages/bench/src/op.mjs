import { ContextEngine } from '@zerda/context';
let t = performance.now();
const engine = await ContextEngine.open(process.argv[2]);
console.log('open', performance.now() - t, engine.size);

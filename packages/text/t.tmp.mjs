import * as text from './dist/index.js';
const parts = ['مُحَمَّدٌ ذهب إلى المكتبة، وقرأ كتاباً عن machine learning في ٢٠٢٤. ', 'The quick brown fox jumps over 3.5 lazy dogs! ', '👩‍👩‍👧 \u200F\u202E ', 'e\u0301 ', '\uD800 '];
let s = ''; let i = 0; while (s.length < 1_000_000) s += parts[i++ % parts.length];
for (const name of Object.keys(text)) { const f = text[name]; if (typeof f !== 'function' || /^[A-Z]/.test(name)) continue; const t = performance.now(); try { f(s); } catch {} const ms = performance.now() - t; if (ms > 100) console.log(name, ms.toFixed(0)); }
const dots = '.'.repeat(100000) + 'x'; let t = performance.now(); text.splitSentences(dots); console.log('dots 100k', (performance.now() - t).toFixed(0));
const br = ('.[' + 'a'.repeat(20)).repeat(20000); t = performance.now(); text.splitSentences(br); console.log('brackets', (performance.now() - t).toFixed(0));

// Sentence features, logistic regression and a simulated budgeted selection (scratch).
import { defaultAnalyzer, splitSentences, normalizeText, words } from '@zerda/text';
import { normalizeForAnswerMatch } from '@zerda/retriever';

const re = (parts) => new RegExp(parts, 'u');
const norm = (s) => normalizeText(s);

// ---- answer types from the question (literal query), English + Arabic
const TYPE_CUES = [
  ['time', /\b(when|what year|which year|what date|what century|which century|how long ago|since when|what time)\b/u, /(^|\s)(متى|متي)(\s|$)|(في|فى) (اي|أي) (عام|سنه|سنة|قرن|تاريخ|يوم|شهر)|ما تاريخ|(^|\s)(تاريخ) /u],
  ['quantity', /\b(how (many|much|large|big|long|far|tall|old|deep|high|wide|fast|heavy)|what (is|was) the (population|area|size|length|height|number|percentage)|population of)\b/u, /(^|\s)(كم|بكم)(\s|$)|ما (عدد|مساحه|مساحة|طول|ارتفاع|نسبه|نسبة|عمر|حجم|سرعه|سرعة|وزن|قيمه|قيمة)|(^|\s)(عدد) /u],
  ['person', /\b(who|whom|whose)\b/u, /^(و|ف)?(من) |(^|\s)من (هو|هي|هم)(\s|$)/u],
  ['place', /\b(where|what country|which country|what city|which city|what state|which state|what region|located)\b/u, /(^|\s)(اين|أين)(\s|$)|(في|فى) (اي|أي) (بلد|دوله|دولة|مدينه|مدينة|منطقه|منطقة|مكان|قاره|قارة)|ما عاصم/u],
  ['reason', /\b(why|what caused|what causes|reason)\b/u, /(^|\s)(لماذا|لم)(\s|$)|ما (سبب|اسباب|أسباب)/u],
  ['definition', /\b(what (is|are|was|were) (a|an|the)?)\b/u, /(^|\s)(ما|ماذا) (هو|هي|هم)?/u],
];
export const TYPES = TYPE_CUES.map(([t]) => t);
export function answerType(query) {
  const q = norm(query);
  for (const [type, en, ar] of TYPE_CUES) if (en.test(q) || ar.test(q)) return type;
  return 'other';
}

const MONTHS = 'january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec|يناير|فبراير|مارس|ابريل|أبريل|مايو|يونيو|يوليو|اغسطس|أغسطس|سبتمبر|اكتوبر|أكتوبر|نوفمبر|ديسمبر|كانون|شباط|اذار|آذار|نيسان|ايار|أيار|حزيران|تموز|اب|آب|ايلول|أيلول|تشرين';
const TIME_RE = new RegExp(`(^|[^0-9])(1[0-9]{3}|20[0-9]{2})([^0-9]|$)|\\b(${MONTHS})\\b|(^|\\s)(${MONTHS})(\\s|$)|centur|decade|\\b(bc|ad|bce|ce)\\b|(^|\\s)(عام|سنه|سنة|القرن|قرن|ميلادي|هجري|م|هـ)(\\s|$)`, 'u');
const NUMBER_RE = /[0-9]|\b(one|two|three|four|five|six|seven|eight|nine|ten|hundred|thousand|million|billion|dozen)\b|(^|\s)(الف|ألف|مليون|مليار|مئه|مئة|مائه|مائة|اثنان|ثلاث|اربع|أربع|خمس|ست|سبع|ثمان|تسع|عشر)/u;
const CAPITALIZED_RUN = /(?:^|[^\p{L}])\p{Lu}\p{Ll}+(?:\s+(?:of|the|de|von|van|al|bin|ibn)?\s*\p{Lu}\p{Ll}+)+/u;
const PLACE_RE = /\b(in|at|near|from)\s+\p{Lu}|(^|\s)(مدينه|مدينة|دوله|دولة|عاصمه|عاصمة|محافظه|محافظة|منطقه|منطقة|جنوب|شمال|شرق|غرب|تقع|يقع)(\s|$)/u;
const REASON_RE = /\b(because|due to|caused|as a result|since|therefore|led to)\b|(^|\s)(بسبب|لان|لأن|نتيجه|نتيجة|اذ|إذ|لذلك|بسب)(\s|$)/u;
const DEFINITION_RE = /\b(is|are|was|were) (a|an|the)\b|\b(refers to|is defined|known as)\b|(^|\s)(هو|هي|يعرف|تعرف|يعد|تعد|يطلق)(\s|$)/u;

export function sentenceCues(text) {
  const raw = text;
  const n = norm(text);
  return {
    time: TIME_RE.test(n) ? 1 : 0,
    quantity: NUMBER_RE.test(n) ? 1 : 0,
    person: CAPITALIZED_RUN.test(raw) ? 1 : 0,
    place: PLACE_RE.test(raw) || PLACE_RE.test(n) ? 1 : 0,
    reason: REASON_RE.test(n) ? 1 : 0,
    definition: DEFINITION_RE.test(n) ? 1 : 0,
  };
}

export const FEATURE_NAMES = [];
function name(n) { if (!FEATURE_NAMES.includes(n)) FEATURE_NAMES.push(n); return n; }

/**
 * Features of every sentence of every candidate: returns [{ rank, chunkIndex, sentences: [{ text, start, end, x: {name: value} }] }]
 */
export function candidateFeatures(ranked, analysis, query, options = {}) {
  const keywords = [...new Set(analysis?.keywords ?? [])];
  const qset = new Set(keywords);
  const type = answerType(query);
  const rawScores = ranked.map((c) => c.scores?.keyword ?? c.scores?.fused ?? c.score);
  const top = Math.max(1e-9, rawScores[0] ?? 0);
  const second = rawScores[1] ?? 0;
  const gap = Math.max(0, (top - second) / top);
  // per-sentence terms and DF over all candidate sentences
  const docs = ranked.map((c) => {
    const sents = splitSentences(c.chunk.text);
    const terms = sents.map((s) => { const set = new Set(); for (const t of defaultAnalyzer.analyze(s.text)) if (qset.has(t)) set.add(t); return set; });
    const titleTerms = new Set(); if (c.chunk.title) for (const t of defaultAnalyzer.analyze(c.chunk.title)) if (qset.has(t)) titleTerms.add(t);
    return { c, sents, terms, titleTerms };
  });
  let count = 0; const df = new Map();
  for (const d of docs) for (const set of d.terms) { count++; for (const t of set) df.set(t, (df.get(t) ?? 0) + 1); }
  const w = new Map(); let total = 0;
  for (const [t, f] of df) { const idf = Math.log(1 + (count - f + 0.5) / (f + 0.5)); w.set(t, idf); total += idf; }
  const cov = (set) => { if (total <= 0) return 0; let s = 0; for (const t of set) s += w.get(t) ?? 0; return s / total; };
  return docs.map((d, r) => {
    const docTerms = new Set(); for (const s of d.terms) for (const t of s) docTerms.add(t);
    const docCov = cov(docTerms);
    const covs = d.terms.map(cov);
    const maxCov = Math.max(0, ...covs);
    const ratio = (rawScores[r] ?? 0) / top;
    return {
      rank: r + 1,
      candidate: d.c,
      sentences: d.sents.map((s, i) => {
        const x = {};
        const set = (k, v) => { x[name(k)] = v; };
        set('bias', 1);
        set('rank1', r === 0 ? 1 : 0); set('rank2', r === 1 ? 1 : 0); set('rank3', r === 2 ? 1 : 0); set('rank4_5', r >= 3 && r <= 4 ? 1 : 0);
        set('logRank', Math.log2(r + 2));
        set('scoreRatio', ratio);
        set('gapTop', r === 0 ? gap : 0);
        set('gapOther', r === 0 ? 0 : gap);
        set('pos0', i === 0 ? 1 : 0); set('pos1', i === 1 ? 1 : 0); set('pos2', i === 2 ? 1 : 0); set('pos3', i === 3 ? 1 : 0);
        set('logPos', Math.log2(i + 2));
        set('cov', covs[i]); set('covIsMax', covs[i] > 0 && covs[i] === maxCov ? 1 : 0);
        set('covPrev', i > 0 ? covs[i - 1] : 0); set('covNext', i + 1 < covs.length ? covs[i + 1] : 0);
        set('docCov', docCov);
        set('titleCov', keywords.length ? d.titleTerms.size / keywords.length : 0);
        set('logLen', Math.log(1 + s.text.length));
        const cues = sentenceCues(s.text);
        for (const t of TYPES) set(`type_${t}`, type === t ? 1 : 0);
        for (const t of TYPES) set(`cue_${t}`, cues[t]);
        for (const t of TYPES) set(`match_${t}`, type === t ? cues[t] : 0);
        set('type_other', type === 'other' ? 1 : 0);
        return { text: s.text, start: s.start, end: s.end, x };
      }),
    };
  });
}

export function vector(x) { return FEATURE_NAMES.map((n) => x[n] ?? 0); }

export function trainLogistic(rows, labels, { epochs = 200, rate = 0.5, l2 = 1e-4 } = {}) {
  const d = rows[0].length; const w = new Float64Array(d);
  // feature scaling
  const mean = new Float64Array(d), sd = new Float64Array(d);
  for (const r of rows) for (let j = 0; j < d; j++) mean[j] += r[j] / rows.length;
  for (const r of rows) for (let j = 0; j < d; j++) sd[j] += (r[j] - mean[j]) ** 2 / rows.length;
  for (let j = 0; j < d; j++) { sd[j] = Math.sqrt(sd[j]) || 1; if (FEATURE_NAMES[j] === 'bias') { mean[j] = 0; sd[j] = 1; } }
  const z = rows.map((r) => r.map((v, j) => (v - mean[j]) / sd[j]));
  // Adam full-batch
  const m = new Float64Array(d), v = new Float64Array(d);
  for (let e = 1; e <= epochs; e++) {
    const g = new Float64Array(d);
    for (let i = 0; i < z.length; i++) {
      let s = 0; for (let j = 0; j < d; j++) s += w[j] * z[i][j];
      const p = 1 / (1 + Math.exp(-s)); const err = p - labels[i];
      for (let j = 0; j < d; j++) g[j] += err * z[i][j] / z.length;
    }
    for (let j = 0; j < d; j++) { g[j] += l2 * w[j]; m[j] = 0.9 * m[j] + 0.1 * g[j]; v[j] = 0.999 * v[j] + 0.001 * g[j] * g[j]; const mh = m[j] / (1 - 0.9 ** e), vh = v[j] / (1 - 0.999 ** e); w[j] -= (rate * 0.1) * mh / (Math.sqrt(vh) + 1e-8); }
  }
  // unscale into raw weights
  const raw = new Float64Array(d); let bias = 0;
  for (let j = 0; j < d; j++) { raw[j] = w[j] / sd[j]; bias -= w[j] * mean[j] / sd[j]; }
  const bi = FEATURE_NAMES.indexOf('bias'); raw[bi] += bias;
  return Object.fromEntries(FEATURE_NAMES.map((n, j) => [n, raw[j]]));
}

export function predict(weights, x) {
  let s = 0; for (const n of FEATURE_NAMES) s += (weights[n] ?? 0) * (x[n] ?? 0);
  return 1 / (1 + Math.exp(-s));
}

export function hasAnswer(text, answers) {
  const t = normalizeForAnswerMatch(text);
  return answers.some((a) => { const n = normalizeForAnswerMatch(a); return n && t.includes(n); });
}

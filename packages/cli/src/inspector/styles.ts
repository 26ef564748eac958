/** The inspector's stylesheet, inlined into every page (no font or stylesheet is ever fetched). */
export const INSPECTOR_CSS = `
:root { --ink: #1d232b; --muted: #5b6675; --line: #d9dee5; --bg: #f6f7f9; --card: #fff; --accent: #0b6bcb; --keep: #1f8a4c; --cut: #b3261e; --warn: #a15c00; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.55 system-ui, "Segoe UI", "Noto Sans", "Noto Naskh Arabic", "DejaVu Sans", sans-serif; color: var(--ink); background: var(--bg); }
header.top { display: flex; flex-wrap: wrap; gap: .75rem; align-items: center; padding: .6rem 1.2rem; background: #14202e; color: #fff; }
header.top .brand { font-weight: 700; letter-spacing: .04em; }
header.top .origin { color: #b9c6d6; font-size: .85em; }
form.query { display: flex; flex-wrap: wrap; gap: .4rem; align-items: center; margin-inline-start: auto; }
form.query label { color: #b9c6d6; font-size: .85em; }
form.query input { font: inherit; padding: .25rem .5rem; border-radius: 4px; border: 1px solid #4a5a6d; }
form.query input[type=search] { width: min(36rem, 70vw); }
form.query input[type=number] { width: 6rem; }
form.query button { font: inherit; padding: .25rem .9rem; border-radius: 4px; border: 0; background: var(--accent); color: #fff; cursor: pointer; }
main { max-width: 72rem; margin: 0 auto; padding: 1rem 1.2rem 3rem; }
h1 { font-size: 1.5rem; margin: .4rem 0; }
h2 { font-size: 1.1rem; margin: 1.6rem 0 .6rem; border-bottom: 1px solid var(--line); padding-bottom: .2rem; }
h2 small { color: var(--muted); font-weight: 400; margin-inline-start: .4rem; }
.analysis, .effective, .raw, .meta, .empty { color: var(--muted); }
.raw { font-size: .8em; margin: .2rem 0 0; }
.notice { background: #fdecea; border: 1px solid #f3b8b2; padding: .6rem .8rem; border-radius: 6px; }
.gauge { display: flex; align-items: center; gap: .8rem; }
.gauge meter { width: 20rem; height: 1.1rem; }
.gauge p { margin: 0; }
.context { background: var(--card); border: 1px solid var(--line); border-radius: 6px; padding: .6rem 1rem; }
.context-block { white-space: pre-wrap; margin: .5rem 0; unicode-bidi: plaintext; }
.chunk { background: var(--card); border: 1px solid var(--line); border-radius: 6px; margin: .7rem 0; padding: .6rem .9rem; }
.chunk.flagged { border-color: var(--cut); box-shadow: 0 0 0 2px #f7d4d1; }
.chunk header { display: flex; flex-wrap: wrap; gap: .4rem; align-items: baseline; }
.chunk .citation { font-weight: 700; color: var(--accent); }
.chunk .source { font-weight: 600; }
.chunk .meta { font-size: .85em; flex-basis: 100%; }
.chunk-body { display: grid; grid-template-columns: minmax(14rem, 20rem) 1fr; gap: 1rem; margin-top: .4rem; }
@media (max-width: 48rem) { .chunk-body { grid-template-columns: 1fr; } }
table { border-collapse: collapse; }
table.factors { width: 100%; font-size: .85em; }
table.factors caption { text-align: start; color: var(--muted); }
table.factors th { text-align: start; font-weight: 400; padding-inline-end: .4rem; white-space: nowrap; }
.bar-cell { width: 100%; }
.bar { display: block; height: .55rem; background: #e8ebf0; border-radius: 3px; overflow: hidden; }
.bar .fill { display: block; height: 100%; background: #7aa7d9; }
.bar .fill.composite { background: var(--accent); }
.num { text-align: end; font-variant-numeric: tabular-nums; padding-inline-start: .4rem; white-space: nowrap; }
.kept-text { white-space: pre-wrap; margin: 0 0 .4rem; unicode-bidi: plaintext; }
.sentences summary { cursor: pointer; color: var(--muted); font-size: .9em; }
.sentences ol { margin: .3rem 0; padding-inline-start: 1.4rem; font-size: .9em; }
.sentence .mark { font-size: .75em; text-transform: uppercase; letter-spacing: .03em; padding: 0 .3rem; border-radius: 3px; }
.sentence.whole .mark { background: #e2f4e9; color: var(--keep); }
.sentence.prefix .mark { background: #fff1db; color: var(--warn); }
.sentence.none .mark { background: #fbe4e2; color: var(--cut); }
.sentence.none .text { color: var(--muted); text-decoration: line-through; text-decoration-color: #d7a09b; }
.sentence .why { color: var(--muted); font-size: .85em; }
.flag { font-size: .75em; padding: 0 .35rem; border-radius: 3px; background: #fff1db; color: var(--warn); }
.flag.injection, .warning.injection { background: #fbe4e2; color: var(--cut); font-weight: 600; }
table.dropped, table.stages { width: 100%; background: var(--card); border: 1px solid var(--line); font-size: .9em; }
table.dropped th, table.dropped td, table.stages th, table.stages td { border-bottom: 1px solid var(--line); padding: .25rem .5rem; text-align: start; }
table.stages td.num { text-align: end; }
.columns { display: grid; grid-template-columns: 1fr 1fr; gap: 1.2rem; }
@media (max-width: 48rem) { .columns { grid-template-columns: 1fr; } }
.verdict.passed { color: var(--keep); font-weight: 600; }
.verdict.failed { color: var(--cut); font-weight: 600; }
.warnings { padding-inline-start: 1.2rem; }
.warning { margin: .2rem 0; padding: .1rem .3rem; border-radius: 3px; }
.warning .severity { font-size: .75em; text-transform: uppercase; color: var(--muted); }
code { font-size: .85em; }
mark.injection { background: #fbe4e2; color: var(--cut); border-bottom: 2px solid var(--cut); padding: 0 .1rem; }
`;

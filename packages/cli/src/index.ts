/**
 * @zerda/cli — the `zerda` command (index, query, inspect, serve, eval) and its parts for programs:
 * `runCli` runs the command line in-process; `renderInspector` renders a `ContextResult` as the
 * inspector page (also at `@zerda/cli/inspector`, free of Node built-ins for browsers).
 */
export { runCli, buildProgram } from './program.js';
export { EXIT, CliError } from './errors.js';
export { processIo, type CliIo } from './io.js';
export { renderInspector, sentencesOf, droppedReason, directionOf, escapeHtml, INSPECTOR_FACTORS, type InspectorOptions } from './inspector/render.js';
export { startInspectorServer, type InspectorServer } from './commands/serve-command.js';
export { evalCommand, formatEvalReport, type EvalOptions, type EvalReport } from './commands/eval-command.js';
export { indexCommand, type IndexCommandOptions, type IndexSummary } from './commands/index-command.js';
export type { IndexManifest, IndexSettings, ManifestEntry, StoreSpec } from './workspace.js';

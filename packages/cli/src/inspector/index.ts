/** The inspector renderer alone: no Node built-in, so it also runs in a browser. */
export { renderInspector, sentencesOf, droppedReason, directionOf, escapeHtml, INSPECTOR_FACTORS, type InspectorOptions } from './render.js';

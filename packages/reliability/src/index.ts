export { fuzz, runCase, defectCount, DEFECT_OUTCOMES, type FuzzOptions, type FuzzReport, type Finding, type Outcome } from './fuzz/runner.js';
export { Generator, ProbeError, isProbeError } from './fuzz/generator.js';
export { Violation, target, type FuzzTarget, type FuzzContext, type ViolationKind } from './fuzz/target.js';
export { formatReport } from './fuzz/report.js';
export { ALL_TARGETS, warmUp } from './fuzz/targets/index.js';

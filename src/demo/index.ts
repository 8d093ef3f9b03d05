/**
 * @module
 * `spillway demo`: the embedded default. An emulated backend in-process and one scripted coding
 * session run twice, plain and through Spillway, with progress lines, a side-by-side summary, a JSON
 * report and a self-contained HTML chart.
 *
 * @example
 * const result = await runDemo({ onProgress: console.log });
 * console.log(formatDemoSummary(result));
 */
export {
  type DemoReport,
  type DemoRunReport,
  type DemoRunVerdictReport,
  type DemoVerdictReport,
  demoReport,
} from './demo-report.js';
export {
  DEMO_PASTE_TOKENS,
  DEMO_TASK,
  type DemoSession,
  demoSession,
  type PlannedCall,
} from './demo-session.js';
export {
  type DemoOutcome,
  type DemoRunVerdict,
  type DemoUnchanged,
  type DemoVerdict,
  demoVerdict,
} from './demo-verdict.js';
export { backendLine, formatDemoSummary, settingLines, summaryRows } from './format-demo-summary.js';
export { CHART_COLORS, renderDemoHtml } from './render-demo-html.js';
export {
  DEMO_DEFAULT_PROFILE,
  DEMO_DEFAULT_SCALE,
  DEMO_DEFAULT_TURNS,
  type DemoResult,
  progressLine,
  type RunDemoOptions,
  runDemo,
} from './run-demo.js';
export {
  type DemoOverflowKind,
  type DemoRequest,
  type DemoRun,
  type RunDemoSessionOptions,
  runDemoSession,
} from './run-demo-session.js';
export { runVerdictLine, verdictLines } from './verdict-lines.js';

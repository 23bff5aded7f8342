// The public contract of `src/policy`: simulate, lint and compile Linkerd-style inbound policy.
export type {
  ClusterSettings,
  DefaultPolicy,
  PolicyProblem,
  PolicyResources,
  Precedence,
  ProxyProtocol,
} from './types.js';
export type { SettingsInput } from './settings.js';
export { DEFAULT_SETTINGS, resolveSettings } from './settings.js';
export type { LoadOptions } from './io/read-dir.js';
export { loadPolicyDir } from './io/read-dir.js';
export { parseYamlDocs } from './resources/yaml-docs.js';
export { readResources } from './resources/load.js';
export type { PortPolicy } from './compile/model.js';
export { PolicyModel } from './compile/model.js';
export { renderModel, renderPortPolicy } from './compile/render.js';
export type { DecideInput } from './api.js';
export { compilePolicy, decide, lintPolicy } from './api.js';
export type { AuthorizeOptions, Client, Decision } from './authorize.js';
export { authorize, parseClient } from './authorize.js';
export type { PolicyRequest } from './routes/request.js';
export { makeRequest } from './routes/request.js';
export type { Template, TemplateHit } from './path-template.js';
export { TemplateRouter, matchTemplate, parseTemplate } from './path-template.js';
export type { PolicyStageOptions } from './stage.js';
export { buildPolicyStage } from './stage.js';
export type {
  Expectation,
  ExpectationResult,
  Expected,
  MatrixCell,
  MatrixOptions,
  MatrixRow,
  PolicyMatrix,
  Reachability,
  Witness,
} from './matrix/index.js';
export {
  checkExpectations,
  clientClasses,
  computeMatrix,
  expectationDiagnostics,
  explainCell,
  matrixCell,
  matrixRow,
  readExpectations,
} from './matrix/index.js';
export { normalizePodRef } from './resources/read-workloads.js';

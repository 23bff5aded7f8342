// The public contract of `src/policy`: simulate, lint and compile Linkerd-style inbound policy,
// and route outbound requests as Linkerd's outbound policy sends them.
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
export type { ReadOptions } from './resources/load.js';
export { readResources } from './resources/load.js';
export type { PortPolicy } from './compile/model.js';
export type { HttpVersion } from './compile/route-labels.js';
export { HTTP_VERSIONS } from './compile/route-labels.js';
export { PolicyModel } from './compile/model.js';
export { renderModel, renderPortPolicy } from './compile/render.js';
export type { DecideInput } from './api.js';
export { compilePolicy, decide, lintPolicy } from './api.js';
export { acceptPolicyFindings, annotationsByObject } from './lint/accepted.js';
export type { AuthorizeOptions, Client } from './authorize.js';
export type { Decision, DecisionJson } from './decision.js';
export { decisionJson } from './decision.js';
export { authorize, parseClient } from './authorize.js';
export type { PolicyRequest } from './routes/request.js';
export { makeRequest } from './routes/request.js';
export type { Template, TemplateHit } from './path-template.js';
export { TemplateRouter, matchTemplate, parseTemplate } from './path-template.js';
export type {
  OutboundBackendChoice,
  OutboundDecision,
  OutboundDecisionJson,
} from './outbound/decision.js';
export { outboundDecisionJson } from './outbound/decision.js';
export { OutboundIndex } from './outbound/outbound-index.js';
export type { OutboundDestination, OutboundInput, OutboundSettings } from './outbound/route.js';
export { parseDestination, routeOutbound } from './outbound/route.js';
export type { PolicyStageOptions } from './stage.js';
export { buildPolicyStage } from './stage.js';
export type {
  Expectation,
  ExpectationResult,
  Expected,
  MatrixCell,
  MatrixOptions,
  MatrixRow,
  OutboundFlow,
  OutboundWitness,
  PolicyMatrix,
  Reachability,
  Witness,
} from './matrix/index.js';
export type { ExpectationResultJson, ExplainedCellJson, MatrixJson } from './matrix/index.js';
export {
  checkExpectations,
  expectationResultJson,
  explainedCellJson,
  matrixJson,
  clientClasses,
  computeMatrix,
  expectationDiagnostics,
  explainCell,
  matrixCell,
  matrixRow,
  flowDestination,
  flowNamespaces,
  flowPolicies,
  flowSummary,
  outboundFlows,
  readExpectations,
} from './matrix/index.js';
export { normalizePodRef } from './resources/read-workloads.js';
export {
  EXTENSION_KINDS,
  POLICY_EXTENSION_SCHEMA_ID,
  policyExtensionSchema,
} from './resources/extension-schema.js';

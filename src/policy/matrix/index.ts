// Who can reach what: the matrix, its explanations and expectations checked against it.
export type { ClientClass, ClientNetwork, ClientTerms, Reach } from './clients.js';
export { clientClasses, clientTerms } from './clients.js';
export type { MatrixCell, MatrixOptions, MatrixRow, PolicyMatrix, Reachability } from './matrix.js';
export { computeMatrix } from './matrix.js';
export type { Witness } from './witness.js';
export { explainCell, matrixCell, matrixRow } from './explain.js';
export type { Expectation, ExpectationResult, Expected } from './expectations.js';
export { checkExpectations, expectationDiagnostics, readExpectations } from './expectations.js';
export type { ExpectationResultJson, ExplainedCellJson, MatrixJson } from './matrix-json.js';
export { expectationResultJson, explainedCellJson, matrixJson } from './matrix-json.js';
export type { OutboundFlow, OutboundOptions } from './outbound.js';
export { clientNamespaces, flowNamespaces, outboundFlows } from './outbound.js';
export type { OutboundWitness } from './outbound-witness.js';
export { flowDestination, flowPolicies, flowSummary } from './outbound-text.js';

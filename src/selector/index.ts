// The selector core's public contract. Everything else in labelwise imports from here.
export { SELECTOR_CODES } from './codes.js';
export type { SelectorCode } from './codes.js';
export type { Labels, ValidationProfile } from './labels.js';
export { labelsFrom, validateLabels, DATUM_HOST_LABEL } from './labels.js';
export type {
  KubernetesSpelling,
  Operator,
  Requirement,
  RequirementOrigin,
  Selector,
} from './model.js';
export {
  EVERYTHING,
  NOTHING,
  requirement,
  selectorOf,
  isEverything,
  validateSelector,
} from './model.js';
export type { ParseOptions } from './syntax/k8s.js';
export { parseSelector } from './syntax/k8s.js';
export {
  formatKubernetes,
  formatKubernetesRequirement,
  formatSelector,
  formatRequirement,
} from './syntax/k8s-print.js';
export type { LabelSelectorObject, LabelSelectorOptions } from './syntax/label-selector.js';
export { fromLabelSelector, toLabelSelector } from './syntax/label-selector.js';
export { parseEqualityList, formatEqualityList } from './syntax/equality.js';
export type { MatchBlockOptions, MatchBlockResult } from './syntax/match-block.js';
export { fromMatchBlock, toMatchBlock } from './syntax/match-block.js';
export type { DockerFilters } from './syntax/docker-filters.js';
export { toDockerFilters, parseDockerFilterText } from './syntax/docker-filters.js';
export type { Predicate } from './compile.js';
export { compile } from './compile.js';
export type { Explanation, ExplainedTerm } from './match.js';
export { matches, explain } from './match.js';
export { normalize, canonicalForm } from './normalize.js';
export type {
  DisjointnessProof,
  OverlapResult,
  SatisfiableResult,
  SubsumesResult,
} from './algebra.js';
export { satisfiable, overlap, subsumes, equivalent } from './algebra.js';
export { SelectorIndex } from './selector-index.js';
export { LabelIndex } from './label-index.js';
export { parseLabelList, parseLabelJson } from './syntax/label-list.js';
export type { SyntaxName } from './syntax/any.js';
export { parseSyntax, SYNTAXES } from './syntax/any.js';

// The labelwise library API: one namespace per module, plus the shared error and finding types.
export { LabelwiseError } from './base/errors.js';
export type { SourceRef, ErrorKind } from './base/errors.js';
export type { Diagnostic, ModuleName, StageResult } from './base/index.js';
export * as selector from './selector/index.js';
export * as anchor from './anchor/index.js';
export * as fleet from './fleet/index.js';
export * as catalog from './catalog/index.js';
export * as policy from './policy/index.js';

// The labelwise library API: one namespace per module, plus the shared error type.
export { LabelwiseError } from './errors.js';
export type { SourceRef, ErrorKind } from './errors.js';
export * as selector from './selector/index.js';

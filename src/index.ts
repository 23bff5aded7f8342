// The labelwise library API: one namespace per module, plus the shared error and finding types.
export { LabelwiseError } from './base/errors.js';
export type { SourceRef, ErrorKind } from './base/errors.js';
// catalog.readCatalogDir and the other loaders read through a RepoReader the caller makes.
export { RepoReader } from './base/io/repo-reader.js';
export type { Diagnostic, ModuleName, StageResult } from './base/index.js';
export * as selector from './selector/index.js';
export * as anchor from './anchor/index.js';
export * as fleet from './fleet/index.js';
export * as catalog from './catalog/index.js';
export * as policy from './policy/index.js';
export * as repo from './repo/index.js';

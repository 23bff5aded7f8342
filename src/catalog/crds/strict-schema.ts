// Moved to base so policy validates Linkerd's CRDs with the same engine.
export * from '../../base/crds/strict-schema.js';

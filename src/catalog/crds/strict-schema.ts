/**
 * An upstream CRD's structural schema as a strict JSON Schema for ajv, the way the API server
 * reads it under `kubectl apply --validate=strict`:
 *
 * - an object schema with `properties` and neither `additionalProperties` nor
 *   `x-kubernetes-preserve-unknown-fields: true` admits no other field (an unknown field is an
 *   error, not dropped);
 * - `x-kubernetes-int-or-string` takes an integer or a string; `nullable` also takes null;
 * - `metadata` at the root is the API server's ObjectMeta, checked by its own known fields;
 * - `format` is left to the API server's own checks (OpenAPI formats such as `int32` are not
 *   JSON Schema's), and descriptions, defaults and `x-kubernetes-*` annotations are dropped.
 *
 * The CEL rules (`x-kubernetes-validations`) are kept aside, by schema node, for cel-rules.ts.
 */

/** JSON Schema or OpenAPI schema object, read without trusting its shape. */
export type SchemaNode = Record<string, unknown>;

const DROPPED = new Set(['description', 'default', 'format', 'example', 'externalDocs']);

/** The fields of ObjectMeta a client may set (k8s.io/apimachinery ObjectMeta). */
const OBJECT_META: SchemaNode = {
  type: 'object',
  additionalProperties: false,
  properties: {
    name: { type: 'string' },
    generateName: { type: 'string' },
    namespace: { type: 'string' },
    labels: { type: 'object', additionalProperties: { type: 'string' } },
    annotations: { type: 'object', additionalProperties: { type: 'string' } },
    finalizers: { type: 'array', items: { type: 'string' } },
    ownerReferences: { type: 'array', items: { type: 'object' } },
    uid: { type: 'string' },
    resourceVersion: { type: 'string' },
    generation: { type: 'integer' },
    creationTimestamp: { type: ['string', 'null'] },
    deletionTimestamp: { type: ['string', 'null'] },
    deletionGracePeriodSeconds: { type: 'integer' },
    managedFields: { type: 'array' },
    selfLink: { type: 'string' },
  },
};

function isNode(value: unknown): value is SchemaNode {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

const BRANCHES = new Set(['anyOf', 'oneOf', 'allOf', 'not']);

/**
 * Converts one node (recursively). `root` marks the document root, whose metadata is ObjectMeta.
 * Inside `anyOf`/`oneOf`/`allOf`/`not` a structural schema only constrains values: `properties`
 * there declare no fields, so a branch never closes its object (`branch`).
 */
export function strictSchema(node: unknown, root = true, branch = false): unknown {
  if (Array.isArray(node)) return node.map((n) => strictSchema(n, false, branch));
  if (!isNode(node)) return node;
  const out: SchemaNode = {};
  for (const [key, value] of Object.entries(node)) {
    if (DROPPED.has(key) || key.startsWith('x-kubernetes-') || key === 'nullable') continue;
    if (BRANCHES.has(key)) {
      out[key] = strictSchema(value, false, true);
      continue;
    }
    if (branch && key === 'additionalProperties' && value === false) continue;
    if (key === 'properties' && isNode(value)) {
      const properties: SchemaNode = {};
      for (const [name, child] of Object.entries(value))
        properties[name] =
          root && name === 'metadata' ? OBJECT_META : strictSchema(child, false, branch);
      out.properties = properties;
    } else out[key] = strictSchema(value, false, branch);
  }
  if (node['x-kubernetes-int-or-string'] === true) {
    delete out.type;
    out.anyOf = [{ type: 'integer' }, { type: 'string' }];
  }
  const preserve = node['x-kubernetes-preserve-unknown-fields'] === true;
  if (!branch && isNode(node.properties) && !preserve && node.additionalProperties === undefined)
    out.additionalProperties = false;
  if (node.nullable === true && typeof out.type === 'string') out.type = [out.type, 'null'];
  return out;
}

/** The openAPIV3Schema of `version` in a CustomResourceDefinition document. */
export function crdVersionSchema(crd: unknown, version: string): SchemaNode | undefined {
  const versions = isNode(crd) && isNode(crd.spec) ? crd.spec.versions : undefined;
  if (!Array.isArray(versions)) return undefined;
  const entry = versions.find((v) => isNode(v) && v.name === version) as SchemaNode | undefined;
  const schema = isNode(entry?.schema) ? entry.schema.openAPIV3Schema : undefined;
  return isNode(schema) ? schema : undefined;
}

/**
 * A copy of `value` with the schema's defaults filled in, as the API server does before it
 * validates (the CEL rules read defaulted fields such as a backendRef's `kind: Service`).
 */
export function withDefaults(schema: unknown, value: unknown): unknown {
  if (!isNode(schema)) return value;
  if (Array.isArray(value)) return value.map((item) => withDefaults(schema.items, item));
  if (!isNode(value)) return value;
  const out: Record<string, unknown> = { ...value };
  const properties = isNode(schema.properties) ? schema.properties : {};
  for (const [name, child] of Object.entries(properties)) {
    if (out[name] === undefined && isNode(child) && child.default !== undefined)
      out[name] = structuredClone(child.default);
    if (out[name] !== undefined) out[name] = withDefaults(child, out[name]);
  }
  if (isNode(schema.additionalProperties))
    for (const key of Object.keys(out))
      if (!(key in properties)) out[key] = withDefaults(schema.additionalProperties, out[key]);
  return out;
}

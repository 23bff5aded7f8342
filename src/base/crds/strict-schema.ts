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

/** Where a schema holds defaults: only those paths are walked and copied. */
export interface DefaultsTree {
  readonly defaults: ReadonlyMap<string, unknown>;
  readonly properties: ReadonlyMap<string, DefaultsTree>;
  readonly items?: DefaultsTree;
  readonly additional?: DefaultsTree;
  readonly declared: ReadonlySet<string>;
}

/** The defaults of a schema, or undefined when it has none. */
export function compileDefaults(schema: unknown): DefaultsTree | undefined {
  if (!isNode(schema)) return undefined;
  const defaults = new Map<string, unknown>();
  const properties = new Map<string, DefaultsTree>();
  const declared = isNode(schema.properties) ? schema.properties : {};
  for (const [name, child] of Object.entries(declared)) {
    if (isNode(child) && child.default !== undefined) defaults.set(name, child.default);
    const tree = compileDefaults(child);
    if (tree !== undefined) properties.set(name, tree);
  }
  const items = compileDefaults(schema.items);
  const additional = compileDefaults(schema.additionalProperties);
  if (
    defaults.size === 0 &&
    properties.size === 0 &&
    items === undefined &&
    additional === undefined
  )
    return undefined;
  return {
    defaults,
    properties,
    declared: new Set(Object.keys(declared)),
    ...(items !== undefined ? { items } : {}),
    ...(additional !== undefined ? { additional } : {}),
  };
}

/**
 * A copy of `value` with the schema's defaults filled in, as the API server does before it
 * validates (the CEL rules read defaulted fields such as a backendRef's `kind: Service`). Only
 * the paths that hold defaults are copied; the rest is shared with `value`.
 */
export function withDefaults(tree: DefaultsTree | undefined, value: unknown): unknown {
  if (tree === undefined) return value;
  if (Array.isArray(value)) {
    const items = tree.items;
    return items === undefined ? value : value.map((item) => withDefaults(items, item));
  }
  if (!isNode(value)) return value;
  const out: Record<string, unknown> = { ...value };
  for (const [name, fallback] of tree.defaults)
    if (out[name] === undefined) out[name] = structuredClone(fallback);
  for (const [name, child] of tree.properties)
    if (out[name] !== undefined) out[name] = withDefaults(child, out[name]);
  if (tree.additional !== undefined)
    for (const key of Object.keys(out))
      if (!tree.declared.has(key)) out[key] = withDefaults(tree.additional, out[key]);
  return out;
}

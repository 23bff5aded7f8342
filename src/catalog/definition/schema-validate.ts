/**
 * JSON Schema validation of catalog files with ajv, reported for people: every error names the
 * file, the line and the JSON path, and says what was expected. The schemas are data passed in
 * (loaded by `io/schemas.ts`), so this file stays pure.
 */
import type { Code } from '../../base/codes.js';
import { Ajv } from 'ajv';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { LabelwiseError, quote } from '../../base/errors.js';
import type { YamlSource } from './yaml-source.js';
import { formatPath } from './yaml-source.js';

/** Human names for the schema's reusable definitions, used in pattern and length messages. */
const DEFINITION_NAMES: Readonly<Record<string, string>> = {
  dnsLabel:
    'a DNS label (lower-case letters, digits and "-", starting with a letter, at most 63 characters)',
  serviceName:
    'a service name: a DNS label of at most 52 characters (lower-case letters, digits and "-", starting with a letter)',
  portName: 'a port name (lower-case letters, digits and "-", at most 15 characters)',
  portNumber: 'a port number from 1 to 65535',
  quantity: 'a Kubernetes quantity such as 10Gi or 500Mi',
  absolutePath: 'an absolute path starting with "/"',
  hostname: 'a lower-case DNS name with at least two labels',
  matchLabels: 'a mapping of label keys to values',
  cidr: 'a CIDR such as 10.0.0.0/8',
  pinnedImage:
    'a pinned image reference: a tag other than "latest" (registry.example.net/proxy:v7.6.0), or a digest (@sha256:…)',
};

/** A compiled validator for one schema. */
export interface SchemaValidator {
  readonly validate: ValidateFunction;
  /** Error code used for this schema's problems, e.g. `CATALOG_SCHEMA`. */
  readonly code: Code;
}

/**
 * A validator instance for the catalog's schemas. Share one across schemas: each instance
 * compiles the draft-07 meta-schema again before its first compile (measured: about a third of
 * the schema set-up time for three instances).
 */
export function catalogAjv(): Ajv {
  return new Ajv({
    allErrors: true,
    verbose: true,
    strict: true,
    strictTuples: false,
    strictRequired: false,
  });
}

/**
 * Compiles a schema object (in `ajv`, by default a fresh {@link catalogAjv}). Throws a plain
 * Error for a broken schema: that is a bug, not input.
 */
export function compileSchema(
  schema: object,
  code: Code,
  ajv: Ajv = catalogAjv(),
): SchemaValidator {
  return { validate: ajv.compile(schema), code };
}

function pathSegments(instancePath: string): (string | number)[] {
  if (instancePath === '') return [];
  return instancePath
    .slice(1)
    .split('/')
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((part) => (/^(0|[1-9][0-9]*)$/.test(part) ? Number(part) : part));
}

function definitionOf(error: ErrorObject): string | undefined {
  const match = /#\/definitions\/([A-Za-z]+)\//.exec(error.schemaPath);
  return match?.[1] === undefined ? undefined : DEFINITION_NAMES[match[1]];
}

/** The object shapes a `oneOf` accepts, e.g. `{entity: ingress} or {namespace, podSelector}`. */
function oneOfShapes(error: ErrorObject): string | undefined {
  const branches = Array.isArray(error.schema) ? (error.schema as unknown[]) : [];
  const shapes = branches.map(branchShape);
  return shapes.length > 0 && shapes.every((s) => s !== undefined)
    ? shapes.join(' or ')
    : undefined;
}

function describe(error: ErrorObject): { message: string; extra?: string; hint?: string } {
  const params = error.params as Record<string, unknown>;
  const found = error.data === undefined ? '' : `found ${JSON.stringify(error.data)}, `;
  switch (error.keyword) {
    case 'required':
      return { message: `missing required field ${quote(String(params.missingProperty))}` };
    case 'additionalProperties': {
      const allowed = Object.keys(
        ((error.parentSchema as { properties?: object } | undefined)?.properties ?? {}) as object,
      ).sort();
      return {
        message: `unknown field ${quote(String(params.additionalProperty))}`,
        extra: String(params.additionalProperty),
        hint: allowed.length > 0 ? `allowed fields here: ${allowed.join(', ')}` : undefined,
      };
    }
    case 'enum':
      return {
        message: `${found}expected one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`,
      };
    case 'const':
      return { message: `${found}expected ${JSON.stringify(params.allowedValue)}` };
    case 'type':
      return { message: `${found}expected ${String(params.type)}` };
    case 'oneOf':
      return {
        message: `${found}expected ${
          definitionOf(error) ??
          (error.instancePath.endsWith('/port')
            ? 'a port number (1-65535) or a port name'
            : (oneOfShapes(error) ?? 'one of the forms documented for this field'))
        }`,
      };
    case 'pattern':
    case 'minLength':
    case 'maxLength':
      return {
        message: `${found}expected ${definitionOf(error) ?? `a string matching ${String(params.pattern ?? error.message)}`}`,
      };
    case 'minimum':
    case 'maximum':
      return { message: `${found}${error.message ?? 'out of range'}` };
    case 'uniqueItems':
      return {
        message: `items ${String(params.j)} and ${String(params.i)} are the same; list each once`,
      };
    default:
      return { message: `${found}${error.message ?? 'is invalid'}` };
  }
}

/** Whether `path` is at or below one of `oneOfPaths` (JSON Pointers). */
function insideOneOf(path: string, oneOfPaths: readonly string[]): boolean {
  return oneOfPaths.some((p) => path === p || path.startsWith(`${p}/`));
}

/** `{entity: ingress}` or `{namespace, podSelector}`: the shape of one `oneOf` object branch. */
function branchShape(branch: unknown): string | undefined {
  const b = branch as { required?: unknown; properties?: Record<string, { const?: unknown }> };
  if (!Array.isArray(b.required) || b.required.length === 0) return undefined;
  const keys = (b.required as unknown[]).map((key) => {
    const constant = b.properties?.[String(key)]?.const;
    return constant === undefined ? String(key) : `${String(key)}: ${String(constant)}`;
  });
  return `{${keys.join(', ')}}`;
}

/**
 * Validates `source.value` against `validator`, returning every problem with file, line, column
 * and JSON path. Errors from inside a `oneOf` branch are folded into the `oneOf` error, and
 * conditional (`if`/`then`/`else`) errors are left to the cross-field rules, which say the same
 * thing in words.
 */
export function validateAgainstSchema(
  source: YamlSource,
  validator: SchemaValidator,
): LabelwiseError[] {
  if (validator.validate(source.value)) return [];
  const errors: LabelwiseError[] = [];
  const seen = new Set<string>();
  const oneOfPaths = (validator.validate.errors ?? [])
    .filter((e) => e.keyword === 'oneOf')
    .map((e) => e.instancePath);
  for (const error of validator.validate.errors ?? []) {
    if (/\/oneOf\/\d+\//.test(error.schemaPath)) continue;
    // A branch reached through `$ref` reports a schemaPath inside the referenced definition
    // (`#/definitions/portNumber/maximum`), so the test above misses it: fold by position too.
    if (error.keyword !== 'oneOf' && insideOneOf(error.instancePath, oneOfPaths)) continue;
    if (error.keyword === 'if' || /^#\/(then|else)\//.test(error.schemaPath)) continue;
    const segments = pathSegments(error.instancePath);
    const { message, extra, hint } = describe(error);
    const full = extra === undefined ? segments : [...segments, extra];
    const shown =
      error.keyword === 'required'
        ? [...segments, String((error.params as { missingProperty: string }).missingProperty)]
        : full;
    const path = formatPath(shown);
    const key = `${path}\u0000${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const { line, col } = source.locate(full);
    errors.push(
      new LabelwiseError(validator.code, path === '' ? message : `${path}: ${message}`, {
        source: { file: source.file, line, col, path: path === '' ? '.' : path },
        hint,
      }),
    );
  }
  // ajv reports in schema order; people read files top to bottom.
  return errors.sort(
    (a, b) =>
      (a.source.line ?? 0) - (b.source.line ?? 0) || (a.source.col ?? 0) - (b.source.col ?? 0),
  );
}

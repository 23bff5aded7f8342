/**
 * Validates custom resources against stored upstream schemas (CRDs, OpenAPI or JSON Schema):
 * strictly (an unknown field is an error, as `kubectl apply --validate=strict` makes it), and
 * with the schemas' CEL rules. Pure: the schema documents come in as data, compiled once per
 * set and per kind on first use. The catalog checks what it renders with it, policy what it reads.
 */
import { Ajv } from 'ajv';
import { RE2JS } from 're2js';
import type { ValidateFunction } from 'ajv';
import type { RuleTree } from './cel-rules.js';
import { compileRules, evaluateRules } from './cel-rules.js';
import type { SchemaNode } from './strict-schema.js';
import type { DefaultsTree } from './strict-schema.js';
import { compileDefaults, crdVersionSchema, strictSchema, withDefaults } from './strict-schema.js';

/** One stored schema (an entry of a SOURCES.json), with its parsed document. */
export interface UpstreamSchemaSource {
  readonly apiVersion: string;
  readonly kind: string;
  readonly file: string;
  readonly format: 'crd' | 'openapi' | 'jsonschema';
  readonly project: string;
  readonly release: string;
  readonly url: string;
  readonly document: unknown;
}

interface Compiled {
  readonly validate: ValidateFunction;
  readonly rules: RuleTree | undefined;
  readonly defaults: DefaultsTree | undefined;
}

export interface KindValidator {
  readonly source: UpstreamSchemaSource;
  readonly openApi: SchemaNode;
  /** Compiled on first use: a large CRD takes a second or more to compile. */
  readonly compiled: () => Compiled;
}

export interface UpstreamValidators {
  /** `apiVersion kind` → validator. */
  readonly kinds: ReadonlyMap<string, KindValidator>;
}

export interface SchemaProblem {
  readonly object: string;
  /** Dotted path inside the object, `''` for the root. */
  readonly path: string;
  readonly message: string;
  /** `Gateway API v1.6.1`. */
  readonly schema: string;
}

/** An ajv regular-expression engine backed by RE2 (the API server's Go regexp semantics). */
const re2Engine = Object.assign(
  (pattern: string) => {
    const re = RE2JS.compile(pattern);
    // ajv keys its pattern cache by toString(): each pattern must print as itself.
    return { test: (text: string) => re.test(text), toString: () => pattern };
  },
  { code: 'RE2JS.compile' },
);

export function isNode(value: unknown): value is SchemaNode {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The OpenAPI schema of a source, before the strict conversion. */
function openApiOf(source: UpstreamSchemaSource): SchemaNode | undefined {
  const version = source.apiVersion.split('/').pop() ?? '';
  if (source.format === 'crd') return crdVersionSchema(source.document, version);
  if (source.format === 'openapi')
    return isNode(source.document) && isNode(source.document.openAPIV3Schema)
      ? source.document.openAPIV3Schema
      : undefined;
  return isNode(source.document) ? source.document : undefined;
}

/** Compiles every source. Throws a plain Error for a broken stored schema (a bug, not input). */
export function compileUpstream(sources: readonly UpstreamSchemaSource[]): UpstreamValidators {
  // Formats are OpenAPI's (int32, cidr), checked by the API server itself: not ajv's business.
  // Patterns are Go regular expressions (RE2: `(?i)` flags, no lookaround): match them with RE2.
  const ajv = new Ajv({
    allErrors: true,
    strict: false,
    validateFormats: false,
    code: { regExp: re2Engine },
  });
  const kinds = new Map<string, KindValidator>();
  for (const source of sources) {
    const openApi = openApiOf(source);
    if (openApi === undefined)
      throw new Error(`${source.file} holds no schema for ${source.apiVersion} ${source.kind}`);
    let compiled: Compiled | undefined;
    kinds.set(`${source.apiVersion} ${source.kind}`, {
      source,
      openApi,
      compiled: () =>
        (compiled ??= {
          validate: ajv.compile(strictSchema(openApi) as object),
          rules: compileRules(openApi),
          defaults: compileDefaults(openApi),
        }),
    });
  }
  return { kinds };
}

function dotted(instancePath: string): string {
  return instancePath
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce(
      (path, part) =>
        /^[0-9]+$/.test(part) ? `${path}[${part}]` : path === '' ? part : `${path}.${part}`,
      '',
    );
}

/** Every problem of `value` under `validator`; paths are prefixed with `prefix`. */
export function checkSchema(
  validator: KindValidator,
  value: unknown,
  object: string,
  prefix: string,
): SchemaProblem[] {
  const schema = `${validator.source.project} ${validator.source.release}`;
  const problems: SchemaProblem[] = [];
  const at = (path: string) => (prefix === '' ? path : path === '' ? prefix : `${prefix}.${path}`);
  const { validate, rules, defaults } = validator.compiled();
  const defaulted = withDefaults(defaults, value);
  if (!validate(defaulted))
    for (const error of validate.errors ?? []) {
      const extra = (error.params as { additionalProperty?: string }).additionalProperty;
      const path = dotted(error.instancePath);
      problems.push({
        object,
        schema,
        path: at(extra === undefined ? path : path === '' ? extra : `${path}.${extra}`),
        message:
          extra !== undefined
            ? `unknown field ${JSON.stringify(extra)}`
            : (error.message ?? 'is invalid'),
      });
    }
  for (const problem of evaluateRules(rules, defaulted))
    problems.push({ object, schema, path: at(problem.path), message: problem.message });
  return problems;
}

/**
 * The JSON Schema of the extension kinds (`policy.labelwise.dev/v1alpha1`), for editors. The
 * enumerations come from the readers' own constants (API version, methods, target kinds, the
 * duration syntax of TimeoutPolicy); the shapes follow the readers in read-extension.ts. The
 * rules that need more than one object (template conflicts inside a group, references that
 * resolve) stay the readers'. Documents of other kinds pass untouched: one policy file
 * usually mixes Linkerd, Gateway API and extension objects.
 */
import { EXTENSION } from './kinds.js';
import { METHODS, TARGET_KINDS } from './read-extension.js';
import { TELEMETRY_METRICS } from '../types.js';

export const POLICY_EXTENSION_SCHEMA_ID =
  'https://labelwise.dev/schemas/policy-extension.schema.json';

const NAME = { type: 'string', minLength: 1 };
const STRING_MAP = { type: 'object', additionalProperties: { type: 'string' } };
const SERVER_REF = {
  type: 'object',
  required: ['kind', 'name'],
  properties: { kind: { const: 'Server' }, name: NAME },
};
const TARGET_REF = {
  type: 'object',
  required: ['kind', 'name'],
  properties: { kind: { enum: [...TARGET_KINDS] }, name: NAME },
};
const REQUIREMENT = {
  type: 'object',
  required: ['key', 'op'],
  properties: {
    key: NAME,
    op: { enum: ['In', 'NotIn', 'Exists', 'DoesNotExist'] },
    values: { type: 'array', items: { type: 'string' } },
  },
};

const ROUTE = {
  type: 'object',
  properties: {
    methods: { type: 'array', items: { enum: [...METHODS] } },
    path: { type: 'string', pattern: '^/' },
    routeGroupRef: { type: 'object', required: ['name'], properties: { name: NAME } },
    labels: STRING_MAP,
  },
  oneOf: [{ required: ['path'] }, { required: ['routeGroupRef'] }],
};

const SPECS: Readonly<Record<string, object>> = {
  HttpRouteGroup: {
    required: ['routes'],
    properties: { routes: { type: 'array', items: ROUTE } },
  },
  HttpRouteBinding: {
    required: ['targetRef', 'routeRefs'],
    properties: {
      targetRef: SERVER_REF,
      routeRefs: {
        type: 'array',
        items: { type: 'object', required: ['name'], properties: { name: NAME } },
      },
    },
  },
  HttpRouteClass: {
    required: ['targetRef', 'routeSelector'],
    properties: { targetRef: SERVER_REF, routeSelector: { type: 'object' } },
  },
  TimeoutPolicy: {
    required: ['targetRef', 'timeout'],
    properties: {
      targetRef: TARGET_REF,
      // The Gateway API duration parseGatewayDuration reads: 1h, 5m, 10s, 500ms and sums.
      timeout: {
        type: 'string',
        minLength: 1,
        pattern: '^(\\d{1,5}h)?(\\d{1,5}m(?!s))?(\\d{1,5}s)?(\\d{1,5}ms)?$',
      },
    },
  },
  HeaderRewritePolicy: {
    required: ['targetRef', 'rules'],
    properties: {
      targetRef: TARGET_REF,
      rules: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            set: STRING_MAP,
            clear: { type: 'array', items: { type: 'string' } },
            match: {
              type: 'array',
              items: {
                type: 'object',
                properties: { header: REQUIREMENT, label: REQUIREMENT },
                oneOf: [{ required: ['header'] }, { required: ['label'] }],
              },
            },
          },
          anyOf: [{ required: ['set'] }, { required: ['clear'] }],
        },
      },
    },
  },
};

const GRPC_SPECS: Readonly<Record<string, object>> = {
  GrpcService: {
    required: ['service'],
    properties: {
      service: { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_]*(\\.[A-Za-z_][A-Za-z0-9_]*)*$' },
      labels: STRING_MAP,
      methods: {
        type: 'array',
        items: {
          type: 'object',
          required: ['name'],
          properties: {
            name: { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_]*$' },
            labels: STRING_MAP,
          },
        },
      },
    },
  },
  GrpcServiceBinding: {
    required: ['targetRef', 'serviceRefs'],
    properties: {
      targetRef: SERVER_REF,
      serviceRefs: {
        type: 'array',
        items: {
          type: 'object',
          required: ['name'],
          properties: { kind: { const: 'GrpcService' }, name: NAME },
        },
      },
    },
  },
  GrpcServiceClass: {
    required: ['targetRef', 'methodSelector'],
    properties: {
      targetRef: {
        type: 'object',
        required: ['kind', 'name'],
        properties: { kind: { const: 'GrpcService' }, name: NAME },
      },
      methodSelector: { type: 'object' },
    },
  },
  TelemetryPolicy: {
    required: ['targetRef', 'metrics'],
    properties: {
      targetRef: TARGET_REF,
      metrics: { type: 'array', items: { enum: [...TELEMETRY_METRICS] } },
      routeLabels: { type: 'array', items: { type: 'string' } },
    },
  },
};

const ALL_SPECS: Readonly<Record<string, object>> = { ...SPECS, ...GRPC_SPECS };

/** The kinds the schema describes, in the order the docs list them. */
export const EXTENSION_KINDS: readonly string[] = Object.keys(ALL_SPECS);

function kindBranch(kind: string): object {
  return {
    if: {
      properties: { apiVersion: { const: EXTENSION }, kind: { const: kind } },
      required: ['apiVersion', 'kind'],
    },
    then: {
      required: ['metadata', 'spec'],
      properties: {
        metadata: { type: 'object', required: ['name'], properties: { name: NAME } },
        spec: { type: 'object', ...ALL_SPECS[kind] },
      },
    },
  };
}

/** The schema of one document of a policy file: extension kinds are checked, others pass. */
export function policyExtensionSchema(): object {
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    $id: POLICY_EXTENSION_SCHEMA_ID,
    title: 'labelwise policy extension',
    description: `${EXTENSION_KINDS.join(', ')} (${EXTENSION}); other kinds are not checked here. See docs/policy.md.`,
    type: 'object',
    allOf: EXTENSION_KINDS.map(kindBranch),
  };
}

/**
 * Readers for the roadmap's gRPC kinds (`policy.labelwise.dev/v1alpha1`): GrpcService (a service
 * and its methods, labelled like group routes), GrpcServiceBinding (services bound to a Server
 * through `serviceRefs`) and GrpcServiceClass (a `methodSelector` over one GrpcService's method
 * labels, the roadmap's TimeoutPolicy target). Schemas are strict: an unknown field is an error.
 */
import { fromLabelSelector } from '../../selector/index.js';
import type {
  GrpcMethod,
  GrpcService,
  GrpcServiceBinding,
  GrpcServiceClass,
  ObjectMeta,
} from '../types.js';
import type { ReadContext } from './read-context.js';
import { readGroupLabels, readServerTarget } from './read-extension.js';

/** A protobuf full name: dot-separated identifiers (`helloworld.Greeter`). */
const SERVICE_NAME = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/;
const METHOD_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export function readGrpcService(ctx: ReadContext, meta: ObjectMeta): GrpcService | undefined {
  ctx.onlyFields(['spec'], ['service', 'methods', 'labels'], 'a GrpcService spec');
  const service = ctx.string(['spec', 'service'], { required: true, nonEmpty: true });
  if (service !== undefined && !SERVICE_NAME.test(service))
    ctx.fail(
      'POLICY_INVALID_FIELD',
      ['spec', 'service'],
      `service ${JSON.stringify(service)} is not a fully qualified gRPC service name like helloworld.Greeter`,
    );
  const labels = readGroupLabels(ctx, ['spec']);
  const methods: GrpcMethod[] = [];
  const seen = new Map<string, number>();
  (ctx.list(['spec', 'methods']) ?? []).forEach((_, i) => {
    const base = ['spec', 'methods', i];
    ctx.onlyFields(base, ['name', 'labels'], 'a method of a GrpcService');
    const name = ctx.string([...base, 'name'], { required: true, nonEmpty: true });
    const methodLabels = readGroupLabels(ctx, base);
    if (name === undefined) return;
    if (!METHOD_NAME.test(name)) {
      ctx.fail(
        'POLICY_INVALID_FIELD',
        [...base, 'name'],
        `method ${JSON.stringify(name)} is not a gRPC method name`,
      );
      return;
    }
    const first = seen.get(name);
    if (first !== undefined) {
      ctx.fail(
        'POLICY_DUPLICATE_GRPC_METHOD',
        [...base, 'name'],
        `method ${name} is listed twice (first at methods[${first}])`,
        'list each method once; give it all its labels there',
      );
      return;
    }
    seen.set(name, i);
    methods.push({ name, labels: methodLabels, at: ctx.at(base) });
  });
  if (service === undefined || ctx.problems.length > 0) return undefined;
  return { meta, service, methods, labels };
}

export function readGrpcServiceBinding(
  ctx: ReadContext,
  meta: ObjectMeta,
): GrpcServiceBinding | undefined {
  ctx.onlyFields(['spec'], ['targetRef', 'serviceRefs'], 'a GrpcServiceBinding spec');
  const server = readServerTarget(ctx);
  const services: string[] = [];
  (ctx.list(['spec', 'serviceRefs'], { required: true }) ?? []).forEach((_, i) => {
    const base = ['spec', 'serviceRefs', i];
    ctx.onlyFields(base, ['group', 'kind', 'name'], 'a serviceRef');
    const kind = ctx.string([...base, 'kind']);
    if (kind !== undefined && kind !== 'GrpcService')
      ctx.fail(
        'POLICY_UNSUPPORTED_REF',
        [...base, 'kind'],
        `a serviceRef must name a GrpcService, found ${JSON.stringify(kind)}`,
      );
    const name = ctx.string([...base, 'name'], { required: true, nonEmpty: true });
    if (name !== undefined) services.push(name);
  });
  if (server === undefined || ctx.problems.length > 0) return undefined;
  return { meta, server, services };
}

export function readGrpcServiceClass(
  ctx: ReadContext,
  meta: ObjectMeta,
): GrpcServiceClass | undefined {
  ctx.onlyFields(['spec'], ['targetRef', 'methodSelector'], 'a GrpcServiceClass spec');
  ctx.onlyFields(['spec', 'targetRef'], ['group', 'kind', 'name'], 'a targetRef');
  const kind = ctx.string(['spec', 'targetRef', 'kind'], { required: true });
  const service = ctx.string(['spec', 'targetRef', 'name'], { required: true, nonEmpty: true });
  if (kind !== undefined && kind !== 'GrpcService')
    ctx.fail(
      'POLICY_UNSUPPORTED_REF',
      ['spec', 'targetRef', 'kind'],
      `targetRef must be a GrpcService, found ${JSON.stringify(kind)}`,
    );
  if (!ctx.has(['spec', 'methodSelector']))
    ctx.fail('POLICY_MISSING_FIELD', ['spec'], 'spec.methodSelector is required');
  const { selector, errors } = fromLabelSelector(ctx.get(['spec', 'methodSelector']), {
    path: 'spec.methodSelector',
    profile: 'none',
  });
  for (const error of errors)
    ctx.fail('POLICY_INVALID_SELECTOR', ['spec', 'methodSelector'], error.message);
  if (service === undefined || selector === undefined || ctx.problems.length > 0) return undefined;
  return { meta, service, methodSelector: selector };
}

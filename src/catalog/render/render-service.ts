/**
 * Renders one resolved service into its Kubernetes objects, validates every object against its
 * schema (the typed models' `validate()`, or the shipped KubeVirt schema), and returns plain data
 * in a stable order. Pure: the KubeVirt validator is passed in.
 */
import type { ValidateFunction } from 'ajv';
import { LabelwiseError } from '../../base/errors.js';
import type { KubeObject, Platform, RenderedService, ResolvedService } from '../types.js';
import { livenessRule, serviceMonitor } from './monitoring.js';
import { baselinePolicy, namespace } from './namespace.js';
import { importerPolicy, workloadPolicy } from './network-policy.js';
import { vpnEgressPolicy } from './vpn-egress.js';
import { certificates, routes } from './routes.js';
import { lanService, service as serviceObject } from './service.js';
import { storageObjects } from './storage.js';
import { virtualMachine } from './vm.js';
import { deployment, disruptionBudget, statefulSet } from './workload.js';
import { pushAll } from '../../base/index.js';

/**
 * Anything that can check itself and become plain data: a typed model, whose own properties are
 * the object (its `toJSON` is a deep copy of them, which {@link sortKeysDeep} makes anyway), or
 * a {@link PlainObject}.
 */
interface Emittable {
  validate(): void;
  toJSON(): unknown;
}

/**
 * An object with no typed model: the VirtualMachine, checked by a compiled JSON Schema, or a
 * Certificate, which only its upstream CRD checks (`validateUpstream`).
 */
class PlainObject implements Emittable {
  constructor(
    private readonly object: Record<string, unknown>,
    private readonly check?: ValidateFunction,
  ) {}

  toJSON(): unknown {
    return this.object;
  }

  validate(): void {
    if (this.check !== undefined && !this.check(this.object)) {
      const detail = (this.check.errors ?? []).map(
        (e) => `${e.instancePath || '/'} ${e.message ?? 'is invalid'}`,
      );
      throw new Error(detail.join(', '));
    }
  }
}

/** What rendering needs besides the service. */
export interface RenderContext {
  readonly platform: Platform;
  /** Compiled `catalog/kubevirt-virtualmachine.schema.json`. */
  readonly validateVirtualMachine: ValidateFunction;
  /**
   * The kinds (`<apiVersion> <kind>`) the caller validates against their upstream CRD with
   * `validateUpstream`. Their typed model's check, an older generation of the same schema, is
   * skipped, so each object is validated once.
   */
  readonly upstreamKinds?: { has(key: string): boolean };
}

/**
 * Copies plain data with every mapping's keys sorted (code-point order), dropping undefined.
 * Arrays keep their order: in Kubernetes objects it carries meaning (args, containers).
 */
export function sortKeysDeep(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeysDeep);
  if (value === null || typeof value !== 'object') return value;
  const source = value as Record<string, unknown>;
  const keys = Object.keys(source);
  // Most mappings are small and many are written in order already: check before sorting.
  if (!ascending(keys)) keys.sort();
  const out: Record<string, unknown> = {};
  for (const key of keys) {
    const item = source[key];
    if (item !== undefined) out[key] = sortKeysDeep(item);
  }
  return out;
}

function ascending(keys: readonly string[]): boolean {
  for (let i = 1; i < keys.length; i++)
    if ((keys[i - 1] as string) > (keys[i] as string)) return false;
  return true;
}

/**
 * Renders `service`. Returns the objects (plain, keys sorted) and one error per object that
 * failed its schema, naming the object; such an object is still returned so the caller can show
 * it, but the result must not be written.
 */
export function renderService(
  service: ResolvedService,
  context: RenderContext,
): { rendered: RenderedService; errors: LabelwiseError[] } {
  const { platform } = context;
  const models: Emittable[] = [namespace(service), baselinePolicy(service, platform)];
  const svc = serviceObject(service, platform);
  if (service.kind === 'vm') {
    models.push(new PlainObject(virtualMachine(service, platform), context.validateVirtualMachine));
  } else if (service.availability.replicas > 1) {
    models.push(statefulSet(service, platform, svc !== undefined), disruptionBudget(service));
  } else {
    models.push(deployment(service, platform));
  }
  if (service.kind === 'container') {
    models.push(
      ...storageObjects(service, platform, { statefulSet: service.availability.replicas > 1 }),
    );
  }
  if (svc !== undefined) models.push(svc);
  const lan = lanService(service, platform);
  if (lan !== undefined) models.push(lan);
  pushAll(models, routes(service, platform));
  for (const certificate of certificates(service, platform))
    models.push(new PlainObject(certificate));
  models.push(workloadPolicy(service, platform));
  const importer = importerPolicy(service, platform);
  if (importer !== undefined) models.push(importer);
  if (service.egress === 'vpn') models.push(vpnEgressPolicy(service, platform));
  const monitor = serviceMonitor(service, platform);
  if (monitor !== undefined) models.push(monitor);
  const rule = livenessRule(service, platform);
  if (rule !== undefined) models.push(rule);

  const errors: LabelwiseError[] = [];
  const objects: KubeObject[] = [];
  for (const model of models) {
    const plain = sortKeysDeep(model instanceof PlainObject ? model.toJSON() : model) as KubeObject;
    try {
      if (context.upstreamKinds?.has(`${plain.apiVersion} ${plain.kind}`) !== true)
        model.validate();
    } catch (error) {
      if (!(error instanceof Error)) throw error;
      errors.push(
        new LabelwiseError(
          'CATALOG_INVALID_OBJECT',
          `${plain.kind}/${plain.metadata.name} does not match its schema: ${error.message}`,
          { source: { file: service.file } },
        ),
      );
    }
    objects.push(plain);
  }
  return { rendered: { service: service.name, objects }, errors };
}

/**
 * GrpcServiceBindings resolved to one route per bound method (or one per service that lists no
 * methods), with the labels GrpcServiceClass selectors see. Built once per model, like the
 * extension routes of HttpRouteBindings in attachments.ts.
 */
import { labelsFrom, matches } from '../../selector/index.js';
import type { Labels } from '../../selector/index.js';
import { objectName } from '../resources/read-context.js';
import {
  BINDING_LABEL,
  GRPC_METHOD_LABEL,
  GRPC_OBJECT_LABEL,
  GRPC_SERVICE_LABEL,
} from '../resources/read-extension.js';
import { key } from './object-key.js';
import { missingServerProblem, refInvalid } from './rejections.js';
import type { Rejections } from './rejections.js';
import type {
  GrpcService,
  GrpcServiceBinding,
  GrpcServiceClass,
  Location,
  PolicyProblem,
  PolicyResources,
  Server,
} from '../types.js';

/** One bound gRPC method (or, `method` absent, every method of the service). */
export interface GrpcMethodRoute {
  readonly binding: GrpcServiceBinding;
  readonly service: GrpcService;
  readonly method?: string;
  readonly labels: Labels;
  readonly at: Location;
}

export class GrpcBindings {
  readonly problems: PolicyProblem[] = [];
  private readonly byServer = new Map<string, GrpcMethodRoute[]>();
  private readonly classesByService = new Map<string, GrpcServiceClass[]>();

  constructor(
    resources: PolicyResources,
    servers: ReadonlyMap<string, Server>,
    private readonly rejections: Rejections,
  ) {
    const services = new Map<string, GrpcService>();
    for (const s of resources.grpcServices ?? [])
      services.set(key(s.meta.namespace, s.meta.name), s);
    for (const c of resources.grpcServiceClasses ?? []) {
      const k = key(c.meta.namespace, c.service);
      const list = this.classesByService.get(k);
      if (list === undefined) this.classesByService.set(k, [c]);
      else list.push(c);
    }
    for (const binding of resources.grpcServiceBindings ?? [])
      this.bind(binding, services, servers);
  }

  routesOf(server: Server): readonly GrpcMethodRoute[] {
    return this.byServer.get(key(server.meta.namespace, server.meta.name)) ?? [];
  }

  /** Classes of the route's GrpcService whose method selector matches its labels. */
  classesMatching(route: GrpcMethodRoute, labels: Labels): GrpcServiceClass[] {
    const k = key(route.service.meta.namespace, route.service.meta.name);
    return (this.classesByService.get(k) ?? []).filter((c) => matches(c.methodSelector, labels));
  }

  private bind(
    binding: GrpcServiceBinding,
    services: ReadonlyMap<string, GrpcService>,
    servers: ReadonlyMap<string, Server>,
  ): void {
    const ns = binding.meta.namespace;
    const serverKey = key(ns, binding.server);
    if (!servers.has(serverKey)) {
      this.problems.push(
        missingServerProblem(
          objectName(binding.meta),
          binding.meta.at,
          { namespace: ns, name: binding.server },
          this.rejections,
          'services',
        ),
      );
      return;
    }
    const out = this.byServer.get(serverKey) ?? [];
    for (const name of binding.services) {
      const service = services.get(key(ns, name));
      if (service === undefined) {
        const rejected = this.rejections.find('GrpcService', ns, name);
        this.problems.push(
          rejected !== undefined
            ? refInvalid(
                objectName(binding.meta),
                binding.meta.at,
                'GrpcService',
                rejected,
                'its methods are not bound',
              )
            : problem(
                'POLICY_GRPC_SERVICE_MISSING',
                binding,
                `GrpcService ${ns}/${name} does not exist, so no method of it is bound`,
              ),
        );
        continue;
      }
      for (const route of methodRoutes(binding, service)) out.push(route);
    }
    this.byServer.set(serverKey, out);
  }
}

/** The routes one service gives one binding: a route per method, or one for the service. */
function methodRoutes(binding: GrpcServiceBinding, service: GrpcService): GrpcMethodRoute[] {
  const base = {
    ...service.labels,
    [GRPC_SERVICE_LABEL]: service.service,
    [GRPC_OBJECT_LABEL]: service.meta.name,
    [BINDING_LABEL]: binding.meta.name,
  };
  if (service.methods.length === 0)
    return [{ binding, service, labels: labelsFrom(base), at: service.meta.at }];
  return service.methods.map((m) => ({
    binding,
    service,
    method: m.name,
    labels: labelsFrom({ ...base, ...m.labels, [GRPC_METHOD_LABEL]: m.name }),
    at: m.at,
  }));
}

function problem(
  code: 'POLICY_GRPC_SERVICE_MISSING',
  binding: GrpcServiceBinding,
  message: string,
): PolicyProblem {
  const at = binding.meta.at;
  return {
    severity: 'error',
    code,
    object: objectName(binding.meta),
    file: at.file,
    line: at.line,
    message,
  };
}

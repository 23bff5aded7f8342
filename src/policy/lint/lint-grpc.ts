/** Lints of the gRPC kinds beyond missing references (those are in lint-servers.ts). */
import { formatSelector, matches } from '../../selector/index.js';
import type { Labels } from '../../selector/index.js';
import type { PolicyModel } from '../compile/model.js';
import { objectName } from '../resources/read-context.js';
import { GRPC_OBJECT_LABEL } from '../resources/read-extension.js';
import type { PolicyProblem } from '../types.js';

/**
 * GrpcServiceClasses that select none of their service's bound methods: policies targeting
 * them apply to nothing. A class whose GrpcService does not exist is `POLICY_TARGET_MISSING`.
 */
export function lintGrpcClasses(model: PolicyModel): PolicyProblem[] {
  const r = model.resources;
  const classes = r.grpcServiceClasses ?? [];
  if (classes.length === 0) return [];
  const methodLabels = new Map<string, Labels[]>();
  for (const server of r.servers) {
    for (const route of model.serverModel(server).routes) {
      if (route.kind !== 'GrpcService') continue;
      const k = `${server.meta.namespace}/${route.labels[GRPC_OBJECT_LABEL] ?? ''}`;
      const list = methodLabels.get(k);
      if (list === undefined) methodLabels.set(k, [route.labels]);
      else list.push(route.labels);
    }
  }
  const services = new Set((r.grpcServices ?? []).map((s) => `${s.meta.namespace}/${s.meta.name}`));
  const out: PolicyProblem[] = [];
  for (const c of classes) {
    const k = `${c.meta.namespace}/${c.service}`;
    if (!services.has(k)) continue;
    const bound = methodLabels.get(k) ?? [];
    if (bound.some((labels) => matches(c.methodSelector, labels))) continue;
    out.push({
      severity: 'warning',
      code: 'POLICY_GRPC_CLASS_SELECTS_NOTHING',
      object: objectName(c.meta),
      file: c.meta.at.file,
      line: c.meta.at.line,
      message:
        bound.length === 0
          ? `GrpcService ${k} is bound to no Server, so policies targeting this class apply to nothing`
          : `method selector ${formatSelector(c.methodSelector) || '(everything)'} matches none of the ${bound.length} bound method route(s) of GrpcService ${k}, so policies targeting this class apply to nothing`,
      hint: 'bind the service with a GrpcServiceBinding, or fix the selector to match its method labels',
    });
  }
  return out;
}

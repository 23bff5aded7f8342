/**
 * What attaches to each Server: accepted routes (parent exists, not conflicted), extension
 * routes from HttpRouteBindings (nested groups flattened), and every policy by target. Built
 * once per model; the per-(pod, port) compilation only looks things up.
 */
import { compareText, pushAll } from '../../base/index.js';
import type { Code } from '../../base/codes.js';
import { labelsFrom, matches } from '../../selector/index.js';
import type { Labels } from '../../selector/index.js';
import { parseTemplate } from '../path-template.js';
import type { Template } from '../path-template.js';
import { objectName } from '../resources/read-context.js';
import {
  BINDING_LABEL,
  GROUP_LABEL,
  METHOD_LABEL,
  PATH_LABEL,
} from '../resources/read-extension.js';
import { compareRoutes } from '../routes/route-table.js';
import { droppedObjectProblems } from './dropped-objects.js';
import { GrpcBindings } from './grpc-services.js';
import { key } from './object-key.js';
import { Rejections, describeRejected, missingServerProblem, refInvalid } from './rejections.js';
import type {
  HeaderRewritePolicy,
  HttpRoute,
  HttpRouteBinding,
  HttpRouteClass,
  HttpRouteGroup,
  Location,
  PolicyProblem,
  PolicyResources,
  PolicyTarget,
  Server,
  TimeoutPolicy,
  ValueMatch,
} from '../types.js';

/** Why a route is or is not used for one of its parents. */
export interface RouteStatus {
  readonly route: HttpRoute;
  readonly parent: string;
  /** `invalid-parent`: the parent Server is in the input but was rejected at load. */
  readonly status:
    'accepted' | 'no-parent' | 'invalid-parent' | 'conflicted' | 'ignored' | 'not-accepted';
  readonly reason: string;
  readonly at: Location;
}

/** An extension route after flattening: one per method (or one for any method). */
export interface ExtensionRoute {
  readonly binding: HttpRouteBinding;
  readonly group: string;
  readonly index: number;
  readonly template: Template;
  readonly methods: readonly string[];
  readonly headers: readonly ValueMatch[];
  readonly queryParams: readonly ValueMatch[];
  readonly labels: Labels;
  readonly at: Location;
}

export class Attachments {
  readonly servers = new Map<string, Server>();
  readonly statuses: RouteStatus[] = [];
  readonly problems: PolicyProblem[] = [];
  /** Objects left out at load, so references to them are not reported as missing. */
  readonly rejections: Rejections;
  /** GrpcServices bound to Servers, and their classes. */
  readonly grpc: GrpcBindings;
  private readonly routesByServer = new Map<string, HttpRoute[]>();
  private readonly extensionByServer = new Map<string, ExtensionRoute[]>();
  private readonly classesByServer = new Map<string, HttpRouteClass[]>();
  private readonly timeoutsByTarget = new Map<string, TimeoutPolicy[]>();
  private readonly rewritesByTarget = new Map<string, HeaderRewritePolicy[]>();

  constructor(resources: PolicyResources) {
    this.rejections = new Rejections(resources.rejected);
    for (const server of resources.servers)
      this.servers.set(key(server.meta.namespace, server.meta.name), server);
    this.attachRoutes(resources.routes);
    this.attachBindings(resources);
    this.grpc = new GrpcBindings(resources, this.servers, this.rejections);
    pushAll(this.problems, this.grpc.problems);
    for (const c of resources.routeClasses)
      push(this.classesByServer, key(c.meta.namespace, c.server), c);
    for (const t of resources.timeoutPolicies)
      push(this.timeoutsByTarget, targetKey(t.meta.namespace, t.target), t);
    for (const r of resources.headerRewritePolicies)
      push(this.rewritesByTarget, targetKey(r.meta.namespace, r.target), r);
    for (const list of this.rewritesByTarget.values())
      list.sort((a, b) => compareRoutes(metaOrder(a), metaOrder(b)));
    pushAll(this.problems, droppedObjectProblems(resources, this.servers));
  }

  /** Accepted HTTPRoutes/GRPCRoutes of a Server, in tie order. */
  routesOf(server: Server): readonly HttpRoute[] {
    return this.routesByServer.get(key(server.meta.namespace, server.meta.name)) ?? [];
  }

  extensionRoutesOf(server: Server): readonly ExtensionRoute[] {
    return this.extensionByServer.get(key(server.meta.namespace, server.meta.name)) ?? [];
  }

  classesOf(server: Server): readonly HttpRouteClass[] {
    return this.classesByServer.get(key(server.meta.namespace, server.meta.name)) ?? [];
  }

  /** Classes of `server` whose selector matches `labels`. */
  classesMatching(server: Server, labels: Labels): HttpRouteClass[] {
    return this.classesOf(server).filter((c) => matches(c.routeSelector, labels));
  }

  timeouts(namespace: string, kind: PolicyTarget['kind'], name: string): readonly TimeoutPolicy[] {
    return this.timeoutsByTarget.get(`${namespace}/${kind}/${name}`) ?? [];
  }

  rewrites(
    namespace: string,
    kind: PolicyTarget['kind'],
    name: string,
  ): readonly HeaderRewritePolicy[] {
    return this.rewritesByTarget.get(`${namespace}/${kind}/${name}`) ?? [];
  }

  private attachRoutes(routes: readonly HttpRoute[]): void {
    const candidates = new Map<string, HttpRoute[]>();
    for (const route of routes) {
      if (route.ignoredBecause !== undefined) this.ignoreRoute(route);
      else this.collectParents(route, candidates);
    }
    for (const [serverKey, list] of candidates) this.acceptOn(serverKey, list);
  }

  /**
   * Linkerd's index refuses the whole route: it attaches to none of its parents. One status, at
   * the parentRef that caused it (or the first Server parent).
   */
  private ignoreRoute(route: HttpRoute): void {
    const cause =
      route.parents.find((p) => p.ignoredBecause === route.ignoredBecause) ??
      route.parents.find((p) => p.inbound);
    if (cause !== undefined)
      this.statuses.push({
        route,
        parent: cause.name,
        status: 'ignored',
        reason: `the whole route is ignored for inbound policy: ${route.ignoredBecause ?? ''}`,
        at: cause.at,
      });
  }

  /** Records the route under each existing Server parent; a status for every other parent. */
  private collectParents(route: HttpRoute, candidates: Map<string, HttpRoute[]>): void {
    for (const parent of route.parents) {
      if (parent.defaultKind === true) {
        // A Gateway parent is none of our business, unless a Server of that name exists.
        if (!this.servers.has(key(route.meta.namespace, parent.name))) continue;
        if (route.parents.some((p) => p.inbound && p.name === parent.name)) continue;
      }
      if (!parent.inbound) {
        this.statuses.push({
          route,
          parent: parent.name,
          status: 'ignored',
          reason: `parentRef ${parent.name} is ignored for inbound policy: ${parent.ignoredBecause ?? ''}`,
          at: parent.at,
        });
        continue;
      }
      const serverKey = key(route.meta.namespace, parent.name);
      if (!this.servers.has(serverKey)) {
        const rejected = this.rejections.find('Server', route.meta.namespace, parent.name);
        this.statuses.push({
          route,
          parent: parent.name,
          status: rejected === undefined ? 'no-parent' : 'invalid-parent',
          reason:
            rejected === undefined
              ? `parent Server ${serverKey} does not exist`
              : `parent ${describeRejected(rejected)}`,
          at: parent.at,
        });
        continue;
      }
      push(candidates, serverKey, route);
    }
  }

  /** Which candidates a Server accepts: written status, then GRPCRoutes over HTTPRoutes. */
  private acceptOn(serverKey: string, list: readonly HttpRoute[]): void {
    // Linkerd accepts one route kind per parent: GRPCRoutes outrank HTTPRoutes.
    const hasGrpc = list.some((r) => r.kind === 'GRPCRoute');
    const accepted: HttpRoute[] = [];
    for (const route of list) {
      const at =
        route.parents.find((p) => p.inbound && key(route.meta.namespace, p.name) === serverKey)
          ?.at ?? route.meta.at;
      const recorded = route.statusParents;
      const written = recorded?.find((p) => key(route.meta.namespace, p.name) === serverKey);
      const base = { route, parent: serverKey, at };
      if (recorded !== undefined && written?.accepted !== true) {
        // The status the cluster wrote decides, as Linkerd's index reads it.
        this.statuses.push({
          ...base,
          status: 'not-accepted',
          reason:
            written === undefined
              ? `its status.parents has no entry for Server ${serverKey}, so Linkerd does not use it`
              : `its status.parents says Accepted is not True for Server ${serverKey}${written.reason === undefined ? '' : ` (${written.reason})`}`,
        });
      } else if (recorded === undefined && hasGrpc && route.kind === 'HTTPRoute') {
        this.statuses.push({
          ...base,
          status: 'conflicted',
          reason: `Server ${serverKey} also has GRPCRoutes, which take precedence over HTTPRoutes`,
        });
      } else {
        this.statuses.push({ ...base, status: 'accepted', reason: 'accepted' });
        if (!accepted.includes(route)) accepted.push(route);
      }
    }
    this.routesByServer.set(
      serverKey,
      accepted.sort((a, b) => compareRoutes(metaOrder(a), metaOrder(b))),
    );
  }

  private attachBindings(resources: PolicyResources): void {
    const groups = new Map<string, HttpRouteGroup>();
    for (const g of resources.routeGroups) groups.set(key(g.meta.namespace, g.meta.name), g);
    for (const binding of resources.routeBindings) {
      const serverKey = key(binding.meta.namespace, binding.server);
      if (!this.servers.has(serverKey)) {
        this.problems.push(
          missingServerProblem(
            objectName(binding.meta),
            binding.meta.at,
            { namespace: binding.meta.namespace, name: binding.server },
            this.rejections,
            'routes',
          ),
        );
        continue;
      }
      const out: ExtensionRoute[] = [];
      for (const name of binding.groups) {
        const group = groups.get(key(binding.meta.namespace, name));
        if (group === undefined) {
          const rejected = this.rejections.find('HttpRouteGroup', binding.meta.namespace, name);
          this.problems.push(
            rejected !== undefined
              ? refInvalid(
                  objectName(binding.meta),
                  binding.meta.at,
                  'route group',
                  rejected,
                  'its routes are not bound',
                )
              : problemAt(
                  'POLICY_ROUTE_GROUP_MISSING',
                  objectName(binding.meta),
                  binding.meta.at,
                  `route group ${binding.meta.namespace}/${name} does not exist`,
                ),
          );
          continue;
        }
        this.flatten(binding, group, groups, labelsFrom({}), [], out);
      }
      const list = this.extensionByServer.get(serverKey) ?? [];
      pushAll(list, out);
      this.extensionByServer.set(serverKey, list);
    }
  }

  private flatten(
    binding: HttpRouteBinding,
    group: HttpRouteGroup,
    groups: Map<string, HttpRouteGroup>,
    inherited: Labels,
    stack: string[],
    out: ExtensionRoute[],
  ): void {
    if (stack.includes(group.meta.name)) {
      this.problems.push(
        problemAt(
          'POLICY_ROUTE_GROUP_CYCLE',
          objectName(group.meta),
          group.meta.at,
          `route groups refer to each other in a cycle: ${[...stack, group.meta.name].join(' → ')}`,
        ),
      );
      return;
    }
    group.routes.forEach((route, index) => {
      const labels = labelsFrom({ ...inherited, ...route.labels });
      if (route.routeGroupRef !== undefined) {
        const inner = groups.get(key(group.meta.namespace, route.routeGroupRef));
        if (inner === undefined) {
          const rejected = this.rejections.find(
            'HttpRouteGroup',
            group.meta.namespace,
            route.routeGroupRef,
          );
          this.problems.push(
            rejected !== undefined
              ? refInvalid(
                  objectName(group.meta),
                  route.at,
                  'nested route group',
                  rejected,
                  'its routes are left out',
                )
              : problemAt(
                  'POLICY_ROUTE_GROUP_MISSING',
                  objectName(group.meta),
                  route.at,
                  `route group ${group.meta.namespace}/${route.routeGroupRef} does not exist`,
                ),
          );
          return;
        }
        this.flatten(binding, inner, groups, labels, [...stack, group.meta.name], out);
        return;
      }
      const template = parseTemplate(route.path ?? '/');
      if ('error' in template) return; // reported at load
      const base: Record<string, string> = {
        ...labels,
        [PATH_LABEL]: template.text,
        [BINDING_LABEL]: binding.meta.name,
        [GROUP_LABEL]: group.meta.name,
      };
      const methods =
        route.methods.length === 0 ? [undefined] : [...route.methods].sort(compareText);
      for (const method of methods) {
        out.push({
          binding,
          group: group.meta.name,
          index,
          template,
          methods: method === undefined ? [] : [method],
          headers: route.headers,
          queryParams: route.queryParams,
          labels: labelsFrom(method === undefined ? base : { ...base, [METHOD_LABEL]: method }),
          at: route.at,
        });
      }
    });
  }
}

function targetKey(namespace: string, target: PolicyTarget): string {
  return `${namespace}/${target.kind}/${target.name}`;
}

function metaOrder(o: { meta: { created: string; name: string } }): {
  created: string;
  name: string;
} {
  return { created: o.meta.created, name: o.meta.name };
}

function push<V>(map: Map<string, V[]>, k: string, value: V): void {
  const list = map.get(k);
  if (list === undefined) map.set(k, [value]);
  else list.push(value);
}

function problemAt(code: Code, object: string, at: Location, message: string): PolicyProblem {
  return { severity: 'error', code, object, file: at.file, line: at.line, message };
}

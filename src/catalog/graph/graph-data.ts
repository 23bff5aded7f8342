/**
 * The service graph of a catalog run, for the build report: `serviceGraph` (nodes and edges) and
 * `serviceGraphSvg` (the same as a self-contained SVG string). Empty when nothing rendered.
 */
import { proveReachability } from '../conformance/check-reachability.js';
import { serviceGraphSvg } from './graph-svg.js';
import { serviceGraph } from './service-graph.js';
import type { ServiceGraph } from './service-graph.js';
import type { CatalogRun } from '../pipeline.js';

export function serviceGraphData(run: Pick<CatalogRun, 'loaded' | 'rendered' | 'reachability'>): {
  serviceGraph?: ServiceGraph;
  serviceGraphSvg?: string;
} {
  const platform = run.loaded.platform;
  if (platform === undefined || run.rendered.length === 0) return {};
  const objects = new Map(run.rendered.map((r) => [r.service, r.objects]));
  // The run's own proof when it has one: the flows are computed once per run.
  const reachability =
    run.reachability ?? proveReachability(run.loaded.services, objects, platform).reachability;
  const graph = serviceGraph(run.loaded.services, reachability);
  return { serviceGraph: graph, serviceGraphSvg: serviceGraphSvg(graph) };
}

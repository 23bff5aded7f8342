/**
 * The service graph of a catalog run, for the build report: `serviceGraph` (nodes and edges) and
 * `serviceGraphSvg` (the same as a self-contained SVG string). Empty when nothing rendered.
 */
import { proveReachability } from '../conformance/check-reachability.js';
import { serviceGraph, serviceGraphSvg } from './service-graph.js';
import type { ServiceGraph } from './service-graph.js';
import type { CatalogRun } from '../pipeline.js';

export function serviceGraphData(run: Pick<CatalogRun, 'loaded' | 'rendered'>): {
  serviceGraph?: ServiceGraph;
  serviceGraphSvg?: string;
} {
  const platform = run.loaded.platform;
  if (platform === undefined || run.rendered.length === 0) return {};
  const objects = new Map(run.rendered.map((r) => [r.service, r.objects]));
  const { reachability } = proveReachability(run.loaded.services, objects, platform);
  const graph = serviceGraph(run.loaded.services, reachability);
  return { serviceGraph: graph, serviceGraphSvg: serviceGraphSvg(graph) };
}

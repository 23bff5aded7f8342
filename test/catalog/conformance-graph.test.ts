// The service graph: edges are the proved flows, and the SVG is self-contained and escaped.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { drawServiceGraph, serviceGraphData, serviceGraphSvg } from '../../src/catalog/index.js';
import { busyGraph } from '../support/graphs.js';
import { runExample } from './helpers.js';

const example = runExample(false);

test('the example graph: services, platform nodes and the flows between them', () => {
  const { serviceGraph: graph, serviceGraphSvg: svg } = serviceGraphData(example);
  assert.ok(graph !== undefined && svg !== undefined);
  const ids = graph.nodes.map((n) => n.id);
  for (const s of example.loaded.services) assert.ok(ids.includes(s.name), s.name);
  assert.ok(ids.includes('gateway') && ids.includes('world'));
  const edge = (from: string, to: string) =>
    graph.edges.find((e) => e.from === from && e.to === to);
  assert.equal(edge('gateway', 'plex')?.ports, 'TCP/32400');
  assert.equal(edge('prometheus', 'blog')?.ports, 'TCP/9113');
  assert.equal(edge('plex', 'blog'), undefined);
  const sonarr = graph.nodes.find((n) => n.id === 'sonarr');
  assert.equal(sonarr?.egress, 'vpn');
  assert.match(svg, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
  // Self-contained: no scripts, no external references (the only URL is the SVG namespace).
  assert.doesNotMatch(svg, /<script|href=|xlink|@import|url\((?!#arrow\))/);
  assert.equal(svg.match(/https?:\/\//g)?.length, 1);
});

test('node labels are escaped, control characters dropped', () => {
  const svg = serviceGraphSvg({
    nodes: [
      {
        id: '<x>&"\'',
        label: '<script>alert(1)</script>\u0007',
        kind: 'service',
        exposure: 'public',
        egress: 'vpn',
      },
    ],
    edges: [{ from: '<x>&"\'', to: '<x>&"\'', ports: 'TCP/1' }],
  });
  assert.doesNotMatch(svg, /<script/);
  assert.ok(!svg.includes(String.fromCharCode(7)));
  assert.match(svg, /&lt;script&gt;/);
  assert.match(svg, /data-id="&lt;x&gt;&amp;&quot;&#39;"/);
});

test('a flow whose label finds no free place is a badge; a picture of its own draws the legend', () => {
  const graph = busyGraph();
  const { svg, legend } = drawServiceGraph(graph);
  assert.ok(legend.length > 0, 'the busy graph has a badge');
  assert.equal(svg, serviceGraphSvg(graph));
  const badges = svg.match(/class="edge-label edge-badge"/g)?.length ?? 0;
  const labels = svg.match(/class="edge-label"/g)?.length ?? 0;
  // Every flow is told: as a label on its arrow, or as a number the legend reads.
  assert.equal(labels + legend.length, graph.edges.length);
  assert.ok(badges <= legend.length);
  for (const { n, edge } of legend)
    assert.ok(svg.includes(`>${n}. ${edge.from} → ${edge.to}: ${edge.ports}</text>`), String(n));
  assert.doesNotMatch(svg, /<script|href=|xlink|@import|url\((?!#arrow\))/);
});

test('an inlined picture takes its id and class, names its marker by them, leaves the legend', () => {
  const graph = busyGraph();
  const own = drawServiceGraph(graph);
  const inlined = drawServiceGraph(graph, { inline: { id: 'g1', className: 'graph' } });
  assert.deepEqual(inlined.legend, own.legend);
  assert.match(
    inlined.svg,
    /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" id="g1" class="graph" /,
  );
  assert.match(inlined.svg, /<marker id="g1-arrow"/);
  assert.doesNotMatch(inlined.svg, /url\((?!#g1-arrow\))|id="arrow"|class="legend"/);
  assert.match(own.svg, /<g class="legend">/);
});

/**
 * Catalog benchmark: render 1,000 generated ServiceDefinitions (parse + schema + defaults +
 * typed construction + validation + YAML emit) and compare with the floor, serialising the same
 * output objects with `yaml` alone: the library's `stringify` with {@link FLOOR_OPTIONS}, the
 * options labelwise wrote manifests with through the library. The floor stays that even though
 * `toYaml` now writes the same bytes by itself (base's manifest writer), so the ratio keeps its
 * meaning. Rendering includes validating every custom resource against its upstream CRD (strict,
 * CEL). Also reports the full run with conformance checks, and the reachability proof alone, per
 * service.
 */
import { stringify } from 'yaml';
import type { BenchReport, BenchResult } from './harness.js';
import { consume, rng, timeOnce } from './harness.js';
import {
  catalogSchemas,
  emitFiles,
  loadCatalog,
  proveReachability,
  renderService,
  runCatalog,
  toYaml,
  upstreamValidators,
  validateUpstream,
} from '../src/catalog/index.js';
import type { CatalogInput, RenderedService } from '../src/catalog/index.js';

const SERVICES = 1000;
const ROUNDS = 5;

/** The floor's options: the yaml library's, as `toYaml` passed them before base's writer. */
const FLOOR_OPTIONS = Object.freeze({
  version: '1.1',
  aliasDuplicateObjects: false,
  lineWidth: 0,
  minContentWidth: 0,
  indent: 2,
  indentSeq: true,
} as const);

const PLATFORM = `domain: home.example.net
gateway: { name: shared, namespace: gateway, listener: https, cilium: { entity: ingress } }
forwardAuth:
  image: quay.io/oauth2-proxy/oauth2-proxy:v7.6.0
  issuerUrl: https://auth.home.example.net/realms/home
  clientSecretName: forward-auth-client
vpn: { nodeSelector: { vpn: "true" }, interface: wg0, excludedCIDRs: [10.0.0.0/8] }
`;

/** Definitions covering every branch, from a fixed seed. */
function generate(count: number): CatalogInput {
  const random = rng(42);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const definitions = [];
  for (let i = 0; i < count; i++) {
    const name = `svc-${String(i).padStart(4, '0')}`;
    const vm = random() < 0.05;
    const lines = [`name: ${name}`];
    if (vm)
      lines.push(
        'kind: vm',
        'source: { vmTemplate: "https://images.example.net/base.qcow2" }',
        'auth: { mode: none }',
      );
    else lines.push(`source: { image: "registry.example.net/${name}:1.${i % 17}" }`);
    lines.push(
      `exposure: ${pick(['internal', 'public'])}`,
      `egress: ${vm ? 'internet' : pick(['internet', 'internet', 'vpn'])}`,
    );
    lines.push('ports: [{ name: http, port: 8080 }, { name: metrics, port: 9100 }]');
    const storage: string[] = [];
    if (random() < 0.6) storage.push('{ name: config, class: longhorn, size: 5Gi }');
    if (!vm && random() < 0.3)
      storage.push('{ name: media, class: bulk, size: 1Ti, export: /tank/media, readOnly: true }');
    if (storage.length > 0) lines.push(`storage: [${storage.join(', ')}]`);
    if (!vm && random() < 0.2) lines.push('availability: { replicas: 3 }');
    if (!vm && random() < 0.1) lines.push('hardware: { gpu: intel-quicksync }');
    if (random() < 0.5)
      lines.push(`ingressRoutes: [{ host: ${name}.home.example.net, port: http }]`);
    if (!vm && random() < 0.3)
      lines.push("auth: { mode: forward-auth, port: http, apiRoutes: ['^/api/'] }");
    if (random() < 0.4) lines.push('observability: { metricsEndpoint: { port: metrics } }');
    if (i > 0 && random() < 0.5) {
      const to = `svc-${String(Math.floor(random() * i)).padStart(4, '0')}`;
      lines.push(`dependencies: [{ to: ${to}, port: 9100 }]`);
    }
    definitions.push({ file: `catalog/${name}.yaml`, text: `${lines.join('\n')}\n` });
  }
  return {
    dir: 'catalog',
    platform: { file: 'catalog/platform.yaml', text: PLATFORM },
    definitions,
  };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

export async function bench(): Promise<BenchReport> {
  const input = generate(SERVICES);
  const schemas = catalogSchemas();
  const upstream = upstreamValidators();

  const renderOnce = (): { rendered: RenderedService[]; files: Record<string, string> } => {
    const loaded = loadCatalog(input, schemas);
    if (loaded.errors.length > 0 || loaded.platform === undefined) {
      throw new Error(
        `benchmark catalog is invalid: ${loaded.errors[0]?.message ?? 'no platform'}`,
      );
    }
    // The kinds validated against their upstream CRD below skip their typed model's check.
    const context = {
      platform: loaded.platform,
      validateVirtualMachine: schemas.virtualMachine,
      upstreamKinds: upstream.kinds,
    };
    const rendered = loaded.services.map((s) => renderService(s, context).rendered);
    // Validation against the upstream CRDs (strict, CEL) is part of rendering.
    let problems = 0;
    for (const r of rendered)
      for (const o of r.objects) problems += validateUpstream(o, upstream).length;
    if (problems > 0) throw new Error(`benchmark catalog renders ${problems} schema problem(s)`);
    return { rendered, files: emitFiles(rendered).files };
  };

  // Warm-up (JIT, ajv and model validator compilation), then check the output once.
  const warm = renderOnce();
  const objects = warm.rendered.flatMap((r) => r.objects);
  if (warm.rendered.length !== SERVICES) throw new Error('not every service rendered');

  const serializeOnce = (): number => {
    let bytes = 0;
    for (const object of objects) bytes += stringify(object, FLOOR_OPTIONS).length;
    for (const r of warm.rendered)
      bytes += stringify({ resources: r.objects.map((o) => o.kind) }, FLOOR_OPTIONS).length;
    return bytes;
  };
  serializeOnce();
  // The rendered files hold exactly what the floor writes.
  for (const object of objects)
    if (toYaml(object) !== stringify(object, FLOOR_OPTIONS))
      throw new Error(`toYaml differs from the floor for ${object.kind} ${object.metadata.name}`);

  const loaded = loadCatalog(input, schemas);
  const objectsByService = new Map(warm.rendered.map((r) => [r.service, r.objects]));
  const proveOnce = () =>
    proveReachability(
      loaded.services,
      objectsByService,
      loaded.platform as NonNullable<typeof loaded.platform>,
    );
  const warmProof = proveOnce();
  const failed = warmProof.results.filter((r) => !r.ok);
  if (failed.length > 0)
    throw new Error(`benchmark catalog fails the reachability proof: ${failed[0]?.message ?? ''}`);

  const validateOnce = (): number => {
    let problems = 0;
    for (const object of objects) problems += validateUpstream(object, upstream).length;
    return problems;
  };
  const renderTimes: number[] = [];
  const proofTimes: number[] = [];
  const validateTimes: number[] = [];
  const serializeTimes: number[] = [];
  const fullTimes: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    // Interleaved, so drift in machine load hits both sides alike.
    const r = await timeOnce(renderOnce);
    consume(Object.keys(r.value.files).length);
    renderTimes.push(r.ms);
    const s = await timeOnce(serializeOnce);
    consume(s.value);
    serializeTimes.push(s.ms);
    const v = await timeOnce(validateOnce);
    consume(v.value);
    validateTimes.push(v.ms);
    const p = await timeOnce(proveOnce);
    consume(p.value.results.length);
    proofTimes.push(p.ms);
    if (round < 2) {
      const f = await timeOnce(() => runCatalog(input, schemas));
      consume(f.value.checks.length);
      fullTimes.push(f.ms);
    }
  }
  const render = median(renderTimes);
  const serialize = median(serializeTimes);
  const full = median(fullTimes);
  const proof = median(proofTimes);
  const validation = median(validateTimes);
  const results: BenchResult[] = [
    {
      name: `render ${SERVICES} services (parse, validate, build, emit)`,
      msTotal: render,
      msPerService: render / SERVICES,
      objects: objects.length,
    },
    {
      name: `yaml.stringify of the same ${objects.length} objects (floor)`,
      msTotal: serialize,
      msPerService: serialize / SERVICES,
    },
    {
      name: `of which upstream CRD validation (strict + CEL)`,
      msTotal: validation,
      msPerService: validation / SERVICES,
    },
    { name: `full run incl. conformance checks`, msTotal: full, msPerService: full / SERVICES },
    {
      name: `reachability proof over ${SERVICES} services`,
      msTotal: proof,
      msPerService: proof / SERVICES,
      flows: warmProof.reachability.flows.length,
      endpoints: warmProof.reachability.endpoints.length,
    },
  ];
  return { module: 'catalog', results, ratios: { render_over_serialize: render / serialize } };
}

/**
 * Rendered objects → files: `<service>/<kind>-<name>.yaml` (lower-case kind), one object per
 * file, plus a `kustomization.yaml` listing them. Same objects, same bytes: keys are already
 * sorted, files are sorted, and the YAML options are fixed here and nowhere else.
 */
import { LabelwiseError } from '../../base/errors.js';
import { MANIFEST_YAML_OPTIONS, ManifestYamlWriter } from '../../base/index.js';
import type { KubeObject, RenderedService } from '../types.js';

/**
 * The fixed YAML options: no line folding, no anchors, block style, two-space indent. Written as
 * YAML 1.1 so every scalar a 1.1 reader would take for something else (`no`, `on`, `y`, `1_000`)
 * is quoted: kubectl and kustomize read manifests with a YAML 1.1 parser, where a namespace named
 * `no` would otherwise become `false`. Quoted scalars read the same under 1.2. Base's manifest
 * writer gives the bytes the yaml library's `stringify` gives with these options.
 */
export const YAML_OPTIONS = MANIFEST_YAML_OPTIONS;

/** The file name of one object inside its service directory. */
export function objectFileName(object: Pick<KubeObject, 'kind' | 'metadata'>): string {
  return `${object.kind.toLowerCase()}-${object.metadata.name}.yaml`;
}

/**
 * Serialises one object as a YAML document. `writer` is the batch's, when there is one: it
 * remembers how it wrote each string.
 */
export function toYaml(object: unknown, writer = new ManifestYamlWriter()): string {
  return writer.write(object);
}

export const RENDER_HEADER =
  '# Rendered by labelwise catalog render. Do not edit: change the ServiceDefinition and re-render.\n';

/**
 * The files of rendered services, keyed `<service>/<file>`, in sorted order. A second object
 * with the same file name (two routes whose hosts map to one name) is an error, not an overwrite.
 */
export function emitFiles(services: readonly RenderedService[]): {
  files: Record<string, string>;
  errors: LabelwiseError[];
} {
  const files: Record<string, string> = {};
  const errors: LabelwiseError[] = [];
  const writer = new ManifestYamlWriter();
  for (const rendered of [...services].sort((a, b) =>
    a.service < b.service ? -1 : a.service > b.service ? 1 : 0,
  )) {
    const names: string[] = [];
    const own: Record<string, string> = {};
    for (const object of rendered.objects) {
      const name = objectFileName(object);
      if (own[name] !== undefined) {
        errors.push(
          new LabelwiseError(
            'CATALOG_NAME_COLLISION',
            `service ${rendered.service} renders two ${object.kind} objects named ${object.metadata.name}`,
            { source: { path: `${rendered.service}/${name}` } },
          ),
        );
        continue;
      }
      own[name] = RENDER_HEADER + toYaml(object, writer);
      names.push(name);
    }
    names.sort();
    own['kustomization.yaml'] =
      RENDER_HEADER +
      toYaml(
        {
          apiVersion: 'kustomize.config.k8s.io/v1beta1',
          kind: 'Kustomization',
          resources: names,
        },
        writer,
      );
    for (const name of Object.keys(own).sort())
      files[`${rendered.service}/${name}`] = own[name] as string;
  }
  return { files, errors };
}

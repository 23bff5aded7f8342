/**
 * Compose files → the little of a Compose project the anchor check needs: the project name and,
 * per service, environment, labels, command and networks, each value with the file and line it
 * came from. Pure: takes file texts, returns the merged project and every problem found.
 *
 * Merging follows Docker Compose for these fields: files apply in order; `environment` and
 * `labels` merge per key (list and mapping forms alike); `command` and `network_mode` are
 * replaced; `networks` of a service are unioned. Variables (`$VAR`, `${VAR}`, `${VAR:-def}`,
 * `${VAR-def}`, `${VAR:?msg}`, `$$`) are interpolated from the variables given (the shell
 * environment over the project's `.env`).
 */
import { LineCounter, isMap, isScalar, isSeq, parseDocument } from 'yaml';
import type { Document, Node } from 'yaml';
import { compareStrings } from '../../selector/index.js';
import { interpolate, normalizeProjectName, splitCommand } from './compose-text.js';
import { effectivePairs, pairKeyOf, pairValue, scalarText } from './yaml-pairs.js';

/** A value and where it was written. */
export interface Located<T> {
  readonly value: T;
  readonly file: string;
  readonly line: number;
}

export interface ComposeService {
  readonly name: string;
  readonly file: string;
  readonly line: number;
  /**
   * `undefined` value: listed without a value (passed through from the shell or `.env`) and not
   * set in the variables given.
   */
  readonly environment: ReadonlyMap<string, Located<string | undefined>>;
  readonly labels: ReadonlyMap<string, Located<string>>;
  /** The command as an argument list. */
  readonly command: Located<readonly string[]> | undefined;
  readonly networks: readonly string[];
  readonly networkMode: string | undefined;
}

export interface ComposeProject {
  readonly name: string;
  readonly services: readonly ComposeService[];
  /** Top-level networks that enable IPv6. */
  readonly ipv6Networks: ReadonlySet<string>;
}

/** A problem in the Compose files, located. */
export interface ComposeIssue {
  readonly severity: 'error' | 'warning';
  readonly code: string;
  readonly message: string;
  readonly file: string;
  readonly line?: number;
  readonly service?: string;
}

export interface ComposeFile {
  /** As it should appear in messages (relative to the repository root or cwd). */
  readonly path: string;
  readonly text: string;
}

export interface ComposeLoadOptions {
  /** `--project`: wins over `name:`. Default: none. */
  readonly project?: string | undefined;
  /** Name of the directory holding the first file, the fallback project name. */
  readonly directoryName: string;
  /** Variables for interpolation. Default: none. */
  readonly variables?: Readonly<Record<string, string | undefined>>;
}

interface MutableService {
  name: string;
  file: string;
  line: number;
  environment: Map<string, Located<string | undefined>>;
  labels: Map<string, Located<string>>;
  command: Located<readonly string[]> | undefined;
  networks: Set<string>;
  networkMode: string | undefined;
}

/**
 * Parses and merges Compose files. Never throws for bad input: YAML and shape problems come
 * back as located errors, and what could be read is still returned.
 */
export function loadComposeProject(
  files: readonly ComposeFile[],
  options: ComposeLoadOptions,
): { project: ComposeProject; issues: ComposeIssue[] } {
  const issues: ComposeIssue[] = [];
  const services = new Map<string, MutableService>();
  const ipv6Networks = new Set<string>();
  let declaredName: string | undefined;
  const variables = options.variables ?? {};

  for (const file of files) {
    const lineCounter = new LineCounter();
    const doc: Document = parseDocument(file.text, {
      lineCounter,
      uniqueKeys: true,
      prettyErrors: false,
      merge: true,
    });
    const lineOf = (node: unknown): number | undefined => {
      const range = (node as Node | null | undefined)?.range;
      return range === undefined || range === null ? undefined : lineCounter.linePos(range[0]).line;
    };
    const issue = (
      severity: 'error' | 'warning',
      code: string,
      message: string,
      node?: unknown,
      service?: string,
    ): void => {
      const line = lineOf(node);
      issues.push({
        severity,
        code,
        message,
        file: file.path,
        ...(line !== undefined ? { line } : {}),
        ...(service !== undefined ? { service } : {}),
      });
    };
    for (const error of doc.errors) {
      issues.push({
        severity: 'error',
        code: 'ANCHOR_COMPOSE_YAML',
        message: error.message.split('\n')[0] ?? 'invalid YAML',
        file: file.path,
        line: lineCounter.linePos(error.pos[0]).line,
      });
    }
    if (doc.errors.length > 0) continue;
    const text = (value: string, node: unknown, service: string | undefined): string => {
      const result = interpolate(value, variables);
      for (const p of result.problems)
        issue(p.severity, 'ANCHOR_COMPOSE_VARIABLE', p.message, node, service);
      return result.text;
    };
    const root = doc.contents;
    if (root === null) continue;
    if (!isMap(root)) {
      issue('error', 'ANCHOR_COMPOSE_SHAPE', 'a Compose file must be a mapping', root);
      continue;
    }
    const nameNode = root.get('name', true);
    if (nameNode !== undefined) {
      const name = scalarText(nameNode);
      if (name === undefined)
        issue('error', 'ANCHOR_COMPOSE_SHAPE', '"name" must be a string', nameNode);
      else declaredName = text(name, nameNode, undefined);
    }
    if (root.has('include'))
      issue(
        'warning',
        'ANCHOR_COMPOSE_UNSUPPORTED',
        '"include" is not followed by the anchor check; pass the included files too',
        root.get('include', true),
      );
    const networks = root.get('networks', true);
    if (isMap(networks)) {
      for (const pair of networks.items) {
        const name = scalarText(pair.key);
        if (name !== undefined && isMap(pair.value) && pair.value.get('enable_ipv6') === true)
          ipv6Networks.add(name);
      }
    }
    const servicesNode = root.get('services', true);
    if (servicesNode === undefined) continue;
    if (!isMap(servicesNode)) {
      issue(
        'error',
        'ANCHOR_COMPOSE_SHAPE',
        '"services" must be a mapping of service names',
        servicesNode,
      );
      continue;
    }
    for (const pair of servicesNode.items) {
      const name = scalarText(pair.key);
      if (name === undefined) continue;
      const bodyNode = pair.value;
      if (!isMap(bodyNode)) {
        if (bodyNode !== null)
          issue(
            'error',
            'ANCHOR_COMPOSE_SHAPE',
            `service ${JSON.stringify(name)} must be a mapping`,
            pair.key,
            name,
          );
        continue;
      }
      const bodyPairs = effectivePairs(bodyNode, doc);
      const body = { get: (key: string): unknown => pairValue(bodyPairs, key) };
      let service = services.get(name);
      if (service === undefined) {
        service = {
          name,
          file: file.path,
          line: lineOf(pair.key) ?? 1,
          environment: new Map(),
          labels: new Map(),
          command: undefined,
          networks: new Set(),
          networkMode: undefined,
        };
        services.set(name, service);
      }
      const target = service;
      const readPairs = (field: 'environment' | 'labels'): void => {
        const node = body.get(field);
        if (node === undefined || node === null) return;
        const set = (key: string, value: string | undefined, at: unknown): void => {
          const line = lineOf(at) ?? target.line;
          if (field === 'labels') {
            target.labels.set(key, { value: value ?? '', file: file.path, line });
          } else {
            // `KEY` without a value passes the variable through from where Compose runs (the
            // shell, then the project's .env); unset there, it is unset in the container too.
            const passed = Object.prototype.hasOwnProperty.call(variables, key)
              ? variables[key]
              : undefined;
            const resolved = value ?? (typeof passed === 'string' ? passed : undefined);
            target.environment.set(key, { value: resolved, file: file.path, line });
          }
        };
        if (isMap(node)) {
          for (const item of effectivePairs(node, doc)) {
            const key = scalarText(item.key);
            if (key === undefined) continue;
            // `KEY:` parses as a null scalar (or no node at all): no value was written.
            const unvalued =
              item.value === null || (isScalar(item.value) && item.value.value === null);
            const raw = unvalued ? undefined : scalarText(item.value);
            if (!unvalued && raw === undefined) {
              issue(
                'error',
                'ANCHOR_COMPOSE_SHAPE',
                `${field}.${key} must be a string, number or boolean`,
                item.key,
                name,
              );
              continue;
            }
            // A label with a null value is the empty string; an environment key without value
            // passes the shell's value through.
            set(
              key,
              raw === undefined
                ? field === 'labels'
                  ? ''
                  : undefined
                : text(raw, item.value, name),
              item.key,
            );
          }
        } else if (isSeq(node)) {
          for (const item of node.items) {
            const raw = scalarText(item);
            if (raw === undefined) {
              issue(
                'error',
                'ANCHOR_COMPOSE_SHAPE',
                `${field} entries must be strings "KEY=VALUE"`,
                item,
                name,
              );
              continue;
            }
            const at = raw.indexOf('=');
            if (at < 0) set(raw, field === 'labels' ? '' : undefined, item);
            else set(raw.slice(0, at), text(raw.slice(at + 1), item, name), item);
          }
        } else {
          issue(
            'error',
            'ANCHOR_COMPOSE_SHAPE',
            `${field} must be a mapping or a list`,
            node,
            name,
          );
        }
      };
      const extendsNode = body.get('extends');
      if (extendsNode !== undefined && extendsNode !== null) {
        issue(
          'warning',
          'ANCHOR_COMPOSE_UNSUPPORTED',
          `service ${JSON.stringify(name)}: "extends" is not followed by the anchor check; its labels and environment are not seen`,
          pairKeyOf(bodyPairs, 'extends'),
          name,
        );
      }
      const envFileNode = body.get('env_file');
      if (envFileNode !== undefined && envFileNode !== null) {
        issue(
          'warning',
          'ANCHOR_COMPOSE_UNSUPPORTED',
          `service ${JSON.stringify(name)}: "env_file" is not followed by the anchor check; variables set only there are not seen (set ANCHORD_* under "environment")`,
          pairKeyOf(bodyPairs, 'env_file'),
          name,
        );
      }
      readPairs('environment');
      readPairs('labels');
      const commandNode = body.get('command');
      if (commandNode !== undefined && commandNode !== null) {
        const raw = scalarText(commandNode);
        if (raw !== undefined) {
          target.command = {
            value: splitCommand(text(raw, commandNode, name)),
            file: file.path,
            line: lineOf(commandNode) ?? target.line,
          };
        } else if (isSeq(commandNode)) {
          const args = commandNode.items.map((item) => scalarText(item) ?? '');
          target.command = {
            value: args.map((a) => text(a, commandNode, name)),
            file: file.path,
            line: lineOf(commandNode) ?? target.line,
          };
        }
      }
      const modeNode = body.get('network_mode');
      const mode = scalarText(modeNode);
      if (mode !== undefined) target.networkMode = text(mode, modeNode, name);
      const netNode = body.get('networks');
      if (isSeq(netNode))
        for (const item of netNode.items) {
          const n = scalarText(item);
          if (n !== undefined) target.networks.add(n);
        }
      else if (isMap(netNode))
        for (const item of netNode.items) {
          const n = scalarText(item.key);
          if (n !== undefined) target.networks.add(n);
        }
    }
  }

  const name = normalizeProjectName(options.project ?? declaredName ?? options.directoryName);
  const list: ComposeService[] = [...services.values()]
    .sort((a, b) => compareStrings(a.name, b.name))
    .map((s) => ({
      name: s.name,
      file: s.file,
      line: s.line,
      environment: s.environment,
      labels: s.labels,
      command: s.command,
      networks: [
        ...(s.networks.size === 0 && s.networkMode === undefined
          ? new Set(['default'])
          : s.networks),
      ].sort(compareStrings),
      networkMode: s.networkMode,
    }));
  return { project: { name, services: list, ipv6Networks }, issues };
}

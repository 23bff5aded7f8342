/**
 * Inputs of `labelwise policy`: cluster settings (flags over an optional settings file) and the
 * objects, read from a directory, one file, or a rendered stream on stdin (`-f -`, for
 * `kustomize build` and `helm template` output).
 */
import { resolve } from 'node:path';
import type { Command } from 'commander';
import {
  LabelwiseError,
  parseYamlDocument,
  readStreamWithin,
  readUserFile,
} from '../base/index.js';
import { compilePolicy, loadPolicyDir, parseYamlDocs, readResources } from '../policy/index.js';
import type { ReadOptions } from '../policy/index.js';
import type {
  PolicyModel,
  PolicyProblem,
  PolicyResources,
  SettingsInput,
} from '../policy/index.js';
import { POLICY_SETTING_KEYS } from '../repo/index.js';
import type { CliIO } from './io.js';

export interface SettingsFlags {
  settings?: string;
  defaultPolicy?: string;
  clusterNetworks?: string;
  probeNetworks?: string;
  identityDomain?: string;
  controlPlaneNamespace?: string;
  /** `-f PATH`: the input instead of the DIR argument; `-` reads stdin. */
  filename?: string;
  /** `-n NS`: the namespace of objects without metadata.namespace (as `kubectl apply -n`). */
  namespace?: string;
  json?: boolean;
}

export function settingsOptions(command: Command): Command {
  return command
    .option(
      '--default-policy <policy>',
      'cluster default inbound policy (default: all-unauthenticated)',
    )
    .option(
      '--cluster-networks <cidrs>',
      'comma-separated cluster networks (default: 10.0.0.0/8,100.64.0.0/10,172.16.0.0/12,192.168.0.0/16,fd00::/8)',
    )
    .option(
      '--probe-networks <cidrs>',
      "networks probes come from; '' disables probe routes (default: 0.0.0.0/0,::/0)",
    )
    .option('--identity-domain <domain>', 'trust domain of identities (default: cluster.local)')
    .option('--control-plane-namespace <ns>', 'Linkerd control plane namespace (default: linkerd)')
    .option(
      '--settings <file>',
      'YAML file with defaultPolicy, clusterNetworks, probeNetworks, identityDomain, controlPlaneNamespace',
    )
    .option(
      '-f, --filename <path>',
      "read the objects from this file or directory instead of DIR; '-' reads a rendered stream from stdin",
    )
    .option(
      '-n, --namespace <ns>',
      'namespace of objects without metadata.namespace, as kubectl apply -n (default: default, with a warning)',
    )
    .option('--json', 'print JSON on stdout');
}

/** A settings file is a few lines; more than this is not one (and `/dev/zero` never ends). */
const MAX_SETTINGS_BYTES = 1024 * 1024;

/** The settings file's one document as plain data; the first YAML problem is thrown. */
function settingsValue(text: string, file: string): unknown {
  const { document, diagnostics } = parseYamlDocument(text, {
    file,
    code: 'POLICY_INVALID_SETTING',
  });
  const problem = diagnostics[0];
  if (problem !== undefined)
    throw new LabelwiseError(
      'POLICY_INVALID_SETTING',
      `settings file is not valid YAML: ${problem.message}`,
      { source: { file, line: problem.line, col: problem.column } },
    );
  return document?.value ?? null;
}

export async function readSettings(flags: SettingsFlags, io: CliIO): Promise<SettingsInput> {
  const out: SettingsInput = {};
  if (flags.settings !== undefined) {
    const text = readUserFile(flags.settings, {
      cwd: io.cwd,
      what: 'settings file',
      maxBytes: MAX_SETTINGS_BYTES,
      codes: { invalid: 'POLICY_INVALID_SETTING', unreadable: 'POLICY_UNREADABLE' },
    });
    const value = settingsValue(text, flags.settings);
    if (value !== null && (typeof value !== 'object' || Array.isArray(value))) {
      throw new LabelwiseError('POLICY_INVALID_SETTING', 'settings file must be a mapping', {
        source: {
          file: flags.settings,
        },
      });
    }
    for (const [k, v] of Object.entries((value ?? {}) as Record<string, unknown>)) {
      if (!(POLICY_SETTING_KEYS as readonly string[]).includes(k)) {
        throw new LabelwiseError('POLICY_INVALID_SETTING', `unknown setting ${JSON.stringify(k)}`, {
          source: { file: flags.settings, path: k },
          hint: `known settings: ${POLICY_SETTING_KEYS.join(', ')}`,
        });
      }
      const ok =
        typeof v === 'string' ||
        ((k === 'clusterNetworks' || k === 'probeNetworks') &&
          Array.isArray(v) &&
          v.every((x) => typeof x === 'string'));
      if (!ok)
        throw new LabelwiseError(
          'POLICY_INVALID_SETTING',
          `setting ${k} must be ${k.endsWith('Networks') ? 'a list of CIDRs or a comma-separated string' : 'a string'}`,
          { source: { file: flags.settings, path: k } },
        );
      (out as Record<string, unknown>)[k] = v;
    }
  }
  if (flags.defaultPolicy !== undefined) out.defaultPolicy = flags.defaultPolicy;
  if (flags.clusterNetworks !== undefined) out.clusterNetworks = flags.clusterNetworks;
  if (flags.probeNetworks !== undefined) out.probeNetworks = flags.probeNetworks;
  if (flags.identityDomain !== undefined) out.identityDomain = flags.identityDomain;
  if (flags.controlPlaneNamespace !== undefined)
    out.controlPlaneNamespace = flags.controlPlaneNamespace;
  return out;
}

export interface LoadedInput {
  readonly resources: PolicyResources;
  readonly problems: PolicyProblem[];
  readonly files: string[];
}

/** A rendered stream is one file's worth of YAML: the same limit as for files. */
const MAX_STDIN_BYTES = 16 * 1024 * 1024;

/** Reads stdin to the end, refusing a terminal (it would wait for typing) and oversized input. */
async function readStdin(): Promise<string> {
  if (process.stdin.isTTY) {
    throw new LabelwiseError(
      'POLICY_NO_FILES',
      '-f - reads objects from stdin, but stdin is a terminal',
      {
        source: { file: '<stdin>' },
        hint: 'pipe a rendered stream into it: kustomize build overlay | labelwise policy lint -f -',
      },
    );
  }
  return readStreamWithin(
    process.stdin,
    MAX_STDIN_BYTES,
    () =>
      new LabelwiseError(
        'POLICY_FILE_TOO_LARGE',
        `stdin holds more than the limit of ${MAX_STDIN_BYTES} bytes`,
        { source: { file: '<stdin>' } },
      ),
  );
}

/** Objects from YAML text: what `-f -` gives, and tests that have no directory. */
export function loadText(text: string, file: string, options: ReadOptions = {}): LoadedInput {
  const parsed = parseYamlDocs(text, file);
  const read = readResources(parsed.docs, options);
  return {
    resources: read.resources,
    problems: [...parsed.problems, ...read.problems],
    files: [file],
  };
}

/** The input a command names: DIR, or `-f PATH` (`-`: stdin), never both. */
async function readInput(
  dir: string | undefined,
  flags: SettingsFlags,
  io: CliIO,
): Promise<LoadedInput> {
  if (dir !== undefined && flags.filename !== undefined) {
    throw new LabelwiseError(
      'POLICY_NO_FILES',
      `both DIR (${JSON.stringify(dir)}) and -f ${JSON.stringify(flags.filename)} were given`,
      {
        source: { path: 'filename' },
        hint: 'pass one input: a directory, a file, or -f - for stdin',
      },
    );
  }
  const source = dir ?? flags.filename;
  if (source === undefined) {
    throw new LabelwiseError(
      'POLICY_NO_FILES',
      'no input: pass DIR, or -f - to read a rendered stream from stdin',
      { source: { path: 'dir' }, hint: 'labelwise policy lint examples/homelab/policy' },
    );
  }
  const namespace = flags.namespace === undefined ? {} : { namespace: flags.namespace };
  if (source === '-') return loadText(await readStdin(), '<stdin>', namespace);
  const loaded = await loadPolicyDir(resolve(io.cwd, source), { root: io.cwd, ...namespace });
  if (loaded.files.length === 0) {
    throw new LabelwiseError('POLICY_NO_FILES', `${source} holds no .yaml or .yml files`, {
      source: { file: source },
      hint: 'pass the directory with your Servers, routes and policies',
    });
  }
  return loaded;
}

/** Settings, input and the compiled model of one command. */
export async function load(
  dir: string | undefined,
  flags: SettingsFlags,
  io: CliIO,
): Promise<{ loaded: LoadedInput; model: PolicyModel }> {
  const settings = await readSettings(flags, io);
  const loaded = await readInput(dir, flags, io);
  const model = compilePolicy(loaded.resources, settings);
  return { loaded, model };
}

/** A `--header name:value` flag. */
export function parseHeader(item: string): [string, string] {
  const colon = item.indexOf(':');
  if (colon <= 0)
    throw new LabelwiseError(
      'POLICY_INVALID_HEADER',
      `--header ${JSON.stringify(item)} must look like name:value`,
      { source: { path: 'header' } },
    );
  return [item.slice(0, colon).trim(), item.slice(colon + 1).trim()];
}

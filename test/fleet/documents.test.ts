// One row per rule of the spec's "Repository and discovery" and "Documents" sections: the files,
// and the problem expected (code, file, line; the message where the spec fixes its text).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadFleet } from '../../src/fleet/index.js';
import { FLEET, doc, fleetOf, host, layer } from './helpers.js';

interface Row {
  name: string;
  files: Record<string, string | string[]>;
  /** Expected errors as `file:line CODE`, in order; [] means the fleet loads cleanly. */
  errors: string[];
  /** Exact message of the first error, where the spec fixes it. */
  message?: string;
  /** Substring of the first error's message. */
  includes?: string;
}

const L0 = layer('base', 0);
const file = (name: string, desired: string, extra = ''): string =>
  doc('File', name, `${extra}desired:\n${desired}`);

const rows: Row[] = [
  // Repository and discovery
  {
    name: 'discovery: no Fleet document',
    files: { 'a.yaml': host('h') },
    errors: [': FLEET_NO_FLEET'],
    message: 'no Fleet document found under .',
  },
  {
    name: 'discovery: several Fleet documents',
    files: { 'fleet.yaml': FLEET, 'sub/fleet.yaml': FLEET },
    errors: ['fleet.yaml:1 FLEET_SEVERAL_FLEETS', 'sub/fleet.yaml:1 FLEET_SEVERAL_FLEETS'],
    message: 'found 2 Fleet documents, expected one',
  },
  {
    name: 'discovery: errors in excluded files are never reported',
    files: {
      'fleet.yaml': `${FLEET}exclude:\n  - drafts/*.yaml\n`,
      'drafts/x.yaml': doc('Fiel', 'x'),
    },
    errors: [],
  },
  {
    name: 'discovery: a Fleet document with another error still excludes (no cascade)',
    files: {
      'fleet.yaml': `${FLEET}exclude:\n  - drafts\nexcludes: []\n`,
      'drafts/x.yaml': doc('Fiel', 'x'),
    },
    errors: ['fleet.yaml:6 FLEET_UNKNOWN_FIELD'],
  },
  {
    name: 'discovery: a matched directory excludes everything below it',
    files: { 'fleet.yaml': `${FLEET}exclude:\n  - drafts\n`, 'drafts/a/b/c.yaml': 'a: [' },
    errors: [],
  },
  {
    name: 'discovery: ** matches any number of segments',
    files: {
      'fleet.yaml': `${FLEET}exclude:\n  - '**/wip-*.yaml'\n`,
      'x/y/wip-1.yaml': 'a: [',
      'wip-2.yaml': 'a: [',
    },
    errors: [],
  },
  {
    // regression: an archived copy of a fleet under an excluded directory made the repository
    // report "found 2 Fleet documents" although problems in excluded files are never reported.
    name: 'discovery: a Fleet document in an excluded file does not count',
    files: {
      'fleet.yaml': `${FLEET}exclude:\n  - archive/**\n`,
      'archive/old/fleet.yaml': FLEET,
      'h.yaml': host('h'),
    },
    errors: [],
  },
  {
    name: 'discovery: a Fleet document the other one does not exclude still counts',
    files: {
      'fleet.yaml': `${FLEET}exclude:\n  - archive/**\n`,
      'other/fleet.yaml': `${FLEET}exclude:\n  - '**'\n`,
    },
    errors: ['fleet.yaml:1 FLEET_SEVERAL_FLEETS', 'other/fleet.yaml:1 FLEET_SEVERAL_FLEETS'],
  },
  {
    name: 'discovery: YAML nested too deeply is an error on that file, not a crash',
    files: { 'fleet.yaml': FLEET, 'deep.yaml': `a: ${'['.repeat(50_000)}${']'.repeat(50_000)}\n` },
    errors: ['deep.yaml:1 FLEET_INVALID_YAML'],
    message: 'the document nests too deeply to read (collections inside collections)',
  },
  {
    name: 'discovery: only YAML under the fleet root counts',
    files: {
      'fleet/fleet.yaml': FLEET,
      'other/x.yaml': doc('Nonsense', 'x'),
      'fleet/notes.txt': 'not yaml',
    },
    errors: [],
  },
  {
    name: 'discovery: files under node_modules and .git are skipped',
    files: { 'fleet.yaml': FLEET, 'node_modules/x/a.yaml': 'a: [', '.git/b.yaml': 'a: [' },
    errors: [],
  },
  {
    name: 'discovery: empty documents are skipped',
    files: { 'fleet.yaml': `---\n${FLEET}---\n# nothing\n---\n` },
    errors: [],
  },
  {
    name: 'discovery: aliases are refused',
    files: {
      'fleet.yaml': FLEET,
      'h.yaml': `datum: v1alpha1\ntype: Host\nname: &n h\nlabels:\n  a: *n\n`,
    },
    errors: ['h.yaml:5 FLEET_INVALID_YAML'],
    includes: 'write the value out',
  },
  {
    name: 'discovery: an unused anchor is fine',
    files: { 'fleet.yaml': FLEET, 'h.yaml': `datum: v1alpha1\ntype: Host\nname: &n h\n` },
    errors: [],
  },
  {
    name: 'discovery: YAML syntax errors carry their line',
    files: { 'fleet.yaml': FLEET, 'h.yaml': 'a: 1\na: 2\n' },
    errors: ['h.yaml:2 FLEET_INVALID_YAML'],
  },
  {
    name: 'discovery: a resource with no Layer above it',
    files: { 'fleet.yaml': FLEET, 'res/f.yaml': file('x', '  path: /x\n') },
    errors: ['res/f.yaml:1 FLEET_NO_LAYER'],
    message: 'File[x] has no Layer document above it',
  },
  {
    name: 'discovery: two Layers in one directory',
    files: { 'fleet.yaml': FLEET, 'l/a.yaml': layer('a', 0), 'l/b.yaml': layer('b', 0) },
    errors: ['l/b.yaml:1 FLEET_TWO_LAYERS'],
  },
  {
    name: 'discovery: a resource in a parent of a Layer does not belong to it',
    files: { 'fleet.yaml': FLEET, 'l/sub/layer.yaml': L0, 'l/f.yaml': file('x', '  path: /x\n') },
    errors: ['l/f.yaml:1 FLEET_NO_LAYER'],
  },
  // Headers
  {
    name: 'header: not a mapping',
    files: { 'fleet.yaml': FLEET, 'x.yaml': '- a\n- b\n' },
    errors: ['x.yaml:1 FLEET_INVALID_DOCUMENT'],
    message: 'document is not a mapping',
  },
  {
    name: 'header: missing datum',
    files: { 'fleet.yaml': FLEET, 'x.yaml': 'type: Host\nname: h\n' },
    errors: ['x.yaml:1 FLEET_MISSING_FIELD'],
    message: 'missing datum',
  },
  {
    name: 'header: unsupported schema version',
    files: { 'fleet.yaml': FLEET, 'x.yaml': 'datum: v2\ntype: Host\nname: h\n' },
    errors: ['x.yaml:1 FLEET_UNSUPPORTED_VERSION'],
    message: 'unsupported schema version "v2", expected v1alpha1',
  },
  {
    name: 'header: missing type',
    files: { 'fleet.yaml': FLEET, 'x.yaml': 'datum: v1alpha1\nname: h\n' },
    errors: ['x.yaml:1 FLEET_MISSING_FIELD'],
    message: 'missing type',
  },
  {
    name: 'header: a misspelt type is an error, never skipped',
    files: { 'fleet.yaml': FLEET, 'x.yaml': 'datum: v1alpha1\ntype: Hots\nname: h\n' },
    errors: ['x.yaml:2 FLEET_UNKNOWN_TYPE'],
    message: 'unrecognised type "Hots"',
  },
  {
    name: 'header: missing name',
    files: { 'fleet.yaml': FLEET, 'x.yaml': 'datum: v1alpha1\ntype: Host\n' },
    errors: ['x.yaml:1 FLEET_MISSING_FIELD'],
    message: 'missing name',
  },
  {
    name: 'header: invalid name',
    files: { 'fleet.yaml': FLEET, 'x.yaml': 'datum: v1alpha1\ntype: Host\nname: web 1\n' },
    errors: ['x.yaml:3 FLEET_INVALID_NAME'],
  },
  {
    name: 'header: name longer than 256',
    files: {
      'fleet.yaml': FLEET,
      'x.yaml': `datum: v1alpha1\ntype: Host\nname: ${'a'.repeat(257)}\n`,
    },
    errors: ['x.yaml:3 FLEET_INVALID_NAME'],
  },
  {
    name: 'header: names may use . - _ +',
    files: { 'fleet.yaml': FLEET, 'x.yaml': 'datum: v1alpha1\ntype: Host\nname: a.b-c_d+e\n' },
    errors: [],
  },
  {
    name: 'header: unknown top-level key',
    files: { 'fleet.yaml': FLEET, 'x.yaml': `${host('h')}lables: {}\n` },
    errors: ['x.yaml:4 FLEET_UNKNOWN_FIELD'],
    message: 'Host has no field "lables"',
  },
  {
    name: 'header: names are unique per type',
    files: { 'fleet.yaml': FLEET, 'a.yaml': host('h'), 'b.yaml': host('h') },
    errors: ['b.yaml:1 FLEET_DUPLICATE_NAME'],
  },
  {
    name: 'header: a Host and a Layer may share a name',
    files: { 'fleet.yaml': FLEET, 'a.yaml': host('h'), 'l/b.yaml': layer('h', 0) },
    errors: [],
  },
  // Fleet
  {
    name: 'Fleet: exclude must be a list',
    files: { 'fleet.yaml': `${FLEET}exclude: drafts\n` },
    errors: ['fleet.yaml:4 FLEET_INVALID_FIELD'],
  },
  // Host
  {
    name: 'Host: labels under datum/ are reserved',
    files: { 'fleet.yaml': FLEET, 'h.yaml': host('h', { role: 'web', 'datum/host': 'other' }) },
    errors: ['h.yaml:6 FLEET_RESERVED_LABEL'],
  },
  {
    // regression: the label was named twice (`label "datum/owner": label "datum/owner" uses …`).
    name: 'Host: a reserved label is named once in its message',
    files: { 'fleet.yaml': FLEET, 'h.yaml': host('h', { 'datum/owner': 'me' }) },
    errors: ['h.yaml:5 FLEET_RESERVED_LABEL'],
    message: 'label "datum/owner" uses the reserved prefix "datum/"',
  },
  {
    name: 'Host: an invalid key is named once in its message',
    files: { 'fleet.yaml': FLEET, 'h.yaml': host('h', { 'a/b/c': 'x' }) },
    errors: ['h.yaml:5 FLEET_INVALID_LABEL'],
    message: `label key "a/b/c" may contain at most one '/'`,
  },
  {
    name: 'Host: an invalid value names its label and the value',
    files: { 'fleet.yaml': FLEET, 'h.yaml': host('h', { role: '"a b"' }) },
    errors: ['h.yaml:5 FLEET_INVALID_LABEL'],
    message: `label "role": value "a b" must be 1-256 letters, digits, '.', '-', '_' or '+'`,
  },
  {
    name: 'Host: a key may hold one /',
    files: { 'fleet.yaml': FLEET, 'h.yaml': host('h', { 'example.com/team': 'a' }) },
    errors: [],
  },
  {
    name: 'Host: a key may not hold two /',
    files: { 'fleet.yaml': FLEET, 'h.yaml': host('h', { 'a/b/c': 'x' }) },
    errors: ['h.yaml:5 FLEET_INVALID_LABEL'],
  },
  {
    name: 'Host: values are never empty',
    files: { 'fleet.yaml': FLEET, 'h.yaml': host('h', { role: '""' }) },
    errors: ['h.yaml:5 FLEET_INVALID_LABEL'],
  },
  {
    name: 'Host: a value with a space is invalid',
    files: { 'fleet.yaml': FLEET, 'h.yaml': host('h', { role: '"a b"' }) },
    errors: ['h.yaml:5 FLEET_INVALID_LABEL'],
  },
  {
    name: 'Host: lists are not label values',
    files: { 'fleet.yaml': FLEET, 'h.yaml': host('h', { role: '[a]' }) },
    errors: ['h.yaml:5 FLEET_INVALID_LABEL'],
  },
  // Layer
  {
    name: 'Layer: precedence "30" (quoted) is an error',
    files: { 'fleet.yaml': FLEET, 'l/l.yaml': doc('Layer', 'l', 'precedence: "30"\n') },
    errors: ['l/l.yaml:4 FLEET_INVALID_PRECEDENCE'],
  },
  {
    name: 'Layer: precedence 1.5 is an error',
    files: { 'fleet.yaml': FLEET, 'l/l.yaml': doc('Layer', 'l', 'precedence: 1.5\n') },
    errors: ['l/l.yaml:4 FLEET_INVALID_PRECEDENCE'],
  },
  {
    name: 'Layer: an empty precedence says it is empty',
    files: { 'fleet.yaml': FLEET, 'l/l.yaml': doc('Layer', 'l', 'precedence:\n') },
    errors: ['l/l.yaml:4 FLEET_INVALID_PRECEDENCE'],
    message: 'precedence must be an integer, got nothing',
  },
  {
    name: 'Layer: a precedence too large for an exact integer is out of range, not "not an integer"',
    files: {
      'fleet.yaml': FLEET,
      'l/l.yaml': doc('Layer', 'l', 'precedence: 99999999999999999999\n'),
    },
    errors: ['l/l.yaml:4 FLEET_INVALID_PRECEDENCE'],
    message:
      'precedence 99999999999999999999 is out of range; use an integer between -9007199254740991 and 9007199254740991',
  },
  {
    name: 'Layer: precedence may be negative',
    files: { 'fleet.yaml': FLEET, 'l/l.yaml': layer('l', -5) },
    errors: [],
  },
  {
    name: 'Layer: unknown matcher form',
    files: { 'fleet.yaml': FLEET, 'l/l.yaml': layer('l', 0, '  anyOf:\n    role: [web]\n') },
    errors: ['l/l.yaml:6 FLEET_INVALID_MATCH'],
    message: 'match has no field "anyOf"',
  },
  {
    name: 'Layer: matchers may use datum/host',
    files: {
      'fleet.yaml': FLEET,
      'l/l.yaml': layer('l', 0, '  labels:\n    datum/host: web-001\n'),
    },
    errors: [],
  },
  {
    name: 'Layer: matchers may not use other datum/ keys',
    files: { 'fleet.yaml': FLEET, 'l/l.yaml': layer('l', 0, '  has:\n    - datum/role\n') },
    errors: ['l/l.yaml:7 FLEET_INVALID_MATCH'],
  },
  {
    name: 'Layer: a broken Layer still owns its directory (no cascade of "no Layer above it")',
    files: {
      'fleet.yaml': FLEET,
      'l/l.yaml': [
        doc('Layer', 'l', 'precedence: high\n'),
        doc('Package', 'p', 'desired:\n  state: present\n'),
      ],
    },
    errors: ['l/l.yaml:4 FLEET_INVALID_PRECEDENCE'],
  },
  // Resources
  {
    name: 'resource: restartOn and reloadOn on one resource',
    files: {
      'fleet.yaml': FLEET,
      'l/l.yaml': [
        L0,
        doc(
          'Service',
          's',
          'restartOn:\n  - File[a]\nreloadOn:\n  - File[b]\ndesired:\n  state: running\n  enabled: true\n',
        ),
      ],
    },
    errors: ['l/l.yaml:11 FLEET_RESTART_AND_RELOAD'],
  },
  {
    name: 'resource: desired is required',
    files: { 'fleet.yaml': FLEET, 'l/l.yaml': [L0, doc('Package', 'p')] },
    errors: ['l/l.yaml:6 FLEET_MISSING_FIELD'],
  },
  {
    name: 'resource: unknown desired field',
    files: {
      'fleet.yaml': FLEET,
      'l/l.yaml': [L0, doc('Package', 'p', 'desired:\n  state: present\n  colour: red\n')],
    },
    errors: ['l/l.yaml:11 FLEET_UNKNOWN_FIELD'],
  },
  {
    name: 'resource: unquoted mode 0640 is rejected',
    files: { 'fleet.yaml': FLEET, 'l/l.yaml': [L0, file('f', '  path: /f\n  mode: 0640\n')] },
    errors: ['l/l.yaml:11 FLEET_INVALID_FIELD'],
  },
  {
    name: 'resource: quoted mode "0640" is a string',
    files: { 'fleet.yaml': FLEET, 'l/l.yaml': [L0, file('f', '  path: /f\n  mode: "0640"\n')] },
    errors: [],
  },
  {
    name: 'resource: mode must be 3-4 octal digits',
    files: { 'fleet.yaml': FLEET, 'l/l.yaml': [L0, file('f', '  path: /f\n  mode: "0999"\n')] },
    errors: ['l/l.yaml:11 FLEET_INVALID_FIELD'],
  },
  {
    name: 'resource: booleans are unquoted true/false',
    files: {
      'fleet.yaml': FLEET,
      'l/l.yaml': [L0, doc('Service', 's', 'desired:\n  state: running\n  enabled: "true"\n')],
    },
    errors: ['l/l.yaml:11 FLEET_INVALID_FIELD'],
  },
  {
    name: 'resource: yes is not a boolean',
    files: {
      'fleet.yaml': FLEET,
      'l/l.yaml': [L0, doc('Service', 's', 'desired:\n  state: running\n  enabled: yes\n')],
    },
    errors: ['l/l.yaml:11 FLEET_INVALID_FIELD'],
  },
  {
    name: 'resource: integers',
    files: {
      'fleet.yaml': FLEET,
      'l/l.yaml': [L0, doc('Group', 'g', 'desired:\n  state: present\n  gid: ten\n')],
    },
    errors: ['l/l.yaml:11 FLEET_INVALID_FIELD'],
  },
  {
    name: 'resource: an integer with leading zeros is refused as such',
    files: {
      'fleet.yaml': FLEET,
      'l/l.yaml': [L0, doc('Group', 'g', 'desired:\n  state: present\n  gid: 0100\n')],
    },
    errors: ['l/l.yaml:11 FLEET_INVALID_FIELD'],
    message: 'Group[g].gid must be written without leading zeros, got 0100',
  },
  {
    name: 'resource: an integer too large to hold exactly is out of range',
    files: {
      'fleet.yaml': FLEET,
      'l/l.yaml': [
        L0,
        doc('Group', 'g', 'desired:\n  state: present\n  gid: 99999999999999999999\n'),
      ],
    },
    errors: ['l/l.yaml:11 FLEET_INVALID_FIELD'],
    message: 'Group[g].gid is out of range: 99999999999999999999 is not within ±9007199254740991',
  },
  {
    name: 'resource: ids are not negative',
    files: {
      'fleet.yaml': FLEET,
      'l/l.yaml': [L0, doc('User', 'u', 'desired:\n  state: present\n  uid: -1\n')],
    },
    errors: ['l/l.yaml:11 FLEET_INVALID_FIELD'],
  },
  {
    name: 'resource: enums',
    files: {
      'fleet.yaml': FLEET,
      'l/l.yaml': [L0, doc('Service', 's', 'desired:\n  state: started\n  enabled: true\n')],
    },
    errors: ['l/l.yaml:10 FLEET_INVALID_FIELD'],
  },
  {
    name: 'resource: paths are absolute',
    files: { 'fleet.yaml': FLEET, 'l/l.yaml': [L0, file('f', '  path: etc/x\n')] },
    errors: ['l/l.yaml:10 FLEET_INVALID_FIELD'],
  },
  {
    name: 'resource: paths have no .. components',
    files: { 'fleet.yaml': FLEET, 'l/l.yaml': [L0, file('f', '  path: /etc/../x\n')] },
    errors: ['l/l.yaml:10 FLEET_INVALID_FIELD'],
  },
  {
    name: 'resource: paths have no empty components',
    files: {
      'fleet.yaml': FLEET,
      'l/l.yaml': [L0, doc('Directory', 'd', 'desired:\n  path: /etc//x\n')],
    },
    errors: ['l/l.yaml:10 FLEET_INVALID_FIELD'],
  },
  {
    name: 'resource: a Symlink takes path, state, target, owner and group',
    files: {
      'fleet.yaml': FLEET,
      'l/l.yaml': [
        L0,
        doc(
          'Symlink',
          's',
          'desired:\n  path: /etc/alt\n  state: present\n  target: ../alt.d/x\n  owner: root\n  group: root\n',
        ),
      ],
    },
    errors: [],
  },
  {
    name: 'resource: a Symlink path is absolute',
    files: {
      'fleet.yaml': FLEET,
      'l/l.yaml': [L0, doc('Symlink', 's', 'desired:\n  path: etc/alt\n  target: /x\n')],
    },
    errors: ['l/l.yaml:10 FLEET_INVALID_FIELD'],
  },
  {
    name: 'resource: a Symlink has no mode',
    files: {
      'fleet.yaml': FLEET,
      'l/l.yaml': [L0, doc('Symlink', 's', 'desired:\n  path: /etc/alt\n  mode: "0777"\n')],
    },
    errors: ['l/l.yaml:11 FLEET_UNKNOWN_FIELD'],
    message: 'Symlink desired has no field "mode"',
  },
  {
    name: 'resource: a Sysctl state is present or absent',
    files: {
      'fleet.yaml': FLEET,
      'l/l.yaml': [L0, doc('Sysctl', 'x', 'desired:\n  value: "1"\n  state: on\n')],
    },
    errors: ['l/l.yaml:11 FLEET_INVALID_FIELD'],
  },
  {
    name: 'resource: a Repository components field is a list',
    files: {
      'fleet.yaml': FLEET,
      'l/l.yaml': [
        L0,
        doc('Repository', 'r', 'desired:\n  id: r\n  unsigned: true\n  components: main\n'),
      ],
    },
    errors: ['l/l.yaml:12 FLEET_INVALID_FIELD'],
  },
  {
    name: 'resource: a User shell is an absolute path',
    files: {
      'fleet.yaml': FLEET,
      'l/l.yaml': [L0, doc('User', 'u', 'desired:\n  state: present\n  shell: bash\n')],
    },
    errors: ['l/l.yaml:11 FLEET_INVALID_FIELD'],
  },
  {
    name: 'resource: source is relative',
    files: { 'fleet.yaml': FLEET, 'l/l.yaml': [L0, file('f', '  path: /f\n  source: /etc/x\n')] },
    errors: ['l/l.yaml:11 FLEET_INVALID_FIELD'],
  },
  {
    name: 'resource: template has no ..',
    files: { 'fleet.yaml': FLEET, 'l/l.yaml': [L0, file('f', '  path: /f\n  template: ../x\n')] },
    errors: ['l/l.yaml:11 FLEET_INVALID_FIELD'],
  },
  {
    name: 'resource: control characters are rejected',
    files: {
      'fleet.yaml': FLEET,
      'l/l.yaml': [L0, file('f', '  path: /f\n  content: "a\\u0007b"\n')],
    },
    errors: ['l/l.yaml:11 FLEET_INVALID_FIELD'],
  },
  {
    name: 'resource: NUL is rejected',
    files: { 'fleet.yaml': FLEET, 'l/l.yaml': [L0, file('f', '  path: /f\n  content: "a\\0b"\n')] },
    errors: ['l/l.yaml:11 FLEET_INVALID_FIELD'],
  },
  {
    name: 'resource: bidi overrides are rejected',
    files: {
      'fleet.yaml': FLEET,
      'l/l.yaml': [L0, file('f', '  path: /f\n  content: "a\u202Eb"\n')],
    },
    errors: ['l/l.yaml:11 FLEET_INVALID_FIELD'],
  },
  {
    name: 'resource: an unpaired surrogate escape is not text',
    files: {
      'fleet.yaml': FLEET,
      'l/l.yaml': [L0, file('f', '  path: /f\n  content: "a\\ud800b"\n')],
    },
    errors: ['l/l.yaml:11 FLEET_INVALID_FIELD'],
    message: 'File[f].content contains an unpaired surrogate U+D800, which is not valid UTF-8 text',
  },
  {
    name: 'resource: characters outside the BMP are fine',
    files: {
      'fleet.yaml': FLEET,
      'l/l.yaml': [L0, file('f', '  path: /f\n  content: "\\U0001F600 \u00e9"\n')],
    },
    errors: [],
  },
  {
    name: 'resource: tab and newline are fine',
    files: {
      'fleet.yaml': FLEET,
      'l/l.yaml': [L0, file('f', '  path: /f\n  content: "a\\tb\\n"\n')],
    },
    errors: [],
  },
  {
    name: 'resource: references look like Type[name]',
    files: {
      'fleet.yaml': FLEET,
      'l/l.yaml': [L0, doc('Package', 'p', 'requires:\n  - nginx\ndesired:\n  state: present\n')],
    },
    errors: ['l/l.yaml:10 FLEET_INVALID_REFERENCE'],
  },
  {
    name: 'resource: unquoted references in a flow list get a hint with the fix',
    files: {
      'fleet.yaml': FLEET,
      'l/l.yaml': [
        L0,
        doc('Package', 'p', 'requires: [Package[nginx]]\ndesired:\n  state: present\n'),
      ],
    },
    errors: ['l/l.yaml:9 FLEET_INVALID_YAML'],
    message:
      'Missing , or : between flow sequence items; in a flow list, quote references: ["Package[nginx]"], or write them as a block list',
  },
  {
    name: 'resource: quoted references in a flow list are fine',
    files: {
      'fleet.yaml': FLEET,
      'l/l.yaml': [
        L0,
        doc('Package', 'nginx', 'desired:\n  state: present\n'),
        doc('Package', 'p', 'requires: ["Package[nginx]"]\ndesired:\n  state: present\n'),
      ],
    },
    errors: [],
  },
  {
    name: 'resource: references name a known type',
    files: {
      'fleet.yaml': FLEET,
      'l/l.yaml': [
        L0,
        doc('Package', 'p', 'requires:\n  - Pkg[nginx]\ndesired:\n  state: present\n'),
      ],
    },
    errors: ['l/l.yaml:10 FLEET_INVALID_REFERENCE'],
  },
  {
    name: 'resource: the same reference twice in one layer',
    files: {
      'fleet.yaml': FLEET,
      'l/l.yaml': [L0, doc('Package', 'p', 'desired:\n  state: present\n')],
      'l/m.yaml': doc('Package', 'p', 'desired:\n  state: absent\n'),
    },
    errors: ['l/m.yaml:1 FLEET_DUPLICATE_REFERENCE'],
  },
  {
    name: 'resource: unknown placeholders are errors',
    files: {
      'fleet.yaml': FLEET,
      'l/l.yaml': [L0, file('f', '  path: /f\n  content: "{{ fact.os }}"\n')],
    },
    errors: ['l/l.yaml:11 FLEET_INVALID_FIELD'],
  },
  {
    name: 'resource: an unclosed {{ is an error',
    files: {
      'fleet.yaml': FLEET,
      'l/l.yaml': [L0, file('f', '  path: /f\n  content: "{{ host "\n')],
    },
    errors: ['l/l.yaml:11 FLEET_INVALID_FIELD'],
  },
  {
    name: 'resource: custom tags are refused',
    files: { 'fleet.yaml': FLEET, 'l/l.yaml': [L0, file('f', '  path: !secret /f\n')] },
    errors: ['l/l.yaml:10 FLEET_INVALID_YAML'],
  },
];

for (const row of rows) {
  test(row.name, () => {
    const fleet = fleetOf(row.files);
    const errors = fleet.problems.filter((p) => p.severity === 'error');
    assert.deepEqual(
      errors.map((p) => `${p.file ?? ''}:${p.line ?? ''} ${p.code}`),
      row.errors,
      JSON.stringify(errors.map((e) => e.message)),
    );
    if (row.message !== undefined) assert.equal(errors[0]?.message, row.message);
    if (row.includes !== undefined)
      assert.ok(errors[0]?.message.includes(row.includes), errors[0]?.message);
  });
}

test('Host: scalars are taken as their literal text', () => {
  const fleet = fleetOf({
    'fleet.yaml': FLEET,
    'h.yaml': host('h', { rack: '01', ipv6: 'true', zone: '1.50' }),
  });
  assert.deepEqual({ ...fleet.hosts[0]?.labels }, { rack: '01', ipv6: 'true', zone: '1.50' });
});

test('Layer: precedence defaults to 0; layers order by precedence then file path', () => {
  const fleet = fleetOf({
    'fleet.yaml': FLEET,
    'z/l.yaml': doc('Layer', 'z0'),
    'a/l.yaml': layer('a10', 10),
    'b/l.yaml': layer('bneg', -1),
    'c/l.yaml': layer('c0', 0),
  });
  assert.deepEqual(
    fleet.layers.map((l) => `${l.name}:${l.precedence}`),
    ['bneg:-1', 'c0:0', 'z0:0', 'a10:10'],
  );
});

test('discovery: resources belong to the nearest Layer and order by type then name', () => {
  const fleet = fleetOf({
    'fleet.yaml': FLEET,
    'l/layer.yaml': layer('outer', 0),
    'l/inner/layer.yaml': layer('inner', 5),
    'l/inner/deep/x.yaml': [
      doc('Package', 'b', 'desired:\n  state: present\n'),
      doc('File', 'z', 'desired:\n  path: /z\n'),
      doc('Package', 'a', 'desired:\n  state: present\n'),
    ],
    'l/y.yaml': doc('Package', 'c', 'desired:\n  state: present\n'),
  });
  assert.deepEqual(fleet.problems, []);
  const byName = Object.fromEntries(
    fleet.layers.map((l) => [l.name, l.resources.map((r) => r.ref)]),
  );
  assert.deepEqual(byName, {
    outer: ['Package[c]'],
    inner: ['File[z]', 'Package[a]', 'Package[b]'],
  });
});

test('discovery: paths are relative to the fleet root', () => {
  const fleet = fleetOf({
    'repo/fleet/fleet.yaml': FLEET,
    'repo/fleet/hosts/x.yaml': 'datum: v1alpha1\ntype: Host\n',
  });
  assert.equal(fleet.root, 'repo/fleet');
  assert.deepEqual(
    fleet.problems.map((p) => `${p.file}:${p.line}`),
    ['hosts/x.yaml:1'],
  );
});

test('discovery: every error is collected, not just the first', () => {
  const fleet = fleetOf({
    'fleet.yaml': FLEET,
    'a.yaml': ['datum: v1alpha1\ntype: Hots\nname: a\n', 'datum: v1alpha1\ntype: Host\n'],
    'b.yaml': 'type: Host\nname: b\nextra: 1\n',
  });
  assert.deepEqual(
    fleet.problems.map((p) => `${p.file}:${p.line} ${p.code}`),
    [
      'a.yaml:2 FLEET_UNKNOWN_TYPE',
      'a.yaml:5 FLEET_MISSING_FIELD',
      'b.yaml:1 FLEET_MISSING_FIELD',
      'b.yaml:3 FLEET_UNKNOWN_FIELD',
    ],
  );
});

test('discovery: invalid UTF-8 bytes are an error on that file', () => {
  const withBad = [
    { path: 'fleet.yaml', bytes: FLEET },
    { path: 'h.yaml', bytes: new Uint8Array([0x61, 0x3a, 0x20, 0xff, 0xfe, 0x0a]) },
  ];
  const loaded = loadFleet(withBad);
  assert.deepEqual(
    loaded.problems.map((p) => `${p.file}:${p.line} ${p.message}`),
    ['h.yaml:1 file is not valid UTF-8'],
  );
});

// Objects the API server, a webhook or the runtime rejects although the JSON Schema accepts
// them: each is refused at check time with file, line and path.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadCatalog, catalogSchemas } from '../../src/catalog/index.js';
import { PLATFORM_TEXT, catalogOf } from './helpers.js';

function errorsOf(text: string, platform = PLATFORM_TEXT) {
  return loadCatalog(catalogOf({ 'w.yaml': text }, platform), catalogSchemas()).errors.map(
    (e) => `${e.code}@${e.source.file}:${e.source.line}:${e.source.path}`,
  );
}

const rows: { what: string; text: string; want: string }[] = [
  {
    what: 'a port name of digits only',
    text: 'name: w\nsource: { image: x:1 }\nports:\n  - { name: "8080", port: 8080 }\n',
    want: 'CATALOG_PORT_NAME@catalog/w.yaml:4:ports[0].name',
  },
  {
    what: 'a port name with "--"',
    text: 'name: w\nsource: { image: x:1 }\nports:\n  - { name: web--ui, port: 8080 }\n',
    want: 'CATALOG_PORT_NAME@catalog/w.yaml:4:ports[0].name',
  },
  {
    what: 'a subPath with ..',
    text: 'name: w\nsource: { image: x:1 }\nstorage:\n  - { name: d, class: longhorn, size: 1Gi, subPath: a/../../etc }\n',
    want: 'CATALOG_STORAGE_SUBPATH@catalog/w.yaml:4:storage[0].subPath',
  },
  {
    what: 'a zero claim size',
    text: 'name: w\nsource: { image: x:1 }\nstorage:\n  - { name: d, class: longhorn, size: 0Gi }\n',
    want: 'CATALOG_STORAGE_SIZE@catalog/w.yaml:4:storage[0].size',
  },
  {
    what: 'a zero bulk volume size',
    text: 'name: w\nsource: { image: x:1 }\nstorage:\n  - { name: d, class: bulk, export: /tank, size: "0" }\n',
    want: 'CATALOG_STORAGE_SIZE@catalog/w.yaml:4:storage[0].size',
  },
  {
    what: 'VM memory "0"',
    text: 'name: w\nkind: vm\nsource: { vmTemplate: "https://example.net/d.img" }\nvm:\n  memory: "0"\n',
    want: 'CATALOG_VM_SIZE@catalog/w.yaml:5:vm.memory',
  },
  {
    what: 'a zero root disk',
    text: 'name: w\nkind: vm\nsource: { vmTemplate: "https://example.net/d.img" }\nvm:\n  rootDiskSize: 0Mi\n',
    want: 'CATALOG_VM_SIZE@catalog/w.yaml:5:vm.rootDiskSize',
  },
  {
    what: 'a data disk named like the root disk',
    text: 'name: w\nkind: vm\nsource: { vmTemplate: "https://example.net/d.img" }\nstorage:\n  - { name: w-root, class: longhorn, size: 1Gi }\n',
    want: 'CATALOG_STORAGE_VM@catalog/w.yaml:5:storage[0].name',
  },
  {
    what: 'an upper-case image reference',
    text: 'name: w\nsource:\n  image: docker.io/Library/Nginx:1.27\n',
    want: 'CATALOG_IMAGE_REFERENCE@catalog/w.yaml:3:source.image',
  },
  {
    what: 'an image with a short digest',
    text: 'name: w\nsource:\n  image: "x@sha256:abcdef0123456789abcdef0123456789"\n',
    want: 'CATALOG_IMAGE_REFERENCE@catalog/w.yaml:3:source.image',
  },
];

for (const row of rows) {
  test(`refused with file, line and path: ${row.what}`, () => {
    assert.deepEqual(errorsOf(row.text), [row.want]);
  });
}

test('platform.yaml: a GPU resource without a domain and a StorageClass that is not a DNS subdomain', () => {
  const platform = PLATFORM_TEXT.replace(
    /^ {2}intel-quicksync: .*$/m,
    '  intel-quicksync: i915',
  ).replace(/^ {2}storageClass: .*$/m, '  storageClass: Longhorn_Replicated');
  const errors = errorsOf('name: w\nsource: { image: x:1 }\n', platform);
  assert.equal(errors.length, 2, errors.join('\n'));
  assert.match(
    errors[0]!,
    /^CATALOG_PLATFORM_INVALID@catalog\/platform\.yaml:\d+:longhorn\.storageClass$/,
  );
  assert.match(
    errors[1]!,
    /^CATALOG_PLATFORM_INVALID@catalog\/platform\.yaml:\d+:gpu\.intel-quicksync$/,
  );
});

test('ordinary values still pass: names with a letter, relative subPaths, sized claims', () => {
  assert.deepEqual(
    errorsOf(
      'name: w\nsource: { image: "registry.example.net:5000/team/app:v1.2" }\nports:\n  - { name: web-ui, port: 8080 }\nstorage:\n  - { name: d, class: longhorn, size: 1Gi, subPath: a/b..c }\n',
    ),
    [],
  );
});

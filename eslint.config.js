import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// The architecture rule (DESIGN.md, Layout), made executable: modules import only `selector`
// and `base`, never each other; `selector` imports only `base`; file, process and network I/O
// happen only in a module's io/ folder (and in base, cli and repo).
const MODULES = ['selector', 'anchor', 'fleet', 'catalog', 'policy'];
const IO_MODULES = [
  'fs',
  'fs/promises',
  'node:fs',
  'node:fs/promises',
  'child_process',
  'node:child_process',
  'net',
  'node:net',
  'http',
  'node:http',
  'https',
  'node:https',
  'dgram',
  'node:dgram',
  'dockerode',
];
const ioMessage = "file, process and network I/O belong in this module's io/ folder";

function boundaries(module) {
  const others = [...MODULES.filter((m) => m !== module && m !== 'selector'), 'repo', 'cli'];
  const rule = (withIo) => [
    'error',
    {
      paths: withIo ? IO_MODULES.map((name) => ({ name, message: ioMessage })) : [],
      patterns: [
        {
          group: others.flatMap((m) => [
            `../${m}/*`,
            `../../${m}/*`,
            `../../../${m}/*`,
            `**/src/${m}/*`,
          ]),
          message: `${module} may import only selector and base (DESIGN.md, module boundaries)`,
        },
      ],
    },
  ];
  return [
    { files: [`src/${module}/**/*.ts`], rules: { 'no-restricted-imports': rule(true) } },
    { files: [`src/${module}/**/io/**/*.ts`], rules: { 'no-restricted-imports': rule(false) } },
  ];
}

// repo and cli see every module, but only through its index.ts, its public face: a module may
// move its files without breaking them. The start-up path of `labelwise --version` and
// `selector match` (within 1.5x `node -e 0`, docs/install.md) imports base's and selector's
// files instead, because those indexes load the YAML library and every syntax.
const START_UP_FILES = [
  'src/cli/main.ts',
  'src/cli/error-document.ts',
  'src/cli/format-error.ts',
  'src/cli/output.ts',
  'src/cli/selector.ts',
  'src/cli/selector-input.ts',
  'src/cli/selector-match.ts',
];

function throughIndex(modules) {
  const group = modules.flatMap((m) =>
    ['../', '../../', '../../../'].flatMap((up) => [`${up}${m}/**`, `!${up}${m}/index.js`]),
  );
  return [
    'error',
    {
      patterns: [
        { group, message: 'repo and cli import a module through its index.ts, not its files' },
      ],
    },
  ];
}

export default tseslint.config(
  { ignores: ['dist/', '.bench/', 'node_modules/', 'out/', 'examples/**/apps/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  ...MODULES.flatMap(boundaries),
  {
    files: ['src/base/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: [...MODULES, 'repo', 'cli'].flatMap((m) => [`../${m}/*`, `../../${m}/*`]),
              message: 'base is the bottom layer: it imports no module',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['src/cli/**/*.ts', 'src/repo/**/*.ts'],
    ignores: START_UP_FILES,
    rules: {
      'no-restricted-imports': throughIndex([...MODULES, 'base', 'repo']),
      // The same for a lazy import(), which no-restricted-imports does not see.
      'no-restricted-syntax': [
        'error',
        {
          selector: `ImportExpression[source.value=/^(\\.\\.\\/)+(${[...MODULES, 'base', 'repo'].join('|')})\\/(?!index\\.js$)/]`,
          message: 'repo and cli import a module through its index.ts, not its files',
        },
      ],
    },
  },
  {
    files: START_UP_FILES,
    rules: {
      'no-restricted-imports': throughIndex(MODULES.filter((m) => m !== 'selector').concat('repo')),
    },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
  },
);

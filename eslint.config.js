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
    files: ['**/*.js', '**/*.mjs'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
  },
);

// Layer rules (see ../docs/CONTEXT.md): a wrong import across a layer fails `npm test`.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';
import { builtinModules } from 'node:module';

const nodeBuiltins = [...builtinModules, ...builtinModules.map((m) => `node:${m}`)];

const noNode = {
  paths: nodeBuiltins.map((name) => ({ name, message: 'This layer runs in a browser: no Node built-ins.' })),
};

/** Packages that need Node (or Electron's main process): never in a browser layer. */
const nodeOnlyPackages = ['ws', 'node-pty', 'better-sqlite3', '@xterm/headless', '@modelcontextprotocol/sdk', 'tinyglobby', 'smol-toml'];
const noNodePackages = nodeOnlyPackages.map((name) => ({ name, message: 'This layer runs in a browser: no Node-only package.' }));
const noNodePackagePatterns = [{ group: nodeOnlyPackages.map((name) => `${name}/*`), message: 'This layer runs in a browser: no Node-only package.' }];
/** Imports of a top-level folder from anywhere below another one ("../main", "../../main/x"). */
const upTo = (...dirs) => dirs.flatMap((dir) => [1, 2, 3, 4].flatMap((depth) => ['../'.repeat(depth) + dir, `${'../'.repeat(depth)}${dir}/**`]));
/** Electron, by any of its entry points. */
const electronPatterns = (message) => [{ group: ['electron/*'], message }];

/**
 * daemon/'s folders, and which others each may import: the architecture, lower layers first.
 * The contract (pure TypeScript) has its own rule below; tests may import anything.
 */
const DAEMON_ZONES = {
  util: [],
  home: ['contract'],
  store: ['contract', 'home', 'util'],
  auth: ['contract', 'home', 'store', 'util'],
  catalogue: ['contract', 'home', 'util'],
  backends: ['contract', 'home', 'util'],
  files: ['contract', 'home', 'util'],
  streams: ['contract', 'backends', 'util'],
  worktrees: ['contract', 'util'],
  usage: ['contract', 'home', 'util'],
  hosts: ['contract', 'store', 'util'],
  engine: ['contract', 'util', 'home', 'store', 'auth', 'catalogue', 'backends', 'files', 'streams', 'worktrees', 'usage', 'hosts'],
  transports: ['contract', 'util', 'home', 'store', 'auth', 'catalogue', 'backends', 'files', 'streams', 'usage', 'hosts', 'engine'],
  cli: ['contract', 'util', 'home', 'store', 'auth', 'catalogue', 'backends', 'files', 'streams', 'usage', 'engine', 'transports'],
  test: ['contract', 'util', 'home', 'store', 'auth', 'catalogue', 'backends', 'files', 'streams', 'worktrees', 'usage', 'hosts', 'engine', 'transports', 'cli'],
};
const DAEMON_FOLDERS = ['contract', ...Object.keys(DAEMON_ZONES)];
const notElectron = 'daemon/ is plain Node: it never imports electron.';

/** One rule per folder of daemon/: never electron or the app above, and no folder it may not use. */
function daemonZones() {
  const appAbove = [
    ...electronPatterns(notElectron),
    { group: upTo('renderer', 'main', 'preload'), message: 'daemon/ is below the app: it never imports renderer/, main/ or preload/.' },
  ];
  // Anywhere in daemon/ (a new folder included) before its own zone's rule is written.
  const everywhere = {
    files: ['daemon/**/*.ts'],
    ignores: ['daemon/contract/**'],
    rules: { 'no-restricted-imports': ['error', { paths: [{ name: 'electron', message: notElectron }], patterns: appAbove }] },
  };
  return [everywhere, ...Object.entries(DAEMON_ZONES).map(([zone, allowed]) => ({
    files: [`daemon/${zone}/**/*.ts`],
    rules: {
      'no-restricted-imports': ['error', {
        paths: [{ name: 'electron', message: notElectron }],
        patterns: [
          ...appAbove,
          ...DAEMON_FOLDERS.filter((other) => other !== zone && !allowed.includes(other)).map((other) => ({
            group: upTo(other),
            message: `daemon/${zone}/ may use ${allowed.map((f) => `${f}/`).join(', ')} of daemon/: not ${other}/ (see eslint.config.js).`,
          })),
        ],
      }],
    },
  }))];
}

export default tseslint.config(
  { ignores: ['node_modules/**', 'out/**', 'dist/**', 'e2e/screenshots/**', 'test-results/**', 'playwright-report/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      eqeqeq: ['error', 'always', { null: 'ignore' }],
    },
  },
  {
    // Tests and benchmarks read JSON bodies loosely; the code under test may not.
    files: ['**/test/**/*.ts', '**/*.test.ts', 'e2e/**/*.ts', 'bench/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  ...daemonZones(),
  {
    files: ['daemon/contract/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: [...noNode.paths, ...noNodePackages, { name: 'electron', message: 'The contract is pure TypeScript.' }],
        patterns: [
          ...noNodePackagePatterns,
          ...electronPatterns('The contract is pure TypeScript.'),
          { group: ['../*', '!../contract/*'], message: 'The contract imports nothing outside daemon/contract/.' },
        ],
      }],
    },
  },
  {
    files: ['renderer/**/*.ts', 'renderer/**/*.tsx'],
    languageOptions: { globals: { ...globals.browser } },
    rules: {
      'no-restricted-imports': ['error', {
        paths: [...noNode.paths, ...noNodePackages, { name: 'electron', message: 'The renderer talks only through the contract.' }],
        patterns: [
          ...noNodePackagePatterns,
          ...electronPatterns('The renderer talks only through the contract.'),
          { group: ['**/daemon/**', '!**/daemon/contract', '!**/daemon/contract/**'], message: 'The renderer may import daemon/contract/ only.' },
          { group: upTo('main', 'preload'), message: 'The renderer talks only through the contract.' },
        ],
      }],
    },
  },
  {
    files: ['preload/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        // A sandboxed preload has Electron's renderer modules, not Node's.
        paths: [...noNode.paths.map((p) => ({ ...p, message: 'The preload is sandboxed: no Node built-ins.' })), ...noNodePackages],
        patterns: [
          ...noNodePackagePatterns,
          { group: ['**/daemon/**', '!**/daemon/contract', '!**/daemon/contract/**'], message: 'The preload exposes the contract and nothing else: it may import daemon/contract/ only.' },
          { group: upTo('main', 'renderer'), message: 'The preload exposes the contract and nothing else.' },
        ],
      }],
    },
  },
  {
    files: ['main/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [{ group: upTo('renderer', 'preload'), message: 'main/ reaches the page through IPC and the preload, never by import.' }],
      }],
    },
  },
);

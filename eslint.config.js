// Layer rules (see ../docs/CONTEXT.md): a wrong import across a layer fails `npm test`.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';
import { builtinModules } from 'node:module';

const nodeBuiltins = [...builtinModules, ...builtinModules.map((m) => `node:${m}`)];

const noNode = {
  paths: nodeBuiltins.map((name) => ({ name, message: 'This layer runs in a browser: no Node built-ins.' })),
};

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
  {
    files: ['daemon/**/*.ts'],
    ignores: ['daemon/contract/**'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: [{ name: 'electron', message: 'daemon/ is plain Node: it never imports electron.' }],
      }],
    },
  },
  {
    files: ['daemon/contract/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: [...noNode.paths, { name: 'electron', message: 'The contract is pure TypeScript.' }],
        patterns: [{ group: ['../*', '!../contract/*'], message: 'The contract imports nothing outside daemon/contract/.' }],
      }],
    },
  },
  {
    files: ['renderer/**/*.ts', 'renderer/**/*.tsx'],
    languageOptions: { globals: { ...globals.browser } },
    rules: {
      'no-restricted-imports': ['error', {
        paths: [...noNode.paths, { name: 'electron', message: 'The renderer talks only through the contract.' }],
        patterns: [{
          group: ['**/daemon/**', '!**/daemon/contract', '!**/daemon/contract/**'],
          message: 'The renderer may import daemon/contract/ only.',
        }],
      }],
    },
  },
  {
    files: ['preload/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [{
          group: ['**/daemon/**', '!**/daemon/contract', '!**/daemon/contract/**'],
          message: 'The preload exposes the contract and nothing else: it may import daemon/contract/ only.',
        }],
      }],
    },
  },
);

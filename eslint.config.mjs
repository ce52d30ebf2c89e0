// @ts-check
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'out/', '.vscode-test/', 'test-artifacts/', 'node_modules/', 'test/fixtures/conformance-suite/'] },
  js.configs.recommended,
  ...tseslint.configs.strict,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      eqeqeq: ['error', 'always'],
    },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { ...globals.node } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // Backstops, not targets: cohesion decides where code goes, and these only catch a file or a
    // function that has clearly grown past one idea. A function that is a table (a schema, a list
    // of cases) may say so in one comment and disable max-lines-per-function for itself.
    files: ['src/**/*.ts'],
    rules: {
      'max-lines': ['error', { max: 600 }],
      'max-lines-per-function': ['error', { max: 100 }],
    },
  },
  {
    // The core runs in plain Node (tests, the doctor CLI). It must never reach for the editor.
    files: ['src/core/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [{ name: 'vscode', message: 'src/core must not depend on vscode; put editor code in src/editor.' }],
          patterns: [{ group: ['**/editor/**', '**/extension'], message: 'src/core must not depend on the editor adapter.' }],
        },
      ],
      '@typescript-eslint/no-explicit-any': 'error',
    },
  },
);

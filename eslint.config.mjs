// Lint for the whole tree: typescript-eslint's recommended rules; formatting is Prettier's (`npm run format`).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';
import globals from 'globals';

export default tseslint.config(
  {
    ignores: ['node_modules/', '.data/', 'dist/', 'coverage/', 'test/artifacts/', 'src/generated/'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  prettier,
  {
    languageOptions: { ecmaVersion: 2023, sourceType: 'module', globals: globals.node },
    rules: {
      // Resolver parents, GraphQL results and JSON bodies are loosely typed at the edges.
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
      // A variable a closure reads before its one assignment (a metric made once the app's parts exist).
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      // Modules declare their members of the kernel's `Loaders` by declaration merging, from an empty interface.
      '@typescript-eslint/no-empty-object-type': ['error', { allowInterfaces: 'always' }],
    },
  },
  {
    files: ['**/*.js', '**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);

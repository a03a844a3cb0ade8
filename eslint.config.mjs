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
    // Libraries through their public APIs only: no internal files, no private members, no generated
    // code, no proxies over a library's objects. MikroORM describes the tables and migrates them; the
    // service reads and writes through kernel/db/db.ts.
    files: ['src/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['pg/lib/*', 'knex', 'knex/*', '@mikro-orm/*/*', 'graphile-worker/dist/*'],
              message: "a library's internal files: use its public API",
            },
          ],
          paths: [
            {
              name: '@mikro-orm/postgresql',
              importNames: ['EntityManager', 'QueryBuilder', 'wrap', 'LockMode', 'Reference', 'Collection', 'ref'],
              message: 'reads and writes go through kernel/db/db.ts (Reader, Tx)',
            },
            {
              name: '@mikro-orm/core',
              importNames: ['EntityManager', 'QueryBuilder', 'wrap', 'LockMode', 'Reference', 'Collection', 'ref'],
              message: 'reads and writes go through kernel/db/db.ts (Reader, Tx)',
            },
          ],
        },
      ],
      'no-new-func': 'error',
      'no-restricted-syntax': [
        'error',
        {
          selector: 'MemberExpression[property.name=/^_[a-zA-Z]/]',
          message: 'a private or underscored member: use the public API',
        },
        { selector: 'NewExpression[callee.name="Proxy"]', message: "no proxy over a library's objects" },
        {
          selector:
            'MemberExpression[property.name=/^(getKnex|getKnexQuery|getTransactionContext|setTransactionContext|em)$/]',
          message: "MikroORM's entity manager and knex are not the data layer: use kernel/db/db.ts",
        },
      ],
    },
  },
  {
    files: ['**/*.js', '**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);

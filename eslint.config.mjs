// ESLint with typescript-eslint's type-checked rules over the TypeScript sources (npm run check).
// Formatting is Prettier's; the JavaScript scripts are plain Node and checked by running them.

import tseslint from 'typescript-eslint'

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      '.tmp/',
      '.tools/',
      '.wrangler/',
      'public/',
      'docs/',
      // Built by scripts/build-client.mjs (npm pack, the package test) from client/src.
      'client/dist/',
      'client/src/openapi.d.ts',
      'src/admin/openapi.d.ts',
      // Apps of their own, type-checked by their own build against the packed client
      // (test/browser/example.test.ts).
      'examples/',
      '**/*.mjs',
      '**/*.js',
    ],
  },
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        project: ['./tsconfig.json', './tsconfig.node.json', './client/tsconfig.json'],
        tsconfigRootDir: import.meta.dirname,
      },
    },
  },
)

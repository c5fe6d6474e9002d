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
  {
    // The data plane's bundle leaves out what hono's app.mount(), c.req.parseBody() and c.html()
    // need (wrangler.jsonc "alias", build/no-hono-extras.ts): its code calls none of them.
    files: ['src/**/*.ts'],
    ignores: ['src/admin/**', 'src/routes/admin/**'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: 'CallExpression[callee.property.name=/^(mount|parseBody|html)$/]',
          message:
            "Not in the data plane's bundle (build/no-hono-extras.ts): read the body as the routes do (src/middleware/json-body.ts).",
        },
      ],
    },
  },
)

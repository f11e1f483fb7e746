// Jest compiles our TypeScript with ts-jest (transpile-only; `npm run lint` type-checks), and the
// ESM-only Nest 12 packages to CommonJS, because Jest's module loader cannot require() ES modules
// on Node 20 (test/helpers/esm-to-cjs.transformer.js).
const esmPackages = [
  '@nestjs',
  'file-type',
  'load-esm',
  'uid',
  'strtok3',
  'token-types',
  '@tokenizer',
  'uint8array-extras',
  '@borewit',
];

/** @type {import('jest').Config} */
module.exports = {
  rootDir: '.',
  roots: ['<rootDir>/src', '<rootDir>/test'],
  testRegex: '\\.(e2e-)?spec\\.ts$',
  moduleFileExtensions: ['ts', 'js', 'mjs', 'json'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.jest.json' }],
    '^.+\\.m?js$': '<rootDir>/test/helpers/esm-to-cjs.transformer.js',
  },
  transformIgnorePatterns: [`/node_modules/(?!(${esmPackages.join('|')})/)`],
  testEnvironment: 'node',
  globalSetup: '<rootDir>/test/helpers/global-setup.ts',
  globalTeardown: '<rootDir>/test/helpers/global-teardown.ts',
  testTimeout: 30000,
  // API tests mostly wait on PostgreSQL, so more workers than cores pays off.
  maxWorkers: process.env.JEST_MAX_WORKERS ?? 3,
};

// The browser tests: package.json's jest configuration (transform, database set-up) for the
// test/e2e/*.e2e.ts files, which `npm test` does not match. One worker: one browser at a time.
const base = require('../../package.json').jest;

module.exports = {
  ...base,
  rootDir: '../..',
  testMatch: ['<rootDir>/test/e2e/**/*.e2e.ts'],
  maxWorkers: 1,
  testTimeout: 120_000,
};

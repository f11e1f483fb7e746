// `node -r ./test/helpers/ts-register.js file.ts`: runs our TypeScript in a child process without a
// build, transpiling each .ts file to CommonJS on require (as ts-jest does, no type check). Used by
// tests that need real separate processes (job workers killed with SIGKILL).
const fs = require('node:fs');
const ts = require('typescript');

const compilerOptions = {
  module: ts.ModuleKind.CommonJS,
  target: ts.ScriptTarget.ES2022,
  esModuleInterop: true,
  experimentalDecorators: true,
  emitDecoratorMetadata: true,
  isolatedModules: true,
  sourceMap: false,
};

require.extensions['.ts'] = (module, filename) => {
  const source = fs.readFileSync(filename, 'utf8');
  const { outputText } = ts.transpileModule(source, { compilerOptions, fileName: filename });
  module._compile(outputText, filename);
};

// Jest transformer for the ES-module-only packages in node_modules (Nest 12 and its helpers):
// Jest's module loader cannot require() ES modules on Node 20, so they are compiled to CommonJS
// with TypeScript's transpiler. `import.meta.url`, which CommonJS has no syntax for, becomes the
// file URL of the module.
const { createHash } = require('node:crypto');
const ts = require('typescript');

const compilerOptions = {
  module: ts.ModuleKind.CommonJS,
  target: ts.ScriptTarget.ES2022,
  allowJs: true,
  esModuleInterop: true,
  sourceMap: false,
};

module.exports = {
  getCacheKey(source, filename) {
    return createHash('sha256').update('esm-to-cjs-v3').update(filename).update(source).digest('hex');
  },
  process(source, filename) {
    const patched = source
      // `const require = createRequire(import.meta.url)`: CommonJS already has `require`.
      .replace(/^\s*(?:const|let|var)\s+require\s*=\s*[\w.]*createRequire\(\s*import\.meta\.url\s*\);?\s*$/gm, '')
      .replace(/\bimport\.meta\.url\b/g, "require('node:url').pathToFileURL(__filename).href")
      // @nestjs/terminus checks its optional peers with `import.meta.resolve`.
      .replace(/\bimport\.meta\.resolve\(/g, 'require.resolve(')
      .replace(/\bimport\.meta\.dirname\b/g, '__dirname');
    const out = ts.transpileModule(patched, { compilerOptions, fileName: filename });
    return { code: out.outputText };
  },
};

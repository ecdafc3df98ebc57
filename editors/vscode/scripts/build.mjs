// Bundles the extension with esbuild into dist/extension.js (vscode stays external).
// With --tests, also bundles every test/*.test.ts into out/test/, with the `vscode`
// module replaced by the fake in test/mocks/vscode.ts.
import * as esbuild from 'esbuild';
import { readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const production = process.argv.includes('--production');
const withTests = process.argv.includes('--tests');

await esbuild.build({
  absWorkingDir: root,
  entryPoints: ['src/extension.ts'],
  outfile: 'dist/extension.js',
  bundle: true,
  platform: 'node',
  format: 'cjs',
  // VS Code 1.82 runs extensions on Node 18.
  target: 'node18',
  external: ['vscode'],
  minify: production,
  sourcemap: production ? false : 'linked',
  logLevel: 'warning',
});

if (withTests) {
  const testDir = join(root, 'test');
  const entryPoints = readdirSync(testDir)
    .filter((name) => name.endsWith('.test.ts'))
    .map((name) => join('test', name));
  await esbuild.build({
    absWorkingDir: root,
    entryPoints,
    outdir: 'out/test',
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    sourcemap: 'inline',
    alias: { vscode: './test/mocks/vscode.ts' },
    logLevel: 'warning',
  });
}

// Builds the extension and the tests, then runs every out/test/*.test.js with
// node's built-in test runner. The files are listed explicitly so this works the
// same on every Node version and shell (no glob or directory semantics).
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const run = (args) => spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit' }).status ?? 1;

const buildStatus = run([join('scripts', 'build.mjs'), '--tests']);
if (buildStatus !== 0) process.exit(buildStatus);

const testFiles = readdirSync(join(root, 'out', 'test'))
  .filter((name) => name.endsWith('.test.js'))
  .sort()
  .map((name) => join('out', 'test', name));
if (testFiles.length === 0) {
  console.error('No test files were built into out/test.');
  process.exit(1);
}
process.exit(run(['--test', ...testFiles]));

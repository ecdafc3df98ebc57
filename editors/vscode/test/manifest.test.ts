/**
 * Checks the manifest (package.json) against the code and the built bundle:
 * every command the code registers is contributed and activates the
 * extension, every setting the code reads is contributed with the right
 * shape, and vsce will package what `main` points at.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { COMMANDS, DOCUMENT_SELECTOR, FIX_ALL_KIND, RESTRICTED_SETTING_KEYS, SETTING_KEYS } from '../src/constants';

// Bundled into out/test/, so the extension root is two levels up.
const root = resolve(__dirname, '..', '..');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const properties: Record<string, Record<string, unknown>> = manifest.contributes.configuration.properties;

describe('package.json manifest', () => {
  it('contributes exactly the commands the extension registers, with the documented titles', () => {
    const contributed = Object.fromEntries(
      manifest.contributes.commands.map((entry: { command: string; category: string; title: string }) => [
        entry.command,
        `${entry.category}: ${entry.title}`,
      ]),
    );
    assert.deepEqual(contributed, {
      [COMMANDS.restartServer]: 'skewlsp: Restart Server',
      [COMMANDS.showLogs]: 'skewlsp: Show Logs',
      [COMMANDS.previewLoop]: 'skewlsp: Preview Rewritten Loop',
      [COMMANDS.explainCode]: 'skewlsp: Explain Code',
      [COMMANDS.fixAll]: 'skewlsp: Fix All Auto-fixable Problems',
    });
  });

  it('activates on Python files only: VS Code derives command activation from contributes.commands', () => {
    assert.deepEqual(manifest.activationEvents, ['onLanguage:python']);
  });

  it('contributes exactly the settings the extension reads', () => {
    assert.deepEqual(Object.keys(properties).sort(), SETTING_KEYS.map((key) => `skewlsp.${key}`).sort());
  });

  it('gives each setting the documented type and default', () => {
    assert.deepEqual(properties['skewlsp.path'].type, ['array', 'string']);
    // shaped like ruff-vscode's settings of the same name
    assert.equal(properties['skewlsp.interpreter'].type, 'array');
    assert.deepEqual(properties['skewlsp.interpreter'].default, []);
    assert.equal(properties['skewlsp.args'].type, 'array');
    assert.deepEqual(properties['skewlsp.trace.server'].enum, ['off', 'messages', 'verbose']);
    assert.equal(properties['skewlsp.enable'].type, 'boolean');
    assert.equal(properties['skewlsp.enable'].default, true);
    assert.deepEqual(properties['skewlsp.logLevel'].enum, ['error', 'warning', 'info', 'debug', null]);
    assert.deepEqual(properties['skewlsp.logFile'].type, ['string', 'null']);
    assert.deepEqual(properties['skewlsp.run'].enum, ['onType', 'onSave']);
    assert.equal(properties['skewlsp.run'].default, 'onType');
    assert.equal(properties['skewlsp.debounce'].type, 'integer');
    assert.equal(properties['skewlsp.debounce'].default, 150);
    assert.equal(properties['skewlsp.trace.server'].default, 'off');
    assert.equal(properties['skewlsp.codeLens.enable'].type, 'boolean');
    assert.equal(properties['skewlsp.inlayHints.enable'].type, 'boolean');
    for (const key of ['select', 'ignore', 'src']) {
      assert.deepEqual(properties[`skewlsp.${key}`].type, ['array', 'null'], key);
      assert.equal(properties[`skewlsp.${key}`].default, null, `${key} defaults to "server decides"`);
    }
    const severityValues = (properties['skewlsp.severity'].patternProperties as Record<string, { enum: string[] }>)[
      '^SKW[0-9]+$'
    ];
    assert.deepEqual(severityValues.enum, ['error', 'warning', 'information', 'hint']);
    for (const [key, schema] of Object.entries(properties)) {
      assert.ok(schema.description || schema.markdownDescription, `${key} is described`);
    }
  });

  it('restricts the settings that choose an executable in untrusted workspaces', () => {
    const untrusted = manifest.capabilities.untrustedWorkspaces;
    assert.equal(untrusted.supported, 'limited');
    assert.deepEqual(
      untrusted.restrictedConfigurations,
      RESTRICTED_SETTING_KEYS.map((key) => `skewlsp.${key}`),
    );
    assert.deepEqual(untrusted.restrictedConfigurations, [
      'skewlsp.path',
      'skewlsp.interpreter',
      'skewlsp.args',
      'skewlsp.logFile',
    ]);
  });

  it("declares the server's Fix all kind, so editor.codeActionsOnSave and keybindings offer it", () => {
    assert.deepEqual(manifest.contributes.codeActions, [
      {
        languages: ['python'],
        actions: {
          kind: FIX_ALL_KIND,
          title: 'skewlint: Fix all auto-fixable problems',
          description: manifest.contributes.codeActions[0].actions.description,
        },
      },
    ]);
    const palette = manifest.contributes.menus.commandPalette as Array<{ command: string; when: string }>;
    assert.ok(palette.some((entry) => entry.command === COMMANDS.fixAll && entry.when === 'editorLangId == python'));
  });

  it('serves Python files on disk and unsaved ones', () => {
    assert.deepEqual(DOCUMENT_SELECTOR, [
      { scheme: 'file', language: 'python' },
      { scheme: 'untitled', language: 'python' },
    ]);
  });

  it('lints and checks formatting as part of npm test', () => {
    const test: string = manifest.scripts.test;
    assert.match(test, /npm run lint/);
    assert.match(test, /npm run format:check/);
    assert.equal(manifest.scripts.lint, 'eslint .');
    assert.equal(manifest.scripts['format:check'], 'prettier --check .');
  });

  it('has what vsce needs to package a release', () => {
    for (const field of ['name', 'publisher', 'version', 'license', 'engines']) {
      assert.ok(manifest[field], `${field} is set`);
    }
    // skewlsp has no public repository or website: no address is invented for one (vsce
    // would turn it into the .vsix's repository, bugs and homepage links).
    for (const field of ['repository', 'bugs', 'homepage']) {
      assert.equal(manifest[field], undefined, `${field} names no invented address`);
    }
    assert.match(manifest.scripts.package, /--allow-missing-repository/);
    assert.equal(manifest.license, 'MIT');
    assert.match(manifest.engines.vscode, /^\^1\.\d+\.\d+$/);
    // @types/vscode must not be newer than the VS Code the extension claims to support.
    assert.equal(manifest.devDependencies['@types/vscode'], manifest.engines.vscode.slice(1));
    for (const file of ['README.md', 'CHANGELOG.md', 'LICENSE', '.vscodeignore']) {
      assert.ok(existsSync(join(root, file)), `${file} exists`);
    }
    for (const dependencies of [manifest.dependencies, manifest.devDependencies]) {
      for (const [name, version] of Object.entries(dependencies as Record<string, string>)) {
        assert.match(version, /^\d+\.\d+\.\d+$/, `${name} is pinned to an exact version`);
      }
    }
  });

  it('points main at the esbuild bundle, which keeps vscode external and registers every command', () => {
    assert.equal(manifest.main, './dist/extension.js');
    const bundlePath = join(root, manifest.main);
    assert.ok(existsSync(bundlePath), 'dist/extension.js was built');
    const bundle = readFileSync(bundlePath, 'utf8');
    assert.match(bundle, /require\("vscode"\)/);
    for (const command of Object.values(COMMANDS))
      assert.ok(bundle.includes(`"${command}"`), `${command} is in the bundle`);
    assert.ok(bundle.includes('"skewlsp/preview"'));
    assert.ok(bundle.includes('"skewlsp.explain"'));
  });
});

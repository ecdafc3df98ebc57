import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { SettingKey } from '../src/constants';
import {
  answerConfigurationRequest,
  buildInitializationOptions,
  buildServerSettings,
  didChangeConfigurationParams,
} from '../src/initOptions';
import { readSettings, serverLaunchArguments } from '../src/settings';

const CLIENT_COMMANDS = ['skewlsp.previewLoop', 'skewlsp.explainCode'];

/** What `WorkspaceConfiguration.get` returns with the manifest's defaults and no user settings. */
const MANIFEST_DEFAULTS: Partial<Record<SettingKey, unknown>> = {
  enable: true,
  path: [],
  interpreter: [],
  args: [],
  'trace.server': 'off',
  logLevel: null,
  logFile: null,
  run: 'onType',
  debounce: 150,
  'codeLens.enable': true,
  'inlayHints.enable': true,
  select: null,
  ignore: null,
  severity: null,
  src: null,
  docsUrl: null,
  environment: null,
  argv: null,
  variants: null,
};

function settingsFrom(values: Partial<Record<SettingKey, unknown>>) {
  const all = { ...MANIFEST_DEFAULTS, ...values };
  return readSettings((key) => all[key]);
}

describe('readSettings', () => {
  it('reads the defaults as "nothing configured"', () => {
    const settings = settingsFrom({});
    assert.deepEqual(settings.serverCommand, []);
    assert.deepEqual(settings.interpreter, []);
    assert.deepEqual(settings.extraArgs, []);
    assert.equal(settings.select, undefined);
    assert.equal(settings.enabled, true);
    assert.equal(settings.logLevel, undefined);
    assert.equal(settings.logFile, undefined);
    assert.deepEqual(settings.problems, []);
  });

  it("turns the log settings into the server's --log-level and --log-file", () => {
    assert.deepEqual(serverLaunchArguments(settingsFrom({})), []);
    assert.deepEqual(serverLaunchArguments(settingsFrom({ logLevel: 'debug', logFile: '/tmp/s.log' })), [
      '--log-level',
      'debug',
      '--log-file',
      '/tmp/s.log',
    ]);
    const bad = settingsFrom({ logLevel: 'loud', run: 'sometimes', debounce: -5, enable: 'no' });
    assert.deepEqual(serverLaunchArguments(bad), []);
    assert.equal(bad.run, undefined);
    assert.equal(bad.debounce, undefined);
    assert.equal(bad.enabled, true);
    assert.equal(bad.problems.length, 4);
  });

  it('reads log levels in lower case as ruff-vscode does, and the old upper case with a note', () => {
    for (const level of ['error', 'warning', 'info', 'debug']) {
      const settings = settingsFrom({ logLevel: level });
      assert.equal(settings.logLevel, level);
      assert.deepEqual(settings.problems, []);
    }
    const old = settingsFrom({ logLevel: 'WARNING' });
    assert.equal(old.logLevel, 'warning');
    assert.deepEqual(old.problems, ['skewlsp.logLevel "WARNING" is deprecated: use "warning"']);
  });

  it('reads skewlsp.interpreter as an array as ruff-vscode does, and the old string with a note', () => {
    assert.deepEqual(settingsFrom({ interpreter: ['/venv/bin/python', '-X', 'utf8'] }).interpreter, [
      '/venv/bin/python',
      '-X',
      'utf8',
    ]);
    const old = settingsFrom({ interpreter: ' /venv/bin/python ' });
    assert.deepEqual(old.interpreter, ['/venv/bin/python']);
    assert.deepEqual(old.problems, [
      'skewlsp.interpreter as a string is deprecated: write it as an array, ["/venv/bin/python"]',
    ]);
    assert.deepEqual(settingsFrom({ interpreter: '' }).interpreter, []);
    assert.deepEqual(settingsFrom({ interpreter: [''] }).interpreter, []);
  });

  it('reads skewlsp.enable = false', () => {
    assert.equal(settingsFrom({ enable: false }).enabled, false);
  });

  it('accepts skewlsp.path as a string or as a command line array', () => {
    assert.deepEqual(settingsFrom({ path: '/venv/bin/skewlsp' }).serverCommand, ['/venv/bin/skewlsp']);
    assert.deepEqual(settingsFrom({ path: ['/venv/bin/python', '-m', 'skewlsp'] }).serverCommand, [
      '/venv/bin/python',
      '-m',
      'skewlsp',
    ]);
    assert.deepEqual(settingsFrom({ path: '   ' }).serverCommand, []);
  });

  it('normalizes reason codes and severities, and reports what it drops', () => {
    const settings = settingsFrom({
      select: ['skw02', ' SKW001 ', 'E501', 7],
      severity: { skw010: 'Information', SKW002: 'fatal', banana: 'error' },
      interpreter: 42,
    });
    assert.deepEqual(settings.select, ['SKW02', 'SKW001']);
    assert.deepEqual(settings.severity, { SKW010: 'information' });
    assert.deepEqual(settings.interpreter, []);
    assert.equal(settings.problems.length, 5);
    assert.ok(settings.problems.some((line) => line.includes('"E501"')));
    assert.ok(settings.problems.some((line) => line.includes('skewlsp.severity.SKW002')));
    assert.ok(settings.problems.some((line) => line.includes('skewlsp.interpreter must be an array of strings')));
  });
});

describe('buildInitializationOptions', () => {
  it('sends the server settings in camelCase and omits unset ones', () => {
    assert.deepEqual(buildInitializationOptions(settingsFrom({})), {
      codeLens: true,
      inlayHints: true,
      run: 'onType',
      debounce: 150,
      clientCommands: CLIENT_COMMANDS,
    });
    assert.deepEqual(
      buildServerSettings(
        settingsFrom({
          select: ['SKW0'],
          ignore: ['SKW030'],
          severity: { SKW010: 'hint' },
          src: ['src', 'kernels'],
          'codeLens.enable': false,
          'inlayHints.enable': false,
          run: 'onSave',
          debounce: 400,
        }),
      ),
      {
        select: ['SKW0'],
        ignore: ['SKW030'],
        severity: { SKW010: 'hint' },
        src: ['src', 'kernels'],
        codeLens: false,
        inlayHints: false,
        run: 'onSave',
        debounce: 400,
      },
    );
  });

  it("sends a team's docsUrl, and refuses one that names no code", () => {
    const template = 'https://team.example/skewlint/rules.html#{code_lower}';
    assert.equal(buildInitializationOptions(settingsFrom({ docsUrl: template })).docsUrl, template);
    const bad = settingsFrom({ docsUrl: 'https://team.example/skewlint' });
    assert.equal(bad.docsUrl, undefined);
    assert.ok(bad.problems.some((line) => line.startsWith('skewlsp.docsUrl must be an absolute URL')));
    assert.equal('docsUrl' in buildInitializationOptions(settingsFrom({})), false);
  });

  it('sends the assumed build: environment, argv and variants, as the server reads them', () => {
    const settings = settingsFrom({
      environment: { MODE: 'fast', DECODE_BATCH: '8' },
      argv: ['--variant', 'flash'],
      variants: false,
    });
    assert.deepEqual(settings.problems, []);
    const sent = buildServerSettings(settings);
    assert.deepEqual(sent.environment, { MODE: 'fast', DECODE_BATCH: '8' });
    assert.deepEqual(sent.argv, ['--variant', 'flash']);
    assert.equal(sent.variants, false);
    const init = buildInitializationOptions(settings);
    assert.deepEqual([init.environment, init.argv, init.variants], [sent.environment, sent.argv, false]);
    const unset = buildServerSettings(settingsFrom({}));
    assert.equal('environment' in unset || 'argv' in unset || 'variants' in unset, false);
  });

  it('refuses an environment the server would refuse, and says why', () => {
    const bad = settingsFrom({ environment: { 'A=B': 'x', OK: 'y', NUM: 3 }, argv: 'serve.py', variants: 'yes' });
    assert.deepEqual(bad.environment, { OK: 'y' });
    assert.equal(bad.argv, undefined);
    assert.equal(bad.variants, undefined);
    assert.equal(bad.problems.length, 4);
    assert.ok(bad.problems.some((line) => line.startsWith('skewlsp.environment: ignoring "A=B"')));
    assert.ok(bad.problems.some((line) => line.startsWith('skewlsp.argv must be an array of strings')));
    assert.ok(bad.problems.some((line) => line.startsWith('skewlsp.variants must be true or false')));
  });

  it('tells the server, at initialization only, which commands this extension runs itself', () => {
    assert.deepEqual(buildInitializationOptions(settingsFrom({})).clientCommands, CLIENT_COMMANDS);
    assert.equal('clientCommands' in buildServerSettings(settingsFrom({})), false);
  });

  it('keeps an explicitly empty list distinct from unset', () => {
    assert.deepEqual(buildInitializationOptions(settingsFrom({ ignore: [] })).ignore, []);
    assert.equal('ignore' in buildInitializationOptions(settingsFrom({ ignore: null })), false);
  });

  it('never sends launch settings to the server', () => {
    const options = buildServerSettings(
      settingsFrom({ path: '/x', interpreter: ['/p'], args: ['-v'], logFile: '/l', logLevel: 'debug', enable: true }),
    );
    assert.deepEqual(Object.keys(options).sort(), ['codeLens', 'debounce', 'inlayHints', 'run']);
  });

  it('leaves no undefined values behind (they would vanish in JSON anyway)', () => {
    const options = buildInitializationOptions(settingsFrom({ 'codeLens.enable': undefined }));
    assert.ok(Object.values(options).every((value) => value !== undefined));
    assert.equal('codeLens' in options, false);
  });
});

describe('workspace/configuration middleware', () => {
  const serverSettingsFor = (scopeUri: string | undefined) =>
    scopeUri === 'file:///ws/b' ? { select: ['SKW02'] } : { codeLens: false };

  it('answers section skewlsp with the server settings for the scope and keeps other answers', () => {
    const answers = answerConfigurationRequest(
      [{ section: 'skewlsp' }, { section: 'python' }, { section: 'skewlsp', scopeUri: 'file:///ws/b' }, {}],
      [{ raw: 1 }, { python: true }, { raw: 2 }, undefined],
      serverSettingsFor,
    );
    assert.deepEqual(answers, [{ codeLens: false }, { python: true }, { select: ['SKW02'] }, null]);
  });

  it('answers sub-sections such as skewlsp.select', () => {
    assert.deepEqual(
      answerConfigurationRequest(
        [{ section: 'skewlsp.select', scopeUri: 'file:///ws/b' }, { section: 'skewlsp.src' }],
        [1, 2],
        serverSettingsFor,
      ),
      [['SKW02'], null],
    );
  });

  it('wraps the settings under skewlsp for didChangeConfiguration', () => {
    assert.deepEqual(didChangeConfigurationParams({ codeLens: true }), { settings: { skewlsp: { codeLens: true } } });
  });
});

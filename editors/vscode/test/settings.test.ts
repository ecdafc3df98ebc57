import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { SettingKey } from '../src/constants';
import {
  answerConfigurationRequest,
  buildInitializationOptions,
  didChangeConfigurationParams,
} from '../src/initOptions';
import { readSettings } from '../src/settings';

/** What `WorkspaceConfiguration.get` returns with the manifest's defaults and no user settings. */
const MANIFEST_DEFAULTS: Partial<Record<SettingKey, unknown>> = {
  path: [],
  interpreter: '',
  args: [],
  'trace.server': 'off',
  'codeLens.enable': true,
  'inlayHints.enable': true,
  select: null,
  ignore: null,
  severity: null,
  src: null,
};

function settingsFrom(values: Partial<Record<SettingKey, unknown>>) {
  const all = { ...MANIFEST_DEFAULTS, ...values };
  return readSettings((key) => all[key]);
}

describe('readSettings', () => {
  it('reads the defaults as "nothing configured"', () => {
    const settings = settingsFrom({});
    assert.deepEqual(settings.serverCommand, []);
    assert.equal(settings.interpreter, undefined);
    assert.deepEqual(settings.extraArgs, []);
    assert.equal(settings.select, undefined);
    assert.deepEqual(settings.problems, []);
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
    assert.equal(settings.interpreter, undefined);
    assert.equal(settings.problems.length, 5);
    assert.ok(settings.problems.some((line) => line.includes('"E501"')));
    assert.ok(settings.problems.some((line) => line.includes('skewlsp.severity.SKW002')));
    assert.ok(settings.problems.some((line) => line.includes('skewlsp.interpreter must be a string')));
  });
});

describe('buildInitializationOptions', () => {
  it('sends the server settings in camelCase and omits unset ones', () => {
    assert.deepEqual(buildInitializationOptions(settingsFrom({})), { codeLens: true, inlayHints: true });
    assert.deepEqual(
      buildInitializationOptions(
        settingsFrom({
          select: ['SKW0'],
          ignore: ['SKW030'],
          severity: { SKW010: 'hint' },
          src: ['src', 'kernels'],
          'codeLens.enable': false,
          'inlayHints.enable': false,
        }),
      ),
      {
        select: ['SKW0'],
        ignore: ['SKW030'],
        severity: { SKW010: 'hint' },
        src: ['src', 'kernels'],
        codeLens: false,
        inlayHints: false,
      },
    );
  });

  it('keeps an explicitly empty list distinct from unset', () => {
    assert.deepEqual(buildInitializationOptions(settingsFrom({ ignore: [] })).ignore, []);
    assert.equal('ignore' in buildInitializationOptions(settingsFrom({ ignore: null })), false);
  });

  it('never sends launch settings to the server', () => {
    const options = buildInitializationOptions(settingsFrom({ path: '/x', interpreter: '/p', args: ['-v'] }));
    assert.deepEqual(Object.keys(options).sort(), ['codeLens', 'inlayHints']);
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
      answerConfigurationRequest([{ section: 'skewlsp.select', scopeUri: 'file:///ws/b' }, { section: 'skewlsp.src' }], [1, 2], serverSettingsFor),
      [['SKW02'], null],
    );
  });

  it('wraps the settings under skewlsp for didChangeConfiguration', () => {
    assert.deepEqual(didChangeConfigurationParams({ codeLens: true }), { settings: { skewlsp: { codeLens: true } } });
  });
});

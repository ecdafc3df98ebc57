import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { interpreterFromPythonApi, PYTHON_EXTENSION_ID, selectedPythonInterpreter } from '../src/pythonExtension';
import { installedExtensions } from './mocks/vscode';

describe('interpreterFromPythonApi', () => {
  it('prefers the resolved executable of the active environment', async () => {
    const api = {
      environments: {
        getActiveEnvironmentPath: () => ({ id: 'conda-k', path: '/conda/envs/k' }),
        resolveEnvironment: async () => ({ executable: { uri: { fsPath: '/conda/envs/k/bin/python' } } }),
      },
    };
    assert.equal(await interpreterFromPythonApi(api, undefined), '/conda/envs/k/bin/python');
  });

  it('falls back to the active environment path when it cannot be resolved', async () => {
    const api = {
      environments: {
        getActiveEnvironmentPath: () => ({ id: 'x', path: '/venv/bin/python' }),
        resolveEnvironment: async () => undefined,
      },
    };
    assert.equal(await interpreterFromPythonApi(api, undefined), '/venv/bin/python');
  });

  it('uses the older settings.getExecutionDetails API', async () => {
    const api = { settings: { getExecutionDetails: () => ({ execCommand: ['/usr/bin/python3.11', '-X'] }) } };
    assert.equal(await interpreterFromPythonApi(api, undefined), '/usr/bin/python3.11');
  });

  it('returns undefined for an API without either', async () => {
    assert.equal(await interpreterFromPythonApi(undefined, undefined), undefined);
    assert.equal(await interpreterFromPythonApi({}, undefined), undefined);
    assert.equal(
      await interpreterFromPythonApi({ settings: { getExecutionDetails: () => ({ execCommand: [] }) } }, undefined),
      undefined,
    );
  });
});

describe('selectedPythonInterpreter', () => {
  afterEach(() => installedExtensions.clear());

  it('returns undefined when ms-python.python is not installed', async () => {
    assert.equal(await selectedPythonInterpreter(undefined), undefined);
  });

  it('activates the extension when needed and reads its API', async () => {
    let activated = false;
    const api = { settings: { getExecutionDetails: () => ({ execCommand: ['/venv/bin/python'] }) } };
    installedExtensions.set(PYTHON_EXTENSION_ID, {
      isActive: false,
      exports: undefined,
      activate: async () => {
        activated = true;
        return api;
      },
    });
    assert.equal(await selectedPythonInterpreter(undefined), '/venv/bin/python');
    assert.equal(activated, true);
  });

  it('swallows a failing activation', async () => {
    installedExtensions.set(PYTHON_EXTENSION_ID, {
      isActive: false,
      exports: undefined,
      activate: async () => {
        throw new Error('activation failed');
      },
    });
    assert.equal(await selectedPythonInterpreter(undefined), undefined);
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MISSING_SERVER_MESSAGE, OPEN_SETTINGS, reportMissingServer, SHOW_OUTPUT } from '../src/missingServer';

function fakeDeps(choice: string | undefined) {
  const events: string[] = [];
  const logged: string[] = [];
  return {
    events,
    logged,
    deps: {
      showError: async (message: string, ...actions: string[]) => {
        events.push(`error:${message}|${actions.join(',')}`);
        return choice;
      },
      openSettings: async () => events.push('open-settings'),
      showOutput: () => events.push('show-output'),
      log: (line: string) => logged.push(line),
    },
  };
}

describe('reportMissingServer', () => {
  it('shows how to fix it, with Open Settings and Show Logs buttons', async () => {
    const fake = fakeDeps(undefined);
    await reportMissingServer(fake.deps, ['PATH: no skewlsp executable on PATH']);
    assert.deepEqual(fake.events, [`error:${MISSING_SERVER_MESSAGE}|Open Settings,Show Logs`]);
    // skewlsp is not on PyPI: the fix named is one that works, from a checkout or a wheel
    assert.doesNotMatch(MISSING_SERVER_MESSAGE, /pip install skewlsp\b/);
    assert.match(MISSING_SERVER_MESSAGE, /python -m pip install \/path\/to\/skewlsp/);
    assert.match(MISSING_SERVER_MESSAGE, /skewlsp\.interpreter/);
    assert.match(MISSING_SERVER_MESSAGE, /skewlsp\.path/);
    assert.ok(fake.logged.every((line) => !/pip install skewlsp\b/.test(line)));
    assert.ok(fake.logged.includes('  - PATH: no skewlsp executable on PATH'), 'every place tried is logged');
  });

  it('opens the settings or the output channel as chosen', async () => {
    const settings = fakeDeps(OPEN_SETTINGS);
    await reportMissingServer(settings.deps, []);
    assert.equal(settings.events[1], 'open-settings');

    const output = fakeDeps(SHOW_OUTPUT);
    await reportMissingServer(output.deps, []);
    assert.equal(output.events[1], 'show-output');
  });
});

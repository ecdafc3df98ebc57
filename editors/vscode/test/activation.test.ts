/**
 * Loads the real bundle (dist/extension.js) against a recording fake of the
 * VS Code API and activates it on a machine where no server can be found:
 * the commands and the preview scheme must be registered, and the user must
 * get the "no server found" notification with its two buttons.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { COMMANDS, PREVIEW_SCHEME } from '../src/constants';
import { MISSING_SERVER_MESSAGE } from '../src/missingServer';
import { createRecordedHost, requireWithVscode } from './mocks/vscodeHost';

const bundlePath = resolve(__dirname, '..', '..', 'dist', 'extension.js');

describe('activating the bundled extension without a server', () => {
  const emptyDir = mkdtempSync(join(tmpdir(), 'skewlsp-empty-path-'));
  const savedPath = process.env.PATH;
  before(() => {
    process.env.PATH = emptyDir;
  });
  after(() => {
    process.env.PATH = savedPath;
    rmSync(emptyDir, { recursive: true, force: true });
  });

  it('registers everything and says clearly that no server was found', async () => {
    const host = createRecordedHost({ path: ['/definitely/not/here/skewlsp'], interpreter: [] });
    const extension = requireWithVscode(bundlePath, host.api) as {
      activate: (context: unknown) => Promise<void>;
      deactivate: () => Promise<void>;
    };
    const context = { subscriptions: [] as Array<{ dispose(): unknown }> };
    const notified = host.nextErrorMessage();
    await extension.activate(context);

    assert.deepEqual([...host.registeredCommands.keys()].sort(), Object.values(COMMANDS).sort());
    assert.deepEqual(host.contentProviderSchemes, [PREVIEW_SCHEME]);

    const notification = await notified;
    assert.equal(notification.message, MISSING_SERVER_MESSAGE);
    assert.deepEqual(notification.actions, ['Open Settings', 'Show Logs']);
    const [status] = host.statusItems;
    assert.equal(status.id, 'skewlsp.status');
    assert.equal(status.text, 'skewlsp: server not found');
    assert.equal(status.severity, 2);
    const log = host.outputLines.join('\n');
    assert.match(log, /skewlsp\.path: \/definitely\/not\/here\/skewlsp was not found/);
    assert.match(log, /PATH: no skewlsp executable on PATH/);

    // A command run without a server repeats the notification instead of failing silently.
    const again = host.nextErrorMessage();
    await host.registeredCommands.get(COMMANDS.previewLoop)?.();
    assert.equal((await again).message, MISSING_SERVER_MESSAGE);

    await host.registeredCommands.get(COMMANDS.restartServer)?.();
    await extension.deactivate();
    for (const disposable of context.subscriptions) disposable.dispose();
  });

  it('with skewlsp.enable false, starts nothing, notifies nothing and says "disabled"', async () => {
    const host = createRecordedHost({ enable: false, path: ['/definitely/not/here/skewlsp'], interpreter: [] });
    const extension = requireWithVscode(bundlePath, host.api) as {
      activate: (context: unknown) => Promise<void>;
      deactivate: () => Promise<void>;
    };
    const context = { subscriptions: [] as Array<{ dispose(): unknown }> };
    await extension.activate(context);
    await host.registeredCommands.get(COMMANDS.restartServer)?.();
    assert.equal(host.statusItems[0].text, 'skewlsp: disabled');
    assert.deepEqual(host.errorMessages, []);
    assert.match(host.outputLines.join('\n'), /skewlsp\.enable is false/);
    await extension.deactivate();
    for (const disposable of context.subscriptions) disposable.dispose();
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FIX_ALL_KIND } from '../src/constants';
import { fixAll, SOURCE_ACTION_COMMAND } from '../src/fixAll';

describe('fixAll', () => {
  it("applies the server's source.fixAll.skewlint action to the active file", async () => {
    const executed: Array<{ command: string; args: unknown[] }> = [];
    const done = await fixAll({
      serverRunning: async () => true,
      executeCommand: async (command, ...args) => executed.push({ command, args }),
    });
    assert.equal(done, true);
    assert.equal(FIX_ALL_KIND, 'source.fixAll.skewlint');
    assert.deepEqual(executed, [{ command: SOURCE_ACTION_COMMAND, args: [{ kind: FIX_ALL_KIND, apply: 'first' }] }]);
  });

  it('does nothing without a server (the missing-server notification says why)', async () => {
    const executed: string[] = [];
    const done = await fixAll({
      serverRunning: async () => false,
      executeCommand: async (command) => executed.push(command),
    });
    assert.equal(done, false);
    assert.deepEqual(executed, []);
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { explainCode, markdownFromResult, normalizeCode, quickPickEntries, REASON_CODES, type ExplainDependencies } from '../src/explain';

function fakeDeps(options: { pick?: string; serverAnswer?: unknown }) {
  const calls = {
    picks: [] as Array<{ labels: string[]; placeholder: string }>,
    commands: [] as Array<{ command: string; args: unknown[] }>,
    shown: [] as Array<{ code: string; markdown: string }>,
    infos: [] as string[],
    errors: [] as string[],
  };
  const deps: ExplainDependencies = {
    pickCode: async (entries, placeholder) => {
      calls.picks.push({ labels: entries.map((entry) => entry.label), placeholder });
      return options.pick;
    },
    executeServerCommand: async (command, args) => {
      calls.commands.push({ command, args });
      if (options.serverAnswer instanceof Error) throw options.serverAnswer;
      return options.serverAnswer;
    },
    showMarkdown: async (code, markdown) => {
      calls.shown.push({ code, markdown });
    },
    showInformation: (message) => calls.infos.push(message),
    showError: (message) => calls.errors.push(message),
  };
  return { deps, calls };
}

describe('explainCode', () => {
  it('offers every reason code, sends workspace/executeCommand skewlsp.explain [code], and shows the markdown', async () => {
    const { deps, calls } = fakeDeps({ pick: 'SKW022', serverAnswer: '# SKW022\nDynamic bounds.' });
    assert.equal(await explainCode(deps), 'shown');
    assert.deepEqual(calls.picks[0].labels, [
      'SKW001', 'SKW002', 'SKW010', 'SKW020', 'SKW021', 'SKW022', 'SKW023', 'SKW024', 'SKW025', 'SKW026', 'SKW027',
      'SKW030', 'SKW040', 'SKW900',
    ]);
    assert.deepEqual(calls.commands, [{ command: 'skewlsp.explain', args: ['SKW022'] }]);
    assert.deepEqual(calls.shown, [{ code: 'SKW022', markdown: '# SKW022\nDynamic bounds.' }]);
  });

  it('skips the quick pick when given a code argument, in any case or as a diagnostic code object', async () => {
    const lower = fakeDeps({ serverAnswer: 'text' });
    await explainCode(lower.deps, 'skw040');
    assert.deepEqual(lower.calls.picks, []);
    assert.deepEqual(lower.calls.commands[0].args, ['SKW040']);

    const object = fakeDeps({ serverAnswer: 'text' });
    await explainCode(object.deps, { value: 'SKW001', target: 'https://example.invalid' });
    assert.deepEqual(object.calls.commands[0].args, ['SKW001']);
  });

  it('does nothing when the quick pick is dismissed', async () => {
    const { deps, calls } = fakeDeps({ pick: undefined });
    assert.equal(await explainCode(deps), 'cancelled');
    assert.deepEqual(calls.commands, []);
  });

  it('rejects an argument that is not a reason code', async () => {
    const { deps, calls } = fakeDeps({ serverAnswer: 'x' });
    assert.equal(await explainCode(deps, 'E501'), 'invalid-code');
    assert.deepEqual(calls.commands, []);
    assert.match(calls.errors[0], /"E501" is not a reason code/);
  });

  it('tells the user when the server has no explanation, and when the request fails', async () => {
    const empty = fakeDeps({ pick: 'SKW900', serverAnswer: null });
    assert.equal(await explainCode(empty.deps), 'no-explanation');
    assert.match(empty.calls.infos[0], /no explanation for SKW900/);

    const failing = fakeDeps({ pick: 'SKW900', serverAnswer: new Error('server crashed') });
    assert.equal(await explainCode(failing.deps), 'failed');
    assert.match(failing.calls.errors[0], /could not explain SKW900: server crashed/);
  });
});

describe('explain helpers', () => {
  it('normalizes codes', () => {
    assert.equal(normalizeCode(' skw020 '), 'SKW020');
    assert.equal(normalizeCode({ value: 'SKW030' }), 'SKW030');
    assert.equal(normalizeCode('SKW02'), undefined);
    assert.equal(normalizeCode(20), undefined);
  });

  it('reads markdown from a string or MarkupContent', () => {
    assert.equal(markdownFromResult('# x'), '# x');
    assert.equal(markdownFromResult({ kind: 'markdown', value: '# y' }), '# y');
    assert.equal(markdownFromResult('   '), undefined);
    assert.equal(markdownFromResult(undefined), undefined);
  });

  it('gives every quick pick entry a description', () => {
    assert.equal(quickPickEntries().length, REASON_CODES.length);
    assert.ok(quickPickEntries().every((entry) => entry.description.length > 0));
  });
});

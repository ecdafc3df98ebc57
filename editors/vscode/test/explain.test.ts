import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  explainCode,
  markdownFromResult,
  normalizeCode,
  quickPickEntries,
  reasonCodesFromResult,
  type ExplainDependencies,
} from '../src/explain';

/** What a server answers to skewlsp.listCodes (a short list: the test checks it is passed through, not copied). */
const SERVER_CODES = [
  { code: 'SKW001', title: 'loop skewed', severity: 'information', verdict: 'skewed' },
  { code: 'SKW050', title: 'conditional verdict', severity: 'information', verdict: 'unknown' },
  { code: 'SKW902', title: 'unreadable file', severity: 'error', verdict: '-' },
];

function fakeDeps(options: { pick?: string; serverAnswer?: unknown; codes?: unknown }) {
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
      const answer = command === 'skewlsp.listCodes' ? (options.codes ?? SERVER_CODES) : options.serverAnswer;
      if (answer instanceof Error) throw answer;
      return answer;
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
  it('offers the codes the server lists, sends skewlsp.explain [code], and shows the markdown', async () => {
    const { deps, calls } = fakeDeps({ pick: 'SKW050', serverAnswer: '# SKW050\nConditional.' });
    assert.equal(await explainCode(deps), 'shown');
    assert.deepEqual(calls.picks[0].labels, ['SKW001', 'SKW050', 'SKW902']);
    assert.deepEqual(calls.commands, [
      { command: 'skewlsp.listCodes', args: [] },
      { command: 'skewlsp.explain', args: ['SKW050'] },
    ]);
    assert.deepEqual(calls.shown, [{ code: 'SKW050', markdown: '# SKW050\nConditional.' }]);
  });

  it('says so when the server cannot list its codes', async () => {
    const failing = fakeDeps({ pick: 'SKW001', codes: new Error('no such command') });
    assert.equal(await explainCode(failing.deps), 'failed');
    assert.deepEqual(failing.calls.picks, []);
    assert.match(failing.calls.errors[0], /could not list the reason codes: no such command/);

    const empty = fakeDeps({ pick: 'SKW001', codes: [] });
    assert.equal(await explainCode(empty.deps), 'failed');
    assert.match(empty.calls.errors[0], /listed no reason codes/);
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
    assert.deepEqual(
      calls.commands.map((call) => call.command),
      ['skewlsp.listCodes'],
    );
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

  it("describes each quick pick entry with the server's title and severity", () => {
    assert.deepEqual(quickPickEntries(SERVER_CODES), [
      { label: 'SKW001', description: 'loop skewed (information)' },
      { label: 'SKW050', description: 'conditional verdict (information)' },
      { label: 'SKW902', description: 'unreadable file (error)' },
    ]);
  });

  it("keeps only well-formed entries of the server's list", () => {
    assert.deepEqual(reasonCodesFromResult(null), []);
    assert.deepEqual(reasonCodesFromResult([{ code: 'E501' }, 7, { code: 'SKW010' }]), [
      { code: 'SKW010', title: '', severity: '', verdict: '' },
    ]);
  });
});

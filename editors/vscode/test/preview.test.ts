import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type * as vscodeTypes from 'vscode';
import {
  NO_LOOP_MESSAGE,
  previewLoop,
  previewRequestParams,
  previewTitle,
  rewrittenSide,
  uriBaseName,
  type PreviewDependencies,
} from '../src/preview';
import { PreviewDocumentProvider } from '../src/previewProvider';
import { Uri } from './mocks/vscode';

const KERNEL_URI = 'file:///work/kernels/matmul%20kernel.py';
const ANSWER = {
  range: { start: { line: 41, character: 4 }, end: { line: 47, character: 0 } },
  original: 'for i in pl.pipeline(0, 8, stage=2):\n    body(i)\n',
  rewritten: 'body(0)\nfor i in range(1, 8):\n    body(i)\n',
};

/** Preview dependencies that record what the flow did; `answer` is what the fake server replies. */
function fakeDeps(answer: unknown, cursor?: { uri: string; position: { line: number; character: number } }) {
  const requests: Array<{ method: string; params: unknown }> = [];
  const diffs: Array<{ left: string; right: string; title: string }> = [];
  const infos: string[] = [];
  const errors: string[] = [];
  const documents = new PreviewDocumentProvider();
  const deps: PreviewDependencies = {
    sendRequest: async (method, params) => {
      requests.push({ method, params });
      if (answer instanceof Error) throw answer;
      return answer;
    },
    activeCursor: () => cursor,
    documents,
    showDiff: async (left, right, title) => {
      diffs.push({ left: left.toString(), right: right.toString(), title });
    },
    showInformation: (message) => infos.push(message),
    showError: (message) => errors.push(message),
  };
  return { deps, requests, diffs, infos, errors, documents };
}

describe('previewLoop', () => {
  it("shows a split loop's other cores after the rewrite, so nothing looks deleted", async () => {
    const others = "    # the compiler's vector (AIV) function\n    mi = pl.row_max(scaled)\n";
    const fake = fakeDeps({ ...ANSWER, others }, { uri: KERNEL_URI, position: { line: 42, character: 7 } });
    assert.equal(await previewLoop(fake.deps), 'shown');
    const [diff] = fake.diffs;
    assert.equal(
      fake.documents.provideTextDocumentContent(Uri.parse(diff.right) as unknown as vscodeTypes.Uri),
      ANSWER.rewritten + others,
    );
    assert.equal(rewrittenSide({ ...ANSWER, others: '' }), ANSWER.rewritten);
  });

  it('sends skewlsp/preview for the cursor and shows original ↔ rewritten in a diff', async () => {
    const fake = fakeDeps(ANSWER, { uri: KERNEL_URI, position: { line: 42, character: 7 } });
    assert.equal(await previewLoop(fake.deps), 'shown');
    assert.deepEqual(fake.requests, [
      {
        method: 'skewlsp/preview',
        params: { textDocument: { uri: KERNEL_URI }, position: { line: 42, character: 7 } },
      },
    ]);
    assert.equal(fake.diffs.length, 1);
    const [diff] = fake.diffs;
    assert.equal(diff.title, 'Loop preview: matmul kernel.py:42 (original ↔ rewritten)');
    assert.match(diff.left, /^skewlsp-preview:\/\d+\/matmul%20kernel\.original\.py$/);
    assert.match(diff.right, /^skewlsp-preview:\/\d+\/matmul%20kernel\.rewritten\.py$/);
    assert.equal(
      fake.documents.provideTextDocumentContent(Uri.parse(diff.left) as unknown as vscodeTypes.Uri),
      ANSWER.original,
    );
    assert.equal(
      fake.documents.provideTextDocumentContent(Uri.parse(diff.right) as unknown as vscodeTypes.Uri),
      ANSWER.rewritten,
    );
  });

  it('uses the (uri, position) arguments of the server code lens instead of the cursor', async () => {
    const fake = fakeDeps(ANSWER, { uri: 'file:///other.py', position: { line: 0, character: 0 } });
    await previewLoop(fake.deps, KERNEL_URI, { line: 41, character: 4 });
    assert.deepEqual(fake.requests[0].params, {
      textDocument: { uri: KERNEL_URI },
      position: { line: 41, character: 4 },
    });
  });

  it('accepts a vscode.Uri argument (menus) and uses the cursor when that document is active', async () => {
    const fake = fakeDeps(ANSWER, { uri: KERNEL_URI, position: { line: 3, character: 1 } });
    await previewLoop(fake.deps, Uri.parse(KERNEL_URI));
    assert.deepEqual(fake.requests[0].params, {
      textDocument: { uri: KERNEL_URI },
      position: { line: 3, character: 1 },
    });
  });

  it('says "No pl.pipeline loop at the cursor" when the server answers null', async () => {
    const fake = fakeDeps(null, { uri: KERNEL_URI, position: { line: 0, character: 0 } });
    assert.equal(await previewLoop(fake.deps), 'no-loop');
    assert.deepEqual(fake.infos, [NO_LOOP_MESSAGE]);
    assert.equal(NO_LOOP_MESSAGE, 'No pl.pipeline loop at the cursor');
    assert.deepEqual(fake.diffs, []);
  });

  it('asks for an editor when there is neither a cursor nor arguments', async () => {
    const fake = fakeDeps(ANSWER, undefined);
    assert.equal(await previewLoop(fake.deps), 'no-target');
    assert.deepEqual(fake.requests, []);
    assert.equal(fake.infos.length, 1);
  });

  it('reports a failed request and a malformed answer as errors', async () => {
    const failed = fakeDeps(new Error('Unhandled method skewlsp/preview'), {
      uri: KERNEL_URI,
      position: { line: 0, character: 0 },
    });
    assert.equal(await previewLoop(failed.deps), 'failed');
    assert.match(failed.errors[0], /could not preview the loop: Unhandled method skewlsp\/preview/);

    const malformed = fakeDeps({ original: 'x' }, { uri: KERNEL_URI, position: { line: 0, character: 0 } });
    assert.equal(await previewLoop(malformed.deps), 'failed');
    assert.equal(malformed.diffs.length, 0);
  });
});

describe('preview helpers', () => {
  it('builds LSP TextDocumentPositionParams', () => {
    assert.deepEqual(previewRequestParams('file:///a.py', { line: 1, character: 2 }), {
      textDocument: { uri: 'file:///a.py' },
      position: { line: 1, character: 2 },
    });
  });

  it('titles the diff with a 1-based line', () => {
    assert.equal(
      previewTitle('k.py', { start: { line: 0, character: 0 }, end: { line: 3, character: 0 } }),
      'Loop preview: k.py:1 (original ↔ rewritten)',
    );
  });

  it('decodes the base name of a URI', () => {
    assert.equal(uriBaseName('file:///a/b/my%20kernel.py'), 'my kernel.py');
    assert.equal(uriBaseName('untitled:Untitled-1'), 'untitled:Untitled-1');
    assert.equal(uriBaseName('file:///a/k.py?x=1#frag'), 'k.py');
  });
});

describe('PreviewDocumentProvider', () => {
  it('serves stored content under fresh skewlsp-preview URIs and fires onDidChange', () => {
    const provider = new PreviewDocumentProvider();
    const changed: string[] = [];
    provider.onDidChange((uri) => changed.push(uri.toString()));
    const first = provider.add('k.original.py', 'a');
    const second = provider.add('k.original.py', 'b');
    assert.equal(first.scheme, 'skewlsp-preview');
    assert.notEqual(first.toString(), second.toString());
    assert.equal(provider.provideTextDocumentContent(first), 'a');
    assert.equal(provider.provideTextDocumentContent(second), 'b');
    assert.deepEqual(changed, [first.toString(), second.toString()]);
  });

  it('replaces path separators in names and forgets the oldest documents beyond its capacity', () => {
    const provider = new PreviewDocumentProvider(2);
    const evicted = provider.add('a/b\\c.py', '1');
    assert.match(evicted.path, /^\/\d+\/a_b_c\.py$/);
    provider.add('d.py', '2');
    provider.add('e.py', '3');
    assert.equal(provider.size, 2);
    assert.match(provider.provideTextDocumentContent(evicted), /expired/);
  });

  it('answers an unknown URI with a hint instead of throwing', () => {
    const provider = new PreviewDocumentProvider();
    const unknown = Uri.parse('skewlsp-preview:/999/x.py') as unknown as vscodeTypes.Uri;
    assert.match(provider.provideTextDocumentContent(unknown), /run the command again/);
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { statusView, verdictCounts } from '../src/status';

/** code -> verdict as the server's skewlsp.listCodes gives it. */
const VERDICTS = new Map([
  ['SKW001', 'skewed'],
  ['SKW002', 'skewed'],
  ['SKW010', 'left'],
  ['SKW020', 'demoted'],
  ['SKW030', '-'],
  ['SKW050', 'unknown'],
  ['SKW900', 'error'],
  ['SKW901', '-'],
]);

describe('language status', () => {
  it("counts the current file's loops by the verdict the server gives each code", () => {
    const counts = verdictCounts(['SKW020', 'SKW001', 'SKW030', 'SKW002', 'SKW010', 'SKW901', 'SKW777'], VERDICTS);
    assert.deepEqual(
      [...counts.entries()],
      [
        ['demoted', 1],
        ['skewed', 2],
        ['left', 1],
      ],
    );
    assert.deepEqual(statusView('running', counts), {
      text: 'skewlsp: 2 skewed, 1 demoted, 1 left',
      detail: '2 skewed, 1 demoted, 1 left',
      problem: false,
    });
  });

  it('says when a file has no loop, does not parse, or no Python file is open', () => {
    assert.equal(statusView('running', new Map()).text, 'skewlsp: no pl.pipeline loop reported');
    assert.equal(statusView('running', verdictCounts(['SKW900'], VERDICTS), true).text, 'skewlsp: syntax error');
    assert.deepEqual(verdictCounts(['SKW900'], VERDICTS), new Map());
    assert.equal(statusView('running', undefined).detail, 'no Python file open');
  });

  it('shows the server state when it is not running, flagging the ones to act on', () => {
    assert.deepEqual(statusView('disabled', new Map([['skewed', 1]])), {
      text: 'skewlsp: disabled',
      detail: '',
      problem: false,
    });
    assert.equal(statusView('missing', undefined).problem, true);
    assert.equal(statusView('failed', undefined).text, 'skewlsp: server failed');
    assert.equal(statusView('starting', undefined).text, 'skewlsp: starting');
  });
});

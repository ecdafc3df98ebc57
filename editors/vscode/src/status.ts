/**
 * The language status item: whether the server runs, and what it says about the
 * current file (how many loops are skewed, demoted, left, ...).
 *
 * Pure: the state and the file's diagnostic codes in, text out. The verdict of
 * each code comes from the server's own code list (`skewlsp.listCodes`), so a
 * code added to the server is counted without a change here.
 */

export type ServerState = 'starting' | 'running' | 'stopped' | 'disabled' | 'missing' | 'failed';

export interface StatusView {
  text: string;
  detail: string;
  /** True when the user should look (server missing or failed). */
  problem: boolean;
}

const STATE_TEXT: Record<ServerState, string> = {
  starting: 'skewlsp: starting',
  running: 'skewlsp',
  stopped: 'skewlsp: stopped',
  disabled: 'skewlsp: disabled',
  missing: 'skewlsp: server not found',
  failed: 'skewlsp: server failed',
};

/** The code of a file that does not parse (stable: codes never change meaning). */
export const SYNTAX_ERROR_CODE = 'SKW900';

/** The order verdicts are listed in; any other verdict the server reports follows, by name. */
const VERDICT_ORDER = ['skewed', 'demoted', 'left', 'unknown', 'error'];

/** Counts loops per verdict from a file's skewlsp diagnostic codes; codes without a loop verdict are skipped. */
export function verdictCounts(codes: readonly string[], verdictOf: ReadonlyMap<string, string>): Map<string, number> {
  const counts = new Map<string, number>();
  for (const code of codes) {
    if (code === SYNTAX_ERROR_CODE) continue;
    const verdict = verdictOf.get(code);
    if (verdict === undefined || verdict === '' || verdict === '-') continue;
    counts.set(verdict, (counts.get(verdict) ?? 0) + 1);
  }
  return counts;
}

export function statusView(
  state: ServerState,
  counts: ReadonlyMap<string, number> | undefined,
  syntaxError = false,
): StatusView {
  const problem = state === 'missing' || state === 'failed';
  if (state !== 'running') return { text: STATE_TEXT[state], detail: '', problem };
  if (counts === undefined) return { text: STATE_TEXT.running, detail: 'no Python file open', problem };
  if (syntaxError) return { text: 'skewlsp: syntax error', detail: 'the file does not parse', problem };
  const verdicts = [...counts.keys()].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
  const parts = verdicts.map((verdict) => `${counts.get(verdict)} ${verdict}`);
  const detail = parts.length > 0 ? parts.join(', ') : 'no pl.pipeline loop reported';
  return { text: `skewlsp: ${detail}`, detail, problem };
}

function rank(verdict: string): number {
  const index = VERDICT_ORDER.indexOf(verdict);
  return index < 0 ? VERDICT_ORDER.length : index;
}

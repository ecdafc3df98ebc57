/**
 * "skewlsp: Explain Code": shows the server's long explanation of a reason code.
 *
 * The code comes from the argument (a diagnostic's code, a code action) or a
 * quick pick; the server renders the markdown (`workspace/executeCommand`
 * `skewlsp.explain`), so the text always matches the server the user runs.
 */
import { SERVER_EXPLAIN_COMMAND } from './constants';

export interface ReasonCode {
  code: string;
  summary: string;
}

/** Reason codes offered in the quick pick (stable; see DESIGN.md). Summaries are short hints only. */
export const REASON_CODES: readonly ReasonCode[] = [
  { code: 'SKW001', summary: 'skewed: producer runs D iterations ahead' },
  { code: 'SKW002', summary: 'skewed: requested depth infeasible for this trip; effective depth lower' },
  { code: 'SKW010', summary: 'left for LowerPipelineLoops: not cross-core' },
  { code: 'SKW020', summary: 'demoted: consumer role' },
  { code: 'SKW021', summary: 'demoted: multi-round-trip' },
  { code: 'SKW022', summary: 'demoted: dynamic bounds' },
  { code: 'SKW023', summary: 'demoted: trip < 2' },
  { code: 'SKW024', summary: 'demoted: stage=1 on a cross-core loop' },
  { code: 'SKW025', summary: 'demoted: producer half reads loop-carried state' },
  { code: 'SKW026', summary: 'demoted: producer depends on the consumer half' },
  { code: 'SKW027', summary: 'demoted: degenerate split' },
  { code: 'SKW030', summary: 'hint: stage=N requests the same depth as a smaller stage' },
  { code: 'SKW040', summary: 'error: the compiler will reject this loop' },
  { code: 'SKW900', summary: 'error: the file cannot be parsed' },
];

export interface QuickPickEntry {
  label: string;
  description: string;
}

export interface ExplainDependencies {
  /** Shows the quick pick; resolves to the chosen label, or undefined when dismissed. */
  pickCode(entries: QuickPickEntry[], placeholder: string): Promise<string | undefined>;
  executeServerCommand(command: string, args: unknown[]): Promise<unknown>;
  showMarkdown(code: string, markdown: string): Promise<void>;
  showInformation(message: string): void;
  showError(message: string): void;
}

export type ExplainOutcome = 'shown' | 'cancelled' | 'invalid-code' | 'no-explanation' | 'failed';

export async function explainCode(deps: ExplainDependencies, codeArgument?: unknown): Promise<ExplainOutcome> {
  let code: string | undefined;
  if (codeArgument === undefined || codeArgument === null) {
    const picked = await deps.pickCode(quickPickEntries(), 'Reason code to explain');
    if (picked === undefined) return 'cancelled';
    code = normalizeCode(picked);
  } else {
    code = normalizeCode(codeArgument);
    if (code === undefined) {
      deps.showError(`skewlsp: ${JSON.stringify(codeArgument)} is not a reason code (expected e.g. SKW020).`);
      return 'invalid-code';
    }
  }
  if (code === undefined) return 'invalid-code';

  let result: unknown;
  try {
    result = await deps.executeServerCommand(SERVER_EXPLAIN_COMMAND, [code]);
  } catch (error) {
    deps.showError(`skewlsp: could not explain ${code}: ${error instanceof Error ? error.message : String(error)}`);
    return 'failed';
  }
  const markdown = markdownFromResult(result);
  if (markdown === undefined) {
    deps.showInformation(`skewlsp: the server has no explanation for ${code}.`);
    return 'no-explanation';
  }
  await deps.showMarkdown(code, markdown);
  return 'shown';
}

export function quickPickEntries(): QuickPickEntry[] {
  return REASON_CODES.map(({ code, summary }) => ({ label: code, description: summary }));
}

/**
 * Accepts `"SKW020"`, `"skw020"`, `" SKW020 "`, or a VS Code diagnostic code
 * object `{value: "SKW020", target}`; returns the upper-case code or undefined.
 */
export function normalizeCode(value: unknown): string | undefined {
  const raw = typeof value === 'object' && value !== null && 'value' in value ? value.value : value;
  if (typeof raw !== 'string') return undefined;
  const code = raw.trim().toUpperCase();
  return /^SKW[0-9]{3}$/.test(code) ? code : undefined;
}

/** The server answers with a markdown string; a MarkupContent `{kind, value}` is accepted too. Empty means none. */
export function markdownFromResult(result: unknown): string | undefined {
  const text =
    typeof result === 'object' && result !== null && 'value' in result ? (result as { value: unknown }).value : result;
  return typeof text === 'string' && text.trim() !== '' ? text : undefined;
}

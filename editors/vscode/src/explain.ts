/**
 * "skewlsp: Explain Code": shows the server's long explanation of a reason code.
 *
 * The code comes from the argument (a diagnostic's code, a code lens) or a
 * quick pick of the codes the server lists (`skewlsp.listCodes`); the server
 * renders the markdown (`skewlsp.explain`). Both come from the server the user
 * runs, so the list and the text can never fall behind it.
 */
import { SERVER_EXPLAIN_COMMAND, SERVER_LIST_CODES_COMMAND } from './constants';

/** One entry of the server's `skewlsp.listCodes` answer. */
export interface ReasonCode {
  code: string;
  title: string;
  severity: string;
  verdict: string;
}

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

/** The server's code list (`skewlsp.listCodes`); malformed entries are left out. */
export async function fetchReasonCodes(deps: Pick<ExplainDependencies, 'executeServerCommand'>): Promise<ReasonCode[]> {
  return reasonCodesFromResult(await deps.executeServerCommand(SERVER_LIST_CODES_COMMAND, []));
}

export function reasonCodesFromResult(result: unknown): ReasonCode[] {
  if (!Array.isArray(result)) return [];
  const codes: ReasonCode[] = [];
  for (const entry of result) {
    if (typeof entry !== 'object' || entry === null) continue;
    const { code, title, severity, verdict } = entry as Record<string, unknown>;
    if (typeof code !== 'string' || normalizeCode(code) === undefined) continue;
    codes.push({
      code,
      title: typeof title === 'string' ? title : '',
      severity: typeof severity === 'string' ? severity : '',
      verdict: typeof verdict === 'string' ? verdict : '',
    });
  }
  return codes;
}

export async function explainCode(deps: ExplainDependencies, codeArgument?: unknown): Promise<ExplainOutcome> {
  let code: string | undefined;
  if (codeArgument === undefined || codeArgument === null) {
    let codes: ReasonCode[];
    try {
      codes = await fetchReasonCodes(deps);
    } catch (error) {
      deps.showError(
        `skewlsp: could not list the reason codes: ${error instanceof Error ? error.message : String(error)}`,
      );
      return 'failed';
    }
    if (codes.length === 0) {
      deps.showError('skewlsp: the server listed no reason codes.');
      return 'failed';
    }
    const picked = await deps.pickCode(quickPickEntries(codes), 'Reason code to explain');
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

export function quickPickEntries(codes: readonly ReasonCode[]): QuickPickEntry[] {
  return codes.map(({ code, title, severity }) => ({
    label: code,
    description: severity ? `${title} (${severity})` : title,
  }));
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

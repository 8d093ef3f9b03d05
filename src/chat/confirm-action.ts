/** What a tool asks the user before it acts (writing a file, running a command). */
export interface ActionRequest {
  tool: string;
  /** One line for the prompt, with the real path: `write notes.md (120 bytes, new file)`, `run npm test`. */
  summary: string;
  /** What the action does, for the user to look at first: a diff, a new file's lines, a command. */
  preview?: string;
  /** Aborted when the turn is cancelled: the question is withdrawn. */
  signal?: AbortSignal;
}

/** Asks the user; resolves `true` to go ahead. */
export type ConfirmAction = (request: ActionRequest) => Promise<boolean>;

/**
 * The answer of `spillway chat -p`: nobody is there to ask, so actions are refused unless `--yes`
 * allowed them all.
 *
 * @example
 * const confirm = unattendedConfirm({ yes: values.yes === true });
 */
export function unattendedConfirm({ yes }: { yes: boolean }): ConfirmAction {
  return async () => yes;
}

/** The arguments object a tool call carries (`{}` when the model sent something else). */
export function argumentsOf(args: unknown): Record<string, unknown> {
  return typeof args === 'object' && args !== null && !Array.isArray(args)
    ? (args as Record<string, unknown>)
    : {};
}

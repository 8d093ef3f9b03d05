/**
 * The README's headline: how many real agent CLIs complete the suite's task through `spillway wrap`
 * and directly, against a server whose window is smaller than they believe.
 */

/** What the headline reads of bench/results/clients-agents.json. */
export interface HeadlineClients {
  taskSteps: number;
  runs: Array<{ client: string; mode: 'direct' | 'spillway'; completed: boolean }>;
}

/** One sentence, from the real-client results. */
export function clientsHeadline(result: HeadlineClients): string {
  const clients = [...new Set(result.runs.map((run) => run.client))];
  const completed = (mode: 'direct' | 'spillway') =>
    clients.filter((client) =>
      result.runs.some((run) => run.client === client && run.mode === mode && run.completed),
    ).length;
  const direct = completed('direct');
  return `Through \`spillway wrap\`, ${completed('spillway')} of ${clients.length} real agent CLIs (${clients.join(', ')}) complete the ${result.taskSteps}-step task against a server whose window is smaller than they believe; directly, ${direct} of ${clients.length} ${direct === 1 ? 'does' : 'do'}.`;
}

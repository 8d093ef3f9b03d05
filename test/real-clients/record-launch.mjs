// Stands in for an agent under `spillway wrap` in the client suite: writes what the agent is given
// (its arguments, the variables wrap sets, the config files they point to) to
// $SPILLWAY_LAUNCH_RECORD, then runs the real agent ($SPILLWAY_REAL_AGENT) with exactly that.
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const args = process.argv.slice(2);
const read = (path) => {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return undefined;
  }
};
const WATCHED =
  /^(?:CLAUDE_CODE_|ANTHROPIC_BASE_URL$|OPENCODE_CONFIG_CONTENT$|PI_CODING_AGENT_DIR$|GEMINI_CLI_HOME$|GOOGLE_GEMINI_BASE_URL$)/;
const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => WATCHED.test(name)));
const files = {};
if (env.PI_CODING_AGENT_DIR) files.piModels = read(join(env.PI_CODING_AGENT_DIR, 'models.json'));
if (env.GEMINI_CLI_HOME) files.geminiSettings = read(join(env.GEMINI_CLI_HOME, '.gemini', 'settings.json'));
writeFileSync(process.env.SPILLWAY_LAUNCH_RECORD, JSON.stringify({ args, env, files }));
const child = spawn(process.env.SPILLWAY_REAL_AGENT, args, { stdio: 'inherit' });
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 128 : 1)));

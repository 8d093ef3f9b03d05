import type { Script } from './script.js';
import { chatAgentScript, declaresChatTools } from './script-chat-agent.js';
import { offersClientTools } from './script-generic-agent.js';

const CHAT_SCRIPT = chatAgentScript();

/**
 * The script that answers a request: the one given, or, when none was, the chat script for a request
 * that declares `spillway chat`'s file tools and the coding-agent script for any other.
 *
 * @example
 * selectScript({ script: codingAgentScript(), chosen: false, declaredTools: ['read_file', 'list_directory', 'search_text'] }); // the chat script
 */
export function selectScript({
  script,
  chosen,
  declaredTools,
}: {
  script: Script;
  chosen: boolean;
  declaredTools: readonly string[];
}): Script {
  return !chosen && declaresChatTools(declaredTools) ? CHAT_SCRIPT : script;
}

/**
 * Whether the generic agent answers a request: the script asks for it, or no script was given and
 * the request offers a real client's shell tool (and is not `spillway chat`'s).
 */
export function answersAsGenericAgent({
  script,
  chosen,
  body,
  declaredTools,
}: {
  script: Script;
  chosen: boolean;
  body: Record<string, unknown>;
  declaredTools: readonly string[];
}): boolean {
  if (script.agent === 'generic') return true;
  return !chosen && !declaresChatTools(declaredTools) && offersClientTools(body);
}

import type { Script } from './script.js';
import { chatAgentScript, declaresChatTools } from './script-chat-agent.js';

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

import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { type Command, GLOBAL_OPTIONS, parseCommandArgs } from './command.js';
import { COMMANDS } from './command-list.js';
import { isUsageError } from './io.js';

/**
 * Every flag the docs give a command is one its parser takes and its --help names, and every flag its
 * parser takes is in its --help: the --help text is the source of truth the docs are checked against.
 */

const ROOT = new URL('../../', import.meta.url);
const FLAG = /--[a-z][a-z0-9-]*/g;

const commands = new Map<string, Command>();
for (const [name, entry] of Object.entries(COMMANDS)) commands.set(name, await entry.load());

/** Whether the command's parser takes `flag` (with a value, or as a switch). */
function parserTakes(command: Command, flag: string): boolean {
  const attempts = [
    [flag, 'value', 'agent'],
    [flag, 'agent'],
    [`${flag}=value`, 'agent'],
  ];
  return attempts.some((argv) => {
    try {
      if (command.parse) command.parse(argv);
      else parseCommandArgs(command, argv);
      return true;
    } catch (error) {
      return !isUsageError(error) && !/unknown option/.test((error as Error).message);
    }
  });
}

/**
 * The flags a command's --help names as its own: those of its synopsis (up to the first blank line)
 * and those that open an option's line. A flag mentioned in passing (wrap's "--model" of the agent)
 * is not one.
 */
function helpFlags(command: Command): Set<string> {
  const [synopsis = '', ...rest] = command.usage.split('\n\n');
  const optionLines = rest.join('\n').match(/^\s+(?:-[a-zA-Z], )?--[a-z][a-z0-9-]*/gm) ?? [];
  const opened = optionLines.map((line) => line.match(FLAG)?.[0] as string);
  return new Set([...(synopsis.match(FLAG) ?? []), ...opened]);
}

interface Mention {
  command: string;
  flag: string;
  where: string;
}

/** The flags a line gives `spillway <command>` (for wrap, those before the agent's name). */
function flagsAfter(text: string, command: string): string[] {
  const flags: string[] = [];
  const tokens = text.split(/\s+/).filter((token) => token !== '' && token !== '\\');
  for (let index = 0; index < tokens.length; index++) {
    const token = tokens[index] as string;
    if (/^[|;#&>]/.test(token)) break;
    const flag = /^--[a-z][a-z0-9-]*/.exec(token)?.[0];
    if (flag !== undefined) {
      flags.push(flag);
      continue;
    }
    // wrap passes everything from the agent's name on to the agent.
    if (command === 'wrap' && !token.startsWith('-') && !/^--?[a-z]/.test(tokens[index - 1] ?? '')) break;
  }
  return flags;
}

/** Every flag the docs attribute to a command: on a line naming it, or in a section headed by it. */
function documentedFlags(file: string, text: string): Mention[] {
  const mentions: Mention[] = [];
  const names = [...commands.keys()].join('|');
  const invocation = new RegExp(`\\bspillway (${names})\\b`, 'g');
  let section: string | undefined;
  let fenced = false;
  text.split('\n').forEach((line, index) => {
    const where = `${file}:${index + 1}`;
    if (line.startsWith('```')) fenced = !fenced;
    const heading = /^#{1,6} /.test(line) && !fenced;
    if (heading) section = new RegExp(`spillway (${names})\\b`).exec(line)?.[1];
    const named = [...line.matchAll(invocation)];
    if (named.length > 0) {
      for (const match of named) {
        const command = match[1] as string;
        // In prose, the invocation ends with its code span; in a code block, with the line.
        const after = line.slice((match.index ?? 0) + match[0].length);
        const span = fenced ? after : (after.split('`')[0] ?? '');
        for (const flag of flagsAfter(span, command)) mentions.push({ command, flag, where });
      }
      return;
    }
    if (section === undefined || heading || fenced) return;
    for (const span of line.matchAll(/`(--[a-z][a-z0-9-]*)[^`]*`/g))
      mentions.push({ command: section, flag: span[1] as string, where });
  });
  return mentions;
}

const docs = [
  'README.md',
  ...readdirSync(new URL('docs/', ROOT))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

describe('the command line’s documented flags', () => {
  it('are in each command’s --help exactly as its parser takes them', () => {
    const problems: string[] = [];
    for (const [name, command] of commands) {
      for (const flag of helpFlags(command))
        if (!parserTakes(command, flag))
          problems.push(`spillway ${name} --help names ${flag}, which it does not take`);
      if (command.parse) continue;
      for (const option of Object.keys(command.options))
        if (!helpFlags(command).has(`--${option}`) && !(option in GLOBAL_OPTIONS))
          problems.push(`spillway ${name} takes --${option}, which its --help does not name`);
    }
    expect(problems).toEqual([]);
  });

  it('in README.md and docs/*.md are flags of the command they are given to', () => {
    const problems: string[] = [];
    let seen = 0;
    for (const file of docs) {
      for (const { command, flag, where } of documentedFlags(
        file,
        readFileSync(new URL(file, ROOT), 'utf8'),
      )) {
        seen += 1;
        const known = commands.get(command) as Command;
        if (!helpFlags(known).has(flag) && !(flag.slice(2) in GLOBAL_OPTIONS))
          problems.push(`${where}: ${flag} for spillway ${command}, whose --help does not name it`);
        else if (!parserTakes(known, flag))
          problems.push(`${where}: ${flag} for spillway ${command}, which its parser does not take`);
      }
    }
    expect(seen).toBeGreaterThan(20);
    expect(problems).toEqual([]);
  });
});

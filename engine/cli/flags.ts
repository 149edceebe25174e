/**
 * The commands and their flags, as one table: parsing and every `--help` come from it, so a
 * flag cannot be accepted without being listed, nor listed without being accepted.
 */
import { parseArgs } from "node:util";

interface Flag {
  type: "string" | "boolean";
  /** The value's name in the help (`DIR`, `N`). */
  value?: string;
  multiple?: boolean;
  short?: string;
  help: string;
}

const root: Flag = { type: "string", value: "DIR", help: "the site's folder (default: the working folder, or the nearest folder above it with a cafe.config file)" };
const help: Flag = { type: "boolean", short: "h", help: "print this help" };
const content: Flag = { type: "string", value: "DIR", help: "the content folder (default: the config's `content`, else content/)" };
const out: Flag = { type: "string", value: "DIR", help: "the built site's folder (default: the config's `out`, else dist/)" };
const port: Flag = { type: "string", value: "N", help: "the port to listen on (default 4321; 0 picks a free one)" };
const host: Flag = { type: "string", value: "H", help: "the address to listen on (default 127.0.0.1; 0.0.0.0 for every address of this machine)" };
const allowedHost: Flag = {
  type: "string",
  value: "NAME",
  multiple: true,
  help: "a Host name the server answers besides localhost, 127.0.0.1, [::1] and --host; repeatable",
};
const noCache: Flag = { type: "boolean", help: "neither read nor write the persistent cache" };
const strict: Flag = {
  type: "boolean",
  help: "what the site's editorial rules (rules.yaml of the content folder) find is an error, not a warning (the default when the environment has CI=true)",
};
const threads: Flag = {
  type: "string",
  value: "N",
  help: "how many threads render the Markdown, the pages and the social cards (default: every core for a site of 20,000 articles or more, or to draw 40 social cards or more; else 1)",
};
const bundleAgain: Flag = { type: "boolean", help: "bundle the engine and the theme again, even if their code did not change" };

/** The options of a build, `build`'s and `start`'s. */
const building = {
  content,
  out,
  force: { type: "boolean", help: "build everything again: neither the up-to-date check nor the cache is read (the code is bundled again too)" },
  "no-cache": noCache,
  verbose: { type: "boolean", help: "print how long each stage took" },
  strict,
  threads,
} satisfies Record<string, Flag>;

export interface Command {
  summary: string;
  /** What follows the command's name in its usage line. */
  args: string;
  flags: Record<string, Flag>;
  /** Words after the command are allowed (the title of `new`). */
  positionals?: boolean;
}

export const COMMANDS = {
  init: {
    summary:
      "write a small, complete starter site (in English) into DIR, by default this folder: its config, a theme, three posts, tsconfig.json, a README, and its npm scripts and packages in package.json; never overwrites a file",
    args: "[DIR] [options]",
    flags: {},
    positionals: true,
  },
  build: {
    summary: "build the site into its output folder; nothing is written unless the whole site builds",
    args: "[options]",
    flags: {
      ...building,
      "new-published-routes": {
        type: "boolean",
        help: "start a new record of published addresses (content/published-routes.txt) where it is missing although the site was built before",
      },
    },
  },
  dev: {
    summary: "build the site with its drafts into a folder of the cache and serve it; a save rebuilds what it changed and reloads the open pages",
    args: "[options]",
    flags: { content, port, host, "allowed-host": allowedHost, force: bundleAgain, "no-cache": noCache, strict, threads },
  },
  preview: {
    summary: "serve the built site as a static host would (each route at its path, the 404 page for anything else)",
    args: "[options]",
    flags: { out, port, host, "allowed-host": allowedHost, force: bundleAgain },
  },
  start: {
    summary:
      "build the site into its output folder, then serve it as preview does, in the same process (what `npm start` runs): nothing is served when the build fails",
    args: "[options]",
    flags: {
      ...building,
      port,
      host,
      "allowed-host": allowedHost,
    },
  },
  new: {
    summary: "write a new article, a draft dated today, into the content's articles/ and print its path",
    args: '"Title of the article" [options]',
    flags: { content, force: bundleAgain },
    positionals: true,
  },
  move: {
    summary:
      "rename an article: move its file (and its translations), add the old address to its aliases, rewrite every Markdown link and data-file entry that pointed there, and print each file changed",
    args: "OLD NEW [options]   (each a route such as /old-route, or OLD an article's file)",
    flags: { content, force: { type: "boolean", help: "move even when git cannot say whether the article has changes not committed (the code is bundled again too)" } },
    positionals: true,
  },
  "check-links": {
    summary: "ask every external link the site shows whether it still answers (needs a network; exit 1 on a dead link, 3 when no site answers at all)",
    args: "[options]",
    flags: {
      content,
      "warn-only": { type: "boolean", help: "report dead links without failing (exit 0)" },
      force: { type: "boolean", help: "ask every address again, whatever the cache of answers holds (the code is bundled again too)" },
      "no-cache": { type: "boolean", help: "keep no answers" },
      "allow-private": { type: "boolean", help: "ask loopback, private and link-local addresses too (refused by default: a link there is no public page)" },
    },
  },
} satisfies Record<string, Command>;

export type CommandName = keyof typeof COMMANDS;

/** Every command's flags and these. */
const COMMON: Record<string, Flag> = { root, help };

const isCommand = (name: string): name is CommandName => Object.hasOwn(COMMANDS, name);

function flagLines(flags: Record<string, Flag>): string[] {
  const rows = Object.entries(flags).map(([name, flag]) => [`${flag.short ? `-${flag.short}, ` : ""}--${name}${flag.value ? ` ${flag.value}` : ""}`, flag.help] as const);
  const width = Math.max(...rows.map(([left]) => left.length));
  return rows.map(([left, text]) => `  ${left.padEnd(width)}  ${text}`);
}

/** The help of the command (`cafe --help`), or of one of its commands (`cafe build --help`). */
export function helpText(command?: CommandName): string {
  if (command) {
    const { summary, args, flags } = COMMANDS[command];
    return [`cafe ${command}: ${summary}`, "", `usage: cafe ${command} ${args}`, "", "options:", ...flagLines({ ...flags, ...COMMON }), ""].join("\n");
  }
  const width = Math.max(...Object.keys(COMMANDS).map((c) => c.length));
  return [
    "cafe: builds a site of Markdown articles with its theme, from the site's folder (its cafe.config.ts)",
    "",
    "usage: cafe <command> [options]",
    "",
    "commands:",
    ...Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`),
    "",
    "options of every command:",
    ...flagLines(COMMON),
    "",
    "`cafe <command> --help` lists the options of a command.",
    "",
  ].join("\n");
}

export type Parsed =
  | { kind: "help"; text: string }
  | { kind: "error"; message: string }
  | { kind: "run"; command: CommandName; values: Record<string, string | boolean | string[] | undefined>; positionals: string[] };

/** Reads a command line: the command, then its flags (each command accepts only its own, and --root and --help). */
export function parseCommandLine(argv: readonly string[]): Parsed {
  const [first, ...rest] = argv;
  if (first === undefined || first === "--help" || first === "-h" || first === "help") {
    const topic = first === "help" ? rest[0] : undefined;
    return { kind: "help", text: helpText(topic !== undefined && isCommand(topic) ? topic : undefined) };
  }
  // `--root DIR` may come before the command.
  if (first === "--root" || first.startsWith("--root=")) {
    const skip = first === "--root" ? 2 : 1;
    const parsed = parseCommandLine(argv.slice(skip));
    return parsed.kind === "run" ? { ...parsed, values: { ...parsed.values, root: first === "--root" ? argv[1] : first.slice(7) } } : parsed;
  }
  if (!isCommand(first)) {
    const known = Object.keys(COMMANDS);
    return { kind: "error", message: `unknown command '${first}': the commands are ${known.join(", ")} (cafe --help)` };
  }
  const spec: Command = COMMANDS[first];
  const flags = { ...spec.flags, ...COMMON };
  let parsed;
  try {
    parsed = parseArgs({
      args: rest as string[],
      allowPositionals: true,
      strict: true,
      options: Object.fromEntries(Object.entries(flags).map(([name, f]) => [name, { type: f.type, ...(f.multiple ? { multiple: true } : {}), ...(f.short ? { short: f.short } : {}) }])),
    });
  } catch (error) {
    const flag = /'(-[^']*)'/.exec((error as Error).message)?.[1];
    const message = flag && (error as { code?: string }).code === "ERR_PARSE_ARGS_UNKNOWN_OPTION"
      ? `${flag} is not an option of cafe ${first}; its options: ${Object.keys(flags).map((f) => `--${f}`).join(", ")}`
      : `cafe ${first}: ${(error as Error).message}`;
    return { kind: "error", message: `${message} (cafe ${first} --help)` };
  }
  if (parsed.values.help) return { kind: "help", text: helpText(first) };
  if (parsed.positionals.length > 0 && !spec.positionals) {
    return { kind: "error", message: `cafe ${first} takes no arguments besides its options; got '${parsed.positionals[0]}' (cafe ${first} --help)` };
  }
  return { kind: "run", command: first, values: parsed.values as Record<string, string | boolean | string[] | undefined>, positionals: parsed.positionals };
}

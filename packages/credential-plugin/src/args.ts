/** `--name value` / `--name=value` flags after a subcommand (repeatable ones collect). Pure. */
export function parseArgs(argv: readonly string[], known: readonly string[]): { flags: Map<string, string[]>; rest: string[] } {
  const flags = new Map<string, string[]>();
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (!a.startsWith('--')) {
      rest.push(a);
      continue;
    }
    const eq = a.indexOf('=');
    const name = a.slice(2, eq < 0 ? undefined : eq);
    if (!known.includes(name)) throw new Error(`unknown flag --${name}`);
    const value = eq >= 0 ? a.slice(eq + 1) : argv[++i];
    if (value === undefined) throw new Error(`flag --${name} needs a value`);
    flags.set(name, [...(flags.get(name) ?? []), value]);
  }
  return { flags, rest };
}

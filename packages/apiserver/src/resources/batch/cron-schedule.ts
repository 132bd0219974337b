/**
 * The cron schedule syntax upstream accepts for CronJob spec.schedule: robfig/cron v3's standard
 * parser (five fields, `?` as `*`, month and weekday names, `@hourly`-style descriptors, `@every
 * <duration>`, an optional leading `TZ=` / `CRON_TZ=` location). Only whether a schedule parses,
 * and the error text upstream reports when it does not, matter here: nothing is scheduled by this
 * server (the controller manager runs CronJobs).
 */

interface Bounds {
  min: number;
  max: number;
  names?: Readonly<Record<string, number>>;
}

const MONTH_NAMES = { jan: 1, feb: 2, mar: 3, apr: 4, may: 5, jun: 6, jul: 7, aug: 8, sep: 9, oct: 10, nov: 11, dec: 12 };
const DAY_NAMES = { sun: 0, mon: 1, tue: 2, wed: 3, thu: 4, fri: 5, sat: 6 };

/** minute, hour, day of month, month, day of week: the five fields of a standard spec. */
const FIELDS: readonly Bounds[] = [
  { min: 0, max: 59 },
  { min: 0, max: 23 },
  { min: 1, max: 31 },
  { min: 1, max: 12, names: MONTH_NAMES },
  { min: 0, max: 6, names: DAY_NAMES },
];

const DESCRIPTORS = new Set(['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly']);

/** Go's strconv.Quote for the ASCII texts these messages quote. */
function goQuote(s: string): string {
  return JSON.stringify(s);
}

/** Go's strconv.Atoi: an optionally signed decimal int64; its error texts. */
function atoi(s: string): number | string {
  const m = /^[+-]?(\d+)$/.exec(s);
  if (!m) return `strconv.Atoi: parsing ${goQuote(s)}: invalid syntax`;
  const n = BigInt(s);
  if (n > 9223372036854775807n || n < -9223372036854775808n) return `strconv.Atoi: parsing ${goQuote(s)}: value out of range`;
  return Number(n);
}

function mustParseInt(expr: string): number {
  const n = atoi(expr);
  if (typeof n === 'string') throw new Error(`failed to parse int from ${expr}: ${n}`);
  if (n < 0) throw new Error(`negative number (${n}) not allowed: ${expr}`);
  return n;
}

function parseIntOrName(expr: string, names: Bounds['names']): number {
  const named = names?.[expr.toLowerCase()];
  return named ?? mustParseInt(expr);
}

/** One comma-separated part of a field: `*`, `?`, `a`, `a-b`, each optionally `/step`. */
function checkRange(expr: string, r: Bounds): void {
  const rangeAndStep = expr.split('/');
  const lowAndHigh = rangeAndStep[0]!.split('-');
  let start: number;
  let end: number;
  if (lowAndHigh[0] === '*' || lowAndHigh[0] === '?') {
    start = r.min;
    end = r.max;
  } else {
    start = parseIntOrName(lowAndHigh[0]!, r.names);
    if (lowAndHigh.length === 1) end = start;
    else if (lowAndHigh.length === 2) end = parseIntOrName(lowAndHigh[1]!, r.names);
    else throw new Error(`too many hyphens: ${expr}`);
  }
  let step = 1;
  if (rangeAndStep.length === 2) {
    step = mustParseInt(rangeAndStep[1]!);
    if (lowAndHigh.length === 1) end = r.max;
  } else if (rangeAndStep.length > 2) {
    throw new Error(`too many slashes: ${expr}`);
  }
  if (start < r.min) throw new Error(`beginning of range (${start}) below minimum (${r.min}): ${expr}`);
  if (end > r.max) throw new Error(`end of range (${end}) above maximum (${r.max}): ${expr}`);
  if (start > end) throw new Error(`beginning of range (${start}) beyond end of range (${end}): ${expr}`);
  if (step === 0) throw new Error(`step of range should be a positive number: ${expr}`);
}

/** Go's strings.Fields: split on runs of white space. */
function goFields(s: string): string[] {
  return s.split(/\s+/u).filter((f) => f !== '');
}

/**
 * Checks a schedule as upstream's validation does (cron.ParseStandard).
 * @returns undefined when the schedule parses, else the parser's error text (upstream puts it in
 * the Invalid cause of spec.schedule).
 */
export function cronScheduleError(schedule: string, isTimeZone: (name: string) => string | undefined = timeZoneError): string | undefined {
  try {
    parseStandard(schedule, isTimeZone);
    return undefined;
  } catch (e) {
    return (e as Error).message;
  }
}

function parseStandard(input: string, isTimeZone: (name: string) => string | undefined): void {
  let spec = input;
  if (spec.length === 0) throw new Error('empty spec string');
  if (spec.startsWith('TZ=') || spec.startsWith('CRON_TZ=')) {
    const space = spec.indexOf(' ');
    const eq = spec.indexOf('=');
    // Go slices up to the first space; a location with nothing after it is left with no fields.
    const location = space < 0 ? spec.slice(eq + 1) : spec.slice(eq + 1, space);
    const err = isTimeZone(location);
    if (err) throw new Error(`provided bad location ${location}: ${err}`);
    spec = space < 0 ? '' : spec.slice(space).trim();
  }
  if (spec.startsWith('@')) return parseDescriptor(spec);
  const fields = goFields(spec);
  if (fields.length !== FIELDS.length) {
    throw new Error(`expected exactly ${FIELDS.length} fields, found ${fields.length}: [${fields.join(' ')}]`);
  }
  fields.forEach((f, i) => {
    for (const part of f.split(',').filter((p) => p !== '')) checkRange(part, FIELDS[i]!);
  });
}

function parseDescriptor(descriptor: string): void {
  if (DESCRIPTORS.has(descriptor)) return;
  const every = '@every ';
  if (descriptor.startsWith(every)) {
    const err = goDurationError(descriptor.slice(every.length));
    if (err) throw new Error(`failed to parse duration ${descriptor}: ${err}`);
    return;
  }
  throw new Error(`unrecognized descriptor: ${descriptor}`);
}

const DURATION_UNITS = new Set(['ns', 'us', 'µs', 'μs', 'ms', 's', 'm', 'h']);

/** Go's time.ParseDuration, as far as whether it accepts the text; its error text when not. */
export function goDurationError(s: string): string | undefined {
  const orig = s;
  const invalid = `time: invalid duration ${goQuote(orig)}`;
  let rest = s.replace(/^[-+]/, '');
  if (rest === '0') return undefined;
  if (rest === '') return invalid;
  while (rest !== '') {
    const num = /^(\d*)(\.(\d*))?/.exec(rest)!;
    if (num[1] === '' && (num[3] ?? '') === '') return invalid;
    rest = rest.slice(num[0].length);
    const unit = /^[^\d.]*/.exec(rest)![0];
    if (unit === '') return `time: missing unit in duration ${goQuote(orig)}`;
    if (!DURATION_UNITS.has(unit)) return `time: unknown unit ${goQuote(unit)} in duration ${goQuote(orig)}`;
    rest = rest.slice(unit.length);
  }
  return undefined;
}

let zoneNames: Map<string, string> | undefined;

/**
 * Whether Go's time.LoadLocation finds the zone (IANA names, case-sensitive as the zoneinfo
 * files are; `UTC` and `Local` are built in); its error text when not.
 */
export function timeZoneError(name: string): string | undefined {
  if (name === '' || name === 'UTC' || name === 'Local') return undefined;
  if (name.includes('..') || name.startsWith('/') || name.startsWith('\\')) return 'time: invalid location name';
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
  } catch {
    return `unknown time zone ${name}`;
  }
  // Intl matches names case-insensitively; the zoneinfo files Go reads do not.
  zoneNames ??= new Map(Intl.supportedValuesOf('timeZone').map((z) => [z.toLowerCase(), z]));
  const canonical = zoneNames.get(name.toLowerCase());
  if (canonical !== undefined && canonical !== name) return `unknown time zone ${name}`;
  return undefined;
}

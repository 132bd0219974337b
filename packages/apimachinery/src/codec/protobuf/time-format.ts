/**
 * Conversions between the Protobuf form of meta/v1 Time and MicroTime ({seconds, nanos} since the
 * Unix epoch) and their JSON form (RFC 3339 strings in UTC). Time is shown with second precision,
 * MicroTime with exactly six fractional digits, as upstream's MarshalJSON does.
 */

export interface Timestamp {
  seconds: number;
  nanos: number;
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

function pad(n: number, width: number): string {
  return String(n).padStart(width, '0');
}

function utcParts(ts: Timestamp): { date: Date; nanos: number } {
  // Normalize like Go's time.Unix: nanos outside [0, 1e9) carry into seconds.
  const carry = Math.floor(ts.nanos / 1e9);
  const seconds = ts.seconds + carry;
  const nanos = ts.nanos - carry * 1e9;
  const date = new Date(seconds * 1000);
  const year = date.getUTCFullYear();
  if (!Number.isFinite(date.getTime()) || year < 0 || year > 9999) {
    // Same limit as Go's Time.MarshalJSON.
    throw new RangeError('Time.MarshalJSON: year outside of range [0,9999]');
  }
  return { date, nanos };
}

function formatSeconds(date: Date): string {
  return (
    `${pad(date.getUTCFullYear(), 4)}-${pad(date.getUTCMonth() + 1, 2)}-${pad(date.getUTCDate(), 2)}` +
    `T${pad(date.getUTCHours(), 2)}:${pad(date.getUTCMinutes(), 2)}:${pad(date.getUTCSeconds(), 2)}`
  );
}

/**
 * RFC 3339 with second precision, e.g. `2024-01-02T03:04:05Z`; fractions are dropped.
 * @throws RangeError when the year is outside [0, 9999].
 */
export function formatTime(ts: Timestamp): string {
  return `${formatSeconds(utcParts(ts).date)}Z`;
}

/**
 * RFC 3339 with six fractional digits, e.g. `2024-01-02T03:04:05.123456Z`; nanoseconds are
 * truncated to microseconds.
 * @throws RangeError when the year is outside [0, 9999].
 */
export function formatMicroTime(ts: Timestamp): string {
  const { date, nanos } = utcParts(ts);
  return `${formatSeconds(date)}.${pad(Math.floor(nanos / 1000), 6)}Z`;
}

/**
 * Parses an RFC 3339 date-time (optional fraction up to nanoseconds, `Z` or a numeric offset).
 * @throws RangeError when the text is not a valid RFC 3339 date-time.
 */
export function parseTimestamp(text: string): Timestamp {
  const m = RFC3339.exec(text);
  if (!m) throw new RangeError(`invalid RFC 3339 time ${JSON.stringify(text)}`);
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const date = new Date(0);
  // setUTCFullYear, unlike Date.UTC, does not map years 0-99 to 1900-1999.
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, 0);
  if (
    date.getUTCFullYear() !== year ||
    date.getUTCMonth() !== month - 1 ||
    date.getUTCDate() !== day ||
    date.getUTCHours() !== hour ||
    date.getUTCMinutes() !== minute ||
    date.getUTCSeconds() !== second
  ) {
    throw new RangeError(`invalid RFC 3339 time ${JSON.stringify(text)}`);
  }
  let seconds = date.getTime() / 1000;
  if (!m[8]) {
    const sign = m[9] === '-' ? -1 : 1;
    const offsetHours = Number(m[10]);
    const offsetMinutes = Number(m[11]);
    if (offsetHours > 23 || offsetMinutes > 59) throw new RangeError(`invalid RFC 3339 time ${JSON.stringify(text)}`);
    seconds -= sign * (offsetHours * 3600 + offsetMinutes * 60);
  }
  const nanos = m[7] ? Number(m[7].padEnd(9, '0')) : 0;
  return { seconds, nanos };
}

import { cronScheduleError, goDurationError, timeZoneError } from './cron-schedule.js';

describe('cronScheduleError (robfig/cron v3 ParseStandard, as upstream validates spec.schedule)', () => {
  test.each([
    '* * * * *',
    '*/1 * * * ?',
    '* */1 * * ?',
    '0 3 * * *',
    '0,15,30,45 0-23/2 1-31 1-12 0-6',
    '0 0 1 jan,JUL mon-fri',
    '5-10/2 * * DEC SUN',
    '@hourly',
    '@daily',
    '@midnight',
    '@weekly',
    '@monthly',
    '@yearly',
    '@annually',
    '@every 1h30m',
    '@every 0',
    'TZ=UTC 0 3 * * *',
    'CRON_TZ=America/New_York 0 3 * * *',
    'TZ=Europe/Berlin @daily',
    '  0   3  * *  *  ',
  ])('accepts %j', (schedule) => {
    expect(cronScheduleError(schedule)).toBeUndefined();
  });

  test.each([
    ['', 'empty spec string'],
    ['* * * *', 'expected exactly 5 fields, found 4: [* * * *]'],
    ['* * * * * *', 'expected exactly 5 fields, found 6: [* * * * * *]'],
    ['61 * * * *', 'end of range (61) above maximum (59): 61'],
    ['* 24 * * *', 'end of range (24) above maximum (23): 24'],
    ['* * 0 * *', 'beginning of range (0) below minimum (1): 0'],
    ['* * * 13 *', 'end of range (13) above maximum (12): 13'],
    ['* * * * 7', 'end of range (7) above maximum (6): 7'],
    ['5-2 * * * *', 'beginning of range (5) beyond end of range (2): 5-2'],
    ['1-2-3 * * * *', 'too many hyphens: 1-2-3'],
    ['*/2/3 * * * *', 'too many slashes: */2/3'],
    ['*/0 * * * *', 'step of range should be a positive number: */0'],
    ['x * * * *', 'failed to parse int from x: strconv.Atoi: parsing "x": invalid syntax'],
    ['* * * foo *', 'failed to parse int from foo: strconv.Atoi: parsing "foo": invalid syntax'],
    ['@often', 'unrecognized descriptor: @often'],
    ['@every 5', 'failed to parse duration @every 5: time: missing unit in duration "5"'],
    ['@every 5y', 'failed to parse duration @every 5y: time: unknown unit "y" in duration "5y"'],
    ['TZ=Mars/Olympus 0 3 * * *', 'provided bad location Mars/Olympus: unknown time zone Mars/Olympus'],
    ['TZ=UTC', 'expected exactly 5 fields, found 0: []'],
  ])('refuses %j: %s', (schedule, message) => {
    expect(cronScheduleError(schedule)).toBe(message);
  });
});

describe('goDurationError', () => {
  test.each([['1h'], ['1.5h'], ['300ms'], ['-2m3s'], ['1µs'], ['0']])('accepts %s', (d) => expect(goDurationError(d)).toBeUndefined());
  test.each([
    ['', 'time: invalid duration ""'],
    ['h', 'time: invalid duration "h"'],
    ['1', 'time: missing unit in duration "1"'],
    ['1d', 'time: unknown unit "d" in duration "1d"'],
  ])('refuses %j', (d, msg) => expect(goDurationError(d)).toBe(msg));
});

describe('timeZoneError (Go time.LoadLocation)', () => {
  test.each([['UTC'], ['Local'], ['Europe/Berlin'], ['America/New_York'], ['Etc/GMT+5']])('knows %s', (z) => expect(timeZoneError(z)).toBeUndefined());
  test.each([['bad-time-zone'], ['Mars/Olympus'], ['europe/berlin']])('does not know %s', (z) => expect(timeZoneError(z)).toBe(`unknown time zone ${z}`));
  test.each([['../etc/passwd'], ['/etc/localtime']])('refuses the path %s', (z) => expect(timeZoneError(z)).toBe('time: invalid location name'));
});

import { OidcClaimError, userFromClaims, usernamePrefixFor, type OidcClaimRules } from './oidc-claims.js';

const ISSUER = 'https://issuer.example/realm';
const base: OidcClaimRules = {
  issuerUrl: ISSUER,
  usernameClaim: 'sub',
  usernamePrefix: '',
  groupsClaim: '',
  groupsPrefix: '',
  requiredClaims: {},
};

describe('usernamePrefixFor', () => {
  test.each([
    ['sub', '', `${ISSUER}#`],
    ['name', '', `${ISSUER}#`],
    ['email', '', ''],
    ['sub', '-', ''],
    ['email', '-', ''],
    ['sub', 'oidc:', 'oidc:'],
    ['email', 'corp:', 'corp:'],
  ])('claim %p with prefix flag %p: %p', (usernameClaim, usernamePrefix, want) => {
    expect(usernamePrefixFor({ issuerUrl: ISSUER, usernameClaim, usernamePrefix })).toBe(want);
  });
});

describe('userFromClaims', () => {
  test.each<[string, Partial<OidcClaimRules>, Record<string, unknown>, { username: string; groups: string[] }]>([
    ['sub, default prefix', {}, { sub: 'u1' }, { username: `${ISSUER}#u1`, groups: [] }],
    ['sub, explicit prefix', { usernamePrefix: 'oidc:' }, { sub: 'u1' }, { username: 'oidc:u1', groups: [] }],
    ['sub, prefix disabled', { usernamePrefix: '-' }, { sub: 'u1' }, { username: 'u1', groups: [] }],
    ['other claim, default prefix', { usernameClaim: 'preferred_username' }, { sub: 'u1', preferred_username: 'jane' }, { username: `${ISSUER}#jane`, groups: [] }],
    ['email, no default prefix', { usernameClaim: 'email' }, { email: 'j@x.io' }, { username: 'j@x.io', groups: [] }],
    ['email verified', { usernameClaim: 'email' }, { email: 'j@x.io', email_verified: true }, { username: 'j@x.io', groups: [] }],
    ['email with explicit prefix', { usernameClaim: 'email', usernamePrefix: 'corp:' }, { email: 'j@x.io' }, { username: 'corp:j@x.io', groups: [] }],
    ['email_verified false is irrelevant for another claim', {}, { sub: 'u1', email_verified: false }, { username: `${ISSUER}#u1`, groups: [] }],
    ['groups array', { groupsClaim: 'groups' }, { sub: 'u', groups: ['a', 'b'] }, { username: `${ISSUER}#u`, groups: ['a', 'b'] }],
    ['groups single string', { groupsClaim: 'role' }, { sub: 'u', role: 'admin' }, { username: `${ISSUER}#u`, groups: ['admin'] }],
    ['groups prefixed each', { groupsClaim: 'groups', groupsPrefix: 'oidc:' }, { sub: 'u', groups: ['a', 'b'] }, { username: `${ISSUER}#u`, groups: ['oidc:a', 'oidc:b'] }],
    ['groups claim absent', { groupsClaim: 'groups', groupsPrefix: 'oidc:' }, { sub: 'u' }, { username: `${ISSUER}#u`, groups: [] }],
    ['groups claim null', { groupsClaim: 'groups' }, { sub: 'u', groups: null }, { username: `${ISSUER}#u`, groups: [] }],
    ['groups empty array', { groupsClaim: 'groups' }, { sub: 'u', groups: [] }, { username: `${ISSUER}#u`, groups: [] }],
    ['no groups claim configured', { groupsPrefix: 'oidc:' }, { sub: 'u', groups: ['a'] }, { username: `${ISSUER}#u`, groups: [] }],
    ['required claims match', { requiredClaims: { hd: 'x.io', tier: 'gold' } }, { sub: 'u', hd: 'x.io', tier: 'gold' }, { username: `${ISSUER}#u`, groups: [] }],
  ])('%s', (_name, rules, claims, want) => {
    expect(userFromClaims(claims, { ...base, ...rules })).toEqual(want);
  });

  test.each<[string, Partial<OidcClaimRules>, Record<string, unknown>, string]>([
    ['username claim absent', {}, { name: 'x' }, 'claim not present'],
    ['username claim a number', {}, { sub: 42 }, 'not a string'],
    ['username claim an array', { usernameClaim: 'email' }, { email: ['a@x.io'] }, 'not a string'],
    ['username claim empty', {}, { sub: '' }, 'is empty'],
    ['email not verified', { usernameClaim: 'email' }, { email: 'j@x.io', email_verified: false }, 'email not verified'],
    ['email_verified not a boolean', { usernameClaim: 'email' }, { email: 'j@x.io', email_verified: 'true' }, 'not a boolean'],
    ['groups a number', { groupsClaim: 'groups' }, { sub: 'u', groups: 7 }, 'not a string or an array of strings'],
    ['groups an object', { groupsClaim: 'groups' }, { sub: 'u', groups: { a: 1 } }, 'not a string or an array of strings'],
    ['groups array with a number', { groupsClaim: 'groups' }, { sub: 'u', groups: ['a', 1] }, 'not a string or an array of strings'],
    ['required claim absent', { requiredClaims: { hd: 'x.io' } }, { sub: 'u' }, 'required claim hd not present'],
    ['required claim differs', { requiredClaims: { hd: 'x.io' } }, { sub: 'u', hd: 'y.io' }, 'value does not match'],
    ['required claim not a string', { requiredClaims: { level: '1' } }, { sub: 'u', level: 1 }, 'not a string'],
  ])('%s is refused', (_name, rules, claims, message) => {
    expect(() => userFromClaims(claims, { ...base, ...rules })).toThrow(OidcClaimError);
    expect(() => userFromClaims(claims, { ...base, ...rules })).toThrow(message);
  });
});

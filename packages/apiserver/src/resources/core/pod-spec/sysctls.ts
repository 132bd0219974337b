import { child, index, invalid, required, type FieldErrorList } from '@cluster/apimachinery';

/** One dot-separated part of a sysctl name (upstream's SysctlSegmentFmt). */
const SEGMENT = '[a-z0-9]([-_a-z0-9]*[a-z0-9])?';
/** A sysctl name as upstream's SysctlFmt, the text its error message shows. */
export const SYSCTL_FMT = `(${SEGMENT}\\.)*${SEGMENT}`;
export const SYSCTL_MAX_LENGTH = 253;
const SYSCTL_RE = new RegExp(`^${SYSCTL_FMT}$`);

/** Upstream's IsValidSysctlName: at most 253 characters, dot-separated lowercase segments. */
export function isValidSysctlName(name: string): boolean {
  return name.length <= SYSCTL_MAX_LENGTH && SYSCTL_RE.test(name);
}

/** Upstream's validateSysctls over spec.securityContext.sysctls: each name required and well-formed. */
export function validateSysctls(sysctls: unknown, path: string): FieldErrorList {
  if (!Array.isArray(sysctls)) return [];
  const errs: FieldErrorList = [];
  sysctls.forEach((s: unknown, i) => {
    const name = (s as { name?: unknown } | null)?.name;
    const namePath = child(index(path, i), 'name');
    if (typeof name !== 'string' || name === '') errs.push(required(namePath));
    else if (!isValidSysctlName(name)) {
      errs.push(invalid(namePath, name, `must have at most ${SYSCTL_MAX_LENGTH} characters and match regex ${SYSCTL_FMT}`));
    }
  });
  return errs;
}

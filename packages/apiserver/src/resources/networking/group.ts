/** networking.<apiDomain>: Ingress, IngressClass and NetworkPolicy. */
export const networkingGroup = (apiDomain: string): string => `networking.${apiDomain}`;

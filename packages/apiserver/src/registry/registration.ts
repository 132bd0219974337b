import type { ResourceInfo } from './resource-info.js';
import type { ResourceStrategy } from './strategy.js';

/** One served resource: what it is (discovery, OpenAPI, routing) and how it behaves. */
export interface ResourceRegistration {
  info: ResourceInfo;
  // Strategies are typed on their own kind; the registry only hands them objects of that kind.
  strategy: ResourceStrategy<any>; // eslint-disable-line @typescript-eslint/no-explicit-any
}
